// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Jump probes: a handler with the probed function's prototype, run at the
 * function's entry (see <linux/jprobes.h> for the model).
 *
 * The state of a jprobe hit lives in this CPU's jprobe control block from
 * the entry trap to the trap in jprobe_return(); preemption stays disabled
 * in between so the task cannot leave the CPU, and a second jprobe hit on
 * the CPU meanwhile (nested call, interrupt) is counted as missed.  The
 * site of the probe cannot go away meanwhile either: unregistration waits
 * for an RCU grace period, which a preemption-disabled region holds off.
 * That needs RCU to watch the handler, which is not so in code that runs
 * where RCU does not (between ct_idle_enter() and ct_idle_exit()): there
 * the entry trap leaves RCU watching for the handler, with a
 * ct_nmi_enter() of its own that the return trap undoes, so the handler
 * runs as if in an NMI (jprobe_from_rcu_idle()).
 */
#define pr_fmt(fmt) "jprobes: " fmt

#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <linux/export.h>
#include <linux/kasan.h>
#include <linux/context_tracking.h>

/**
 * struct jprobe_ctlblk - one CPU's jprobe hit in progress
 * @site: the probe site whose instruction runs when the handler is done;
 *	NULL when no jprobe handler runs on this CPU
 * @stack_addr: where @stack was copied from (the stack pointer at entry)
 * @stack_len: bytes in @stack
 * @regs: the registers at the probed function's entry
 * @rcu: the entry trap made RCU watch for the handler (ct_nmi_enter())
 * @stack: the copy of the stack above @stack_addr
 */
struct jprobe_ctlblk {
	struct kprobe *site;
	unsigned long stack_addr;
	unsigned int stack_len;
	bool rcu;
	struct pt_regs regs;
	u8 stack[JPROBE_STACK_BYTES];
};

static DEFINE_PER_CPU(struct jprobe_ctlblk, jprobe_ctlblk);

/*
 * Put the registers of the entry back into the trap's @regs.  An arch
 * whose struct pt_regs holds more than the interrupted registers (state
 * of the exception entry itself) copies only the registers.
 */
#ifndef arch_jprobe_restore_regs
#define arch_jprobe_restore_regs(regs, saved)	(*(regs) = *(saved))
#endif

/*
 * The lowest stack pointer of the handler, seen from the trap of
 * jprobe_return(): an arch whose jprobe_return() moves the stack pointer
 * back before its trap keeps the handler's in a register.
 */
#ifndef arch_jprobe_handler_sp
#define arch_jprobe_handler_sp(regs)	kernel_stack_pointer(regs)
#endif

/*
 * Bytes of stack that may be copied from @sp: at most JPROBE_STACK_BYTES
 * and never past the end of the THREAD_SIZE-aligned stack @sp is on (task
 * and IRQ stacks alike).
 */
static unsigned int jprobe_stack_len(unsigned long sp)
{
	unsigned long room = THREAD_SIZE - (sp & (THREAD_SIZE - 1));

	return min_t(unsigned long, room, JPROBE_STACK_BYTES);
}

NOKPROBE_SYMBOL(jprobe_stack_len);

/*
 * Did the trap we run in interrupt code where RCU does not watch?  Its
 * entry made RCU watch with ct_nmi_enter(), which counts such an entry
 * as 1 (any other as 2); its exit would stop RCU watching again before
 * the handler runs.  On the ftrace path, which skips hits where RCU does
 * not watch, a 1 is an interrupt that came in such code: a ct_nmi_enter()
 * there is not needed, and does no harm (it is undone all the same).
 */
static bool jprobe_from_rcu_idle(void)
{
#ifdef CONFIG_CONTEXT_TRACKING_IDLE
	return ct_nmi_nesting() == 1;
#else
	return false;
#endif
}

NOKPROBE_SYMBOL(jprobe_from_rcu_idle);

/* jprobe_return() itself is the arch's, in assembly. */
EXPORT_SYMBOL_GPL(jprobe_return);

