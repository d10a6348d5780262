/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Included, not built: the general registers of a struct pt_regs laid
 * at the stack pointer, saved and restored by the kprobes trampolines
 * (kretprobe_trampoline.S, opt_trampoline.S).  The other fields are each
 * trampoline's business.
 */
#ifndef _X86_KPROBES_TRAMPOLINE_REGS_S
#define _X86_KPROBES_TRAMPOLINE_REGS_S

#ifdef CONFIG_X86_64
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

#else /* i386: pt_regs offsets from asm-offsets (PTREGS_SIZE, PT_*) */
#include <asm/asm-offsets.h>
#include <asm/segment.h>

.macro KPROBE_SAVE_GPRS
	movl	%eax, PT_EAX(%esp)
	movl	%ecx, PT_ECX(%esp)
	movl	%edx, PT_EDX(%esp)
	movl	%ebx, PT_EBX(%esp)
	movl	%esi, PT_ESI(%esp)
	movl	%edi, PT_EDI(%esp)
	movl	%ebp, PT_EBP(%esp)
.endm

.macro KPROBE_RESTORE_GPRS
	movl	PT_EBP(%esp), %ebp
	movl	PT_EDI(%esp), %edi
	movl	PT_ESI(%esp), %esi
	movl	PT_EBX(%esp), %ebx
	movl	PT_EDX(%esp), %edx
	movl	PT_ECX(%esp), %ecx
	movl	PT_EAX(%esp), %eax
.endm

/*
 * The segment fields: the kernel's data segments as the kernel runs
 * (%fs the per-CPU one); %gs is unused by i386 kernels.  Clobbers %eax.
 */
.macro KPROBE_SAVE_SEGS
	movl	$0, PT_GS(%esp)
	movl	%ds, %eax
	movl	%eax, PT_DS(%esp)
	movl	%es, %eax
	movl	%eax, PT_ES(%esp)
	movl	%fs, %eax
	movl	%eax, PT_FS(%esp)
	movl	$__KERNEL_CS, PT_CS(%esp)
	movl	$__KERNEL_DS, PT_OLDSS(%esp)
	movl	$-1, PT_ORIG_EAX(%esp)
.endm
#endif /* CONFIG_X86_64 */

#endif /* _X86_KPROBES_TRAMPOLINE_REGS_S */
