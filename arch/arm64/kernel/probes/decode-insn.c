// SPDX-License-Identifier: GPL-2.0-only
/*
 * A64 instruction triage for kprobes.
 *
 * The top-level encoding group (op0, bits [28:25]) selects a small
 * per-group rule; the kernel's aarch64_insn_is_*() helpers do the
 * matching.  Anything this file does not recognise is refused: a probe
 * that cannot be placed is a clean -EINVAL, a wrong guess is a crash.
 *
 * Copyright (C) 2013 Linaro Limited.
 */
#include <linux/bitfield.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/uaccess.h>

#include <linux/cpufeature.h>
#include <asm/insn.h>
#include <asm/patching.h>
#include <asm/ptrace.h>
#include <asm/sysreg.h>

#include "decode-insn.h"
#include "simulate-insn.h"

#define A64_OP0		GENMASK(28, 25)
/* op0:op1:CRn:CRm:op2 of a system register, as mrs/msr encode it */
#define A64_SYSREG(...)	(sys_reg(__VA_ARGS__) >> 5)

/* Load register (literal), general and FP/SIMD: x011 x0xx xxxx ... */
#define A64_LDR_LIT_MASK	0x3b000000
#define A64_LDR_LIT_VAL		0x18000000
#define A64_LDR_LIT_V		BIT(26)
#define A64_LDST_L		BIT(22)

/* sys, sysl: 1101 0101 00L0 1xxx ... */
static bool a64_insn_is_sys(u32 insn)
{
	return (insn & 0xffd80000) == 0xd5080000;
}

static enum a64_probe_action simulate(struct arch_probe_insn *api,
				      probes_handler_t *fn)
{
	api->handler = fn;
	return A64_PROBE_SIMULATE;
}

/*
 * Hints are no-ops or only touch registers and PSTATE.BTYPE (which is not
 * checked when the slot is entered by an exception return), so they run
 * out of line.  The hint space also holds instructions that wait for an
 * event or synchronise error state: leave those alone.
 */
static bool hint_runs_out_of_line(u32 insn)
{
	if (aarch64_insn_is_steppable_hint(insn))
		return true;

	switch (insn & 0xfe0) {
	case AARCH64_INSN_HINT_AUTIASP:
	case AARCH64_INSN_HINT_AUTIBSP:
	case AARCH64_INSN_HINT_AUTIAZ:
	case AARCH64_INSN_HINT_AUTIBZ:
	case AARCH64_INSN_HINT_AUTIA_1716:
	case AARCH64_INSN_HINT_AUTIB_1716:
		return true;
	default:
		return false;
	}
}

/*
 * Reading these from a slot gives the probe's trap state, not the
 * interrupted code's: the BRK overwrote the exception registers, and the
 * step runs with DAIF changed.
 */
static bool sysreg_changed_by_probe(u32 insn)
{
	switch (aarch64_insn_extract_system_reg(insn)) {
	case AARCH64_INSN_SPCLREG_DAIF:
	case AARCH64_INSN_SPCLREG_ELR_EL1:
	case AARCH64_INSN_SPCLREG_SPSR_EL1:
	case A64_SYSREG(3, 0, 5, 2, 0):		/* esr_el1 */
	case A64_SYSREG(3, 0, 6, 0, 0):		/* far_el1 */
		return true;
	default:
		return false;
	}
}

/* op0 = 101x: branches, exception generation, system instructions */
static enum a64_probe_action classify_branch_sys(u32 insn,
						 struct arch_probe_insn *api)
{
	if (aarch64_insn_is_b(insn) || aarch64_insn_is_bl(insn))
		return simulate(api, a64_sim_branch_imm);
	if (aarch64_insn_is_bcond(insn))
		return simulate(api, a64_sim_branch_cond);
	if (aarch64_insn_is_cbz(insn) || aarch64_insn_is_cbnz(insn))
		return simulate(api, a64_sim_cmp_branch);
	if (aarch64_insn_is_tbz(insn) || aarch64_insn_is_tbnz(insn))
		return simulate(api, a64_sim_test_branch);
	if (aarch64_insn_is_br(insn) || aarch64_insn_is_blr(insn) ||
	    aarch64_insn_is_ret(insn))
		return simulate(api, a64_sim_branch_reg);

	/*
	 * Authenticated branches (braa, blraa, retaa ...) cannot be
	 * emulated without the keys, and would leave the slot if run there.
	 */
	if (aarch64_insn_is_br_auth(insn) || aarch64_insn_is_blr_auth(insn) ||
	    aarch64_insn_is_ret_auth(insn))
		return A64_PROBE_REFUSE;

	/* svc, hvc, smc, brk, hlt, dcps*, eret*, drps: never */
	if (aarch64_insn_is_exception(insn) || aarch64_insn_is_eret(insn) ||
	    aarch64_insn_is_eret_auth(insn))
		return A64_PROBE_REFUSE;

	if (aarch64_insn_is_hint(insn))
		return hint_runs_out_of_line(insn) ? A64_PROBE_XOL :
						     A64_PROBE_REFUSE;

