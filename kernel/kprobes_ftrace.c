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
 * There are two such ops; both save a full struct pt_regs (SAVE_REGS).
 * A site where some probe has a post_handler, or a jprobe, is in the one
 * that says it changes the ip (IPMODIFY): IPMODIFY is exclusive, so such
 * a probe on a function a live patch redirects (or the live patch of a
 * function with such a probe) is refused with -EBUSY.  Every other site
 * is in the ops without IPMODIFY, so a probe with a pre_handler only may
 * sit beside a live patch (fail_function and bpf_override_return() rely
 * on it): the callback leaves the ip as it found it unless the
 * pre_handler moves it (fail injection, BPF override: then ftrace
 * returns where the pre_handler said; such a redirection beside a live
 * patch is not checked against it).
 *
 * When the probes of an armed site change so that it needs the other
 * ops, it moves: out of one filter, then into the other (never in both,
 * which would run its handlers twice per call; a call in between is not
 * seen).  If the new ops refuses the site (-EBUSY), it goes back and the
 * registration that asked for the move fails.
 *
 * Each ops is registered while it has at least one site, so that its
 * filter is never empty (an empty filter would trace every function).
 * Everything here runs under kprobe_mutex.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/ftrace.h>
#include <linux/xarray.h>

#include "kprobes_internal.h"

/*
 * No FTRACE_OPS_FL_RECURSION: that flag asks ftrace to wrap the callback
 * in its recursion and RCU guard (ftrace_ops_assist_func), which the
 * callback does itself; without it ftrace calls the callback directly.
 */
/**
 * struct kprobe_ftrace_set - one ftrace_ops and the sites in its filter
 * @ops: the ops
 * @users: sites armed in it, as the core sees them (some may be queued)
 * @filtered: addresses in the ops' filter
 * @registered: whether ftrace calls the ops
 */
struct kprobe_ftrace_set {
	struct ftrace_ops ops;
	unsigned int users;
	unsigned int filtered;
	bool registered;
};

enum { KPF_PLAIN, KPF_IPMODIFY, KPF_NR };

static struct kprobe_ftrace_set kprobe_ftrace_sets[KPF_NR] __read_mostly = {
	[KPF_PLAIN] = { .ops = {
		.func = kprobe_ftrace_handler,
		.flags = FTRACE_OPS_FL_SAVE_REGS,
	} },
	[KPF_IPMODIFY] = { .ops = {
		.func = kprobe_ftrace_handler,
		.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
	} },
};

/* The armed sites that are in the IPMODIFY ops, by address. */
static DEFINE_XARRAY(kprobe_ftrace_ipmodify_sites);
/* Set by kprobe_ftrace_kill(); read on every hit (kprobe_ftrace_killed()) */
bool kprobe_ftrace_dead __read_mostly;

/**
 * struct kprobe_ftrace_batch - filter changes queued by one task
 * @owner: the task whose arming and disarming is queued, or NULL
 * @depth: nesting of kprobe_ftrace_batch_begin()
 * @ips: the queued addresses, one queue per ops
 * @n: how many
 * @size: room in @ips
 * @remove: the queues hold removals (else additions)
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
	unsigned long *ips[KPF_NR];
	unsigned int n[KPF_NR];
	unsigned int size[KPF_NR];
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
static int kprobe_ftrace_add(struct kprobe_ftrace_set *set, unsigned long *ips,
			     unsigned int n)
{
	struct ftrace_ops *ops = &set->ops;
	unsigned int i, added = 0;
	int ret, err = 0;

	ret = ftrace_set_filter_ips(ops, ips, n, 0, 0);
	if (!ret) {
		added = n;
	} else if (n == 1) {
		err = ret;
	} else {
		for (i = 0; i < n; i++) {
			ret = ftrace_set_filter_ip(ops, ips[i], 0, 0);
			if (ret)
				err = err ?: ret;
			else
				added++;
		}
	}
	if (err)
		pr_debug("cannot filter %d of %u sites in ftrace (%d)\n",
			 n - added, n, err);
	set->filtered += added;
	if (set->registered || !set->filtered)
		return err;
	ret = register_ftrace_function(ops);
	if (!ret) {
		set->registered = true;
		return err;
	}
	pr_debug("cannot register the ftrace ops (%d)\n", ret);
	/* Nothing was armed by this: as if none of them had come. */
	if (added == n && !ftrace_set_filter_ips(ops, ips, n, 1, 0))
		set->filtered -= n;
	return ret;
}

/*
 * Take @ips out of the filter.  The filter of a registered ops is never
 * left empty (that would trace every function): when it may become so,
 * the ops goes first.
 */
static void kprobe_ftrace_remove(struct kprobe_ftrace_set *set,
				 unsigned long *ips, unsigned int n)
{
	struct ftrace_ops *ops = &set->ops;
	unsigned int i;
	int ret;

	if (set->registered && (!set->users || set->filtered <= n)) {
		ret = unregister_ftrace_function(ops);
		if (WARN_ON_ONCE(ret))
			return;
		set->registered = false;
	}
	/* Fails only for text (and ftrace records) already gone. */
	if (!ftrace_set_filter_ips(ops, ips, n, 1, 0)) {
		set->filtered -= n;
	} else {
		for (i = 0; i < n; i++)
			if (!ftrace_set_filter_ip(ops, ips[i], 1, 0))
				set->filtered--;
	}
	if (!set->registered && set->users && set->filtered) {
		ret = register_ftrace_function(ops);
		if (!WARN_ON_ONCE(ret))
			set->registered = true;
	}
}

