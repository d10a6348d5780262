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
 * per hit) or boosted, or run from the post copy (none).  Refused
 * instructions must fail registration with their errno.
 */
#include <kunit/test.h>
#include <kunit/static_stub.h>
#include <linux/context_tracking.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/hw_breakpoint.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/sched/clock.h>
#include <linux/limits.h>
#include <linux/mman.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include <linux/cpufeature.h>
#include <asm/debug-monitors.h>
#include <asm/insn.h>
#include <linux/mmu_context.h>
#include <asm/neon.h>
#include <asm/sections.h>
#include <asm/simd.h>
#include <asm/sysreg.h>
#include <asm/virt.h>

#include "decode-insn.h"
#include "hit-context.h"
#include "test-kprobes-arm64.h"

/*
 * EMULATED: no out-of-line step trap.  STEPPED: one per hit.  BOOSTED:
 * none, with a post_handler too (the slot's post copy runs it).
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
	BOOST(ldr_sp), BOOST(nop), XOL(ldr_reg), XOL(ldadd),
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
/* pre_handler calls under the probe BRK's handler (kpa64_under_brk()) */
static unsigned long kpa64_brk_hits;
/* post_handler runs with interrupts on, or off behind lockdep's back */
static unsigned long kpa64_bad_post;

static int kpa64_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpa64_pre_hits++;
	if (kpa64_under_brk())
		kpa64_brk_hits++;
	if (instruction_pointer(regs) != (unsigned long)p->addr)
		kpa64_bad_pc++;
	return 0;
}

static void kpa64_post(struct kprobe *p, struct pt_regs *regs,
		       unsigned long flags)
{
	kpa64_post_hits++;
	/*
	 * As in a BRK handler.  Whether lockdep was told is checked only
	 * with CONFIG_TRACE_IRQFLAGS (the lockdep kernel of make stress
	 * DEBUG=1): elsewhere lockdep_hardirqs_enabled() is a constant 0.
	 * irqs_disabled() is checked in every config.
	 */
	if (!irqs_disabled() ||
	    (IS_ENABLED(CONFIG_TRACE_IRQFLAGS) && lockdep_hardirqs_enabled()) ||
	    kprobe_running() != p)
		kpa64_bad_post++;
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
	kpa64_bad_post = 0;
	if (register_kprobe(&kp)) {
		KUNIT_FAIL(test, "%s: cannot register", c->name);
		return 0;
	}
	KUNIT_EXPECT_PTR_EQ_MSG(test, kp.addr, (kprobe_opcode_t *)*c->at,
				"%s: probe moved", c->name);

	traps = kpa64_step_traps();
	kpa64_run_all(test, c, plain);
	traps = kpa64_step_traps() - traps;
	unregister_kprobe(&kp);

	KUNIT_EXPECT_EQ_MSG(test, kpa64_pre_hits, KPA64_NR_INPUTS,
			    "%s: pre_handler calls", c->name);
	KUNIT_EXPECT_EQ_MSG(test, kpa64_post_hits,
			    with_post ? KPA64_NR_INPUTS : 0,
			    "%s: post_handler calls", c->name);
	KUNIT_EXPECT_EQ_MSG(test, kpa64_bad_pc, 0, "%s: pc in pre_handler",
			    c->name);
	KUNIT_EXPECT_EQ_MSG(test, kpa64_bad_post, 0,
			    "%s: post_handler context", c->name);
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
			    c->how == STEPPED ? KPA64_NR_INPUTS : 0,
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

/*
 * Instructions with an exception table entry (a kernel access that may
 * fault, an unprivileged load of a user address) are refused: their
 * fault must be fixed up where they are, and a user page may have to be
 * read in, which sleeps.  Probes elsewhere in the same functions see
 * the faulting calls normally.
 */
static void kprobes_arm64_extable(struct kunit *test)
{
	struct kprobe kload = {
		.addr = (kprobe_opcode_t *)kpa64_fault_load_at,
		.pre_handler = kpa64_pre,
	};
	struct kprobe uload = {
		.addr = (kprobe_opcode_t *)kpa64_uload_at,
		.pre_handler = kpa64_pre,
	};
	struct kprobe kentry = {
		.addr = (kprobe_opcode_t *)kpa64_fault_load_entry_at,
		.pre_handler = kpa64_pre,
	};
	struct kprobe uentry = {
		.addr = (kprobe_opcode_t *)kpa64_uload_entry_at,
		.pre_handler = kpa64_pre,
	};
	u64 good = 0x1234, out[4] = { };
	unsigned long user, noaccess;
	void *area;

	KUNIT_EXPECT_EQ(test, register_kprobe(&kload), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_kprobe(&uload), -EINVAL);

	area = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, area);
	/* mapped but never touched: not present until the load */
	user = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	noaccess = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_NONE,
				 MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(user) || !user);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(noaccess) || !noaccess);

	kpa64_pre_hits = 0;
	kpa64_bad_pc = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kentry), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&uentry), 0);

	/* the guard page after the area is not mapped */
	KUNIT_EXPECT_EQ(test, kpa64_fault_load(0, (unsigned long)area + PAGE_SIZE, out), 0);
	KUNIT_EXPECT_EQ(test, out[1], (u64)-EFAULT);
	KUNIT_EXPECT_EQ(test, kpa64_fault_load(0, (unsigned long)&good, out), 0x1234);
	KUNIT_EXPECT_EQ(test, out[1], 0);
	out[1] = 1;
	KUNIT_EXPECT_EQ(test, kpa64_uload(0, user, out), 0);
	KUNIT_EXPECT_EQ(test, out[1], 0);
	KUNIT_EXPECT_EQ(test, kpa64_uload(0, noaccess, out), 0);
	KUNIT_EXPECT_EQ(test, out[1], (u64)-EFAULT);

	unregister_kprobe(&uentry);
	unregister_kprobe(&kentry);
	KUNIT_EXPECT_EQ(test, kpa64_pre_hits, 4);
	KUNIT_EXPECT_EQ(test, kpa64_bad_pc, 0);
	KUNIT_EXPECT_EQ(test, kentry.nmissed + uentry.nmissed, 0);
	vfree(area);
}

/*
 * How a fault_handler deals with a fault of the stepped copy: 0 fixes
 * the operand and lets the copy run again, 1 skips the load with x0 set.
 * Either way it first calls a probed function, whose probe is then hit
 * in the middle of this probe's step.
 */
static int kpa64_fix_mode;
static u64 kpa64_good = 0x1234, kpa64_nested_ret;
static struct kprobe kpa64_nested;

static int kpa64_fault_fix(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	u64 out[4];

	kpa64_faults++;
	if (instruction_pointer(regs) != (unsigned long)p->addr)
		kpa64_bad_pc++;
	kpa64_nested_ret = kpa64_ldr_reg(5, 6, out);
	if (kpa64_fix_mode == 0) {
		regs->regs[1] = (u64)&kpa64_good;
	} else {
		regs->regs[0] = 0x77;
		instruction_pointer_set(regs, (unsigned long)p->addr + 4);
	}
	return 1;
}

/*
 * The copied instruction faults.  The fault_handler sees it at the
 * probed address, and a probe hit from it (during this probe's step) is
 * missed, its instruction still run; a fault_handler that returns 1
 * without moving the pc has the copy run again, still as this probe's
 * step (the post_handler follows); one that moves the pc ends the probe
 * there.  Before these fixes the nested hit died with "Oops - BRK" and
 * the unmoved pc left the CPU in the slot with no probe running.
 */
static void kprobes_arm64_fault_in_slot(struct kunit *test)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kpa64_fault_load_nx_at,
		.pre_handler = kpa64_pre,
		.post_handler = kpa64_post,
		.fault_handler = kpa64_fault_fix,
	};
	u64 out[4] = { };
	unsigned long traps, bad;
	void *area;

	area = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, area);
	/* the guard page after the area is not mapped */
	bad = (unsigned long)area + PAGE_SIZE;
	memset(&kpa64_nested, 0, sizeof(kpa64_nested));
	kpa64_nested.addr = (kprobe_opcode_t *)kpa64_ldr_reg_at;
	kpa64_nested.pre_handler = kpa64_pre;
	kpa64_pre_hits = 0;
	kpa64_post_hits = 0;
	kpa64_faults = 0;
	kpa64_bad_pc = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kpa64_nested), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);

	traps = kpa64_step_traps();
	kpa64_fix_mode = 0;
	KUNIT_EXPECT_EQ(test, kpa64_fault_load_nx(0, bad, out), 0x1234);
	KUNIT_EXPECT_EQ(test, kpa64_pre_hits, 1);
	KUNIT_EXPECT_EQ(test, kpa64_post_hits, 1);
	KUNIT_EXPECT_EQ(test, kpa64_faults, 1);
	KUNIT_EXPECT_EQ(test, kpa64_nested.nmissed, 1);
	KUNIT_EXPECT_EQ(test, kpa64_nested_ret, 5);
	/* the retried step and the nested one */
	KUNIT_EXPECT_EQ(test, kpa64_step_traps() - traps, 2);
	KUNIT_EXPECT_NULL(test, kprobe_running());

	kpa64_fix_mode = 1;
	KUNIT_EXPECT_EQ(test, kpa64_fault_load_nx(0, bad, out), 0x77);
	KUNIT_EXPECT_EQ(test, kpa64_pre_hits, 2);
	KUNIT_EXPECT_EQ(test, kpa64_post_hits, 1);
	KUNIT_EXPECT_EQ(test, kpa64_faults, 2);
	KUNIT_EXPECT_EQ(test, kpa64_nested.nmissed, 2);
	KUNIT_EXPECT_NULL(test, kprobe_running());

	/* and the probe works normally afterwards */
	KUNIT_EXPECT_EQ(test, kpa64_fault_load_nx(0, (unsigned long)&kpa64_good, out),
			0x1234);
	KUNIT_EXPECT_EQ(test, kpa64_pre_hits, 3);
	KUNIT_EXPECT_EQ(test, kpa64_post_hits, 2);
	KUNIT_EXPECT_EQ(test, kpa64_faults, 2);
	KUNIT_EXPECT_EQ(test, kpa64_bad_pc, 0);
	KUNIT_EXPECT_EQ(test, kp.nmissed, 0);

	unregister_kprobe(&kp);
	unregister_kprobe(&kpa64_nested);
	vfree(area);
}

/*
 * A pre_handler that moves the pc clears PSTATE.BTYPE: the probe is on a
 * landing pad reached by BLR (BTYPE set at the BRK), and the pc moves
 * past it.  A second probe at the new pc sees the BTYPE that the
 * exception return left: a nonzero one would raise a Branch Target
 * exception there in a guarded page.
 */