	/* Writes to PSTATE fields or system registers change system state. */
	if (aarch64_insn_is_msr_imm(insn) || aarch64_insn_is_msr_reg(insn))
		return A64_PROBE_REFUSE;

	if (aarch64_insn_is_mrs(insn))
		return sysreg_changed_by_probe(insn) ? A64_PROBE_REFUSE :
						       A64_PROBE_XOL;

	/* dmb, dsb, isb, sb, clrex, ssbb, pssbb */
	if (aarch64_insn_is_barrier(insn))
		return A64_PROBE_XOL;

	/* sys/sysl: cache and TLB maintenance, address translation */
	if (a64_insn_is_sys(insn))
		return A64_PROBE_XOL;

	return A64_PROBE_REFUSE;
}

/* op0 = x1x0: loads and stores */
static enum a64_probe_action classify_ldst(u32 insn,
					   struct arch_probe_insn *api)
{
	if ((insn & A64_LDR_LIT_MASK) == A64_LDR_LIT_VAL) {
		if (!(insn & A64_LDR_LIT_V))
			return simulate(api, aarch64_insn_is_prfm_lit(insn) ?
					a64_sim_nop : a64_sim_load_lit);
		/* opc 3 with V set is unallocated */
		if (FIELD_GET(GENMASK(31, 30), insn) == 3)
			return A64_PROBE_REFUSE;
		return simulate(api, a64_sim_load_lit_fp);
	}

	/*
	 * An exclusive pair cannot be split by the probe's exceptions: the
	 * exception return clears the monitor and the store always fails.
	 */
	if (aarch64_insn_is_exclusive(insn))
		return A64_PROBE_REFUSE;

	/* cpyp/cpym/cpye, setp/setm/sete must run back to back */
	if (aarch64_insn_is_mops(insn))
		return A64_PROBE_REFUSE;

	return A64_PROBE_XOL;
}

/**
 * a64_probe_classify() - decide how a probe handles one instruction
 * @insn: the A64 instruction
 * @api: where the emulation handler is recorded
 *
 * Looks at the instruction only; a64_kprobe_classify() adds the checks
 * that need its surroundings.
 *
 * Return: the &enum a64_probe_action for @insn.  For A64_PROBE_SIMULATE,
 * @api->handler is set.
 */
enum a64_probe_action a64_probe_classify(u32 insn, struct arch_probe_insn *api)
{
	api->handler = NULL;

	switch (FIELD_GET(A64_OP0, insn)) {
	case 0x8:
	case 0x9:		/* data processing, immediate */
		if (aarch64_insn_is_adr_adrp(insn))
			return simulate(api, a64_sim_pcrel_addr);
		return A64_PROBE_XOL;
	case 0xa:
	case 0xb:		/* branches, exceptions, system */
		return classify_branch_sys(insn, api);
	case 0x4:
	case 0x6:
	case 0xc:
	case 0xe:		/* loads and stores */
		return classify_ldst(insn, api);
	case 0x5:
	case 0xd:		/* data processing, register */
	case 0x7:
	case 0xf:		/* scalar FP and Advanced SIMD */
	case 0x2:		/* SVE */
		return A64_PROBE_XOL;
	default:		/* reserved, SME, unallocated */
		return A64_PROBE_REFUSE;
	}
}

/* Longest stretch scanned back for an open exclusive sequence. */
#define A64_EXCL_SCAN_MAX	256

/*
 * Is @addr between a load-exclusive and its store-exclusive?  Walk back
 * to the start of the function: the first exclusive access met decides.
 * A probe there would clear the exclusive monitor on every pass and the
 * sequence would retry forever.
 */
static bool inside_exclusive_sequence(u32 *addr)
{
	unsigned long size, offset;
	unsigned int n, i;

	if (kallsyms_lookup_size_offset((unsigned long)addr, &size, &offset))
		n = min_t(unsigned long, offset / AARCH64_INSN_SIZE,
			  A64_EXCL_SCAN_MAX);
	else
		n = 0;

	for (i = 1; i <= n; i++) {
		u32 prev;

		if (aarch64_insn_read(addr - i, &prev))
			return true;	/* cannot tell: be safe */
		if (!aarch64_insn_is_exclusive(prev))
			continue;
		/* the L bit tells ldxr/ldaxr/ldxp from stxr/stlxr/stxp */
		return prev & A64_LDST_L;
	}
	return false;
}

/**
 * a64_kprobe_classify() - decide how a kprobe handles the instruction at @addr
 * @addr: the probed address (word aligned)
 * @api: where the emulation handler is recorded
 *
 * Return: as a64_probe_classify(), and A64_PROBE_REFUSE as well when
 * @addr lies inside a load-exclusive/store-exclusive sequence or cannot
 * be read.
 */
enum a64_probe_action a64_kprobe_classify(u32 *addr,
					  struct arch_probe_insn *api)
{
	enum a64_probe_action action;
	u32 insn;

	if (aarch64_insn_read(addr, &insn))
		return A64_PROBE_REFUSE;

