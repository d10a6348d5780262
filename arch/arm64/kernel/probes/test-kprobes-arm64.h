/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The probed functions of test-kprobes-insn.S, for the kprobes_arm64
 * KUnit suite: u64 kpa64_<name>(u64 a, u64 b, u64 out[4]) and the
 * address of its probe point, kpa64_<name>_at.
 */
#ifndef _ARM64_KERNEL_KPROBES_TEST_H
#define _ARM64_KERNEL_KPROBES_TEST_H

#include <linux/atomic.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/rcupdate.h>
#include <linux/stacktrace.h>
#include <linux/types.h>
#include <kunit/test.h>

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

/*
 * Whether the caller, a handler, runs under the probe BRK's handler
 * (kprobe_brk_handler()): its stack trace goes through it.  The detour
 * buffer of an optimized probe calls the handlers from the probed code.
 */
static inline bool kpa64_under_brk(void)
{
	unsigned long entries[16], size, off;
	unsigned int i, n;

	n = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	for (i = 0; i < n; i++)
		if (kallsyms_lookup_size_offset(entries[i], &size, &off) &&
		    entries[i] - off == (unsigned long)kprobe_brk_handler)
			return true;
	return false;
}

/*
 * The BRKs that end out-of-line steps, counted while a suite whose
 * suite_init is kpa64_watch_steps() runs (kprobe_set_step_trap_hook()).
 */
static atomic_long_t kpa64_traps;

static void kpa64_step_trapped(struct kprobe *p)
{
	atomic_long_inc(&kpa64_traps);
}

static inline unsigned long kpa64_step_traps(void)
{
	return atomic_long_read(&kpa64_traps);
}

static inline int kpa64_watch_steps(struct kunit_suite *suite)
{
	kprobe_set_step_trap_hook(kpa64_step_trapped);
	return 0;
}

static inline void kpa64_unwatch_steps(struct kunit_suite *suite)
{
	kprobe_set_step_trap_hook(NULL);
	synchronize_rcu();
}

#endif /* _ARM64_KERNEL_KPROBES_TEST_H */
