// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit tests for kprobes.
 *
 * kprobes_core: registration and its errors, hit counts, handler order on
 * an aggregate site, reentrancy, redirection by a pre_handler,
 * enable/disable, batches, fault_handler.  Architecture-neutral: how an
 * architecture runs the probed instructions is tested beside its port
 * (arch/x86/kernel/kprobes/test-kprobes-*.c,
 * arch/arm64/kernel/probes/test-kprobes-*.c).
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/jump_label.h>
#include <linux/error-injection.h>
#include <linux/ftrace.h>
#include <linux/vmalloc.h>
#include <linux/uaccess.h>
#include <linux/module.h>
#include <linux/kthread.h>
#include <linux/stacktrace.h>
#include <linux/delay.h>
#include <linux/cpumask.h>
#include <linux/workqueue.h>
#include <kunit/test.h>
#include <kunit/static_stub.h>
/* kprobe_module_text_left() and the slot cache's, exported for this test only */
#include "../kernel/kprobes_internal.h"
#ifdef CONFIG_X86
#include <asm/trapnr.h>
#endif

/*
 * Where calls from the kernel enter a function: powerpc64's ELFv2
 * functions set up the TOC at their global entry (the symbol) and are
 * called past it, at the local entry.  A probe's .addr stays where it is
 * given (only kprobe_lookup_name() moves a symbol's probe), so the probes
 * that must see calls are put there.
 */
#ifdef CONFIG_PPC64_ELF_ABI_V2
#include <asm/code-patching.h>
#define KPT_ADDR(fn)	((kprobe_opcode_t *)ppc_function_entry((void *)(fn)))
#else
#define KPT_ADDR(fn)	((kprobe_opcode_t *)(fn))
#endif

/*
 * Where a pre_handler sees the ip: on x86 past the int3 (the probed
 * address + 1) on every path, as after the breakpoint; elsewhere at
 * the probed address.
 */
#ifdef CONFIG_X86
#define KPT_IP_BIAS	1UL
#else
#define KPT_IP_BIAS	0UL
#endif

/*
 * Probe targets: real functions with symbols, never folded away.  gcc's
 * noipa keeps them whole; clang has no noipa: noinline keeps them out of
 * line, and __used (an unknown user) keeps clang's interprocedural passes
 * from dropping or specialising their arguments and results.
 */
static int kpt_calls;

static noinline __used __noipa int kpt_target1(int x)
{
	WRITE_ONCE(kpt_calls, kpt_calls + 1);
	return x * 3 + 1;
}

static noinline __used __noipa int kpt_target2(int x)
{
	WRITE_ONCE(kpt_calls, kpt_calls + 1);
	return x ^ 0x5a;
}

static noinline __used __noipa int kpt_target3(int x)
{
	WRITE_ONCE(kpt_calls, kpt_calls + 1);
	return x - 7;
}

static noinline __used __noipa int kpt_blacklisted(int x)
{
	WRITE_ONCE(kpt_calls, kpt_calls + 1);
	return x + 2;
}

NOKPROBE_SYMBOL(kpt_blacklisted);

static DEFINE_STATIC_KEY_FALSE(kpt_key);

static noinline __used __noipa int kpt_keyed(int x)
{
	WRITE_ONCE(kpt_calls, kpt_calls + 1);
	if (static_branch_unlikely(&kpt_key))
		return x + 100;
	return x;
}

static int kpt_data = 1;

/* The site probe at an address (nothing unregisters it meanwhile). */
static struct kprobe *kpt_get(void *addr)
{
	struct kprobe *p;

	rcu_read_lock();
	p = get_kprobe(addr);
	rcu_read_unlock();
	return p;
}

/* ---------------------------------------------------------------------
 * Handlers that record what ran
 */

#define KPT_LOG 16

struct kpt_state {
	int pre, post, fault;
	int log[KPT_LOG];
	int nlog;
	unsigned long ip_pre;
};

static struct kpt_state kst;

static void kpt_log(int v)
{
	if (kst.nlog < KPT_LOG)
		kst.log[kst.nlog++] = v;
}

static void kpt_reset(void)
{
	memset(&kst, 0, sizeof(kst));
}

/* A probe with an id for the log */
struct kpt_probe {
	struct kprobe kp;
	int id;
};

static int kpt_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct kpt_probe *t = container_of(p, struct kpt_probe, kp);

	kst.pre++;
	kst.ip_pre = instruction_pointer(regs);
	kpt_log(t->id);
	/* The running probe is the one whose handler runs. */
	if (kprobe_running() != p)
		kpt_log(-1000);
	return 0;
}

static void kpt_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	struct kpt_probe *t = container_of(p, struct kpt_probe, kp);

	kst.post++;
	kpt_log(100 + t->id);
}

static int kpt_simple_pre(struct kprobe *p, struct pt_regs *regs)
{
	kst.pre++;
	return 0;
}

static void kpt_simple_post(struct kprobe *p, struct pt_regs *regs,
			    unsigned long flags)
{
	kst.post++;
}

/* ---------------------------------------------------------------------
 * kprobes_core
 */

static void kpt_hit_counts(struct kunit *test)
{
	struct kpt_probe t = {
		.kp = {
			.addr = KPT_ADDR(kpt_target1),
			.pre_handler = kpt_pre,
			.post_handler = kpt_post,
		},
		.id = 1,
	};
	int i;

	kpt_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&t.kp), 0);
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ(test, kpt_target1(i), i * 3 + 1);
	KUNIT_EXPECT_EQ(test, kst.pre, 10);
	KUNIT_EXPECT_EQ(test, kst.post, 10);
	/* pre before post, and kprobe_running() was the probe */
	KUNIT_EXPECT_EQ(test, kst.log[0], 1);
	KUNIT_EXPECT_EQ(test, kst.log[1], 101);
	KUNIT_EXPECT_EQ(test, kst.log[2], 1);
	/* handlers see the ip at the probed instruction (x86: past the int3) */
	KUNIT_EXPECT_EQ(test, kst.ip_pre,
			(unsigned long)t.kp.addr + KPT_IP_BIAS);
	KUNIT_EXPECT_EQ(test, t.kp.nmissed, 0UL);
	KUNIT_EXPECT_NOT_NULL(test, kpt_get(t.kp.addr));
	unregister_kprobe(&t.kp);

	KUNIT_EXPECT_TRUE(test, list_empty(&t.kp.list));
	KUNIT_EXPECT_TRUE(test, hlist_unhashed(&t.kp.hlist));
	KUNIT_EXPECT_NULL(test, kpt_get(t.kp.addr));
	kpt_target1(1);
	KUNIT_EXPECT_EQ(test, kst.pre, 10);
	KUNIT_EXPECT_EQ(test, kst.post, 10);
}

static void kpt_by_symbol(struct kunit *test)
{
	struct kprobe kp = {
		.symbol_name = "kpt_target2",
		.pre_handler = kpt_simple_pre,
	};
	unsigned long size, off;

	kpt_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	/* The resolved address is kept, at the function's entry. */
	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset((unsigned long)kp.addr,
							    &size, &off));
	KUNIT_EXPECT_EQ(test, (unsigned long)kp.addr - off,
			(unsigned long)kpt_target2);
	KUNIT_EXPECT_TRUE(test, kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
	KUNIT_EXPECT_EQ(test, kprobe_on_func_entry(NULL, "kpt_target2", 0), 0);
	KUNIT_EXPECT_EQ(test, kpt_target2(3), 3 ^ 0x5a);
	KUNIT_EXPECT_EQ(test, kst.pre, 1);
	unregister_kprobe(&kp);

	/* symbol + offset: the second instruction is not the entry */
	KUNIT_EXPECT_EQ(test, kprobe_on_func_entry(NULL, "kpt_no_such_symbol", 0),
			-ENOENT);
	KUNIT_EXPECT_EQ(test,
			kprobe_on_func_entry(KPT_ADDR(kpt_target2),
					     "kpt_target2", 0), -EINVAL);
}

