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
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/vmalloc.h>
#include <linux/rcupdate.h>
#include <linux/preempt.h>
#include <linux/context_tracking.h>
#include <kunit/test.h>
#include <linux/irqflags.h>
#include <asm/processor-flags.h>
#include <asm/segment.h>
#include <asm/text-patching.h>
#include <asm/asm.h>
#include <asm/ibt.h>
#include <linux/linkage.h>
#include <asm/smap.h>
#include <linux/cpufeature.h>

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
	atomic_t int3;		/* of them in the int3 trap (kpx_in_int3()) */
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
	if (kpx_in_int3())
		atomic_inc(&s->int3);
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

#ifdef CONFIG_JPROBES
static long kpc_jhandler(long x)
{
	kpc_check(&kpc.jp, NULL, NULL, 0, 0, KPC_SP_ENTRY,
		  BIT(KPC_IF) | BIT(KPC_RUNNING) | BIT(KPC_STATUS));
	jprobe_return();
	return 0;
}
#endif

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
	unsigned long traps = kpx_step_traps();

	kpc.post_ip = (unsigned long)kp->addr + kpx_ai(kp)->len;
	KUNIT_EXPECT_EQ(test, kpc_call(KPC_EXLOAD, 17), 17L);
	KUNIT_EXPECT_EQ(test, kpx_step_traps() - traps, 1UL);
	unregister_kprobe(kp);
	kpc_expect(test, "pre", &kpc.pre, 1);
	kpc_expect(test, "post", &kpc.post, 1);
}

/* int3 trap, the instruction (jmp through memory) emulated in it */
static void kpc_int3_emulated(struct kunit *test)
{
	struct kprobe *kp = kpc_probe(test, "kpx_ijmp_insn", true);
	unsigned long traps = kpx_step_traps();

	KUNIT_EXPECT_EQ(test, kpx_ai(kp)->kind, KPX_JMP_IND);
	kpc.post_ip = (unsigned long)kpx_leaf;
	KUNIT_EXPECT_EQ(test, kpc_call(KPC_IJMP, 0), 41L);
	KUNIT_EXPECT_EQ(test, kpx_step_traps() - traps, 0UL);
	unregister_kprobe(kp);
	kpc_expect(test, "pre", &kpc.pre, 1);
	kpc_expect(test, "post", &kpc.post, 1);
}

/* int3 trap, then the slot's boosted copy: no second trap */
static void kpc_boosted(struct kunit *test)
{
	struct kprobe *kp = kpc_probe(test, "kpx_boost", false);
	unsigned long traps = kpx_step_traps();

	KUNIT_EXPECT_TRUE(test, kpx_ai(kp)->boostable);
	KUNIT_EXPECT_EQ(test, kpc_call(KPC_BOOST, 4), 5L);
	KUNIT_EXPECT_EQ(test, kpx_step_traps() - traps, 0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpc.pre.int3), 1);
	unregister_kprobe(kp);
	kpc_expect(test, "pre", &kpc.pre, 1);
}

/* int3 trap, then the post copy: post_handler from the step trampoline */
static void kpc_post_copy(struct kunit *test)
{
	struct kprobe *kp = kpc_probe(test, "kpx_postcopy_insn", true);
	unsigned long traps = kpx_step_traps();

	kpc.post_ip = (unsigned long)kp->addr + kpx_ai(kp)->len;
	KUNIT_EXPECT_EQ(test, kpc_call(KPC_POSTCOPY, 1), 101L);
	KUNIT_EXPECT_EQ(test, kpx_step_traps() - traps, 0UL);
	unregister_kprobe(kp);
	kpc_expect(test, "pre", &kpc.pre, 1);
	kpc_expect(test, "post", &kpc.post, 1);
}

