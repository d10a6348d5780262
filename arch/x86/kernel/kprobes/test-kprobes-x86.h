/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the KUnit suites of the x86 kprobes port share: the site's
 * decoded instruction (all of them), and the functions written in
 * assembly in test-kprobes-x86.c (so that the probed instruction is
 * known) that the handler context suite (test-kprobes-ctx.c) probes too,
 * with the helpers both use (on i386, where the first is not built, the
 * context suite's come from test-kprobes-ctx32.c).
 */
#ifndef _TEST_KPROBES_X86_H
#define _TEST_KPROBES_X86_H

#include <linux/linkage.h>
#include <linux/kprobes.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/atomic.h>
#include <kunit/test.h>

/* The comments at their code in test-kprobes-x86.c say what each does. */
asmlinkage long kpx_exload(const unsigned long *src, unsigned long *dst);
asmlinkage long kpx_ijmp(unsigned long *fnptr);
asmlinkage long kpx_leaf(void);
asmlinkage unsigned long kpx_postcopy(unsigned long x);
asmlinkage long kpx_rawload(const unsigned long *p);
asmlinkage int kpx_opt(int x);
asmlinkage int kpx_boost(int x);

/* The site's decoded instruction (the site is the probe itself here). */
static inline const struct arch_specific_insn *kpx_ai(struct kprobe *kp)
{
	struct kprobe *site;

	rcu_read_lock();
	site = get_kprobe(kp->addr);
	rcu_read_unlock();
	return site ? &site->ainsn : NULL;
}

unsigned long kpx_sym(const char *sym);
bool kpx_optimized(struct kprobe *kp);
unsigned long *kpx_bad_kernel_ptr(struct kunit *test, void **area);

/*
 * Whether a handler runs in the int3 trap: from kernel mode the trap is
 * entered as an NMI (exc_int3()), while the jump optimizer's detour and
 * kprobes on ftrace call the handlers in the probed code's context, which
 * is never an NMI in these suites.
 */
static inline bool kpx_in_int3(void)
{
	return in_nmi();
}

/*
 * The traps that end out-of-line steps, counted while a suite whose
 * suite_init is kpx_watch_steps() runs (kprobe_set_step_trap_hook()).
 */
static atomic_long_t kpx_traps __maybe_unused;

static void __maybe_unused kpx_step_trapped(struct kprobe *p)
{
	atomic_long_inc(&kpx_traps);
}

static inline unsigned long kpx_step_traps(void)
{
	return atomic_long_read(&kpx_traps);
}

static inline int kpx_watch_steps(struct kunit_suite *suite)
{
	kprobe_set_step_trap_hook(kpx_step_trapped);
	return 0;
}

static inline void kpx_unwatch_steps(struct kunit_suite *suite)
{
	kprobe_set_step_trap_hook(NULL);
	synchronize_rcu();
}

#endif /* _TEST_KPROBES_X86_H */
