/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The x86 trampoline of optimized kprobes (x86_64, and i386 below).
 *
 * An optimized probe's jmp lands on a "call kprobe_opt_trampoline" in its
 * detour buffer (layout in <asm/kprobes.h>).  The return address that
 * call pushes is the buffer's copy of the probed region, and the words
 * before it say which probe and address this is.  Under the return
 * address we lay a struct pt_regs as the registers stood at the probed
 * instruction (ip: the probed address + 1, as a breakpoint shows it),
 * let kprobe_opt_x86_callback() run the handlers with interrupts off
 * (it may replace the return address with the ip a pre_handler set),
 * restore every register and the flags, and return: into the copy,
 * which ends with a jmp back behind the region.
 */
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/asm.h>
#include <asm/unwind_hints.h>
#include <asm/ptrace-abi.h>
#include <asm/segment.h>
#include "trampoline_regs.S"

/* KPROBE_OPT_COPY - KPROBE_OPT_ADDR (<asm/kprobes.h>, checked in opt.c) */
#define OPT_ADDR_BEFORE_COPY	13

	.text
#ifdef CONFIG_X86_64
SYM_CODE_START(kprobe_opt_trampoline)
	/* Only ever called directly from a detour buffer. */
	ANNOTATE_NOENDBR
	UNWIND_HINT_FUNC
	/*
	 * Nothing may change the flags before they are saved: lea moves the
	 * stack pointer past pt_regs' ss and sp without touching them, so
	 * that pushfq stores them straight into pt_regs->flags.
	 */
	leaq	-16(%rsp), %rsp
	pushfq
	/*
	 * Interrupts stay off until the popfq below restores the probed
	 * code's IF: the handlers run as in the int3 handler, and the call
	 * is an RCU-sched read-side section (see kprobe_opt_x86_callback()).
	 */
	cli
	subq	$EFLAGS, %rsp
	KPROBE_SAVE_GPRS
	movq	$__KERNEL_DS, SS(%rsp)
	movq	$__KERNEL_CS, CS(%rsp)
	movq	$-1, ORIG_RAX(%rsp)
	/* The stack pointer at the probe: above our return address. */
	leaq	FRAME_SIZE+8(%rsp), %rax
	movq	%rax, RSP(%rsp)
	/* The probed address + 1 (as after an int3), from the buffer. */
	movq	FRAME_SIZE(%rsp), %rax
	movq	-OPT_ADDR_BEFORE_COPY(%rax), %rax
	incq	%rax
	movq	%rax, RIP(%rsp)
	UNWIND_HINT_REGS

	movq	%rsp, %rdi
	call	kprobe_opt_x86_callback

	KPROBE_RESTORE_GPRS
	UNWIND_HINT sp_reg=ORC_REG_SP sp_offset=FRAME_SIZE+8 type=UNWIND_HINT_TYPE_CALL
	/* popfq takes the flags a handler may have changed, and IF back. */
	addq	$EFLAGS, %rsp
	popfq
	leaq	16(%rsp), %rsp
	/* Into the copy of the region, or where a pre_handler sent us. */
	RET
SYM_CODE_END(kprobe_opt_trampoline)
#else /* i386: the same steps, regparm(3) (the argument in %eax) */
SYM_CODE_START(kprobe_opt_trampoline)
	ANNOTATE_NOENDBR
	pushfl
	/* As above: interrupts off until the popfl. */
	cli
	subl	$(PTREGS_SIZE - 4), %esp
	KPROBE_SAVE_GPRS
	/* The flags were pushed where pt_regs keeps ss. */
	movl	PT_OLDSS(%esp), %eax
	movl	%eax, PT_EFLAGS(%esp)
	KPROBE_SAVE_SEGS
	leal	PTREGS_SIZE+4(%esp), %eax
	movl	%eax, PT_OLDESP(%esp)
	movl	PTREGS_SIZE(%esp), %eax
	movl	-OPT_ADDR_BEFORE_COPY(%eax), %eax
	incl	%eax
	movl	%eax, PT_EIP(%esp)

	movl	%esp, %eax
	call	kprobe_opt_x86_callback

	movl	PT_EFLAGS(%esp), %eax
	movl	%eax, PT_OLDSS(%esp)
	KPROBE_RESTORE_GPRS
	addl	$(PTREGS_SIZE - 4), %esp
	popfl
	RET
SYM_CODE_END(kprobe_opt_trampoline)
#endif
_ASM_NOKPROBE(kprobe_opt_trampoline)
