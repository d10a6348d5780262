// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the arm64 kprobes port.
 *
 * Each function in test-kprobes-insn.S has one probe point on the
 * instruction under test.  A function is run without a probe and then
 * with one, on a set of inputs chosen to produce every flag combination
 * and both outcomes of every condition; results and NZCV must match, the
 * handlers must run once per call, and the out-of-line step traps
 * counted must show the instruction was emulated (none), stepped (one
 * per hit) or, without a post_handler, boosted (none).  Refused
 * instructions must fail registration with their errno.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/limits.h>
#include <linux/vmalloc.h>

#include <asm/neon.h>
#include <asm/simd.h>

#include "test-kprobes-arm64.h"

/*
 * EMULATED: no out-of-line step trap.  STEPPED: one per hit.  BOOSTED: one
 * per hit with a post_handler, none without.
 */
enum kpa64_how { EMULATED, STEPPED, BOOSTED };

struct kpa64_case {
	const char *name;
	kpa64_fn_t fn;
	const unsigned long *at;
	enum kpa64_how how;
	bool fp;
};

#define EMU(n)		{ #n, kpa64_##n, &kpa64_##n##_at, EMULATED, false }
#define EMU_FP(n)	{ #n, kpa64_##n, &kpa64_##n##_at, EMULATED, true }
#define XOL(n)		{ #n, kpa64_##n, &kpa64_##n##_at, STEPPED, false }
#define BOOST(n)	{ #n, kpa64_##n, &kpa64_##n##_at, BOOSTED, false }

static const struct kpa64_case kpa64_cases[] = {
	EMU(adr), EMU(adr_back), EMU(adrp),
	EMU(b), EMU(bl),
	EMU(bcond_eq), EMU(bcond_ne), EMU(bcond_cs), EMU(bcond_cc),
	EMU(bcond_mi), EMU(bcond_pl), EMU(bcond_vs), EMU(bcond_vc),
	EMU(bcond_hi), EMU(bcond_ls), EMU(bcond_ge), EMU(bcond_lt),
	EMU(bcond_gt), EMU(bcond_le), EMU(bcond_al),
	EMU(cbz_x), EMU(cbz_w), EMU(cbnz_x), EMU(cbnz_w),
	EMU(tbz_3), EMU(tbnz_3), EMU(tbz_40), EMU(tbnz_40),
	EMU(br), EMU(blr), EMU(blr_lr), EMU(ret), EMU(ret_x3),
	EMU(ldr_w), EMU(ldr_x), EMU(ldrsw), EMU(ldr_back), EMU(prfm),
	EMU_FP(ldr_s), EMU_FP(ldr_d), EMU_FP(ldr_q),
	BOOST(adds), BOOST(csel), BOOST(mrs_nzcv), BOOST(stp_pre),
	BOOST(ldr_sp), BOOST(nop), XOL(ldr_reg),
};

/* Inputs giving every NZCV pattern of "cmp a, b" and both branch ways. */
static const u64 kpa64_inputs[][2] = {
	{ 0, 0 },
	{ 1, 2 },
	{ 2, 1 },
	{ -1ULL, 1 },
	{ 1, -1ULL },
	{ (u64)S64_MIN, 1 },
	{ (u64)S64_MAX, -1ULL },
	{ 1ULL << 32, 0 },
	{ 8, 8 },
	{ (1ULL << 40) | 7, 3 },
};

#define KPA64_NR_INPUTS	ARRAY_SIZE(kpa64_inputs)

struct kpa64_result {
	u64 ret;
	u64 out[4];
};

static unsigned long kpa64_pre_hits, kpa64_post_hits, kpa64_bad_pc;

static int kpa64_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpa64_pre_hits++;
	if (instruction_pointer(regs) != (unsigned long)p->addr)
		kpa64_bad_pc++;
	return 0;
}

static void kpa64_post(struct kprobe *p, struct pt_regs *regs,
		       unsigned long flags)
{
	kpa64_post_hits++;
}

static void kpa64_run(const struct kpa64_case *c, const u64 in[2],
		      struct kpa64_result *r)
{
	memset(r, 0, sizeof(*r));
	if (c->fp) {
		kernel_neon_begin();
		r->ret = c->fn(in[0], in[1], r->out);
		kernel_neon_end();
	} else {
		r->ret = c->fn(in[0], in[1], r->out);
	}
}

