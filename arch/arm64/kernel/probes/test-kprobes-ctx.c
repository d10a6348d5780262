// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite kprobes_arm64_ctx: the handler context contract on every
 * arm64 hit path.
 *
 * A handler sees the same context whatever the path (hit-context.h has
 * the contract and where each item comes from): DAIF all masked, the
 * priority mask an exception entry sets (pseudo-NMIs), PAN set and user
 * access off, RCU watching, preemption off, kprobe_running() and the
 * control block's status set, and a pt_regs as the BRK path fills it
 * (BTYPE clear, the probed code's PSTATE with PAN, DIT, SSBS and TCO,
 * pmr_save, orig_x0 = x0, syscallno = NO_SYSCALL).  One case per path,
 * every handler calling kpc_check(), the one assertion of the contract.
 * A path a configuration does not have is skipped, saying why.
 *
 * Each item is checked where the probed code has the value a handler
 * must not see: every case calls the probed function inside a uaccess
 * window (PAN clear: "user access off" means something), from a BLR
 * (BTYPE set at a function's first instruction), and in each context of
 * enum kpc_how: interrupts and preemption on, interrupts off, RCU not
 * watching (between ct_idle_enter() and ct_idle_exit()), and with
 * PSTATE.DIT set and PSTATE.SSBS flipped where the CPU lets the kernel
 * write them.  What the pt_regs must hold is not computed from the
 * registers but taken from a BRK hit in the same context right before
 * (kpc_reference()): the PSTATE the exception saved, its mode (EL1h, or
 * EL2h on a VHE host), SSBS and TCO included, is the contract.
 *
 * Not checked, and why: the live PSTATE.BTYPE of a handler cannot be
 * read (no MRS gives it) and is zero by then anyway (any instruction but
 * a branch clears it); a jprobe handler is not a handler in this sense
 * (see kprobes_arm64_ctx_jprobe).
 */
#include <kunit/test.h>
#include <linux/context_tracking.h>
#include <linux/kprobes.h>
#include <linux/mman.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/uaccess.h>

#include <linux/cpufeature.h>
#include <asm/daifflags.h>
#include <asm/insn.h>
#include <asm/ptrace.h>
#include <asm/sysreg.h>

#include "test-kprobes-arm64.h"

/* PSTATE.SSBS, read with MRS: only with FEAT_SSBS2 (HWCAP_SSBS) */
#define KPC_SYS_SSBS	sys_reg(3, 3, 4, 2, 6)

/* The pt_regs::pstate fields compared with the probed code's */
#define KPC_PSTATE	(PSR_MODE_MASK | DAIF_MASK | PSR_PAN_BIT | \
			 PSR_DIT_BIT | PSR_SSBS_BIT | PSR_TCO_BIT)

/* The contract's items, one bit each in a failure mask */
enum kpc_item {
	KPC_DAIF, KPC_PMR, KPC_PAN, KPC_UACCESS, KPC_RCU, KPC_PREEMPT,
	KPC_RUNNING, KPC_STATUS, KPC_REGS_BTYPE, KPC_REGS_PSTATE,
	KPC_REGS_PMR, KPC_REGS_ORIG_X0, KPC_REGS_SYSCALLNO, KPC_NR_ITEMS
};

static const char * const kpc_item_names[KPC_NR_ITEMS] = {
	[KPC_DAIF] = "DAIF not all masked",
	[KPC_PMR] = "priority mask not as an exception entry sets it",
	[KPC_PAN] = "PSTATE.PAN clear (or TTBR0 access on)",
	[KPC_UACCESS] = "user memory readable",
	[KPC_RCU] = "RCU not watching",
	[KPC_PREEMPT] = "preemptible",
	[KPC_RUNNING] = "kprobe_running() wrong",
	[KPC_STATUS] = "control block status wrong",
	[KPC_REGS_BTYPE] = "pt_regs BTYPE set",
	[KPC_REGS_PSTATE] = "pt_regs pstate not the probed code's",
	[KPC_REGS_PMR] = "pt_regs pmr_save not the probed code's",
	[KPC_REGS_ORIG_X0] = "pt_regs orig_x0 not x0",
	[KPC_REGS_SYSCALLNO] = "pt_regs syscallno not NO_SYSCALL",
};

