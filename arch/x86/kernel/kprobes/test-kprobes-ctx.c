// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit suite kprobes_x86_context: the context every handler may rely
 * on, checked by one function (kpc_check()) from the handlers of each
 * path in turn: int3 with a stepped or an emulated instruction, boosted,
 * post copy, optimized detour, ftrace, kretprobe entry (int3, optimized,
 * ftrace) and return, jprobe, and a fault_handler for a fault in a
 * handler of the int3, post copy, optimized and ftrace paths.  The
 * probed functions written in assembly are test-kprobes-x86.c's.
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/kretprobes.h>
#include <linux/jprobes.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/vmalloc.h>
#include <linux/rcupdate.h>
#include <linux/preempt.h>
#include <kunit/test.h>
#include <linux/irqflags.h>
#include <asm/processor-flags.h>
#include <asm/segment.h>
#include <asm/text-patching.h>

#include "test-kprobes-x86.h"

/* ---------------------------------------------------------------------
 * kprobes_x86_context: the handler context contract, path by path
 *
 * Every handler of every path calls kpc_check(), which checks each item
 * that a pre, post, fault, entry or return handler may rely on, as the
 * int3 path gives it:
 *  - DF clear, IF clear, AC clear (the flags as the handler runs);
 *  - RCU watching, preemption disabled;
 *  - kprobe_running() the handler's probe, the control block's status
 *    KPROBE_HIT_ACTIVE (pre, entry, return) or KPROBE_HIT_SSDONE (post);
 *  - pt_regs: cs __KERNEL_CS; ss __KERNEL_DS, or the null selector a
 *    64-bit interrupt gate leaves in SS when it changes privilege (SDM
 *    vol. 3, 6.14.2), which the int3 path then shows; flags with the
 *    always-one bit and the probed code's IF (the tests call with
 *    interrupts on); sp where the probed instruction has it (these
 *    probes are at functions' first instructions: the return address
 *    into kpc_call()); ip past the int3 (pre, entry), the next
 *    instruction (post), the real return address (return); orig_ax -1
 *    (on the ftrace path, where ftrace itself leaves 0, too).
 * A jprobe handler is an ordinary function of the probed context (no
 * pt_regs, no running kprobe, the probed code's IF; see
 * arch/x86/kernel/kprobes/jprobe.c): it is checked for the rest.
 * One case per path, so that a failure names it; a path the config has
 * not is skipped, saying which option it needs.
 */
enum kpc_item {
	KPC_DF, KPC_IF, KPC_AC, KPC_RCU, KPC_PREEMPT, KPC_RUNNING, KPC_STATUS,
	KPC_CS, KPC_SS, KPC_FLAGS, KPC_SP, KPC_IP, KPC_ORIG_AX, KPC_NITEMS
};

static const char * const kpc_item_name[KPC_NITEMS] = {
	[KPC_DF] = "DF clear",
	[KPC_IF] = "interrupts off",
	[KPC_AC] = "AC clear",
	[KPC_RCU] = "RCU watching",
	[KPC_PREEMPT] = "not preemptible",
	[KPC_RUNNING] = "kprobe_running() is the probe",
	[KPC_STATUS] = "kprobe status",
	[KPC_CS] = "regs->cs",
	[KPC_SS] = "regs->ss",
	[KPC_FLAGS] = "regs->flags",
	[KPC_SP] = "regs->sp",
	[KPC_IP] = "regs->ip",
	[KPC_ORIG_AX] = "regs->orig_ax",
};

/* Where regs->sp must be. */
enum kpc_sp {
	KPC_SP_ENTRY,		/* at the return address into kpc_call() */
	KPC_SP_RETURNED,	/* just above it: the function returned */
};

struct kpc_seen {
	atomic_t calls;
	unsigned long failed;	/* BIT(enum kpc_item) not met */
};

static struct {
	struct kpc_seen pre, post, entry, ret, jp, fault;
	unsigned long post_ip;
	struct kretprobe *rp;
} kpc;

static noinline __used __noipa long kpc_call(int which, long arg);

