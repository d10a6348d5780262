/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small functions for the kprobes_arm64 KUnit suite, each with one
 * probe point (recorded by PROBE_POINT in <name>_at) on the instruction
 * under test.
 *
 * All follow one convention:
 *
 *	u64 fn(u64 a, u64 b, u64 out[4]);
 *
 * they set NZCV from "cmp a, b" before the probe point, return their
 * result in x0 and store the final NZCV in out[0] (and any further
 * results in out[1..3]), so a probed run can be compared with an
 * unprobed one register for register and flag for flag.
 */
#include <linux/linkage.h>
#include <asm/asm-extable.h>
#include <asm/asm-uaccess.h>
#include <asm/assembler.h>

/* Record the address of the next instruction as the u64 \name\()_at. */
	.macro	PROBE_POINT name
	.pushsection .rodata, "a"
	.balign	8
	.globl	\name\()_at
\name\()_at:
	.quad	9999f
	.popsection
9999:
	.endm

	.macro	DONE
	mrs	x9, nzcv
	str	x9, [x2]
	ret
	.endm

/* bti j / bti c as hints, so that any assembler takes them */
#define BTI_J	hint	#36
#define BTI_C	hint	#34

	.text

/* ---- simulated: PC-relative addresses ---- */

SYM_FUNC_START(kpa64_adr)
	cmp	x0, x1
	PROBE_POINT kpa64_adr
	adr	x0, kpa64_lit_x
	DONE
SYM_FUNC_END(kpa64_adr)

SYM_FUNC_START(kpa64_adr_back)
	cmp	x0, x1
	PROBE_POINT kpa64_adr_back
	adr	x0, kpa64_adr
	DONE
SYM_FUNC_END(kpa64_adr_back)

SYM_FUNC_START(kpa64_adrp)
	cmp	x0, x1
	PROBE_POINT kpa64_adrp
	adrp	x0, kpa64_lit_x
	DONE
SYM_FUNC_END(kpa64_adrp)

/* ---- simulated: immediate branches ---- */

SYM_FUNC_START(kpa64_b)
	cmp	x0, x1
	PROBE_POINT kpa64_b
	b	1f
	mov	x0, #1
	DONE
1:	add	x0, x0, #2
	DONE
SYM_FUNC_END(kpa64_b)

SYM_FUNC_START(kpa64_leaf)
	add	x0, x0, #5
	ret
SYM_FUNC_END(kpa64_leaf)

SYM_FUNC_START(kpa64_bl)
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	cmp	x0, x1
	PROBE_POINT kpa64_bl
	bl	kpa64_leaf
	ldp	x29, x30, [sp], #16
	DONE
SYM_FUNC_END(kpa64_bl)

/* kpa64_bcond_<cc>: x0 = 20 when <cc> holds after "cmp a, b", else 10 */
	.irp	cc, eq, ne, cs, cc, mi, pl, vs, vc, hi, ls, ge, lt, gt, le, al
SYM_FUNC_START(kpa64_bcond_\cc)
	cmp	x0, x1
	PROBE_POINT kpa64_bcond_\cc
	b.\cc	1f
	mov	x0, #10
	DONE
1:	mov	x0, #20
	DONE
SYM_FUNC_END(kpa64_bcond_\cc)
	.endr

	.macro	CMP_BRANCH name, insn, reg
SYM_FUNC_START(kpa64_\name)
	mov	x3, x0
	cmp	x0, x1
	mov	x0, #10
	PROBE_POINT kpa64_\name
	\insn	\reg, 1f
	DONE
1:	mov	x0, #20
	DONE
SYM_FUNC_END(kpa64_\name)
	.endm

	CMP_BRANCH cbz_x, cbz, x3
	CMP_BRANCH cbz_w, cbz, w3
	CMP_BRANCH cbnz_x, cbnz, x3
	CMP_BRANCH cbnz_w, cbnz, w3

	.macro	TEST_BRANCH name, insn, bit
SYM_FUNC_START(kpa64_\name)
	mov	x3, x0
	cmp	x0, x1
	mov	x0, #10
	PROBE_POINT kpa64_\name
	\insn	x3, #\bit, 1f
	DONE
1:	mov	x0, #20
	DONE
SYM_FUNC_END(kpa64_\name)
	.endm

	TEST_BRANCH tbz_3, tbz, 3
	TEST_BRANCH tbnz_3, tbnz, 3
	TEST_BRANCH tbz_40, tbz, 40
	TEST_BRANCH tbnz_40, tbnz, 40