/* What the handlers of one probed call must see, and what they saw */
static struct {
	unsigned long user;	/* a mapped user page */
	u64 pstate;		/* the probed code's, KPC_PSTATE fields */
	u64 pmr;		/* its priority mask (pseudo-NMIs) */
	unsigned long refs;	/* reference BRK hits (kpc_reference()) */
	unsigned long brks;	/* probe hits under the BRK's handler */
	unsigned long calls;	/* kpc_check() calls */
	unsigned long bad;	/* failed items, all calls */
	unsigned long bad_how;	/* the contexts (enum kpc_how) they failed in */
	unsigned long faults;	/* fault_handler calls */
	unsigned long flips;	/* calls with PSTATE bits changed */
	unsigned int how;	/* the context of the call (enum kpc_how) */
} kpc;

/**
 * kpc_check() - check the handler context contract from a handler
 * @regs: the handler's pt_regs, or NULL where they are not a probe's (a
 *	fault_handler gets the fault's)
 * @running: the probe kprobe_running() must be, or NULL for any probe
 * @status: the KPROBE_HIT_* bits one of which the status must be
 * @uaccess: try to read user memory (not from a fault_handler: the read
 *	faults, which calls the fault_handler)
 *
 * Records the failed items in kpc.bad: a handler runs with everything
 * masked, where KUnit cannot report.
 */
static void kpc_check(struct pt_regs *regs, struct kprobe *running,
		      unsigned long status, bool uaccess)
{
	unsigned long bad = 0;
	u64 v;

	if ((read_sysreg(daif) & DAIF_MASK) != DAIF_MASK)
		bad |= BIT(KPC_DAIF);
	if (system_uses_irq_prio_masking() &&
	    read_sysreg_s(SYS_ICC_PMR_EL1) !=
	    (GIC_PRIO_IRQON | GIC_PRIO_PSR_I_SET))
		bad |= BIT(KPC_PMR);
	if (system_uses_hw_pan() &&
	    !(read_sysreg_s(SYS_PSTATE_PAN) & PSR_PAN_BIT))
		bad |= BIT(KPC_PAN);
	if (system_uses_ttbr0_pan() &&
	    (read_sysreg(ttbr0_el1) & TTBR_ASID_MASK))
		bad |= BIT(KPC_PAN);
	if (uaccess && kpc.user &&
	    !copy_from_kernel_nofault(&v, (void *)kpc.user, sizeof(v)))
		bad |= BIT(KPC_UACCESS);
	if (!rcu_is_watching())
		bad |= BIT(KPC_RCU);
	if (preemptible())
		bad |= BIT(KPC_PREEMPT);
	if (!kprobe_running() || (running && kprobe_running() != running))
		bad |= BIT(KPC_RUNNING);
	if (!(get_kprobe_ctlblk()->status & status))
		bad |= BIT(KPC_STATUS);
	if (regs) {
		if (regs->pstate & PSR_BTYPE_MASK)
			bad |= BIT(KPC_REGS_BTYPE);
		if ((regs->pstate & KPC_PSTATE) != kpc.pstate)
			bad |= BIT(KPC_REGS_PSTATE);
		if (system_uses_irq_prio_masking() && regs->pmr_save != kpc.pmr)
			bad |= BIT(KPC_REGS_PMR);
		if (regs->orig_x0 != regs->regs[0])
			bad |= BIT(KPC_REGS_ORIG_X0);
		if (regs->syscallno != NO_SYSCALL)
			bad |= BIT(KPC_REGS_SYSCALLNO);
	}
	kpc.calls++;
	kpc.bad |= bad;
	if (bad)
		kpc.bad_how |= BIT(kpc.how);
}

static int kpc_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (kpa64_under_brk())
		kpc.brks++;
	kpc_check(regs, p, KPROBE_HIT_ACTIVE, true);
	return 0;
}

static void kpc_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	kpc_check(regs, p, KPROBE_HIT_SSDONE, true);
}

/* Called for the handlers' own faults: the user read above, for one. */
static int kpc_fault(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	kpc.faults++;
	kpc_check(NULL, p, KPROBE_HIT_ACTIVE | KPROBE_HIT_SSDONE, false);
	return 0;
}

static int kpc_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (kpa64_under_brk())
		kpc.brks++;
	kpc_check(regs, NULL, KPROBE_HIT_ACTIVE, true);
	return 0;
}