/* Run @c on every input: results and flags must match @plain's. */
static void kpa64_run_all(struct kunit *test, const struct kpa64_case *c,
			  const struct kpa64_result *plain)
{
	struct kpa64_result probed;
	unsigned int i;

	for (i = 0; i < KPA64_NR_INPUTS; i++) {
		kpa64_run(c, kpa64_inputs[i], &probed);
		KUNIT_EXPECT_EQ_MSG(test, probed.ret, plain[i].ret,
				    "%s(%llx, %llx): result", c->name,
				    kpa64_inputs[i][0], kpa64_inputs[i][1]);
		KUNIT_EXPECT_EQ_MSG(test, probed.out[0], plain[i].out[0],
				    "%s(%llx, %llx): NZCV", c->name,
				    kpa64_inputs[i][0], kpa64_inputs[i][1]);
		KUNIT_EXPECT_EQ_MSG(test, probed.out[1], plain[i].out[1],
				    "%s: out[1]", c->name);
		KUNIT_EXPECT_EQ_MSG(test, probed.out[2], plain[i].out[2],
				    "%s: out[2]", c->name);
	}
}

/*
 * Run every input with a probe on @c (with or without a post_handler)
 * and compare with @plain.  Return the out-of-line step traps taken.
 */
static unsigned long kpa64_probed_pass(struct kunit *test,
				       const struct kpa64_case *c,
				       const struct kpa64_result *plain,
				       bool with_post)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)*c->at,
		.pre_handler = kpa64_pre,
		.post_handler = with_post ? kpa64_post : NULL,
	};
	unsigned long traps;

	kpa64_pre_hits = 0;
	kpa64_post_hits = 0;
	kpa64_bad_pc = 0;
	if (register_kprobe(&kp)) {
		KUNIT_FAIL(test, "%s: cannot register", c->name);
		return 0;
	}
	KUNIT_EXPECT_PTR_EQ_MSG(test, kp.addr, (kprobe_opcode_t *)*c->at,
				"%s: probe moved", c->name);

	traps = kprobe_step_traps();
	kpa64_run_all(test, c, plain);
	traps = kprobe_step_traps() - traps;
	unregister_kprobe(&kp);

	KUNIT_EXPECT_EQ_MSG(test, kpa64_pre_hits, KPA64_NR_INPUTS,
			    "%s: pre_handler calls", c->name);
	KUNIT_EXPECT_EQ_MSG(test, kpa64_post_hits,
			    with_post ? KPA64_NR_INPUTS : 0,
			    "%s: post_handler calls", c->name);
	KUNIT_EXPECT_EQ_MSG(test, kpa64_bad_pc, 0, "%s: pc in pre_handler",
			    c->name);
	KUNIT_EXPECT_EQ_MSG(test, kp.nmissed, 0, "%s: missed", c->name);
	return traps;
}

static void kpa64_check_case(struct kunit *test, const struct kpa64_case *c)
{
	struct kpa64_result plain[KPA64_NR_INPUTS];
	unsigned long traps;
	unsigned int i;

	for (i = 0; i < KPA64_NR_INPUTS; i++)
		kpa64_run(c, kpa64_inputs[i], &plain[i]);

	traps = kpa64_probed_pass(test, c, plain, true);
	KUNIT_EXPECT_EQ_MSG(test, traps,
			    c->how == EMULATED ? 0 : KPA64_NR_INPUTS,
			    "%s: step traps with a post_handler", c->name);

	traps = kpa64_probed_pass(test, c, plain, false);
	KUNIT_EXPECT_EQ_MSG(test, traps,
			    c->how == STEPPED ? KPA64_NR_INPUTS : 0,
			    "%s: step traps without a post_handler", c->name);
}

static void kpa64_case_desc(const struct kpa64_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpa64_insn, kpa64_cases, kpa64_case_desc);

static void kprobes_arm64_insn(struct kunit *test)
{
	kpa64_check_case(test, test->param_value);
}

/* The emulated loads against values known without the hardware. */
static void kprobes_arm64_literal_values(struct kunit *test)
{
	static const struct {
		kpa64_fn_t fn;
		u64 ret, out1, out2;
	} want[] = {
		{ kpa64_ldr_w, 0x80000002, 0, 0 },
		{ kpa64_ldr_x, 0x8000000180000002, 0, 0 },
		{ kpa64_ldrsw, 0xffffffff80000001, 0, 0 },
		{ kpa64_ldr_back, 0x1122334455667788, 0, 0 },
	};
	u64 out[4];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		memset(out, 0, sizeof(out));
		KUNIT_EXPECT_EQ(test, want[i].fn(0, 0, out), want[i].ret);
	}
}