static void kpt_errors(struct kunit *test)
{
	struct kprobe kp = { .pre_handler = kpt_simple_pre };
	unsigned long end, a;
	int err;

	/* no probe at all, an empty or absent batch */
	KUNIT_EXPECT_EQ(test, register_kprobe(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_kprobes(NULL, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_kprobes((struct kprobe *[]){ &kp }, 0),
			-EINVAL);
	/* neither addr nor symbol */
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EINVAL);
	/* both */
	kp.addr = KPT_ADDR(kpt_target1);
	kp.symbol_name = "kpt_target1";
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EINVAL);
	/* unknown symbol */
	memset(&kp, 0, sizeof(kp));
	kp.symbol_name = "kpt_no_such_symbol";
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -ENOENT);
	/* blacklisted: NOKPROBE_SYMBOL() and kprobes' own code */
	memset(&kp, 0, sizeof(kp));
	kp.addr = (kprobe_opcode_t *)kpt_blacklisted;
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EINVAL);
	KUNIT_EXPECT_TRUE(test, within_kprobe_blacklist((unsigned long)kpt_blacklisted));
	memset(&kp, 0, sizeof(kp));
	kp.symbol_name = "kprobe_int3_handler";
	if (IS_ENABLED(CONFIG_X86))
		KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EINVAL);
	memset(&kp, 0, sizeof(kp));
	kp.symbol_name = "get_kprobe";
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EINVAL);
	/*
	 * Called by the exception entry before any kprobe handler (the
	 * rcu_watching tracepoint of ct_nmi_enter() under LOCKDEP): a probe
	 * there would recurse in the entry.  Tiny RCU inlines it.
	 */
	memset(&kp, 0, sizeof(kp));
	kp.symbol_name = "rcu_is_watching";
	if (IS_ENABLED(CONFIG_TREE_RCU))
		KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EINVAL);
	/* not text */
	memset(&kp, 0, sizeof(kp));
	kp.addr = (kprobe_opcode_t *)&kpt_data;
	/* without KALLSYMS_ALL no symbol covers data: -ENOENT */
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp),
			IS_ENABLED(CONFIG_KALLSYMS_ALL) ? -EINVAL : -ENOENT);
	/* the padding in front of a function is no function */
	memset(&kp, 0, sizeof(kp));
	/* kCFI names it after its type hash preamble */
	kp.symbol_name = IS_ENABLED(CONFIG_CFI_CLANG) ? "__cfi_kpt_target1" :
			 "__pfx_kpt_target1";
	if (IS_ENABLED(CONFIG_CALL_PADDING))
		KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EINVAL);
	memset(&kp, 0, sizeof(kp));
	a = (unsigned long)kpt_target1;
	/* computed here: a relocation to the padding upsets objtool's IBT check */
	OPTIMIZER_HIDE_VAR(a);
	kp.addr = (kprobe_opcode_t *)(a - 4);
	if (IS_ENABLED(CONFIG_CALL_PADDING))
		KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EINVAL);
	/* a user address: no symbol covers it, -ENOENT */
	memset(&kp, 0, sizeof(kp));
	kp.addr = (kprobe_opcode_t *)0x10000UL;
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -ENOENT);
	/* an offset that wraps around the address space */
	memset(&kp, 0, sizeof(kp));
	kp.addr = (kprobe_opcode_t *)(ULONG_MAX - 3);
	kp.offset = 8;
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EINVAL);
	/*
	 * a symbol's offset of 4 GiB: it wraps where the kernel sits at the
	 * top 4 GiB (x86_64), otherwise it lands where no symbol is
	 */
	end = (unsigned long)kpt_target1;
	err = end + UINT_MAX < end ? -EINVAL : -ENOENT;
	memset(&kp, 0, sizeof(kp));
	kp.symbol_name = "kpt_target1";
	kp.offset = UINT_MAX;
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), err);
	KUNIT_EXPECT_EQ(test, kprobe_on_func_entry(NULL, "kpt_target1", UINT_MAX),
			err);
	/* unregistering a probe that was never registered changes nothing */
	memset(&kp, 0, sizeof(kp));
	kp.addr = KPT_ADDR(kpt_target1);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), 0);
	unregister_kprobe(&kp);
	/* twice */
	memset(&kp, 0, sizeof(kp));
	kp.addr = KPT_ADDR(kpt_target1);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EINVAL);
	unregister_kprobe(&kp);
	/* enable/disable of a probe that is not registered */
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&kp), -EINVAL);
}

/*
 * What register_kprobe() returns for an address inside a jump label site
 * (the NOP or jump that static_branch_*() compiles to): -EINVAL, as for
 * any text that others patch.
 */
#define KPT_JUMP_LABEL_ERRNO	(-EINVAL)

/*
 * A probe on a jump label site is refused: patching the site (a key
 * flipping) would overwrite the breakpoint or the other way round.  The
 * site is kpt_keyed()'s own static_branch_unlikely(&kpt_key), found by
 * asking the jump label code which of kpt_keyed()'s bytes it reserves.
 */
static void kpt_jump_label(struct kunit *test)
{
	struct kprobe kp = { .pre_handler = kpt_simple_pre };
	unsigned long a, end, off;

	if (!IS_ENABLED(CONFIG_JUMP_LABEL))
		kunit_skip(test, "CONFIG_JUMP_LABEL is off: no jump label site");
	a = (unsigned long)kpt_keyed;
	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset(a, &end, &off));
	for (end += a; a < end; a++)
		if (jump_label_text_reserved((void *)a, (void *)a))
			break;
	KUNIT_ASSERT_LT_MSG(test, a, end, "no jump label site in kpt_keyed");
	KUNIT_ASSERT_FALSE(test, within_kprobe_blacklist(a));
	kpt_reset();
	kp.addr = (kprobe_opcode_t *)a;
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), KPT_JUMP_LABEL_ERRNO);
	/* the site still works, both ways, and nothing was left armed */
	KUNIT_EXPECT_EQ(test, kpt_keyed(1), 1);
	static_branch_enable(&kpt_key);
	KUNIT_EXPECT_EQ(test, kpt_keyed(1), 101);
	static_branch_disable(&kpt_key);
	KUNIT_EXPECT_EQ(test, kpt_keyed(1), 1);
	KUNIT_EXPECT_EQ(test, kst.pre, 0);
	KUNIT_EXPECT_NULL(test, kpt_get((void *)a));
}

/*
 * symbol + offset is judged where it lands, whichever function that is:
 * "_text+OFFSET" (what perf probe writes) and "sym+N" with N the distance
 * to another function's first byte are that function's entry.
 */
static void kpt_text_offset(struct kunit *test)
{
	unsigned long target = (unsigned long)kpt_target2;
	unsigned long text = kallsyms_lookup_name("_text");
	struct kprobe kp = { .pre_handler = kpt_simple_pre,
			     .symbol_name = "_text" };
	unsigned long size, off, entry;

	kpt_reset();
	if (!text) {
		/*
		 * Without KALLSYMS_ALL, kallsyms keeps only what lies between
		 * _stext and _etext (and init text): arm64's _text, the image
		 * head, is not in it.  Then "_text" is an unknown symbol.
		 */
		KUNIT_EXPECT_FALSE(test, IS_ENABLED(CONFIG_KALLSYMS_ALL));
		KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -ENOENT);
		return;
	}
	KUNIT_ASSERT_GT(test, target, text);
	entry = (unsigned long)KPT_ADDR(target) - text;
	kp.offset = entry;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_TRUE(test, kallsyms_lookup_size_offset((unsigned long)kp.addr,
							    &size, &off));
	KUNIT_EXPECT_EQ(test, (unsigned long)kp.addr - off, target);
	KUNIT_EXPECT_TRUE(test, kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
	KUNIT_EXPECT_EQ(test, kpt_target2(3), 3 ^ 0x5a);
	KUNIT_EXPECT_EQ(test, kst.pre, 1);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kprobe_on_func_entry(NULL, "_text", entry), 0);
}