static int kpc_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (kpa64_under_brk())
		kpc.brks++;
	kpc_check(regs, NULL, KPROBE_HIT_ACTIVE, true);
	return 0;
}

/*
 * The reference: a BRK probe on a landing pad, which is never optimized.
 * Its pre_handler gets the PSTATE and priority mask the debug exception
 * saved, the probed code's by definition, on any CPU (no MRS of a
 * register the CPU may not have: SSBS needs FEAT_SSBS2).
 */
static int kpc_ref_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpc.refs++;
	kpc.pstate = regs->pstate & KPC_PSTATE;
	kpc.pmr = regs->pmr_save;
	return 0;
}

static struct kprobe kpc_ref_kp;
static bool kpc_ref_on;		/* registered: a case that failed leaves it */

/* Fill kpc.pstate and kpc.pmr from a BRK hit in the caller's context. */
static void kpc_reference(void)
{
	u64 out[4];

	kpa64_paciasp(1, 2, out);
}

/* A mapped user page, for the user access check, and the reference probe. */
static void kpc_init(struct kunit *test)
{
	u64 one = 1;

	memset(&kpc, 0, sizeof(kpc));
	if (kpc_ref_on)
		unregister_kprobe(&kpc_ref_kp);
	kpc_ref_on = false;
	kpc_ref_kp = (struct kprobe){
		.addr = (kprobe_opcode_t *)kpa64_paciasp_at,
		.pre_handler = kpc_ref_pre,
	};
	KUNIT_ASSERT_EQ(test, register_kprobe(&kpc_ref_kp), 0);
	kpc_ref_on = true;
	if (!system_uses_hw_pan() && !system_uses_ttbr0_pan()) {
		kunit_info(test, "no PAN: user access is not checked\n");
		return;
	}
	kpc.user = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE,
				 PROT_READ | PROT_WRITE,
				 MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(kpc.user) || !kpc.user);
	KUNIT_ASSERT_EQ(test, put_user(one, (u64 __user *)kpc.user), 0);
}

/*
 * The contexts each probed function is called in: the probed code has
 * there a value a handler must not see (interrupts and preemption on,
 * RCU not watching), or PSTATE bits a handler's pt_regs must show.
 */
enum kpc_how {
	KPC_PLAIN,		/* interrupts and preemption on */
	KPC_IRQS_OFF,		/* local_irq_save() */
	KPC_RCU_IDLE,		/* RCU not watching (CONTEXT_TRACKING_IDLE) */
	KPC_FLIPPED,		/* DIT set, SSBS flipped, where the CPU can */
	KPC_NR_HOW
};

/*
 * PSTATE.DIT set (FEAT_DIT) and PSTATE.SSBS flipped, for KPC_FLIPPED.
 * SSBS only with FEAT_SSBS2 (HWCAP_SSBS): with FEAT_SSBS alone the
 * kernel cannot read it, and takes the value an exception entry sets
 * (hit-context.h: a64_ssbs_now()), which a flip here would contradict.
 * Return what to give kpc_unflip().
 */
static u64 kpc_flip(void)
{
	u64 flipped = 0;

	if (cpus_have_final_cap(ARM64_HAS_DIT)) {
		set_pstate_dit(1);
		flipped |= PSR_DIT_BIT;
	}
	if (cpu_have_named_feature(SSBS)) {
		if (read_sysreg_s(KPC_SYS_SSBS) & PSR_SSBS_BIT)
			set_pstate_ssbs(0);
		else
			set_pstate_ssbs(1);
		flipped |= PSR_SSBS_BIT;
	}
	if (flipped)
		kpc.flips++;
	return flipped;
}

static void kpc_unflip(u64 flipped)
{
	if (flipped & PSR_DIT_BIT)
		set_pstate_dit(0);
	if (flipped & PSR_SSBS_BIT) {
		if (read_sysreg_s(KPC_SYS_SSBS) & PSR_SSBS_BIT)
			set_pstate_ssbs(0);
		else
			set_pstate_ssbs(1);
	}
}

/*
 * Call @fn(@a, @b) in the context @how, inside a uaccess window, with
 * what its handlers must find in their pt_regs taken right before from
 * a BRK hit (kpc_reference()).
 */