/* ---- simulated: register branches ---- */

SYM_FUNC_START(kpa64_br)
	adr	x3, 1f
	cmp	x0, x1
	PROBE_POINT kpa64_br
	br	x3
	mov	x0, #1
	DONE
1:	BTI_J
	add	x0, x0, #3
	DONE
SYM_FUNC_END(kpa64_br)

SYM_FUNC_START(kpa64_blr)
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	adr	x3, kpa64_leaf
	cmp	x0, x1
	PROBE_POINT kpa64_blr
	blr	x3
	ldp	x29, x30, [sp], #16
	DONE
SYM_FUNC_END(kpa64_blr)

/* blr x30: the target is read before the link register is written */
SYM_FUNC_START(kpa64_blr_lr)
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	adr	x30, kpa64_leaf
	cmp	x0, x1
	PROBE_POINT kpa64_blr_lr
	blr	x30
	ldp	x29, x30, [sp], #16
	DONE
SYM_FUNC_END(kpa64_blr_lr)

SYM_FUNC_START(kpa64_ret)
	cmp	x0, x1
	mrs	x9, nzcv
	str	x9, [x2]
	add	x0, x0, x1
	PROBE_POINT kpa64_ret
	ret
SYM_FUNC_END(kpa64_ret)

SYM_FUNC_START(kpa64_ret_x3)
	adr	x3, 1f
	cmp	x0, x1
	PROBE_POINT kpa64_ret_x3
	ret	x3
	mov	x0, #1
	DONE
1:	BTI_J
	add	x0, x0, #4
	DONE
SYM_FUNC_END(kpa64_ret_x3)

/* ---- simulated: literal loads ---- */

	.balign	8
SYM_DATA_START_LOCAL(kpa64_lit_before)
	.quad	0x1122334455667788
SYM_DATA_END(kpa64_lit_before)

SYM_FUNC_START(kpa64_ldr_w)
	mov	x0, #-1
	cmp	x0, x1
	PROBE_POINT kpa64_ldr_w
	ldr	w0, kpa64_lit_x
	DONE
SYM_FUNC_END(kpa64_ldr_w)

SYM_FUNC_START(kpa64_ldr_x)
	cmp	x0, x1
	PROBE_POINT kpa64_ldr_x
	ldr	x0, kpa64_lit_x
	DONE
SYM_FUNC_END(kpa64_ldr_x)

SYM_FUNC_START(kpa64_ldrsw)
	cmp	x0, x1
	PROBE_POINT kpa64_ldrsw
	ldrsw	x0, kpa64_lit_x + 4
	DONE
SYM_FUNC_END(kpa64_ldrsw)

SYM_FUNC_START(kpa64_ldr_back)
	cmp	x0, x1
	PROBE_POINT kpa64_ldr_back
	ldr	x0, kpa64_lit_before
	DONE
SYM_FUNC_END(kpa64_ldr_back)

SYM_FUNC_START(kpa64_prfm)
	cmp	x0, x1
	PROBE_POINT kpa64_prfm
	prfm	pldl1keep, kpa64_lit_x
	add	x0, x0, #6
	DONE
SYM_FUNC_END(kpa64_prfm)

/* FP/SIMD literals: v1 is all ones first; out[1] and out[2] get v1 */
	.macro	FP_LIT name, reg