static void kpt_sym_offset(struct kunit *test)
{
	unsigned long t1 = (unsigned long)kpt_target1;
	unsigned long t2 = (unsigned long)kpt_target2;
	struct kprobe kp;
	unsigned long size, off;

	kpt_text_offset(test);

	/* from the lower of two functions to the other's first byte */
	kpt_reset();
	memset(&kp, 0, sizeof(kp));
	kp.pre_handler = kpt_simple_pre;
	kp.symbol_name = t1 < t2 ? "kpt_target1" : "kpt_target2";
	kp.offset = (unsigned long)KPT_ADDR(max(t1, t2)) - min(t1, t2);
	KUNIT_EXPECT_EQ(test,
			kprobe_on_func_entry(NULL, kp.symbol_name, kp.offset), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_TRUE(test, kallsyms_lookup_size_offset((unsigned long)kp.addr,
							    &size, &off));
	KUNIT_EXPECT_EQ(test, (unsigned long)kp.addr - off, max(t1, t2));
	KUNIT_EXPECT_TRUE(test, kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
	KUNIT_EXPECT_EQ(test, kpt_target1(1), 4);
	KUNIT_EXPECT_EQ(test, kpt_target2(3), 3 ^ 0x5a);
	KUNIT_EXPECT_EQ(test, kst.pre, 1);
	unregister_kprobe(&kp);
}

static struct kpt_probe agg[3];

static void kpt_aggregate(struct kunit *test)
{
	int i;

	kpt_reset();
	memset(agg, 0, sizeof(agg));
	for (i = 0; i < 3; i++) {
		agg[i].id = i + 1;
		agg[i].kp.addr = KPT_ADDR(kpt_target3);
		agg[i].kp.pre_handler = kpt_pre;
		/* only the second one has a post_handler */
		if (i == 1)
			agg[i].kp.post_handler = kpt_post;
		KUNIT_ASSERT_EQ(test, register_kprobe(&agg[i].kp), 0);
	}
	KUNIT_EXPECT_PTR_EQ(test, agg[0].kp.addr, agg[2].kp.addr);
	KUNIT_EXPECT_EQ(test, kpt_target3(10), 3);
	KUNIT_EXPECT_EQ(test, kst.pre, 3);
	KUNIT_EXPECT_EQ(test, kst.post, 1);
	KUNIT_EXPECT_EQ(test, kst.nlog, 4);
	KUNIT_EXPECT_EQ(test, kst.log[0], 1);
	KUNIT_EXPECT_EQ(test, kst.log[1], 2);
	KUNIT_EXPECT_EQ(test, kst.log[2], 3);
	KUNIT_EXPECT_EQ(test, kst.log[3], 102);

	/* disabling one leaves the others running */
	kpt_reset();
	KUNIT_EXPECT_EQ(test, disable_kprobe(&agg[1].kp), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&agg[1].kp));
	KUNIT_EXPECT_EQ(test, kpt_target3(10), 3);
	KUNIT_EXPECT_EQ(test, kst.nlog, 2);
	KUNIT_EXPECT_EQ(test, kst.log[0], 1);
	KUNIT_EXPECT_EQ(test, kst.log[1], 3);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&agg[1].kp), 0);

	/* removing the first keeps the order of the rest */
	unregister_kprobe(&agg[0].kp);
	kpt_reset();
	KUNIT_EXPECT_EQ(test, kpt_target3(10), 3);
	KUNIT_EXPECT_EQ(test, kst.nlog, 3);
	KUNIT_EXPECT_EQ(test, kst.log[0], 2);
	KUNIT_EXPECT_EQ(test, kst.log[1], 3);
	KUNIT_EXPECT_EQ(test, kst.log[2], 102);

	unregister_kprobe(&agg[1].kp);
	unregister_kprobe(&agg[2].kp);
	kpt_reset();
	KUNIT_EXPECT_EQ(test, kpt_target3(10), 3);
	KUNIT_EXPECT_EQ(test, kst.pre, 0);
	KUNIT_EXPECT_NULL(test, kpt_get((void *)agg[0].kp.addr));
}

static struct kprobe reent_outer, reent_inner;
static int reent_inner_hits, reent_outer_hits, reent_val;

static int reent_outer_pre(struct kprobe *p, struct pt_regs *regs)
{
	reent_outer_hits++;
	/* kpt_target2 is probed too: that probe must be missed here */
	reent_val = kpt_target2(5);
	return 0;
}

static int reent_inner_pre(struct kprobe *p, struct pt_regs *regs)
{
	reent_inner_hits++;
	return 0;
}

static void kpt_reentry(struct kunit *test)
{
	reent_inner_hits = 0;
	reent_outer_hits = 0;
	reent_val = 0;
	memset(&reent_outer, 0, sizeof(reent_outer));
	memset(&reent_inner, 0, sizeof(reent_inner));
	reent_outer.addr = KPT_ADDR(kpt_target1);
	reent_outer.pre_handler = reent_outer_pre;
	reent_outer.post_handler = kpt_simple_post;
	reent_inner.addr = KPT_ADDR(kpt_target2);
	reent_inner.pre_handler = reent_inner_pre;
	reent_inner.post_handler = kpt_simple_post;
	kpt_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&reent_inner), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&reent_outer), 0);

	KUNIT_EXPECT_EQ(test, kpt_target1(2), 7);
	KUNIT_EXPECT_EQ(test, reent_outer_hits, 1);
	KUNIT_EXPECT_EQ(test, reent_inner_hits, 0);
	KUNIT_EXPECT_EQ(test, reent_inner.nmissed, 1UL);
	KUNIT_EXPECT_EQ(test, reent_outer.nmissed, 0UL);
	/* the missed probe's function still ran correctly */
	KUNIT_EXPECT_EQ(test, reent_val, 5 ^ 0x5a);
	/* the interrupted probe completed: its post_handler ran once */
	KUNIT_EXPECT_EQ(test, kst.post, 1);

	/* outside a handler the inner probe works normally */
	KUNIT_EXPECT_EQ(test, kpt_target2(5), 5 ^ 0x5a);
	KUNIT_EXPECT_EQ(test, reent_inner_hits, 1);
	KUNIT_EXPECT_EQ(test, kst.post, 2);

	/* kprobe_busy_begin() makes hits count as missed too */
	kprobe_busy_begin();
	reent_val = kpt_target2(6);
	kprobe_busy_end();
	KUNIT_EXPECT_EQ(test, reent_val, 6 ^ 0x5a);
	KUNIT_EXPECT_EQ(test, reent_inner_hits, 1);
	KUNIT_EXPECT_EQ(test, reent_inner.nmissed, 2UL);

	unregister_kprobe(&reent_outer);
	unregister_kprobe(&reent_inner);
}

/* Where redirect_pre() sends kpt_target3(): it returns to the caller. */
static noinline __used __noipa int kpt_redirected(int x)
{
	return 4242;
}

/* How redirect_pre() moves the pc: by hand, or as error injection does. */
static bool redirect_override;

static int redirect_pre(struct kprobe *p, struct pt_regs *regs)
{
	kst.pre++;
#ifdef CONFIG_FUNCTION_ERROR_INJECTION
	/* only these architectures have regs_set_return_value() */
	if (redirect_override) {
		regs_set_return_value(regs, 4242);
		override_function_with_return(regs);
		return 1;
	}
#endif
	instruction_pointer_set(regs, (unsigned long)kpt_redirected);
	return 1;
}

/*
 * A pre_handler that moves the pc and returns 1: the probed function's
 * body is skipped, and so is the post_handler.  Once to another
 * function's entry, once (with CONFIG_FUNCTION_ERROR_INJECTION, whose
 * override_function_with_return() fail_function uses) straight back
 * to the caller.
 */
