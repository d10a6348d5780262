// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Jump optimization of kprobes: the architecture-independent optimizer.
 *
 * A probe is always armed with a breakpoint first.  When its site allows
 * it (armed, enabled, no post_handler, no other probe inside the region
 * the jump would cover, optimization on), the site gets a struct
 * optimized_kprobe: the arch checks the region once and builds a detour
 * buffer (arch_prepare_optimized_kprobe()), and the op is queued.
 *
 *   IDLE --queue--> QUEUED --optimizer--> OPTIMIZED
 *     ^                |                      |
 *     +----dequeue-----+------unoptimize------+
 *
 * From QUEUED on, a breakpoint hit continues in the detour buffer's copy
 * of the region, so no new task enters the region's tail.  The optimizer
 * is a delayed work that takes the whole queue, waits for an RCU-tasks
 * grace period (a task preempted or interrupted inside the region has
 * left it then: the region has no call, and only tasks off the CPU
 * voluntarily count as quiescent), and writes all jumps in one batch.
 *
 * Unoptimizing is synchronous (the caller needs the breakpoint back:
 * a post_handler must run, a neighbour probe is about to be written
 * inside the region, the probe is being disarmed) and writes the original
 * bytes back behind the breakpoint; tasks still in the detour buffer
 * finish there.  Buffers and ops are released after RCU-tasks.
 *
 * All state changes happen under kprobe_mutex; the hit paths read
 * op->state and op->retired locklessly.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/cpu.h>
#include <linux/hashtable.h>
#include <linux/init.h>
#include <linux/list.h>
#include <linux/memory.h>
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <linux/workqueue.h>

#include "kprobes_internal.h"

/* Let registrations that come together be optimized together. */
#define OPTIMIZE_DELAY	(HZ / 50)

static LIST_HEAD(opt_all);	/* every struct optimized_kprobe */
/* the same ops by site: thousands of sites unregistered in one batch */
static DEFINE_HASHTABLE(opt_by_site, 10);
static LIST_HEAD(opt_queue);	/* QUEUED, waiting for the optimizer */
static bool opt_enabled = true;	/* debug.kprobes-optimization */
static unsigned int opt_nqueued;	/* ops in KPROBE_OPT_QUEUED */
/*
 * Ops in KPROBE_OPT_IDLE and not retired: the only ones a retiring
 * neighbour may let be optimized (while there are none,
 * kprobe_opt_retire() looks no further).
 */
static unsigned int opt_nidle;

static void optimizer(struct work_struct *work);
static DECLARE_DELAYED_WORK(optimizer_work, optimizer);

static struct optimized_kprobe *find_op(struct kprobe *sp)
{
	struct optimized_kprobe *op;

	lockdep_assert_held(&kprobe_mutex);
	hash_for_each_possible(opt_by_site, op, hnode, (unsigned long)sp)
		if (opt_site(op) == sp)
			return op;
	return NULL;
}

/*
 * The op whose region has @addr past its first byte, @back bytes before
 * @addr (1 <= @back < KPROBE_OPT_REGION_MAX), or NULL.  A region starts
 * at its site and covers at most KPROBE_OPT_REGION_MAX bytes, so the ops
 * around an address are found by looking up the sites of the bytes
 * before it in the kprobe hash table: a few lookups, where walking every
 * op would make a batch of n sites cost n * n.  Sites being unregistered
 * have left the table already; their ops are not asked.
 */
static struct optimized_kprobe *op_around(unsigned long addr, int back)
{
	struct kprobe *sp = get_kprobe((void *)(addr - back));
	struct optimized_kprobe *op = sp ? find_op(sp) : NULL;

	return op && kprobe_opt_arch_within(op, addr) ? op : NULL;
}

/* Counted in opt_nidle: idle, and its site still registered. */
static bool op_idle(const struct optimized_kprobe *op)
{
	return op->state == KPROBE_OPT_IDLE && !op->retired;
}

/* Its site is being unregistered: the detour stops calling handlers. */
static void op_retire(struct optimized_kprobe *op)
{
	if (op->retired)
		return;
	opt_nidle -= op_idle(op);
	/* The site is freed after the caller's grace period. */
	WRITE_ONCE(op->retired, true);
	WRITE_ONCE(op->live, NULL);
	kprobe_opt_arch_retire(op);
}

