// SPDX-License-Identifier: GPL-2.0
/*
 * kp_errno: a KUnit suite of what the public kprobes API returns for bad
 * (and borderline) inputs.  The expected values are upstream 6.12's,
 * measured by running this very suite on the upstream flavour of the
 * workbench; the table is in Documentation/trace/kprobes.rst.  Only the
 * public API is used, so one source builds and runs on both flavours, as
 * a module: KUnit runs the suite when it loads (the guest boots with
 * kunit.enable=1 and a filter_glob that lets no suite run at boot, and
 * sets the glob to kp_errno first).
 *
 * One parameterised case, "errno": a parameter per input, named as the
 * guest reports it (errno.NAME), each self-contained.  A parameter that
 * cannot apply on this kernel (no such site, no kprobes on ftrace) is a
 * skip with its reason, never a pass.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/ftrace.h>
#include <linux/jump_label.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/static_call.h>

/* Steps that crash upstream 6.12 run only when the guest says so (ours). */
static bool upstream_crashes;
module_param(upstream_crashes, bool, 0400);
MODULE_PARM_DESC(upstream_crashes, "run the steps that oops upstream 6.12");

static int kpe_data_var = 1;
/* kp_errno_traced()'s ftrace site, found by kpe_suite_init(), or 0 */
static unsigned long ftrace_site;

/*
 * Traced (it has an ftrace site when the kernel has one for modules).
 * __noipa: called, never cloned or folded, under its own name.
 */
static __noipa int kp_errno_traced(int x)
{
	barrier();
	return x + 1;
}

/* A function with a jump label site: the branch on kpe_key. */
static DEFINE_STATIC_KEY_FALSE(kpe_key);

static __noipa int kp_errno_jump(int x)
{
	if (static_branch_unlikely(&kpe_key))
		return x * 2;
	return x + 3;
}

#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
/* A function with an inline static call site. */
static int kpe_sc_target(int x)
{
	return x - 1;
}

DEFINE_STATIC_CALL(kpe_call, kpe_sc_target);

static __noipa int kp_errno_static_call(int x)
{
	return static_call(kpe_call)(x) + 5;
}
#endif

static int kpe_pre(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

static int kpe_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return 0;
}

static int kpe_hits;

static int kpe_pre_count(struct kprobe *p, struct pt_regs *regs)
{
	WRITE_ONCE(kpe_hits, kpe_hits + 1);
	return 0;
}

static void kpe_post(struct kprobe *p, struct pt_regs *regs, unsigned long f)
{
}

/* register_kprobe() of a fresh probe at @addr (or @sym + @off). */
static int kpe_try(void *addr, const char *sym, unsigned int off)
{
	struct kprobe kp = {
		.addr = addr,
		.symbol_name = sym,
		.offset = off,
		.pre_handler = kpe_pre,
	};
	int ret;

	ret = register_kprobe(&kp);
	if (!ret)
		unregister_kprobe(&kp);
	return ret;
}

static int kpe_try_kretprobe(void *addr, const char *sym, unsigned int off,
			     size_t data_size, int maxactive)
{
	struct kretprobe rp = {
		.kp.addr = addr,
		.kp.symbol_name = sym,
		.kp.offset = off,
		.handler = kpe_ret,
		.data_size = data_size,
		.maxactive = maxactive,
	};
	int ret;

	ret = register_kretprobe(&rp);
	if (!ret)
		unregister_kretprobe(&rp);
	return ret;
}

/* The first jump label site in this module's text, or 0. */
static unsigned long kpe_jump_site(void)
{
#ifdef CONFIG_JUMP_LABEL
	struct module *mod = THIS_MODULE;
	unsigned int i;

	for (i = 0; i < mod->num_jump_entries; i++) {
		unsigned long a = jump_entry_code(&mod->jump_entries[i]);

		if (within_module_core(a, mod))
			return a;
	}
#endif
	return 0;
}

