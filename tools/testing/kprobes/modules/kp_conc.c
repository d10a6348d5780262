// SPDX-License-Identifier: GPL-2.0
/*
 * kp_conc: concurrency stress of kprobes, through the public API only (the
 * same source builds on both flavours).
 *
 * Writing SECONDS to /sys/kernel/debug/kp_conc/run runs, for that long:
 *
 *  - one hitter kthread bound to each online CPU, calling kpc_target() and
 *    its two neighbours in a loop;
 *  - two churn kthreads registering, unregistering, enabling and disabling
 *    kprobes and a kretprobe on the target (on the very addresses of the
 *    checked probes, so aggregates come and go under the hits, and a
 *    post_handler keeps undoing jump optimization) and on its neighbours;
 *  - the writer, alternating two phases:
 *      chaos:  the checked probes are disabled, enabled, unregistered and
 *              registered again, and kprobes/enabled is flipped;
 *      steady: the checked probes stay armed and kprobes/enabled is 1.
 *    The optimization sysctl flips in both.
 *
 * Only calls made in a steady phase count, and each checked probe must see
 * every one of them exactly once: a kprobe at the entry, a kprobe in the
 * body (optimizable on x86), a kretprobe's entry and return handlers.
 * The write returns the number of steady phases, or -EIO on a mismatch, a
 * failed API call or when no counted call was made; "result" tells the
 * counts.
 */
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/debugfs.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/seq_file.h>
#include <linux/mutex.h>
#include <linux/jiffies.h>
#include <linux/ptrace.h>
#include <linux/umh.h>

/* Global, so that the compiler neither clones nor renames them. */
#include "kp_conc.h"

static int kpc_salt = 3;
static unsigned long kpc_sink;

noinline int kpc_before(int x)
{
	barrier();
	return x ^ READ_ONCE(kpc_salt);
}

noinline int kpc_target(int x)
{
	int r = READ_ONCE(kpc_salt) + x;

	barrier();
	r = r * 7 + (x >> 3);
	barrier();
	return r - (x & 5);
}

noinline int kpc_after(int x)
{
	int r = x + 11;

	barrier();
	return r * READ_ONCE(kpc_salt);
}

/* Per CPU: written by that CPU's hitter and by the handlers it triggers. */
struct kpc_count {
	bool counting;
	u64 calls, entry, body, ret_entry, ret_return;
};

static DEFINE_PER_CPU(struct kpc_count, kpc_pc);

static int kpc_entry_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct kpc_count *c = this_cpu_ptr(&kpc_pc);

	if (READ_ONCE(c->counting))
		c->entry++;
	return 0;
}

static int kpc_body_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct kpc_count *c = this_cpu_ptr(&kpc_pc);

	if (READ_ONCE(c->counting))
		c->body++;
	return 0;
}

static int kpc_ret_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kpc_count *c = this_cpu_ptr(&kpc_pc);

	if (READ_ONCE(c->counting))
		c->ret_entry++;
	return 0;
}

static int kpc_ret_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kpc_count *c = this_cpu_ptr(&kpc_pc);

	if (READ_ONCE(c->counting))
		c->ret_return++;
	return 0;
}

/* Churn probes count nothing that is checked. */
static atomic_long_t kpc_churn_hits;

static int kpc_churn_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_long_inc(&kpc_churn_hits);
	return 0;
}

static void kpc_churn_post(struct kprobe *p, struct pt_regs *regs,
			   unsigned long flags)
{
	atomic_long_inc(&kpc_churn_hits);
}

static int kpc_churn_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_long_inc(&kpc_churn_hits);
	return 0;
}

/*
 * A probe the stress owns: a kprobe or a kretprobe, its place, and where it
 * stands.  Only its owner thread touches it while the run goes.
 */
enum kpc_state { KPC_OFF, KPC_ON, KPC_DISABLED };

struct kpc_probe {
	const char *name;
	const char *symbol;
	bool body;		/* at the first instruction past the entry */
	bool ret;		/* a kretprobe */
	bool post;		/* with a post_handler */
	bool checked;
	kprobe_pre_handler_t pre;
	kretprobe_handler_t entry_handler, handler;
	struct kprobe kp;
	struct kretprobe rp;
	enum kpc_state state;
};

