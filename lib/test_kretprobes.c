// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit tests of kretprobes (suite "kprobes_kretprobe").
 *
 * The probed functions are ours, noinline and called through pointers,
 * so that the compiler neither inlines nor clones them.  Handlers only
 * record what they see (they run in atomic context); the test cases
 * check the records.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/linkage.h>
#include <linux/workqueue.h>
/* kretprobe_pool_released(), exported for the KUnit suites only */
#include "../kernel/kprobes_internal.h"
#ifdef CONFIG_X86
#include <asm/ibt.h>
#endif

#define KRT_TRACE_DEPTH	32
#define KRT_RECURSION	8
/*
 * Per-call data too big for a task's storage: such a kretprobe's calls
 * have only the pool's instances, and miss when those are all in use.
 */
#define KRT_BIG_DATA	2048
/* Calls blocked at once in one function, many more than any default pool */
#define KRT_SLEEPERS	200
#define KRT_HOT_CALLS	2000

struct krt_data {
	unsigned long arg;
	unsigned long stamp;
};

/* What the handlers saw */
static atomic_t krt_entries;
static atomic_t krt_returns;
static atomic_t krt_bad;
static bool krt_refuse_entry;
static bool krt_override;
static int krt_order[KRT_RECURSION + 1];
static struct kretprobe *krt_rp;

static void krt_reset(void)
{
	atomic_set(&krt_entries, 0);
	atomic_set(&krt_returns, 0);
	atomic_set(&krt_bad, 0);
	krt_refuse_entry = false;
	krt_override = false;
	memset(krt_order, 0xff, sizeof(krt_order));
}

/* ---- probed functions ---- */

static noinline int krt_add(int x)
{
	barrier();
	return x + 17;
}

static noinline int krt_recurse(int n);
static int (*krt_recurse_p)(int) = krt_recurse;

static noinline int krt_recurse(int n)
{
	if (n <= 0)
		return 0;
	/* Not a tail call: the + 1 runs after the return. */
	return READ_ONCE(krt_recurse_p)(n - 1) + 1;
}

static noinline int krt_sleepy(int ms)
{
	msleep(ms);
	return ms * 2;
}

static noinline int krt_block(struct completion *go)
{
	wait_for_completion(go);
	return 5;
}

static int (*krt_add_p)(int) = krt_add;
static int (*krt_sleepy_p)(int) = krt_sleepy;
static int (*krt_block_p)(struct completion *) = krt_block;

/* ---- handlers ---- */

static int krt_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct krt_data *d = (struct krt_data *)ri->data;

	atomic_inc(&krt_entries);
	if (READ_ONCE(krt_refuse_entry))
		return 1;
	d->arg = regs_get_kernel_argument(regs, 0);
	d->stamp = jiffies;
	return 0;
}

static int krt_add_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct krt_data *d = (struct krt_data *)ri->data;

	atomic_inc(&krt_returns);
	if (regs_return_value(regs) != (int)d->arg + 17 ||
	    get_kretprobe(ri) != krt_rp ||
	    is_kretprobe_trampoline(get_kretprobe_retaddr(ri)) ||
	    !kernel_text_address(get_kretprobe_retaddr(ri)) ||
	    instruction_pointer(regs) != get_kretprobe_retaddr(ri))
		atomic_inc(&krt_bad);
	if (READ_ONCE(krt_override))
		regs_set_return_value(regs, 4242);
	return 0;
}

static void krt_init(struct kretprobe *rp, void *func,
		     kretprobe_handler_t entry, kretprobe_handler_t ret,
		     int maxactive)
{
	memset(rp, 0, sizeof(*rp));
	rp->kp.addr = (kprobe_opcode_t *)func;
	rp->entry_handler = entry;
	rp->handler = ret;
	rp->maxactive = maxactive;
	rp->data_size = sizeof(struct krt_data);
	krt_rp = rp;
	krt_reset();
}

/* Entry and return paired, per-instance data, regs_return_value(). */
static void krt_test_pair(struct kunit *test)
{
	static struct kretprobe rp;
	int i;

	krt_init(&rp, krt_add, krt_entry, krt_add_ret, 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ(test, READ_ONCE(krt_add_p)(i * 3), i * 3 + 17);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_entries), 10);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns), 10);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_bad), 0);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);

	/* A handler can change the return value. */
	WRITE_ONCE(krt_override, true);
	KUNIT_EXPECT_EQ(test, READ_ONCE(krt_add_p)(1), 4242);
	WRITE_ONCE(krt_override, false);

	/* An entry handler that refuses: no return handler, no miss. */
	WRITE_ONCE(krt_refuse_entry, true);
	KUNIT_EXPECT_EQ(test, READ_ONCE(krt_add_p)(2), 19);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_entries), 12);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns), 11);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);

	/* Disabled: nothing; enabled again: back. */
	WRITE_ONCE(krt_refuse_entry, false);
	KUNIT_EXPECT_EQ(test, disable_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(krt_add_p)(3), 20);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_entries), 12);
	KUNIT_EXPECT_EQ(test, enable_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(krt_add_p)(3), 20);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns), 12);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_bad), 0);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_NULL(test, rp.pool);
}

