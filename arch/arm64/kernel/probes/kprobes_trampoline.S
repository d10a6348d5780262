/* SPDX-License-Identifier: GPL-2.0 */
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
 *
 * It also holds a64_step_trampoline, the end of a slot's post copy, and
 * with CONFIG_OPTPROBES the template of a jump optimized probe's detour
 * buffer (see opt.c), which save the registers the same way.
 */
#include <linux/linkage.h>
#include <asm/alternative.h>
#include <asm/asm-offsets.h>
#include <asm/assembler.h>
#include <asm/brk-imm.h>
#include <asm/sysreg.h>

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

/* Push a pt_regs holding x0-x30 and sp as they stand (x0 then clobbered). */
	.macro	krp_push_gprs
	sub	sp, sp, #PT_REGS_SIZE
	krp_gprs stp
	add	x0, sp, #PT_REGS_SIZE
	stp	x30, x0, [sp, #S_LR]
	.endm

/*
 * Push a pt_regs holding the registers as they stand, but for pc and
 * pstate: x0 is left with the PSTATE an exception from here would have
 * recorded but for its mode (DAIF and NZCV), for the caller to store with
 * the pc (S_PSTATE follows S_PC).  a64_hit_regs() adds the mode, EL1h or
 * (VHE) EL2h, and the rest.
 */
	.if	S_PSTATE - S_PC != 8
	.error	"krp_save_regs: pstate does not follow pc in pt_regs"
	.endif
	.macro	krp_save_regs
	krp_push_gprs
	mrs	x0, daif
	mrs	x1, nzcv
	orr	x0, x0, x1
	.endm

/* Load the flags, x0-x30 from the pt_regs at sp, and pop it. */
	.macro	krp_restore_regs
	ldr	x0, [sp, #S_PSTATE]
	and	x0, x0, #(PSR_N_BIT | PSR_Z_BIT | PSR_C_BIT | PSR_V_BIT)
	msr	nzcv, x0
	krp_gprs ldp
	ldr	x30, [sp, #S_LR]
	add	sp, sp, #PT_REGS_SIZE
	.endm

/* Link the frame record { x29, \pc } of that pt_regs into the chain. */
	.macro	krp_link_frame pc
	stp	x29, \pc, [sp, #S_STACKFRAME]
	add	x29, sp, #S_STACKFRAME
	.endm

	.text
/*
 * The end of a slot's post copy (kprobes.c): entered by the slot's B
 * after the copied instruction, with DAIF all masked (and, with
 * pseudo-NMIs, the priority mask at GIC_PRIO_IRQOFF) since the BRK
 * handler sent the CPU into the slot, and every register live.  Lay a
 * pt_regs as the registers stand (sp: the probed code's; PSTATE: its
 * NZCV alone), link its frame record, and let a64_step_callback() run the
 * post_handlers and fill in the pc, PSTATE and priority mask to resume
 * with.  Then return as an exception return would, without a scratch
 * register: ELR_EL1 and SPSR_EL1 from the pt_regs (nothing can take an
 * exception and clobber them meanwhile: everything is masked and the
 * stack is mapped), the priority mask (as kernel_exit restores it), the
 * registers, and ERET, which puts PSTATE (DAIF, NZCV, PAN...) and the pc
 * back at once.
 */
SYM_CODE_START(a64_step_trampoline)
	krp_push_gprs
	/* the callback builds the rest of PSTATE */
	mrs	x0, nzcv
	stp	xzr, x0, [sp, #S_PC]
	krp_link_frame xzr
	mov	x0, sp
	bl	a64_step_callback

	ldp	x0, x1, [sp, #S_PC]
	msr	elr_el1, x0
	msr	spsr_el1, x1
alternative_if_not ARM64_HAS_GIC_PRIO_MASKING
	b	.Lstep_pmr_done
alternative_else_nop_endif
	ldr	x0, [sp, #S_PMR_SAVE]
	msr_s	SYS_ICC_PMR_EL1, x0
	/* the redistributor must see the change, as in kernel_exit */
alternative_if_not ARM64_HAS_GIC_PRIO_RELAXED_SYNC
	dsb	sy
alternative_else_nop_endif
.Lstep_pmr_done:
	krp_gprs ldp
	ldr	x30, [sp, #S_LR]
	add	sp, sp, #PT_REGS_SIZE
	eret
	sb
SYM_CODE_END(a64_step_trampoline)
NOKPROBE(a64_step_trampoline)

#ifdef CONFIG_KRETPROBES
SYM_CODE_START(kretprobe_trampoline)
	/* lr still holds our own address: the function returned through it */
	krp_save_regs
	/* { caller's fp, our address }: unwinders recover the real return */
	adr	x1, kretprobe_trampoline
	stp	x1, x0, [sp, #S_PC]
	krp_link_frame x1

	mov	x0, sp
	bl	kretprobe_arm64_return
	mov	x30, x0

	/* A handler may have changed the return value: take pt_regs' word. */
	krp_gprs ldp
	add	sp, sp, #PT_REGS_SIZE
	ret
SYM_CODE_END(kretprobe_trampoline)
NOKPROBE(kretprobe_trampoline)
#endif /* CONFIG_KRETPROBES */

#ifdef CONFIG_OPTPROBES
/*
 * Words for the displaced instruction, relocated, and the branch back:
 * three at most (b.cond), so that the buffer fits in 256 bytes.
 */
#define A64_OPT_INSNS	3

/*
 * The detour buffer of a jump optimized probe (opt.c copies it and fills
 * in the words at a64_opt_tmpl_insn and the literals).  Entered by the B
 * that replaced the probed instruction, with every register live:
 * a pt_regs is laid as a trap would, with pc = the probed address, and
 * a64_optprobe_hit() runs the handlers.  It returns 0 to go on with the
 * displaced instruction (relocated; then a branch back), or, when a
 * pre_handler moved the pc, the address of a64_opt_exit.  Never executed
 * in place.
 */
	.pushsection .rodata, "a"
	.balign	8
	.globl	a64_opt_tmpl
a64_opt_tmpl:
	krp_save_regs
	ldr	x1, a64_opt_tmpl_addr
	stp	x1, x0, [sp, #S_PC]
	krp_link_frame x1
	ldr	x0, a64_opt_tmpl_op
	mov	x1, sp
	ldr	x2, a64_opt_tmpl_call
	blr	x2
	cbnz	x0, a64_opt_tmpl_exit
	/* the handlers may have changed the flags and registers */
	krp_restore_regs
	.globl	a64_opt_tmpl_insn
a64_opt_tmpl_insn:
	.rept	A64_OPT_INSNS
	nop
	.endr
	.globl	a64_opt_tmpl_exit
a64_opt_tmpl_exit:
	br	x0
	.balign	8
	.globl	a64_opt_tmpl_op
a64_opt_tmpl_op:
	.quad	0
	.globl	a64_opt_tmpl_addr
a64_opt_tmpl_addr:
	.quad	0
	.globl	a64_opt_tmpl_call
a64_opt_tmpl_call:
	.quad	0
	.globl	a64_opt_tmpl_lit
a64_opt_tmpl_lit:
	.quad	0
	.globl	a64_opt_tmpl_end
a64_opt_tmpl_end:
	.popsection

/*
 * A pre_handler of an optimized probe moved the pc.  Entered by BR from
 * the detour buffer with everything masked: load the registers it left,
 * pop its pt_regs so that sp is the probed code's again, and let the BRK
 * (kprobe_opt_exit_brk()) set the pc and unmask.
 */
	.text
SYM_CODE_START(a64_opt_exit)
	hint	#36			/* bti j */
	krp_restore_regs
SYM_INNER_LABEL(a64_opt_exit_brk, SYM_L_GLOBAL)
	brk	#KPROBES_BRK_SS_IMM
SYM_CODE_END(a64_opt_exit)
NOKPROBE(a64_opt_exit)
#endif /* CONFIG_OPTPROBES */