/* the jump optimizer's detour: no trap at all */
static void kpc_optimized(struct kunit *test)
{
#ifdef CONFIG_OPTPROBES
	struct kprobe *kp = kpc_probe(test, "kpx_opt", false);

	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpx_optimized(kp));
	KUNIT_EXPECT_EQ(test, kpc_call(KPC_OPT, 1), 8L);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpc.pre.int3), 0);
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

	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(kp));
	kpc.post_ip = (unsigned long)kp->addr + MCOUNT_INSN_SIZE;
	KUNIT_EXPECT_EQ(test, kpc_call(KPC_FTRACED, 1), 6L);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpc.pre.int3), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpc.post.int3), 0);
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
	KUNIT_EXPECT_EQ(test, kpc_call(which, arg), want);
	/* the entry's int3, if any: the return takes none */
	KUNIT_EXPECT_EQ(test, atomic_read(&kpc.entry.int3),
			kind == KPC_BOOST ? 1 : 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpc.ret.int3), 0);
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
	unsigned long traps = kpx_step_traps();

	kpc.post_ip = (unsigned long)kp->addr + kpx_ai(kp)->len;
	KUNIT_EXPECT_EQ(test, kpc_call(KPC_POSTCOPY, 1), 101L);
	KUNIT_EXPECT_EQ(test, kpx_step_traps() - traps, 0UL);
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

/* ---------------------------------------------------------------------
 * The flags and RCU items where they can fail
 *
 * The cases above run probed code with DF and AC clear and RCU watching:
 * a path that merely passed those through would pass them.  Here the
 * probed code runs with DF set (std), with AC set (stac: inside a user
 * access region) and where RCU does not watch (between ct_idle_enter()
 * and ct_idle_exit()), and the handlers must still see DF and AC clear
 * and RCU watching, while their pt_regs show the probed code's flags.
 *
 * DF and AC are set around the probed instruction on the paths that
 * probe an instruction inside a function: int3 stepped, emulated,
 * boosted, post copy, optimized detour.  A kretprobe's return is probed
 * with DF set too (the kretprobe trampoline clears it, whatever the
 * ABI says of a return).  At a function's entry (ftrace, a kretprobe's
 * entry, a jprobe) and its return, DF set is an ABI violation of the
 * probed code's caller, and AC set one that objtool rejects: those
 * paths are not probed with them.  Where RCU does not watch every path
 * is probed but the jprobe's (its entry is an ordinary function of the
 * probed context); the ftrace path skips such a hit and runs no handler.
 */
asmlinkage long kpcx_df_step(const unsigned long *src);
asmlinkage long kpcx_df_emul(void);
asmlinkage long kpcx_df_boost(long x);
asmlinkage long kpcx_df_opt(long x);
asmlinkage long kpcx_df_ret_caller(void);
asmlinkage long kpcx_ac_step(const unsigned long *src);
asmlinkage long kpcx_ac_emul(void);
asmlinkage long kpcx_ac_boost(long x);
asmlinkage long kpcx_ac_opt(long x);

#define KPC_FUNC(name)						\
	ASM_FUNC_ALIGN "\n"					\
	"	.globl " #name "\n"					\
	"	.type " #name ", @function\n"				\
	#name ":\n"						\
	ASM_ENDBR
#define KPC_END(name)	"	.size " #name ", . - " #name "\n"
#define KPC_LABEL(name)	"	.globl " #name "\n" #name ":\n"

/*
 * The argument: in a register on x86_64, on the stack on i386 (loaded
 * into %ecx first, which leaves the stack pointer as it was).
 */
#ifdef CONFIG_X86_64
#define KPC_LOAD_ARG	""
#define KPC_ARG		"%rdi"
#define KPC_ARG32	"%edi"
#else
#define KPC_LOAD_ARG	"	movl 4(%esp), %ecx\n"
#define KPC_ARG		"%ecx"
#define KPC_ARG32	"%ecx"
#endif

/*
 * kpcx_F_step(src): *src, read by an instruction with an exception
 * table entry (stepped); kpcx_F_emul(): 3, after a jmp (emulated);
 * kpcx_F_boost(x): x + 1 when x is nonzero, by a boostable instruction
 * that a jump target right behind it keeps from being optimized;
 * kpcx_F_opt(x): x + 7, an optimizable region.  Each with the flag F
 * set (\set) at the probed instruction.
 */
