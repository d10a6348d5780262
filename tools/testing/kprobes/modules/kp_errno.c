// SPDX-License-Identifier: GPL-2.0
/*
 * kp_errno: what the public kprobes API returns for bad (and borderline)
 * inputs.  The expected values are upstream 6.12's, measured by running
 * this very module on the upstream flavour of the workbench; the table is
 * in Documentation/trace/kprobes.rst.  Only the public API is used, so
 * one source builds and runs on both flavours.
 *
 * Reading /sys/kernel/debug/kp_errno/results runs every case and prints
 * one line per case: "KPTEST errno.NAME PASS|FAIL|SKIP (got X want Y)".
 * The guest test writes the address of this module's own ftrace site
 * (from tracefs' available_filter_functions_addrs) to the parameter
 * ftrace_site first: a module cannot ask ftrace for it.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/ftrace.h>
#include <linux/jump_label.h>
#include <linux/kprobes.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/static_call.h>

static unsigned long ftrace_site;
module_param(ftrace_site, ulong, 0600);
MODULE_PARM_DESC(ftrace_site, "address of kp_errno_traced()'s ftrace site");

/* Steps that crash upstream 6.12 run only when the guest says so (ours). */
static bool upstream_crashes;
module_param(upstream_crashes, bool, 0400);
MODULE_PARM_DESC(upstream_crashes, "run the steps that oops upstream 6.12");

static struct dentry *kpe_dir;
static int kpe_data_var = 1;

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

static void kpe_result(struct seq_file *m, const char *name, int got, int want)
{
	seq_printf(m, "KPTEST errno.%s %s (got %d want %d)\n", name,
		   got == want ? "PASS" : "FAIL", got, want);
}

