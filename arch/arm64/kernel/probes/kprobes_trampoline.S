/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The arm64 kretprobe trampoline.
 *
 * A kretprobed function's RET lands here instead of in its caller (see
 * arch_kretprobe_hijack()); no BRK is involved.  The trampoline lays a
 * pt_regs on the stack as the registers stand at the return, links a
 * frame record { caller's fp, kretprobe_trampoline } into the frame chain
 * so that unwinders see through it (kretprobe_find_ret_addr()), lets
 * kretprobe_arm64_return() run the handler and returns where the function
 * really returns.
 */
#include <linux/linkage.h>
#include <asm/asm-offsets.h>
#include <asm/assembler.h>

/* Move the pair x<a>, x<b> to or from its place in the pt_regs at sp. */
	.macro	krp_pair insn, a, b
	\insn	x\a, x\b, [sp, #(S_X0 + 8 * \a)]
	.endm

/* x0 to x29: everything but the link register */
	.macro	krp_gprs insn
	krp_pair \insn, 0, 1
	krp_pair \insn, 2, 3
	krp_pair \insn, 4, 5
	krp_pair \insn, 6, 7
	krp_pair \insn, 8, 9
	krp_pair \insn, 10, 11
	krp_pair \insn, 12, 13
	krp_pair \insn, 14, 15
	krp_pair \insn, 16, 17
	krp_pair \insn, 18, 19
	krp_pair \insn, 20, 21
	krp_pair \insn, 22, 23
	krp_pair \insn, 24, 25
	krp_pair \insn, 26, 27
	krp_pair \insn, 28, 29
	.endm

	.text
SYM_CODE_START(kretprobe_trampoline)
	sub	sp, sp, #PT_REGS_SIZE
	krp_gprs stp
	/* lr still holds our own address: the function returned through it */
	add	x0, sp, #PT_REGS_SIZE
	stp	x30, x0, [sp, #S_LR]
	mov	x0, #PSR_MODE_EL1h
	mrs	x1, daif
	orr	x0, x0, x1
	mrs	x1, nzcv
	orr	x0, x0, x1
	str	x0, [sp, #S_PSTATE]

	/* Link { caller's fp, our address } into the frame record chain. */
	adr	x1, kretprobe_trampoline
	stp	x29, x1, [sp, #S_STACKFRAME]
	add	x29, sp, #S_STACKFRAME

	mov	x0, sp
	bl	kretprobe_arm64_return
	mov	x30, x0

	/* A handler may have changed the return value: take pt_regs' word. */
	krp_gprs ldp
	add	sp, sp, #PT_REGS_SIZE
	ret
SYM_CODE_END(kretprobe_trampoline)
NOKPROBE(kretprobe_trampoline)