/* The first inline static call site in this module's text, or 0. */
static unsigned long kpe_static_call_site(void)
{
#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
	struct module *mod = THIS_MODULE;
	int i;

	for (i = 0; i < mod->num_static_call_sites; i++) {
		struct static_call_site *s = &mod->static_call_sites[i];
		unsigned long a = (long)s->addr + (unsigned long)&s->addr;

		if (within_module_core(a, mod))
			return a;
	}
#endif
	return 0;
}

#ifdef CONFIG_DYNAMIC_FTRACE
/*
 * ftrace hands its callbacks the ip of the site (the fentry or patchable
 * call): an ops filtered on kp_errno_traced, registered for one call,
 * finds it.  No tracefs needed, and the same on both flavours.
 */
static void kpe_find_site(unsigned long ip, unsigned long parent_ip,
			  struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	WRITE_ONCE(ftrace_site, ip);
}

static struct ftrace_ops kpe_find_ops = {
	.func = kpe_find_site,
	.flags = FTRACE_OPS_FL_RECURSION,
};

static void kpe_find_ftrace_site(void)
{
	static unsigned char name[] = "kp_errno_traced";

	if (ftrace_set_filter(&kpe_find_ops, name, sizeof(name) - 1, 1))
		return;
	if (!register_ftrace_function(&kpe_find_ops)) {
		kpe_data_var += kp_errno_traced(0);
		unregister_ftrace_function(&kpe_find_ops);
	}
	ftrace_free_filter(&kpe_find_ops);
}
#else
static void kpe_find_ftrace_site(void)
{
}
#endif

#ifdef CONFIG_KPROBES_ON_FTRACE
/*
 * An ftrace_ops that claims the ip (FTRACE_OPS_FL_IPMODIFY), as a live
 * patch's does, on kp_errno_traced(): which kprobes may share the
 * function with it?  It never moves the ip itself.
 */
static void kpe_ftrace_func(unsigned long ip, unsigned long parent_ip,
			    struct ftrace_ops *op, struct ftrace_regs *fregs)
{
}