static unsigned long kpa64_btype_entry, kpa64_btype_after;

static int kpa64_skip_pad_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpa64_pre_hits++;
	kpa64_btype_entry |= regs->pstate & PSR_BTYPE_MASK;
	/*
	 * What a BLR into guarded text leaves at the BRK, set by hand: a
	 * GCC-built kernel has no guarded text, but a CPU with FEAT_BTI
	 * keeps PSTATE.BTYPE across the exception return and
	 * shows it in the SPSR of the next BRK, so a BTYPE left set would
	 * reach kpa64_btype_pre().
	 */
	regs->pstate |= PSR_BTYPE_C;
	instruction_pointer_set(regs, kpa64_bti_c_next_at);
	return 1;
}

static int kpa64_btype_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpa64_btype_after |= regs->pstate & PSR_BTYPE_MASK;
	return 0;
}

static kpa64_fn_t kpa64_indirect[] = { kpa64_bti_c, kpa64_paciasp };

static void kprobes_arm64_btype(struct kunit *test)
{
	struct kprobe pad = {
		.addr = (kprobe_opcode_t *)kpa64_bti_c_at,
		.pre_handler = kpa64_skip_pad_pre,
	};
	struct kprobe next = {
		.addr = (kprobe_opcode_t *)kpa64_bti_c_next_at,
		.pre_handler = kpa64_btype_pre,
	};
	kpa64_fn_t fn = READ_ONCE(kpa64_indirect[0]);
	u64 out[4];

	kpa64_pre_hits = 0;
	kpa64_btype_entry = 0;
	kpa64_btype_after = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(&next), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&pad), 0);
	KUNIT_EXPECT_EQ(test, fn(40, 2, out), 42);
	unregister_kprobe(&pad);
	unregister_kprobe(&next);
	KUNIT_EXPECT_EQ(test, kpa64_pre_hits, 1);
	KUNIT_EXPECT_EQ(test, next.nmissed, 0);
	KUNIT_EXPECT_EQ(test, kpa64_btype_after, 0);
	/*
	 * A BLR may leave BTYPE set at the BRK (in guarded text always; a
	 * GCC-built kernel has none, CONFIG_ARM64_BTI_KERNEL needs clang):
	 * the pre_handler sees it clear all the same, as on the paths that
	 * take no BRK (kprobes_arm64_ctx reaches it set, this call may
	 * not).  Without FEAT_BTI BTYPE reads as zero anyway.
	 */
	KUNIT_EXPECT_EQ(test, kpa64_btype_entry, 0);
	if (!system_supports_bti())
		kunit_info(test, "no FEAT_BTI: BTYPE is always zero here\n");
}

/* Run in hard interrupt context (irq_work), see kprobes_arm64_irq() */
struct kpa64_irq_run {
	struct irq_work work;
	const struct kpa64_case *c;
	struct kpa64_result res[KPA64_NR_INPUTS];
	bool hardirq;
};

static void kpa64_irq_fn(struct irq_work *work)
{
	struct kpa64_irq_run *run = container_of(work, struct kpa64_irq_run, work);
	unsigned int i;

	run->hardirq = in_hardirq();
	for (i = 0; i < KPA64_NR_INPUTS; i++)
		kpa64_run(run->c, kpa64_inputs[i], &run->res[i]);
}

/*
 * Each class of instruction (emulated, stepped, boosted, optimized) hit
 * from hard interrupt context: exact hit counts, unchanged results.
 */
static void kprobes_arm64_irq(struct kunit *test)
{
	const struct kpa64_case *c = test->param_value;
	struct kpa64_result plain[KPA64_NR_INPUTS];
	struct kpa64_irq_run *run;
	unsigned int i, pass;

	run = kunit_kzalloc(test, sizeof(*run), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, run);
	run->c = c;
	for (i = 0; i < KPA64_NR_INPUTS; i++)
		kpa64_run(c, kpa64_inputs[i], &plain[i]);

	for (pass = 0; pass < 2; pass++) {
		struct kprobe kp = {
			.addr = (kprobe_opcode_t *)*c->at,
			.pre_handler = kpa64_pre,
			.post_handler = pass ? NULL : kpa64_post,
		};

		kpa64_pre_hits = 0;
		kpa64_post_hits = 0;
		kpa64_bad_pc = 0;
		KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
		/* without a post_handler: optimized where it can be */
		if (pass)
			wait_for_kprobe_optimizer();
		init_irq_work(&run->work, kpa64_irq_fn);
		run->hardirq = false;
		irq_work_queue(&run->work);
		irq_work_sync(&run->work);
		unregister_kprobe(&kp);

		KUNIT_EXPECT_TRUE(test, run->hardirq);
		for (i = 0; i < KPA64_NR_INPUTS; i++) {
			KUNIT_EXPECT_EQ_MSG(test, run->res[i].ret, plain[i].ret,
					    "%s: result", c->name);
			KUNIT_EXPECT_EQ_MSG(test, run->res[i].out[0], plain[i].out[0],
					    "%s: NZCV", c->name);
			KUNIT_EXPECT_EQ_MSG(test, run->res[i].out[1], plain[i].out[1],
					    "%s: out[1]", c->name);
		}
		KUNIT_EXPECT_EQ_MSG(test, kpa64_pre_hits, KPA64_NR_INPUTS,
				    "%s: pre_handler calls", c->name);
		KUNIT_EXPECT_EQ_MSG(test, kpa64_post_hits,
				    pass ? 0 : KPA64_NR_INPUTS,
				    "%s: post_handler calls", c->name);
		KUNIT_EXPECT_EQ(test, kpa64_bad_pc, 0);
		KUNIT_EXPECT_EQ(test, kp.nmissed, 0);
	}
}

/* one of each class; no FP/SIMD (not usable in hard interrupt context) */
static const struct kpa64_case kpa64_irq_cases[] = {
	EMU(adr), EMU(adrp), EMU(bl), EMU(bcond_lt), EMU(cbz_w), EMU(tbnz_40),
	EMU(blr), EMU(ret), EMU(ldr_x), EMU(ldrsw), BOOST(adds),
	BOOST(stp_pre), BOOST(nop), XOL(ldr_reg), XOL(ldadd),
};

KUNIT_ARRAY_PARAM(kpa64_irq, kpa64_irq_cases, kpa64_case_desc);

/* ---------------------------------------------------------------------
 * The post copy: a post_handler without a second BRK
 */

static struct {
	int mode;	/* 0: look; 1: add 1000 to x0; 2: skip the add */
	unsigned long hits, pc, x0, bad;
	bool irqs_off_in_regs;
} kpa64_pc;

static void kpa64_pc_post(struct kprobe *p, struct pt_regs *regs,
			  unsigned long flags)
{
	kpa64_pc.hits++;
	kpa64_pc.pc = instruction_pointer(regs);
	kpa64_pc.x0 = regs->regs[0];
	kpa64_pc.irqs_off_in_regs = !interrupts_enabled(regs);
	/* lockdep told: CONFIG_TRACE_IRQFLAGS only, as in kpa64_post() */
	if (!irqs_disabled() ||
	    (IS_ENABLED(CONFIG_TRACE_IRQFLAGS) && lockdep_hardirqs_enabled()) ||
	    kprobe_running() != p || (regs->pstate & PSR_BTYPE_MASK))
		kpa64_pc.bad++;
	if (kpa64_pc.mode == 1)
		regs->regs[0] += 1000;
	else if (kpa64_pc.mode == 2)
		instruction_pointer_set(regs, instruction_pointer(regs) + 4);
}

/*
 * A boostable instruction (nop, after a cmp whose flags the caller
 * reads) probed with a post_handler: no step trap; the post_handler sees
 * the pc after the instruction, the interrupted interrupt state in its
 * regs (pseudo-NMI runs: the priority mask), everything masked and
 * itself running; its register and pc changes take effect; the flags
 * and the caller's interrupt state (DAIF or the priority mask) are back
 * after it.  Before the post copy, each hit took a second BRK.
 */
static void kprobes_arm64_post_copy(struct kunit *test)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kpa64_nop_at,
		.pre_handler = kpa64_pre,
		.post_handler = kpa64_pc_post,
	};
	unsigned long traps, a = kpa64_nop_at;
	u64 out[4], plain[4], ret;

	memset(&kpa64_pc, 0, sizeof(kpa64_pc));
	kpa64_nop(1, 2, plain);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);

	traps = kpa64_step_traps();
	KUNIT_EXPECT_EQ(test, kpa64_nop(1, 2, out), 10);
	KUNIT_EXPECT_EQ(test, out[0], plain[0]);
	KUNIT_EXPECT_EQ(test, kpa64_pc.pc, a + 4);
	KUNIT_EXPECT_EQ(test, kpa64_pc.x0, 1);
	KUNIT_EXPECT_FALSE(test, kpa64_pc.irqs_off_in_regs);
	KUNIT_EXPECT_FALSE(test, irqs_disabled());

	/* interrupts off at the probe: still off after */
	local_irq_disable();
	ret = kpa64_nop(1, 2, out);
	KUNIT_EXPECT_TRUE(test, irqs_disabled());
	local_irq_enable();
	KUNIT_EXPECT_EQ(test, ret, 10);
	KUNIT_EXPECT_TRUE(test, kpa64_pc.irqs_off_in_regs);

	kpa64_pc.mode = 1;
	KUNIT_EXPECT_EQ(test, kpa64_nop(1, 2, out), 1010);
	kpa64_pc.mode = 2;
	KUNIT_EXPECT_EQ(test, kpa64_nop(1, 2, out), 1);
	KUNIT_EXPECT_EQ(test, out[0], plain[0]);
	KUNIT_EXPECT_EQ(test, kpa64_pc.hits, 4);
	KUNIT_EXPECT_EQ(test, kpa64_pc.bad, 0);
	KUNIT_EXPECT_EQ(test, kpa64_step_traps() - traps, 0);
	KUNIT_EXPECT_EQ(test, kp.nmissed, 0);
	KUNIT_EXPECT_NULL(test, kprobe_running());
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpa64_nop(1, 2, out), 10);
}

/*
 * SVE loads and stores may fault with any base register: never boosted
 * (the slot ends with the step BRK, not a branch back) nor optimized.
 */