/* Refused instructions fail with their errno; their neighbours do not. */
static void kprobes_arm64_refused(struct kunit *test)
{
	static const struct {
		const char *what;
		const unsigned long *at;
		int err;
	} cases[] = {
		{ "ldxr", &kpa64_ref_ldxr_at, -EINVAL },
		{ "inside ldxr/stxr", &kpa64_ref_in_excl_at, -EINVAL },
		{ "stxr", &kpa64_ref_stxr_at, -EINVAL },
		{ "after stxr", &kpa64_ok_after_excl_at, 0 },
		{ "brk", &kpa64_ref_brk_at, -EINVAL },
		{ "svc", &kpa64_ref_svc_at, -EINVAL },
		{ "hvc", &kpa64_ref_hvc_at, -EINVAL },
		{ "eret", &kpa64_ref_eret_at, -EINVAL },
		{ "msr daifset", &kpa64_ref_msr_daifset_at, -EINVAL },
		{ "msr tpidr_el1", &kpa64_ref_msr_reg_at, -EINVAL },
		{ "mrs daif", &kpa64_ref_mrs_daif_at, -EINVAL },
		{ "mrs elr_el1", &kpa64_ref_mrs_elr_at, -EINVAL },
		{ "retaa", &kpa64_ref_retaa_at, -EINVAL },
		{ "udf", &kpa64_ref_udf_at, -EINVAL },
		{ "wfi", &kpa64_ref_wfi_at, -EINVAL },
		{ "mrs sp_el0", &kpa64_ok_mrs_sp_el0_at, 0 },
		{ "ldar", &kpa64_ok_ldar_at, 0 },
		{ "after ldar", &kpa64_ok_after_ldar_at, 0 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kprobe kp = {
			.addr = (kprobe_opcode_t *)*cases[i].at,
			.pre_handler = kpa64_pre,
		};
		int ret = register_kprobe(&kp);

		KUNIT_EXPECT_EQ_MSG(test, ret, cases[i].err, "%s", cases[i].what);
		if (!ret)
			unregister_kprobe(&kp);
	}
}

static void kprobes_arm64_misaligned(struct kunit *test)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)(kpa64_nop_at + 2),
		.pre_handler = kpa64_pre,
	};

	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EILSEQ);
}

/*
 * A probe hit from inside another probe's handler: its handlers are
 * skipped (nmissed), but its instruction still runs, emulated, boosted
 * or stepped, and the outer probe carries on.
 */
static struct kprobe kpa64_inner_xol, kpa64_inner_emu, kpa64_inner_step;
static u64 kpa64_inner_ret[3];

static int kpa64_outer_pre(struct kprobe *p, struct pt_regs *regs)
{
	u64 out[4];

	kpa64_inner_ret[0] = kpa64_nop(1, 2, out);
	kpa64_inner_ret[1] = kpa64_b(3, 4, out);
	kpa64_inner_ret[2] = kpa64_ldr_reg(5, 6, out);
	return 0;
}

