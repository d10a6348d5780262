/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jprobe_return(), the end of a jprobe handler, on arm64: a BRK that
 * kprobe_brk_handler() recognises by its address.  A handler reaches it
 * by calling jprobe_return() or by returning (arch_jprobe_enter() made
 * jprobe_return() the handler's link register); the trap puts back the
 * registers of the probed function's entry.
 *
 * An exception return at EL1 does not load the stack pointer from
 * pt_regs: the BRK must be taken with the stack pointer of the entry
 * already in place, so the probed function resumes on its own frame.
 * The handler's frames below it are dead by then.
 */
#include <linux/linkage.h>
#include <asm/assembler.h>
#include <asm/brk-imm.h>

	.text
SYM_FUNC_START(jprobe_return)
	bl	kprobe_jprobe_entry_sp
	/* the handler's stack pointer, for the trap (KASAN unpoisons below) */
	mov	x1, sp
	mov	sp, x0
SYM_INNER_LABEL(jprobe_return_trap, SYM_L_GLOBAL)
	brk	#KPROBES_BRK_IMM
	/* Never reached: the trap does not come back here. */
	b	.
SYM_FUNC_END(jprobe_return)
NOKPROBE(jprobe_return)