#define KPC_FLAG_FUNCS(f, set, clr)					\
KPC_FUNC(kpcx_##f##_step)						\
	KPC_LOAD_ARG							\
	set								\
KPC_LABEL(kpcx_##f##_step_insn)						\
"1:	mov (" KPC_ARG "), %" _ASM_AX "\n"				\
"2:\n"									\
	clr								\
	ASM_RET								\
	_ASM_EXTABLE(1b, 2b)						\
KPC_END(kpcx_##f##_step)						\
KPC_FUNC(kpcx_##f##_emul)						\
	set								\
KPC_LABEL(kpcx_##f##_emul_insn)						\
"	jmp 3f\n"							\
KPC_LABEL(kpcx_##f##_emul_target)					\
"3:	movl $3, %eax\n"						\
	clr								\
	ASM_RET								\
KPC_END(kpcx_##f##_emul)						\
KPC_FUNC(kpcx_##f##_boost)						\
	KPC_LOAD_ARG							\
	set								\
"	xorl %eax, %eax\n"						\
"	test " KPC_ARG ", " KPC_ARG "\n"				\
"	jz 4f\n"							\
KPC_LABEL(kpcx_##f##_boost_insn)					\
"	leal 1(" KPC_ARG "), %eax\n"					\
"4:\n"									\
	clr								\
	ASM_RET								\
KPC_END(kpcx_##f##_boost)						\
KPC_FUNC(kpcx_##f##_opt)						\
	KPC_LOAD_ARG							\
	set								\
KPC_LABEL(kpcx_##f##_opt_insn)						\
"	movl $7, %eax\n"						\
"	addl " KPC_ARG32 ", %eax\n"					\
	clr								\
	ASM_RET								\
KPC_END(kpcx_##f##_opt)

asm("	.pushsection .text, \"ax\"\n"
KPC_FLAG_FUNCS(df, "	std\n", "	cld\n")
KPC_FLAG_FUNCS(ac, ASM_STAC, ASM_CLAC)
/*
 * long kpcx_df_ret(void): 5, returning with DF set.  DF is set and
 * cleared through popf, which objtool (rightly rejecting a return with
 * DF set) does not follow.
 */
KPC_FUNC(kpcx_df_ret)
"	movl $5, %eax\n"
"	pushf\n"
"	orl $(1 << " __stringify(X86_EFLAGS_DF_BIT) "), (%" _ASM_SP ")\n"
"	popf\n"
	ASM_RET
KPC_END(kpcx_df_ret)
/* long kpcx_df_ret_caller(void): kpcx_df_ret(), DF cleared after it */
KPC_FUNC(kpcx_df_ret_caller)
"	push %" _ASM_BP "\n"
"	mov %" _ASM_SP ", %" _ASM_BP "\n"
"	call kpcx_df_ret\n"
"	pushf\n"
"	andl $~(1 << " __stringify(X86_EFLAGS_DF_BIT) "), (%" _ASM_SP ")\n"
"	popf\n"
"	pop %" _ASM_BP "\n"
	ASM_RET
KPC_END(kpcx_df_ret_caller)
"	.popsection\n");

/* The items a case does not check, and the flags pt_regs showed. */
static struct {
	unsigned long exempt;
	unsigned long regs_flags;
} kpc_set;

static int kpc_set_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpc_set.regs_flags |= regs->flags;
	kpc_check(&kpc.pre, regs, p, KPROBE_HIT_ACTIVE,
		  (unsigned long)p->addr + INT3_INSN_SIZE, KPC_SP_ENTRY,
		  kpc_set.exempt);
	return 0;
}

static void kpc_set_post(struct kprobe *p, struct pt_regs *regs,
			 unsigned long flags)
{
	kpc_set.regs_flags |= regs->flags;
	kpc_check(&kpc.post, regs, p, KPROBE_HIT_SSDONE, kpc.post_ip,
		  KPC_SP_ENTRY, kpc_set.exempt);
}

static int __maybe_unused kpc_set_entry(struct kretprobe_instance *ri,
					struct pt_regs *regs)
{
	struct kprobe *p = &kpc.rp->kp;

	kpc_check(&kpc.entry, regs, p, KPROBE_HIT_ACTIVE,
		  (unsigned long)p->addr + INT3_INSN_SIZE, KPC_SP_ENTRY,
		  kpc_set.exempt);
	return 0;
}

static int __maybe_unused kpc_set_ret(struct kretprobe_instance *ri,
				      struct pt_regs *regs)
{
	kpc_set.regs_flags |= regs->flags;
	kpc_check(&kpc.ret, regs, &kpc.rp->kp, KPROBE_HIT_ACTIVE, 0,
		  KPC_SP_RETURNED, kpc_set.exempt);
	return 0;
}

/* A probe at @sym with kpc_set's handlers (a post_handler with @post). */
static struct kprobe *kpc_set_probe(struct kunit *test, const char *sym,
				    bool post, unsigned long exempt)
{
	struct kprobe *kp = kunit_kzalloc(test, sizeof(*kp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, kp);
	memset(&kpc, 0, sizeof(kpc));
	kpc_set.exempt = exempt;
	kpc_set.regs_flags = 0;
	kp->symbol_name = sym;
	kp->pre_handler = kpc_set_pre;
	if (post)
		kp->post_handler = kpc_set_post;
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	return kp;
}

enum kpc_set_path {
	KPC_SET_STEP, KPC_SET_EMUL, KPC_SET_BOOST, KPC_SET_POST, KPC_SET_OPT,
	KPC_SET_NPATHS
};

static const char * const kpc_set_path_name[KPC_SET_NPATHS] = {
	"int3 stepped", "int3 emulated", "int3 boosted", "post copy",
	"optimized",
};

struct kpc_set_funcs {
	const char *name;		/* "df" or "ac" */
	unsigned long bit;		/* X86_EFLAGS_DF or X86_EFLAGS_AC */
};

/* The call of @f's function for @path, with its expected result. */
static long kpc_set_call(const struct kpc_set_funcs *f, int path, long *want)
{
	bool ac = f->bit == X86_EFLAGS_AC;
	unsigned long v = 5;

	switch (path) {
	case KPC_SET_STEP:
		*want = 5;
		return ac ? kpcx_ac_step(&v) : kpcx_df_step(&v);
	case KPC_SET_EMUL:
		*want = 3;
		return ac ? kpcx_ac_emul() : kpcx_df_emul();
	case KPC_SET_BOOST:
	case KPC_SET_POST:
		*want = 5;
		return ac ? kpcx_ac_boost(4) : kpcx_df_boost(4);
	default:
		*want = 8;
		return ac ? kpcx_ac_opt(1) : kpcx_df_opt(1);
	}
}

/* The five paths of one flag's functions, each with its handlers checked. */
static void kpc_set_paths(struct kunit *test, const struct kpc_set_funcs *f)
{
	/* Not called from kpc_call(): the return address is elsewhere. */
	unsigned long exempt = BIT(KPC_SP);
	char sym[32];
	int path;

	for (path = 0; path < KPC_SET_NPATHS; path++) {
		static const char * const suffix[KPC_SET_NPATHS] = {
			"step_insn", "emul_insn", "boost_insn", "boost_insn",
			"opt_insn",
		};
		bool post = path != KPC_SET_BOOST && path != KPC_SET_OPT;
		unsigned long traps;
		struct kprobe *kp;
		long ret, want;

		snprintf(sym, sizeof(sym), "kpcx_%s_%s", f->name, suffix[path]);
		kp = kpc_set_probe(test, sym, post, exempt);
		if (path == KPC_SET_OPT || path == KPC_SET_BOOST) {
			wait_for_kprobe_optimizer();
			KUNIT_EXPECT_EQ_MSG(test, kpx_optimized(kp),
					    path == KPC_SET_OPT &&
					    IS_ENABLED(CONFIG_OPTPROBES),
					    "%s: optimized", sym);
		}
		if (path == KPC_SET_EMUL) {
			snprintf(sym, sizeof(sym), "kpcx_%s_emul_target",
				 f->name);
			kpc.post_ip = kpx_sym(sym);
		} else {
			kpc.post_ip = (unsigned long)kp->addr +
				      kpx_ai(kp)->len;
		}
		traps = kpx_step_traps();
		ret = kpc_set_call(f, path, &want);
		KUNIT_EXPECT_EQ_MSG(test, ret, want, "%s", sym);
		KUNIT_EXPECT_EQ_MSG(test, kpx_step_traps() - traps,
				    path == KPC_SET_STEP ? 1UL : 0UL,
				    "%s: second traps", sym);
		if (path != KPC_SET_OPT || !IS_ENABLED(CONFIG_OPTPROBES))
			KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kpc.pre.int3), 1,
					    "%s: int3 hits", sym);
		unregister_kprobe(kp);
		kunit_info(test, "%s flag set: %s path\n", f->name,
			   kpc_set_path_name[path]);
		kpc_expect(test, kpc_set_path_name[path], &kpc.pre, 1);
		if (post)
			kpc_expect(test, kpc_set_path_name[path], &kpc.post, 1);
		KUNIT_EXPECT_TRUE_MSG(test, kpc_set.regs_flags & f->bit,
				      "%s: pt_regs without the probed code's %s",
				      kpc_set_path_name[path], f->name);
	}
}

/* DF set in the probed code: every path's handlers run with it clear. */
static void kpc_df_set(struct kunit *test)
{
	static const struct kpc_set_funcs df = { "df", X86_EFLAGS_DF };

	kpc_set_paths(test, &df);
#ifdef CONFIG_KRETPROBES
	{
		struct kretprobe *rp = kunit_kzalloc(test, sizeof(*rp),
						     GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, rp);
		memset(&kpc, 0, sizeof(kpc));
		/* Not called from kpc_call(); the entry's DF is clear. */
		kpc_set.exempt = BIT(KPC_SP) | BIT(KPC_IP);
		kpc_set.regs_flags = 0;
		kpc.rp = rp;
		rp->kp.symbol_name = "kpcx_df_ret";
		rp->entry_handler = kpc_set_entry;
		rp->handler = kpc_set_ret;
		KUNIT_ASSERT_EQ(test, register_kretprobe(rp), 0);
		KUNIT_EXPECT_EQ(test, kpcx_df_ret_caller(), 5L);
		unregister_kretprobe(rp);
		kpc_expect(test, "entry", &kpc.entry, 1);
		kpc_expect(test, "return", &kpc.ret, 1);
		KUNIT_EXPECT_TRUE_MSG(test, kpc_set.regs_flags & X86_EFLAGS_DF,
				      "return: pt_regs without the DF returned with");
	}
#endif
}

/* AC set in the probed code (a user access region): handlers see it clear. */
static void kpc_ac_set(struct kunit *test)
{
	static const struct kpc_set_funcs ac = { "ac", X86_EFLAGS_AC };

	if (!cpu_feature_enabled(X86_FEATURE_SMAP))
		kunit_skip(test, "no SMAP: stac does not set AC");
	kpc_set_paths(test, &ac);
}

/*
 * Where RCU does not watch: kpc_call() of each path's target between
 * ct_idle_enter() and ct_idle_exit(), interrupts off (as idle code runs:
 * the pt_regs flags then lack IF, which the checks above expect).
 */
#ifdef CONFIG_CONTEXT_TRACKING_IDLE
static long kpc_idle_call(int which, long arg)
{
	long ret;

	local_irq_disable();
	ct_idle_enter();
	ret = kpc_call(which, arg);
	ct_idle_exit();
	local_irq_enable();
	return ret;
}
#endif

static void kpc_rcu_idle(struct kunit *test)
{
#ifdef CONFIG_CONTEXT_TRACKING_IDLE
	static const struct {
		const char *sym, *name;
		int which;
		long arg, want;
		bool post;
	} t[] = {
		{ "kpx_exload_insn", "int3 stepped", KPC_EXLOAD, 17, 17, true },
		{ "kpx_ijmp_insn", "int3 emulated", KPC_IJMP, 0, 41, true },
		{ "kpx_boost", "int3 boosted", KPC_BOOST, 4, 5, false },
		{ "kpx_postcopy_insn", "post copy", KPC_POSTCOPY, 1, 101, true },
		{ "kpx_opt", "optimized", KPC_OPT, 1, 8, false },
		{ "kpc_ftraced", "ftrace", KPC_FTRACED, 1, 6, true },
	};
	unsigned long exempt = BIT(KPC_FLAGS);
	int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct kprobe *kp = kpc_set_probe(test, t[i].sym, t[i].post,
						  exempt);
		bool ftraced = kprobe_ftrace(kp);

		if (!t[i].post)
			wait_for_kprobe_optimizer();
		if (t[i].which == KPC_IJMP)
			kpc.post_ip = (unsigned long)kpx_leaf;
		else if (ftraced)	/* past the fentry call */
			kpc.post_ip = (unsigned long)kp->addr + CALL_INSN_SIZE;
		else
			kpc.post_ip = (unsigned long)kp->addr + kpx_ai(kp)->len;
		KUNIT_EXPECT_EQ_MSG(test, kpc_idle_call(t[i].which, t[i].arg),
				    t[i].want, "%s", t[i].name);
		unregister_kprobe(kp);
		kunit_info(test, "RCU not watching: %s path\n", t[i].name);
		/* ftrace: the hit is skipped, no handler runs */
		kpc_expect(test, t[i].name, &kpc.pre, ftraced ? 0 : 1);
		if (t[i].post)
			kpc_expect(test, t[i].name, &kpc.post, ftraced ? 0 : 1);
	}
#ifdef CONFIG_KRETPROBES
	{
		struct kretprobe *rp = kunit_kzalloc(test, sizeof(*rp),
						     GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, rp);
		memset(&kpc, 0, sizeof(kpc));
		kpc_set.exempt = exempt;
		kpc.rp = rp;
		rp->kp.symbol_name = "kpx_boost";
		rp->entry_handler = kpc_set_entry;
		rp->handler = kpc_set_ret;
		KUNIT_ASSERT_EQ(test, register_kretprobe(rp), 0);
		KUNIT_EXPECT_EQ(test, kpc_idle_call(KPC_BOOST, 4), 5L);
		unregister_kretprobe(rp);
		kunit_info(test, "RCU not watching: kretprobe\n");
		kpc_expect(test, "entry", &kpc.entry, 1);
		kpc_expect(test, "return", &kpc.ret, 1);
	}
#endif
#else
	kunit_skip(test, "no CONFIG_CONTEXT_TRACKING_IDLE (TINY_RCU): RCU always watches");
#endif
}

/*
 * A fault_handler for a fault of the probed instruction's copy: in the
 * slot stepped after the trap (a load with an exception table entry,
 * which the fault_handler leaves to it) or in the post copy (a load
 * without one, which the fault_handler skips).  It sees its own probe as
 * kprobe_running(), KPROBE_HIT_SS, and the fault at the probed address.
 * It catches a kprobe_running() that is the probe's internal site.
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
	traps = kpx_step_traps();
	KUNIT_EXPECT_EQ(test, kpx_exload(bad, &out), (long)-EFAULT);
	KUNIT_EXPECT_EQ(test, kpx_step_traps() - traps, 0UL);
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
	traps = kpx_step_traps();
	KUNIT_EXPECT_EQ(test, kpx_rawload(bad), -1L);
	KUNIT_EXPECT_EQ(test, kpx_step_traps() - traps, 0UL);
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
	KUNIT_CASE(kpc_df_set),
	KUNIT_CASE(kpc_ac_set),
	KUNIT_CASE(kpc_rcu_idle),
	KUNIT_CASE(kpc_fault_copy),
	{}
};

static struct kunit_suite kprobes_x86_context_suite = {
	.name = "kprobes_x86_context",
	.suite_init = kpx_watch_steps,
	.suite_exit = kpx_unwatch_steps,
	.test_cases = kprobes_x86_context_cases,
};

kunit_test_suite(kprobes_x86_context_suite);
