// SPDX-License-Identifier: GPL-2.0-only
/*
 * Emulation of the PC-relative and branch A64 instructions for kprobes.
 *
 * These instructions cannot run from an out-of-line slot: they would see
 * the slot's address as the PC, or leave it for somewhere other than the
 * step-completion BRK.  The BRK handler calls one of the functions below
 * instead, which updates @regs exactly as the instruction would have.
 *
 * All of them are in .kprobes.text (__kprobes), so they cannot be probed.
 * Register number 31 is the zero register for every operand handled here,
 * which is what pt_regs_read_reg() and pt_regs_write_reg() implement.
 *
 * Copyright (C) 2013 Linaro Limited.
 */
#include <linux/bitfield.h>
#include <linux/bitops.h>
#include <linux/kprobes.h>
#include <linux/unaligned.h>

#include <asm/insn.h>
#include <asm/ptrace.h>

#include "simulate-insn.h"

/* Operand fields, named as in the Arm ARM. */
#define A64_RT		GENMASK(4, 0)
#define A64_RN		GENMASK(9, 5)
#define A64_COND	GENMASK(3, 0)
#define A64_SF		BIT(31)
#define A64_OP24	BIT(24)		/* cbnz vs cbz, tbnz vs tbz */
#define A64_TB_B5	BIT(31)
#define A64_TB_B40	GENMASK(23, 19)
#define A64_BLR_OPC	GENMASK(22, 21)	/* 0: br, 1: blr, 2: ret */
#define A64_LIT_OPC	GENMASK(31, 30)
#define A64_IMM26	GENMASK(25, 0)	/* b, bl */
#define A64_IMM19	GENMASK(23, 5)	/* b.cond, cb*, literal loads */
#define A64_IMM14	GENMASK(18, 5)	/* tb* */
#define A64_IMMHI	GENMASK(23, 5)	/* adr, adrp */
#define A64_IMMLO	GENMASK(30, 29)

/*
 * Immediates are decoded here rather than with aarch64_insn_decode_*():
 * this runs inside the BRK handler, and those helpers can be probed.
 */
static __always_inline s64 off_imm26(u32 insn)
{
	return sign_extend64(FIELD_GET(A64_IMM26, insn), 25) * AARCH64_INSN_SIZE;
}

static __always_inline s64 off_imm19(u32 insn)
{
	return sign_extend64(FIELD_GET(A64_IMM19, insn), 18) * AARCH64_INSN_SIZE;
}

static __always_inline s64 off_imm14(u32 insn)
{
	return sign_extend64(FIELD_GET(A64_IMM14, insn), 13) * AARCH64_INSN_SIZE;
}

static __always_inline u64 reg_rt(struct pt_regs *regs, u32 insn)
{
	return pt_regs_read_reg(regs, FIELD_GET(A64_RT, insn));
}

static __always_inline u64 reg_rn(struct pt_regs *regs, u32 insn)
{
	return pt_regs_read_reg(regs, FIELD_GET(A64_RN, insn));
}

/* Write a destination register; a W destination zero-extends. */
static __always_inline void set_xreg(struct pt_regs *regs, u32 insn,
				     u64 val, bool is64)
{
	pt_regs_write_reg(regs, FIELD_GET(A64_RT, insn),
			  is64 ? val : lower_32_bits(val));
}

static __always_inline void go_to(struct pt_regs *regs, unsigned long target)
{
	instruction_pointer_set(regs, target);
}

static __always_inline void next_insn(struct pt_regs *regs, long pc)
{
	go_to(regs, pc + AARCH64_INSN_SIZE);
}

/* Branch @offset bytes away if @taken, else go on. */
static __always_inline void branch_if(struct pt_regs *regs, long pc,
				      s64 offset, bool taken)
{
	go_to(regs, pc + (taken ? offset : AARCH64_INSN_SIZE));
}

void __kprobes a64_sim_pcrel_addr(u32 insn, long pc, struct pt_regs *regs)
{
	u64 raw = FIELD_GET(A64_IMMHI, insn) << 2 | FIELD_GET(A64_IMMLO, insn);
	s64 imm = sign_extend64(raw, 20);
	u64 val;

	if (aarch64_insn_is_adrp(insn))
		val = ALIGN_DOWN(pc, SZ_4K) + (imm << 12);
	else
		val = pc + imm;

	pt_regs_write_reg(regs, FIELD_GET(A64_RT, insn), val);
	next_insn(regs, pc);
}

void __kprobes a64_sim_branch_imm(u32 insn, long pc, struct pt_regs *regs)
{
	if (aarch64_insn_is_bl(insn))
		procedure_link_pointer_set(regs, pc + AARCH64_INSN_SIZE);
	branch_if(regs, pc, off_imm26(insn), true);
}

void __kprobes a64_sim_branch_cond(u32 insn, long pc, struct pt_regs *regs)
{
	pstate_check_t *holds = aarch32_opcode_cond_checks[FIELD_GET(A64_COND, insn)];

	branch_if(regs, pc, off_imm19(insn),
		  holds(regs->pstate));
}

