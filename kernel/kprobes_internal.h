/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Between the kprobes core (kernel/kprobes.c), kprobes on ftrace
 * (kernel/kprobes_ftrace.c), the jump optimizer (kernel/kprobes_opt.c) and
 * kretprobes.  Everything here runs under kprobe_mutex, but for the busy
 * markers of the kretprobe return.
 */
#ifndef _KERNEL_KPROBES_INTERNAL_H
#define _KERNEL_KPROBES_INTERNAL_H

#include <linux/kprobes.h>
#include <linux/cleanup.h>
#include <linux/cpu.h>
#include <linux/memory.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

extern struct mutex kprobe_mutex;

/*
 * What every write of ours to kernel text holds, inside kprobe_mutex: no
 * CPU comes or goes (stop_machine() users), and text_mutex.  Taken as
 * guard(kprobe_text)() or scoped_guard(kprobe_text).
 */
DEFINE_LOCK_GUARD_0(kprobe_text,
		    cpus_read_lock(); mutex_lock(&text_mutex),
		    mutex_unlock(&text_mutex); cpus_read_unlock())

/*
 * The deferred work of kprobes (the jump optimizer, the slot reapers)
 * runs here: it sleeps in RCU-tasks grace periods, which last as long as
 * the slowest task takes to reach a voluntary context switch.  On a
 * system workqueue it would hold up every flush of that workqueue, and
 * the work queued behind it, for that long.
 */
extern struct workqueue_struct *kprobes_wq;

/* For the KUnit test of registration racing a module's GOING or LIVE. */
struct module;
#if IS_ENABLED(CONFIG_KUNIT)
int kprobe_module_text_left(struct module *mod, struct module *found,
			    unsigned long addr);
struct module *kprobe_text_module(unsigned long addr);
#endif

#if IS_ENABLED(CONFIG_KPROBES_KUNIT_TEST)
/* For the KUnit test of the slot reaper (kernel/kprobes.c). */
unsigned int kprobe_insn_slot_pages(unsigned int *per_page);
void kprobe_insn_slots_reap(void);
void kprobe_insn_unlink_hook(void (*hook)(unsigned long page));
int kprobe_insn_slot_walk(unsigned long page, void (*stand)(void *arg),
			  void *arg);
#endif

/* Takes kprobe_mutex (kretprobes, which must not trust their own fields). */
bool kprobe_registered(struct kprobe *p);

#if IS_ENABLED(CONFIG_KRETPROBES_KUNIT_TEST)
/* Pools released, and was this one among them (kernel/kretprobes.c)? */
unsigned int kretprobe_pools_released(void);
bool kretprobe_pool_released(const void *pool, unsigned int since);
#endif

/* kprobe_unregister_begin_many() of the kretprobes' entry probes */
void kretprobe_unregister_begin_many(struct kretprobe **rps, int num);

/*
 * kprobe_busy_begin() and kprobe_busy_end() without the preemption
 * change, for a hit path (the kretprobe return) that has preemption
 * disabled already: no calls, and the marker is just two per-CPU writes.
 */
extern struct kprobe kprobe_busy;

static nokprobe_inline void __kprobe_busy_begin(void)
{
	__this_cpu_write(current_kprobe, &kprobe_busy);
	kprobe_set_status(KPROBE_HIT_ACTIVE);
}

static nokprobe_inline void __kprobe_busy_end(void)
{
	__this_cpu_write(current_kprobe, NULL);
}

#ifdef CONFIG_KPROBES_COMPAT
/* arch_prepare_kprobe() under text_mutex, which that arch code expects */
int kprobe_arch_prepare(struct kprobe *sp);
#else
static inline int kprobe_arch_prepare(struct kprobe *sp)
{
	return arch_prepare_kprobe(sp);
}
#endif

#ifdef CONFIG_KPROBES_ON_FTRACE
/* Add (remove) a site to the kprobes ftrace_ops: errno when ftrace refuses. */
int kprobe_ftrace_arm(struct kprobe *sp);
int kprobe_ftrace_disarm(struct kprobe *sp);
/* Move an armed site to the ftrace_ops (IPMODIFY or not) its probes need. */
int kprobe_ftrace_update(struct kprobe *sp);
/* Does some probe of the site move the ip after the call (kprobes.c)? */
bool kprobe_site_moves_ip(struct kprobe *sp);
/* Queue this task's filter changes and hand them to ftrace in one update. */
bool kprobe_ftrace_batch_begin(void);
int kprobe_ftrace_batch_end(void);

static inline int kprobe_ftrace_prepare(struct kprobe *sp)
{
	return arch_prepare_kprobe_ftrace(sp);
}
#else
static inline int kprobe_ftrace_prepare(struct kprobe *sp)
{
	return -ENODEV;
}

static inline int kprobe_ftrace_arm(struct kprobe *sp)
{
	return -ENODEV;
}

