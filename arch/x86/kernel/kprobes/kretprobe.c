// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 side of kretprobes: hijacking the return address at a function's
 * entry and the C half of the trampoline (kretprobe_trampoline.S).
 */
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/context_tracking_irq.h>
#include <asm/ptrace.h>
#include <asm/segment.h>
#include <asm/switch_to.h>

#include "common.h"

__visible __noendbr unsigned long
kretprobe_x86_return(struct pt_regs *regs);

/*
 * At the entry probe point of a function (the int3 or the ftrace call
 * site of its first instruction) the stack pointer points at the return
 * address: remember it and its slot, and return to the trampoline instead.
 */
void arch_kretprobe_hijack(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	unsigned long *slot = (unsigned long *)kernel_stack_pointer(regs);

	ri->ret_addr = (kprobe_opcode_t *)*slot;
	ri->fp = slot;
	*slot = (unsigned long)kretprobe_trampoline;
}

NOKPROBE_SYMBOL(arch_kretprobe_hijack);

/*
 * __switch_to() is entered on the previous task's stack and returns on
 * the next one's, with current changed in between: its return cannot be
 * matched to the task that called it.
 */
bool arch_kretprobe_refused(unsigned long func)
{
	return func == (unsigned long)__switch_to;
}

/*
 * Called by kretprobe_trampoline with the general registers saved in
 * @regs, right under the slot that held the return address (on i386 a
 * frame record, one word, lies between them).  Completes
 * @regs as they stood after the function's RET and returns where the
 * function really returns.
 *
 * kretprobe_trampoline_return() puts the real return address into the
 * slot before it unlinks any instance (an interrupt's unwinder from then
 * on would find the trampoline's address there with no instance to
 * recover it) and before it runs the handler, whose stack traces then
 * see a plain return address too.
 *
 * The trampoline calls us with interrupts off.  A function may return
 * where RCU does not watch (it called ct_idle_enter(), or its caller
 * runs between ct_idle_enter() and ct_idle_exit()): the instance's pool
 * and the kretprobe are RCU-sched protected (unregistration's
 * synchronize_rcu() does not wait for a CPU RCU does not watch, and a
 * late return would put its instance into a freed per-CPU spare), and
 * the handler is promised RCU watching on every path.  The return cannot
 * be skipped (only the instance knows where to go back), so RCU is made
 * to watch for the call with ct_nmi_enter(), as the int3 entry of the
 * other paths does (irqentry_nmi_enter()).  Lockdep learns that
 * interrupts are off, as for the other trampolines.
 */
__visible __noendbr noinstr unsigned long
kretprobe_x86_return(struct pt_regs *regs)
{
	unsigned long *slot = (unsigned long *)(regs + 1) +
			      IS_ENABLED(CONFIG_X86_32);
	bool rcu = !kprobe_rcu_watching();
	unsigned long ret;
	bool lockdep;

	if (unlikely(rcu))
		ct_nmi_enter();
	/* noinstr up to here and from ct_nmi_exit() on: RCU does not watch */
	instrumentation_begin();
	lockdep = kprobe_lockdep_irqs_off();
	regs->cs = __KERNEL_CS;
	regs->ss = __KERNEL_DS;
	regs->orig_ax = ~0UL;
	regs->sp = (unsigned long)(slot + 1);
	regs->ip = (unsigned long)kretprobe_trampoline;
	ret = kretprobe_trampoline_return(regs, slot, slot);
	kprobe_lockdep_irqs_on(lockdep);
	instrumentation_end();
	if (unlikely(rcu))
		ct_nmi_exit();
	return ret;
}

NOKPROBE_SYMBOL(kretprobe_x86_return);