static u64 kpc_call_how(kpa64_fn_t fn, u64 a, u64 b, enum kpc_how how)
{
	unsigned long flags = 0;
	u64 out[4], ret, flipped = 0;
	bool idle = how == KPC_RCU_IDLE &&
		    IS_ENABLED(CONFIG_CONTEXT_TRACKING_IDLE);

	if (how == KPC_IRQS_OFF || how == KPC_RCU_IDLE)
		local_irq_save(flags);
	/* PSTATE.DIT and SSBS are not switched with the task */
	if (how == KPC_FLIPPED)
		preempt_disable();
	if (idle)
		ct_idle_enter();
	if (how == KPC_FLIPPED)
		flipped = kpc_flip();
	kpc.how = how;
	uaccess_enable_privileged();
	kpc_reference();
	ret = fn(a, b, out);
	uaccess_disable_privileged();
	kpc_unflip(flipped);
	if (idle)
		ct_idle_exit();
	if (how == KPC_FLIPPED)
		preempt_enable();
	if (how == KPC_IRQS_OFF || how == KPC_RCU_IDLE)
		local_irq_restore(flags);
	return ret;
}

static u64 __maybe_unused kpc_call(kpa64_fn_t fn, u64 a, u64 b)
{
	return kpc_call_how(fn, a, b, KPC_PLAIN);
}

/* @fn(@a, @b) in every context of enum kpc_how: KPC_NR_HOW calls. */
static void kpc_call_all(struct kunit *test, kpa64_fn_t fn, u64 a, u64 b,
			 u64 expect)
{
	enum kpc_how how;

	for (how = 0; how < KPC_NR_HOW; how++)
		KUNIT_EXPECT_EQ_MSG(test, kpc_call_how(fn, a, b, how), expect,
				    "context %d", how);
	if (!kpc.flips)
		kunit_info(test, "no FEAT_DIT nor FEAT_SSBS2: PSTATE bits not flipped\n");
}

/*
 * The verdict on the handlers of a case: @calls handler calls, @faults
 * of them by a kprobe's handlers, whose user reads each call its
 * fault_handler (a kretprobe's handlers have none), and no item failed.
 */
static void kpc_verdict(struct kunit *test, unsigned long calls,
			unsigned long faults)
{
	unsigned int i;

	unregister_kprobe(&kpc_ref_kp);
	kpc_ref_on = false;
	KUNIT_EXPECT_EQ(test, kpc_ref_kp.nmissed, 0);
	if (!kpc.user)
		faults = 0;
	KUNIT_EXPECT_EQ(test, kpc.calls, calls + kpc.faults);
	KUNIT_EXPECT_EQ(test, kpc.faults, faults);
	for (i = 0; i < KPC_NR_ITEMS; i++)
		KUNIT_EXPECT_FALSE_MSG(test, kpc.bad & BIT(i),
				       "%s (contexts %#lx of enum kpc_how)",
				       kpc_item_names[i], kpc.bad_how);
}

/* The path a kprobe case's hits must take */
enum kpc_path {
	KPC_BRK_STEP,		/* BRK, step out of line, step BRK */
	KPC_SIMULATED,		/* BRK, emulated */
	KPC_BOOSTED,		/* BRK, then the slot's copy and a branch back */
	KPC_POST_COPY,		/* BRK, the post copy and a64_step_trampoline */
	KPC_OPTIMIZED,		/* the detour buffer, no BRK */
};

/*
 * Register @kp (pre, post and fault handlers) at @at, call @fn in every
 * context, check the handlers and that the hits took @path.
 */
static void kpc_kprobe_case(struct kunit *test, unsigned long at,
			    kpa64_fn_t fn, u64 expect, bool post,
			    enum kpc_path path)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)at,
		.pre_handler = kpc_pre,
		.post_handler = post ? kpc_post : NULL,
		.fault_handler = kpc_fault,
	};
	unsigned long traps;
	struct kprobe *site;
	bool opt = false;

	kpc_init(test);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	wait_for_kprobe_optimizer();
	rcu_read_lock();
	site = get_kprobe(kp.addr);
	opt = site && kprobe_optimized(site);
	rcu_read_unlock();
	KUNIT_EXPECT_EQ_MSG(test, opt, path == KPC_OPTIMIZED,
			    "optimized: %d", opt);
	traps = kpa64_step_traps();
	kpc_call_all(test, fn, 1, 2, expect);
	traps = kpa64_step_traps() - traps;
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kp.nmissed, 0);
	/* the reference probe's BRKs are not counted (boosted: no step trap) */
	KUNIT_EXPECT_EQ(test, kpc.refs, KPC_NR_HOW);
	KUNIT_EXPECT_EQ(test, kpc.brks,
			path == KPC_OPTIMIZED ? 0 : KPC_NR_HOW);
	KUNIT_EXPECT_EQ(test, traps, path == KPC_BRK_STEP ? KPC_NR_HOW : 0);
	kpc_verdict(test, (post ? 2 : 1) * KPC_NR_HOW,
		    (post ? 2 : 1) * KPC_NR_HOW);
}