static unsigned int kpc_body_off;

static struct kpc_probe kpc_checked[] = {
	{ .name = "entry", .symbol = "kpc_target", .checked = true,
	  .pre = kpc_entry_pre },
	{ .name = "body", .symbol = "kpc_target", .body = true, .checked = true,
	  .pre = kpc_body_pre },
	{ .name = "ret", .symbol = "kpc_target", .ret = true, .checked = true,
	  .entry_handler = kpc_ret_entry, .handler = kpc_ret_return },
};

static struct kpc_probe kpc_churn0[] = {
	{ .name = "c-entry", .symbol = "kpc_target", .pre = kpc_churn_pre },
	{ .name = "c-body-post", .symbol = "kpc_target", .body = true,
	  .post = true, .pre = kpc_churn_pre },
	{ .name = "c-ret", .symbol = "kpc_target", .ret = true,
	  .handler = kpc_churn_ret },
};

static struct kpc_probe kpc_churn1[] = {
	{ .name = "c-before", .symbol = "kpc_before", .pre = kpc_churn_pre },
	{ .name = "c-after", .symbol = "kpc_after", .pre = kpc_churn_pre },
	{ .name = "c-after-body", .symbol = "kpc_after", .body = true,
	  .pre = kpc_churn_pre },
	{ .name = "c-before-ret", .symbol = "kpc_before", .ret = true,
	  .handler = kpc_churn_ret },
	{ .name = "c-target-body", .symbol = "kpc_target", .body = true,
	  .pre = kpc_churn_pre },
};

/* What went wrong, for the result file; the first failure is kept. */
static atomic_t kpc_errors;
static char kpc_first_error[160];
static DEFINE_SPINLOCK(kpc_error_lock);

static void kpc_error(const char *what, const char *name, long val)
{
	atomic_inc(&kpc_errors);
	spin_lock(&kpc_error_lock);
	if (!kpc_first_error[0])
		snprintf(kpc_first_error, sizeof(kpc_first_error),
			 "%s %s %ld", what, name, val);
	spin_unlock(&kpc_error_lock);
}

/* register (from scratch: a struct is reusable only once reset), enable... */
static void kpc_register(struct kpc_probe *p)
{
	int ret;

	if (p->ret) {
		memset(&p->rp, 0, sizeof(p->rp));
		p->rp.kp.symbol_name = p->symbol;
		p->rp.entry_handler = p->entry_handler;
		p->rp.handler = p->handler;
		p->rp.maxactive = 2 * num_possible_cpus() + 4;
		ret = register_kretprobe(&p->rp);
	} else {
		memset(&p->kp, 0, sizeof(p->kp));
		p->kp.symbol_name = p->symbol;
		p->kp.offset = p->body ? kpc_body_off : 0;
		p->kp.pre_handler = p->pre;
		if (p->post)
			p->kp.post_handler = kpc_churn_post;
		ret = register_kprobe(&p->kp);
	}
	if (ret)
		kpc_error("register", p->name, ret);
	else
		p->state = KPC_ON;
}

static void kpc_unregister(struct kpc_probe *p)
{
	if (p->ret)
		unregister_kretprobe(&p->rp);
	else
		unregister_kprobe(&p->kp);
	p->state = KPC_OFF;
}

static void kpc_set_enabled(struct kpc_probe *p, bool on)
{
	struct kprobe *kp = p->ret ? &p->rp.kp : &p->kp;
	int ret = on ? enable_kprobe(kp) : disable_kprobe(kp);

	if (ret)
		kpc_error(on ? "enable" : "disable", p->name, ret);
	else
		p->state = on ? KPC_ON : KPC_DISABLED;
}

/* One random step of a probe's life. */
static void kpc_step(struct kpc_probe *p)
{
	switch (p->state) {
	case KPC_OFF:
		kpc_register(p);
		break;
	case KPC_ON:
		if (get_random_u32_below(2))
			kpc_set_enabled(p, false);
		else
			kpc_unregister(p);
		break;
	case KPC_DISABLED:
		if (get_random_u32_below(2))
			kpc_set_enabled(p, true);
		else
			kpc_unregister(p);
		break;
	}
}