SYM_FUNC_START(kpa64_\name)
	movi	v1.2d, #0xffffffffffffffff
	cmp	x0, x1
	PROBE_POINT kpa64_\name
	ldr	\reg, kpa64_lit_q
	mov	x3, v1.d[0]
	mov	x4, v1.d[1]
	stp	x3, x4, [x2, #8]
	DONE
SYM_FUNC_END(kpa64_\name)
	.endm

	FP_LIT ldr_s, s1
	FP_LIT ldr_d, d1
	FP_LIT ldr_q, q1

/* ---- run out of line (and boosted when there is no post_handler) ---- */

SYM_FUNC_START(kpa64_adds)
	PROBE_POINT kpa64_adds
	adds	x0, x0, x1
	DONE
SYM_FUNC_END(kpa64_adds)

SYM_FUNC_START(kpa64_csel)
	cmp	x0, x1
	PROBE_POINT kpa64_csel
	csel	x0, x0, x1, lt
	DONE
SYM_FUNC_END(kpa64_csel)

SYM_FUNC_START(kpa64_mrs_nzcv)
	cmp	x0, x1
	PROBE_POINT kpa64_mrs_nzcv
	mrs	x0, nzcv
	DONE
SYM_FUNC_END(kpa64_mrs_nzcv)

SYM_FUNC_START(kpa64_stp_pre)
	mov	x3, sp
	cmp	x0, x1
	PROBE_POINT kpa64_stp_pre
	stp	x0, x1, [sp, #-16]!
	ldr	x0, [sp, #8]
	mov	x4, sp
	sub	x4, x3, x4
	str	x4, [x2, #8]
	add	sp, sp, #16
	DONE
SYM_FUNC_END(kpa64_stp_pre)

SYM_FUNC_START(kpa64_ldr_sp)
	stp	x0, x1, [sp, #-16]!
	cmp	x0, x1
	PROBE_POINT kpa64_ldr_sp
	ldr	x0, [sp, #8]
	add	sp, sp, #16
	DONE
SYM_FUNC_END(kpa64_ldr_sp)

SYM_FUNC_START(kpa64_nop)
	cmp	x0, x1
	PROBE_POINT kpa64_nop
	nop
	add	x0, x0, #9
	DONE
SYM_FUNC_END(kpa64_nop)

/* a load that may fault: stepped, never boosted */
SYM_FUNC_START(kpa64_ldr_reg)
	str	x0, [x2, #24]
	cmp	x0, x1
	PROBE_POINT kpa64_ldr_reg
	ldr	x0, [x2, #24]
	str	xzr, [x2, #24]
	DONE
SYM_FUNC_END(kpa64_ldr_reg)

/*
 * void kpa64_wp_store(u64 *p, u64 v): one store, at kpa64_wp_store_at,
 * which a watchpoint's handler may skip.
 */
SYM_FUNC_START(kpa64_wp_store)
	PROBE_POINT kpa64_wp_store
	str	x1, [x0]
	ret
SYM_FUNC_END(kpa64_wp_store)

/*
 * u64 kpa64_mrs_pmr(u64 a, u64 b, u64 out[4]): ICC_PMR_EL1, as the
 * first half of local_irq_save() reads it with pseudo-NMIs.  Only called
 * when the kernel uses them (a GICv2 machine has no such register).
 */
SYM_FUNC_START(kpa64_mrs_pmr)
	cmp	x0, x1
	PROBE_POINT kpa64_mrs_pmr
	mrs	x0, S3_0_C4_C6_0		/* ICC_PMR_EL1 */
	DONE
SYM_FUNC_END(kpa64_mrs_pmr)

/*
 * u64 kpa64_fault_load(u64 a, const u64 *p, u64 out[4]): *p, or 0 with
 * out[1] = -EFAULT when the load faults (exception table fixup).  A probe
 * on the load is refused; one on the function's entry is not.
 */
SYM_FUNC_START(kpa64_fault_load)
	PROBE_POINT kpa64_fault_load_entry
	mov	x3, #0
	cmp	x0, x0
	PROBE_POINT kpa64_fault_load
1:	ldr	x0, [x1]
2:	str	x3, [x2, #8]
	DONE
	__ASM_EXTABLE_RAW(1b, 2b, EX_TYPE_KACCESS_ERR_ZERO,
			  EX_DATA_REG(ERR, x3) | EX_DATA_REG(ZERO, x0))
SYM_FUNC_END(kpa64_fault_load)

/*
 * u64 kpa64_uload(u64 a, const u64 __user *p, u64 out[4]): as
 * kpa64_fault_load, with an unprivileged load of a user address.
 */
SYM_FUNC_START(kpa64_uload)
	PROBE_POINT kpa64_uload_entry
	mov	x3, #0
	uaccess_ttbr0_enable x4, x5, x6
	PROBE_POINT kpa64_uload
1:	ldtr	x0, [x1]
2:	uaccess_ttbr0_disable x4, x5
	str	x3, [x2, #8]
	DONE
	__ASM_EXTABLE_RAW(1b, 2b, EX_TYPE_UACCESS_ERR_ZERO,
			  EX_DATA_REG(ERR, x3) | EX_DATA_REG(ZERO, x0))
SYM_FUNC_END(kpa64_uload)

/*
 * u64 kpa64_fault_load_nx(u64 a, const u64 *p, u64 out[4]): *p, with no
 * fixup: a fault is fatal unless a probe's fault_handler deals with it.
 */
SYM_FUNC_START(kpa64_fault_load_nx)
	cmp	x0, x0
	PROBE_POINT kpa64_fault_load_nx
	ldr	x0, [x1]
	DONE
SYM_FUNC_END(kpa64_fault_load_nx)

/* an LSE atomic on memory (out[3]): stepped; returns a + (a + b) */
	.arch_extension lse
SYM_FUNC_START(kpa64_ldadd)
	str	x0, [x2, #24]
	add	x3, x2, #24
	cmp	x0, x1
	PROBE_POINT kpa64_ldadd
	ldadd	x1, x0, [x3]
	ldr	x4, [x3]
	str	xzr, [x3]
	add	x0, x0, x4
	DONE
SYM_FUNC_END(kpa64_ldadd)

/*
 * Landing pads, for calls through a function pointer: a + b.  NZCV is
 * the caller's, not set here.
 */
SYM_FUNC_START(kpa64_bti_c)
	PROBE_POINT kpa64_bti_c
	BTI_C
	PROBE_POINT kpa64_bti_c_next
	add	x0, x0, x1
	DONE
SYM_FUNC_END(kpa64_bti_c)

SYM_FUNC_START(kpa64_paciasp)
	PROBE_POINT kpa64_paciasp
	hint	#25			/* paciasp */
	add	x0, x0, x1
	hint	#29			/* autiasp */
	DONE
SYM_FUNC_END(kpa64_paciasp)

/* in cpuidle text, where RCU may not be watching: a + 9 */
	.pushsection .cpuidle.text, "ax"
SYM_FUNC_START(kpa64_idle_text)
	cmp	x0, x1
	PROBE_POINT kpa64_idle_text
	nop
	add	x0, x0, #9
	DONE
SYM_FUNC_END(kpa64_idle_text)
	.popsection

/* SVE loads and stores: probes are only registered, never hit */
SYM_FUNC_START(kpa64_sve_never_run)
	PROBE_POINT kpa64_sve_ld1d
	.inst	0xa5e0a000		/* ld1d {z0.d}, p0/z, [x0] */
	PROBE_POINT kpa64_sve_st1d
	.inst	0xe5e0e000		/* st1d {z0.d}, p0, [x0] */
	ret
SYM_FUNC_END(kpa64_sve_never_run)

/* ---- refused, never called: probes are only registered ---- */

SYM_FUNC_START(kpa64_refused)
	PROBE_POINT kpa64_ref_ldxr
	ldxr	x3, [x0]
	PROBE_POINT kpa64_ref_in_excl
	add	x3, x3, #1
	PROBE_POINT kpa64_ref_stxr
	stxr	w4, x3, [x0]
	PROBE_POINT kpa64_ok_after_excl
	cbnz	w4, kpa64_refused
	PROBE_POINT kpa64_ref_brk
	brk	#0x123
	PROBE_POINT kpa64_ref_svc
	svc	#0
	PROBE_POINT kpa64_ref_hvc
	hvc	#0
	PROBE_POINT kpa64_ref_eret
	eret
	PROBE_POINT kpa64_ref_msr_daifset
	msr	daifset, #2
	PROBE_POINT kpa64_ref_msr_reg
	msr	tpidr_el1, x0
	PROBE_POINT kpa64_ref_mrs_daif
	mrs	x0, daif
	PROBE_POINT kpa64_ref_mrs_elr
	mrs	x0, elr_el1
	PROBE_POINT kpa64_ref_retaa
	.inst	0xd65f0bff		/* retaa */
	PROBE_POINT kpa64_ref_udf
	.inst	0x00000000		/* udf #0 */
	PROBE_POINT kpa64_ref_wfi
	wfi
	PROBE_POINT kpa64_ok_mrs_sp_el0
	mrs	x0, sp_el0
	PROBE_POINT kpa64_ok_ldar
	ldar	x0, [x0]
	PROBE_POINT kpa64_ok_after_ldar
	add	x0, x0, #1
	ret
SYM_FUNC_END(kpa64_refused)

/* ---- literal pool, in the text like a compiler's ---- */

	.balign	16
SYM_DATA_START_LOCAL(kpa64_lit_x)
	.quad	0x8000000180000002
SYM_DATA_END(kpa64_lit_x)
SYM_DATA_START_LOCAL(kpa64_lit_q)
	.quad	0x0123456789abcdef, 0xfedcba9876543210
SYM_DATA_END(kpa64_lit_q)