/* Worth an op: could be optimized but for neighbours and the sysctl. */
static bool site_candidate(struct kprobe *sp, bool allowed)
{
	return allowed && !sp->post_handler && !kprobe_disabled(sp) &&
	       !kprobe_ftrace(sp);
}

static struct optimized_kprobe *op_create(struct kprobe *sp)
{
	struct optimized_kprobe *op;
	int ret;

	op = kzalloc(sizeof(*op), GFP_KERNEL);
	if (!op)
		return NULL;
	op->live = sp;
	INIT_LIST_HEAD(&op->queue);
	ret = kprobe_opt_arch_prepare(op, sp);
	if (ret) {
		op->state = KPROBE_OPT_REFUSED;
		op->err = ret;
		pr_debug("cannot optimize %pS (%d)\n", sp->addr, ret);
	}
	list_add(&op->node, &opt_all);
	hash_add(opt_by_site, &op->hnode, (unsigned long)sp);
	opt_nidle += op_idle(op);
	return op;
}

static void set_state(struct optimized_kprobe *op, int state)
{
	lockdep_assert_held(&kprobe_mutex);
	opt_nqueued += (state == KPROBE_OPT_QUEUED) -
		       (op->state == KPROBE_OPT_QUEUED);
	opt_nidle -= op_idle(op);
	WRITE_ONCE(op->state, state);
	opt_nidle += op_idle(op);
}

static void queue_op(struct optimized_kprobe *op)
{
	/* Hits go through the detour copy from here on. */
	set_state(op, KPROBE_OPT_QUEUED);
	list_add_tail(&op->queue, &opt_queue);
	queue_delayed_work(kprobes_wq, &optimizer_work, OPTIMIZE_DELAY);
}

/* Write the original bytes back behind the breakpoints of @ops. */
static void unoptimize_list(struct list_head *ops)
{
	struct optimized_kprobe *op, *tmp;

	if (list_empty(ops))
		return;
	scoped_guard(kprobe_text)
		kprobe_opt_arch_unoptimize(ops);
	list_for_each_entry_safe(op, tmp, ops, queue) {
		list_del_init(&op->queue);
		set_state(op, KPROBE_OPT_IDLE);
	}
}

/* Back to a plain breakpoint, now. */
static void unoptimize_op(struct optimized_kprobe *op)
{
	LIST_HEAD(one);

	switch (op->state) {
	case KPROBE_OPT_QUEUED:
		/* on opt_queue, or in the optimizer's batch */
		list_del_init(&op->queue);
		set_state(op, KPROBE_OPT_IDLE);
		break;
	case KPROBE_OPT_OPTIMIZED:
		list_add(&op->queue, &one);
		unoptimize_list(&one);
		break;
	}
}

/* Queue or unoptimize @op as its site and the sysctl say. */
static void op_evaluate(struct optimized_kprobe *op)
{
	bool want;

	if (op->state == KPROBE_OPT_REFUSED || op->retired)
		return;
	want = opt_enabled && site_candidate(opt_site(op), op->allowed) &&
	       !arch_check_optimized_kprobe(op);
	if (want && op->state == KPROBE_OPT_IDLE)
		queue_op(op);
	else if (!want)
		unoptimize_op(op);
}

void kprobe_opt_update(struct kprobe *sp, bool allowed)
{
	struct optimized_kprobe *op;

	lockdep_assert_held(&kprobe_mutex);
	op = find_op(sp);
	if (!op) {
		if (!site_candidate(sp, allowed))
			return;
		op = op_create(sp);
		if (!op)
			return;
	}
	op->allowed = allowed;
	op_evaluate(op);
}

void kprobe_opt_arming(kprobe_opcode_t *addr)
{
	struct optimized_kprobe *op;
	LIST_HEAD(batch);
	int back;

	lockdep_assert_held(&kprobe_mutex);
	for (back = 1; back < KPROBE_OPT_REGION_MAX; back++) {
		op = op_around((unsigned long)addr, back);
		if (!op || op->state <= KPROBE_OPT_IDLE)
			continue;
		if (op->state == KPROBE_OPT_QUEUED) {
			unoptimize_op(op);
			continue;
		}
		list_add_tail(&op->queue, &batch);
	}
	unoptimize_list(&batch);
}