/* Hand the queues of the open batch to ftrace. */
static void kprobe_ftrace_flush(void)
{
	struct kprobe_ftrace_batch *b = &kprobe_ftrace_batch;
	int i, ret;

	for (i = 0; i < KPF_NR; i++) {
		if (!b->n[i])
			continue;
		if (b->remove) {
			kprobe_ftrace_remove(&kprobe_ftrace_sets[i], b->ips[i],
					     b->n[i]);
		} else {
			ret = kprobe_ftrace_add(&kprobe_ftrace_sets[i],
						b->ips[i], b->n[i]);
			b->err = b->err ?: ret;
		}
		b->n[i] = 0;
	}
}

/* Queue @ip for set @i when the current task batches; false: do it now. */
static bool kprobe_ftrace_queue(int i, unsigned long ip, bool remove)
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
	if (b->n[i] == b->size[i]) {
		ips = kvrealloc(b->ips[i], (b->size[i] + 64) * 2 * sizeof(*ips),
				GFP_KERNEL);
		if (!ips) {
			kprobe_ftrace_flush();
			return false;
		}
		b->ips[i] = ips;
		b->size[i] = (b->size[i] + 64) * 2;
	}
	b->ips[i][b->n[i]++] = ip;
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
	int i, err;

	lockdep_assert_held(&kprobe_mutex);
	if (WARN_ON_ONCE(b->owner != current || !b->depth))
		return -EINVAL;
	if (--b->depth)
		return 0;
	kprobe_ftrace_flush();
	err = b->err;
	b->owner = NULL;
	for (i = 0; i < KPF_NR; i++) {
		kvfree(b->ips[i]);
		b->ips[i] = NULL;
		b->size[i] = 0;
	}
	return err;
}

/* The set an armed site is in. */
static int kprobe_ftrace_set_of(unsigned long ip)
{
	return xa_load(&kprobe_ftrace_ipmodify_sites, ip) ? KPF_IPMODIFY :
							      KPF_PLAIN;
}

/* Arm the site at @ip in set @i. */
static int kprobe_ftrace_arm_in(int i, unsigned long ip)
{
	int ret;

	if (i == KPF_IPMODIFY) {
		ret = xa_err(xa_store(&kprobe_ftrace_ipmodify_sites, ip,
				      xa_mk_value(1), GFP_KERNEL));
		if (ret)
			return ret;
	}
	if (kprobe_ftrace_queue(i, ip, false)) {
		kprobe_ftrace_sets[i].users++;
		return 0;
	}
	ret = kprobe_ftrace_add(&kprobe_ftrace_sets[i], &ip, 1);
	if (!ret)
		kprobe_ftrace_sets[i].users++;
	else if (i == KPF_IPMODIFY)
		xa_erase(&kprobe_ftrace_ipmodify_sites, ip);
	return ret;
}

int kprobe_ftrace_arm(struct kprobe *sp)
{
	lockdep_assert_held(&kprobe_mutex);
	if (kprobe_ftrace_killed())
		return -EBUSY;
	return kprobe_ftrace_arm_in(kprobe_site_moves_ip(sp) ? KPF_IPMODIFY :
							       KPF_PLAIN,
				    (unsigned long)sp->addr);
}

int kprobe_ftrace_disarm(struct kprobe *sp)
{
	unsigned long ip = (unsigned long)sp->addr;
	int i = kprobe_ftrace_set_of(ip);

	lockdep_assert_held(&kprobe_mutex);
	if (WARN_ON_ONCE(!kprobe_ftrace_sets[i].users))
		return -EINVAL;
	kprobe_ftrace_sets[i].users--;
	if (i == KPF_IPMODIFY)
		xa_erase(&kprobe_ftrace_ipmodify_sites, ip);
	if (!kprobe_ftrace_queue(i, ip, true))
		kprobe_ftrace_remove(&kprobe_ftrace_sets[i], &ip, 1);
	return 0;
}

/**
 * kprobe_ftrace_update() - move an armed site to the ops its probes need
 * @sp: the site's probe, armed through ftrace
 *
 * kprobe_mutex held.  A site whose probes now move the ip after the call
 * (a post_handler, a jprobe) goes to the IPMODIFY ops, one whose probes
 * no longer do goes back to the other.  Out of the old filter first,
 * then into the new one: a call in between is not seen, but none runs
 * the handlers twice.
 *
 * Return: 0, or the error of the new ops (-EBUSY: a live patch has the
 * function); the site is then back where it was.
 */
int kprobe_ftrace_update(struct kprobe *sp)
{
	unsigned long ip = (unsigned long)sp->addr;
	int from = kprobe_ftrace_set_of(ip);
	int to = kprobe_site_moves_ip(sp) ? KPF_IPMODIFY : KPF_PLAIN;
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	if (from == to || kprobe_ftrace_killed())
		return 0;
	kprobe_ftrace_disarm(sp);
	ret = kprobe_ftrace_arm_in(to, ip);
	if (ret && kprobe_ftrace_arm_in(from, ip))
		pr_warn("%pS: lost its ftrace site\n", sp->addr);
	return ret;
}