/**
 * kprobe_jprobe_pre_handler() - the pre-handler of a jprobe's entry probe
 * @kp: the jprobe's kprobe
 * @regs: registers at the function's entry (trap context)
 *
 * Called by the kprobes core after every other pre-handler at the address
 * (kprobe_running() is the site's probe).  Saves the entry state and
 * points @regs at the handler.
 *
 * Return: 1 when @regs now run the handler, 0 when the hit is skipped.
 */
int kprobe_jprobe_pre_handler(struct kprobe *kp, struct pt_regs *regs)
{
	struct jprobe *jp = container_of(kp, struct jprobe, kp);
	struct jprobe_ctlblk *jcb = this_cpu_ptr(&jprobe_ctlblk);
	unsigned long sp = kernel_stack_pointer(regs);
	unsigned int len = jprobe_stack_len(sp);

	if (jcb->site || copy_from_kernel_nofault(jcb->stack, (void *)sp, len)) {
		kp->nmissed++;
		return 0;
	}
	jcb->site = kprobe_running();
	jcb->stack_addr = sp;
	jcb->stack_len = len;
	jcb->regs = *regs;
	jcb->rcu = jprobe_from_rcu_idle();
	/* Undone by the trap in jprobe_return() (kprobe_jprobe_resume()). */
	if (jcb->rcu)
		ct_nmi_enter();
	/* Held until the trap in jprobe_return(): this CPU's @jcb is ours. */
	preempt_disable();
	arch_jprobe_enter(regs, jp->entry);
	return 1;
}

NOKPROBE_SYMBOL(kprobe_jprobe_pre_handler);

/**
 * kprobe_jprobe_entry_sp() - the stack pointer at the probed function's entry
 *
 * For an arch whose trap cannot restore the stack pointer (arm64:
 * jprobe_return() moves it back itself before its BRK).  Called from
 * inside a jprobe handler, with preemption disabled.
 *
 * Return: the stack pointer of this CPU's jprobe hit.
 */
unsigned long kprobe_jprobe_entry_sp(void)
{
	unsigned long sp = this_cpu_read(jprobe_ctlblk.stack_addr);
	unsigned long here = (unsigned long)__builtin_frame_address(0);

	/*
	 * The trap frame goes right below @sp, over the handler's frames:
	 * their KASAN redzones must be gone before the trap handler reads
	 * its registers there (kprobe_jprobe_resume() is too late).
	 */
	if (here < sp && sp - here < THREAD_SIZE)
		kasan_unpoison_range((void *)here, sp - here);
	return sp;
}

NOKPROBE_SYMBOL(kprobe_jprobe_entry_sp);

/**
 * kprobe_jprobe_resume() - the trap in jprobe_return()
 * @regs: the registers of the trap, replaced by those of the entry
 *
 * Called by the arch trap handler, interrupts disabled.
 *
 * Return: the probe site to go on with, or NULL when no jprobe handler
 * runs on this CPU.
 */
struct kprobe *kprobe_jprobe_resume(struct pt_regs *regs)
{
	struct jprobe_ctlblk *jcb = this_cpu_ptr(&jprobe_ctlblk);
	struct kprobe *site = jcb->site;
	unsigned long hsp;

	if (!site)
		return NULL;
	/*
	 * A handler that called jprobe_return() left its frames without
	 * their epilogues: KASAN would take their stack redzones for those
	 * of whatever uses that stack next.  They are dead: unpoison them.
	 */
	hsp = arch_jprobe_handler_sp(regs);
	if (hsp < jcb->stack_addr && jcb->stack_addr - hsp < THREAD_SIZE)
		kasan_unpoison_range((void *)hsp, jcb->stack_addr - hsp);
	/*
	 * The handler ran below @stack_addr and the trap frame is below it:
	 * the area above is free to restore.  Not with memcpy(): it spans
	 * the callers' live frames, redzones included, which KASAN would
	 * report; copy_to_kernel_nofault() stores through accessors that
	 * KASAN does not instrument.
	 */
	copy_to_kernel_nofault((void *)jcb->stack_addr, jcb->stack,
			       jcb->stack_len);
	arch_jprobe_restore_regs(regs, &jcb->regs);
	jcb->site = NULL;
	/* The trap's own exit then leaves RCU as the entry trap found it. */
	if (jcb->rcu)
		ct_nmi_exit();
	/* Still in the trap: a pending reschedule waits for its return. */
	preempt_enable_no_resched();
	return site;
}

