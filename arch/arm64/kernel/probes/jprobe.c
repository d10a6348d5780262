// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * arm64 side of jprobes (kernel/jprobes.c has the model).
 *
 * The entry probe's BRK returns into the handler with the registers and
 * stack of the function's entry: arguments in x0-x7 and, past those, on
 * the stack at sp, so the handler finds them as its own.  Its link
 * register is the BRK of jprobe_return() (jprobe_trampoline.S), so the
 * handler ends in that BRK whether it calls jprobe_return() or returns;
 * kprobe_brk_handler() recognises it, puts the entry state back and
 * executes the probed instruction.
 *
 * Safety: the handler is entered by an exception return, not by an
 * indirect branch, so BTI does not apply to that transfer; its pointer
 * authentication signs and checks the link register we gave it, like any
 * other; an unwinder inside it reaches jprobe_return() and stops there.
 * Only the architectural registers are put back (see
 * arch_jprobe_restore_regs() in <asm/kprobes.h>): the rest of struct
 * pt_regs belongs to the exception entry of the trap itself.
 *
 * Handler context: a jprobe handler is not a handler of the
 * contract in hit-context.h.  It runs after the entry BRK's exception
 * return, as the probed function would: with its DAIF, priority mask,
 * PAN and user access, RCU state, with preemption disabled
 * (kprobe_jprobe_pre_handler()) and no probe running, and no pt_regs.
 * The site's other handlers do get the contract: the pre_handlers in the
 * entry BRK, the post_handlers on the path jprobe_return()'s BRK takes
 * (kprobes_arm64_ctx_jprobe checks both).
 */
#include <linux/kprobes.h>
#include <asm/ptrace.h>

/**
 * arch_jprobe_enter() - let the trapped context run a jprobe handler
 * @regs: registers at the probed function's entry
 * @entry: the handler
 */
void arch_jprobe_enter(struct pt_regs *regs, void *entry)
{
	/* Through jprobe_return(), which puts the entry's sp back first. */
	procedure_link_pointer_set(regs, (unsigned long)jprobe_return);
	instruction_pointer_set(regs, (unsigned long)entry);
	/* Entered as by a direct branch: no BTI check pending. */
	regs->pstate &= ~PSR_BTYPE_MASK;
}

NOKPROBE_SYMBOL(arch_jprobe_enter);
