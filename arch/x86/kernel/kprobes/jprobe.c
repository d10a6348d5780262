// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86_64 side of jprobes (kernel/jprobes.c has the model).
 *
 * The entry probe's trap returns into the handler with the registers and
 * stack of the function's entry: the return address of the probed
 * function is on top of the stack, arguments are where the ABI put them,
 * so the handler finds them as its own.  jprobe_return() is an int3 that
 * kprobe_int3_handler() recognises; it puts the entry state back and
 * executes the probed instruction.
 *
 * Safety on a modern kernel: the handler is entered by IRET, not by an
 * indirect branch, so IBT and kCFI do not apply to that transfer and the
 * handler is an ordinary function (its ENDBR is a no-op).  The kernel
 * does not use shadow stacks.  An unwinder inside the handler sees it
 * called from the probed function's caller, which ORC describes
 * correctly.  The handler's stack protector canary is checked only on a
 * return that never happens: its frame is dropped by the trap.
 */
#include <linux/kprobes.h>
#include <linux/objtool.h>
#include <linux/export.h>

/* The int3 inside jprobe_return(), defined in the asm below. */
extern const u8 jprobe_return_int3[];

/**
 * arch_jprobe_enter() - let the trapped context run a jprobe handler
 * @regs: registers at the probed function's entry
 * @entry: the handler
 */
void arch_jprobe_enter(struct pt_regs *regs, void *entry)
{
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

/**
 * jprobe_return() - end a jprobe handler
 *
 * Never returns to its caller: the probed function runs on with the
 * registers and stack of its entry.  Write "jprobe_return(); return 0;"
 * (or the like) at the end of a handler; the return is never reached.
 */
noinline void jprobe_return(void)
{
	asm volatile("jprobe_return_int3:\n\t"
		     "int3\n\t"
		     ::: "memory");
}
EXPORT_SYMBOL_GPL(jprobe_return);
NOKPROBE_SYMBOL(jprobe_return);