static void kpt_redirect(struct kunit *test)
{
	struct kprobe kp = {
		.symbol_name = "kpt_target3",
		.pre_handler = redirect_pre,
		.post_handler = kpt_simple_post,
	};
	int calls, round;

	for (round = 0; round < 2; round++) {
		redirect_override = round;
		if (redirect_override &&
		    !IS_ENABLED(CONFIG_FUNCTION_ERROR_INJECTION))
			break;
		kpt_reset();
		memset(&kp, 0, sizeof(kp));
		kp.symbol_name = "kpt_target3";
		kp.pre_handler = redirect_pre;
		kp.post_handler = kpt_simple_post;
		KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
		calls = kpt_calls;
		/* the body is skipped: the caller gets the handler's value */
		KUNIT_EXPECT_EQ(test, kpt_target3(100), 4242);
		KUNIT_EXPECT_EQ(test, kpt_calls, calls);
		KUNIT_EXPECT_EQ(test, kst.pre, 1);
		/* and the post_handler is skipped with the instruction */
		KUNIT_EXPECT_EQ(test, kst.post, 0);
		unregister_kprobe(&kp);
	}
	KUNIT_EXPECT_EQ(test, kpt_target3(100), 93);
}

static void kpt_enable_disable(struct kunit *test)
{
	struct kprobe kp = {
		.addr = KPT_ADDR(kpt_target1),
		.pre_handler = kpt_simple_pre,
		.post_handler = kpt_simple_post,
		.flags = KPROBE_FLAG_DISABLED,
	};

	kpt_reset();
	/* registered but disabled */
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&kp));
	kpt_target1(1);
	KUNIT_EXPECT_EQ(test, kst.pre, 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp), 0);
	KUNIT_EXPECT_FALSE(test, kprobe_disabled(&kp));
	kpt_target1(1);
	KUNIT_EXPECT_EQ(test, kst.pre, 1);
	KUNIT_EXPECT_EQ(test, kst.post, 1);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&kp), 0);
	kpt_target1(1);
	KUNIT_EXPECT_EQ(test, kst.pre, 1);
	/* disable twice is fine */
	KUNIT_EXPECT_EQ(test, disable_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_target1(1), 4);
	KUNIT_EXPECT_EQ(test, kst.pre, 2);
	unregister_kprobe(&kp);
}

static struct kprobe batch[3];

static void kpt_batch(struct kunit *test)
{
	struct kprobe *kps[3] = { &batch[0], &batch[1], &batch[2] };
	int i;

	memset(batch, 0, sizeof(batch));
	batch[0].addr = KPT_ADDR(kpt_target1);
	batch[1].addr = KPT_ADDR(kpt_target2);
	batch[2].addr = KPT_ADDR(kpt_target3);
	for (i = 0; i < 3; i++)
		batch[i].pre_handler = kpt_simple_pre;

	kpt_reset();
	KUNIT_ASSERT_EQ(test, register_kprobes(kps, 3), 0);
	kpt_target1(0);
	kpt_target2(0);
	kpt_target3(0);
	KUNIT_EXPECT_EQ(test, kst.pre, 3);
	unregister_kprobes(kps, 3);
	kpt_target1(0);
	kpt_target2(0);
	kpt_target3(0);
	KUNIT_EXPECT_EQ(test, kst.pre, 3);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_TRUE(test, list_empty(&batch[i].list));

	/* a failure part-way unregisters the earlier ones */
	memset(batch, 0, sizeof(batch));
	batch[0].addr = KPT_ADDR(kpt_target1);
	batch[1].addr = KPT_ADDR(kpt_target2);
	batch[2].symbol_name = "kpt_no_such_symbol";
	for (i = 0; i < 3; i++)
		batch[i].pre_handler = kpt_simple_pre;
	kpt_reset();
	KUNIT_EXPECT_EQ(test, register_kprobes(kps, 3), -ENOENT);
	kpt_target1(0);
	kpt_target2(0);
	KUNIT_EXPECT_EQ(test, kst.pre, 0);
	KUNIT_EXPECT_NULL(test, kpt_get(batch[0].addr));
	KUNIT_EXPECT_NULL(test, kpt_get(batch[1].addr));
	/* ... so they can be registered again */
	KUNIT_EXPECT_EQ(test, register_kprobes(kps, 2), 0);
	kpt_target1(0);
	KUNIT_EXPECT_EQ(test, kst.pre, 1);
	unregister_kprobes(kps, 2);

	KUNIT_EXPECT_EQ(test, register_kprobes(NULL, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_kprobes(kps, 0), -EINVAL);
}

static void *fault_addr;
static long fault_copy_ret;
static int fault_trapnr;

static int fault_pre(struct kprobe *p, struct pt_regs *regs)
{
	long v;

	kst.pre++;
	fault_copy_ret = copy_from_kernel_nofault(&v, fault_addr, sizeof(v));
	return 0;
}

static int fault_fh(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	kst.fault++;
	fault_trapnr = trapnr;
	return 0;	/* let the exception table fix it up */
}

static void kpt_fault_handler(struct kunit *test)
{
	struct kprobe kp = {
		.addr = KPT_ADDR(kpt_target1),
		.pre_handler = fault_pre,
		.fault_handler = fault_fh,
	};
	void *area;

	area = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, area);
	/* the guard page after a vmalloc area is not mapped */
	fault_addr = area + PAGE_SIZE;
	kpt_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_target1(1), 4);
	KUNIT_EXPECT_EQ(test, kst.pre, 1);
	KUNIT_EXPECT_EQ(test, kst.fault, 1);
	KUNIT_EXPECT_EQ(test, fault_copy_ret, (long)-EFAULT);
#ifdef CONFIG_X86
	KUNIT_EXPECT_EQ(test, fault_trapnr, X86_TRAP_PF);
#endif
	/* no fault, no call */
	fault_addr = area;
	KUNIT_EXPECT_EQ(test, kpt_target1(1), 4);
	KUNIT_EXPECT_EQ(test, kst.fault, 1);
	KUNIT_EXPECT_EQ(test, fault_copy_ret, 0L);
	unregister_kprobe(&kp);
	vfree(area);
}

/*
 * Flags a caller may set: KPROBE_FLAG_DISABLED only.  The others are the
 * core's; a type flag on a plain kprobe (KPROBE_FLAG_JPROBE) would send
 * its hits down another probe kind's path.
 */
static const u32 kpt_refused_flags[] = {
	KPROBE_FLAG_GONE, KPROBE_FLAG_OPTIMIZED, KPROBE_FLAG_FTRACE,
	KPROBE_FLAG_ON_FUNC_ENTRY, KPROBE_FLAG_RETPROBE, KPROBE_FLAG_JPROBE,
	KPROBE_FLAG_DISABLED | KPROBE_FLAG_JPROBE, 0x80000000,
};

static unsigned int kpt_post_calls;

static void kpt_count_post(struct kprobe *p, struct pt_regs *regs,
			   unsigned long flags)
{
	kpt_post_calls++;
}

/*
 * A site's post_handler can go away between the hit path's look at it
 * (to decide whether to step) and the call: its last probe with one is
 * unregistered on another CPU meanwhile.  The debug stress once called
 * a NULL post_handler that way.  The window is a few instructions wide,
 * too narrow to hit on purpose here, so this puts kprobe_run_post() (the
 * arch hit paths' call) before a site in the state the race leaves: no
 * single probe to call straight, and no post_handler any more.
 */
static void kpt_post_handler_gone(struct kunit *test)
{
	struct kprobe site = { .post_handler = kpt_count_post };
	struct pt_regs regs = {};

	kpt_post_calls = 0;
	preempt_disable();
	kprobe_run_post(&site, &regs);
	KUNIT_EXPECT_EQ(test, kpt_post_calls, 1);
	WRITE_ONCE(site.post_handler, NULL);
	kprobe_run_post(&site, &regs);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, kpt_post_calls, 1);
}