/* A stepped load: pre_handler at the BRK, post_handler at the step's BRK */
static void kprobes_arm64_ctx_brk_step(struct kunit *test)
{
	kpc_kprobe_case(test, kpa64_ldr_reg_at, kpa64_ldr_reg, 1, true,
			KPC_BRK_STEP);
}

/* An emulated branch: both handlers in the BRK's exception */
static void kprobes_arm64_ctx_simulated(struct kunit *test)
{
	kpc_kprobe_case(test, kpa64_b_at, kpa64_b, 3, true, KPC_SIMULATED);
}

/* A boostable nop with a post_handler: the post copy's trampoline */
static void kprobes_arm64_ctx_post_copy(struct kunit *test)
{
	kpc_kprobe_case(test, kpa64_nop_at, kpa64_nop, 10, true,
			KPC_POST_COPY);
}

/*
 * A boostable landing pad without a post_handler, which the optimizer
 * leaves with its BRK: the pre_handler at the BRK, then the slot's
 * boosted copy.  The function's first instruction (SYM_FUNC_START()'s
 * BTI C), reached by BLR: BTYPE set at the BRK on a CPU with FEAT_BTI.
 */
static void kprobes_arm64_ctx_boosted(struct kunit *test)
{
	kpc_kprobe_case(test, (unsigned long)kpa64_bti_c, kpa64_bti_c, 3, false,
			KPC_BOOSTED);
}

/* The same nop without a post_handler, optimized: the detour buffer */
static void kprobes_arm64_ctx_optimized(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_OPTPROBES))
		kunit_skip(test, "no OPTPROBES in this configuration");
	kpc_kprobe_case(test, kpa64_nop_at, kpa64_nop, 10, false,
			KPC_OPTIMIZED);
}

/*
 * Whether the optimizer leaves the instruction @insn its BRK: a BTI
 * landing pad, or PACIASP/PACIBSP (opt.c).  Every function of
 * test-kprobes-insn.S starts with one: SYM_FUNC_START() puts a BTI C
 * first.
 */
static bool kpc_landing_pad(u32 insn)
{
	u32 op = insn & 0xfe0;

	return aarch64_insn_is_bti(insn) ||
	       (aarch64_insn_is_hint(insn) &&
		(op == AARCH64_INSN_HINT_PACIASP ||
		 op == AARCH64_INSN_HINT_PACIBSP));
}

/*
 * For the kretprobe entry through the detour buffer: a C function, whose
 * first instruction is the ftrace patchable entry's "mov x9, x30" (or,
 * without it, its own first one), not a landing pad.
 */
static noinline __noipa u64 kpc_c_adds(u64 a, u64 b, u64 *out)
{
	return a + b;
}

/*
 * A kretprobe: its entry_handler on the entry probe's path, its handler
 * on the return through the trampoline.  @fn's first instruction decides
 * the entry's path: a landing pad keeps its BRK, any other is optimized
 * when @optimize asks for it, with a kprobe beside the kretprobe, whose
 * pre_handler is checked on the same path.  The case asserts the path
 * the entry takes.
 */