/**
 * arch_disarm_optimized_kprobes() - remove optimized probes in one step
 * @ops: optimized ops whose sites are being disarmed, linked by ->queue
 *
 * For an arch that can write the original instructions straight over
 * the jumps (arm64: every text write stops the other CPUs anyway),
 * instead of the jumps going back to breakpoints first and the
 * breakpoints then to the originals.  Called with text_mutex and
 * cpus_read_lock() held.
 *
 * Return: true when it did (the sites are disarmed and not optimized),
 * false to go the two-step way (the default).
 */
bool __weak arch_disarm_optimized_kprobes(struct list_head *ops)
{
	return false;
}

/*
 * The optimized ops on @ops leave the text: disarmed outright where the
 * arch can (true), else back to breakpoints (false).  @ops is emptied.
 */
static bool disarm_list(struct list_head *ops)
{
	struct optimized_kprobe *op, *tmp;
	bool done;

	if (list_empty(ops))
		return false;
	scoped_guard(kprobe_text)
		done = arch_disarm_optimized_kprobes(ops);
	if (!done) {
		unoptimize_list(ops);
		return false;
	}
	list_for_each_entry_safe(op, tmp, ops, queue) {
		list_del_init(&op->queue);
		set_state(op, KPROBE_OPT_IDLE);
	}
	return true;
}

bool kprobe_opt_disarm(struct kprobe *sp)
{
	struct optimized_kprobe *op;
	LIST_HEAD(one);

	lockdep_assert_held(&kprobe_mutex);
	op = find_op(sp);
	if (!op)
		return false;
	if (op->state != KPROBE_OPT_OPTIMIZED) {
		unoptimize_op(op);
		return false;
	}
	list_add(&op->queue, &one);
	return disarm_list(&one);
}

int kprobe_opt_unoptimize(struct kprobe **sites, int n)
{
	struct optimized_kprobe *op;
	LIST_HEAD(batch);
	int i, nb = 0;

	lockdep_assert_held(&kprobe_mutex);
	for (i = 0; i < n; i++) {
		op = find_op(sites[i]);
		if (op && op->state == KPROBE_OPT_OPTIMIZED) {
			list_add_tail(&op->queue, &batch);
			sites[nb++] = sites[i];
		}
	}
	return disarm_list(&batch) ? nb : 0;
}

void kprobe_opt_retire(struct kprobe *sp)
{
	struct optimized_kprobe *op;
	int back;

	lockdep_assert_held(&kprobe_mutex);
	op = find_op(sp);
	if (op) {
		unoptimize_op(op);
		op_retire(op);
	}
	/*
	 * Probes it kept from being optimized may be now: only idle ones
	 * (none, typically, when a batch of optimized sites goes).
	 */
	if (!opt_nidle)
		return;
	for (back = 1; back < KPROBE_OPT_REGION_MAX; back++) {
		op = op_around((unsigned long)sp->addr, back);
		if (op && op->state == KPROBE_OPT_IDLE)
			op_evaluate(op);
	}
}

/*
 * Is @sp's site optimized, or committed to be: queued for the optimizer,
 * which writes the jump after an RCU-tasks grace period unless something
 * needs the breakpoint back first (and then takes it off the queue, under
 * kprobe_mutex, before that change is visible).  On x86 its breakpoint
 * hits already continue in the detour buffer meanwhile.
 */
bool kprobe_opt_committed(struct kprobe *sp)
{
	struct optimized_kprobe *op;

	lockdep_assert_held(&kprobe_mutex);
	if (kprobe_optimized(sp))
		return true;
	/* kprobes/list asks for every site: walk the ops only when needed. */
	if (!opt_nqueued)
		return false;
	op = find_op(sp);
	return op && !op->retired && op->state == KPROBE_OPT_QUEUED;
}

static void op_free_rcu(struct rcu_head *head)
{
	kfree(container_of(head, struct optimized_kprobe, rcu));
}