static void kprobes_arm64_sve(struct kunit *test)
{
	const unsigned long *ats[] = { &kpa64_sve_ld1d_at, &kpa64_sve_st1d_at };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ats); i++) {
		struct kprobe kp = {
			.addr = (kprobe_opcode_t *)*ats[i],
			.pre_handler = kpa64_pre,
		};
		struct kprobe *site;
		u32 back = 0;
		bool opt = false;

		KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
		wait_for_kprobe_optimizer();
		rcu_read_lock();
		site = get_kprobe(kp.addr);
		if (site && site->ainsn.api.insn) {
			back = le32_to_cpu((__force __le32)site->ainsn.api.insn[3]);
			opt = kprobe_optimized(site);
		}
		rcu_read_unlock();
		unregister_kprobe(&kp);
		KUNIT_EXPECT_EQ_MSG(test, back, BRK64_OPCODE_KPROBES_SS,
				    "SVE %u: boosted", i);
		KUNIT_EXPECT_FALSE_MSG(test, opt, "SVE %u: optimized", i);
	}
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
	u32 orig = READ_ONCE(*(u32 *)kp.addr), now;
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

	brks = kpa64_brk_hits;
	traps = kpa64_step_traps();
	kpa64_run_all(test, c, plain);
	/* no exception at all */
	brks = kpa64_brk_hits - brks;
	traps = kpa64_step_traps() - traps;
	KUNIT_EXPECT_EQ_MSG(test, brks, 0, "%s: BRK hits", c->name);
	KUNIT_EXPECT_EQ_MSG(test, traps, 0, "%s: step traps", c->name);
	unregister_kprobe(&kp);

	/* The original word straight over the B, and the code as before. */
	now = READ_ONCE(*(u32 *)kp.addr);
	KUNIT_EXPECT_EQ_MSG(test, now, orig, "%s: text after unregistration",
			    c->name);
	kpa64_run_all(test, c, plain);
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

/*
 * A batch unregistration of optimized probes writes every original word
 * straight over its B in one text update (arch_disarm_optimized_kprobes()):
 * the text is as before and the code runs as before, with no handler.
 */
static void kprobes_arm64_opt_batch(struct kunit *test)
{
	const struct kpa64_case *c = &kpa64_opt_cases[0];	/* adds */
	const struct kpa64_case *d = &kpa64_opt_cases[6];	/* adr */
	struct kprobe kp1 = {
		.addr = (kprobe_opcode_t *)*c->at,
		.pre_handler = kpa64_pre,
	};
	struct kprobe kp2 = {
		.addr = (kprobe_opcode_t *)*d->at,
		.pre_handler = kpa64_pre,
	};
	struct kprobe *kps[] = { &kp1, &kp2 };
	struct kpa64_result plain_c[KPA64_NR_INPUTS], plain_d[KPA64_NR_INPUTS];
	u32 orig1 = READ_ONCE(*(u32 *)kp1.addr);
	u32 orig2 = READ_ONCE(*(u32 *)kp2.addr);
	unsigned int i;
	u32 now1, now2;

	for (i = 0; i < KPA64_NR_INPUTS; i++) {
		kpa64_run(c, kpa64_inputs[i], &plain_c[i]);
		kpa64_run(d, kpa64_inputs[i], &plain_d[i]);
	}
	kpa64_pre_hits = 0;
	KUNIT_ASSERT_EQ(test, register_kprobes(kps, ARRAY_SIZE(kps)), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpa64_site_optimized(kp1.addr));
	KUNIT_EXPECT_TRUE(test, kpa64_site_optimized(kp2.addr));
	kpa64_run_all(test, c, plain_c);
	kpa64_run_all(test, d, plain_d);
	KUNIT_EXPECT_EQ(test, kpa64_pre_hits, 2 * KPA64_NR_INPUTS);
	unregister_kprobes(kps, ARRAY_SIZE(kps));

	now1 = READ_ONCE(*(u32 *)kp1.addr);
	now2 = READ_ONCE(*(u32 *)kp2.addr);
	KUNIT_EXPECT_EQ(test, now1, orig1);
	KUNIT_EXPECT_EQ(test, now2, orig2);
	kpa64_run_all(test, c, plain_c);
	kpa64_run_all(test, d, plain_d);
	KUNIT_EXPECT_EQ(test, kpa64_pre_hits, 2 * KPA64_NR_INPUTS);
	KUNIT_EXPECT_EQ(test, kp1.nmissed + kp2.nmissed, 0UL);
}

/*
 * Never a B over a landing pad (bti c, paciasp): an indirect call to the
 * function would land on the B, which in a guarded page raises a Branch
 * Target exception.  The probes keep their BRK; calls through a pointer
 * work and are counted.  (A GCC-built kernel cannot have
 * CONFIG_ARM64_BTI_KERNEL, so its text is not guarded and the exception
 * itself cannot be shown here: the test checks the refusal.)
 */
static void kprobes_arm64_opt_landing_pads(struct kunit *test)
{
	const unsigned long *ats[] = { &kpa64_bti_c_at, &kpa64_paciasp_at };
	unsigned int i, n;

	for (i = 0; i < ARRAY_SIZE(ats); i++) {
		struct kprobe kp = {
			.addr = (kprobe_opcode_t *)*ats[i],
			.pre_handler = kpa64_pre,
		};
		kpa64_fn_t fn = READ_ONCE(kpa64_indirect[i]);
		u64 out[4];

		kpa64_pre_hits = 0;
		kpa64_bad_pc = 0;
		KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
		wait_for_kprobe_optimizer();
		KUNIT_EXPECT_FALSE_MSG(test, kpa64_site_optimized(kp.addr),
				       "pad %u optimized", i);
		for (n = 0; n < 3; n++)
			KUNIT_EXPECT_EQ(test, fn(n, 40, out), n + 40);
		unregister_kprobe(&kp);
		KUNIT_EXPECT_EQ(test, kpa64_pre_hits, 3);
		KUNIT_EXPECT_EQ(test, kpa64_bad_pc, 0);
	}
}

/* For kprobes_arm64_opt_idle_text: no blacklist, for this test's thread. */
static bool kpa64_no_blacklist(unsigned long addr)
{
	return false;
}

/*
 * cpuidle text is not optimized: RCU may not be watching there, and a
 * hit through the detour buffer takes no exception that would make it.
 * The kernel links .cpuidle.text inside the noinstr text, so the
 * blacklist refuses a probe there first (-EINVAL, asserted), and the
 * optimizer's own refusal is reached only past it.  So, deterministic:
 * arch_prepare_optimized_kprobe() is asked for the probe point in
 * cpuidle text and for the same instruction (a nop after a cmp) in
 * ordinary text, -EOPNOTSUPP for the first and a buffer for the second;
 * then, the blacklist stubbed out for this test's thread (a KUnit static
 * stub of within_kprobe_blacklist()), a probe in cpuidle text registers,
 * the optimizer leaves it a BRK, and it hits; the same probe in ordinary
 * text is optimized.
 */
static void kprobes_arm64_opt_idle_text(struct kunit *test)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kpa64_idle_text_at,
		.pre_handler = kpa64_pre,
	};
	struct kprobe plain = {
		.addr = (kprobe_opcode_t *)kpa64_nop_at,
		.pre_handler = kpa64_pre,
	};
	struct kprobe fake = {};
	struct optimized_kprobe op = { .kp = &fake };
	u64 out[4];
	int ret;

	KUNIT_ASSERT_TRUE(test, cpu_in_idle(kpa64_idle_text_at));
	KUNIT_ASSERT_FALSE(test, cpu_in_idle(kpa64_nop_at));
	fake.opcode = le32_to_cpu(*(__le32 *)kpa64_idle_text_at);
	KUNIT_ASSERT_EQ(test, fake.opcode,
			le32_to_cpu(*(__le32 *)kpa64_nop_at));
	fake.addr = (kprobe_opcode_t *)kpa64_idle_text_at;
	KUNIT_EXPECT_EQ(test, arch_prepare_optimized_kprobe(&op), -EOPNOTSUPP);
	KUNIT_EXPECT_NULL(test, op.optinsn.buf);
	if (op.optinsn.buf)
		arch_remove_optimized_kprobe(&op);
	fake.addr = (kprobe_opcode_t *)kpa64_nop_at;
	KUNIT_EXPECT_EQ(test, arch_prepare_optimized_kprobe(&op), 0);
	if (op.optinsn.buf)
		arch_remove_optimized_kprobe(&op);

	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EINVAL);
	kunit_activate_static_stub(test, within_kprobe_blacklist,
				   kpa64_no_blacklist);
	ret = register_kprobe(&kp);
	kunit_deactivate_static_stub(test, within_kprobe_blacklist);
	KUNIT_ASSERT_EQ(test, ret, 0);
	wait_for_kprobe_optimizer();
	kpa64_pre_hits = 0;
	kpa64_bad_pc = 0;
	KUNIT_EXPECT_FALSE(test, kpa64_site_optimized(kp.addr));
	KUNIT_EXPECT_EQ(test, kpa64_idle_text(1, 2, out), 10);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpa64_pre_hits, 1);

	KUNIT_ASSERT_EQ(test, register_kprobe(&plain), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpa64_site_optimized(plain.addr));
	KUNIT_EXPECT_EQ(test, kpa64_nop(1, 2, out), 10);
	unregister_kprobe(&plain);
	KUNIT_EXPECT_EQ(test, kpa64_pre_hits, 2);
	KUNIT_EXPECT_EQ(test, kpa64_bad_pc, 0);
}

/* Skip the adds: x0 = 42 and the pc after it, from the pre_handler. */
static int kpa64_skip_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpa64_pre_hits++;
	if (kpa64_under_brk())
		kpa64_brk_hits++;
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
	brks = kpa64_brk_hits;
	ret = kpa64_adds(1, 2, out);
	brks = kpa64_brk_hits - brks;
	KUNIT_EXPECT_EQ(test, ret, 42);
	KUNIT_EXPECT_EQ(test, brks, 0);
	KUNIT_EXPECT_EQ(test, kpa64_pre_hits, 1);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpa64_adds(1, 2, out), 3);
}
#endif

#ifdef CONFIG_OPTPROBES
static unsigned long kpa64_regs_irqs_on;

static int kpa64_skip_irqs_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (interrupts_enabled(regs))
		kpa64_regs_irqs_on++;
	return kpa64_skip_pre(p, regs);
}

/* The interrupt masking state: DAIF, and the priority mask with pseudo-NMIs */
static void kpa64_irq_state(u64 *daif, u64 *pmr)
{
	*daif = read_sysreg(daif);
	*pmr = system_uses_irq_prio_masking() ?
	       read_sysreg_s(SYS_ICC_PMR_EL1) : 0;
}