/* Bad input gets a clear errno. */
static void krt_test_bad_input(struct kunit *test)
{
	static struct kretprobe rp, rp2;
	struct kretprobe *rps[2] = { &rp, &rp2 };
	int ret;

	KUNIT_EXPECT_EQ(test, register_kretprobe(NULL), -EINVAL);

	krt_init(&rp, krt_add, NULL, krt_add_ret, KRETPROBE_INSTANCES_MAX + 1);
	KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -E2BIG);
	krt_init(&rp, krt_add, NULL, krt_add_ret, 4);
	rp.data_size = KRETPROBE_DATA_SIZE_MAX + 1;
	KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -E2BIG);
	krt_init(&rp, krt_add, NULL, krt_add_ret, KRETPROBE_INSTANCES_MAX);
	rp.data_size = KRETPROBE_DATA_SIZE_MAX;
	KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -E2BIG);

	/* Not a function entry. */
	krt_init(&rp, NULL, NULL, krt_add_ret, 4);
	rp.kp.symbol_name = "krt_sleepy";
	rp.kp.offset = 16;
	ret = register_kretprobe(&rp);
	KUNIT_EXPECT_NE(test, ret, 0);
	if (!ret)
		unregister_kretprobe(&rp);
	KUNIT_EXPECT_NULL(test, rp.pool);

	/* Twice. */
	krt_init(&rp, krt_add, krt_entry, krt_add_ret, 4);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -EINVAL);
	unregister_kretprobe(&rp);

	/* Batches. */
	KUNIT_EXPECT_EQ(test, register_kretprobes(rps, 0), -EINVAL);
	krt_init(&rp2, krt_sleepy, NULL, NULL, 0);
	krt_init(&rp, krt_add, krt_entry, krt_add_ret, 4);
	KUNIT_ASSERT_EQ(test, register_kretprobes(rps, 2), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(krt_add_p)(1), 18);
	KUNIT_EXPECT_EQ(test, READ_ONCE(krt_sleepy_p)(1), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns), 1);
	unregister_kretprobes(rps, 2);
	KUNIT_EXPECT_NULL(test, rp.pool);
	KUNIT_EXPECT_NULL(test, rp2.pool);
}

static int krt_recurse_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct krt_data *d = (struct krt_data *)ri->data;

	atomic_inc(&krt_entries);
	d->arg = regs_get_kernel_argument(regs, 0);
	return 0;
}

static int krt_recurse_ret(struct kretprobe_instance *ri,
			   struct pt_regs *regs)
{
	struct krt_data *d = (struct krt_data *)ri->data;
	int i = atomic_inc_return(&krt_returns) - 1;

	if (regs_return_value(regs) != d->arg)
		atomic_inc(&krt_bad);
	if (i <= KRT_RECURSION)
		krt_order[i] = d->arg;
	return 0;
}

/* Recursion: one instance per level, returns innermost first. */
static void krt_test_recursion(struct kunit *test)
{
	static struct kretprobe rp;
	int i;

	krt_init(&rp, krt_recurse, krt_recurse_entry, krt_recurse_ret,
		 2 * KRT_RECURSION);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(krt_recurse_p)(KRT_RECURSION), KRT_RECURSION);
	unregister_kretprobe(&rp);

	KUNIT_EXPECT_EQ(test, atomic_read(&krt_entries), KRT_RECURSION + 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns), KRT_RECURSION + 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_bad), 0);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	for (i = 0; i <= KRT_RECURSION; i++)
		KUNIT_EXPECT_EQ(test, krt_order[i], i);
}

/*
 * Exact nmissed: maxactive 1 and nested calls, with per-call data too
 * big for the task's storage, so that only the pool serves.
 */
static void krt_test_nmissed_nested(struct kunit *test)
{
	static struct kretprobe rp;

	krt_init(&rp, krt_recurse, krt_recurse_entry, krt_recurse_ret, 1);
	rp.data_size = KRT_BIG_DATA;
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(krt_recurse_p)(3), 3);
	KUNIT_EXPECT_EQ(test, READ_ONCE(krt_recurse_p)(2), 2);
	unregister_kretprobe(&rp);

	/* The outer call has the instance, the 3 + 2 inner ones miss it. */
	KUNIT_EXPECT_EQ(test, rp.nmissed, 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_entries), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns), 2);
	KUNIT_EXPECT_EQ(test, krt_order[0], 3);
	KUNIT_EXPECT_EQ(test, krt_order[1], 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_bad), 0);
}

static int krt_sleepy_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct krt_data *d = (struct krt_data *)ri->data;

	atomic_inc(&krt_returns);
	if (regs_return_value(regs) != 2 * d->arg ||
	    time_before(jiffies, d->stamp + msecs_to_jiffies(d->arg) - 1))
		atomic_inc(&krt_bad);
	return 0;
}

/* A function that sleeps (and migrates, perhaps) before it returns. */
static void krt_test_sleep(struct kunit *test)
{
	static struct kretprobe rp;
	int i;

	krt_init(&rp, krt_sleepy, krt_entry, krt_sleepy_ret, 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	for (i = 1; i <= 3; i++)
		KUNIT_EXPECT_EQ(test, READ_ONCE(krt_sleepy_p)(i * 10), i * 20);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_bad), 0);
}

/* The test's own task: its calls of schedule() are counted apart. */
static struct task_struct *krt_self;
static atomic_t krt_self_entries;
static atomic_t krt_self_returns;

static int krt_sched_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&krt_entries);
	if (current == READ_ONCE(krt_self))
		atomic_inc(&krt_self_entries);
	return 0;
}

static int krt_sched_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&krt_returns);
	if (current == READ_ONCE(krt_self))
		atomic_inc(&krt_self_returns);
	return 0;
}

/*
 * schedule() itself, on every task of the system: instances sleep with
 * their tasks, many are still out when we unregister and come home later.
 */
static void krt_test_schedule(struct kunit *test)
{
	static struct kretprobe rp;

	/*
	 * Enough instances for every task that may sleep in schedule()
	 * meanwhile: the default is one per CPU without preemption, and on
	 * a uniprocessor a kworker asleep for the whole test would hold it.
	 */
	krt_init(&rp, NULL, krt_sched_entry, krt_sched_ret, 128);
	rp.kp.symbol_name = "schedule";
	atomic_set(&krt_self_entries, 0);
	atomic_set(&krt_self_returns, 0);
	WRITE_ONCE(krt_self, current);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	msleep(50);
	unregister_kretprobe(&rp);
	WRITE_ONCE(krt_self, NULL);
	msleep(50);
	/*
	 * This task slept in schedule() and came back before the
	 * unregistration: each of its entries has had its return.  Other
	 * tasks may still sleep in schedule(), so theirs are counted only
	 * as at most as many returns as entries.  The guest runs far fewer
	 * than 128 tasks, and a task holds one instance at a time (schedule()
	 * does not nest): none may be missed.
	 */
	KUNIT_EXPECT_GE(test, atomic_read(&krt_self_entries), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_self_returns),
			atomic_read(&krt_self_entries));
	KUNIT_EXPECT_GE(test, atomic_read(&krt_entries),
			atomic_read(&krt_self_entries));
	KUNIT_EXPECT_LE(test, atomic_read(&krt_returns),
			atomic_read(&krt_entries));
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
}

