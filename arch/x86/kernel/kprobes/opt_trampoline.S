/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The x86_64 trampoline of optimized kprobes.
 *
 * An optimized probe's jmp lands on a "call kprobe_opt_trampoline" in its
 * detour buffer (layout in <asm/kprobes.h>).  The return address that
 * call pushes is the buffer's copy of the probed region, and the words
 * before it say which probe and address this is.  Under the return
 * address we lay a struct pt_regs as the registers stood at the probed
 * instruction, let kprobe_opt_x86_callback() run the handlers (it may
 * replace the return address with the ip a pre_handler set), restore
 * every register and the flags, and return: into the copy, which ends
 * with a jmp back behind the region.
 */
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/asm.h>
#include <asm/unwind_hints.h>
#include <asm/ptrace-abi.h>
#include <asm/segment.h>

/* KPROBE_OPT_COPY - KPROBE_OPT_ADDR (<asm/kprobes.h>, checked in opt.c) */
#define OPT_ADDR_BEFORE_COPY	13

	.text
SYM_CODE_START(kprobe_opt_trampoline)
	/* Only ever called directly from a detour buffer. */
	ANNOTATE_NOENDBR
	UNWIND_HINT_FUNC
	/* Nothing may change the flags before they are saved. */
	pushfq
	subq	$(FRAME_SIZE - 8), %rsp
	movq	%rax, RAX(%rsp)
	movq	%rcx, RCX(%rsp)
	movq	%rdx, RDX(%rsp)
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
	/* The flags were pushed where pt_regs keeps ss. */
	movq	SS(%rsp), %rax
	movq	%rax, EFLAGS(%rsp)
	movq	$__KERNEL_DS, SS(%rsp)
	movq	$__KERNEL_CS, CS(%rsp)
	movq	$-1, ORIG_RAX(%rsp)
	/* The stack pointer at the probe: above our return address. */
	leaq	FRAME_SIZE+8(%rsp), %rax
	movq	%rax, RSP(%rsp)
	/* The probed address, from the buffer. */
	movq	FRAME_SIZE(%rsp), %rax
	movq	-OPT_ADDR_BEFORE_COPY(%rax), %rax
	movq	%rax, RIP(%rsp)
	UNWIND_HINT_REGS

	movq	%rsp, %rdi
	call	kprobe_opt_x86_callback

	/* Restore; the flags go where the pushfq left them. */
	movq	EFLAGS(%rsp), %rax
	movq	%rax, SS(%rsp)
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
	movq	RDX(%rsp), %rdx
	movq	RCX(%rsp), %rcx
	movq	RAX(%rsp), %rax
	UNWIND_HINT sp_reg=ORC_REG_SP sp_offset=FRAME_SIZE+8 type=UNWIND_HINT_TYPE_CALL
	addq	$(FRAME_SIZE - 8), %rsp
	popfq
	/* Into the copy of the region, or where a pre_handler sent us. */
	RET
SYM_CODE_END(kprobe_opt_trampoline)
_ASM_NOKPROBE(kprobe_opt_trampoline)
