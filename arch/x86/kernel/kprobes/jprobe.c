// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86_64 side of jprobes (kernel/jprobes.c has the model).
 *
 * The entry probe's trap returns into the handler with the registers and
 * stack of the function's entry: the return address of the probed
 * function is on top of the stack, arguments are where the ABI put them,
 * so the handler finds them as its own.  That return address slot is
 * pointed at the int3 of jprobe_return() (jprobe_trampoline.S), which
 * kprobe_int3_handler() recognises whether the handler calls
 * jprobe_return() or returns; the slot is inside the stack copy that the
 * trap puts back before the probed instruction runs.
 *
 * Safety on a modern kernel: the handler is entered by IRET, not by an
 * indirect branch, so IBT and kCFI do not apply to that transfer and the
 * handler is an ordinary function (its ENDBR is a no-op).  The kernel
 * does not use shadow stacks.  An unwinder inside the handler finds
 * jprobe_return() as its caller, annotated as the end of the stack, and
 * stops there cleanly.  The handler's stack protector canary is checked,
 * if ever, by a return of its own into that trap, on an intact frame.
 * Kernel stack randomization moves the stack at system call entry, long
 * before: the copy is taken relative to the stack pointer of the hit.
 * The handler runs with preemption disabled from the entry trap to the
 * return trap.
 */
#include <linux/kprobes.h>

/**
 * arch_jprobe_enter() - let the trapped context run a jprobe handler
 * @regs: registers at the probed function's entry: the stack pointer
 *	points at its return address (int3 and ftrace sites alike)
 * @entry: the handler
 */
void arch_jprobe_enter(struct pt_regs *regs, void *entry)
{
	*(unsigned long *)kernel_stack_pointer(regs) = jprobe_return_trap_addr();
	instruction_pointer_set(regs, (unsigned long)entry);
}

NOKPROBE_SYMBOL(arch_jprobe_enter);