static int krt_exit_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	/* Only our threads: others give their instance back at once. */
	if (strncmp(current->comm, "krt_exit", 8))
		return 1;
	atomic_inc(&krt_entries);
	return 0;
}

static int krt_exit_fn(void *arg)
{
	return 0;
}

/*
 * do_exit() never returns: the instances stay with the dead tasks until
 * kprobe_flush_task() gives them back, so that two instances serve many
 * exits.
 */
static void krt_test_do_exit(struct kunit *test)
{
	static struct kretprobe rp;
	struct task_struct *t;
	int i, tries;

	krt_init(&rp, NULL, krt_exit_entry, krt_sched_ret, 2);
	rp.kp.symbol_name = "do_exit";
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	for (i = 0; i < 5; i++) {
		t = kthread_create(krt_exit_fn, NULL, "krt_exit/%d", i);
		if (IS_ERR(t))
			break;
		get_task_struct(t);
		wake_up_process(t);
		kthread_stop(t);
		for (tries = 0; tries < 50; tries++) {
			if (READ_ONCE(t->exit_state) == EXIT_DEAD)
				break;
			msleep(20);
		}
		put_task_struct(t);
		msleep(20);
		/* kprobe_flush_task() runs from an RCU callback. */
		rcu_barrier();
	}
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, i, 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_entries), 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns), 0);
}

/* The completion the tests' own calls pass: always done. */
static struct completion *krt_open_go;

struct krt_blocker {
	bool entered;
	struct completion go;
	struct completion done;
	int result;
};

static int krt_block_entry(struct kretprobe_instance *ri,
			   struct pt_regs *regs)
{
	struct completion *go = (struct completion *)
				regs_get_kernel_argument(regs, 0);

	atomic_inc(&krt_entries);
	/*
	 * Any call but the tests' own is a blocker's.  No completion here:
	 * a handler may run in NMI-like context (int3), where the lock of a
	 * completion must not be taken.
	 */
	if (go != READ_ONCE(krt_open_go))
		WRITE_ONCE(container_of(go, struct krt_blocker, go)->entered,
			   true);
	return 0;
}

static int krt_block_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&krt_returns);
	if (regs_return_value(regs) != 5)
		atomic_inc(&krt_bad);
	return 0;
}

static int krt_blocker_fn(void *arg)
{
	struct krt_blocker *b = arg;

	b->result = READ_ONCE(krt_block_p)(&b->go);
	complete(&b->done);
	return 0;
}

static struct task_struct *krt_start_blocker(struct kunit *test,
					     struct krt_blocker *b)
{
	struct task_struct *t;
	int i;

	WRITE_ONCE(b->entered, false);
	init_completion(&b->go);
	init_completion(&b->done);
	b->result = -1;
	t = kthread_run(krt_blocker_fn, b, "krt_blocker");
	if (IS_ERR(t))
		return t;
	for (i = 0; i < 500 && !READ_ONCE(b->entered); i++)
		msleep(20);
	if (!READ_ONCE(b->entered)) {
		complete(&b->go);
		wait_for_completion(&b->done);
		return ERR_PTR(-ETIMEDOUT);
	}
	return t;
}

/* Start @n blockers, each inside krt_block(); how many did. */
static int krt_start_blockers(struct kunit *test, struct krt_blocker *b,
			      int n)
{
	struct task_struct *t;
	int i;

	for (i = 0; i < n; i++) {
		t = krt_start_blocker(test, &b[i]);
		if (IS_ERR(t)) {
			KUNIT_FAIL(test, "blocker %d did not start: %ld", i,
				   PTR_ERR(t));
			break;
		}
	}
	return i;
}

/*
 * Exact nmissed: maxactive 1 held by a blocked call, per-call data too
 * big for the task's storage.
 */
static void krt_test_nmissed_blocked(struct kunit *test)
{
	static struct kretprobe rp;
	static struct krt_blocker b;
	DECLARE_COMPLETION_ONSTACK(open);
	struct task_struct *t;
	int i;

	complete_all(&open);
	WRITE_ONCE(krt_open_go, &open);
	krt_init(&rp, krt_block, krt_block_entry, krt_block_ret, 1);
	rp.data_size = KRT_BIG_DATA;
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	t = krt_start_blocker(test, &b);
	if (IS_ERR(t)) {
		unregister_kretprobe(&rp);
		KUNIT_FAIL(test, "blocker did not start: %ld", PTR_ERR(t));
		return;
	}
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, READ_ONCE(krt_block_p)(&open), 5);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_entries), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns), 0);

	complete(&b.go);
	wait_for_completion(&b.done);
	KUNIT_EXPECT_EQ(test, b.result, 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns), 1);
	/* The instance is back: the next call is watched. */
	KUNIT_EXPECT_EQ(test, READ_ONCE(krt_block_p)(&open), 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns), 2);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_bad), 0);
	unregister_kretprobe(&rp);
}

/* work_on_cpu() callback: one watched call on that CPU */
static long krt_add_here(void *arg)
{
	return READ_ONCE(krt_add_p)((int)(long)arg);
}

/*
 * Calls on every CPU leave each CPU's last instance in that CPU's spare;
 * unregistration must put every spare back into the objpool, or the
 * pool is never released.
 */