/* Bring a probe to @state. */
static void kpc_put(struct kpc_probe *p, enum kpc_state state)
{
	if (p->state == state)
		return;
	if (state == KPC_OFF) {
		kpc_unregister(p);
		return;
	}
	if (p->state == KPC_OFF)
		kpc_register(p);
	if (p->state != KPC_OFF && p->state != state)
		kpc_set_enabled(p, state == KPC_ON);
}

/*
 * The hitters.  kpc_phase is (sequence << 1) | steady; a hitter publishes
 * the phase word it acted on once its calls under it are over, so that the
 * writer knows when no call of an older phase is still going.
 */
static unsigned long kpc_phase;

struct kpc_hitter {
	struct task_struct *task;
	unsigned long seen;
	int cpu;
};

static struct kpc_hitter *kpc_hitters;
static unsigned int kpc_nr_hitters;

static int kpc_hit_fn(void *data)
{
	struct kpc_hitter *h = data;
	struct kpc_count *c = per_cpu_ptr(&kpc_pc, h->cpu);
	unsigned long sink = 0;
	int i = 0;

	while (!kthread_should_stop()) {
		/* pairs with the release in kpc_enter_phase() */
		unsigned long phase = smp_load_acquire(&kpc_phase);
		bool counted = phase & 1;

		WRITE_ONCE(c->counting, counted);
		sink += kpc_before(i) + kpc_target(i) + kpc_after(i);
		if (counted)
			WRITE_ONCE(c->calls, c->calls + 1);
		WRITE_ONCE(c->counting, false);
		/* our counts before: pairs with kpc_hitters_caught_up() */
		smp_store_release(&h->seen, phase);
		/*
		 * Now and then a voluntary sleep: cond_resched() is not one
		 * under CONFIG_PREEMPT, and RCU Tasks (which jump optimization
		 * waits for) needs one from every task that runs kernel code.
		 */
		if (!(++i & 255))
			usleep_range(20, 50);
		else
			cond_resched();
	}
	WRITE_ONCE(kpc_sink, kpc_sink + sink);
	return 0;
}

static bool kpc_hitters_caught_up(unsigned long phase)
{
	unsigned int i;

	for (i = 0; i < kpc_nr_hitters; i++)
		/* then its counts are visible: pairs with kpc_hit_fn() */
		if (smp_load_acquire(&kpc_hitters[i].seen) != phase)
			return false;
	return true;
}

/* Enter a phase and wait until every hitter acts under it. */
static int kpc_enter_phase(bool steady)
{
	unsigned long phase = ((READ_ONCE(kpc_phase) >> 1) + 1) << 1 | steady;
	unsigned long deadline = jiffies + 60 * HZ;

	/* the probes armed before: pairs with kpc_hit_fn() */
	smp_store_release(&kpc_phase, phase);
	while (!kpc_hitters_caught_up(phase)) {
		if (time_after(jiffies, deadline)) {
			kpc_error("hitters-stuck", "phase", phase);
			return -ETIMEDOUT;
		}
		usleep_range(100, 200);
	}
	return 0;
}

struct kpc_totals {
	u64 calls, entry, body, ret_entry, ret_return;
};

static void kpc_sum(struct kpc_totals *t)
{
	int cpu;

	memset(t, 0, sizeof(*t));
	for_each_possible_cpu(cpu) {
		struct kpc_count *c = per_cpu_ptr(&kpc_pc, cpu);

		t->calls += READ_ONCE(c->calls);
		t->entry += READ_ONCE(c->entry);
		t->body += READ_ONCE(c->body);
		t->ret_entry += READ_ONCE(c->ret_entry);
		t->ret_return += READ_ONCE(c->ret_return);
	}
}

/* Churn threads: random steps on their own probes until stopped. */
struct kpc_churn {
	struct task_struct *task;
	struct kpc_probe *probes;
	unsigned int nr;
	unsigned long ops;
};