static void kpt_caller_flags(struct kunit *test)
{
	struct kretprobe rp;
	struct kprobe kp;
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(kpt_refused_flags); i++) {
		memset(&kp, 0, sizeof(kp));
		kp.addr = KPT_ADDR(kpt_target1);
		kp.pre_handler = kpt_simple_pre;
		kp.flags = kpt_refused_flags[i];
		ret = register_kprobe(&kp);
		KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "kprobe flags %#x",
				    kpt_refused_flags[i]);
		if (!ret)
			unregister_kprobe(&kp);

		memset(&rp, 0, sizeof(rp));
		rp.kp.addr = KPT_ADDR(kpt_target2);
		rp.kp.flags = kpt_refused_flags[i];
		ret = register_kretprobe(&rp);
		/* without kretprobes the stub refuses every kretprobe */
		KUNIT_EXPECT_EQ_MSG(test, ret, IS_ENABLED(CONFIG_KRETPROBES) ?
				    -EINVAL : -EOPNOTSUPP, "kretprobe flags %#x",
				    kpt_refused_flags[i]);
		if (!ret)
			unregister_kretprobe(&rp);
	}
#ifdef CONFIG_JPROBES
	for (i = 0; i < ARRAY_SIZE(kpt_refused_flags); i++) {
		struct jprobe jp = {
			.kp.addr = KPT_ADDR(kpt_target3),
			.kp.flags = kpt_refused_flags[i],
			.entry = kpt_target3,
		};

		ret = register_jprobe(&jp);
		KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "jprobe flags %#x",
				    kpt_refused_flags[i]);
		if (!ret)
			unregister_jprobe(&jp);
	}
#endif

	/* The one flag callers set; registration's own flags go again. */
	memset(&kp, 0, sizeof(kp));
	kp.addr = KPT_ADDR(kpt_target1);
	kp.pre_handler = kpt_simple_pre;
	kp.flags = KPROBE_FLAG_DISABLED;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp), 0);
	kpt_reset();
	KUNIT_EXPECT_EQ(test, kpt_target1(1), 4);
	KUNIT_EXPECT_EQ(test, kst.pre, 1);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kp.flags, 0U);
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), 0);
	unregister_kprobe(&kp);

	/* A kretprobe is typed while registered, and registers again. */
	if (!IS_ENABLED(CONFIG_KRETPROBES))
		return;
	memset(&rp, 0, sizeof(rp));
	rp.kp.addr = KPT_ADDR(kpt_target2);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_TRUE(test, rp.kp.flags & KPROBE_FLAG_RETPROBE);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, rp.kp.flags, 0U);
	KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), 0);
	unregister_kretprobe(&rp);
}

/*
 * A kretprobe with an entry_handler and no return handler: legal (the
 * entry_handler alone may be all a user wants, counting calls with the
 * instance pool's limits), and its returns must come home quietly.  The
 * rethook-based kretprobes of the compat architectures called the NULL
 * return handler: an oops at the first return (riscv64, ppc64le).
 */
static atomic_t kpt_entry_only_calls;

static int kpt_entry_only(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&kpt_entry_only_calls);
	return 0;
}

static void kpt_kretprobe_entry_only(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = KPT_ADDR(kpt_target2),
		.entry_handler = kpt_entry_only,
	};
	int i;

	if (!IS_ENABLED(CONFIG_KRETPROBES))
		kunit_skip(test, "no kretprobes in this configuration");
	atomic_set(&kpt_entry_only_calls, 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, kpt_target2(i), i ^ 0x5a);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_entry_only_calls), 5);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, rp.kp.nmissed, 0UL);
}

/*
 * The slot reaper.  The test fills pages with slots of its own: every
 * page then has no free slot (the allocator opens a page only when the
 * others are full, and the last page it opened is filled too).  Nothing
 * else allocates slots while the suite runs, so what follows is exact.
 */
#define KPT_REAP_SLOTS	(3 * PAGE_SIZE / sizeof(long))
#define KPT_REAP_PAGES	32

struct kpt_reap {
	kprobe_opcode_t **slots;
	unsigned int n;				/* slots held */
	unsigned long pages[KPT_REAP_PAGES];
	unsigned int count[KPT_REAP_PAGES];	/* of our slots in each */
	unsigned int np, per_page;
	unsigned long full;	/* a page all of whose slots are ours */
};

static void kpt_kvfree(void *p)
{
	kvfree(p);
}

/* Slots until a page is full of ours: then no page has a free slot. */
static void kpt_reap_fill(struct kunit *test, struct kpt_reap *r)
{
	unsigned long page;
	unsigned int j;

	r->n = 0;
	r->np = 0;
	r->full = 0;
	while (!r->full && r->n < KPT_REAP_SLOTS) {
		r->slots[r->n] = get_insn_slot();
		KUNIT_ASSERT_NOT_NULL(test, r->slots[r->n]);
		page = (unsigned long)r->slots[r->n++] & PAGE_MASK;
		for (j = 0; j < r->np && r->pages[j] != page; j++)
			;
		if (j == r->np) {
			KUNIT_ASSERT_LT(test, r->np, KPT_REAP_PAGES);
			r->pages[r->np] = page;
			r->count[r->np++] = 0;
		}
		if (++r->count[j] == r->per_page)
			r->full = page;
	}
	KUNIT_ASSERT_NE_MSG(test, r->full, 0UL, "no page full after %u slots",
			    r->n);
}

/* Free our slots on the full page, or those on the others. */
static void kpt_reap_free(struct kpt_reap *r, bool on_full_page)
{
	unsigned int i;
	bool on;

	for (i = 0; i < r->n; i++) {
		on = ((unsigned long)r->slots[i] & PAGE_MASK) == r->full;
		if (on == on_full_page)
			free_insn_slot(r->slots[i], 0);
	}
}

static void kpt_reap_init(struct kunit *test, struct kpt_reap *r,
			  unsigned int *pages)
{
	r->slots = kvcalloc(KPT_REAP_SLOTS, sizeof(*r->slots), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r->slots);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, kpt_kvfree, r->slots),
			0);
	/* whatever earlier cases freed is reaped first */
	wait_for_kprobe_optimizer();
	kprobe_insn_slots_reap();
	*pages = kprobe_insn_slot_pages(&r->per_page);
	KUNIT_ASSERT_GT(test, r->per_page, 1U);
}

/*
 * A slot freed and reaped is given out again, and a page whose slots are
 * all freed goes back once the reaper ran: the page count returns to
 * what it was.  Deterministic: the reaper is waited for (its work
 * flushed), and the freed slot is then the only free one of the cache.
 */
static void kpt_slot_reaper(struct kunit *test)
{
	unsigned int pages, per_page, i;
	kprobe_opcode_t *s, *again;
	struct kpt_reap r;

	kpt_reap_init(test, &r, &pages);
	kpt_reap_fill(test, &r);
	KUNIT_EXPECT_GT(test, kprobe_insn_slot_pages(&per_page), pages);
	/* one slot in the middle of the full page */
	for (i = 0; i < r.n; i++)
		if (((unsigned long)r.slots[i] & PAGE_MASK) == r.full &&
		    ((unsigned long)r.slots[i] & ~PAGE_MASK) >= PAGE_SIZE / 2)
			break;
	KUNIT_ASSERT_LT(test, i, r.n);
	s = r.slots[i];
	free_insn_slot(s, 0);
	kprobe_insn_slots_reap();
	again = get_insn_slot();
	KUNIT_EXPECT_PTR_EQ_MSG(test, again, s, "the reaped slot not reused");
	r.slots[i] = again;	/* held in its place (NULL: nothing) */
	kpt_reap_free(&r, true);
	kpt_reap_free(&r, false);
	kprobe_insn_slots_reap();
	KUNIT_EXPECT_EQ_MSG(test, kprobe_insn_slot_pages(&per_page), pages,
			    "pages emptied and reaped not released");
}

/*
 * Slot pages are freed while RCU readers walk them: kernel_text_address()
 * (every unwinder asks it about addresses it meets), kallsyms' listing of
 * the slot pages, a stack trace.  A reader standing on a page that is
 * being unlinked must still find its way to the end of the list.  Once
 * the reaper unlinked the page, it waits for the readers (a grace
 * period) before it frees it; a reader on it follows its list node on.
 * A reaper that moved that node to a private list of its own would
 * leave the reader looping there for ever.
 *
 * Deterministic: the reaper, about to unlink the page full of our slots,
 * waits (kprobe_insn_unlink_hook()) until this test stands on that page
 * inside an RCU read-side critical section (kprobe_insn_slot_walk()); the
 * test stays there until the page is unlinked, then walks on, and must
 * reach the list's head (the walk gives up with -ELOOP after a million
 * steps, where the old reaper left it circling).  The test cannot stand
 * there while the reaper waits for RCU-tasks (it would hold that grace
 * period), hence the hook: it runs after it.
 */