static void krt_test_pool_home(struct kunit *test)
{
	static struct kretprobe rp;
	unsigned int since;
	const void *pool;
	int cpu, n = 0;

	krt_init(&rp, krt_add, krt_entry, krt_add_ret, 4);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	for_each_online_cpu(cpu) {
		KUNIT_EXPECT_EQ(test, work_on_cpu(cpu, krt_add_here, (void *)3L), 20L);
		n++;
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns), n);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	pool = rp.pool;
	since = kretprobe_pools_released();
	unregister_kretprobe(&rp);
	/* no call in flight: the pool goes with the unregistration */
	KUNIT_EXPECT_TRUE(test, kretprobe_pool_released(pool, since));
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_bad), 0);
}

/*
 * One instance (maxactive 1): a call on one CPU leaves it in that CPU's
 * spare; a call on another CPU finds its own spare and the objpool
 * empty and must take the first CPU's spare instead of missing.
 */
static void krt_test_spare_other_cpu(struct kunit *test)
{
	static struct kretprobe rp;
	int first, second;

	first = cpumask_first(cpu_online_mask);
	second = cpumask_next(first, cpu_online_mask);
	if (second >= nr_cpu_ids)
		kunit_skip(test, "one CPU online: no other CPU's spare to take");

	krt_init(&rp, krt_add, krt_entry, krt_add_ret, 1);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, work_on_cpu(first, krt_add_here, (void *)1L), 18L);
	KUNIT_EXPECT_EQ(test, work_on_cpu(second, krt_add_here, (void *)2L), 19L);
	KUNIT_EXPECT_EQ(test, work_on_cpu(first, krt_add_here, (void *)3L), 20L);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns), 3);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_bad), 0);
	unregister_kretprobe(&rp);
}

/* Unregister while a call is in flight: it still returns where it should. */
static void krt_test_unregister_inflight(struct kunit *test)
{
	static struct kretprobe rp;
	static struct krt_blocker b[2];
	DECLARE_COMPLETION_ONSTACK(open);
	struct task_struct *t;
	int i;

	complete_all(&open);
	WRITE_ONCE(krt_open_go, &open);
	krt_init(&rp, krt_block, krt_block_entry, krt_block_ret, 4);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	for (i = 0; i < 2; i++) {
		t = krt_start_blocker(test, &b[i]);
		if (IS_ERR(t)) {
			KUNIT_FAIL(test, "blocker did not start: %ld",
				   PTR_ERR(t));
			while (i--) {
				complete(&b[i].go);
				wait_for_completion(&b[i].done);
			}
			unregister_kretprobe(&rp);
			return;
		}
	}
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_NULL(test, rp.pool);

	for (i = 0; i < 2; i++) {
		complete(&b[i].go);
		wait_for_completion(&b[i].done);
		KUNIT_EXPECT_EQ(test, b[i].result, 5);
	}
	/* No handler after unregistration. */
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns), 0);

	/* The kretprobe can be registered again. */
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(krt_block_p)(&open), 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns), 1);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_bad), 0);
}

/* ---- stack traces ---- */

struct krt_trace {
	unsigned long entries[KRT_TRACE_DEPTH];
	unsigned int nr;
};

static struct krt_trace krt_in_inner, krt_at_inner_ret, krt_at_outer_ret;

static noinline int krt_st_inner(int x)
{
	krt_in_inner.nr = stack_trace_save(krt_in_inner.entries,
					   KRT_TRACE_DEPTH, 0);
	return x + 1;
}

static int (*krt_st_inner_p)(int) = krt_st_inner;

static noinline int krt_st_outer(int x)
{
	return READ_ONCE(krt_st_inner_p)(x) * 2;
}

static int (*krt_st_outer_p)(int) = krt_st_outer;

/* The callers the traces must show. */
static noinline int krt_st_caller_one(int x)
{
	return READ_ONCE(krt_st_inner_p)(x) + 3;
}

static noinline int krt_st_caller_two(int x)
{
	return READ_ONCE(krt_st_outer_p)(x) + 3;
}

static int (*krt_st_caller_one_p)(int) = krt_st_caller_one;
static int (*krt_st_caller_two_p)(int) = krt_st_caller_two;

static int krt_st_inner_ret(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	krt_at_inner_ret.nr = stack_trace_save(krt_at_inner_ret.entries,
					       KRT_TRACE_DEPTH, 0);
	atomic_inc(&krt_returns);
	return 0;
}

static int krt_st_outer_ret(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	krt_at_outer_ret.nr = stack_trace_save(krt_at_outer_ret.entries,
					       KRT_TRACE_DEPTH, 0);
	atomic_inc(&krt_returns);
	return 0;
}

static bool krt_trace_has(struct krt_trace *t, void *func)
{
	unsigned long size, off;
	unsigned int i;

	for (i = 0; i < t->nr; i++)
		if (kallsyms_lookup_size_offset(t->entries[i], &size, &off) &&
		    t->entries[i] - off == (unsigned long)func && off)
			return true;
	return false;
}

static bool krt_trace_clean(struct krt_trace *t)
{
	unsigned int i;

	for (i = 0; i < t->nr; i++)
		if (is_kretprobe_trampoline(t->entries[i]))
			return false;
	return true;
}

static void krt_trace_clear(void)
{
	krt_in_inner.nr = 0;
	krt_at_inner_ret.nr = 0;
	krt_at_outer_ret.nr = 0;
}

static void krt_trace_expect(struct kunit *test, const char *what,
			     struct krt_trace *t, void *func, const char *name)
{
	KUNIT_EXPECT_GT_MSG(test, t->nr, 0, "%s: empty trace", what);
	KUNIT_EXPECT_TRUE_MSG(test, krt_trace_clean(t),
			      "%s: trace shows the trampoline", what);
	KUNIT_EXPECT_TRUE_MSG(test, krt_trace_has(t, func),
			      "%s: trace misses %s", what, name);
}

/* Through one kretprobed function. */
static void krt_test_stacktrace(struct kunit *test)
{
	static struct kretprobe rp;

	krt_init(&rp, krt_st_inner, NULL, krt_st_inner_ret, 0);
	rp.data_size = 0;
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	krt_trace_clear();
	KUNIT_EXPECT_EQ(test, READ_ONCE(krt_st_caller_one_p)(1), 5);
	unregister_kretprobe(&rp);

	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns), 1);
	krt_trace_expect(test, "inside", &krt_in_inner, krt_st_caller_one,
			 "krt_st_caller_one");
	krt_trace_expect(test, "return handler", &krt_at_inner_ret,
			 krt_st_caller_one, "krt_st_caller_one");
}

