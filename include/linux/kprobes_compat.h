/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The arch interface of the architectures of CONFIG_KPROBES_COMPAT: every
 * architecture with kprobes but x86 and arm64.  Included by
 * <linux/kprobes.h> only.
 *
 * Their code predates this core and keeps its own contract with it, which
 * kernel/kprobes_compat.c (and, for return probes on rethook,
 * kernel/kretprobes_rethook.c) implements on top of ours:
 *
 * - the arch defines the per-CPU kprobe_ctlblk (its own struct, with a
 *   "kprobe_status" field) and current_kprobe, which the core reads and
 *   writes as its own (kprobe_running());
 * - it declares its own kprobe_fault_handler();
 * - some define kprobe_exceptions_notify(), which the core puts on the
 *   die notifier chain;
 * - arch_prepare_kprobe() runs with text_mutex held (some write the
 *   instruction slot with their text patching helpers);
 * - return probes: arches without rethook provide arch_prepare_kretprobe()
 *   and a trampoline, __kretprobe_trampoline, which calls
 *   kretprobe_trampoline_handler(); arches with rethook hook returns
 *   through it (CONFIG_KRETPROBE_ON_RETHOOK);
 * - jump optimization (arm, powerpc): the struct optimized_kprobe below,
 *   the arch_*optimize* functions on lists linked by its ->list, and
 *   opt_pre_handler() from the detour's callback.
 */
#ifndef _LINUX_KPROBES_COMPAT_H
#define _LINUX_KPROBES_COMPAT_H

#ifndef _LINUX_KPROBES_H
#error "include <linux/kprobes.h>, not <linux/kprobes_compat.h>"
#endif

struct notifier_block;

int kprobe_exceptions_notify(struct notifier_block *self, unsigned long val,
			     void *data);
/* Is @p the arch's own probe on its kretprobe trampoline?  (powerpc) */
int arch_trampoline_kprobe(struct kprobe *p);

#ifdef CONFIG_KPROBES_ON_FTRACE
/* The name the arch ftrace handlers test. */
#define kprobe_ftrace_disabled	kprobe_ftrace_dead
#endif

/*
 * Functions whose return no kretprobe may watch: arches define the array
 * (empty everywhere today) and kretprobe_blacklist_size.
 */
struct kretprobe_blackpoint {
	const char *name;
	void *addr;
};

#if defined(CONFIG_KRETPROBES) && !defined(CONFIG_KRETPROBE_ON_RETHOOK)
/*
 * Return probes without rethook.  arch_prepare_kretprobe() (the arch)
 * saves the return address in @ri->ret_addr, the frame in @ri->fp and
 * makes the function return to __kretprobe_trampoline, whose handler
 * calls kretprobe_trampoline_handler() with the same frame.
 */
void arch_prepare_kretprobe(struct kretprobe_instance *ri,
			    struct pt_regs *regs);
void __kretprobe_trampoline(void);
/* The trampoline of kernel/kretprobes.c is the arch's. */
#define kretprobe_trampoline	__kretprobe_trampoline
void arch_kretprobe_fixup_return(struct pt_regs *regs, kprobe_opcode_t *to);
unsigned long __kretprobe_trampoline_handler(struct pt_regs *regs, void *fp);

/**
 * kretprobe_trampoline_handler() - a watched function returned
 * @regs: registers as at the return, built by the arch trampoline
 * @fp: the frame recorded by arch_prepare_kretprobe()
 *
 * Return: the address the function really returns to.
 */
static nokprobe_inline unsigned long
kretprobe_trampoline_handler(struct pt_regs *regs, void *fp)
{
	return __kretprobe_trampoline_handler(regs, fp);
}
#endif

#ifdef CONFIG_OPTPROBES
/**
 * struct optimized_kprobe - a site's jump optimization, as arm and powerpc
 *	know it
 * @kp: the arch's copy of the site's probe: its address, opcode, ainsn
 *	(after arch_prepare_optimized_kprobe()) and flags (OPTIMIZED while
 *	the jump is in the text, DISABLED once the site is retired).  The
 *	detour's callback makes it the running probe and hands it to
 *	opt_pre_handler().
 * @list: the arch's lists of ops to (un)optimize
 * @optinsn: the arch's part (detour buffer, the replaced instruction)
 * @site: the site's probe (the kprobe of the hash table)
 * @live: @site until @retired, then NULL: the detours' callbacks run
 *	what this says (one load; read locklessly by the hit path)
 * @state: an enum kprobe_opt_state (read locklessly by the hit path)
 * @retired: the site is being unregistered: the detour must not call
 *	into @site any more
 * @allowed: the core allows optimizing (armed, no jprobe ...)
 * @err: why the arch refused (KPROBE_OPT_REFUSED)
 * @node: in the optimizer's list of all ops
 * @hnode: in the optimizer's table of ops by site
 * @queue: on the optimizer's queue or a batch being (un)optimized
 * @rcu: freeing after RCU-tasks
 *
 * The fields from @live on are the optimizer's (kernel/kprobes_opt.c)
 * and mean what they mean in the struct of x86 and arm64
 * (<linux/kprobes.h>).
 *
 * The optimizer drives it through kernel/kprobes_compat.c, which keeps
 * the contract of the optimizer this arch code was written for:
 * arch_prepare_optimized_kprobe(op, orig) with text_mutex and
 * cpus_read_lock() held, arch_optimize_kprobes() on the ops linked by
 * @list (each taken off it), arch_unoptimize_kprobes() (moved to the
 * done list) with text_mutex and cpus_read_lock() held; regions of one
 * instruction, so a breakpoint hit while the op waits for the optimizer
 * steps as any other.
 */
struct optimized_kprobe {
	struct kprobe kp;
	struct list_head list;
	struct arch_optimized_insn optinsn;
	struct kprobe *site;
	struct kprobe *live;
	int state;
	bool retired;
	bool allowed;
	int err;
	struct list_head node;
	struct hlist_node hnode;
	struct list_head queue;
	struct rcu_head rcu;
};

/* The most bytes their jump covers: the core looks that far around. */
#define KPROBE_OPT_REGION_MAX	MAX_OPTIMIZED_LENGTH

int arch_prepare_optimized_kprobe(struct optimized_kprobe *op,
				  struct kprobe *orig);
int arch_check_optimized_kprobe(struct optimized_kprobe *op);
int arch_within_optimized_kprobe(struct optimized_kprobe *op,
				 kprobe_opcode_t *addr);
void arch_optimize_kprobes(struct list_head *oplist);
void arch_unoptimize_kprobes(struct list_head *oplist,
			     struct list_head *done_list);
void arch_unoptimize_kprobe(struct optimized_kprobe *op);
void arch_remove_optimized_kprobe(struct optimized_kprobe *op);
int arch_prepared_optinsn(struct arch_optimized_insn *optinsn);
void opt_pre_handler(struct kprobe *p, struct pt_regs *regs);
#endif /* CONFIG_OPTPROBES */

#endif /* _LINUX_KPROBES_COMPAT_H */