static struct {
	unsigned long page;
	struct completion unlinking, standing;
	bool unlinked;
} kpt_walk;

/* In the reaper, under the cache's mutex, before it unlinks @page. */
static void kpt_unlink_hook(unsigned long page)
{
	if (page != READ_ONCE(kpt_walk.page))
		return;
	complete(&kpt_walk.unlinking);
	/* bounded: a failed test must not stop the reaper */
	wait_for_completion_timeout(&kpt_walk.standing, 10 * HZ);
}

/* On the page, inside the walk's RCU read-side critical section. */
static void kpt_stand(void *unused)
{
	unsigned long end = jiffies + 10 * HZ;

	complete(&kpt_walk.standing);
	while (is_kprobe_insn_slot(kpt_walk.page) && time_before(jiffies, end))
		cpu_relax();
	kpt_walk.unlinked = !is_kprobe_insn_slot(kpt_walk.page);
}

static void kpt_unhook(void *unused)
{
	kprobe_insn_unlink_hook(NULL);
	WRITE_ONCE(kpt_walk.page, 0);
}

static void kpt_slot_reaper_reader(struct kunit *test)
{
	unsigned int pages, per_page;
	struct kpt_reap r;
	int ret;

	/* the reaper must run while the test spins on the page */
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second CPU");
	kpt_reap_init(test, &r, &pages);
	kpt_reap_fill(test, &r);
	/* the other pages reaped first: the full page goes alone */
	kpt_reap_free(&r, false);
	kprobe_insn_slots_reap();
	init_completion(&kpt_walk.unlinking);
	init_completion(&kpt_walk.standing);
	kpt_walk.unlinked = false;
	WRITE_ONCE(kpt_walk.page, r.full);
	kprobe_insn_unlink_hook(kpt_unlink_hook);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpt_unhook, NULL),
			0);
	kpt_reap_free(&r, true);
	KUNIT_ASSERT_TRUE_MSG(test,
			      wait_for_completion_timeout(&kpt_walk.unlinking,
							  10 * HZ),
			      "the reaper did not come to unlink the page");
	ret = kprobe_insn_slot_walk(r.full, kpt_stand, NULL);
	KUNIT_EXPECT_TRUE_MSG(test, kpt_walk.unlinked,
			      "the page was not unlinked while the test stood on it");
	KUNIT_EXPECT_GE_MSG(test, ret, 0,
			    "a reader on an unlinked page did not reach the list's head");
	kpt_unhook(NULL);
	kprobe_insn_slots_reap();
	KUNIT_EXPECT_FALSE(test, is_kprobe_insn_slot(r.full));
	KUNIT_EXPECT_EQ(test, kprobe_insn_slot_pages(&per_page), pages);
}

/*
 * kprobes' deferred work (the slot reapers, the jump optimizer) sleeps in
 * RCU-tasks grace periods, which last until every task has passed a
 * voluntary context switch.  It runs on kprobes' own workqueue: a flush
 * of a system workqueue, and the work queued behind it, must not wait
 * for such a grace period.  A kthread that never sleeps (cond_resched()
 * is no voluntary switch) holds the grace period; a freed slot queues
 * the reaper, which waits for it; a flush of system_percpu_wq (the
 * workqueue of schedule_work()) from another kthread must finish while
 * the grace period is still held.  With the reaper queued by
 * schedule_work() (as before) the flush waits for it and the case fails
 * after its 10 s bound (a bound on a wait that otherwise never ends
 * while the holdout runs, not a speed check).
 */
struct kpt_holdout {
	struct completion running;
	struct completion flushed;
	bool stop;
};