/*
 * An optimized probe whose pre_handler moves the pc, hit with interrupts
 * off: its pt_regs show them off, and they are still off, masked as
 * before (DAIF and, with irqchip.gicv3_pseudo_nmi=1, where
 * local_irq_save() masks through the priority mask, PMR), after it.
 * kunit-pnmi.sh runs this suite with pseudo-NMIs.
 */
static void kprobes_arm64_opt_irqs_off(struct kunit *test)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kpa64_adds_at,
		.pre_handler = kpa64_skip_irqs_pre,
	};
	u64 daif[2], pmr[2], out[4], ret;
	unsigned long flags;
	bool off;

	kunit_info(test, "pseudo-NMIs %s\n",
		   system_uses_irq_prio_masking() ? "on" : "off");
	kpa64_pre_hits = 0;
	kpa64_regs_irqs_on = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpa64_site_optimized(kp.addr));

	local_irq_save(flags);
	kpa64_irq_state(&daif[0], &pmr[0]);
	ret = kpa64_adds(1, 2, out);
	kpa64_irq_state(&daif[1], &pmr[1]);
	off = irqs_disabled();
	local_irq_restore(flags);
	unregister_kprobe(&kp);

	KUNIT_EXPECT_EQ(test, ret, 42);
	KUNIT_EXPECT_EQ(test, kpa64_pre_hits, 1);
	KUNIT_EXPECT_EQ(test, kpa64_regs_irqs_on, 0);
	KUNIT_EXPECT_TRUE(test, off);
	KUNIT_EXPECT_EQ(test, daif[1], daif[0]);
	KUNIT_EXPECT_EQ(test, pmr[1], pmr[0]);
}
#endif

/*
 * Handlers always run with RCU watching, even when the probed code runs
 * where it does not (cpuidle paths, between ct_idle_enter() and
 * ct_idle_exit()).  A BRK makes RCU watch on exception entry; the paths
 * that take no exception must see to it themselves, and do as the
 * exception entry does: an NMI-like RCU section (ct_nmi_enter(), see
 * hit-context.h) around the kretprobe return's handlers, the post
 * copy's post_handlers and an optimized probe's pre_handlers, which
 * must neither skip their handlers nor count a miss there.  The calls
 * below run in such a window on
 * purpose; nothing in it may print or take locks.  Without
 * CONFIG_CONTEXT_TRACKING_IDLE (Tiny RCU) RCU always watches.
 */
static unsigned long kpa64_rcu_hits, kpa64_rcu_unwatched;

static int kpa64_rcu_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpa64_rcu_hits++;
	if (!rcu_is_watching())
		kpa64_rcu_unwatched++;
	return 0;
}

static int kpa64_rcu_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return kpa64_rcu_pre(NULL, regs);
}

static void kpa64_rcu_post(struct kprobe *p, struct pt_regs *regs,
			   unsigned long flags)
{
	kpa64_rcu_pre(p, regs);
}

/* Call @fn(a, b) with RCU not watching; false if RCU watched anyway. */
static bool kpa64_call_unwatched(kpa64_fn_t fn, u64 a, u64 b, u64 *ret)
{
	u64 out[4];
	bool watching;

	local_irq_disable();
	ct_idle_enter();
	watching = rcu_is_watching();
	*ret = fn(a, b, out);
	ct_idle_exit();
	local_irq_enable();
	return !watching;
}

/* Call the probed kpa64_bti_c unwatched: @hits handler calls, all watched. */
static void kpa64_rcu_bti_c(struct kunit *test, unsigned long hits)
{
	u64 ret;

	kpa64_rcu_hits = 0;
	kpa64_rcu_unwatched = 0;
	KUNIT_EXPECT_TRUE(test, kpa64_call_unwatched(kpa64_bti_c, 40, 2, &ret));
	KUNIT_EXPECT_EQ(test, ret, 42);
	KUNIT_EXPECT_EQ(test, kpa64_rcu_hits, hits);
	KUNIT_EXPECT_EQ(test, kpa64_rcu_unwatched, 0);
}

static void kprobes_arm64_rcu_not_watching(struct kunit *test)
{
	struct kretprobe rp = {
		/* a landing pad first: the entry keeps its BRK */
		.kp.addr = (kprobe_opcode_t *)kpa64_bti_c,
		.handler = kpa64_rcu_ret,
		.maxactive = 4,
	};

	if (!IS_ENABLED(CONFIG_CONTEXT_TRACKING_IDLE))
		kunit_skip(test, "RCU watches everywhere without CONTEXT_TRACKING_IDLE");

	if (IS_ENABLED(CONFIG_KRETPROBES)) {
		KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
		kpa64_rcu_bti_c(test, 1);
		unregister_kretprobe(&rp);
		KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	}

	{
		/*
		 * A post_handler on a BRK (the landing pad is never
		 * optimized), run from the slot's post copy: RCU watches
		 * there too.
		 */
		struct kprobe kp = {
			.addr = (kprobe_opcode_t *)kpa64_bti_c,
			.pre_handler = kpa64_rcu_pre,
			.post_handler = kpa64_rcu_post,
		};

		KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
		/* pre and post */
		kpa64_rcu_bti_c(test, 2);
		unregister_kprobe(&kp);
		KUNIT_EXPECT_EQ(test, kp.nmissed, 0);
	}

#ifdef CONFIG_OPTPROBES
	{
		struct kprobe kp = {
			.addr = (kprobe_opcode_t *)kpa64_nop_at,
			.pre_handler = kpa64_rcu_pre,
		};
		u64 out[4], ret;

		kpa64_rcu_hits = 0;
		kpa64_rcu_unwatched = 0;
		KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
		wait_for_kprobe_optimizer();
		KUNIT_EXPECT_TRUE(test, kpa64_site_optimized(kp.addr));
		KUNIT_EXPECT_EQ(test, kpa64_nop(1, 2, out), 10);
		KUNIT_EXPECT_TRUE(test, kpa64_call_unwatched(kpa64_nop, 1, 2, &ret));
		KUNIT_EXPECT_EQ(test, ret, 10);
		KUNIT_EXPECT_EQ(test, kpa64_nop(1, 2, out), 10);
		unregister_kprobe(&kp);
		/* every call, the handler always with RCU watching */
		KUNIT_EXPECT_EQ(test, kpa64_rcu_hits, 3);
		KUNIT_EXPECT_EQ(test, kpa64_rcu_unwatched, 0);
		KUNIT_EXPECT_EQ(test, kp.nmissed, 0);
	}
#endif
}

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_ARGS
/*
 * A C function starts with its patchable ftrace entry: "mov x9, x30",
 * written once when ftrace starts, then the "bl" ftrace turns on and off.
 * A probe on the function's symbol sits on the mov and is the entry
 * (KPROBE_FLAG_ON_FUNC_ENTRY: BPF's bpf_get_func_ip() returns kp->addr,
 * which tools take for the function's address); the bl is ftrace's
 * (-EINVAL); the next instruction is the
 * body, not the entry.  ftrace traces the function at the same time: a
 * kprobe at the entry, one in the body, a kretprobe (with KRETPROBES) and
 * the ftrace callback each see every call, through BRKs and, once optimized,
 * through the detour buffers; the kretprobe sees the return value.
 */
static int kpa64_traced_calls;

/*
 * __noipa: the compiler must not learn what it touches (then it would
 * keep the counters below in registers across calls: it cannot see the
 * handlers and the ftrace callback that change them).
 */
static noinline __used __noipa int kpa64_traced(int x)
{
	WRITE_ONCE(kpa64_traced_calls, kpa64_traced_calls + 1);
	return x * 3 + 2;
}

static unsigned long kpa64_ftrace_hits, kpa64_ret_hits;
static long kpa64_ret_value;

static void kpa64_ftrace_cb(unsigned long ip, unsigned long parent_ip,
			    struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	kpa64_ftrace_hits++;
}

static struct ftrace_ops kpa64_fops = {
	.func = kpa64_ftrace_cb,
};

static int kpa64_traced_ret(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	kpa64_ret_hits++;
	kpa64_ret_value = regs_return_value(regs);
	return 0;
}

static void kprobes_arm64_ftrace_entry(struct kunit *test)
{
	unsigned long f = (unsigned long)kpa64_traced;
	/* the bl (public API only: this suite may be a module) */
	unsigned long site = f + AARCH64_INSN_SIZE;
	struct kprobe entry = {
		.symbol_name = "kpa64_traced",
		.pre_handler = kpa64_pre,
	};
	struct kprobe on_site = {
		.addr = (kprobe_opcode_t *)site,
		.pre_handler = kpa64_pre,
	};
	struct kprobe body = {
		.addr = (kprobe_opcode_t *)(site + AARCH64_INSN_SIZE),
		.pre_handler = kpa64_pre,
	};
	struct kretprobe rp = {
		.kp.symbol_name = "kpa64_traced",
		.handler = kpa64_traced_ret,
	};
	bool kret = IS_ENABLED(CONFIG_KRETPROBES);
	int round;

	/* ftrace has a record there (-ENOENT otherwise) */
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(&kpa64_fops, site, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, register_kprobe(&on_site), -EINVAL);
	KUNIT_ASSERT_EQ(test, register_kprobe(&entry), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)entry.addr, f);
	KUNIT_EXPECT_TRUE(test, entry.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
	KUNIT_EXPECT_EQ(test, register_kprobe(&body), 0);
	KUNIT_EXPECT_FALSE(test, body.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
	if (kret) {
		/* no kretprobe in the body */
		rp.kp.offset = 2 * AARCH64_INSN_SIZE;
		KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -EINVAL);
		rp.kp.offset = 0;
		KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), 0);
	}
	KUNIT_EXPECT_EQ(test, register_ftrace_function(&kpa64_fops), 0);

	/* as armed (BRKs), then as the optimizer leaves them */
	for (round = 0; round < 2; round++) {
		if (round)
			wait_for_kprobe_optimizer();
		kpa64_pre_hits = 0;
		kpa64_bad_pc = 0;
		kpa64_ftrace_hits = 0;
		kpa64_ret_hits = 0;
		kpa64_ret_value = 0;
		KUNIT_EXPECT_EQ(test, kpa64_traced(round + 4), 3 * (round + 4) + 2);
		KUNIT_EXPECT_EQ(test, kpa64_traced(5), 17);
		KUNIT_EXPECT_EQ_MSG(test, READ_ONCE(kpa64_pre_hits), 4,
				    "round %d", round);
		KUNIT_EXPECT_EQ_MSG(test, READ_ONCE(kpa64_bad_pc), 0,
				    "round %d", round);
		KUNIT_EXPECT_EQ_MSG(test, READ_ONCE(kpa64_ftrace_hits), 2,
				    "round %d", round);
		KUNIT_EXPECT_EQ_MSG(test, READ_ONCE(kpa64_ret_hits), kret ? 2 : 0,
				    "round %d", round);
		KUNIT_EXPECT_EQ_MSG(test, READ_ONCE(kpa64_ret_value), kret ? 17 : 0,
				    "round %d", round);
	}
