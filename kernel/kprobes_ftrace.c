// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kprobes on ftrace: the architecture-independent part.
 *
 * A probe on a function's ftrace site (its fentry call, or the nop that
 * replaces it) cannot be a breakpoint: ftrace owns those bytes.  Such a
 * site is armed by adding its address to the filter of one ftrace_ops
 * shared by all of them; the arch's callback (kprobe_ftrace_handler())
 * finds the site with get_kprobe() and runs it like the breakpoint trap
 * would.
 *
 * The ops saves a full struct pt_regs (SAVE_REGS) and says it may change
 * the ip (IPMODIFY): a pre_handler that redirects the function (fail
 * injection, BPF override) returns nonzero with a new regs->ip, and
 * ftrace returns there.  IPMODIFY is exclusive: a function already
 * modified by another such ops (a live patch) refuses the probe with
 * -EBUSY.
 *
 * The ops is registered while it has at least one site, so that its
 * filter is never empty (an empty filter would trace every function).
 * Everything here runs under kprobe_mutex.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/ftrace.h>

#include "kprobes_internal.h"

/*
 * No FTRACE_OPS_FL_RECURSION: that flag asks ftrace to wrap the callback
 * in its recursion and RCU guard (ftrace_ops_assist_func), which the
 * callback does itself; without it ftrace calls the callback directly.
 */