static int kpt_holdout_fn(void *data)
{
	struct kpt_holdout *h = data;

	complete(&h->running);
	while (!READ_ONCE(h->stop))
		cond_resched();
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static int kpt_flusher_fn(void *data)
{
	struct kpt_holdout *h = data;

	__flush_workqueue(system_percpu_wq);
	complete(&h->flushed);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void kpt_own_workqueue(struct kunit *test)
{
	struct task_struct *holdout, *flusher;
	struct kpt_holdout h = { .stop = false };
	kprobe_opcode_t *slot;
	bool flushed;

	/* there cond_resched() ends the grace period the holdout should hold */
	if (!IS_ENABLED(CONFIG_TASKS_RCU))
		kunit_skip(test, "no RCU-tasks: synchronize_rcu_tasks() is synchronize_rcu()");
	init_completion(&h.running);
	init_completion(&h.flushed);
	slot = get_insn_slot();
	KUNIT_ASSERT_NOT_NULL(test, slot);
	holdout = kthread_run(kpt_holdout_fn, &h, "kpt_holdout");
	KUNIT_ASSERT_FALSE(test, IS_ERR(holdout));
	wait_for_completion(&h.running);
	/* queues the reaper, which now waits for the holdout */
	free_insn_slot(slot, 0);
	flusher = kthread_run(kpt_flusher_fn, &h, "kpt_flusher");
	if (IS_ERR(flusher)) {
		WRITE_ONCE(h.stop, true);
		kthread_stop(holdout);
		KUNIT_FAIL(test, "no flusher thread");
		return;
	}
	flushed = wait_for_completion_timeout(&h.flushed, 10 * HZ);
	WRITE_ONCE(h.stop, true);
	/* the flusher must be done before its completion goes away */
	if (!flushed)
		wait_for_completion(&h.flushed);
	kthread_stop(flusher);
	kthread_stop(holdout);
	KUNIT_EXPECT_TRUE_MSG(test, flushed,
			      "a flush of system_percpu_wq waited for kprobes' RCU-tasks grace period");
}

/*
 * A caller that registers many probes in one system call never sleeps
 * while kprobe_mutex is free; every registration is an RCU-tasks
 * quiescent state all the same, so kprobes' own deferred work (the jump
 * optimizer, the slot reapers) does not wait for the whole batch.  A
 * kthread calls register_kprobe() in a loop, on a probe already
 * registered (refused after the checks), and an RCU-tasks grace period
 * started meanwhile must end while it still loops.  Without the
 * quiescent state the kthread holds the grace period until its loop
 * gives up after 20 s, and the case fails (a bound on a wait that
 * otherwise lasts as long as the loop, not a speed check).
 */
struct kpt_looper {
	struct kprobe kp;
	struct completion running;
	unsigned long calls;
	bool stop;
	bool gave_up;
};

static int kpt_looper_fn(void *data)
{
	struct kpt_looper *l = data;
	unsigned long end = jiffies + 20 * HZ;

	complete(&l->running);
	while (!READ_ONCE(l->stop)) {
		if (time_after(jiffies, end)) {
			l->gave_up = true;
			break;
		}
		if (register_kprobe(&l->kp) == -EINVAL)
			l->calls++;
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void kpt_tasks_qs(struct kunit *test)
{
	struct task_struct *looper;
	struct kpt_looper *l;

	/* there any cond_resched() ends an RCU-tasks grace period */
	if (!IS_ENABLED(CONFIG_TASKS_RCU))
		kunit_skip(test, "no RCU-tasks: synchronize_rcu_tasks() is synchronize_rcu()");
	l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, l);
	init_completion(&l->running);
	l->kp.addr = KPT_ADDR(kpt_target3);
	KUNIT_ASSERT_EQ(test, register_kprobe(&l->kp), 0);
	looper = kthread_run(kpt_looper_fn, l, "kpt_looper");
	if (IS_ERR(looper)) {
		unregister_kprobe(&l->kp);
		KUNIT_FAIL(test, "no looper thread");
		return;
	}
	wait_for_completion(&l->running);
	synchronize_rcu_tasks();
	WRITE_ONCE(l->stop, true);
	kthread_stop(looper);
	unregister_kprobe(&l->kp);
	KUNIT_EXPECT_FALSE_MSG(test, l->gave_up,
			       "an RCU-tasks grace period waited for a task registering probes");
	KUNIT_EXPECT_GT(test, l->calls, 0);
}

/*
 * unregister_kprobe() returns only when no CPU can be in a hit of the
 * probe: it waits for the RCU readers that may hold it (every hit is
 * one).  A kthread on the other CPU sits in rcu_read_lock(), standing in
 * for a hit in flight; the unregistration must not return before it
 * leaves (after 200 ms).  So for an armed probe, and for a disabled one
 * whose site another probe keeps armed (hits walk past it).  A disabled
 * probe whose site is disarmed waits too: a task preempted inside an
 * ftrace trampoline or a detour buffer may still look its site up.
 */
struct kpt_holder {
	struct completion in;
	unsigned long hold;	/* jiffies to stay at most */
	bool release;
	bool left;
};

static int kpt_holder_fn(void *data)
{
	struct kpt_holder *h = data;
	unsigned long end = jiffies + h->hold;

	rcu_read_lock();
	complete(&h->in);
	while (!READ_ONCE(h->release) && time_before(jiffies, end))
		cpu_relax();
	WRITE_ONCE(h->left, true);
	rcu_read_unlock();
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/* Unregister @p while a reader holds the other CPU: did it wait for it? */
static bool kpt_unregister_waited(struct kunit *test, struct kprobe *p,
				  unsigned long hold)
{
	struct task_struct *t;
	struct kpt_holder h = { .hold = hold };
	bool left;
	int cpu;

	init_completion(&h.in);
	/* The reader spins: this task must not be queued behind it. */
	cpu = raw_smp_processor_id();
	set_cpus_allowed_ptr(current, cpumask_of(cpu));
	t = kthread_create(kpt_holder_fn, &h, "kpt_holder");
	if (IS_ERR(t)) {
		KUNIT_FAIL(test, "no kthread: %ld", PTR_ERR(t));
		set_cpus_allowed_ptr(current, cpu_possible_mask);
		unregister_kprobe(p);
		return false;
	}
	kthread_bind(t, cpumask_any_but(cpu_online_mask, cpu));
	wake_up_process(t);
	wait_for_completion(&h.in);
	unregister_kprobe(p);
	left = READ_ONCE(h.left);
	WRITE_ONCE(h.release, true);
	kthread_stop(t);
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	return left;
}

static void kpt_unregister_wait(struct kunit *test)
{
	struct kpt_probe a = { .kp = { .addr = KPT_ADDR(kpt_target1),
				       .pre_handler = kpt_pre }, .id = 1 };
	struct kpt_probe b = { .kp = { .addr = KPT_ADDR(kpt_target1),
				       .pre_handler = kpt_pre }, .id = 2 };

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second CPU");

	/* Armed: the reader may be in a hit; wait it out (200 ms). */
	kpt_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&a.kp), 0);
	kpt_target1(1);
	KUNIT_EXPECT_EQ(test, kst.pre, 1);
	KUNIT_EXPECT_TRUE_MSG(test, kpt_unregister_waited(test, &a.kp, HZ / 5),
			      "returned while a reader from before could hold the probe");

	/* Disabled and disarmed a grace period ago: it waits all the same. */
	KUNIT_ASSERT_EQ(test, register_kprobe(&a.kp), 0);
	KUNIT_ASSERT_EQ(test, disable_kprobe(&a.kp), 0);
	synchronize_rcu();
	KUNIT_EXPECT_TRUE_MSG(test, kpt_unregister_waited(test, &a.kp, HZ / 5),
			      "returned while a preempted trampoline could hold the site");

	/* Disabled, but b keeps the site armed: hits walk past a. */
	KUNIT_ASSERT_EQ(test, register_kprobe(&a.kp), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&b.kp), 0);
	KUNIT_ASSERT_EQ(test, disable_kprobe(&a.kp), 0);
	synchronize_rcu();
	KUNIT_EXPECT_TRUE_MSG(test, kpt_unregister_waited(test, &a.kp, HZ / 5),
			      "returned while hits could walk past the probe");
	kpt_target1(1);
	KUNIT_EXPECT_EQ(test, kst.pre, 2);
	KUNIT_EXPECT_EQ(test, kst.log[1], 2);
	unregister_kprobe(&b.kp);
}

/*
 * Copies of kpt_blacklisted as compilers split and clone functions (never
 * called: only their names and addresses matter), and one copy of a
 * function that is not blacklisted.  On x86 objtool checks them: .cold is
 * a trap (it accepts an unreachable int3 in a cold part), the others
 * return.
 */
#ifdef CONFIG_X86
#define KPT_COPY_COLD	"int3\n"
#define KPT_COPY_BODY	ASM_RET
#else
/* never run: an instruction every architecture's assembler knows */
#define KPT_COPY_BODY	"nop\n"
#define KPT_COPY_COLD	KPT_COPY_BODY
#endif
asm("	.pushsection .text, \"ax\"\n"
"	.balign 4\n"
"	.type kpt_blacklisted.cold, %function\n"
"kpt_blacklisted.cold:\n"
"	" KPT_COPY_COLD
"	.size kpt_blacklisted.cold, . - kpt_blacklisted.cold\n"
"	.type kpt_blacklisted.constprop.0, %function\n"
"kpt_blacklisted.constprop.0:\n"
"	" KPT_COPY_BODY
"	.size kpt_blacklisted.constprop.0, . - kpt_blacklisted.constprop.0\n"
"	.type kpt_blacklisted.isra.0, %function\n"
"kpt_blacklisted.isra.0:\n"
"	" KPT_COPY_BODY
"	.size kpt_blacklisted.isra.0, . - kpt_blacklisted.isra.0\n"
"	.type kpt_blacklisted.part.0, %function\n"
"kpt_blacklisted.part.0:\n"
"	" KPT_COPY_BODY
"	.size kpt_blacklisted.part.0, . - kpt_blacklisted.part.0\n"
"	.type kpt_blacklisted.llvm.4242, %function\n"
"kpt_blacklisted.llvm.4242:\n"
"	" KPT_COPY_BODY
"	.size kpt_blacklisted.llvm.4242, . - kpt_blacklisted.llvm.4242\n"
"	.type kpt_target3.part.0, %function\n"
"kpt_target3.part.0:\n"
"	" KPT_COPY_BODY
"	.size kpt_target3.part.0, . - kpt_target3.part.0\n"
"	.popsection\n");

static void kpt_blacklist_copies(struct kunit *test)
{
	static const char * const copies[] = {
		"kpt_blacklisted.cold", "kpt_blacklisted.constprop.0",
		"kpt_blacklisted.isra.0", "kpt_blacklisted.part.0",
		"kpt_blacklisted.llvm.4242",
	};
	struct kprobe kp;
	unsigned long a;
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(copies); i++) {
		a = kallsyms_lookup_name(copies[i]);
		KUNIT_ASSERT_NE_MSG(test, a, 0UL, "%s", copies[i]);
		KUNIT_EXPECT_TRUE_MSG(test, within_kprobe_blacklist(a), "%s",
				      copies[i]);
		memset(&kp, 0, sizeof(kp));
		kp.symbol_name = copies[i];
		kp.pre_handler = kpt_simple_pre;
		ret = register_kprobe(&kp);
		KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "%s", copies[i]);
		if (!ret)
			unregister_kprobe(&kp);
	}
	/* The copy of a function that may be probed may be probed. */
	a = kallsyms_lookup_name("kpt_target3.part.0");
	KUNIT_ASSERT_NE(test, a, 0UL);
	KUNIT_EXPECT_FALSE(test, within_kprobe_blacklist(a));
	KUNIT_EXPECT_FALSE(test, within_kprobe_blacklist((unsigned long)kpt_target3));
}