static inline int kprobe_ftrace_disarm(struct kprobe *sp)
{
	return -ENODEV;
}

static inline int kprobe_ftrace_update(struct kprobe *sp)
{
	return 0;
}

static inline bool kprobe_ftrace_batch_begin(void)
{
	return false;
}

static inline int kprobe_ftrace_batch_end(void)
{
	return 0;
}
#endif

#ifdef CONFIG_OPTPROBES
/*
 * The core tells the optimizer about sites (@sp: a site's probe):
 *  kprobe_opt_arming()    before a breakpoint is written at @addr: the
 *                         jumps covering @addr go back to breakpoints;
 *  kprobe_opt_update()    after the site changed (handlers, enabled,
 *                         armed): @allowed is false when the site is not
 *                         armed or must keep its breakpoint;
 *  kprobe_opt_disarm()    before the breakpoint is removed; true when
 *                         the arch wrote the original instruction
 *                         straight over the jump (nothing left to do);
 *  kprobe_opt_unoptimize() sites about to be disarmed together (a batch
 *                         unregistration): their jumps go back to
 *                         breakpoints in one text update, or where the
 *                         arch can, the original instructions over the
 *                         jumps: it returns how many, moved to the front
 *                         of @sites (nothing more to write there);
 *  kprobe_opt_retire()    the site left the hash table (unregistration):
 *                         its detour stops calling handlers, neighbours
 *                         it blocked may be optimized;
 *  kprobe_opt_release()   after a grace period, before the site is freed;
 *  kprobe_opt_gone()      the site's text is being freed.
 * and asks it:
 *  kprobe_opt_committed() the site is a jump or queued to become one
 *                         (kprobes/list shows it [OPTIMIZED]).
 */
void kprobe_opt_arming(kprobe_opcode_t *addr);
void kprobe_opt_update(struct kprobe *sp, bool allowed);
bool kprobe_opt_disarm(struct kprobe *sp);
int kprobe_opt_unoptimize(struct kprobe **sites, int n);
void kprobe_opt_retire(struct kprobe *sp);
void kprobe_opt_release(struct kprobe *sp);
void kprobe_opt_gone(struct kprobe *sp);
bool kprobe_opt_committed(struct kprobe *sp);

/*
 * The optimizer's calls into the arch.  The arches of KPROBES_COMPAT keep
 * the contract their code was written for (kernel/kprobes_compat.c puts
 * it on this one); the others are called directly.
 */
#ifdef CONFIG_KPROBES_COMPAT
int kprobe_opt_arch_prepare(struct optimized_kprobe *op, struct kprobe *sp);
bool kprobe_opt_arch_within(struct optimized_kprobe *op, unsigned long addr);
void kprobe_opt_arch_optimize(struct list_head *ops);
void kprobe_opt_arch_unoptimize(struct list_head *ops);
void kprobe_opt_arch_retire(struct optimized_kprobe *op);
/* The probe a miss counted on an op's own kprobe belongs to. */
struct kprobe *kprobe_opt_compat_site(struct kprobe *p);

static inline struct kprobe *opt_site(struct optimized_kprobe *op)
{
	return op->site;
}
#else
static inline struct kprobe *opt_site(struct optimized_kprobe *op)
{
	return op->kp;
}

static inline int kprobe_opt_arch_prepare(struct optimized_kprobe *op,
					  struct kprobe *sp)
{
	op->kp = sp;
	return arch_prepare_optimized_kprobe(op);
}

static inline bool kprobe_opt_arch_within(struct optimized_kprobe *op,
					  unsigned long addr)
{
	return arch_within_optimized_kprobe(op, addr);
}

static inline void kprobe_opt_arch_optimize(struct list_head *ops)
{
	arch_optimize_kprobes(ops);
}

static inline void kprobe_opt_arch_unoptimize(struct list_head *ops)
{
	arch_unoptimize_kprobes(ops);
}

static inline void kprobe_opt_arch_retire(struct optimized_kprobe *op)
{
}
#endif /* CONFIG_KPROBES_COMPAT */
#else
static inline void kprobe_opt_arming(kprobe_opcode_t *addr)
{
}

static inline void kprobe_opt_update(struct kprobe *sp, bool allowed)
{
}

static inline bool kprobe_opt_disarm(struct kprobe *sp)
{
	return false;
}

static inline int kprobe_opt_unoptimize(struct kprobe **sites, int n)
{
	return 0;
}

static inline void kprobe_opt_retire(struct kprobe *sp)
{
}

static inline void kprobe_opt_release(struct kprobe *sp)
{
}

static inline void kprobe_opt_gone(struct kprobe *sp)
{
}

static inline bool kprobe_opt_committed(struct kprobe *sp)
{
	return false;
}
#endif

#endif /* _KERNEL_KPROBES_INTERNAL_H */