static bool kpc_in_caller(unsigned long addr)
{
	unsigned long start = (unsigned long)kpc_call, size, off;

	return kallsyms_lookup_size_offset(start, &size, &off) &&
	       addr > start && addr < start + size;
}

/*
 * The one check of the contract, from every handler.  @regs NULL: no
 * pt_regs (a jprobe handler); @exempt: the items the path does not
 * promise (see the top of this part).
 */
static void kpc_check(struct kpc_seen *s, struct pt_regs *regs,
		      struct kprobe *running, unsigned long status,
		      unsigned long ip, enum kpc_sp sp, unsigned long exempt)
{
	unsigned long fl = native_save_fl(), bad = 0;

	atomic_inc(&s->calls);
	if (fl & X86_EFLAGS_DF)
		bad |= BIT(KPC_DF);
	if (fl & X86_EFLAGS_IF)
		bad |= BIT(KPC_IF);
	if (fl & X86_EFLAGS_AC)
		bad |= BIT(KPC_AC);
	if (!rcu_is_watching())
		bad |= BIT(KPC_RCU);
	if (preemptible())
		bad |= BIT(KPC_PREEMPT);
	if (kprobe_running() != running)
		bad |= BIT(KPC_RUNNING);
	if (__this_cpu_read(kprobe_ctlblk.status) != status)
		bad |= BIT(KPC_STATUS);
	if (regs) {
		unsigned long *stack = (unsigned long *)regs->sp;

		if (regs->cs != __KERNEL_CS)
			bad |= BIT(KPC_CS);
		if (regs->ss != __KERNEL_DS && regs->ss != 0)
			bad |= BIT(KPC_SS);
		if (!(regs->flags & X86_EFLAGS_FIXED) ||
		    !(regs->flags & X86_EFLAGS_IF) ||
		    (regs->flags & X86_EFLAGS_TF))
			bad |= BIT(KPC_FLAGS);
		if (sp == KPC_SP_ENTRY ? !kpc_in_caller(stack[0]) :
		    stack[-1] != regs->ip)
			bad |= BIT(KPC_SP);
		if (sp == KPC_SP_ENTRY ? regs->ip != ip :
		    !kpc_in_caller(regs->ip))
			bad |= BIT(KPC_IP);
		if (regs->orig_ax != -1UL)
			bad |= BIT(KPC_ORIG_AX);
	}
	s->failed |= bad & ~exempt;
}

static int kpc_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpc_check(&kpc.pre, regs, p, KPROBE_HIT_ACTIVE,
		  (unsigned long)p->addr + INT3_INSN_SIZE, KPC_SP_ENTRY, 0);
	return 0;
}

static void kpc_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	kpc_check(&kpc.post, regs, p, KPROBE_HIT_SSDONE, kpc.post_ip,
		  KPC_SP_ENTRY, 0);
}

static int __maybe_unused kpc_entry(struct kretprobe_instance *ri,
				    struct pt_regs *regs)
{
	struct kprobe *p = &kpc.rp->kp;

	kpc_check(&kpc.entry, regs, p, KPROBE_HIT_ACTIVE,
		  (unsigned long)p->addr + INT3_INSN_SIZE, KPC_SP_ENTRY, 0);
	return 0;
}

static int __maybe_unused kpc_ret(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	kpc_check(&kpc.ret, regs, &kpc.rp->kp, KPROBE_HIT_ACTIVE, 0,
		  KPC_SP_RETURNED, 0);
	return 0;
}

/* An ftrace site: a C function, with its fentry call where ftrace is. */
static noinline __used __noipa int kpc_ftraced(int x)
{
	return x + 5;
}

static noinline __used __noipa long kpc_jtarget(long x)
{
	return x + 3;
}

static long __maybe_unused kpc_jhandler(long x)
{
	kpc_check(&kpc.jp, NULL, NULL, 0, 0, KPC_SP_ENTRY,
		  BIT(KPC_IF) | BIT(KPC_RUNNING) | BIT(KPC_STATUS));
	jprobe_return();
	return 0;
}

