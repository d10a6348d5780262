// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * arm64 side of kretprobes: hijacking the link register at a function's
 * entry and the C half of the trampoline (kprobes_trampoline.S).
 */
#include <linux/kprobes.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <asm/debug-monitors.h>
#include <asm/ptrace.h>

#include "decode-insn.h"
#include "hit-context.h"

/*
 * At the entry probe point the function has not saved its link register
 * yet: remember it with the caller's frame pointer (which the unwinder
 * holds when it meets the trampoline) and return to the trampoline.
 */
void arch_kretprobe_hijack(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	ri->ret_addr = (kprobe_opcode_t *)regs->regs[30];
	ri->fp = (void *)regs->regs[29];
	regs->regs[30] = (u64)kretprobe_trampoline;
}

NOKPROBE_SYMBOL(arch_kretprobe_hijack);

/*
 * Called by kretprobe_trampoline with @regs as at the function's return
 * (pc = the trampoline); x29 is the caller's frame pointer again.  The
 * trampoline saved x0-x30, sp, NZCV and DAIF; the rest of what an
 * exception entry saves (the priority mask, PAN, DIT, SSBS, TCO) and
 * orig_x0 and syscallno are completed here, as on every other path.
 *
 * The handler runs as from a BRK (hit-context.h): everything masked as
 * the debug exception masks it, user access off, RCU made to watch as the
 * debug exception entry does (for a function that returns where it is
 * not watching: in cpuidle text, with interrupts off), lockdep told, and
 * kretprobe_trampoline_return() disables preemption and sets
 * current_kprobe.  noinstr, as the debug exception's entry is: nothing
 * traces or instruments it where RCU does not watch.
 */
__visible noinstr unsigned long kretprobe_arm64_return(struct pt_regs *regs)
{
	struct a64_hit_ctx ctx __uninitialized;
	unsigned long ret;

	a64_hit_enter(&ctx);
	instrumentation_begin();
	a64_hit_regs(regs, &ctx);
	ret = kretprobe_trampoline_return(regs, (void *)regs->regs[29], NULL);
	instrumentation_end();
	a64_hit_exit(&ctx);
	return ret;
}

NOKPROBE_SYMBOL(kretprobe_arm64_return);

/*
 * Our returns never trap: a KRETPROBES_BRK_IMM breakpoint is not ours
 * (arch/arm64/kernel/debug-monitors.c still routes it here).
 */
int __kprobes kretprobe_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	return DBG_HOOK_ERROR;
}
