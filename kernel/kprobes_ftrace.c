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

static unsigned int kprobe_ftrace_users;
/* Set by kprobe_ftrace_kill(); read on every hit (kprobe_ftrace_killed()) */
bool kprobe_ftrace_dead __read_mostly;

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

int kprobe_ftrace_arm(struct kprobe *sp)
{
	unsigned long ip = (unsigned long)sp->addr;
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	if (kprobe_ftrace_killed())
		return -EBUSY;
	ret = ftrace_set_filter_ip(&kprobe_ftrace_ops, ip, 0, 0);
	if (ret) {
		pr_debug("cannot filter %pS in ftrace (%d)\n", sp->addr, ret);
		return ret;
	}
	if (!kprobe_ftrace_users) {
		ret = register_ftrace_function(&kprobe_ftrace_ops);
		if (ret) {
			pr_debug("cannot register the ftrace ops (%d)\n", ret);
			ftrace_set_filter_ip(&kprobe_ftrace_ops, ip, 1, 0);
			return ret;
		}
	}
	kprobe_ftrace_users++;
	return 0;
}

int kprobe_ftrace_disarm(struct kprobe *sp)
{
	unsigned long ip = (unsigned long)sp->addr;
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	if (WARN_ON_ONCE(!kprobe_ftrace_users))
		return -EINVAL;
	if (kprobe_ftrace_users == 1) {
		ret = unregister_ftrace_function(&kprobe_ftrace_ops);
		if (WARN_ON_ONCE(ret))
			return ret;
	}
	kprobe_ftrace_users--;
	/* Fails only when the text (and its ftrace record) is gone. */
	ret = ftrace_set_filter_ip(&kprobe_ftrace_ops, ip, 1, 0);
	if (ret)
		pr_debug("%pS left ftrace already (%d)\n", sp->addr, ret);
	return 0;
}