static void kprobes_arm64_reentry(struct kunit *test)
{
	struct kprobe outer = {
		.addr = (kprobe_opcode_t *)kpa64_adds_at,
		.pre_handler = kpa64_outer_pre,
		.post_handler = kpa64_post,
	};
	u64 out[4];

	memset(&kpa64_inner_xol, 0, sizeof(kpa64_inner_xol));
	memset(&kpa64_inner_emu, 0, sizeof(kpa64_inner_emu));
	memset(&kpa64_inner_step, 0, sizeof(kpa64_inner_step));
	kpa64_inner_step.addr = (kprobe_opcode_t *)kpa64_ldr_reg_at;
	kpa64_inner_step.pre_handler = kpa64_pre;
	kpa64_inner_xol.addr = (kprobe_opcode_t *)kpa64_nop_at;
	kpa64_inner_xol.pre_handler = kpa64_pre;
	kpa64_inner_emu.addr = (kprobe_opcode_t *)kpa64_b_at;
	kpa64_inner_emu.pre_handler = kpa64_pre;

	KUNIT_ASSERT_EQ(test, register_kprobe(&kpa64_inner_xol), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kpa64_inner_emu), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kpa64_inner_step), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&outer), 0);
	kpa64_pre_hits = 0;
	kpa64_post_hits = 0;

	KUNIT_EXPECT_EQ(test, kpa64_adds(40, 2, out), 42);

	unregister_kprobe(&outer);
	unregister_kprobe(&kpa64_inner_step);
	unregister_kprobe(&kpa64_inner_emu);
	unregister_kprobe(&kpa64_inner_xol);

	KUNIT_EXPECT_EQ(test, kpa64_inner_ret[0], 1 + 9);
	KUNIT_EXPECT_EQ(test, kpa64_inner_ret[1], 3 + 2);
	KUNIT_EXPECT_EQ(test, kpa64_inner_ret[2], 5);
	KUNIT_EXPECT_EQ(test, kpa64_pre_hits, 0);
	KUNIT_EXPECT_EQ(test, kpa64_post_hits, 1);
	KUNIT_EXPECT_EQ(test, kpa64_inner_xol.nmissed, 1);
	KUNIT_EXPECT_EQ(test, kpa64_inner_emu.nmissed, 1);
	KUNIT_EXPECT_EQ(test, kpa64_inner_step.nmissed, 1);
	KUNIT_EXPECT_EQ(test, outer.nmissed, 0);
}

static unsigned long kpa64_faults;

static int kpa64_fault(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	kpa64_faults++;
	return 0;
}

/*
 * The copied instruction faults: the fault_handler is told, the fault is
 * moved back to the probed address, where the exception table fixes it
 * up; the probe is left and the post_handler skipped.
 */
static void kprobes_arm64_fault_in_slot(struct kunit *test)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kpa64_fault_load_at,
		.pre_handler = kpa64_pre,
		.post_handler = kpa64_post,
		.fault_handler = kpa64_fault,
	};
	u64 good = 0x1234, out[4] = { };
	unsigned long traps;
	void *area;

	area = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, area);
	kpa64_pre_hits = 0;
	kpa64_post_hits = 0;
	kpa64_faults = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);

	traps = kprobe_step_traps();
	/* the guard page after the area is not mapped */
	KUNIT_EXPECT_EQ(test, kpa64_fault_load(0, (unsigned long)area + PAGE_SIZE, out), 0);
	KUNIT_EXPECT_EQ(test, out[1], (u64)-EFAULT);
	KUNIT_EXPECT_EQ(test, kpa64_pre_hits, 1);
	KUNIT_EXPECT_EQ(test, kpa64_post_hits, 0);
	KUNIT_EXPECT_EQ(test, kpa64_faults, 1);
	KUNIT_EXPECT_EQ(test, kprobe_step_traps() - traps, 0);
	KUNIT_EXPECT_NULL(test, kprobe_running());

	/* and the probe works normally afterwards */
	KUNIT_EXPECT_EQ(test, kpa64_fault_load(0, (unsigned long)&good, out), 0x1234);
	KUNIT_EXPECT_EQ(test, out[1], 0);
	KUNIT_EXPECT_EQ(test, kpa64_pre_hits, 2);
	KUNIT_EXPECT_EQ(test, kpa64_post_hits, 1);
	KUNIT_EXPECT_EQ(test, kpa64_faults, 1);

	unregister_kprobe(&kp);
	vfree(area);
}

#ifdef CONFIG_OPTPROBES
/*
 * Jump optimization: a probe on an instruction that can be copied or
 * relocated becomes a B to its detour buffer.  Its hits take no BRK, see
 * the probed address and leave results and flags as without a probe.
 */
static const struct kpa64_case kpa64_opt_cases[] = {
	BOOST(adds), BOOST(csel), BOOST(mrs_nzcv), BOOST(stp_pre),
	BOOST(ldr_sp), BOOST(nop),
	EMU(adr), EMU(adr_back), EMU(adrp), EMU(b), EMU(bl),
	EMU(bcond_eq), EMU(bcond_hi), EMU(bcond_lt), EMU(bcond_al),
	EMU(cbz_x), EMU(cbnz_w), EMU(tbz_3), EMU(tbnz_40),
	EMU(br), EMU(ret), EMU(ret_x3),
};

static bool kpa64_site_optimized(void *addr)
{
	struct kprobe *site;
	bool ret;

	rcu_read_lock();
	site = get_kprobe(addr);
	ret = site && kprobe_optimized(site);
	rcu_read_unlock();
	return ret;
}