static struct kpc_churn kpc_churns[2] = {
	{ .probes = kpc_churn0, .nr = ARRAY_SIZE(kpc_churn0) },
	{ .probes = kpc_churn1, .nr = ARRAY_SIZE(kpc_churn1) },
};

static int kpc_churn_fn(void *data)
{
	struct kpc_churn *ch = data;
	unsigned int i;

	while (!kthread_should_stop()) {
		kpc_step(&ch->probes[get_random_u32_below(ch->nr)]);
		ch->ops++;
		usleep_range(200, 2000);
	}
	for (i = 0; i < ch->nr; i++)
		kpc_put(&ch->probes[i], KPC_OFF);
	return 0;
}

/* Knobs the writer flips, through their files (both flavours have them). */
static unsigned long kpc_flips_enabled, kpc_flips_opt;
static bool kpc_has_opt_sysctl;

static int kpc_write_file(const char *path, const char *val)
{
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	f = filp_open(path, O_WRONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_write(f, val, strlen(val), &pos);
	filp_close(f, NULL);
	return n < 0 ? n : 0;
}

#define KPC_ENABLED	"/sys/kernel/debug/kprobes/enabled"
#define KPC_OPT		"/proc/sys/debug/kprobes-optimization"

/*
 * kprobes/enabled has no write_iter, which kernel_write() needs: a shell of
 * the guest writes it, as a user would.
 */
static int kpc_write_enabled(bool on)
{
	char *argv[] = { "/bin/sh", "-c",
			 on ? "echo 1 > " KPC_ENABLED : "echo 0 > " KPC_ENABLED,
			 NULL };
	char *envp[] = { "PATH=/bin:/sbin", NULL };

	return call_usermodehelper(argv[0], argv, envp, UMH_WAIT_PROC);
}

static void kpc_flip_enabled(bool on)
{
	int ret = kpc_write_enabled(on);

	if (ret)
		kpc_error("write", KPC_ENABLED, ret);
	else
		kpc_flips_enabled++;
}

static void kpc_flip_opt(void)
{
	int ret;

	if (!kpc_has_opt_sysctl)
		return;
	ret = kpc_write_file(KPC_OPT, get_random_u32_below(2) ? "1\n" : "0\n");
	if (ret)
		kpc_error("write", KPC_OPT, ret);
	else
		kpc_flips_opt++;
}

/* Results of the last run. */
static struct kpc_totals kpc_total;
static unsigned long kpc_steady_phases, kpc_mismatches, kpc_ret_missed;
static char kpc_first_mismatch[200];
static DEFINE_MUTEX(kpc_run_lock);

static void kpc_check_phase(const struct kpc_totals *a,
			    const struct kpc_totals *b, unsigned long missed)
{
	u64 calls = b->calls - a->calls;
	u64 entry = b->entry - a->entry, body = b->body - a->body;
	u64 rete = b->ret_entry - a->ret_entry;
	u64 retr = b->ret_return - a->ret_return;

	kpc_total.calls += calls;
	kpc_total.entry += entry;
	kpc_total.body += body;
	kpc_total.ret_entry += rete;
	kpc_total.ret_return += retr;
	kpc_ret_missed += missed;
	if (entry == calls && body == calls && rete == calls && retr == calls &&
	    !missed)
		return;
	if (!kpc_mismatches++)
		snprintf(kpc_first_mismatch, sizeof(kpc_first_mismatch),
			 "phase %lu calls %llu entry %llu body %llu ret-entry %llu ret-return %llu ret-missed %lu",
			 kpc_steady_phases, calls, entry, body, rete, retr,
			 missed);
}

/*
 * The first offset past the entry where a kprobe registers at an address of
 * its own (an entry probe may move past an endbr64 to the ftrace site).
 */
static int kpc_find_body(void)
{
	struct kprobe kp = {
		.symbol_name = "kpc_target",
		.pre_handler = kpc_churn_pre,
	};
	kprobe_opcode_t *entry, *addr;
	unsigned int off;
	int ret;

	ret = register_kprobe(&kp);
	if (ret)
		return ret;
	entry = kp.addr;
	unregister_kprobe(&kp);
	for (off = 1; off < 64; off++) {
		memset(&kp, 0, sizeof(kp));
		kp.symbol_name = "kpc_target";
		kp.offset = off;
		kp.pre_handler = kpc_churn_pre;
		if (register_kprobe(&kp))
			continue;
		addr = kp.addr;
		unregister_kprobe(&kp);
		if (addr != entry) {
			kpc_body_off = off;
			return 0;
		}
	}
	return -ENOENT;
}

static void kpc_stop_threads(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kpc_churns); i++) {
		if (kpc_churns[i].task)
			kthread_stop(kpc_churns[i].task);
		kpc_churns[i].task = NULL;
	}
	for (i = 0; i < kpc_nr_hitters; i++)
		if (kpc_hitters[i].task)
			kthread_stop(kpc_hitters[i].task);
	kfree(kpc_hitters);
	kpc_hitters = NULL;
	kpc_nr_hitters = 0;
}