static struct ftrace_ops kpe_ipmodify_ops = {
	.func = kpe_ftrace_func,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

static int kpe_ipmodify_on(void)
{
	int ret;

	ret = ftrace_set_filter_ip(&kpe_ipmodify_ops, ftrace_site, 0, 0);
	if (ret)
		return ret;
	ret = register_ftrace_function(&kpe_ipmodify_ops);
	if (ret)
		ftrace_set_filter_ip(&kpe_ipmodify_ops, ftrace_site, 1, 0);
	return ret;
}

static void kpe_ipmodify_off(void)
{
	unregister_ftrace_function(&kpe_ipmodify_ops);
	ftrace_set_filter_ip(&kpe_ipmodify_ops, ftrace_site, 1, 0);
}
#endif

/* One input: its name (errno.NAME), how to try it, what upstream says. */
struct kpe_case {
	const char *name;
	int (*try)(struct kunit *test);
	int want;
	/* ftrace site, kprobes on ftrace, x86, ours only: where it applies */
	unsigned int needs;
};

#define KPE_SITE	BIT(0)	/* an ftrace site was found (else skip) */
#define KPE_ON_FTRACE	BIT(1)	/* CONFIG_KPROBES_ON_FTRACE (else not run) */
#define KPE_X86		BIT(2)	/* x86 only (else not run) */
#define KPE_CRASHES	BIT(3)	/* upstream_crashes only (else not run) */

/* Where there is no symbol at all: upstream says -ENOENT. */
static int kpe_addr_heap(struct kunit *test)
{
	void *heap = kunit_kmalloc(test, 64, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, heap);
	return kpe_try(heap, NULL, 0);
}

static int kpe_addr_user(struct kunit *test)
{
	return kpe_try((void *)0x10000UL, NULL, 0);
}

/* A symbol, but data. */
static int kpe_addr_data(struct kunit *test)
{
	return kpe_try(&kpe_data_var, NULL, 0);
}

static int kpe_sym_unknown(struct kunit *test)
{
	return kpe_try(NULL, "kp_errno_no_such_symbol", 0);
}

static int kpe_addr_and_sym(struct kunit *test)
{
	return kpe_try(kp_errno_traced, "kp_errno_traced", 0);
}

static int kpe_addr_nor_sym(struct kunit *test)
{
	return kpe_try(NULL, NULL, 0);
}

/* NOKPROBE_SYMBOL() outside kprobes: blacklisted on both. */
static int kpe_notify_die(struct kunit *test)
{
	return kpe_try(NULL, "notify_die", 0);
}

static int kpe_site_jump_label(struct kunit *test)
{
	unsigned long a = kpe_jump_site();

	if (!a)
		kunit_skip(test, "no jump label site");
	return kpe_try((void *)a, NULL, 0);
}

static int kpe_site_static_call(struct kunit *test)
{
	unsigned long a = kpe_static_call_site();

	if (!a)
		kunit_skip(test, "no inline static calls");
	return kpe_try((void *)a, NULL, 0);
}

static int kpe_site_ftrace(struct kunit *test)
{
	return kpe_try((void *)ftrace_site, NULL, 0);
}

/* Inside the x86 fentry call: not an instruction boundary. */
static int kpe_site_ftrace_mid(struct kunit *test)
{
	return kpe_try((void *)ftrace_site + 1, NULL, 0);
}

#ifdef CONFIG_KPROBES_ON_FTRACE
static struct kprobe *kpe_site_probe(struct kunit *test, bool post)
{
	struct kprobe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->addr = (void *)ftrace_site;
	p->pre_handler = post ? kpe_pre : kpe_pre_count;
	if (post)
		p->post_handler = kpe_post;
	return p;
}

static int kpe_ipmodify_register(struct kunit *test)
{
	int ret = kpe_ipmodify_on();

	if (!ret)
		kpe_ipmodify_off();
	return ret;
}

/*
 * The IPMODIFY ops first, then a probe without post_handler; @post_too:
 * then one with (refused: the first one stays).  Upstream 6.12 fails to
 * roll that site back ("Failed to disarm kprobe-ftrace", two WARNs) and
 * then oopses in register_kprobe(): ours only (upstream_crashes).
 * Returns what the last registration returned, or the hits counted over
 * @calls calls.
 */
static int kpe_ipmodify_then_pre(struct kunit *test, int calls, bool post_too)
{
	struct kprobe *pre = kpe_site_probe(test, false);
	struct kprobe *post = kpe_site_probe(test, true);
	int ret, i;

	ret = kpe_ipmodify_on();
	KUNIT_ASSERT_EQ(test, ret, 0);
	ret = register_kprobe(pre);
	if (ret)
		goto out;
	if (post_too) {
		ret = register_kprobe(post);
		if (!ret)
			unregister_kprobe(post);
	}
	if (calls) {
		WRITE_ONCE(kpe_hits, 0);
		for (i = 0; i < calls; i++)
			kpe_data_var += kp_errno_traced(1);
		ret = READ_ONCE(kpe_hits);
	}
	unregister_kprobe(pre);
out:
	kpe_ipmodify_off();
	return ret;
}

static int kpe_ipmodify_pre(struct kunit *test)
{
	return kpe_ipmodify_then_pre(test, 0, false);
}

static int kpe_ipmodify_pre_hits(struct kunit *test)
{
	return kpe_ipmodify_then_pre(test, 1, false);
}

static int kpe_ipmodify_pre_post(struct kunit *test)
{
	return kpe_ipmodify_then_pre(test, 0, true);
}

/* two calls, after the post_handler's attempt where that runs */
static int kpe_ipmodify_pre_hits_after(struct kunit *test)
{
	return kpe_ipmodify_then_pre(test, 2, upstream_crashes);
}

static int kpe_ipmodify_post(struct kunit *test)
{
	struct kprobe *post = kpe_site_probe(test, true);
	int ret;

	KUNIT_ASSERT_EQ(test, kpe_ipmodify_on(), 0);
	ret = register_kprobe(post);
	if (!ret)
		unregister_kprobe(post);
	kpe_ipmodify_off();
	return ret;
}

/* The probe first, then the IPMODIFY ops; @calls as above. */
static int kpe_probe_then_ipmodify(struct kunit *test, bool post, int calls)
{
	struct kprobe *p = kpe_site_probe(test, post);
	int ret;

	KUNIT_ASSERT_EQ(test, register_kprobe(p), 0);
	ret = kpe_ipmodify_on();
	if (!ret) {
		if (calls) {
			WRITE_ONCE(kpe_hits, 0);
			kpe_data_var += kp_errno_traced(1);
			ret = READ_ONCE(kpe_hits);
		}
		kpe_ipmodify_off();
	}
	unregister_kprobe(p);
	return ret;
}

static int kpe_pre_then_ipmodify(struct kunit *test)
{
	return kpe_probe_then_ipmodify(test, false, 0);
}

static int kpe_pre_then_ipmodify_hits(struct kunit *test)
{
	return kpe_probe_then_ipmodify(test, false, 1);
}

static int kpe_post_then_ipmodify(struct kunit *test)
{
	return kpe_probe_then_ipmodify(test, true, 0);
}
#endif /* CONFIG_KPROBES_ON_FTRACE */

static struct kprobe kpe_kp = { .symbol_name = "kp_errno_traced",
				.pre_handler = kpe_pre };

static int kpe_kprobe_register(struct kunit *test)
{
	struct kprobe kp = { .symbol_name = "kp_errno_traced",
			     .pre_handler = kpe_pre };
	int ret = register_kprobe(&kp);

	if (!ret)
		unregister_kprobe(&kp);
	return ret;
}

/* Registering a registered probe again. */
static int kpe_kprobe_reregister(struct kunit *test)
{
	struct kprobe kp = { .symbol_name = "kp_errno_traced",
			     .pre_handler = kpe_pre };
	int ret;

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	ret = register_kprobe(&kp);
	unregister_kprobe(&kp);
	return ret;
}

/* Enabling or disabling a probe that is not registered. */
static int kpe_enable_unregistered(struct kunit *test)
{
	return enable_kprobe(&kpe_kp);
}

static int kpe_disable_unregistered(struct kunit *test)
{
	return disable_kprobe(&kpe_kp);
}

static int kpe_batch_empty(struct kunit *test)
{
	struct kprobe *kps[1] = { &kpe_kp };

	return register_kprobes(kps, 0);
}

static int kpe_kretprobe_register(struct kunit *test)
{
	return kpe_try_kretprobe(NULL, "kp_errno_traced", 0, 0, 0);
}

/*
 * A kretprobe registered, then (@step) registered again while it is, or
 * once unregistered: as it is (kp.addr holds the resolved address, kept
 * with symbol_name), or with kp.addr cleared.
 */
static int kpe_kretprobe_again(struct kunit *test, int step)
{
	struct kretprobe *rp = kunit_kzalloc(test, sizeof(*rp), GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, rp);
	rp->kp.symbol_name = "kp_errno_traced";
	rp->handler = kpe_ret;
	KUNIT_ASSERT_EQ(test, register_kretprobe(rp), 0);
	if (step == 0) {
		ret = register_kretprobe(rp);
		unregister_kretprobe(rp);
		return ret;
	}
	unregister_kretprobe(rp);
	if (step == 2)
		rp->kp.addr = NULL;
	ret = register_kretprobe(rp);
	if (!ret)
		unregister_kretprobe(rp);
	return ret;
}

static int kpe_kretprobe_reregister(struct kunit *test)
{
	return kpe_kretprobe_again(test, 0);
}

static int kpe_kretprobe_again_addr_and_sym(struct kunit *test)
{
	return kpe_kretprobe_again(test, 1);
}

static int kpe_kretprobe_again_fresh(struct kunit *test)
{
	return kpe_kretprobe_again(test, 2);
}

/*
 * A kretprobe in kmalloc()ed memory whose fields the caller does not set
 * hold garbage (here a poison pattern): only the fields a user sets may
 * matter.
 */
static int kpe_kretprobe_garbage(struct kunit *test)
{
	struct kretprobe *krp = kunit_kmalloc(test, sizeof(*krp), GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, krp);
	memset(krp, 0x6b, sizeof(*krp));
	krp->kp.addr = NULL;
	krp->kp.symbol_name = "kp_errno_traced";
	krp->kp.offset = 0;
	krp->kp.flags = 0;
	krp->handler = kpe_ret;
	krp->entry_handler = NULL;
	krp->data_size = 0;
	krp->maxactive = 0;
	ret = register_kretprobe(krp);
	if (!ret) {
		kpe_data_var += kp_errno_traced(1);
		unregister_kretprobe(krp);
	}
	return ret;
}

static int kpe_data_size_4096(struct kunit *test)
{
	return kpe_try_kretprobe(NULL, "kp_errno_traced", 0, 4096, 0);
}

static int kpe_data_size_4097(struct kunit *test)
{
	return kpe_try_kretprobe(NULL, "kp_errno_traced", 0, 4097, 0);
}

static int kpe_maxactive_4096(struct kunit *test)
{
	return kpe_try_kretprobe(NULL, "kp_errno_traced", 0, 0, 4096);
}

/* register_kretprobe() itself has no limit of 4096 (kprobe_events has) */
static int kpe_maxactive_4097(struct kunit *test)
{
	return kpe_try_kretprobe(NULL, "kp_errno_traced", 0, 0, 4097);
}

static int kpe_kretprobe_sym_unknown(struct kunit *test)
{
	return kpe_try_kretprobe(NULL, "kp_errno_no_such_symbol", 0, 0, 0);
}

/*
 * The instruction after the ftrace site: an instruction boundary, but
 * not the function's entry.
 */
static int kpe_kretprobe_after_site(struct kunit *test)
{
	return kpe_try_kretprobe((void *)ftrace_site +
				 (IS_ENABLED(CONFIG_X86) ? 5 : 4),
				 NULL, 0, 0, 0);
}

static const struct kpe_case kpe_cases[] = {
	{ "addr.heap", kpe_addr_heap, -ENOENT },
	{ "addr.user", kpe_addr_user, -ENOENT },
	{ "addr.data", kpe_addr_data, -EINVAL },
	{ "sym.unknown", kpe_sym_unknown, -ENOENT },
	{ "addr.and.sym", kpe_addr_and_sym, -EINVAL },
	{ "addr.nor.sym", kpe_addr_nor_sym, -EINVAL },
	{ "blacklist.notify_die", kpe_notify_die, -EINVAL },
	{ "site.jump_label", kpe_site_jump_label, -EINVAL },
	{ "site.static_call", kpe_site_static_call, -EINVAL },
	/* accepted where kprobes on ftrace are, refused elsewhere */
	{ "site.ftrace", kpe_site_ftrace,
	  IS_ENABLED(CONFIG_KPROBES_ON_FTRACE) ? 0 : -EINVAL, KPE_SITE },
	{ "site.ftrace.mid", kpe_site_ftrace_mid, -EILSEQ,
	  KPE_SITE | KPE_ON_FTRACE | KPE_X86 },
#ifdef CONFIG_KPROBES_ON_FTRACE
	{ "ipmodify.ops.register", kpe_ipmodify_register, 0, KPE_SITE },
	{ "ipmodify.then.kprobe.pre", kpe_ipmodify_pre, 0, KPE_SITE },
	{ "ipmodify.then.kprobe.pre.hits", kpe_ipmodify_pre_hits, 1, KPE_SITE },
	{ "ipmodify.then.kprobe.pre.then.post", kpe_ipmodify_pre_post, -EBUSY,
	  KPE_SITE | KPE_CRASHES },
	{ "ipmodify.then.kprobe.pre.hits.after", kpe_ipmodify_pre_hits_after, 2,
	  KPE_SITE },
	{ "ipmodify.then.kprobe.post", kpe_ipmodify_post, -EBUSY, KPE_SITE },
	{ "kprobe.pre.then.ipmodify", kpe_pre_then_ipmodify, 0, KPE_SITE },
	{ "kprobe.pre.then.ipmodify.hits", kpe_pre_then_ipmodify_hits, 1,
	  KPE_SITE },
	{ "kprobe.post.then.ipmodify", kpe_post_then_ipmodify, -EBUSY,
	  KPE_SITE },
#endif
	{ "kprobe.register", kpe_kprobe_register, 0 },
	{ "kprobe.reregister", kpe_kprobe_reregister, -EINVAL },
	{ "kprobe.enable.unregistered", kpe_enable_unregistered, -EINVAL },
	{ "kprobe.disable.unregistered", kpe_disable_unregistered, -EINVAL },
	{ "kprobes.batch.empty", kpe_batch_empty, -EINVAL },
	{ "kretprobe.register", kpe_kretprobe_register, 0 },
	{ "kretprobe.reregister", kpe_kretprobe_reregister, -EINVAL },
	{ "kretprobe.register.again.addr.and.sym",
	  kpe_kretprobe_again_addr_and_sym, -EINVAL },
	{ "kretprobe.register.again", kpe_kretprobe_again_fresh, 0 },
	{ "kretprobe.kmalloc.garbage", kpe_kretprobe_garbage, 0 },
	{ "kretprobe.data_size.4096", kpe_data_size_4096, 0 },
	{ "kretprobe.data_size.4097", kpe_data_size_4097, -E2BIG },
	{ "kretprobe.maxactive.4096", kpe_maxactive_4096, 0 },
	{ "kretprobe.maxactive.4097", kpe_maxactive_4097, 0 },
	{ "kretprobe.sym.unknown", kpe_kretprobe_sym_unknown, -ENOENT },
	{ "kretprobe.after.ftrace.site", kpe_kretprobe_after_site, -EINVAL,
	  KPE_SITE },
};

static bool kpe_applies(const struct kpe_case *c)
{
	if ((c->needs & KPE_ON_FTRACE) && !IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
		return false;
	if ((c->needs & KPE_X86) && !IS_ENABLED(CONFIG_X86))
		return false;
	return !(c->needs & KPE_CRASHES) || upstream_crashes;
}

/* The parameters: the inputs that apply on this kernel, by name. */
static const void *kpe_gen(const void *prev, char *desc)
{
	const struct kpe_case *c = prev ? (const struct kpe_case *)prev + 1 :
				   kpe_cases;

	for (; c < kpe_cases + ARRAY_SIZE(kpe_cases); c++) {
		if (kpe_applies(c)) {
			strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
			return c;
		}
	}
	return NULL;
}

static void kpe_errno(struct kunit *test)
{
	const struct kpe_case *c = test->param_value;
	int got;

	if ((c->needs & KPE_SITE) && !ftrace_site)
		kunit_skip(test, "no ftrace site for kp_errno_traced");
	got = c->try(test);
	KUNIT_EXPECT_EQ_MSG(test, got, c->want, "%s: got %d want %d",
			    c->name, got, c->want);
}

#ifndef CONFIG_KPROBES_ON_FTRACE
/* Reported, so that a kernel without kprobes on ftrace says why. */
static void kpe_ipmodify_none(struct kunit *test)
{
	kunit_skip(test, "no kprobes on ftrace");
}
#endif

static int kpe_suite_init(struct kunit_suite *suite)
{
	/* Keep the sites' functions referenced. */
	kpe_data_var += kp_errno_traced(0) + kp_errno_jump(0);
#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
	kpe_data_var += kp_errno_static_call(0);
#endif
	kpe_find_ftrace_site();
	return 0;
}

static struct kunit_case kpe_test_cases[] = {
	KUNIT_CASE_PARAM(kpe_errno, kpe_gen),
#ifndef CONFIG_KPROBES_ON_FTRACE
	{ .run_case = kpe_ipmodify_none, .name = "ipmodify" },
#endif
	{}
};

static struct kunit_suite kpe_suite = {
	.name = "kp_errno",
	.suite_init = kpe_suite_init,
	.test_cases = kpe_test_cases,
};

kunit_test_suite(kpe_suite);

MODULE_DESCRIPTION("kprobes workbench: errnos of the public API (KUnit)");
MODULE_LICENSE("GPL");