/* Through two nested kretprobed functions. */
static void krt_test_stacktrace_nested(struct kunit *test)
{
	static struct kretprobe inner, outer;

	krt_init(&inner, krt_st_inner, NULL, krt_st_inner_ret, 0);
	krt_init(&outer, krt_st_outer, NULL, krt_st_outer_ret, 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&inner), 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&outer), 0);
	krt_trace_clear();
	KUNIT_EXPECT_EQ(test, READ_ONCE(krt_st_caller_two_p)(1), 7);
	unregister_kretprobe(&outer);
	unregister_kretprobe(&inner);

	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns), 2);
	krt_trace_expect(test, "inside inner", &krt_in_inner, krt_st_outer,
			 "krt_st_outer");
	krt_trace_expect(test, "inside inner", &krt_in_inner,
			 krt_st_caller_two, "krt_st_caller_two");
	krt_trace_expect(test, "inner's handler", &krt_at_inner_ret,
			 krt_st_outer, "krt_st_outer");
	krt_trace_expect(test, "inner's handler", &krt_at_inner_ret,
			 krt_st_caller_two, "krt_st_caller_two");
	krt_trace_expect(test, "outer's handler", &krt_at_outer_ret,
			 krt_st_caller_two, "krt_st_caller_two");
}

/* ---- every CPU at once ---- */

static DECLARE_COMPLETION(krt_hot_go);
static DECLARE_COMPLETION(krt_hot_done);
static atomic_t krt_hot_left;
static atomic_t krt_hot_bad_results;

static int krt_hot_fn(void *arg)
{
	int i;

	/* Sleep, not spin: a spinner can starve the threads not yet woken. */
	wait_for_completion(&krt_hot_go);
	for (i = 0; i < KRT_HOT_CALLS; i++) {
		if (krt_add_p(i) != i + 17)
			atomic_inc(&krt_hot_bad_results);
		if (!(i & 63))
			cond_resched();
	}
	if (atomic_dec_and_test(&krt_hot_left))
		complete(&krt_hot_done);
	return 0;
}

static void krt_test_hot_all_cpus(struct kunit *test)
{
	static struct kretprobe rp;
	struct task_struct **tasks;
	int cpu, n = 0, nr = num_online_cpus();

	tasks = kunit_kcalloc(test, nr_cpu_ids, sizeof(*tasks), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tasks);
	krt_init(&rp, krt_add, krt_entry, krt_add_ret, 0);
	reinit_completion(&krt_hot_go);
	reinit_completion(&krt_hot_done);
	atomic_set(&krt_hot_bad_results, 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		tasks[cpu] = kthread_create(krt_hot_fn, NULL, "krt_hot/%d", cpu);
		if (IS_ERR(tasks[cpu])) {
			tasks[cpu] = NULL;
			continue;
		}
		get_task_struct(tasks[cpu]);
		kthread_bind(tasks[cpu], cpu);
		wake_up_process(tasks[cpu]);
		n++;
	}
	cpus_read_unlock();
	/*
	 * Every thread is bound: release them all at once, and let each run
	 * to its end before kthread_stop() (which would keep a thread that
	 * has not started yet from ever running).
	 */
	atomic_set(&krt_hot_left, n);
	complete_all(&krt_hot_go);
	if (n)
		wait_for_completion(&krt_hot_done);
	for_each_possible_cpu(cpu) {
		if (!tasks[cpu])
			continue;
		kthread_stop(tasks[cpu]);
		put_task_struct(tasks[cpu]);
	}
	unregister_kretprobe(&rp);

	KUNIT_EXPECT_EQ(test, n, nr);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_hot_bad_results), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_bad), 0);
	/* Every call is either watched (entry and return) or missed. */
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_entries),
			atomic_read(&krt_returns));
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns) + rp.nmissed,
			n * KRT_HOT_CALLS);
	kunit_info(test, "%d CPUs, %d returns watched, %d missed\n", n,
		   atomic_read(&krt_returns), rp.nmissed);
}

/*
 * Tail calls between kretprobed functions: krt_tail_a() jumps to
 * krt_tail_b(), so b's entry finds its return address already replaced by
 * a's.  Written in assembly so that the tail call is certain (arm64
 * builds with frame pointers, which turns sibling calls off).
 */
asmlinkage int krt_tail_a(int x);
asmlinkage int krt_tail_b(int x);

#ifdef CONFIG_X86
asm("	.pushsection .text, \"ax\"\n"
	ASM_FUNC_ALIGN "\n"
"	.globl krt_tail_a\n"
"	.type krt_tail_a, @function\n"
"krt_tail_a:\n"
	ASM_ENDBR
"	jmp krt_tail_b\n"
"	.size krt_tail_a, . - krt_tail_a\n"
	ASM_FUNC_ALIGN "\n"
"	.globl krt_tail_b\n"
"	.type krt_tail_b, @function\n"
"krt_tail_b:\n"
	ASM_ENDBR
#ifdef CONFIG_X86_64
"	leal 5(%rdi), %eax\n"
#else	/* i386: asmlinkage takes the argument on the stack */
"	movl 4(%esp), %eax\n"
"	addl $5, %eax\n"
#endif
	ASM_RET
"	.size krt_tail_b, . - krt_tail_b\n"
"	.popsection\n");
#else
asm("	.pushsection .text, \"ax\"\n"
"	.balign 4\n"
"	.globl krt_tail_a\n"
"	.type krt_tail_a, %function\n"
"krt_tail_a:\n"
"	b krt_tail_b\n"
"	.size krt_tail_a, . - krt_tail_a\n"
"	.globl krt_tail_b\n"
"	.type krt_tail_b, %function\n"
"krt_tail_b:\n"
"	add w0, w0, #5\n"
"	ret\n"
"	.size krt_tail_b, . - krt_tail_b\n"
"	.popsection\n");
#endif

