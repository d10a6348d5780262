/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The x86 kretprobe trampoline (x86_64, and i386 below).
 *
 * A kretprobed function's RET lands here instead of in its caller (see
 * arch_kretprobe_hijack()).  No breakpoint: the trampoline rebuilds the
 * return address slot with its own address (which the unwinders know how
 * to see through), lays a pt_regs under it as the registers stand at the
 * return, lets kretprobe_x86_return() run the handler, writes the real
 * return address into the slot and returns there.
 *
 * The handler gets the context of every other handler (the int3 path's):
 * the flags are saved into pt_regs first, then DF, AC and interrupts are
 * cleared (cld, ASM_CLAC, and cli or on Xen PV its paravirt masking, as
 * in KPROBE_CALLED_TRAMPOLINE of trampoline_regs.S), and popf (with the
 * Xen PV unmasking) gives the returning code its flags back
 * from pt_regs (where a handler has the last word).  The ABI already has
 * DF clear at a return; IF is whatever the function returns with (e.g.
 * local_irq_save() wrappers return with it clear) and AC clear but in a
 * user-access region, which objtool keeps free of calls and returns.
 * With interrupts off kretprobe_x86_return() may also make RCU watch
 * (ct_nmi_enter()) where the function returned between ct_idle_enter()
 * and ct_idle_exit().
 */
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/asm.h>
#include <asm/unwind_hints.h>
#include <asm/ptrace-abi.h>
#include "trampoline_regs.S"

	.text
#ifdef CONFIG_X86_64
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

	/* Past pt_regs' ss and sp: pushfq stores straight into its flags. */
	leaq	-16(%rsp), %rsp
	pushfq
	cld
	ASM_CLAC
	subq	$EFLAGS, %rsp
	KPROBE_SAVE_GPRS
	KPROBE_IRQS_OFF
	/*
	 * The frame pointer unwinder goes through the pt_regs: their ip is
	 * the real return address (the C half puts it there before it runs
	 * the handler), and their bp the caller's frame.
	 */
	movq	$kretprobe_trampoline, RIP(%rsp)
	ENCODE_FRAME_POINTER

	movq	%rsp, %rdi
	/*
	 * It also writes the real return address over ours in the slot
	 * above pt_regs (kretprobe_trampoline_return(), before it runs a
	 * handler): the RET below takes it from there.
	 */
	call	kretprobe_x86_return

	/* A handler may have changed the return value: take pt_regs' word. */
	KPROBE_IRQS_RESTORE
	KPROBE_RESTORE_GPRS
	/*
	 * The popfq may let an interrupt in: for the frame pointer unwinder
	 * it finds the frame pointer at a frame record made of pt_regs' ss
	 * word (the caller's %rbp, put there) and the slot above it (the
	 * real return address), and sees the caller.
	 */
	movq	%rbp, SS(%rsp)
	leaq	SS(%rsp), %rbp
	/* The flags (and IF) from pt_regs; then past its ss and sp. */
	addq	$EFLAGS, %rsp
	popfq
	movq	8(%rsp), %rbp
	leaq	16(%rsp), %rsp
	RET
SYM_CODE_END(kretprobe_trampoline)
#else
/*
 * i386: the same, with regparm(3) (the argument in %eax), and a frame
 * record (the caller's %ebp) pushed right under the slot: the frame
 * pointer unwinder (i386 has no ORC) goes from kretprobe_x86_return()
 * to the slot, and finds the real return address the C half writes
 * there before it runs the handler.
 */
SYM_CODE_START(kretprobe_trampoline)
	ANNOTATE_NOENDBR
	pushl	$kretprobe_trampoline
	pushl	%ebp

	/* leal: the flags stay the returning code's until pushfl. */
	leal	-PTREGS_SIZE(%esp), %esp
	KPROBE_SAVE_GPRS
	leal	PTREGS_SIZE(%esp), %ebp
	pushfl
	popl	%eax
	movl	%eax, PT_EFLAGS(%esp)
	/* As on x86_64: IF, DF and AC clear until the popfl below. */
	cli
	cld
	ASM_CLAC
	KPROBE_SAVE_SEGS

	movl	%esp, %eax
	call	kretprobe_x86_return
	movl	%eax, PTREGS_SIZE+4(%esp)

	/* pushl computes its %esp-based address before the push (SDM). */
	pushl	PT_EFLAGS(%esp)
	popfl
	KPROBE_RESTORE_GPRS
	/* Not addl: the flags are pt_regs' now. */
	leal	PTREGS_SIZE+4(%esp), %esp
	RET
SYM_CODE_END(kretprobe_trampoline)
#endif
_ASM_NOKPROBE(kretprobe_trampoline)
