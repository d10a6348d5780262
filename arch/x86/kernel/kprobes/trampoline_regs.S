/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Included, not built: the general registers of a struct pt_regs laid
 * at %rsp, saved and restored by the x86_64 kprobes trampolines
 * (kretprobe_trampoline.S, opt_trampoline.S).  The other fields are each
 * trampoline's business.
 */
#ifndef _X86_KPROBES_TRAMPOLINE_REGS_S
#define _X86_KPROBES_TRAMPOLINE_REGS_S

#include <asm/ptrace-abi.h>

.macro KPROBE_SAVE_GPRS
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
.endm

/* Handlers may have changed any of them: pt_regs has the last word. */
.macro KPROBE_RESTORE_GPRS
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
.endm

#endif /* _X86_KPROBES_TRAMPOLINE_REGS_S */