static struct kretprobe krt_tail_rp[2];
static unsigned long krt_tail_ret[2];
static int krt_tail_order[2];
static int krt_tail_n;

/* Inside both handlers the running probe is the kretprobe's own kprobe. */
static int krt_tail_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);

	atomic_inc(&krt_entries);
	if (!rp || kprobe_running() != &rp->kp)
		atomic_inc(&krt_bad);
	return 0;
}

static int krt_tail_ret_handler(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	struct kretprobe_instance *last;
	unsigned long ret = get_kretprobe_retaddr(ri);
	int i = rp == &krt_tail_rp[1];

	atomic_inc(&krt_returns);
	if (!rp || kprobe_running() != &rp->kp)
		atomic_inc(&krt_bad);
	/* The real return address, in the regs and for the instance. */
	if (is_kretprobe_trampoline(ret) || instruction_pointer(regs) != ret)
		atomic_inc(&krt_bad);
	/* The instance is still the task's newest of its frame. */
	if (kretprobe_find_instance(current->kretprobe_instances.first,
				    ri->fp, &last) != ri)
		atomic_inc(&krt_bad);
	krt_tail_ret[i] = ret;
	if (krt_tail_n < ARRAY_SIZE(krt_tail_order))
		krt_tail_order[krt_tail_n++] = i;
	return 0;
}

static noinline int krt_tail_call(int x)
{
	return krt_tail_a(x) + 1;	/* not a tail call: returns here */
}

/*
 * b's handler must see the real return address, not the trampoline, and
 * kprobe_running() must be b's kretprobe in return handlers, not a busy
 * marker.
 */
static void krt_test_tail_call(struct kunit *test)
{
	struct kretprobe *rps[2] = { &krt_tail_rp[0], &krt_tail_rp[1] };
	unsigned long size, off;
	int i;

	krt_reset();
	memset(krt_tail_rp, 0, sizeof(krt_tail_rp));
	memset(krt_tail_ret, 0, sizeof(krt_tail_ret));
	krt_tail_n = 0;
	krt_tail_rp[0].kp.addr = (kprobe_opcode_t *)krt_tail_a;
	krt_tail_rp[1].kp.addr = (kprobe_opcode_t *)krt_tail_b;
	for (i = 0; i < 2; i++) {
		krt_tail_rp[i].entry_handler = krt_tail_entry;
		krt_tail_rp[i].handler = krt_tail_ret_handler;
		krt_tail_rp[i].maxactive = 4;
	}
	KUNIT_ASSERT_EQ(test, register_kretprobes(rps, 2), 0);
	KUNIT_EXPECT_EQ(test, krt_tail_call(10), 16);
	unregister_kretprobes(rps, 2);

	KUNIT_EXPECT_EQ(test, atomic_read(&krt_entries), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_bad), 0);
	/* b returns first, then a; both to krt_tail_call() */
	KUNIT_EXPECT_EQ(test, krt_tail_n, 2);
	KUNIT_EXPECT_EQ(test, krt_tail_order[0], 1);
	KUNIT_EXPECT_EQ(test, krt_tail_order[1], 0);
	KUNIT_EXPECT_EQ(test, krt_tail_ret[0], krt_tail_ret[1]);
	KUNIT_ASSERT_TRUE(test,
			  kallsyms_lookup_size_offset((unsigned long)krt_tail_call,
						      &size, &off));
	KUNIT_EXPECT_GT(test, krt_tail_ret[0], (unsigned long)krt_tail_call);
	KUNIT_EXPECT_LT(test, krt_tail_ret[0],
			(unsigned long)krt_tail_call + size);
}

/*
 * kretprobe_find_instance(), the trampoline's lookup, on a made-up list
 * of pending instances, newest first.  "None" is what makes the
 * trampoline stop the task with a diagnostic (BUG): that path itself
 * cannot run in a test that is to survive, so its lookup is pinned here.
 */
static void krt_test_find_instance(struct kunit *test)
{
	unsigned long tramp = (unsigned long)kretprobe_trampoline;
	struct kretprobe_instance *ri[4], *last = NULL;
	void *fp[4] = { (void *)0x1000, (void *)0x2000, (void *)0x1000,
			(void *)0x3000 };
	unsigned long ret[4] = { tramp, 0x1111, 0x2222, tramp };
	int i;

	for (i = 0; i < 4; i++) {
		ri[i] = kunit_kzalloc(test, sizeof(*ri[i]), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, ri[i]);
		ri[i]->fp = fp[i];
		ri[i]->ret_addr = (kprobe_opcode_t *)ret[i];
	}
	for (i = 0; i < 3; i++)
		ri[i]->llist.next = &ri[i + 1]->llist;

	/* a tail call: the chain of 0x1000 ends in ri[2] */
	KUNIT_EXPECT_PTR_EQ(test, kretprobe_find_instance(&ri[0]->llist,
							  fp[0], &last), ri[0]);
	KUNIT_EXPECT_PTR_EQ(test, last, ri[2]);
	KUNIT_EXPECT_PTR_EQ(test, kretprobe_find_instance(&ri[0]->llist,
							  fp[1], &last), ri[1]);
	KUNIT_EXPECT_PTR_EQ(test, last, ri[1]);
	/* none: only the trampoline for 0x3000, nothing at all for 0x4000 */
	KUNIT_EXPECT_NULL(test, kretprobe_find_instance(&ri[0]->llist,
							fp[3], &last));
	KUNIT_EXPECT_NULL(test, kretprobe_find_instance(&ri[0]->llist,
							(void *)0x4000, &last));
	KUNIT_EXPECT_NULL(test, kretprobe_find_instance(NULL, fp[0], &last));
	/* this task has nothing pending here */
	KUNIT_EXPECT_NULL(test,
			  kretprobe_find_instance(current->kretprobe_instances.first,
						  fp[0], &last));
}

/* ---- instances from the task's own storage ---- */