enum {
	KPC_EXLOAD, KPC_IJMP, KPC_BOOST, KPC_POSTCOPY, KPC_OPT, KPC_FTRACED,
	KPC_JTARGET
};

/* Every target called from here: the return address the checks expect. */
static noinline __used __noipa long kpc_call(int which, long arg)
{
	unsigned long v = arg, out = 0, fn = (unsigned long)kpx_leaf;
	long ret = 0;

	switch (which) {
	case KPC_EXLOAD:
		ret = kpx_exload(&v, &out) ?: (long)out;
		break;
	case KPC_IJMP:
		ret = kpx_ijmp(&fn);
		break;
	case KPC_BOOST:
		ret = kpx_boost(arg);
		break;
	case KPC_POSTCOPY:
		ret = kpx_postcopy(arg);
		break;
	case KPC_OPT:
		ret = kpx_opt(arg);
		break;
	case KPC_FTRACED:
		ret = kpc_ftraced(arg);
		break;
	case KPC_JTARGET:
		ret = kpc_jtarget(arg);
		break;
	}
	/* no tail call: the return address stays in here */
	OPTIMIZER_HIDE_VAR(ret);
	return ret;
}

static void kpc_expect(struct kunit *test, const char *handler,
		       struct kpc_seen *s, int calls)
{
	int i;

	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&s->calls), calls,
			    "%s handler calls", handler);
	for (i = 0; i < KPC_NITEMS; i++)
		KUNIT_EXPECT_FALSE_MSG(test, s->failed & BIT(i),
				       "%s handler: %s", handler,
				       kpc_item_name[i]);
}

static struct kprobe *kpc_probe(struct kunit *test, const char *sym,
				bool post)
{
	struct kprobe *kp = kunit_kzalloc(test, sizeof(*kp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, kp);
	memset(&kpc, 0, sizeof(kpc));
	kp->symbol_name = sym;
	kp->pre_handler = kpc_pre;
	if (post)
		kp->post_handler = kpc_post;
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	return kp;
}

/* int3 trap, the instruction stepped out of line: a second trap */
static void kpc_int3_step(struct kunit *test)
{
	struct kprobe *kp = kpc_probe(test, "kpx_exload_insn", true);
	unsigned long traps = kprobe_step_traps();

	kpc.post_ip = (unsigned long)kp->addr + 3;
	KUNIT_EXPECT_EQ(test, kpc_call(KPC_EXLOAD, 17), 17L);
	KUNIT_EXPECT_EQ(test, kprobe_step_traps() - traps, 1UL);
	unregister_kprobe(kp);
	kpc_expect(test, "pre", &kpc.pre, 1);
	kpc_expect(test, "post", &kpc.post, 1);
}

/* int3 trap, the instruction (jmp through memory) emulated in it */
static void kpc_int3_emulated(struct kunit *test)
{
	struct kprobe *kp = kpc_probe(test, "kpx_ijmp_insn", true);
	unsigned long traps = kprobe_step_traps();

	KUNIT_EXPECT_EQ(test, kpx_ai(kp)->kind, KPX_JMP_IND);
	kpc.post_ip = (unsigned long)kpx_leaf;
	KUNIT_EXPECT_EQ(test, kpc_call(KPC_IJMP, 0), 41L);
	KUNIT_EXPECT_EQ(test, kprobe_step_traps() - traps, 0UL);
	unregister_kprobe(kp);
	kpc_expect(test, "pre", &kpc.pre, 1);
	kpc_expect(test, "post", &kpc.post, 1);
}

/* int3 trap, then the slot's boosted copy: no second trap */
static void kpc_boosted(struct kunit *test)
{
	struct kprobe *kp = kpc_probe(test, "kpx_boost", false);
	unsigned long traps = kprobe_step_traps();
	unsigned long hits = kprobe_int3_hits();

	KUNIT_EXPECT_TRUE(test, kpx_ai(kp)->boostable);
	KUNIT_EXPECT_EQ(test, kpc_call(KPC_BOOST, 4), 5L);
	KUNIT_EXPECT_EQ(test, kprobe_step_traps() - traps, 0UL);
	KUNIT_EXPECT_EQ(test, kprobe_int3_hits() - hits, 1UL);
	unregister_kprobe(kp);
	kpc_expect(test, "pre", &kpc.pre, 1);
}

/* int3 trap, then the post copy: post_handler from the step trampoline */
static void kpc_post_copy(struct kunit *test)
{
	struct kprobe *kp = kpc_probe(test, "kpx_postcopy_insn", true);
	unsigned long traps = kprobe_step_traps();

	kpc.post_ip = (unsigned long)kp->addr + kpx_ai(kp)->len;
	KUNIT_EXPECT_EQ(test, kpc_call(KPC_POSTCOPY, 1), 101L);
	KUNIT_EXPECT_EQ(test, kprobe_step_traps() - traps, 0UL);
	unregister_kprobe(kp);
	kpc_expect(test, "pre", &kpc.pre, 1);
	kpc_expect(test, "post", &kpc.post, 1);
}

/* the jump optimizer's detour: no trap at all */
static void kpc_optimized(struct kunit *test)
{
#ifdef CONFIG_OPTPROBES
	struct kprobe *kp = kpc_probe(test, "kpx_opt", false);
	unsigned long hits;

	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpx_optimized(kp));
	hits = kprobe_int3_hits();
	KUNIT_EXPECT_EQ(test, kpc_call(KPC_OPT, 1), 8L);
	KUNIT_EXPECT_EQ(test, kprobe_int3_hits() - hits, 0UL);
	unregister_kprobe(kp);
	kpc_expect(test, "pre", &kpc.pre, 1);
#else
	kunit_skip(test, "no CONFIG_OPTPROBES");
#endif
}