static int kpc_start_threads(void)
{
	unsigned int i = 0;
	int cpu;

	kpc_hitters = kcalloc(num_online_cpus(), sizeof(*kpc_hitters),
			      GFP_KERNEL);
	if (!kpc_hitters)
		return -ENOMEM;
	for_each_online_cpu(cpu) {
		struct kpc_hitter *h = &kpc_hitters[i];
		struct task_struct *t;

		if (i >= num_online_cpus())
			break;
		h->cpu = cpu;
		h->seen = ~0UL;
		t = kthread_create_on_cpu(kpc_hit_fn, h, cpu, "kpc_hit/%u");
		if (IS_ERR(t))
			return PTR_ERR(t);
		h->task = t;
		kpc_nr_hitters = ++i;
		wake_up_process(t);
	}
	for (i = 0; i < ARRAY_SIZE(kpc_churns); i++) {
		struct task_struct *t;

		kpc_churns[i].ops = 0;
		t = kthread_run(kpc_churn_fn, &kpc_churns[i], "kpc_churn/%u", i);
		if (IS_ERR(t))
			return PTR_ERR(t);
		kpc_churns[i].task = t;
	}
	return 0;
}

static void kpc_reset(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&kpc_pc, cpu), 0, sizeof(struct kpc_count));
	memset(&kpc_total, 0, sizeof(kpc_total));
	kpc_steady_phases = 0;
	kpc_mismatches = 0;
	kpc_ret_missed = 0;
	kpc_flips_enabled = 0;
	kpc_flips_opt = 0;
	kpc_first_mismatch[0] = 0;
	kpc_first_error[0] = 0;
	atomic_set(&kpc_errors, 0);
	atomic_long_set(&kpc_churn_hits, 0);
	kpc_phase = 0;
}

static void kpc_chaos(unsigned long until)
{
	unsigned int i;

	while (time_before(jiffies, until)) {
		switch (get_random_u32_below(4)) {
		case 0:
			kpc_flip_enabled(get_random_u32_below(2));
			break;
		case 1:
			kpc_flip_opt();
			break;
		default:
			i = get_random_u32_below(ARRAY_SIZE(kpc_checked));
			kpc_step(&kpc_checked[i]);
			break;
		}
		usleep_range(500, 3000);
	}
}

static int kpc_steady(unsigned long until)
{
	struct kpc_totals a, b;
	unsigned long missed0;
	unsigned int i;
	int ret;

	kpc_flip_enabled(true);
	for (i = 0; i < ARRAY_SIZE(kpc_checked); i++)
		kpc_put(&kpc_checked[i], KPC_ON);
	for (i = 0; i < ARRAY_SIZE(kpc_checked); i++)
		if (kpc_checked[i].state != KPC_ON)
			return -EIO;
	kpc_sum(&a);
	missed0 = kpc_checked[2].rp.nmissed;
	ret = kpc_enter_phase(true);
	while (!ret && time_before(jiffies, until)) {
		if (!get_random_u32_below(4))
			kpc_flip_opt();
		msleep(get_random_u32_below(20) + 1);
	}
	if (!ret)
		ret = kpc_enter_phase(false);
	if (ret)
		return ret;
	kpc_sum(&b);
	kpc_steady_phases++;
	kpc_check_phase(&a, &b, kpc_checked[2].rp.nmissed - missed0);
	return 0;
}