#ifdef CONFIG_OPTPROBES
	/* the mov and the body's first instruction are both optimizable */
	KUNIT_EXPECT_TRUE(test, kpa64_site_optimized(entry.addr));
	KUNIT_EXPECT_TRUE(test, kpa64_site_optimized(body.addr));
#endif
	if (kret)
		unregister_kretprobe(&rp);
	unregister_kprobe(&body);
	unregister_kprobe(&entry);
	KUNIT_EXPECT_EQ(test, entry.nmissed + body.nmissed + rp.nmissed, 0);

	/* ftrace alone again */
	kpa64_pre_hits = 0;
	kpa64_ftrace_hits = 0;
	KUNIT_EXPECT_EQ(test, kpa64_traced(1), 5);
	KUNIT_EXPECT_EQ(test, READ_ONCE(kpa64_pre_hits), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(kpa64_ftrace_hits), 1);
	unregister_ftrace_function(&kpa64_fops);
	ftrace_free_filter(&kpa64_fops);
}
#endif

#if defined(CONFIG_OPTPROBES) && defined(CONFIG_SMP) && \
	IS_BUILTIN(CONFIG_KPROBES_SANITY_TEST)
/*
 * An NMI-like hit: the CPU backtrace IPI, which is a pseudo-NMI when the
 * kernel runs with irqchip.gicv3_pseudo_nmi=1 (kunit-pnmi.sh), is sent
 * while an optimized probe's pre_handler runs.  The handler runs with
 * everything masked, as in a BRK's debug exception:
 * no pseudo-NMI nests in it, where its faults would be given to the
 * running probe (kprobe_page_fault()).  The IPI is taken once the
 * pre_handler is done, NMI or not, and its handler hits the probed
 * show_regs() normally.  (Before item 4 the detour masked as
 * local_irq_save() does, through the priority mask with pseudo-NMIs,
 * and the NMI got in: a reentry, counted in nmissed.)
 * (arch_trigger_cpumask_backtrace() is not exported: built-in only.)
 */
static struct kprobe kpa64_nmi_inner;
static int kpa64_nmi_cpu = -1;
static bool kpa64_nmi_waiting, kpa64_nmi_sent;
static unsigned long kpa64_nmi_outer_hits, kpa64_nmi_inner_hits;
static unsigned long kpa64_nmi_missed_in_handler;

static int kpa64_nmi_inner_pre(struct kprobe *p, struct pt_regs *regs)
{
	WRITE_ONCE(kpa64_nmi_inner_hits, kpa64_nmi_inner_hits + 1);
	return 0;
}

/* Wait, interrupts masked, for the NMI's reentry (up to half a second). */
static int kpa64_nmi_outer_pre(struct kprobe *p, struct pt_regs *regs)
{
	u64 end = local_clock() + 500 * NSEC_PER_MSEC;

	WRITE_ONCE(kpa64_nmi_outer_hits, kpa64_nmi_outer_hits + 1);
	WRITE_ONCE(kpa64_nmi_waiting, true);
	while (!READ_ONCE(kpa64_nmi_inner.nmissed) && local_clock() < end)
		cpu_relax();
	WRITE_ONCE(kpa64_nmi_missed_in_handler,
		   READ_ONCE(kpa64_nmi_inner.nmissed));
	WRITE_ONCE(kpa64_nmi_waiting, false);
	return 0;
}

/* On the other CPU: send the backtrace IPI once the handler waits. */
static int kpa64_nmi_sender(void *unused)
{
	unsigned int i;

	for (i = 0; i < 10000 && !READ_ONCE(kpa64_nmi_waiting); i++)
		usleep_range(100, 200);
	if (READ_ONCE(kpa64_nmi_waiting))
		arch_trigger_cpumask_backtrace(cpumask_of(kpa64_nmi_cpu), -1);
	WRITE_ONCE(kpa64_nmi_sent, true);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void kprobes_arm64_nmi_in_handler(struct kunit *test)
{
	struct kprobe outer = {
		.addr = (kprobe_opcode_t *)kpa64_nop_at,
		.pre_handler = kpa64_nmi_outer_pre,
	};
	bool pnmi = system_uses_irq_prio_masking();
	struct task_struct *sender;
	unsigned int i;
	u64 out[4];
	int other;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second CPU");
	memset(&kpa64_nmi_inner, 0, sizeof(kpa64_nmi_inner));
	kpa64_nmi_inner.symbol_name = "show_regs";
	kpa64_nmi_inner.pre_handler = kpa64_nmi_inner_pre;
	kpa64_nmi_outer_hits = 0;
	kpa64_nmi_inner_hits = 0;
	kpa64_nmi_missed_in_handler = 0;
	kpa64_nmi_waiting = false;
	kpa64_nmi_sent = false;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kpa64_nmi_inner), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&outer), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpa64_site_optimized(outer.addr));

	migrate_disable();
	kpa64_nmi_cpu = smp_processor_id();
	other = cpumask_any_but(cpu_online_mask, kpa64_nmi_cpu);
	sender = kthread_create(kpa64_nmi_sender, NULL, "kpa64_nmi");
	if (IS_ERR(sender)) {
		migrate_enable();
		unregister_kprobe(&outer);
		unregister_kprobe(&kpa64_nmi_inner);
		KUNIT_FAIL(test, "no sender thread: %ld", PTR_ERR(sender));
		return;
	}
	kthread_bind(sender, other);
	wake_up_process(sender);
	KUNIT_EXPECT_EQ(test, kpa64_nop(1, 2, out), 10);
	migrate_enable();
	/* the IPI was sent, and taken after the handler */
	for (i = 0; i < 2000 && !(READ_ONCE(kpa64_nmi_sent) &&
				  (READ_ONCE(kpa64_nmi_inner_hits) ||
				   READ_ONCE(kpa64_nmi_inner.nmissed))); i++)
		usleep_range(5000, 10000);
	kthread_stop(sender);
	unregister_kprobe(&outer);
	unregister_kprobe(&kpa64_nmi_inner);

	KUNIT_EXPECT_TRUE(test, READ_ONCE(kpa64_nmi_sent));
	KUNIT_EXPECT_EQ(test, READ_ONCE(kpa64_nmi_outer_hits), 1);
	KUNIT_EXPECT_EQ(test, outer.nmissed, 0);
	/* after the handler, a hit of its own */
	KUNIT_EXPECT_EQ_MSG(test, READ_ONCE(kpa64_nmi_missed_in_handler), 0,
			    "NMI in the handler (pseudo-NMIs %s)",
			    pnmi ? "on" : "off");
	KUNIT_EXPECT_EQ(test, kpa64_nmi_inner.nmissed, 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(kpa64_nmi_inner_hits), 1);
}
#endif

/*
 * A return handler's pt_regs are as complete as a BRK's
 * (see hit-context.h): the priority mask in pmr_save (pseudo-NMIs), PAN,
 * DIT, SSBS and TCO in pstate, orig_x0 = x0 and syscallno = NO_SYSCALL.
 * A BRK probe on a landing pad (never optimized) records its fields,
 * the return through the trampoline, called from the same context, must
 * show the same.  A trampoline that left pmr_save, orig_x0 and syscallno
 * as they were on the stack (filled with a pattern here first), or
 * pstate without PAN, fails it.
 */
#define KPA64_EXC_PSTATE	(PSR_MODE_MASK | DAIF_MASK | PSR_PAN_BIT | \
				 PSR_DIT_BIT | PSR_SSBS_BIT | PSR_TCO_BIT)

struct kpa64_regs_seen {
	unsigned long hits;
	u64 pstate, pmr, orig_x0, x0;
	s32 syscallno;
};

static struct kpa64_regs_seen kpa64_seen_brk, kpa64_seen_ret;

static void kpa64_record(struct kpa64_regs_seen *s, struct pt_regs *regs)
{
	s->hits++;
	s->pstate = regs->pstate & KPA64_EXC_PSTATE;
	s->pmr = regs->pmr_save;
	s->orig_x0 = regs->orig_x0;
	s->x0 = regs->regs[0];
	s->syscallno = regs->syscallno;
}

static int kpa64_record_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpa64_record(&kpa64_seen_brk, regs);
	return 0;
}

static int kpa64_record_ret(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	kpa64_record(&kpa64_seen_ret, regs);
	return 0;
}

/* Leave a pattern where the trampoline's pt_regs will be laid. */
static noinline void kpa64_dirty_stack(void)
{
	u8 junk[1024];

	memset(junk, 0xa5, sizeof(junk));
	barrier_data(junk);
}

static void kpa64_check_seen(struct kunit *test, const char *what,
			     const struct kpa64_regs_seen *brk,
			     const struct kpa64_regs_seen *s)
{
	KUNIT_EXPECT_EQ_MSG(test, s->hits, 1, "%s: hits", what);
	KUNIT_EXPECT_EQ_MSG(test, s->pstate, brk->pstate,
			    "%s: pstate as an exception saves it", what);
	if (system_uses_irq_prio_masking())
		KUNIT_EXPECT_EQ_MSG(test, s->pmr, brk->pmr, "%s: pmr_save", what);
	KUNIT_EXPECT_EQ_MSG(test, s->orig_x0, s->x0, "%s: orig_x0", what);
	KUNIT_EXPECT_EQ_MSG(test, s->syscallno, NO_SYSCALL, "%s: syscallno",
			    what);
}