static void kpc_kretprobe_case(struct kunit *test, kpa64_fn_t fn,
			       bool optimize)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)fn,
		.entry_handler = kpc_entry,
		.handler = kpc_ret,
		.maxactive = 4,
	};
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)fn,
		.pre_handler = kpc_pre,
		.fault_handler = kpc_fault,
	};
	u32 first = le32_to_cpu(*(__le32 *)fn);
	bool expect = optimize && !kpc_landing_pad(first);
	struct kprobe *site;
	bool opt = false;

	if (!IS_ENABLED(CONFIG_KRETPROBES))
		kunit_skip(test, "no KRETPROBES in this configuration");
	if (optimize && !expect)
		kunit_info(test, "entry %08x is a landing pad: checked at its BRK\n",
			   first);
	kpc_init(test);
	if (optimize)
		KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	wait_for_kprobe_optimizer();
	rcu_read_lock();
	site = get_kprobe(rp.kp.addr);
	opt = site && kprobe_optimized(site);
	rcu_read_unlock();
	KUNIT_EXPECT_EQ_MSG(test, opt, expect, "entry optimized: %d", opt);
	kpc_call_all(test, fn, 40, 2, 42);
	unregister_kretprobe(&rp);
	if (optimize)
		unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, rp.nmissed + kp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, kpc.refs, KPC_NR_HOW);
	/*
	 * The entry's BRKs, where the kprobe beside the kretprobe runs its
	 * pre_handler too; the returns take none.
	 */
	KUNIT_EXPECT_EQ(test, kpc.brks,
			opt ? 0 : (optimize ? 2 : 1) * KPC_NR_HOW);
	kpc_verdict(test, (optimize ? 3 : 2) * KPC_NR_HOW,
		    optimize ? KPC_NR_HOW : 0);
}

static void kprobes_arm64_ctx_kretprobe_brk(struct kunit *test)
{
	kpc_kretprobe_case(test, kpa64_bti_c, false);
}

static void kprobes_arm64_ctx_kretprobe_opt(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_OPTPROBES))
		kunit_skip(test, "no OPTPROBES in this configuration");
	kpc_kretprobe_case(test, kpc_c_adds, true);
}

#ifdef CONFIG_JPROBES
/*
 * A jprobe handler runs after the entry BRK's exception return, as the
 * probed function would (its prototype, stack, interrupt state, PAN,
 * RCU), with preemption disabled until jprobe_return()'s BRK and no
 * probe running: it is not a handler of this contract, by the jprobes
 * model.  What it must see: preemption off.  The kprobe sharing its site
 * is checked in full: its pre_handler at the BRK, its post_handler after
 * the handler, on the path jprobe_return()'s BRK takes.
 */
static unsigned long kpc_jp_calls, kpc_jp_preemptible;

static u64 kpc_jp_handler(u64 a, u64 b, u64 *out)
{
	kpc_jp_calls++;
	if (preemptible())
		kpc_jp_preemptible++;
	jprobe_return();
	return 0;
}
#endif

static void kprobes_arm64_ctx_jprobe(struct kunit *test)
{
#ifdef CONFIG_JPROBES
	struct jprobe jp = {
		.kp.addr = (kprobe_opcode_t *)kpa64_adds,
		.entry = (void *)kpc_jp_handler,
	};
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kpa64_adds,
		.pre_handler = kpc_pre,
		.post_handler = kpc_post,
		.fault_handler = kpc_fault,
	};

	kpc_init(test);
	kpc_jp_calls = 0;
	kpc_jp_preemptible = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_EQ(test, register_jprobe(&jp), 0);
	KUNIT_EXPECT_EQ(test, kpc_call(kpa64_adds, 40, 2), 42);
	unregister_jprobe(&jp);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpc_jp_calls, 1);
	KUNIT_EXPECT_EQ(test, kpc_jp_preemptible, 0);
	KUNIT_EXPECT_EQ(test, kp.nmissed + jp.kp.nmissed, 0);
	kpc_verdict(test, 2, 2);
#else
	kunit_skip(test, "no JPROBES in this configuration");
#endif
}

static struct kunit_case kprobes_arm64_ctx_cases[] = {
	KUNIT_CASE(kprobes_arm64_ctx_brk_step),
	KUNIT_CASE(kprobes_arm64_ctx_simulated),
	KUNIT_CASE(kprobes_arm64_ctx_post_copy),
	KUNIT_CASE(kprobes_arm64_ctx_boosted),
	KUNIT_CASE(kprobes_arm64_ctx_optimized),
	KUNIT_CASE(kprobes_arm64_ctx_kretprobe_brk),
	KUNIT_CASE(kprobes_arm64_ctx_kretprobe_opt),
	KUNIT_CASE(kprobes_arm64_ctx_jprobe),
	{}
};

static struct kunit_suite kprobes_arm64_ctx_suite = {
	.name = "kprobes_arm64_ctx",
	.suite_init = kpa64_watch_steps,
	.suite_exit = kpa64_unwatch_steps,
	.test_cases = kprobes_arm64_ctx_cases,
};

kunit_test_suite(kprobes_arm64_ctx_suite);