static int kpc_run(unsigned long seconds)
{
	unsigned long end = jiffies + seconds * HZ;
	struct file *f;
	unsigned int i;
	int ret;

	kpc_reset();
	f = filp_open(KPC_OPT, O_WRONLY, 0);
	kpc_has_opt_sysctl = !IS_ERR(f);
	if (!IS_ERR(f))
		filp_close(f, NULL);
	ret = kpc_find_body();
	if (ret)
		return ret;
	ret = kpc_start_threads();
	while (!ret && time_before(jiffies, end)) {
		kpc_chaos(jiffies + msecs_to_jiffies(50 + get_random_u32_below(150)));
		ret = kpc_steady(jiffies + msecs_to_jiffies(100 + get_random_u32_below(300)));
	}
	kpc_stop_threads();
	for (i = 0; i < ARRAY_SIZE(kpc_checked); i++)
		kpc_put(&kpc_checked[i], KPC_OFF);
	kpc_write_enabled(true);
	if (kpc_has_opt_sysctl)
		kpc_write_file(KPC_OPT, "1\n");
	if (ret)
		return ret;
	if (kpc_mismatches || atomic_read(&kpc_errors) || !kpc_total.calls)
		return -EIO;
	return 0;
}

static ssize_t kpc_run_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	unsigned long seconds;
	int ret;

	ret = kstrtoul_from_user(ubuf, count, 0, &seconds);
	if (ret)
		return ret;
	if (!seconds || seconds > 3600)
		return -EINVAL;
	mutex_lock(&kpc_run_lock);
	ret = kpc_run(seconds);
	mutex_unlock(&kpc_run_lock);
	return ret ? ret : count;
}

static int kpc_result_show(struct seq_file *m, void *v)
{
	mutex_lock(&kpc_run_lock);
	seq_printf(m, "steady-phases %lu\n", kpc_steady_phases);
	seq_printf(m, "calls %llu\n", kpc_total.calls);
	seq_printf(m, "entry %llu\nbody %llu\n", kpc_total.entry, kpc_total.body);
	seq_printf(m, "ret-entry %llu\nret-return %llu\nret-missed %lu\n",
		   kpc_total.ret_entry, kpc_total.ret_return, kpc_ret_missed);
	seq_printf(m, "mismatches %lu\n", kpc_mismatches);
	seq_printf(m, "churn-ops %lu\nchurn-hits %ld\n",
		   kpc_churns[0].ops + kpc_churns[1].ops,
		   atomic_long_read(&kpc_churn_hits));
	seq_printf(m, "flips-enabled %lu\nflips-optimization %lu\n",
		   kpc_flips_enabled, kpc_flips_opt);
	seq_printf(m, "body-offset %u\n", kpc_body_off);
	seq_printf(m, "errors %d\n", atomic_read(&kpc_errors));
	if (kpc_first_mismatch[0])
		seq_printf(m, "first-mismatch %s\n", kpc_first_mismatch);
	if (kpc_first_error[0])
		seq_printf(m, "first-error %s\n", kpc_first_error);
	mutex_unlock(&kpc_run_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kpc_result);

static const struct file_operations kpc_run_fops = {
	.write = kpc_run_write,
};

static struct dentry *kpc_dir;

static int __init kpc_init(void)
{
	kpc_dir = debugfs_create_dir("kp_conc", NULL);
	debugfs_create_file("run", 0200, kpc_dir, NULL, &kpc_run_fops);
	debugfs_create_file("result", 0400, kpc_dir, NULL, &kpc_result_fops);
	return 0;
}

static void __exit kpc_exit(void)
{
	debugfs_remove_recursive(kpc_dir);
}

module_init(kpc_init);
module_exit(kpc_exit);
MODULE_DESCRIPTION("kprobes workbench: concurrency stress");
MODULE_LICENSE("GPL");