/* kprobes on ftrace: the ftrace_ops callback */
static void kpc_ftrace(struct kunit *test)
{
#ifdef CONFIG_KPROBES_ON_FTRACE
	struct kprobe *kp = kpc_probe(test, "kpc_ftraced", true);
	unsigned long hits = kprobe_int3_hits();

	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(kp));
	kpc.post_ip = (unsigned long)kp->addr + MCOUNT_INSN_SIZE;
	KUNIT_EXPECT_EQ(test, kpc_call(KPC_FTRACED, 1), 6L);
	KUNIT_EXPECT_EQ(test, kprobe_int3_hits() - hits, 0UL);
	unregister_kprobe(kp);
	kpc_expect(test, "pre", &kpc.pre, 1);
	kpc_expect(test, "post", &kpc.post, 1);
#else
	kunit_skip(test, "no CONFIG_KPROBES_ON_FTRACE");
#endif
}

#ifdef CONFIG_KRETPROBES
/* A kretprobe on @sym, entered the way @check says; its return handled. */
static void kpc_kretprobe(struct kunit *test, const char *sym, int which,
			  long arg, long want, int kind)
{
	struct kretprobe *rp = kunit_kzalloc(test, sizeof(*rp), GFP_KERNEL);
	unsigned long hits;

	KUNIT_ASSERT_NOT_NULL(test, rp);
	memset(&kpc, 0, sizeof(kpc));
	kpc.rp = rp;
	rp->kp.symbol_name = sym;
	rp->entry_handler = kpc_entry;
	rp->handler = kpc_ret;
	KUNIT_ASSERT_EQ(test, register_kretprobe(rp), 0);
	if (kind == KPC_OPT) {
		wait_for_kprobe_optimizer();
		KUNIT_EXPECT_TRUE(test, kpx_optimized(&rp->kp));
	} else if (kind == KPC_FTRACED) {
		KUNIT_EXPECT_TRUE(test, kprobe_ftrace(&rp->kp));
	} else {
		KUNIT_EXPECT_FALSE(test, kpx_optimized(&rp->kp) ||
				   kprobe_ftrace(&rp->kp));
	}
	hits = kprobe_int3_hits();
	KUNIT_EXPECT_EQ(test, kpc_call(which, arg), want);
	KUNIT_EXPECT_EQ(test, kprobe_int3_hits() - hits,
			kind == KPC_BOOST ? 1UL : 0UL);
	unregister_kretprobe(rp);
	kpc_expect(test, "entry", &kpc.entry, 1);
	kpc_expect(test, "return", &kpc.ret, 1);
}
#endif