void __kprobes a64_sim_cmp_branch(u32 insn, long pc, struct pt_regs *regs)
{
	u64 val = reg_rt(regs, insn);
	bool nonzero;

	if (!(insn & A64_SF))
		val = lower_32_bits(val);
	nonzero = val != 0;
	branch_if(regs, pc, off_imm19(insn),
		  nonzero == !!(insn & A64_OP24));
}

void __kprobes a64_sim_test_branch(u32 insn, long pc, struct pt_regs *regs)
{
	unsigned int bit = FIELD_GET(A64_TB_B40, insn);
	bool set;

	if (insn & A64_TB_B5)
		bit += 32;
	set = reg_rt(regs, insn) & BIT_ULL(bit);
	branch_if(regs, pc, off_imm14(insn),
		  set == !!(insn & A64_OP24));
}

void __kprobes a64_sim_branch_reg(u32 insn, long pc, struct pt_regs *regs)
{
	/* Read the target first: "blr x30" branches to the old x30. */
	unsigned long target = reg_rn(regs, insn);

	if (FIELD_GET(A64_BLR_OPC, insn) == 1)
		procedure_link_pointer_set(regs, pc + AARCH64_INSN_SIZE);
	go_to(regs, target);
}

static __always_inline const void *literal_addr(u32 insn, long pc)
{
	return (const void *)(pc + off_imm19(insn));
}

void __kprobes a64_sim_load_lit(u32 insn, long pc, struct pt_regs *regs)
{
	const void *src = literal_addr(insn, pc);

	switch (FIELD_GET(A64_LIT_OPC, insn)) {
	case 0:		/* ldr wt */
		set_xreg(regs, insn, get_unaligned((const u32 *)src), false);
		break;
	case 1:		/* ldr xt */
		set_xreg(regs, insn, get_unaligned((const u64 *)src), true);
		break;
	case 2:		/* ldrsw xt */
		set_xreg(regs, insn, (s64)get_unaligned((const s32 *)src), true);
		break;
	default:	/* prfm: only a hint */
		break;
	}
	next_insn(regs, pc);
}

/*
 * Load @buf (16 bytes) into V<n>.  An A64 literal load of an S or D
 * register clears the rest of the vector register, so loading the
 * zero-padded value as a Q register has the architected effect.
 */
#define A64_LOAD_Q(n)							\
	case n:								\
		asm volatile(".arch_extension fp\n"			\
			     ".arch_extension simd\n"			\
			     "ldr	q" #n ", [%0]"			\
			     : : "r" (buf), "m" (*(const u32 (*)[4])buf)); \
		break

static void __kprobes load_vreg(unsigned int n, const u32 *buf)
{
	switch (n) {
	A64_LOAD_Q(0);  A64_LOAD_Q(1);  A64_LOAD_Q(2);  A64_LOAD_Q(3);
	A64_LOAD_Q(4);  A64_LOAD_Q(5);  A64_LOAD_Q(6);  A64_LOAD_Q(7);
	A64_LOAD_Q(8);  A64_LOAD_Q(9);  A64_LOAD_Q(10); A64_LOAD_Q(11);
	A64_LOAD_Q(12); A64_LOAD_Q(13); A64_LOAD_Q(14); A64_LOAD_Q(15);
	A64_LOAD_Q(16); A64_LOAD_Q(17); A64_LOAD_Q(18); A64_LOAD_Q(19);
	A64_LOAD_Q(20); A64_LOAD_Q(21); A64_LOAD_Q(22); A64_LOAD_Q(23);
	A64_LOAD_Q(24); A64_LOAD_Q(25); A64_LOAD_Q(26); A64_LOAD_Q(27);
	A64_LOAD_Q(28); A64_LOAD_Q(29); A64_LOAD_Q(30); A64_LOAD_Q(31);
	}
}

void __kprobes a64_sim_load_lit_fp(u32 insn, long pc, struct pt_regs *regs)
{
	/* opc 0: 4 bytes (S), 1: 8 bytes (D), 2: 16 bytes (Q) */
	size_t len = 4 << FIELD_GET(A64_LIT_OPC, insn);
	const u32 *src = literal_addr(insn, pc);
	u32 buf[4] __aligned(16) = { 0 };
	unsigned int i;

	for (i = 0; i < len / sizeof(u32); i++)
		buf[i] = get_unaligned(src + i);
	load_vreg(FIELD_GET(A64_RT, insn), buf);
	next_insn(regs, pc);
}

void __kprobes a64_sim_nop(u32 insn, long pc, struct pt_regs *regs)
{
	next_insn(regs, pc);
}

/*
 * mrs Xt, ICC_PMR_EL1 with pseudo-NMIs, the first half of every
 * local_irq_save(): the probed code's priority mask, which the BRK's
 * exception entry saved in pmr_save.  Run from a slot it would read
 * GIC_PRIO_IRQOFF, the mask the step runs with (kprobes.c), and the
 * caller would take "interrupts were off" and leave them on at its
 * local_irq_restore() while believing it held them off.
 */
void __kprobes a64_sim_mrs_pmr(u32 insn, long pc, struct pt_regs *regs)
{
	set_xreg(regs, insn, regs->pmr_save, true);
	next_insn(regs, pc);
}