NOKPROBE_SYMBOL(kprobe_jprobe_resume);

/**
 * register_jprobe() - call a handler at a function's entry with its arguments
 * @jp: the jprobe: @jp->kp names the function, @jp->entry is the handler
 *
 * Return: 0; -EINVAL for a NULL @jp or @jp->entry, handlers set in
 * @jp->kp, a flag other than KPROBE_FLAG_DISABLED in @jp->kp.flags, or an
 * address that is not a function's entry; -EBUSY when the
 * function has a jprobe already; or an error of register_kprobe().
 */
int register_jprobe(struct jprobe *jp)
{
	int ret;

	if (!jp || !jp->entry || jp->kp.pre_handler || jp->kp.post_handler)
		return -EINVAL;
	ret = kprobe_on_func_entry(jp->kp.addr, jp->kp.symbol_name,
				   jp->kp.offset);
	if (ret)
		return ret == -ENOENT ? ret : -EINVAL;
	jp->kp.fault_handler = NULL;
	return kprobe_register_as(&jp->kp, KPROBE_FLAG_JPROBE);
}
EXPORT_SYMBOL_GPL(register_jprobe);

/**
 * register_jprobes() - register several jprobes
 * @jps: the jprobes
 * @num: how many
 *
 * All or nothing: on an error the ones registered already are
 * unregistered again.
 *
 * Return: 0, -EINVAL for a NULL @jps or @num <= 0, or the first error of
 * register_jprobe().
 */
int register_jprobes(struct jprobe **jps, int num)
{
	int i, ret;

	if (!jps || num <= 0)
		return -EINVAL;
	for (i = 0; i < num; i++) {
		ret = register_jprobe(jps[i]);
		if (ret) {
			if (i)
				unregister_jprobes(jps, i);
			return ret;
		}
	}
	return 0;
}
EXPORT_SYMBOL_GPL(register_jprobes);

/**
 * unregister_jprobes() - unregister several jprobes
 * @jps: the jprobes; NULL entries and unregistered ones are skipped
 * @num: how many
 *
 * When this returns no handler of @jps runs any more.  One grace period
 * covers the whole batch.
 */
void unregister_jprobes(struct jprobe **jps, int num)
{
	int i;

	if (!jps || num <= 0)
		return;
	for (i = 0; i < num; i++)
		if (jps[i])
			kprobe_unregister_begin(&jps[i]->kp);
	synchronize_rcu();
	for (i = 0; i < num; i++)
		if (jps[i])
			kprobe_unregister_end(&jps[i]->kp);
}
EXPORT_SYMBOL_GPL(unregister_jprobes);

/**
 * unregister_jprobe() - unregister a jprobe
 * @jp: the jprobe
 *
 * See unregister_jprobes().
 */
void unregister_jprobe(struct jprobe *jp)
{
	unregister_jprobes(&jp, 1);
}
EXPORT_SYMBOL_GPL(unregister_jprobe);

/**
 * enable_jprobe() - arm a disabled jprobe again
 * @jp: the jprobe
 *
 * Return: 0 or the error of enable_kprobe().
 */
int enable_jprobe(struct jprobe *jp)
{
	return enable_kprobe(&jp->kp);
}
EXPORT_SYMBOL_GPL(enable_jprobe);

/**
 * disable_jprobe() - stop calling the handler
 * @jp: the jprobe
 *
 * Return: 0 or the error of disable_kprobe().
 */
int disable_jprobe(struct jprobe *jp)
{
	return disable_kprobe(&jp->kp);
}
EXPORT_SYMBOL_GPL(disable_jprobe);
