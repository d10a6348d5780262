/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Included, not built: the general registers of a struct pt_regs laid
 * at the stack pointer, saved and restored by the kprobes trampolines
 * (kretprobe_trampoline.S, opt_trampoline.S, step_trampoline.S), and
 * KPROBE_CALLED_TRAMPOLINE, the whole trampoline of the two that are
 * called from generated code.
 */
#ifndef _X86_KPROBES_TRAMPOLINE_REGS_S
#define _X86_KPROBES_TRAMPOLINE_REGS_S

#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/alternative.h>
#include <asm/asm.h>
#include <asm/cpufeatures.h>
#include <asm/frame.h>
#include <asm/smap.h>
#include <asm/segment.h>
#include <asm/unwind_hints.h>

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

/*
 * Interrupts off, and back on as the probed code had them, for a
 * trampoline's pt_regs at the stack pointer (its general registers
 * saved: the Xen PV calls clobber the caller-saved ones).  Natively the
 * cli here and the popfq of the probed code's flags at the end do it.
 * A Xen PV kernel runs unprivileged and cannot mask interrupts with cli
 * or popf (they leave the event channel upcalls unmasked): there the
 * paravirt masking runs instead, see kprobe_xenpv_irqs_off().  Both
 * clobber %rdi (its value is in pt_regs).
 */
.macro KPROBE_IRQS_OFF
	movq	%rsp, %rdi
	ALTERNATIVE "cli", "call kprobe_xenpv_irqs_off", X86_FEATURE_XENPV
.endm

.macro KPROBE_IRQS_RESTORE
	movq	%rsp, %rdi
	ALTERNATIVE "", "call kprobe_xenpv_irqs_restore", X86_FEATURE_XENPV
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

/*
 * KPROBE_CALLED_TRAMPOLINE name, callback, set_ip, redirect, regs: a
 * trampoline that generated code (a detour buffer, an instruction slot)
 * calls in place of the probed code's next instruction.  Under the return
 * address it lays a struct pt_regs as the registers stood at the call
 * (sp: above the return address; ip: the return address given to the
 * macro \set_ip in a scratch register, which it may turn into another
 * address in place), calls \callback with interrupts off and the pt_regs
 * in the argument register \regs (the first by default; \set_ip may
 * load another argument into the other one), and when \redirect is given
 * and the callback returned nonzero, \redirect(regs); restores every
 * register and the flags (a callback may change any of them) and returns
 * to the return address, which the callbacks may have replaced (it is the
 * word right after the pt_regs).
 *
 * The flags are saved first and the popf at the end gives the probed
 * code all of them back; in between the handlers get what an exception
 * entry gives them (the int3 path's idtentry): IF clear (natively the
 * cli of KPROBE_IRQS_OFF, on Xen PV its paravirt masking), AC clear
 * (ASM_CLAC: SMAP stays armed for them inside a user-access region) and
 * DF clear.  cld: the probed code may be inside a std ... cld sequence
 * (a backwards string copy), and the C code of the handlers, which the
 * compiler builds for the ABI's DF = 0 on function entry (System V
 * x86-64 ABI 3.4.1, i386 ABI likewise), would run every rep movs/stos
 * backwards from its destination.
 *
 * The frame pointer is the encoded pointer to the pt_regs (as the entry
 * code leaves it), so that the frame pointer unwinder, from a handler,
 * goes through them: it reports regs->ip (the probed function) and goes
 * on with the probed code's frame pointer.
 */
.macro KPROBE_CALLED_TRAMPOLINE name, callback, set_ip, redirect, regs=%rdi
SYM_CODE_START(\name)
	/* Only ever called directly from generated code. */
	ANNOTATE_NOENDBR
	UNWIND_HINT_FUNC
	/*
	 * Nothing may change the flags before they are saved.  pt_regs' ss
	 * and sp are pushed first: pushq %rsp stores the stack pointer as it
	 * was before that push, 16 bytes below the one at the call (above
	 * our return address), and is fixed once the flags are saved.  Then
	 * pushfq stores them straight into pt_regs->flags.
	 */
	pushq	$__KERNEL_DS
	pushq	%rsp
	pushfq
	cld
	ASM_CLAC
	addq	$16, 8(%rsp)
	subq	$EFLAGS, %rsp
	KPROBE_SAVE_GPRS
	/*
	 * Interrupts stay off until the popfq below restores the probed
	 * code's IF: the handlers run as in the int3 handler, and the calls
	 * are an RCU-sched read-side section.
	 */
	KPROBE_IRQS_OFF
	movq	$__KERNEL_CS, CS(%rsp)
	movq	$-1, ORIG_RAX(%rsp)
	movq	FRAME_SIZE(%rsp), %rax
	\set_ip %rax
	movq	%rax, RIP(%rsp)
	ENCODE_FRAME_POINTER
	UNWIND_HINT_REGS

	movq	%rsp, \regs
	call	\callback
	.ifnb \redirect
	testl	%eax, %eax
	jz	.Lno_redirect_\@
	movq	%rsp, %rdi
	call	\redirect
.Lno_redirect_\@:
	.endif

	KPROBE_IRQS_RESTORE
	KPROBE_RESTORE_GPRS
	UNWIND_HINT sp_reg=ORC_REG_SP sp_offset=FRAME_SIZE+8 type=UNWIND_HINT_TYPE_CALL
	/* popfq takes the flags a handler may have changed, and IF back. */
	addq	$EFLAGS, %rsp
	popfq
	leaq	16(%rsp), %rsp
	RET
SYM_CODE_END(\name)
_ASM_NOKPROBE(\name)
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

/* As above, regparm(3): the arguments in %eax and %edx. */
.macro KPROBE_CALLED_TRAMPOLINE name, callback, set_ip, redirect, regs=%eax
SYM_CODE_START(\name)
	ANNOTATE_NOENDBR
	pushfl
	/*
	 * As above: interrupts off until the popfl (i386 kernels do not run
	 * as Xen PV guests: cli masks them), DF and AC clear.
	 */
	cli
	cld
	ASM_CLAC
	subl	$(PTREGS_SIZE - 4), %esp
	KPROBE_SAVE_GPRS
	/* The flags were pushed where pt_regs keeps ss. */
	movl	PT_OLDSS(%esp), %eax
	movl	%eax, PT_EFLAGS(%esp)
	KPROBE_SAVE_SEGS
	leal	PTREGS_SIZE+4(%esp), %eax
	movl	%eax, PT_OLDESP(%esp)
	movl	PTREGS_SIZE(%esp), %ecx
	\set_ip %ecx
	movl	%ecx, PT_EIP(%esp)
	ENCODE_FRAME_POINTER

	movl	%esp, \regs
	call	\callback
	.ifnb \redirect
	testl	%eax, %eax
	jz	.Lno_redirect_\@
	movl	%esp, %eax
	call	\redirect
.Lno_redirect_\@:
	.endif

	movl	PT_EFLAGS(%esp), %eax
	movl	%eax, PT_OLDSS(%esp)
	KPROBE_RESTORE_GPRS
	addl	$(PTREGS_SIZE - 4), %esp
	popfl
	RET
SYM_CODE_END(\name)
_ASM_NOKPROBE(\name)
.endm
#endif /* CONFIG_X86_64 */

#endif /* _X86_KPROBES_TRAMPOLINE_REGS_S */