static void kpe_skip(struct seq_file *m, const char *name, const char *why)
{
	seq_printf(m, "KPTEST errno.%s SKIP (%s)\n", name, why);
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

static void kpe_ipmodify(struct seq_file *m)
{
	struct kprobe pre = { .addr = (void *)ftrace_site,
			      .pre_handler = kpe_pre_count };
	struct kprobe post = { .addr = (void *)ftrace_site,
			       .pre_handler = kpe_pre, .post_handler = kpe_post };
	int ret;

	/* The IPMODIFY ops first, then the probes. */
	ret = kpe_ipmodify_on();
	kpe_result(m, "ipmodify.ops.register", ret, 0);
	if (ret)
		return;
	ret = register_kprobe(&pre);
	kpe_result(m, "ipmodify.then.kprobe.pre", ret, 0);
	if (!ret) {
		kpe_hits = 0;
		kpe_data_var += kp_errno_traced(1);
		kpe_result(m, "ipmodify.then.kprobe.pre.hits", READ_ONCE(kpe_hits), 1);
		/*
		 * A post_handler joins the site: refused, the first one stays.
		 * Upstream 6.12 fails to roll the site back ("Failed to disarm
		 * kprobe-ftrace", two WARNs) and then oopses in
		 * register_kprobe(): see upstream_crashes.
		 */
		if (upstream_crashes) {
			ret = register_kprobe(&post);
			kpe_result(m, "ipmodify.then.kprobe.pre.then.post", ret,
				   -EBUSY);
			if (!ret)
				unregister_kprobe(&post);
		}
		kpe_data_var += kp_errno_traced(1);
		kpe_result(m, "ipmodify.then.kprobe.pre.hits.after", READ_ONCE(kpe_hits), 2);
		unregister_kprobe(&pre);
	}
	memset(&post, 0, sizeof(post));
	post.addr = (void *)ftrace_site;
	post.pre_handler = kpe_pre;
	post.post_handler = kpe_post;
	ret = register_kprobe(&post);
	kpe_result(m, "ipmodify.then.kprobe.post", ret, -EBUSY);
	if (!ret)
		unregister_kprobe(&post);
	kpe_ipmodify_off();

	/* The probes first, then the IPMODIFY ops. */
	memset(&pre, 0, sizeof(pre));
	pre.addr = (void *)ftrace_site;
	pre.pre_handler = kpe_pre_count;
	if (!register_kprobe(&pre)) {
		ret = kpe_ipmodify_on();
		kpe_result(m, "kprobe.pre.then.ipmodify", ret, 0);
		if (!ret) {
			kpe_hits = 0;
			kpe_data_var += kp_errno_traced(1);
			kpe_result(m, "kprobe.pre.then.ipmodify.hits", READ_ONCE(kpe_hits), 1);
			kpe_ipmodify_off();
		}
		unregister_kprobe(&pre);
	}
	memset(&post, 0, sizeof(post));
	post.addr = (void *)ftrace_site;
	post.pre_handler = kpe_pre;
	post.post_handler = kpe_post;
	if (!register_kprobe(&post)) {
		ret = kpe_ipmodify_on();
		kpe_result(m, "kprobe.post.then.ipmodify", ret, -EBUSY);
		if (!ret)
			kpe_ipmodify_off();
		unregister_kprobe(&post);
	}
}
#endif

static int kpe_show(struct seq_file *m, void *v)
{
	struct kprobe kp = { .symbol_name = "kp_errno_traced",
			     .pre_handler = kpe_pre };
	struct kprobe *kps[1] = { &kp };
	struct kretprobe rp = { .kp.symbol_name = "kp_errno_traced",
				.handler = kpe_ret };
	struct kretprobe *krp;
	unsigned long a;
	void *heap;
	int ret;

	/* Where there is no symbol at all: upstream says -ENOENT. */
	heap = kmalloc(64, GFP_KERNEL);
	if (heap) {
		kpe_result(m, "addr.heap", kpe_try(heap, NULL, 0), -ENOENT);
		kfree(heap);
	}
	kpe_result(m, "addr.user", kpe_try((void *)0x10000UL, NULL, 0), -ENOENT);
	/* A symbol, but data. */
	kpe_result(m, "addr.data", kpe_try(&kpe_data_var, NULL, 0), -EINVAL);
	kpe_result(m, "sym.unknown", kpe_try(NULL, "kp_errno_no_such_symbol", 0),
		   -ENOENT);
	kpe_result(m, "addr.and.sym",
		   kpe_try(kp_errno_traced, "kp_errno_traced", 0), -EINVAL);
	kpe_result(m, "addr.nor.sym", kpe_try(NULL, NULL, 0), -EINVAL);
	/* NOKPROBE_SYMBOL() outside kprobes: blacklisted on both. */
	kpe_result(m, "blacklist.notify_die", kpe_try(NULL, "notify_die", 0),
		   -EINVAL);

	a = kpe_jump_site();
	if (a)
		kpe_result(m, "site.jump_label", kpe_try((void *)a, NULL, 0),
			   -EINVAL);
	else
		kpe_skip(m, "site.jump_label", "no jump label site");
	a = kpe_static_call_site();
	if (a)
		kpe_result(m, "site.static_call", kpe_try((void *)a, NULL, 0),
			   -EINVAL);
	else
		kpe_skip(m, "site.static_call", "no inline static calls");

	if (!ftrace_site) {
		kpe_skip(m, "site.ftrace", "no ftrace site given");
	} else if (IS_ENABLED(CONFIG_KPROBES_ON_FTRACE)) {
		kpe_result(m, "site.ftrace", kpe_try((void *)ftrace_site, NULL, 0), 0);
		/* Inside the x86 fentry call: not an instruction boundary. */
		if (IS_ENABLED(CONFIG_X86))
			kpe_result(m, "site.ftrace.mid",
				   kpe_try((void *)ftrace_site + 1, NULL, 0),
				   -EILSEQ);
	} else {
		kpe_result(m, "site.ftrace", kpe_try((void *)ftrace_site, NULL, 0),
			   -EINVAL);
	}

#ifdef CONFIG_KPROBES_ON_FTRACE
	if (ftrace_site)
		kpe_ipmodify(m);
	else
		kpe_skip(m, "ipmodify", "no ftrace site given");
#else
	kpe_skip(m, "ipmodify", "no kprobes on ftrace");
#endif

	/* Registering a registered probe again. */
	ret = register_kprobe(&kp);
	kpe_result(m, "kprobe.register", ret, 0);
	if (!ret) {
		kpe_result(m, "kprobe.reregister", register_kprobe(&kp), -EINVAL);
		unregister_kprobe(&kp);
	}
	/* Enabling or disabling a probe that is not registered. */
	kpe_result(m, "kprobe.enable.unregistered", enable_kprobe(&kp), -EINVAL);
	kpe_result(m, "kprobe.disable.unregistered", disable_kprobe(&kp), -EINVAL);
	kpe_result(m, "kprobes.batch.empty", register_kprobes(kps, 0), -EINVAL);

	ret = register_kretprobe(&rp);
	kpe_result(m, "kretprobe.register", ret, 0);
	if (!ret) {
		kpe_result(m, "kretprobe.reregister", register_kretprobe(&rp),
			   -EINVAL);
		unregister_kretprobe(&rp);
		/*
		 * Once unregistered, the same structure may be registered anew;
		 * kp.addr holds the resolved address, kept with symbol_name.
		 */
		ret = register_kretprobe(&rp);
		kpe_result(m, "kretprobe.register.again.addr.and.sym", ret,
			   -EINVAL);
		if (!ret)
			unregister_kretprobe(&rp);
		rp.kp.addr = NULL;
		ret = register_kretprobe(&rp);
		kpe_result(m, "kretprobe.register.again", ret, 0);
		if (!ret)
			unregister_kretprobe(&rp);
	}

	/*
	 * A kretprobe in kmalloc()ed memory whose fields the caller does not
	 * set hold garbage (here a poison pattern): only the fields a user
	 * sets may matter.
	 */
	krp = kmalloc(sizeof(*krp), GFP_KERNEL);
	if (krp) {
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
		kpe_result(m, "kretprobe.kmalloc.garbage", ret, 0);
		if (!ret) {
			kpe_data_var += kp_errno_traced(1);
			unregister_kretprobe(krp);
		}
		kfree(krp);
	}

	kpe_result(m, "kretprobe.data_size.4096",
		   kpe_try_kretprobe(NULL, "kp_errno_traced", 0, 4096, 0), 0);
	kpe_result(m, "kretprobe.data_size.4097",
		   kpe_try_kretprobe(NULL, "kp_errno_traced", 0, 4097, 0), -E2BIG);
	kpe_result(m, "kretprobe.maxactive.4096",
		   kpe_try_kretprobe(NULL, "kp_errno_traced", 0, 0, 4096), 0);
	/* register_kretprobe() itself has no limit of 4096 (kprobe_events has) */
	kpe_result(m, "kretprobe.maxactive.4097",
		   kpe_try_kretprobe(NULL, "kp_errno_traced", 0, 0, 4097), 0);
	kpe_result(m, "kretprobe.sym.unknown",
		   kpe_try_kretprobe(NULL, "kp_errno_no_such_symbol", 0, 0, 0),
		   -ENOENT);
	/*
	 * The instruction after the ftrace site: an instruction boundary, but
	 * not the function's entry.
	 */
	if (ftrace_site)
		kpe_result(m, "kretprobe.after.ftrace.site",
			   kpe_try_kretprobe((void *)ftrace_site +
					     (IS_ENABLED(CONFIG_X86) ? 5 : 4),
					     NULL, 0, 0, 0), -EINVAL);
	else
		kpe_skip(m, "kretprobe.after.ftrace.site", "no ftrace site given");
	return 0;
}

static int kpe_open(struct inode *inode, struct file *file)
{
	return single_open(file, kpe_show, NULL);
}

static const struct file_operations kpe_fops = {
	.owner = THIS_MODULE,
	.open = kpe_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static int __init kpe_init(void)
{
	/* Keep the sites' functions referenced. */
	kpe_data_var += kp_errno_traced(0) + kp_errno_jump(0);
#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
	kpe_data_var += kp_errno_static_call(0);
#endif
	kpe_dir = debugfs_create_dir("kp_errno", NULL);
	debugfs_create_file("results", 0400, kpe_dir, NULL, &kpe_fops);
	return 0;
}

static void __exit kpe_exit(void)
{
	debugfs_remove_recursive(kpe_dir);
}

module_init(kpe_init);
module_exit(kpe_exit);
MODULE_DESCRIPTION("kprobes workbench: errnos of the public API");
MODULE_LICENSE("GPL");
