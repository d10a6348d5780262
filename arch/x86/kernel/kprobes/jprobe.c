// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86_64 side of jprobes (kernel/jprobes.c has the model).
 *
 * The entry probe's trap returns into the handler with the registers and
 * stack of the function's entry: the return address of the probed
 * function is on top of the stack, arguments are where the ABI put them,
 * so the handler finds them as its own.  jprobe_return() is an int3 that
 * kprobe_int3_handler() recognises; it puts the entry state back and
 * executes the probed instruction.  A handler that returns instead ends
 * the same way: its return address is that int3.
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
#include <linux/objtool.h>
#include <linux/export.h>

/* The int3 of jprobe_return() (jprobe_trampoline.S). */
extern const u8 jprobe_return_int3[];

/**
 * arch_jprobe_enter() - let the trapped context run a jprobe handler
 * @regs: registers at the probed function's entry: the stack pointer
 *	points at its return address (int3 and ftrace sites alike)
 * @entry: the handler
 *
 * The handler's return address becomes jprobe_return()'s trap, so a
 * handler that returns instead of calling jprobe_return() ends the same
 * way.  The slot is inside the stack copy kprobe_jprobe_resume() puts
 * back.
 */
void arch_jprobe_enter(struct pt_regs *regs, void *entry)
{
	*(unsigned long *)kernel_stack_pointer(regs) =
		(unsigned long)jprobe_return_int3;
	instruction_pointer_set(regs, (unsigned long)entry);
}

NOKPROBE_SYMBOL(arch_jprobe_enter);

/**
 * arch_jprobe_return_trap() - where the int3 of jprobe_return() is
 *
 * Return: its address.
 */
unsigned long arch_jprobe_return_trap(void)
{
	return (unsigned long)jprobe_return_int3;
}

NOKPROBE_SYMBOL(arch_jprobe_return_trap);

/* jprobe_return() itself is in jprobe_trampoline.S. */
EXPORT_SYMBOL_GPL(jprobe_return);