/* The default number of instances register_kretprobe() writes back. */
static int krt_default_maxactive(void)
{
	if (IS_ENABLED(CONFIG_PREEMPTION))
		return max_t(int, 10, 2 * num_possible_cpus());
	return num_possible_cpus();
}

/*
 * maxactive 1 and nested calls: the outer call has the pool's instance,
 * the inner ones take instances from the task's storage; every return
 * is watched, with its own data, innermost first.
 */
static void krt_test_own_nested(struct kunit *test)
{
	static struct kretprobe rp;
	int i;

	krt_init(&rp, krt_recurse, krt_recurse_entry, krt_recurse_ret, 1);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(krt_recurse_p)(KRT_RECURSION),
			KRT_RECURSION);
	KUNIT_EXPECT_EQ(test, READ_ONCE(krt_recurse_p)(2), 2);
	unregister_kretprobe(&rp);

	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_entries), KRT_RECURSION + 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns), KRT_RECURSION + 4);
	for (i = 0; i <= KRT_RECURSION; i++)
		KUNIT_EXPECT_EQ(test, krt_order[i], i);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_bad), 0);
}

/*
 * Many more tasks blocked inside one function than the default pool
 * holds (a server's threads in accept(), say): every return is watched,
 * none is missed, and maxactive reads back the pool's size.
 */
static void krt_test_own_sleepers(struct kunit *test)
{
	static struct kretprobe rp;
	static struct krt_blocker b[KRT_SLEEPERS];
	DECLARE_COMPLETION_ONSTACK(open);
	int i, n, bad = 0;

	complete_all(&open);
	WRITE_ONCE(krt_open_go, &open);
	krt_init(&rp, krt_block, krt_block_entry, krt_block_ret, 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, rp.maxactive, krt_default_maxactive());
	KUNIT_EXPECT_LT(test, rp.maxactive, KRT_SLEEPERS);
	n = krt_start_blockers(test, b, KRT_SLEEPERS);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_entries), n);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	/* A call of ours meanwhile is watched too. */
	KUNIT_EXPECT_EQ(test, READ_ONCE(krt_block_p)(&open), 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns), 1);

	for (i = 0; i < n; i++)
		complete(&b[i].go);
	for (i = 0; i < n; i++) {
		wait_for_completion(&b[i].done);
		bad += b[i].result != 5;
	}
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, n, KRT_SLEEPERS);
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns), n + 1);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_bad), 0);
}

/* A blocker that first waits at a gate every blocker shares. */
struct krt_burster {
	struct completion *gate;
	struct krt_blocker b;
};

static int krt_burster_fn(void *arg)
{
	struct krt_burster *bb = arg;

	wait_for_completion(bb->gate);
	return krt_blocker_fn(&bb->b);
}

/*
 * A burst: KRT_SLEEPERS real-time tasks, released at once, enter the
 * probed function one right after the other and sleep there, more than
 * the pool and the reserve of task storage hold together.  No task of
 * lower priority (a worker that would refill the reserve) runs on their
 * CPUs until every one of them sleeps: the reserve must be refilled
 * between their hits, with no return missed.
 */
static void krt_test_own_burst(struct kunit *test)
{
	static struct kretprobe rp;
	static struct krt_burster bb[KRT_SLEEPERS];
	DECLARE_COMPLETION_ONSTACK(open);
	DECLARE_COMPLETION_ONSTACK(gate);
	struct task_struct *t;
	int i, j, n, in = 0, bad = 0;

	complete_all(&open);
	WRITE_ONCE(krt_open_go, &open);
	krt_init(&rp, krt_block, krt_block_entry, krt_block_ret, 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	for (n = 0; n < KRT_SLEEPERS; n++) {
		bb[n].gate = &gate;
		WRITE_ONCE(bb[n].b.entered, false);
		init_completion(&bb[n].b.go);
		init_completion(&bb[n].b.done);
		bb[n].b.result = -1;
		t = kthread_create(krt_burster_fn, &bb[n], "krt_burst");
		if (IS_ERR(t)) {
			KUNIT_FAIL(test, "burster %d: %ld", n, PTR_ERR(t));
			break;
		}
		sched_set_fifo_low(t);
		wake_up_process(t);
	}
	complete_all(&gate);
	for (i = 0; i < 500 && in < n; i++) {
		msleep(20);
		for (j = 0, in = 0; j < n; j++)
			in += READ_ONCE(bb[j].b.entered);
	}
	KUNIT_EXPECT_EQ(test, in, n);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_entries), n);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);

	for (i = 0; i < n; i++)
		complete(&bb[i].b.go);
	for (i = 0; i < n; i++) {
		wait_for_completion(&bb[i].b.done);
		bad += bb[i].b.result != 5;
	}
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, n, KRT_SLEEPERS);
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns), n);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_bad), 0);
}

/*
 * Unregistration with instances of tasks' storage in flight: no handler
 * runs for them, they return where they should, and the pool they refer
 * to lives until the last of them is given back.
 */
static void krt_test_own_unregister_inflight(struct kunit *test)
{
	static struct kretprobe rp;
	static struct krt_blocker b[3];
	DECLARE_COMPLETION_ONSTACK(open);
	unsigned int since;
	const void *pool;
	int i, n;

	complete_all(&open);
	WRITE_ONCE(krt_open_go, &open);
	krt_init(&rp, krt_block, krt_block_entry, krt_block_ret, 1);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	n = krt_start_blockers(test, b, 3);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	pool = rp.pool;
	since = kretprobe_pools_released();
	unregister_kretprobe(&rp);
	/* Three calls in flight: the pool's instance, two of tasks' storage */
	KUNIT_EXPECT_FALSE(test, kretprobe_pool_released(pool, since));

	for (i = 0; i < n; i++) {
		complete(&b[i].go);
		wait_for_completion(&b[i].done);
		KUNIT_EXPECT_EQ(test, b[i].result, 5);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns), 0);
	/* The pool's instance comes home through the reaper's irq_work. */
	for (i = 0; i < 100 && !kretprobe_pool_released(pool, since); i++)
		msleep(20);
	KUNIT_EXPECT_TRUE(test, kretprobe_pool_released(pool, since));
	KUNIT_EXPECT_EQ(test, n, 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_bad), 0);
}