/* kretprobe entered through an int3 (boosted), returned through its trampoline */
static void kpc_kretprobe_int3(struct kunit *test)
{
#ifdef CONFIG_KRETPROBES
	kpc_kretprobe(test, "kpx_boost", KPC_BOOST, 4, 5, KPC_BOOST);
#else
	kunit_skip(test, "no CONFIG_KRETPROBES");
#endif
}

/* kretprobe entered through the optimizer's detour */
static void kpc_kretprobe_opt(struct kunit *test)
{
#if defined(CONFIG_KRETPROBES) && defined(CONFIG_OPTPROBES)
	kpc_kretprobe(test, "kpx_opt", KPC_OPT, 1, 8, KPC_OPT);
#else
	kunit_skip(test, "needs CONFIG_KRETPROBES and CONFIG_OPTPROBES");
#endif
}

/* kretprobe entered through ftrace */
static void kpc_kretprobe_ftrace(struct kunit *test)
{
#if defined(CONFIG_KRETPROBES) && defined(CONFIG_KPROBES_ON_FTRACE)
	kpc_kretprobe(test, "kpc_ftraced", KPC_FTRACED, 1, 6, KPC_FTRACED);
#else
	kunit_skip(test, "needs CONFIG_KRETPROBES and CONFIG_KPROBES_ON_FTRACE");
#endif
}

/* a jprobe handler: what an ordinary function of the probed context has */
static void kpc_jprobe(struct kunit *test)
{
#ifdef CONFIG_JPROBES
	struct jprobe *jp = kunit_kzalloc(test, sizeof(*jp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, jp);
	memset(&kpc, 0, sizeof(kpc));
	jp->kp.symbol_name = "kpc_jtarget";
	jp->entry = kpc_jhandler;
	KUNIT_ASSERT_EQ(test, register_jprobe(jp), 0);
	KUNIT_EXPECT_EQ(test, kpc_call(KPC_JTARGET, 1), 4L);
	unregister_jprobe(jp);
	kpc_expect(test, "jprobe", &kpc.jp, 1);
#else
	kunit_skip(test, "no CONFIG_JPROBES");
#endif
}

/*
 * A fault_handler, for a page fault in a handler of each path: it runs
 * in the #PF handler's context, with the probe still running (status
 * as in the handler that faulted) and the fault's pt_regs (its ip, sp
 * and flags are the faulting handler's, not the probed code's, and its
 * orig_ax the fault's error code: those items are the handler's to know).
 */
static struct {
	unsigned long *bad;
	unsigned long insn, resume, status;
	void *area;
} kpc_f;

static void kpc_fault_load(void)
{
	kpx_rawload(kpc_f.bad);
}

static int kpc_fault_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpc_pre(p, regs);
	kpc_fault_load();
	return 0;
}

static void kpc_fault_post(struct kprobe *p, struct pt_regs *regs,
			   unsigned long flags)
{
	kpc_post(p, regs, flags);
	kpc_fault_load();
}

static int kpc_fault_fh(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	if (regs->ip != kpc_f.insn)
		return 0;
	kpc_check(&kpc.fault, regs, p, kpc_f.status, 0, KPC_SP_ENTRY,
		  BIT(KPC_SP) | BIT(KPC_IP) | BIT(KPC_FLAGS) |
		  BIT(KPC_ORIG_AX));
	regs->ip = kpc_f.resume;
	return 1;
}

/*
 * A probe on @sym whose pre (or post, with @post) handler faults, and
 * whose fault_handler skips the load; registered, not yet hit.
 */