static void kpa64_opt_check_case(struct kunit *test, const struct kpa64_case *c)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)*c->at,
		.pre_handler = kpa64_pre,
	};
	struct kpa64_result plain[KPA64_NR_INPUTS];
	unsigned long brks, traps;
	unsigned int i;

	for (i = 0; i < KPA64_NR_INPUTS; i++)
		kpa64_run(c, kpa64_inputs[i], &plain[i]);

	kpa64_pre_hits = 0;
	kpa64_bad_pc = 0;
	KUNIT_ASSERT_EQ_MSG(test, register_kprobe(&kp), 0, "%s", c->name);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE_MSG(test, kpa64_site_optimized(kp.addr),
			      "%s: not optimized", c->name);

	/* BRK hits are counted per CPU: stay on this one */
	migrate_disable();
	brks = this_cpu_read(kprobe_brk_count);
	traps = kprobe_step_traps();
	kpa64_run_all(test, c, plain);
	/* no exception at all */
	brks = this_cpu_read(kprobe_brk_count) - brks;
	traps = kprobe_step_traps() - traps;
	migrate_enable();
	KUNIT_EXPECT_EQ_MSG(test, brks, 0, "%s: BRK hits", c->name);
	KUNIT_EXPECT_EQ_MSG(test, traps, 0, "%s: step traps", c->name);
	unregister_kprobe(&kp);

	KUNIT_EXPECT_EQ_MSG(test, kpa64_pre_hits, KPA64_NR_INPUTS,
			    "%s: pre_handler calls", c->name);
	KUNIT_EXPECT_EQ_MSG(test, kpa64_bad_pc, 0, "%s: pc in pre_handler",
			    c->name);
	KUNIT_EXPECT_EQ_MSG(test, kp.nmissed, 0, "%s: missed", c->name);
}

KUNIT_ARRAY_PARAM(kpa64_opt, kpa64_opt_cases, kpa64_case_desc);

static void kprobes_arm64_optimized(struct kunit *test)
{
	kpa64_opt_check_case(test, test->param_value);
}

/* Skip the adds: x0 = 42 and the pc after it, from the pre_handler. */
static int kpa64_skip_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpa64_pre_hits++;
	regs->regs[0] = 42;
	instruction_pointer_set(regs, (unsigned long)p->addr + 4);
	return 1;
}

/*
 * A pre_handler of an optimized probe moves the pc: the detour buffer
 * resumes where it says, with the registers it set.  Optimization off:
 * back to the BRK, and on again.
 */
static void kprobes_arm64_optimized_ip_change(struct kunit *test)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kpa64_adds_at,
		.pre_handler = kpa64_skip_pre,
	};
	unsigned long brks;
	u64 out[4], ret;

	kpa64_pre_hits = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpa64_site_optimized(kp.addr));
	migrate_disable();
	brks = this_cpu_read(kprobe_brk_count);
	ret = kpa64_adds(1, 2, out);
	brks = this_cpu_read(kprobe_brk_count) - brks;
	migrate_enable();
	KUNIT_EXPECT_EQ(test, ret, 42);
	KUNIT_EXPECT_EQ(test, brks, 0);
	KUNIT_EXPECT_EQ(test, kpa64_pre_hits, 1);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpa64_adds(1, 2, out), 3);
}
#endif

static struct kunit_case kprobes_arm64_cases[] = {
	KUNIT_CASE_PARAM(kprobes_arm64_insn, kpa64_insn_gen_params),
	KUNIT_CASE(kprobes_arm64_literal_values),
	KUNIT_CASE(kprobes_arm64_refused),
	KUNIT_CASE(kprobes_arm64_misaligned),
	KUNIT_CASE(kprobes_arm64_reentry),
	KUNIT_CASE(kprobes_arm64_fault_in_slot),
#ifdef CONFIG_OPTPROBES
	KUNIT_CASE_PARAM(kprobes_arm64_optimized, kpa64_opt_gen_params),
	KUNIT_CASE(kprobes_arm64_optimized_ip_change),
#endif
	{}
};

static struct kunit_suite kprobes_arm64_suite = {
	.name = "kprobes_arm64",
	.test_cases = kprobes_arm64_cases,
};

kunit_test_suite(kprobes_arm64_suite);

MODULE_DESCRIPTION("KUnit tests of the arm64 kprobes port");
MODULE_LICENSE("GPL");