static struct krt_trace krt_own_inside, krt_own_at_ret;
static noinline int krt_own_rec(int n);
static int (*krt_own_rec_p)(int) = krt_own_rec;

static noinline int krt_own_rec(int n)
{
	if (n <= 0) {
		krt_own_inside.nr = stack_trace_save(krt_own_inside.entries,
						     KRT_TRACE_DEPTH, 0);
		return 0;
	}
	return READ_ONCE(krt_own_rec_p)(n - 1) + 1;
}

static noinline int krt_own_caller(int n)
{
	return READ_ONCE(krt_own_rec_p)(n) + 3;
}

static int (*krt_own_caller_p)(int) = krt_own_caller;

static int krt_own_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	/* the innermost call, first to return: the trace of its handler */
	if (atomic_inc_return(&krt_returns) == 1)
		krt_own_at_ret.nr = stack_trace_save(krt_own_at_ret.entries,
						     KRT_TRACE_DEPTH, 0);
	return 0;
}

/*
 * Stack traces through returns whose instances are in the task's
 * storage: the unwinder finds the real return addresses behind the
 * trampoline (kretprobe_find_ret_addr()) inside the innermost call and
 * in its return handler.
 */
static void krt_test_own_stacktrace(struct kunit *test)
{
	static struct kretprobe rp;

	krt_init(&rp, krt_own_rec, NULL, krt_own_ret, 1);
	rp.data_size = 0;
	krt_own_inside.nr = 0;
	krt_own_at_ret.nr = 0;
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(krt_own_caller_p)(2), 5);
	unregister_kretprobe(&rp);

	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns), 3);
	krt_trace_expect(test, "inside", &krt_own_inside, krt_own_rec,
			 "krt_own_rec");
	krt_trace_expect(test, "inside", &krt_own_inside, krt_own_caller,
			 "krt_own_caller");
	krt_trace_expect(test, "return handler", &krt_own_at_ret,
			 krt_own_rec, "krt_own_rec");
	krt_trace_expect(test, "return handler", &krt_own_at_ret,
			 krt_own_caller, "krt_own_caller");
}

static DECLARE_COMPLETION(krt_own_exit_done);
static noinline int krt_own_exit(int n);
static int (*krt_own_exit_p)(int) = krt_own_exit;

static noinline int krt_own_exit(int n)
{
	if (n <= 0)
		kthread_complete_and_exit(&krt_own_exit_done, 0);
	return READ_ONCE(krt_own_exit_p)(n - 1) + 1;
}

static int krt_own_exit_fn(void *arg)
{
	return READ_ONCE(krt_own_exit_p)(3);
}

/*
 * A task that exits with returns pending, their instances in its
 * storage: kprobe_flush_task() gives them back when the task is freed,
 * and the pool is released after unregistration.
 */
static void krt_test_own_exit(struct kunit *test)
{
	static struct kretprobe rp;
	struct task_struct *t;
	unsigned int since;
	const void *pool;
	int tries;

	reinit_completion(&krt_own_exit_done);
	krt_init(&rp, krt_own_exit, NULL, krt_sched_ret, 1);
	rp.data_size = 0;
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	t = kthread_create(krt_own_exit_fn, NULL, "krt_own_exit");
	if (IS_ERR(t)) {
		unregister_kretprobe(&rp);
		KUNIT_FAIL(test, "no thread: %ld", PTR_ERR(t));
		return;
	}
	get_task_struct(t);
	wake_up_process(t);
	wait_for_completion(&krt_own_exit_done);
	/* Reaped, then kprobe_flush_task() from an RCU callback. */
	for (tries = 0; tries < 100; tries++) {
		if (READ_ONCE(t->exit_state) == EXIT_DEAD)
			break;
		msleep(20);
	}
	put_task_struct(t);
	msleep(20);
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&krt_returns), 0);
	pool = rp.pool;
	since = kretprobe_pools_released();
	unregister_kretprobe(&rp);
	for (tries = 0; tries < 100 && !kretprobe_pool_released(pool, since);
	     tries++) {
		msleep(20);
		rcu_barrier();
	}
	KUNIT_EXPECT_TRUE(test, kretprobe_pool_released(pool, since));
}

static struct kunit_case krt_cases[] = {
	KUNIT_CASE(krt_test_pair),
	KUNIT_CASE(krt_test_bad_input),
	KUNIT_CASE(krt_test_recursion),
	KUNIT_CASE(krt_test_nmissed_nested),
	KUNIT_CASE(krt_test_nmissed_blocked),
	KUNIT_CASE(krt_test_sleep),
	KUNIT_CASE(krt_test_schedule),
	KUNIT_CASE(krt_test_do_exit),
	KUNIT_CASE(krt_test_unregister_inflight),
	KUNIT_CASE(krt_test_pool_home),
	KUNIT_CASE(krt_test_spare_other_cpu),
	KUNIT_CASE(krt_test_stacktrace),
	KUNIT_CASE(krt_test_stacktrace_nested),
	KUNIT_CASE(krt_test_hot_all_cpus),
	KUNIT_CASE(krt_test_tail_call),
	KUNIT_CASE(krt_test_find_instance),
	KUNIT_CASE(krt_test_own_nested),
	KUNIT_CASE_SLOW(krt_test_own_sleepers),
	KUNIT_CASE_SLOW(krt_test_own_burst),
	KUNIT_CASE(krt_test_own_unregister_inflight),
	KUNIT_CASE(krt_test_own_stacktrace),
	KUNIT_CASE(krt_test_own_exit),
	{}
};

static struct kunit_suite krt_suite = {
	.name = "kprobes_kretprobe",
	.test_cases = krt_cases,
};

kunit_test_suites(&krt_suite);

MODULE_DESCRIPTION("KUnit tests of kretprobes");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