#ifdef CONFIG_MODULES
/*
 * Registration racing a module that goes away: check_location() looks at
 * the module before kprobe_mutex; if its init fails meanwhile, its GOING
 * notifier finds nothing of ours and free_module() frees the text while
 * a site is armed in it (a module that went LIVE frees its init text
 * the same way).  register_kprobe() asks again under kprobe_mutex
 * (kprobe_module_text_left(), from recheck_module()).  KUnit has no
 * module to load and fail at the right moment, and no test can make the
 * two interleave reliably: the check itself is tested, on a struct
 * module made up for it (only compared and read, never linked in), in
 * every state it can find.  The guest test of kp_initfail exercises a
 * real failed init.  Without the check the GOING and LIVE cases
 * register.
 */
static void kpt_module_going(struct kunit *test)
{
	struct module *mod = kunit_kzalloc(test, sizeof(*mod), GFP_KERNEL);
	struct module *other = kunit_kzalloc(test, sizeof(*other), GFP_KERNEL);
	u8 *text = kunit_kzalloc(test, 64, GFP_KERNEL);
	unsigned long core, init;

	KUNIT_ASSERT_NOT_NULL(test, mod);
	KUNIT_ASSERT_NOT_NULL(test, other);
	KUNIT_ASSERT_NOT_NULL(test, text);
	core = (unsigned long)text;
	init = core + 32;
	mod->mem[MOD_TEXT].base = text;
	mod->mem[MOD_TEXT].size = 32;
	mod->mem[MOD_INIT_TEXT].base = text + 32;
	mod->mem[MOD_INIT_TEXT].size = 32;

	mod->state = MODULE_STATE_COMING;
	KUNIT_EXPECT_EQ(test, kprobe_module_text_left(mod, mod, core), 0);
	KUNIT_EXPECT_EQ(test, kprobe_module_text_left(mod, mod, init), 0);
	/* init text once LIVE: its sites were killed, it is freed soon */
	mod->state = MODULE_STATE_LIVE;
	KUNIT_EXPECT_EQ(test, kprobe_module_text_left(mod, mod, core), 0);
	KUNIT_EXPECT_EQ(test, kprobe_module_text_left(mod, mod, init),
			-ENOENT);
	/* a failed init: GOING, freed whatever its count */
	mod->state = MODULE_STATE_GOING;
	KUNIT_EXPECT_EQ(test, kprobe_module_text_left(mod, mod, core),
			-ENOENT);
	/* freed already: the text is no module's, or another one's */
	mod->state = MODULE_STATE_COMING;
	KUNIT_EXPECT_EQ(test, kprobe_module_text_left(mod, NULL, core),
			-ENOENT);
	other->state = MODULE_STATE_LIVE;
	KUNIT_EXPECT_EQ(test, kprobe_module_text_left(mod, other, core),
			-ENOENT);
}
#endif

#ifdef CONFIG_MODULE_UNLOAD
/*
 * register_kprobe() itself against a module that changes state while the
 * registration waits for kprobe_mutex: kprobe_text_module(), the module
 * lookup of check_location() and of the recheck under the mutex, is
 * stood in for by kpt_text_module(), which reports a made-up module
 * (COMING, its init text a function of this test) to the first lookup,
 * and to the next ones the module LIVE (its init sites killed), LIVE
 * with its init text freed, or gone (a failed init).  Each registration
 * fails with -ENOENT; the reference check_location() took is dropped
 * while the module is there, and not touched once it is gone.  Failed
 * before: the LIVE cases left the module's count at 1 (never to be
 * unloaded); without the recheck they registered.
 */
enum kpt_ms_then { KPT_MS_LIVE, KPT_MS_INIT_FREED, KPT_MS_FREED };

static struct {
	struct module *mod;
	unsigned long core;
	int lookups;
	enum kpt_ms_then then;
} kpt_ms;

static noinline __used __noipa int kpt_modinit(int x)
{
	return x + 11;
}

static int kpt_modinit_pre(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

static struct module *kpt_text_module(unsigned long addr)
{
	struct module *mod = kpt_ms.mod;

	if (kpt_ms.lookups++ && kpt_ms.then == KPT_MS_FREED)
		return NULL;
	if (addr == kpt_ms.core)
		return mod;
	if (!within_module_init(addr, mod))
		return NULL;
	if (kpt_ms.lookups == 1)
		return mod;
	mod->state = MODULE_STATE_LIVE;
	return kpt_ms.then == KPT_MS_INIT_FREED ? NULL : mod;
}

static void kpt_module_register(struct kunit *test)
{
	struct module *mod = kunit_kzalloc(test, sizeof(*mod), GFP_KERNEL);
	u8 *core = kunit_kzalloc(test, 64, GFP_KERNEL);
	static const char * const name[] = {
		"LIVE", "LIVE, init text freed", "freed"
	};
	struct kprobe kp;
	int then, ret;

	KUNIT_ASSERT_NOT_NULL(test, mod);
	KUNIT_ASSERT_NOT_NULL(test, core);
	mod->mem[MOD_TEXT].base = core;
	mod->mem[MOD_TEXT].size = 64;
	mod->mem[MOD_INIT_TEXT].base = (void *)kpt_modinit;
	mod->mem[MOD_INIT_TEXT].size = 64;
	kpt_ms.mod = mod;
	kpt_ms.core = (unsigned long)core;
	kunit_activate_static_stub(test, kprobe_text_module, kpt_text_module);

	for (then = KPT_MS_LIVE; then <= KPT_MS_FREED; then++) {
		mod->state = MODULE_STATE_COMING;
		atomic_set(&mod->refcnt, 1);
		kpt_ms.lookups = 0;
		kpt_ms.then = then;
		memset(&kp, 0, sizeof(kp));
		kp.symbol_name = "kpt_modinit";
		kp.pre_handler = kpt_modinit_pre;
		ret = register_kprobe(&kp);
		if (!ret)
			unregister_kprobe(&kp);
		KUNIT_EXPECT_EQ_MSG(test, ret, -ENOENT, "%s", name[then]);
		KUNIT_EXPECT_GE_MSG(test, kpt_ms.lookups, 2, "%s", name[then]);
		/* the module's count: back to none, or as the module left it */
		KUNIT_EXPECT_EQ_MSG(test, module_refcount(mod),
				    then == KPT_MS_FREED ? 1 : 0, "%s",
				    name[then]);
	}
	kunit_deactivate_static_stub(test, kprobe_text_module);
	KUNIT_EXPECT_EQ(test, kpt_modinit(1), 12);
}
#endif

static struct kunit_case kprobes_core_cases[] = {
	KUNIT_CASE(kpt_hit_counts),
	KUNIT_CASE(kpt_by_symbol),
	KUNIT_CASE(kpt_errors),
	KUNIT_CASE(kpt_jump_label),
	KUNIT_CASE(kpt_sym_offset),
	KUNIT_CASE(kpt_aggregate),
	KUNIT_CASE(kpt_reentry),
	KUNIT_CASE(kpt_redirect),
	KUNIT_CASE(kpt_enable_disable),
	KUNIT_CASE(kpt_batch),
	KUNIT_CASE(kpt_fault_handler),
	KUNIT_CASE(kpt_caller_flags),
	KUNIT_CASE(kpt_kretprobe_entry_only),
	KUNIT_CASE_SLOW(kpt_own_workqueue),
	KUNIT_CASE_SLOW(kpt_tasks_qs),
	KUNIT_CASE(kpt_post_handler_gone),
	KUNIT_CASE(kpt_blacklist_copies),
	KUNIT_CASE(kpt_unregister_wait),
	KUNIT_CASE(kpt_slot_reaper),
	KUNIT_CASE(kpt_slot_reaper_reader),
#ifdef CONFIG_MODULES
	KUNIT_CASE(kpt_module_going),
#endif
#ifdef CONFIG_MODULE_UNLOAD
	KUNIT_CASE(kpt_module_register),
#endif
	{}
};

static struct kunit_suite kprobes_core_suite = {
	.name = "kprobes_core",
	.test_cases = kprobes_core_cases,
};

kunit_test_suites(&kprobes_core_suite);

MODULE_DESCRIPTION("KUnit tests for kprobes");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