void kprobe_opt_release(struct kprobe *sp)
{
	struct optimized_kprobe *op;

	lockdep_assert_held(&kprobe_mutex);
	op = find_op(sp);
	if (!op)
		return;
	unoptimize_op(op);
	op_retire(op);
	list_del(&op->node);
	hash_del(&op->hnode);
	if (op->state != KPROBE_OPT_REFUSED)
		arch_remove_optimized_kprobe(op);
	/* A task preempted on its way into the detour still reads it. */
	call_rcu_tasks(&op->rcu, op_free_rcu);
}

void kprobe_opt_gone(struct kprobe *sp)
{
	struct optimized_kprobe *op;

	lockdep_assert_held(&kprobe_mutex);
	op = find_op(sp);
	if (op) {
		/* The arch leaves the (freed) text of a GONE probe alone. */
		unoptimize_op(op);
		op->allowed = false;
	}
}

static void optimizer(struct work_struct *work)
{
	struct optimized_kprobe *op, *tmp;
	LIST_HEAD(batch);

	mutex_lock(&kprobe_mutex);
	list_splice_init(&opt_queue, &batch);
	mutex_unlock(&kprobe_mutex);
	if (list_empty(&batch))
		return;

	/*
	 * Every task that could be inside a region's tail has left it: since
	 * the probes were queued, breakpoint hits go to the detour copies.
	 * Unoptimizing meanwhile takes ops off @batch under kprobe_mutex.
	 */
	synchronize_rcu_tasks();

	mutex_lock(&kprobe_mutex);
	if (!list_empty(&batch)) {
		scoped_guard(kprobe_text)
			kprobe_opt_arch_optimize(&batch);
	}
	list_for_each_entry_safe(op, tmp, &batch, queue) {
		list_del_init(&op->queue);
		set_state(op, KPROBE_OPT_OPTIMIZED);
	}
	mutex_unlock(&kprobe_mutex);
}

/**
 * wait_for_kprobe_optimizer() - wait until queued optimizations are done
 *
 * May sleep (an RCU-tasks grace period at least when probes are queued).
 * When it returns, every probe queued before the call is optimized or
 * was unoptimized meanwhile.
 */
void wait_for_kprobe_optimizer(void)
{
	bool queued;

	do {
		flush_delayed_work(&optimizer_work);
		mutex_lock(&kprobe_mutex);
		queued = !list_empty(&opt_queue);
		mutex_unlock(&kprobe_mutex);
	} while (queued);
}
EXPORT_SYMBOL_GPL(wait_for_kprobe_optimizer);

/* ---------------------------------------------------------------------
 * debug.kprobes-optimization
 */

static int opt_sysctl_value = 1;

static void opt_set_enabled(bool on)
{
	struct optimized_kprobe *op;

	lockdep_assert_held(&kprobe_mutex);
	if (opt_enabled == on)
		return;
	opt_enabled = on;
	list_for_each_entry(op, &opt_all, node)
		op_evaluate(op);
	pr_info("jump optimization %s\n", on ? "enabled" : "disabled");
}

static int opt_sysctl_handler(const struct ctl_table *table, int write,
			      void *buffer, size_t *length, loff_t *ppos)
{
	int ret;

	mutex_lock(&kprobe_mutex);
	opt_sysctl_value = opt_enabled;
	ret = proc_dointvec_minmax(table, write, buffer, length, ppos);
	if (!ret && write)
		opt_set_enabled(opt_sysctl_value);
	mutex_unlock(&kprobe_mutex);
	return ret;
}

/* debug.kprobes-optimization: 0 or 1, read and written as an int */
static struct ctl_table opt_sysctl_table[] = {
	{ .procname = "kprobes-optimization", .mode = 0644,
	  .data = &opt_sysctl_value, .maxlen = sizeof(opt_sysctl_value),
	  .proc_handler = opt_sysctl_handler,
	  .extra1 = SYSCTL_ZERO, .extra2 = SYSCTL_ONE },
};

static int __init kprobes_opt_init(void)
{
	return register_sysctl("debug", opt_sysctl_table) ? 0 : -ENOMEM;
}
late_initcall(kprobes_opt_init);