	action = a64_probe_classify(insn, api);
	if (action != A64_PROBE_REFUSE && inside_exclusive_sequence(addr))
		return A64_PROBE_REFUSE;
	/*
	 * With pseudo-NMIs the out-of-line step runs with ICC_PMR_EL1 at
	 * GIC_PRIO_IRQOFF (kprobes.c): a stepped read of it would see the
	 * probe's mask, not the probed code's.  Emulate the read from the
	 * mask the BRK saved.  (Without pseudo-NMIs the step leaves the PMR
	 * alone, and a GICv2 system has no ICC_PMR_EL1 to emulate.)  A
	 * detour buffer runs the instruction with the probed code's mask
	 * back in place: opt.c copies it from a64_probe_classify().
	 */
	if (action == A64_PROBE_XOL && aarch64_insn_is_mrs(insn) &&
	    aarch64_insn_extract_system_reg(insn) == A64_SYSREG(3, 0, 4, 6, 0) &&
	    system_uses_irq_prio_masking())
		return simulate(api, a64_sim_mrs_pmr);
	return action;
}

/**
 * a64_probe_boostable() - may @insn run from a slot with nothing pending
 * @insn: an instruction a64_probe_classify() sends out of line
 *
 * A boosted probe resumes at a copy of the instruction followed by a
 * direct branch back, with the probe already finished: the CPU may be
 * interrupted, preempted or migrated in the slot.  That is fine for any
 * instruction that cannot fault, but a fault in the slot would find no
 * exception table entry for the slot's address, so memory accesses are
 * boosted only when based on SP, and cache maintenance and SVE (whose
 * loads and stores take any base, vector bases included) not at all.
 *
 * Return: true when @insn may be boosted.
 */
bool a64_probe_boostable(u32 insn)
{
	switch (FIELD_GET(A64_OP0, insn)) {
	case 0x4:
	case 0x6:
	case 0xc:
	case 0xe:		/* loads and stores: Rn == 31 is SP */
		return FIELD_GET(GENMASK(9, 5), insn) == 31;
	case 0xa:
	case 0xb:		/* hints, barriers, mrs: not sys/sysl */
		return !a64_insn_is_sys(insn);
	case 0x2:		/* SVE */
		return false;
	default:
		return true;
	}
}

/**
 * a64_bti_target_ok() - may an indirect branch land on @insn
 * @insn: the instruction at the branch target, in a guarded page
 * @btype: PSTATE.BTYPE as the branch left it (PSR_BTYPE_*): 0b01
 *	(PSR_BTYPE_JC) for BR through x16 or x17, or any BR from an
 *	unguarded page; 0b10 (PSR_BTYPE_C) for BLR; 0b11 (PSR_BTYPE_J) for
 *	BR through another register from a guarded page
 * @bt: SCTLR_ELx.BT for the EL that runs @insn
 *
 * The Arm ARM's Branch Target Identification rules: with PSTATE.BTYPE
 * other than 0b00, an instruction in a guarded page that is not
 * compatible with it raises a Branch Target exception instead of
 * executing.  BTI c is compatible with 0b01 and 0b10, BTI j with 0b01 and
 * 0b11, BTI jc with all three, a BTI with no target with none;
 * PACIASP and PACIBSP are an implicit BTI c, and with SCTLR_ELx.BT clear
 * also compatible with 0b11.  BRK and HLT are compatible with anything,
 * but are never probed (a64_probe_classify() refuses them).
 *
 * Return: true when @insn runs, false when it raises a Branch Target
 * exception.
 */
bool a64_bti_target_ok(u32 insn, u64 btype, bool bt)
{
	btype &= PSR_BTYPE_MASK;
	if (btype == PSR_BTYPE_NONE)
		return true;
	if (!aarch64_insn_is_hint(insn))
		return false;
	switch (insn & 0xfe0) {
	case AARCH64_INSN_HINT_BTIC:
		return btype != PSR_BTYPE_J;
	case AARCH64_INSN_HINT_BTIJ:
		return btype != PSR_BTYPE_C;
	case AARCH64_INSN_HINT_BTIJC:
		return true;
	case AARCH64_INSN_HINT_PACIASP:
	case AARCH64_INSN_HINT_PACIBSP:
		return btype != PSR_BTYPE_J || !bt;
	default:
		return false;
	}
}

/**
 * arm_probe_decode_insn() - how a uprobe handles a user instruction
 * @insn: the A64 instruction
 * @api: where the emulation handler is recorded
 *
 * The kprobes classification, less the literal loads: their emulation
 * reads the literal as kernel memory, which a user address is not.
 *
 * Return: INSN_GOOD_NO_SLOT with @api->handler set, INSN_GOOD for a
 * single step out of line, or INSN_REJECTED.
 */
enum probes_insn arm_probe_decode_insn(u32 insn, struct arch_probe_insn *api)
{
	switch (a64_probe_classify(insn, api)) {
	case A64_PROBE_SIMULATE:
		if (api->handler == a64_sim_load_lit ||
		    api->handler == a64_sim_load_lit_fp) {
			api->handler = NULL;
			return INSN_REJECTED;
		}
		return INSN_GOOD_NO_SLOT;
	case A64_PROBE_XOL:
		return INSN_GOOD;
	default:
		return INSN_REJECTED;
	}
}
