/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The x86_64 kretprobe trampoline.
 *
 * A kretprobed function's RET lands here instead of in its caller (see
 * arch_kretprobe_hijack()).  No breakpoint: the trampoline rebuilds the
 * return address slot with its own address (which the unwinders know how
 * to see through), lays a pt_regs under it as the registers stand at the
 * return, lets kretprobe_x86_return() run the handler, writes the real
 * return address into the slot and returns there.
 */
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/asm.h>
#include <asm/unwind_hints.h>
#include <asm/ptrace-abi.h>

	.text
SYM_CODE_START(kretprobe_trampoline)
	/*
	 * Only ever reached by a RET: no ENDBR needed, none wanted.  Until
	 * the push there is no frame to describe; an unwinder interrupted
	 * here recovers the real return address from the slot under the
	 * stack pointer before it looks this address up.
	 */
	ANNOTATE_NOENDBR
	UNWIND_HINT_UNDEFINED
	pushq	$kretprobe_trampoline
	UNWIND_HINT_FUNC

	subq	$FRAME_SIZE, %rsp
	movq	%rax, RAX(%rsp)
	movq	%rdx, RDX(%rsp)
	movq	%rcx, RCX(%rsp)
	movq	%rsi, RSI(%rsp)
	movq	%rdi, RDI(%rsp)
	movq	%r8, R8(%rsp)
	movq	%r9, R9(%rsp)
	movq	%r10, R10(%rsp)
	movq	%r11, R11(%rsp)
	movq	%rbx, RBX(%rsp)
	movq	%rbp, RBP(%rsp)
	movq	%r12, R12(%rsp)
	movq	%r13, R13(%rsp)
	movq	%r14, R14(%rsp)
	movq	%r15, R15(%rsp)
	pushfq
	popq	%rax
	movq	%rax, EFLAGS(%rsp)

	movq	%rsp, %rdi
	call	kretprobe_x86_return
	/* Our address in the slot above pt_regs makes way for the real one. */
	movq	%rax, FRAME_SIZE(%rsp)

	/* A handler may have changed the return value: take pt_regs' word. */
	movq	R15(%rsp), %r15
	movq	R14(%rsp), %r14
	movq	R13(%rsp), %r13
	movq	R12(%rsp), %r12
	movq	RBP(%rsp), %rbp
	movq	RBX(%rsp), %rbx
	movq	R11(%rsp), %r11
	movq	R10(%rsp), %r10
	movq	R9(%rsp), %r9
	movq	R8(%rsp), %r8
	movq	RDI(%rsp), %rdi
	movq	RSI(%rsp), %rsi
	movq	RCX(%rsp), %rcx
	movq	RDX(%rsp), %rdx
	movq	RAX(%rsp), %rax
	addq	$FRAME_SIZE, %rsp
	RET
SYM_CODE_END(kretprobe_trampoline)
_ASM_NOKPROBE(kretprobe_trampoline)