static struct kprobe *kpc_fault_probe(struct kunit *test, const char *sym,
				      bool post)
{
	struct kprobe *kp = kunit_kzalloc(test, sizeof(*kp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, kp);
	memset(&kpc, 0, sizeof(kpc));
	kpc_f.bad = kpx_bad_kernel_ptr(test, &kpc_f.area);
	kpc_f.insn = kpx_sym("kpx_rawload_insn");
	kpc_f.resume = kpx_sym("kpx_rawload_end");
	kpc_f.status = post ? KPROBE_HIT_SSDONE : KPROBE_HIT_ACTIVE;
	kp->symbol_name = sym;
	if (post) {
		kp->pre_handler = kpc_pre;
		kp->post_handler = kpc_fault_post;
	} else {
		kp->pre_handler = kpc_fault_pre;
	}
	kp->fault_handler = kpc_fault_fh;
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	return kp;
}

static void kpc_fault_done(struct kunit *test, struct kprobe *kp)
{
	unregister_kprobe(kp);
	vfree(kpc_f.area);
	kpc_expect(test, "fault", &kpc.fault, 1);
}

/* a fault in a pre_handler on the int3 path */
static void kpc_fault_int3(struct kunit *test)
{
	struct kprobe *kp = kpc_fault_probe(test, "kpx_boost", false);

	KUNIT_EXPECT_EQ(test, kpc_call(KPC_BOOST, 4), 5L);
	kpc_expect(test, "pre", &kpc.pre, 1);
	kpc_fault_done(test, kp);
}

/* a fault in a post_handler run from the post copy */
static void kpc_fault_post_copy(struct kunit *test)
{
	struct kprobe *kp = kpc_fault_probe(test, "kpx_postcopy_insn", true);
	unsigned long traps = kprobe_step_traps();

	kpc.post_ip = (unsigned long)kp->addr + kpx_ai(kp)->len;
	KUNIT_EXPECT_EQ(test, kpc_call(KPC_POSTCOPY, 1), 101L);
	KUNIT_EXPECT_EQ(test, kprobe_step_traps() - traps, 0UL);
	kpc_expect(test, "post", &kpc.post, 1);
	kpc_fault_done(test, kp);
}

/* a fault in a pre_handler run from the optimized detour */
static void kpc_fault_optimized(struct kunit *test)
{
#ifdef CONFIG_OPTPROBES
	struct kprobe *kp = kpc_fault_probe(test, "kpx_opt", false);

	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpx_optimized(kp));
	KUNIT_EXPECT_EQ(test, kpc_call(KPC_OPT, 1), 8L);
	kpc_expect(test, "pre", &kpc.pre, 1);
	kpc_fault_done(test, kp);
#else
	kunit_skip(test, "no CONFIG_OPTPROBES");
#endif
}

/* a fault in a pre_handler run from ftrace */
static void kpc_fault_ftrace(struct kunit *test)
{
#ifdef CONFIG_KPROBES_ON_FTRACE
	struct kprobe *kp = kpc_fault_probe(test, "kpc_ftraced", false);

	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(kp));
	KUNIT_EXPECT_EQ(test, kpc_call(KPC_FTRACED, 1), 6L);
	kpc_expect(test, "pre", &kpc.pre, 1);
	kpc_fault_done(test, kp);
#else
	kunit_skip(test, "no CONFIG_KPROBES_ON_FTRACE");
#endif
}

/*
 * A fault_handler for a fault of the probed instruction's copy: in the
 * slot stepped after the trap (a load with an exception table entry,
 * which the fault_handler leaves to it) or in the post copy (a load
 * without one, which the fault_handler skips).  It sees its own probe as
 * kprobe_running(), KPROBE_HIT_SS, and the fault at the probed address.
 * Failed before: kprobe_running() was the probe's internal site.
 */
static struct {
	unsigned long resume;
	bool at_addr;
} kpc_fc;

static int kpc_fault_copy_fh(struct kprobe *p, struct pt_regs *regs,
			     int trapnr)
{
	kpc_check(&kpc.fault, regs, p, KPROBE_HIT_SS, 0, KPC_SP_ENTRY,
		  BIT(KPC_SP) | BIT(KPC_IP) | BIT(KPC_FLAGS) |
		  BIT(KPC_ORIG_AX));
	kpc_fc.at_addr = regs->ip == (unsigned long)p->addr;
	if (!kpc_fc.resume)
		return 0;
	regs->ip = kpc_fc.resume;
	return 1;
}

