/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jprobe_return(), the end of a jprobe handler, on x86_64.
 *
 * Two ways lead to the int3 below: a handler calls jprobe_return(), or a
 * handler simply returns, because arch_jprobe_enter() pointed its return
 * address here.  Either way the trap (kprobe_int3_handler()) puts back
 * the registers and stack of the probed function's entry, so the word
 * the call pushed, or the return popped, does not matter.
 *
 * For the unwinders this is the end of the stack: a trace taken inside
 * a handler stops here instead of reading the handler's arguments as
 * frames.
 */
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/asm.h>
#include <asm/ibt.h>
#include <asm/unwind_hints.h>

	.text
SYM_CODE_START(jprobe_return)
	UNWIND_HINT_END_OF_STACK
	ENDBR
SYM_INNER_LABEL(jprobe_return_trap, SYM_L_GLOBAL)
	UNWIND_HINT_END_OF_STACK
	ANNOTATE_NOENDBR
	int3
	/* Never reached: the trap does not come back here. */
	ud2
SYM_CODE_END(jprobe_return)
_ASM_NOKPROBE(jprobe_return)
