/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Jump probes (jprobes).  Included by <linux/kprobes.h> only.
 *
 * A jprobe runs a handler with the probed function's own prototype at the
 * function's entry, so the handler reads the arguments by name.  The
 * handler ends with jprobe_return(); the probed function then runs with
 * the registers and the stack it had at its entry, whatever the handler
 * did to them.
 *
 * How (kernel/jprobes.c and the arch's jprobe.c): the jprobe's entry probe
 * is an ordinary kprobe whose pre-handler, run after every other probe's
 * pre-handler at the address, saves the registers and a bounded copy of
 * the stack above the stack pointer (where stack-passed arguments live)
 * in this CPU's jprobe control block, disables preemption and points the
 * trapped context at the handler, with the trap of jprobe_return() as
 * its return address.  jprobe_return() traps again (so does a handler
 * that simply returns); the trap puts the stack copy and the registers
 * back and executes the probed instruction as the kprobe would have.
 * The handler runs in the probed function's context (interrupts as they
 * were), with preemption disabled, and must not sleep; a jprobe hit while
 * this CPU runs a jprobe handler (a nested call, an interrupt) is counted
 * in kp.nmissed and skipped.
 */
#ifndef _LINUX_JPROBES_H
#define _LINUX_JPROBES_H

#ifndef _LINUX_KPROBES_H
#error "include <linux/kprobes.h>, not <linux/jprobes.h>"
#endif

/**
 * struct jprobe - a probe that calls a handler with the probed function's
 *	arguments
 * @kp: the probe on the function's entry: @kp.addr, or @kp.symbol_name
 *	(with @kp.offset 0 or the offset of the function's entry probe
 *	point).  Its handlers are the jprobe's own: leave them NULL.
 * @entry: the handler, a function with the probed function's prototype
 *	that ends with jprobe_return()
 */
struct jprobe {
	struct kprobe kp;
	void *entry;
};

#ifdef CONFIG_JPROBES
int register_jprobe(struct jprobe *jp);
int register_jprobes(struct jprobe **jps, int num);
int disable_jprobe(struct jprobe *jp);
int enable_jprobe(struct jprobe *jp);
void unregister_jprobes(struct jprobe **jps, int num);
void unregister_jprobe(struct jprobe *jp);
/* The end of a handler; see above. */
void jprobe_return(void);

/*
 * Architecture side.  JPROBE_STACK_BYTES (from <asm/kprobes.h>, default
 * below) bounds the stack copy.
 *
 * arch_jprobe_enter(): from the entry probe's pre-handler (trap context):
 *	point @regs at @entry as if the probed function had been entered
 *	there, returning to the trap of jprobe_return(); the registers and
 *	the stack copy are already saved.
 * jprobe_return() (generic declaration above) is the arch's, in assembly:
 *	a trap instruction at the global label jprobe_return_trap, whose
 *	address jprobe_return_trap_addr() (generic) gives the arch trap
 *	handler to recognise it.
 * kprobe_jprobe_resume() (generic): called by that trap handler; puts the
 *	saved stack and registers back into @regs and returns the site's
 *	probe, whose instruction the arch then executes as after a
 *	pre-handler that returned 0, or NULL when this CPU is not inside a
 *	jprobe handler (the trap is not ours).
 */
#ifndef JPROBE_STACK_BYTES
#define JPROBE_STACK_BYTES	128
#endif

/* The trap instruction of jprobe_return(), in the arch's assembly */
extern const u8 jprobe_return_trap[];

/**
 * jprobe_return_trap_addr() - where the trap of jprobe_return() is
 *
 * Inline: the arch trap handlers compare every breakpoint address with it.
 *
 * Return: the address of the trap instruction a jprobe handler ends in.
 */
static __always_inline unsigned long jprobe_return_trap_addr(void)
{
	return (unsigned long)jprobe_return_trap;
}

void arch_jprobe_enter(struct pt_regs *regs, void *entry);
struct kprobe *kprobe_jprobe_resume(struct pt_regs *regs);
unsigned long kprobe_jprobe_entry_sp(void);
int kprobe_jprobe_pre_handler(struct kprobe *kp, struct pt_regs *regs);
#else
static inline int register_jprobe(struct jprobe *jp)
{
	return -EOPNOTSUPP;
}

static inline void unregister_jprobe(struct jprobe *jp)
{
}

static inline int register_jprobes(struct jprobe **jps, int num)
{
	return -EOPNOTSUPP;
}

static inline void unregister_jprobes(struct jprobe **jps, int num)
{
}

static inline int enable_jprobe(struct jprobe *jp)
{
	return -EOPNOTSUPP;
}

static inline int disable_jprobe(struct jprobe *jp)
{
	return -EOPNOTSUPP;
}

static inline void jprobe_return(void)
{
}
#endif /* CONFIG_JPROBES */

#endif /* _LINUX_JPROBES_H */