/* these are called directly, not from kpc_call(): only count the hits */
static int kpc_fault_copy_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kpc.pre.calls);
	return 0;
}

static void kpc_fault_copy_post(struct kprobe *p, struct pt_regs *regs,
				unsigned long flags)
{
	atomic_inc(&kpc.post.calls);
}

static void kpc_fault_copy(struct kunit *test)
{
	struct kprobe *kp = kunit_kcalloc(test, 2, sizeof(*kp), GFP_KERNEL);
	unsigned long out = 0, traps, *bad;
	void *area;

	KUNIT_ASSERT_NOT_NULL(test, kp);
	memset(&kpc, 0, sizeof(kpc));
	memset(&kpc_fc, 0, sizeof(kpc_fc));
	bad = kpx_bad_kernel_ptr(test, &area);

	/* stepped: the exception table entry makes the copy unboostable */
	kp[0].symbol_name = "kpx_exload_insn";
	kp[0].pre_handler = kpc_fault_copy_pre;
	kp[0].fault_handler = kpc_fault_copy_fh;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp[0]), 0);
	KUNIT_EXPECT_FALSE(test, kpx_ai(&kp[0])->boostable);
	traps = kprobe_step_traps();
	KUNIT_EXPECT_EQ(test, kpx_exload(bad, &out), (long)-EFAULT);
	KUNIT_EXPECT_EQ(test, kprobe_step_traps() - traps, 0UL);
	unregister_kprobe(&kp[0]);
	kpc_expect(test, "pre", &kpc.pre, 1);
	kpc_expect(test, "fault (stepped copy)", &kpc.fault, 1);
	KUNIT_EXPECT_TRUE(test, kpc_fc.at_addr);

	/* the post copy: the fault_handler skips the load */
	memset(&kpc, 0, sizeof(kpc));
	memset(&kpc_fc, 0, sizeof(kpc_fc));
	kpc_fc.resume = kpx_sym("kpx_rawload_end");
	kp[1].symbol_name = "kpx_rawload_insn";
	kp[1].pre_handler = kpc_fault_copy_pre;
	kp[1].post_handler = kpc_fault_copy_post;
	kp[1].fault_handler = kpc_fault_copy_fh;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp[1]), 0);
	KUNIT_EXPECT_TRUE(test, kpx_ai(&kp[1])->boostable);
	traps = kprobe_step_traps();
	KUNIT_EXPECT_EQ(test, kpx_rawload(bad), -1L);
	KUNIT_EXPECT_EQ(test, kprobe_step_traps() - traps, 0UL);
	unregister_kprobe(&kp[1]);
	vfree(area);
	kpc_expect(test, "pre", &kpc.pre, 1);
	kpc_expect(test, "fault (post copy)", &kpc.fault, 1);
	/* the fault_handler moved the ip: no post_handler */
	KUNIT_EXPECT_EQ(test, atomic_read(&kpc.post.calls), 0);
	KUNIT_EXPECT_TRUE(test, kpc_fc.at_addr);
}

static struct kunit_case kprobes_x86_context_cases[] = {
	KUNIT_CASE(kpc_int3_step),
	KUNIT_CASE(kpc_int3_emulated),
	KUNIT_CASE(kpc_boosted),
	KUNIT_CASE(kpc_post_copy),
	KUNIT_CASE(kpc_optimized),
	KUNIT_CASE(kpc_ftrace),
	KUNIT_CASE(kpc_kretprobe_int3),
	KUNIT_CASE(kpc_kretprobe_opt),
	KUNIT_CASE(kpc_kretprobe_ftrace),
	KUNIT_CASE(kpc_jprobe),
	KUNIT_CASE(kpc_fault_int3),
	KUNIT_CASE(kpc_fault_post_copy),
	KUNIT_CASE(kpc_fault_optimized),
	KUNIT_CASE(kpc_fault_ftrace),
	KUNIT_CASE(kpc_fault_copy),
	{}
};

static struct kunit_suite kprobes_x86_context_suite = {
	.name = "kprobes_x86_context",
	.test_cases = kprobes_x86_context_cases,
};

kunit_test_suite(kprobes_x86_context_suite);
