/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The probed functions of test-kprobes-insn.S, for the kprobes_arm64
 * KUnit suite: u64 kpa64_<name>(u64 a, u64 b, u64 out[4]) and the
 * address of its probe point, kpa64_<name>_at.
 */
#ifndef _ARM64_KERNEL_KPROBES_TEST_H
#define _ARM64_KERNEL_KPROBES_TEST_H

#include <linux/types.h>

typedef u64 (*kpa64_fn_t)(u64 a, u64 b, u64 *out);

#define KPA64_FN(name)						\
	u64 kpa64_##name(u64 a, u64 b, u64 *out);		\
	extern const unsigned long kpa64_##name##_at

#define KPA64_POINT(name)	extern const unsigned long kpa64_##name##_at

KPA64_FN(adr); KPA64_FN(adr_back); KPA64_FN(adrp);
KPA64_FN(b); KPA64_FN(bl);
KPA64_FN(bcond_eq); KPA64_FN(bcond_ne); KPA64_FN(bcond_cs);
KPA64_FN(bcond_cc); KPA64_FN(bcond_mi); KPA64_FN(bcond_pl);
KPA64_FN(bcond_vs); KPA64_FN(bcond_vc); KPA64_FN(bcond_hi);
KPA64_FN(bcond_ls); KPA64_FN(bcond_ge); KPA64_FN(bcond_lt);
KPA64_FN(bcond_gt); KPA64_FN(bcond_le); KPA64_FN(bcond_al);
KPA64_FN(cbz_x); KPA64_FN(cbz_w); KPA64_FN(cbnz_x); KPA64_FN(cbnz_w);
KPA64_FN(tbz_3); KPA64_FN(tbnz_3); KPA64_FN(tbz_40); KPA64_FN(tbnz_40);
KPA64_FN(br); KPA64_FN(blr); KPA64_FN(blr_lr); KPA64_FN(ret);
KPA64_FN(ret_x3);
KPA64_FN(ldr_w); KPA64_FN(ldr_x); KPA64_FN(ldrsw); KPA64_FN(ldr_back);
KPA64_FN(prfm); KPA64_FN(ldr_s); KPA64_FN(ldr_d); KPA64_FN(ldr_q);
KPA64_FN(adds); KPA64_FN(csel); KPA64_FN(mrs_nzcv); KPA64_FN(stp_pre);
KPA64_FN(ldr_sp); KPA64_FN(nop); KPA64_FN(ldr_reg);
KPA64_FN(fault_load); KPA64_FN(fault_load_nx); KPA64_FN(ldadd);
KPA64_FN(bti_c); KPA64_FN(paciasp); KPA64_FN(idle_text);
KPA64_FN(mrs_pmr);
void kpa64_wp_store(u64 *p, u64 v);
KPA64_POINT(wp_store);
KPA64_FN(uload); KPA64_POINT(uload_entry);
KPA64_POINT(fault_load_entry); KPA64_POINT(bti_c_next);
KPA64_POINT(sve_ld1d); KPA64_POINT(sve_st1d);

KPA64_POINT(ref_ldxr); KPA64_POINT(ref_in_excl); KPA64_POINT(ref_stxr);
KPA64_POINT(ok_after_excl); KPA64_POINT(ref_brk); KPA64_POINT(ref_svc);
KPA64_POINT(ref_hvc); KPA64_POINT(ref_eret); KPA64_POINT(ref_msr_daifset);
KPA64_POINT(ref_msr_reg); KPA64_POINT(ref_mrs_daif);
KPA64_POINT(ref_mrs_elr); KPA64_POINT(ref_retaa); KPA64_POINT(ref_udf);
KPA64_POINT(ref_wfi); KPA64_POINT(ok_mrs_sp_el0); KPA64_POINT(ok_ldar);
KPA64_POINT(ok_after_ldar);

#endif /* _ARM64_KERNEL_KPROBES_TEST_H */