static void kprobes_arm64_kretprobe_regs(struct kunit *test)
{
	unsigned long flags;
	unsigned int pass;
	u64 out[4];

	if (!IS_ENABLED(CONFIG_KRETPROBES))
		kunit_skip(test, "no kretprobes in this configuration");
	/* the mode differs: EL1h, or EL2h with VHE */
	kunit_info(test, "kernel at EL%d\n", is_kernel_in_hyp_mode() ? 2 : 1);
	/* interrupts on, then off: pstate and the priority mask differ */
	for (pass = 0; pass < 2; pass++) {
		/* a function of its own: the kretprobe's site stays apart */
		struct kprobe entry = {
			.addr = (kprobe_opcode_t *)kpa64_paciasp_at,
			.pre_handler = kpa64_record_pre,
		};
		struct kretprobe rp = {
			.kp.addr = (kprobe_opcode_t *)kpa64_bti_c,
			.handler = kpa64_record_ret,
			.maxactive = 4,
		};
		const char *what[2][2] = {
			{ "BRK", "return" }, { "BRK, irqs off", "return, irqs off" },
		};

		memset(&kpa64_seen_brk, 0, sizeof(kpa64_seen_brk));
		memset(&kpa64_seen_ret, 0, sizeof(kpa64_seen_ret));
		/* the BRK at the entry, then the return, one call each */
		KUNIT_ASSERT_EQ(test, register_kprobe(&entry), 0);
		kpa64_dirty_stack();
		if (pass)
			local_irq_save(flags);
		KUNIT_EXPECT_EQ(test, kpa64_paciasp(40, 2, out), 42);
		if (pass)
			local_irq_restore(flags);
		unregister_kprobe(&entry);
		KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
		kpa64_dirty_stack();
		if (pass)
			local_irq_save(flags);
		KUNIT_EXPECT_EQ(test, kpa64_bti_c(40, 2, out), 42);
		if (pass)
			local_irq_restore(flags);
		unregister_kretprobe(&rp);
		KUNIT_EXPECT_EQ(test, rp.nmissed + entry.nmissed, 0);

		kpa64_check_seen(test, what[pass][0], &kpa64_seen_brk,
				 &kpa64_seen_brk);
		kpa64_check_seen(test, what[pass][1], &kpa64_seen_brk,
				 &kpa64_seen_ret);
		KUNIT_EXPECT_EQ(test, kpa64_seen_ret.x0, 42);
	}
	if (system_uses_hw_pan() || system_uses_ttbr0_pan())
		KUNIT_EXPECT_NE(test, kpa64_seen_ret.pstate & PSR_PAN_BIT, 0);
}

/*
 * Slot and detour pages are read-only through every
 * mapping, their linear-map alias included (with rodata_full,
 * set_memory_ro() changes that alias too; a ROX vmalloc mapping alone
 * does not).  A write of the word already there through the alias must
 * fault.
 */
static void kpa64_check_alias(struct kunit *test, const char *what,
			      void *addr)
{
	struct page *page = vmalloc_to_page(addr);
	void *alias;
	u32 word;

	KUNIT_ASSERT_NOT_NULL_MSG(test, page, "%s: not vmalloc memory", what);
	alias = page_address(page) + offset_in_page(addr);
	KUNIT_ASSERT_EQ(test, copy_from_kernel_nofault(&word, alias, sizeof(word)), 0);
	KUNIT_EXPECT_NE_MSG(test, copy_to_kernel_nofault(alias, &word, sizeof(word)), 0,
			    "%s: linear alias writable", what);
	KUNIT_EXPECT_NE_MSG(test, copy_to_kernel_nofault(addr, &word, sizeof(word)), 0,
			    "%s: writable", what);
}

static void kprobes_arm64_slot_alias(struct kunit *test)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kpa64_ldr_reg_at,
		.pre_handler = kpa64_pre,
	};
	struct kprobe *site;
	void *slot = NULL;

#if IS_BUILTIN(CONFIG_KPROBES_SANITY_TEST)
	if (!rodata_full)
		kunit_skip(test, "rodata=full is off: the linear map is not kept read-only");
#endif
	/* a stepped instruction: never optimized, always a slot */
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	rcu_read_lock();
	site = get_kprobe(kp.addr);
	if (site)
		slot = site->ainsn.api.insn;
	rcu_read_unlock();
	KUNIT_EXPECT_NOT_NULL(test, slot);
	if (slot)
		kpa64_check_alias(test, "slot", slot);
	unregister_kprobe(&kp);

#ifdef CONFIG_OPTPROBES
	{
		struct kprobe opt = {
			.addr = (kprobe_opcode_t *)kpa64_adds_at,
			.pre_handler = kpa64_pre,
		};
		u32 b;

		KUNIT_ASSERT_EQ(test, register_kprobe(&opt), 0);
		wait_for_kprobe_optimizer();
		KUNIT_EXPECT_TRUE(test, kpa64_site_optimized(opt.addr));
		b = le32_to_cpu(READ_ONCE(*(__le32 *)opt.addr));
		/* B <buffer>: imm26 words from the probed address */
		if (aarch64_insn_is_b(b))
			kpa64_check_alias(test, "detour buffer",
					  (void *)kpa64_adds_at +
					  sign_extend64(b & GENMASK(25, 0), 25) * 4);
		else
			KUNIT_FAIL(test, "no B at the optimized site: %08x", b);
		unregister_kprobe(&opt);
	}
#endif
}

/*
 * With pseudo-NMIs, "mrs xN, ICC_PMR_EL1" (the first
 * half of every local_irq_save()) probed must read the probed code's
 * priority mask: GIC_PRIO_IRQON with interrupts on, GIC_PRIO_IRQOFF
 * with them off.  Each way a BRK probe may run it: with a post_handler
 * (the post copy, once), with the slot's boosted and post copies made
 * unreachable (the step, BRK to BRK), and boosted.  Run from a slot, the
 * first two would read the step's GIC_PRIO_IRQOFF: the read is emulated
 * from pmr_save and there is no slot (nothing to force: the case says
 * so).
 */
static void kpa64_force_unboosted(struct kunit *test, struct kprobe *kp)
{
	static const __le32 brk = cpu_to_le32(BRK64_OPCODE_KPROBES_SS);
	kprobe_opcode_t *slot = NULL;
	struct kprobe *site;

	rcu_read_lock();
	site = get_kprobe(kp->addr);
	if (site)
		slot = site->ainsn.api.insn;
	rcu_read_unlock();
	if (!slot) {
		kunit_info(test, "emulated: no slot to force unboosted\n");
		return;
	}
	/* the words after the boosted and the post copy (see kprobes.c) */
	KUNIT_EXPECT_EQ(test, arch_write_insn_slot(slot + 3, &brk, 4), 0);
	KUNIT_EXPECT_EQ(test, arch_write_insn_slot(slot + 5, &brk, 4), 0);
}

static void kprobes_arm64_mrs_pmr(struct kunit *test)
{
	static const char * const how[] = {
		"post_handler", "unboosted slot", "boosted or optimized",
	};
	unsigned long flags;
	unsigned int pass;
	u64 out[4], on, off;

	if (!system_uses_irq_prio_masking())
		kunit_skip(test, "needs pseudo-NMIs (kunit-pnmi.sh)");
	for (pass = 0; pass < ARRAY_SIZE(how); pass++) {
		struct kprobe kp = {
			.addr = (kprobe_opcode_t *)kpa64_mrs_pmr_at,
			.pre_handler = kpa64_pre,
			.post_handler = pass ? NULL : kpa64_post,
		};

		kpa64_pre_hits = 0;
		kpa64_post_hits = 0;
		kpa64_bad_pc = 0;
		kpa64_bad_post = 0;
		KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
		if (pass == 1)
			kpa64_force_unboosted(test, &kp);
		if (pass == 2)
			wait_for_kprobe_optimizer();
		on = kpa64_mrs_pmr(1, 2, out);
		local_irq_save(flags);
		off = kpa64_mrs_pmr(1, 2, out);
		local_irq_restore(flags);
		unregister_kprobe(&kp);

		KUNIT_EXPECT_EQ_MSG(test, on, GIC_PRIO_IRQON, "%s: irqs on",
				    how[pass]);
		KUNIT_EXPECT_EQ_MSG(test, off, GIC_PRIO_IRQOFF, "%s: irqs off",
				    how[pass]);
		KUNIT_EXPECT_EQ_MSG(test, kpa64_pre_hits, 2, "%s", how[pass]);
		KUNIT_EXPECT_EQ_MSG(test, kpa64_post_hits, pass ? 0 : 2, "%s",
				    how[pass]);
		KUNIT_EXPECT_EQ_MSG(test, kpa64_bad_pc + kpa64_bad_post, 0,
				    "%s", how[pass]);
	}
}

/*
 * A stepped load that takes a fault the kernel recovers from hits its
 * probe once: pre_handler, fault_handler (which declines) and
 * post_handler once each, and the load's value.  A fault presented at
 * the probed address would make the kernel resume there, at the BRK,
 * and run the pre_handler twice.
 *
 * The fault: a load of a user page not mapped yet (its neighbours are,
 * so the PTE table exists), inside a uaccess window, which
 * do_page_fault() resolves by mapping the zero page, silently.  The
 * recoverable faults of kernel addresses (a spurious translation fault,
 * a KFENCE report) go the same way through slot_fault(), but print a
 * warning or a report, which would fail the run: not shown here.
 */
static unsigned long kpa64_declined_faults;

static int kpa64_decline_fault(struct kprobe *p, struct pt_regs *regs,
			       int trapnr)
{
	kpa64_declined_faults++;
	if (instruction_pointer(regs) != (unsigned long)p->addr)
		kpa64_bad_pc++;
	return 0;
}

static void kprobes_arm64_fault_recovered(struct kunit *test)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kpa64_fault_load_nx_at,
		.pre_handler = kpa64_pre,
		.post_handler = kpa64_post,
		.fault_handler = kpa64_decline_fault,
	};
	u64 out[4] = { }, one = 1, ret;
	unsigned long user;

	user = kunit_vm_mmap(test, NULL, 0, 3 * PAGE_SIZE,
			     PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(user) || !user);
	KUNIT_ASSERT_EQ(test, put_user(one, (u64 __user *)user), 0);
	KUNIT_ASSERT_EQ(test, put_user(one, (u64 __user *)(user + 2 * PAGE_SIZE)), 0);

	kpa64_pre_hits = 0;
	kpa64_post_hits = 0;
	kpa64_bad_pc = 0;
	kpa64_bad_post = 0;
	kpa64_declined_faults = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	uaccess_enable_privileged();
	ret = kpa64_fault_load_nx(0, user + PAGE_SIZE, out);
	uaccess_disable_privileged();
	unregister_kprobe(&kp);

	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, kpa64_declined_faults, 1);
	KUNIT_EXPECT_EQ(test, kpa64_pre_hits, 1);
	KUNIT_EXPECT_EQ(test, kpa64_post_hits, 1);
	KUNIT_EXPECT_EQ(test, kpa64_bad_pc + kpa64_bad_post, 0);
	KUNIT_EXPECT_EQ(test, kp.nmissed, 0);
	KUNIT_EXPECT_NULL(test, kprobe_running());
}