static struct ftrace_ops kprobe_ftrace_ops __read_mostly = {
	.func = kprobe_ftrace_handler,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

/* Sites armed, as the core sees them (some may be queued in a batch). */
static unsigned int kprobe_ftrace_users;
/* Addresses in the ops' filter, and whether ftrace calls the ops. */
static unsigned int kprobe_ftrace_filtered;
static bool kprobe_ftrace_registered;
/* Set by kprobe_ftrace_kill(); read on every hit (kprobe_ftrace_killed()) */
bool kprobe_ftrace_dead __read_mostly;

/**
 * struct kprobe_ftrace_batch - filter changes queued by one task
 * @owner: the task whose arming and disarming is queued, or NULL
 * @depth: nesting of kprobe_ftrace_batch_begin()
 * @ips: the queued addresses
 * @n: how many
 * @size: room in @ips
 * @remove: the queue holds removals (else additions)
 * @err: the first error of a flush, for kprobe_ftrace_batch_end()
 *
 * Every change of the filter of an ftrace_ops is one ftrace update: the
 * hash is copied and the text of every call site that changes is patched
 * with all CPUs synchronized.  register_kprobes() and unregister_kprobes()
 * queue their sites and hand them to ftrace at once.  A queue holds only
 * additions or only removals (a change of direction flushes it first),
 * and anyone else who arms or disarms a site while it is open flushes it
 * first too, so that they never see a site armed in name only.
 */
static struct kprobe_ftrace_batch {
	struct task_struct *owner;
	unsigned int depth;
	unsigned long *ips;
	unsigned int n;
	unsigned int size;
	bool remove;
	int err;
} kprobe_ftrace_batch;

/**
 * kprobe_ftrace_kill() - ftrace hit a fatal error: stop using it
 *
 * Called by ftrace_kill() in any context: the callbacks stop running the
 * probes' handlers at once.
 */
void kprobe_ftrace_kill(void)
{
	WRITE_ONCE(kprobe_ftrace_dead, true);
}

/*
 * Put @ips in the filter and make sure ftrace calls the ops.  When ftrace
 * refuses the lot (one address taken by another IPMODIFY ops, say), try
 * them one by one so that the others still get in.  Returns the first
 * error.
 */
static int kprobe_ftrace_add(unsigned long *ips, unsigned int n)
{
	unsigned int i, added = 0;
	int ret, err = 0;

	ret = ftrace_set_filter_ips(&kprobe_ftrace_ops, ips, n, 0, 0);
	if (!ret) {
		added = n;
	} else if (n == 1) {
		err = ret;
	} else {
		for (i = 0; i < n; i++) {
			ret = ftrace_set_filter_ip(&kprobe_ftrace_ops, ips[i], 0, 0);
			if (ret)
				err = err ?: ret;
			else
				added++;
		}
	}
	if (err)
		pr_debug("cannot filter %d of %u sites in ftrace (%d)\n",
			 n - added, n, err);
	kprobe_ftrace_filtered += added;
	if (kprobe_ftrace_registered || !kprobe_ftrace_filtered)
		return err;
	ret = register_ftrace_function(&kprobe_ftrace_ops);
	if (!ret) {
		kprobe_ftrace_registered = true;
		return err;
	}
	pr_debug("cannot register the ftrace ops (%d)\n", ret);
	/* Nothing was armed by this: as if none of them had come. */
	if (added == n && !ftrace_set_filter_ips(&kprobe_ftrace_ops, ips, n, 1, 0))
		kprobe_ftrace_filtered -= n;
	return ret;
}

/*
 * Take @ips out of the filter.  The filter of a registered ops is never
 * left empty (that would trace every function): when it may become so,
 * the ops goes first.
 */
static void kprobe_ftrace_remove(unsigned long *ips, unsigned int n)
{
	unsigned int i;
	int ret;

	if (kprobe_ftrace_registered &&
	    (!kprobe_ftrace_users || kprobe_ftrace_filtered <= n)) {
		ret = unregister_ftrace_function(&kprobe_ftrace_ops);
		if (WARN_ON_ONCE(ret))
			return;
		kprobe_ftrace_registered = false;
	}
	/* Fails only for text (and ftrace records) already gone. */
	if (!ftrace_set_filter_ips(&kprobe_ftrace_ops, ips, n, 1, 0)) {
		kprobe_ftrace_filtered -= n;
	} else {
		for (i = 0; i < n; i++)
			if (!ftrace_set_filter_ip(&kprobe_ftrace_ops, ips[i], 1, 0))
				kprobe_ftrace_filtered--;
	}
	if (!kprobe_ftrace_registered && kprobe_ftrace_users &&
	    kprobe_ftrace_filtered) {
		ret = register_ftrace_function(&kprobe_ftrace_ops);
		if (!WARN_ON_ONCE(ret))
			kprobe_ftrace_registered = true;
	}
}

/* Hand the queue of the open batch to ftrace. */
static void kprobe_ftrace_flush(void)
{
	struct kprobe_ftrace_batch *b = &kprobe_ftrace_batch;
	int ret;

	if (!b->n)
		return;
	if (b->remove) {
		kprobe_ftrace_remove(b->ips, b->n);
	} else {
		ret = kprobe_ftrace_add(b->ips, b->n);
		b->err = b->err ?: ret;
	}
	b->n = 0;
}

/* Queue @ip when the current task batches; false: do it now. */
static bool kprobe_ftrace_queue(unsigned long ip, bool remove)
{
	struct kprobe_ftrace_batch *b = &kprobe_ftrace_batch;
	unsigned long *ips;

	if (!b->owner)
		return false;
	if (b->owner != current || b->remove != remove)
		kprobe_ftrace_flush();
	if (b->owner != current)
		return false;
	b->remove = remove;
	if (b->n == b->size) {
		ips = kvrealloc(b->ips, (b->size + 64) * 2 * sizeof(*ips),
				GFP_KERNEL);
		if (!ips) {
			kprobe_ftrace_flush();
			return false;
		}
		b->ips = ips;
		b->size = (b->size + 64) * 2;
	}
	b->ips[b->n++] = ip;
	return true;
}

/**
 * kprobe_ftrace_batch_begin() - queue this task's ftrace filter changes
 *
 * kprobe_mutex held; it may be dropped before kprobe_ftrace_batch_end().
 * Batches of one task nest.  While another task's batch is open, this
 * task's changes go to ftrace one by one.
 *
 * Return: true when this task batches: call kprobe_ftrace_batch_end().
 */
bool kprobe_ftrace_batch_begin(void)
{
	struct kprobe_ftrace_batch *b = &kprobe_ftrace_batch;

	lockdep_assert_held(&kprobe_mutex);
	if (b->owner && b->owner != current)
		return false;
	if (!b->depth++) {
		b->owner = current;
		b->err = 0;
	}
	return true;
}

/**
 * kprobe_ftrace_batch_end() - hand this task's queued changes to ftrace
 *
 * kprobe_mutex held.  The outermost end flushes the queue.
 *
 * Return: 0, or the first error of arming a queued site (the site stays
 * armed in name: its probes never hit, and the caller unregisters them).
 */
int kprobe_ftrace_batch_end(void)
{
	struct kprobe_ftrace_batch *b = &kprobe_ftrace_batch;
	int err;

	lockdep_assert_held(&kprobe_mutex);
	if (WARN_ON_ONCE(b->owner != current || !b->depth))
		return -EINVAL;
	if (--b->depth)
		return 0;
	kprobe_ftrace_flush();
	err = b->err;
	b->owner = NULL;
	kvfree(b->ips);
	b->ips = NULL;
	b->size = 0;
	return err;
}

int kprobe_ftrace_arm(struct kprobe *sp)
{
	unsigned long ip = (unsigned long)sp->addr;
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	if (kprobe_ftrace_killed())
		return -EBUSY;
	if (kprobe_ftrace_queue(ip, false)) {
		kprobe_ftrace_users++;
		return 0;
	}
	ret = kprobe_ftrace_add(&ip, 1);
	if (!ret)
		kprobe_ftrace_users++;
	return ret;
}

int kprobe_ftrace_disarm(struct kprobe *sp)
{
	unsigned long ip = (unsigned long)sp->addr;

	lockdep_assert_held(&kprobe_mutex);
	if (WARN_ON_ONCE(!kprobe_ftrace_users))
		return -EINVAL;
	kprobe_ftrace_users--;
	if (!kprobe_ftrace_queue(ip, true))
		kprobe_ftrace_remove(&ip, 1);
	return 0;
}