/*
 * Handlers on the paths without an exception (the
 * optimized detour, the post copy, the kretprobe return) run with
 * everything masked, as in the BRK's debug exception: no watchpoint,
 * pseudo-NMI or SError nests in them.  A fault of such a nested
 * exception would reach the running probe's fault_handler through
 * kprobe_page_fault() (one that returns 1 would make an NMI retry for
 * ever).  The case: a hardware watchpoint whose handler takes a fault
 * (copy_from_kernel_nofault() of a vmalloc guard page), and handlers
 * that write the watched word.  A pre_handler run with only PSTATE.I
 * (or the priority mask) set would let the watchpoint fire inside it,
 * and the fault would reach the probe's fault_handler.
 * Without hardware breakpoints (PERF_EVENTS off), or where the
 * watchpoint does not fire at all (checked outside any handler first),
 * only the DAIF bits in the handlers are checked, and the case says so.
 */
static u64 kpa64_wp_var __aligned(8);
static void *kpa64_wp_bad;
static unsigned long kpa64_wp_hits, kpa64_nested_faults, kpa64_nested_bad_daif;

#ifdef CONFIG_HAVE_HW_BREAKPOINT
static void kpa64_wp_handler(struct perf_event *bp,
			     struct perf_sample_data *data,
			     struct pt_regs *regs)
{
	u64 v;

	kpa64_wp_hits++;
	/* a fault in the nested exception */
	if (!copy_from_kernel_nofault(&v, kpa64_wp_bad, sizeof(v)))
		kpa64_wp_hits += 1000;
	/* skip the store, which would trigger again (nothing steps it) */
	if (instruction_pointer(regs) == kpa64_wp_store_at)
		instruction_pointer_set(regs, kpa64_wp_store_at + 4);
}
#endif

static int kpa64_nested_fault(struct kprobe *p, struct pt_regs *regs,
			      int trapnr)
{
	kpa64_nested_faults++;
	return 0;
}

static void kpa64_nested_touch(void)
{
	if ((read_sysreg(daif) & DAIF_MASK) != DAIF_MASK)
		kpa64_nested_bad_daif++;
	kpa64_wp_store(&kpa64_wp_var, 1);
}

static int kpa64_nested_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpa64_pre_hits++;
	kpa64_nested_touch();
	return 0;
}

static void kpa64_nested_post(struct kprobe *p, struct pt_regs *regs,
			      unsigned long flags)
{
	kpa64_post_hits++;
	kpa64_nested_touch();
}

static int kpa64_nested_rp_ret(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	kpa64_post_hits++;
	kpa64_nested_touch();
	return 0;
}

static void kprobes_arm64_nested_exception(struct kunit *test)
{
	static const char * const how[] = {
		"optimized pre_handler", "post copy", "kretprobe return",
	};
	struct perf_event * __percpu *wp = NULL;
	unsigned long hits;
	unsigned int pass;
	u64 out[4];
	void *area;

	area = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, area);
	/* the guard page after the area is not mapped */
	kpa64_wp_bad = area + PAGE_SIZE;
	kpa64_wp_hits = 0;
#ifdef CONFIG_HAVE_HW_BREAKPOINT
	{
		struct perf_event_attr attr;

		hw_breakpoint_init(&attr);
		attr.bp_addr = (unsigned long)&kpa64_wp_var;
		attr.bp_len = HW_BREAKPOINT_LEN_8;
		attr.bp_type = HW_BREAKPOINT_W;
		wp = register_wide_hw_breakpoint(&attr, kpa64_wp_handler, NULL);
		if (IS_ERR(wp)) {
			kunit_info(test, "no watchpoint: %ld\n", PTR_ERR(wp));
			wp = NULL;
		}
	}
#endif
	if (wp) {
		/* outside any handler: it fires (and its fault is fixed up) */
		kpa64_wp_store(&kpa64_wp_var, 1);
		KUNIT_EXPECT_LE(test, kpa64_wp_hits, 1);
		if (!kpa64_wp_hits)
			kunit_info(test, "the watchpoint does not fire here: DAIF checked only\n");
	} else {
		kunit_info(test, "no hardware watchpoint: DAIF checked only\n");
	}
	hits = kpa64_wp_hits;

	for (pass = 0; pass < ARRAY_SIZE(how); pass++) {
		struct kprobe kp = {
			.addr = (kprobe_opcode_t *)kpa64_nop_at,
			.pre_handler = pass ? kpa64_pre : kpa64_nested_pre,
			.post_handler = pass == 1 ? kpa64_nested_post : NULL,
			.fault_handler = kpa64_nested_fault,
		};
		struct kretprobe rp = {
			.kp.addr = (kprobe_opcode_t *)kpa64_bti_c,
			.handler = kpa64_nested_rp_ret,
			.maxactive = 4,
		};

		kpa64_pre_hits = 0;
		kpa64_post_hits = 0;
		kpa64_nested_faults = 0;
		kpa64_nested_bad_daif = 0;
		if (pass == 2) {
			if (!IS_ENABLED(CONFIG_KRETPROBES))
				break;
			KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
			KUNIT_EXPECT_EQ(test, kpa64_bti_c(40, 2, out), 42);
			unregister_kretprobe(&rp);
			kpa64_pre_hits++;
		} else {
			KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
			/* optimized where it can be (a BRK without OPTPROBES) */
			if (!pass)
				wait_for_kprobe_optimizer();
			KUNIT_EXPECT_EQ(test, kpa64_nop(1, 2, out), 10);
			unregister_kprobe(&kp);
		}
		KUNIT_EXPECT_EQ_MSG(test, kpa64_nested_bad_daif, 0,
				    "%s: DAIF not all masked", how[pass]);
		KUNIT_EXPECT_EQ_MSG(test, kpa64_wp_hits, hits,
				    "%s: watchpoint nested", how[pass]);
		KUNIT_EXPECT_EQ_MSG(test, kpa64_nested_faults, 0,
				    "%s: nested fault given to the probe", how[pass]);
		KUNIT_EXPECT_EQ_MSG(test, kpa64_pre_hits, 1, "%s", how[pass]);
		KUNIT_EXPECT_EQ_MSG(test, kpa64_post_hits, pass ? 1 : 0, "%s",
				    how[pass]);
	}
#ifdef CONFIG_HAVE_HW_BREAKPOINT
	if (wp)
		unregister_wide_hw_breakpoint(wp);
#endif
	vfree(area);
}

/*
 * Handlers run with user access off, as after an
 * exception entry (PSTATE.PAN set, or TTBR0 on the reserved tables),
 * even when the probed code is inside a uaccess window: a
 * copy_from_kernel_nofault() of a mapped user address in a handler
 * fails.  On every fast path: the optimized pre_handler, the post copy's
 * post_handler, the kretprobe return handler; and the BRK's pre_handler.
 * A path that ran its handlers with the probed code's PAN (clear) fails
 * it.
 */
static unsigned long kpa64_ua_user, kpa64_ua_read, kpa64_ua_calls;

static void kpa64_ua_check(void)
{
	u64 v;

	kpa64_ua_calls++;
	if (!copy_from_kernel_nofault(&v, (void *)kpa64_ua_user, sizeof(v)))
		kpa64_ua_read++;
}

static int kpa64_ua_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpa64_ua_check();
	return 0;
}

static void kpa64_ua_post(struct kprobe *p, struct pt_regs *regs,
			  unsigned long flags)
{
	kpa64_ua_check();
}

static int kpa64_ua_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	kpa64_ua_check();
	return 0;
}

static void kprobes_arm64_uaccess_off(struct kunit *test)
{
	static const char * const how[] = {
		"optimized pre_handler", "BRK and post copy", "kretprobe return",
	};
	unsigned int pass;
	u64 out[4], one = 1;

	if (!system_uses_hw_pan() && !system_uses_ttbr0_pan())
		kunit_skip(test, "no PAN: the kernel may access user memory anywhere");
	kpa64_ua_user = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE,
				      PROT_READ | PROT_WRITE,
				      MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(kpa64_ua_user) || !kpa64_ua_user);
	/* mapped: a read with user access on succeeds */
	KUNIT_ASSERT_EQ(test, put_user(one, (u64 __user *)kpa64_ua_user), 0);
	uaccess_enable_privileged();
	kpa64_ua_read = 0;
	kpa64_ua_check();
	uaccess_disable_privileged();
	KUNIT_ASSERT_EQ(test, kpa64_ua_read, 1);

	for (pass = 0; pass < ARRAY_SIZE(how); pass++) {
		struct kprobe kp = {
			.addr = (kprobe_opcode_t *)kpa64_nop_at,
			.pre_handler = kpa64_ua_pre,
			.post_handler = pass == 1 ? kpa64_ua_post : NULL,
		};
		struct kretprobe rp = {
			.kp.addr = (kprobe_opcode_t *)kpa64_bti_c,
			.handler = kpa64_ua_ret,
			.maxactive = 4,
		};
		u64 ret;

		if (pass == 2 && !IS_ENABLED(CONFIG_KRETPROBES))
			break;
		if (pass == 2)
			KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
		else
			KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
		if (!pass)
			wait_for_kprobe_optimizer();
		kpa64_ua_read = 0;
		kpa64_ua_calls = 0;
		uaccess_enable_privileged();
		ret = pass == 2 ? kpa64_bti_c(40, 2, out) : kpa64_nop(1, 2, out);
		uaccess_disable_privileged();
		if (pass == 2)
			unregister_kretprobe(&rp);
		else
			unregister_kprobe(&kp);
		KUNIT_EXPECT_EQ_MSG(test, ret, pass == 2 ? 42 : 10, "%s", how[pass]);
		KUNIT_EXPECT_EQ_MSG(test, kpa64_ua_calls, pass == 1 ? 2 : 1, "%s",
				    how[pass]);
		KUNIT_EXPECT_EQ_MSG(test, kpa64_ua_read, 0,
				    "%s: user memory readable", how[pass]);
	}
}

/*
 * The C entry points of the hit paths that take no exception (the
 * detour buffer's, the kretprobe trampoline's, the post copy's) run
 * before RCU watches: no function tracer, function graph tracer or BPF
 * fentry program may attach there (no ftrace site), and they are noinstr
 * text.  A function of this file is the control: it has an ftrace site.
 */
static noinline __used __noipa int kpa64_traceable(int x)
{
	return x + 1;
}

static void kprobes_arm64_noinstr_entries(struct kunit *test)
{
	static const struct {
		const char *name;
		unsigned long addr;
	} fns[] = {
		{ "a64_step_callback", (unsigned long)a64_step_callback },
#ifdef CONFIG_KRETPROBES
		{ "kretprobe_arm64_return", (unsigned long)kretprobe_arm64_return },
#endif
#ifdef CONFIG_OPTPROBES
		{ "a64_optprobe_hit", (unsigned long)a64_optprobe_hit },
#endif
	};
	unsigned long start = (unsigned long)__noinstr_text_start;
	unsigned long end = (unsigned long)__noinstr_text_end;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, kpa64_traceable(1), 2);
	if (IS_ENABLED(CONFIG_DYNAMIC_FTRACE))
		KUNIT_EXPECT_NE_MSG(test, ftrace_location((unsigned long)kpa64_traceable), 0,
				    "the control has no ftrace site");
	for (i = 0; i < ARRAY_SIZE(fns); i++) {
		KUNIT_EXPECT_EQ_MSG(test, ftrace_location(fns[i].addr), 0,
				    "%s: ftrace can attach", fns[i].name);
		KUNIT_EXPECT_TRUE_MSG(test, fns[i].addr >= start && fns[i].addr < end,
				      "%s: not noinstr", fns[i].name);
	}
}

/*
 * The PSTATE.SSBS that pt_regs get on the paths without an exception
 * (hit-context.h): read with MRS only with FEAT_SSBS2, where the register
 * exists; with FEAT_SSBS alone MRS is UNDEFINED, and the bit is taken
 * from SCTLR_ELx.DSSBS, the value every exception entry sets.  Both ways
 * must give what a BRK saves in its SPSR here, which is the probed
 * code's by definition: the register read where the CPU has it, and the
 * DSSBS way always.  Not shown: a CPU with FEAT_SSBS and without
 * FEAT_SSBS2 (ID_AA64PFR1_EL1.SSBS = 0b0001), where the old MRS took an
 * undefined instruction exception on every kretprobe return and every
 * optimized hit; the CPUs this runs on implement FEAT_SSBS2 or no SSBS at
 * all.  kprobes_arm64_ctx compares the bit on every path.
 */
static u64 kpa64_brk_ssbs;

static int kpa64_ssbs_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpa64_pre_hits++;
	kpa64_brk_ssbs = regs->pstate & PSR_SSBS_BIT;
	return 0;
}

static void kprobes_arm64_ssbs(struct kunit *test)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kpa64_paciasp_at,
		.pre_handler = kpa64_ssbs_pre,
	};
	u64 out[4], derived, read = 0;
	bool ssbs2 = cpu_have_named_feature(SSBS);

	kpa64_pre_hits = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	preempt_disable();
	KUNIT_EXPECT_EQ(test, kpa64_paciasp(40, 2, out), 42);
	derived = __a64_ssbs_now(false);
	if (ssbs2)
		read = __a64_ssbs_now(true);
	preempt_enable();
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpa64_pre_hits, 1);
	KUNIT_EXPECT_EQ_MSG(test, derived, kpa64_brk_ssbs,
			    "SSBS from SCTLR_ELx.DSSBS: not what a BRK saves");
	if (ssbs2)
		KUNIT_EXPECT_EQ_MSG(test, read, kpa64_brk_ssbs,
				    "SSBS read with MRS: not what a BRK saves");
	else
		kunit_info(test, "no FEAT_SSBS2 (SSBS %s): the register is not read\n",
			   cpus_have_final_cap(ARM64_SSBS) ? "only" : "none");
}

/*
 * The Branch Target Identification rules the BRK handler applies to a
 * probed instruction reached with PSTATE.BTYPE set (kprobe_brk_handler():
 * with BTI in the kernel, an instruction that is no landing pad for that
 * BTYPE is reported as the Branch Target exception it would have raised,
 * not run).  A GCC-built kernel has no BTI (CONFIG_ARM64_BTI_KERNEL
 * needs clang): the report itself, do_el1_bti()'s "Oops - BTI" at the
 * probed address, cannot be shown here, nor any BTI exception in guarded
 * text; what can is the decision, for crafted instruction and BTYPE
 * pairs, with SCTLR_ELx.BT clear and set.
 */
#define KPA64_HINT(n)	(0xd503201f | (n) << 5)

static const struct {
	const char *what;
	u32 insn;
	u64 btype;
	bool bt, ok;
} kpa64_bti_pairs[] = {
	{ "add, no BTYPE",	0x8b010000, PSR_BTYPE_NONE, true, true },
	{ "add, br x16",	0x8b010000, PSR_BTYPE_JC, false, false },
	{ "add, blr",		0x8b010000, PSR_BTYPE_C, false, false },
	{ "add, br",		0x8b010000, PSR_BTYPE_J, false, false },
	{ "nop, blr",		KPA64_HINT(0), PSR_BTYPE_C, false, false },
	{ "bti, br x16",	KPA64_HINT(32), PSR_BTYPE_JC, false, false },
	{ "bti, blr",		KPA64_HINT(32), PSR_BTYPE_C, false, false },
	{ "bti c, br x16",	KPA64_HINT(34), PSR_BTYPE_JC, true, true },
	{ "bti c, blr",		KPA64_HINT(34), PSR_BTYPE_C, true, true },
	{ "bti c, br",		KPA64_HINT(34), PSR_BTYPE_J, false, false },
	{ "bti j, br x16",	KPA64_HINT(36), PSR_BTYPE_JC, true, true },
	{ "bti j, blr",		KPA64_HINT(36), PSR_BTYPE_C, true, false },
	{ "bti j, br",		KPA64_HINT(36), PSR_BTYPE_J, true, true },
	{ "bti jc, br x16",	KPA64_HINT(38), PSR_BTYPE_JC, true, true },
	{ "bti jc, blr",	KPA64_HINT(38), PSR_BTYPE_C, true, true },
	{ "bti jc, br",		KPA64_HINT(38), PSR_BTYPE_J, true, true },
	{ "paciasp, br x16",	KPA64_HINT(25), PSR_BTYPE_JC, true, true },
	{ "paciasp, blr",	KPA64_HINT(25), PSR_BTYPE_C, true, true },
	{ "paciasp, br, BT=0",	KPA64_HINT(25), PSR_BTYPE_J, false, true },
	{ "paciasp, br, BT=1",	KPA64_HINT(25), PSR_BTYPE_J, true, false },
	{ "pacibsp, blr",	KPA64_HINT(27), PSR_BTYPE_C, true, true },
	{ "pacibsp, br, BT=0",	KPA64_HINT(27), PSR_BTYPE_J, false, true },
	{ "pacibsp, br, BT=1",	KPA64_HINT(27), PSR_BTYPE_J, true, false },
	{ "paciaz, blr",	KPA64_HINT(24), PSR_BTYPE_C, false, false },
	{ "autiasp, blr",	KPA64_HINT(29), PSR_BTYPE_C, false, false },
};

static void kprobes_arm64_bti_target(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kpa64_bti_pairs); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    a64_bti_target_ok(kpa64_bti_pairs[i].insn,
						      kpa64_bti_pairs[i].btype,
						      kpa64_bti_pairs[i].bt),
				    kpa64_bti_pairs[i].ok, "%s",
				    kpa64_bti_pairs[i].what);
	/* the landing pads the test functions start with */
	KUNIT_EXPECT_TRUE(test, a64_bti_target_ok(le32_to_cpu(*(__le32 *)kpa64_bti_c_at),
						  PSR_BTYPE_C, true));
	KUNIT_EXPECT_FALSE(test, a64_bti_target_ok(le32_to_cpu(*(__le32 *)kpa64_adds_at),
						   PSR_BTYPE_C, true));
}

static struct kunit_case kprobes_arm64_cases[] = {
	KUNIT_CASE_PARAM(kprobes_arm64_insn, kpa64_insn_gen_params),
	KUNIT_CASE(kprobes_arm64_literal_values),
	KUNIT_CASE(kprobes_arm64_refused),
	KUNIT_CASE(kprobes_arm64_misaligned),
	KUNIT_CASE(kprobes_arm64_reentry),
	KUNIT_CASE(kprobes_arm64_extable),
	KUNIT_CASE(kprobes_arm64_fault_in_slot),
	KUNIT_CASE(kprobes_arm64_btype),
	KUNIT_CASE_PARAM(kprobes_arm64_irq, kpa64_irq_gen_params),
	KUNIT_CASE(kprobes_arm64_post_copy),
	KUNIT_CASE(kprobes_arm64_sve),
	KUNIT_CASE(kprobes_arm64_rcu_not_watching),
	KUNIT_CASE(kprobes_arm64_kretprobe_regs),
	KUNIT_CASE(kprobes_arm64_slot_alias),
	KUNIT_CASE(kprobes_arm64_mrs_pmr),
	KUNIT_CASE(kprobes_arm64_fault_recovered),
	KUNIT_CASE(kprobes_arm64_nested_exception),
	KUNIT_CASE(kprobes_arm64_uaccess_off),
	KUNIT_CASE(kprobes_arm64_noinstr_entries),
	KUNIT_CASE(kprobes_arm64_ssbs),
	KUNIT_CASE(kprobes_arm64_bti_target),
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_ARGS
	KUNIT_CASE(kprobes_arm64_ftrace_entry),
#endif
#ifdef CONFIG_OPTPROBES
	KUNIT_CASE_PARAM(kprobes_arm64_optimized, kpa64_opt_gen_params),
	KUNIT_CASE(kprobes_arm64_optimized_ip_change),
	KUNIT_CASE(kprobes_arm64_opt_batch),
	KUNIT_CASE(kprobes_arm64_opt_landing_pads),
	KUNIT_CASE(kprobes_arm64_opt_idle_text),
	KUNIT_CASE(kprobes_arm64_opt_irqs_off),
#endif
#if defined(CONFIG_OPTPROBES) && defined(CONFIG_SMP) && \
	IS_BUILTIN(CONFIG_KPROBES_SANITY_TEST)
	KUNIT_CASE_SLOW(kprobes_arm64_nmi_in_handler),
#endif
	{}
};

static struct kunit_suite kprobes_arm64_suite = {
	.name = "kprobes_arm64",
	.suite_init = kpa64_watch_steps,
	.suite_exit = kpa64_unwatch_steps,
	.test_cases = kprobes_arm64_cases,
};

kunit_test_suite(kprobes_arm64_suite);

MODULE_DESCRIPTION("KUnit tests of the arm64 kprobes port");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
