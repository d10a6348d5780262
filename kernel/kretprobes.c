// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Return probes.
 *
 * A kretprobe is a kprobe on the entry of a function.  Its pre-handler
 * takes an instance from the probe's own pool, lets the architecture
 * replace the return address with its trampoline and pushes the instance
 * on the task's kretprobe_instances list.  The trampoline, entered by the
 * probed function's own return, calls kretprobe_trampoline_return(), which
 * finds the instance of that frame, runs the handler, puts the instance
 * back and tells the trampoline where the function really returns.
 *
 * The pool is an objpool: taking and returning an instance is lock-free
 * and per CPU, and nothing is allocated after registration.  When every
 * instance of the pool is in use, the instance is carved from storage of
 * the task itself instead (see "Per-task return records" below), so a
 * function that sleeps with more callers inside than the pool holds
 * does not lose their returns.  In front of
 * it each CPU keeps one spare instance, the last one it gave back: a
 * function called over and over takes and returns that one with a single
 * atomic exchange each way (see kretprobe_take()).  The pool
 * outlives the kretprobe: unregistration only detaches it (pool->rp
 * becomes NULL), and instances still in flight come home to an orphanage
 * that gives their memory back; the last one frees the pool.
 */
#define pr_fmt(fmt) "kretprobe: " fmt

#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/objpool.h>
#include <linux/irq_work.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/llist.h>
#include <linux/refcount.h>
#include <linux/workqueue.h>
#include <linux/bug.h>
#include <linux/export.h>
#include <kunit/test-bug.h>
#include <kunit/visibility.h>
#include <asm/sections.h>

#include "kprobes_internal.h"

/**
 * struct kretprobe_pool - the instances of one kretprobe
 * @objs: the free instances
 * @spare: per CPU, one more free instance or NULL (atomic xchg/cmpxchg
 *	only: other CPUs take spares when @objs runs dry)
 * @rp: the owning kretprobe, NULL once it is unregistered
 * @orphans: instances that returned after unregistration
 * @reaper: gives the orphans back to @objs for good
 * @users: one for @objs until objpool_fini() and its last instance are
 *	done, one for each pending instance carved from a task's storage
 * @freer: frees the pool when @users drops to zero (from any context)
 * @rcu: frees the pool itself
 */
struct kretprobe_pool {
	struct objpool_head objs;
	struct kretprobe_instance * __percpu *spare;
	struct kretprobe __rcu *rp;
	struct llist_head orphans;
	struct irq_work reaper;
	refcount_t users;
	struct irq_work freer;
	struct rcu_head rcu;
};

#if IS_ENABLED(CONFIG_KRETPROBES_KUNIT_TEST)
/*
 * The last pools released (every instance came home and objpool_fini()
 * ran), for the KUnit suite to see that a pool is not left behind: a
 * spare that does not go back keeps its pool forever.  Only in kernels
 * built with that suite, and only while a KUnit test runs (a static
 * branch otherwise): the release runs in whatever context returned the
 * last instance, not in the test's task, so a KUnit static stub would
 * not see it.  Other pools, of earlier cases whose instances slept, may
 * be released meanwhile, hence a few and not one.  The addresses are
 * only compared; an entry is written pool first, its sequence number
 * last, so a reader that sees the number sees the pool.
 */
#define KRETPROBE_RELEASED_LAST	16
static struct {
	const void *pool;
	unsigned int seq;
} kretprobe_released[KRETPROBE_RELEASED_LAST];
static atomic_t kretprobe_released_seq;

static void kretprobe_note_released(const void *pool)
{
	unsigned int seq, i;

	if (!static_branch_unlikely(&kunit_running))
		return;
	seq = atomic_inc_return(&kretprobe_released_seq);
	i = seq % KRETPROBE_RELEASED_LAST;
	WRITE_ONCE(kretprobe_released[i].seq, 0);
	/* No reader pairs an old number with the new pool ... */
	smp_wmb();
	WRITE_ONCE(kretprobe_released[i].pool, pool);
	/* ... and one that sees the new number sees the new pool. */
	smp_store_release(&kretprobe_released[i].seq, seq);
}

/**
 * kretprobe_pools_released() - how many kretprobe pools were released
 *
 * For the KUnit suite only.
 *
 * Return: the count so far, for kretprobe_pool_released().
 */
unsigned int kretprobe_pools_released(void)
{
	return atomic_read(&kretprobe_released_seq);
}
EXPORT_SYMBOL_IF_KUNIT(kretprobe_pools_released);

/**
 * kretprobe_pool_released() - was a kretprobe pool released lately
 * @pool: the pool (compared only: it may be freed)
 * @since: kretprobe_pools_released() before
 *
 * For the KUnit suite only.
 *
 * Return: whether @pool is among the last pools released after @since.
 */
bool kretprobe_pool_released(const void *pool, unsigned int since)
{
	unsigned int seq;
	int i;

	for (i = 0; i < KRETPROBE_RELEASED_LAST; i++) {
		/* Pairs with the release in kretprobe_note_released(). */
		seq = smp_load_acquire(&kretprobe_released[i].seq);
		if (seq && (int)(seq - since) > 0 &&
		    READ_ONCE(kretprobe_released[i].pool) == pool)
			return true;
	}
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(kretprobe_pool_released);
#else
static inline void kretprobe_note_released(const void *pool)
{
}
#endif

static void kretprobe_pool_free_rcu(struct rcu_head *head)
{
	kfree(container_of(head, struct kretprobe_pool, rcu));
}

/* The last user is gone (irq_work: the last put may come from an NMI). */
static void kretprobe_pool_free(struct irq_work *work)
{
	struct kretprobe_pool *pool = container_of(work, struct kretprobe_pool,
						   freer);

	/*
	 * The reaper's irq_work (which may have dropped the last instance)
	 * and this one are touched after their callbacks return: free the
	 * memory after a grace period.
	 */
	call_rcu(&pool->rcu, kretprobe_pool_free_rcu);
}

static notrace void kretprobe_pool_put(struct kretprobe_pool *pool)
{
	if (refcount_dec_and_test(&pool->users)) {
		kretprobe_note_released(pool);
		irq_work_queue(&pool->freer);
	}
}

NOKPROBE_SYMBOL(kretprobe_pool_put);

/* objpool's release callback: the slots are gone, their reference too */
static int kretprobe_pool_release(struct objpool_head *objs, void *context)
{
	kretprobe_pool_put(context);
	return 0;
}

static void kretprobe_reap(struct irq_work *work)
{
	struct kretprobe_pool *pool = container_of(work, struct kretprobe_pool,
						   reaper);
	struct kretprobe_instance *ri, *next;
	struct llist_node *list = llist_del_all(&pool->orphans);

	/*
	 * Every orphan holds a reference on the pool, so only the drop of
	 * the last node can free the pool (and the instances with it).
	 */
	llist_for_each_entry_safe(ri, next, list, llist)
		objpool_drop(ri, &pool->objs);
}

static int kretprobe_instance_init(void *obj, void *context)
{
	struct kretprobe_instance *ri = obj;

	ri->pool = context;
	ri->store = NULL;
	return 0;
}

/*
 * Per-task return records.
 *
 * When a kretprobe's pool has no free instance, the instance is carved
 * from storage of the calling task: a chain of small chunks (struct
 * kretprobe_store).  A task gives its instances back newest first (the
 * trampoline and kprobe_flush_task() take them from the head of its
 * kretprobe_instances list), so each chunk is a stack: an instance is
 * carved at its top and given back from there, and a chunk whose last
 * instance goes is given back.  A task holds chunks only while it has
 * such instances pending, and the newest of those on its list says which
 * chunk is its current one: task_struct needs no field for it.
 *
 * Only the task itself (and the interrupts and NMIs it takes, which
 * return before it goes on) carves from or gives back to its chunks, and
 * always with a kprobe running on its CPU (the entry probe, or the busy
 * marker of the trampoline), which keeps such nested hits out: nothing
 * here needs an atomic operation but the reserve.
 *
 * The hit path may be in NMI context and cannot allocate: chunks come
 * from a reserve of up to KRETPROBE_STORE_RESERVE chunks, kept at
 * KRETPROBE_STORE_FILL while any kretprobe is registered.  A hit that
 * leaves fewer than KRETPROBE_STORE_LOW there raises an irq_work, which
 * refills it with atomic allocations as soon as the CPU takes interrupts
 * again (a worker retries what fails): a burst of tasks entering one
 * after the other finds chunks, however many more than the reserve
 * holds.  Chunks given back go to the free slots above the fill level,
 * so a task that takes and returns one per call costs no allocation.
 * A task holds at most KRETPROBE_TASK_STORES chunks.  A return is missed
 * (and counted in nmissed) only when the pool is empty and the task's
 * chunks are full, or the reserve is empty at that moment, or the
 * instance is too big for a chunk.
 *
 * Such an instance holds a reference on its pool (kretprobe_pool.users),
 * so the pool outlives the kretprobe until the instance is given back,
 * as it does for the pool's own instances.
 */
#define KRETPROBE_STORE_SIZE	1024
#define KRETPROBE_TASK_STORES	32
#define KRETPROBE_STORE_RESERVE	64
#define KRETPROBE_STORE_FILL	48
#define KRETPROBE_STORE_LOW	32

/**
 * struct kretprobe_store - a chunk of a task's return records
 * @used: bytes of @data carved into pending instances
 * @depth: 1 for the task's first chunk, and one more for each chunk
 *	taken because the one before was full
 * @freed: on kretprobe_stores_freed, to be freed
 * @rcu: frees it (unwinders of other tasks may still read it)
 * @data: the instances, back to back
 */
struct kretprobe_store {
	unsigned int used;
	unsigned int depth;
	union {
		struct llist_node freed;
		struct rcu_head rcu;
	};
	unsigned long data[];
};

#define KRETPROBE_STORE_PAYLOAD \
	(KRETPROBE_STORE_SIZE - offsetof(struct kretprobe_store, data))

static struct kretprobe_store *kretprobe_reserve[KRETPROBE_STORE_RESERVE];
static atomic_t kretprobe_reserve_count;	/* chunks in kretprobe_reserve */
static atomic_t kretprobes_live;
static LLIST_HEAD(kretprobe_stores_freed);

/*
 * Fill the reserve to KRETPROBE_STORE_FILL while any kretprobe is
 * registered, empty it when none is, and free the chunks given back that
 * did not fit in it.  Return: false if an allocation failed.
 */
static bool kretprobe_reserve_fill(gfp_t gfp)
{
	struct llist_node *freed = llist_del_all(&kretprobe_stores_freed);
	struct kretprobe_store *st, *next;
	int i;

	llist_for_each_entry_safe(st, next, freed, freed)
		kfree_rcu(st, rcu);
	for (i = 0; i < KRETPROBE_STORE_RESERVE; i++) {
		if (!atomic_read(&kretprobes_live)) {
			st = xchg(&kretprobe_reserve[i], NULL);
			if (st) {
				atomic_dec(&kretprobe_reserve_count);
				kfree_rcu(st, rcu);
			}
			continue;
		}
		if (atomic_read(&kretprobe_reserve_count) >= KRETPROBE_STORE_FILL)
			break;
		if (READ_ONCE(kretprobe_reserve[i]))
			continue;
		st = kmalloc(KRETPROBE_STORE_SIZE, gfp);
		if (!st)
			return false;
		if (cmpxchg(&kretprobe_reserve[i], NULL, st))
			kfree(st);
		else
			atomic_inc(&kretprobe_reserve_count);
	}
	return true;
}

static void kretprobe_reserve_refill(struct work_struct *work)
{
	kretprobe_reserve_fill(GFP_KERNEL);
}

static DECLARE_WORK(kretprobe_reserve_work, kretprobe_reserve_refill);

/*
 * In hardirq context (or the irq_work thread), never in the NMI or the
 * probe handler that raised it: allocating there is as safe as in any
 * interrupt handler.  What cannot be had without sleeping is left to the
 * worker.
 */
static void kretprobe_reserve_kick(struct irq_work *work)
{
	if (!kretprobe_reserve_fill(GFP_ATOMIC | __GFP_NOWARN))
		queue_work(system_unbound_wq, &kretprobe_reserve_work);
}

/*
 * One per CPU: a CPU that takes chunks raises its own, which runs as soon
 * as that CPU takes interrupts again.  With a single one, while it was
 * pending on a CPU that kept interrupts off a little longer, every other
 * CPU could empty the reserve without asking for a refill.  Which CPU's
 * is queued matters only for when it runs (raw_cpu_ptr(): a caller that
 * migrates just queues another CPU's on its own).
 */
static DEFINE_PER_CPU(struct irq_work, kretprobe_reserve_irq_work) =
	IRQ_WORK_INIT(kretprobe_reserve_kick);

/* A chunk from the reserve, or NULL; asks for a refill when it runs low. */
static notrace struct kretprobe_store *kretprobe_store_get(void)
{
	unsigned int i, start = raw_smp_processor_id();
	struct kretprobe_store **slot, *st = NULL;

	for (i = 0; i < KRETPROBE_STORE_RESERVE && !st; i++) {
		slot = &kretprobe_reserve[(start + i) % KRETPROBE_STORE_RESERVE];
		if (READ_ONCE(*slot))
			st = xchg(slot, NULL);
	}
	if (!st || atomic_dec_return(&kretprobe_reserve_count) < KRETPROBE_STORE_LOW)
		irq_work_queue(raw_cpu_ptr(&kretprobe_reserve_irq_work));
	return st;
}

NOKPROBE_SYMBOL(kretprobe_store_get);

/* An empty chunk back to the reserve, or to the irq_work to be freed. */
static notrace void kretprobe_store_put(struct kretprobe_store *st)
{
	struct kretprobe_store **slot;
	unsigned int i;

	if (atomic_read(&kretprobes_live)) {
		for (i = 0; i < KRETPROBE_STORE_RESERVE; i++) {
			slot = &kretprobe_reserve[i];
			if (!READ_ONCE(*slot) && !cmpxchg(slot, NULL, st)) {
				atomic_inc(&kretprobe_reserve_count);
				return;
			}
		}
	}
	llist_add(&st->freed, &kretprobe_stores_freed);
	irq_work_queue(raw_cpu_ptr(&kretprobe_reserve_irq_work));
}

NOKPROBE_SYMBOL(kretprobe_store_put);

/* The chunk of the current task's newest instance carved from one. */
static notrace struct kretprobe_store *kretprobe_store_current(void)
{
	struct llist_node *node = current->kretprobe_instances.first;
	struct kretprobe_instance *ri;

	for (; node; node = node->next) {
		ri = llist_entry(node, struct kretprobe_instance, llist);
		if (ri->store)
			return ri->store;
	}
	return NULL;
}

NOKPROBE_SYMBOL(kretprobe_store_current);

/* An instance for @rp from the current task's own storage, or NULL. */
static noinline notrace struct kretprobe_instance *
kretprobe_take_own(struct kretprobe *rp)
{
	size_t size = ALIGN(sizeof(struct kretprobe_instance) + rp->data_size,
			    sizeof(unsigned long));
	struct kretprobe_store *st, *cur;
	struct kretprobe_instance *ri;

	if (size > KRETPROBE_STORE_PAYLOAD)
		return NULL;
	cur = kretprobe_store_current();
	st = cur;
	if (!st || st->used + size > KRETPROBE_STORE_PAYLOAD) {
		if (cur && cur->depth >= KRETPROBE_TASK_STORES)
			return NULL;
		st = kretprobe_store_get();
		if (!st)
			return NULL;
		st->used = 0;
		st->depth = cur ? cur->depth + 1 : 1;
	}
	ri = (struct kretprobe_instance *)((char *)st->data + st->used);
	st->used += size;
	ri->store = st;
	ri->pool = rp->pool;
	/* The kretprobe is registered: the pool's objpool holds a user. */
	refcount_inc(&ri->pool->users);
	return ri;
}

NOKPROBE_SYMBOL(kretprobe_take_own);

/* Give back an instance carved from a task's chunk: the chunk's top. */
static notrace void kretprobe_put_own(struct kretprobe_instance *ri)
{
	struct kretprobe_store *st = ri->store;
	struct kretprobe_pool *pool = ri->pool;

	WARN_ON_ONCE((unsigned long)ri < (unsigned long)st->data ||
		     (char *)ri >= (char *)st->data + st->used);
	st->used = (char *)ri - (char *)st->data;
	if (!st->used)
		kretprobe_store_put(st);
	kretprobe_pool_put(pool);
}

NOKPROBE_SYMBOL(kretprobe_put_own);

/* Give an instance that is off every task list back to its pool. */
static notrace void kretprobe_recycle(struct kretprobe_instance *ri)
{
	struct kretprobe_pool *pool = ri->pool;

	if (ri->store) {
		kretprobe_put_own(ri);
		return;
	}
	/*
	 * Callers are RCU readers: unregistration clears pool->rp, waits for
	 * a grace period and only then empties the spares and finishes the
	 * objpool, so a push here always lands in a live pool.
	 */
	if (likely(rcu_access_pointer(pool->rp))) {
		if (!cmpxchg(raw_cpu_ptr(pool->spare), NULL, ri))
			return;
		objpool_push(ri, &pool->objs);
		return;
	}
	/* The kretprobe is gone: the reaper drops the instance for good. */
	if (llist_add(&ri->llist, &pool->orphans))
		irq_work_queue(&pool->reaper);
}

NOKPROBE_SYMBOL(kretprobe_recycle);

/* No spare here: one from the objpool, else the spare of another CPU. */
static noinline struct kretprobe_instance *
kretprobe_take_slow(struct kretprobe_pool *pool)
{
	struct kretprobe_instance *ri;
	int cpu;

	ri = objpool_pop(&pool->objs);
	if (likely(ri))
		return ri;
	for_each_possible_cpu(cpu) {
		ri = xchg(per_cpu_ptr(pool->spare, cpu), NULL);
		if (ri)
			return ri;
	}
	return NULL;
}

NOKPROBE_SYMBOL(kretprobe_take_slow);

/*
 * A free instance: this CPU's spare, else one from the objpool, else
 * another CPU's spare.  Every free instance is in one of those, so a
 * kretprobe misses only when all of its maxactive instances are in use,
 * as with the objpool alone.  The exchanges are full atomics (not
 * this_cpu ops): spares are taken from other CPUs too.
 */
static __always_inline struct kretprobe_instance *
kretprobe_take(struct kretprobe_pool *pool)
{
	struct kretprobe_instance *ri;

	ri = xchg(raw_cpu_ptr(pool->spare), NULL);
	if (likely(ri))
		return ri;
	return kretprobe_take_slow(pool);
}

/*
 * Unregistered and a grace period later: no CPU takes or gives back a
 * spare any more.  Back into the objpool, for objpool_fini().
 */
static void kretprobe_spares_return(struct kretprobe_pool *pool)
{
	struct kretprobe_instance *ri;
	int cpu;

	for_each_possible_cpu(cpu) {
		ri = xchg(per_cpu_ptr(pool->spare, cpu), NULL);
		if (ri)
			objpool_push(ri, &pool->objs);
	}
	free_percpu(pool->spare);
	pool->spare = NULL;
}

static void kretprobe_count_miss(struct kretprobe *rp)
{
	int old = READ_ONCE(rp->nmissed);

	/* Exact even when CPUs miss at once, and no lock. */
	while (!try_cmpxchg(&rp->nmissed, &old, old + 1))
		;
}

NOKPROBE_SYMBOL(kretprobe_count_miss);

/* The pre-handler of every kretprobe's kprobe. */
static notrace int kretprobe_entry(struct kprobe *kp, struct pt_regs *regs)
{
	struct kretprobe *rp = container_of(kp, struct kretprobe, kp);
	struct kretprobe_instance *ri;

	ri = kretprobe_take(rp->pool);
	if (unlikely(!ri)) {
		ri = kretprobe_take_own(rp);
		if (!ri) {
			kretprobe_count_miss(rp);
			return 0;
		}
	}

	/* ->ret_addr and ->fp are the hijack's, after the entry_handler. */
	ri->task = current;
	if (rp->entry_handler && rp->entry_handler(ri, regs)) {
		kretprobe_recycle(ri);
		return 0;
	}

	arch_kretprobe_hijack(ri, regs);
	/* Only this task (and its interrupts, which nest) writes its list. */
	__llist_add(&ri->llist, &current->kretprobe_instances);
	return 0;
}

NOKPROBE_SYMBOL(kretprobe_entry);

static __always_inline bool at_trampoline(unsigned long addr)
{
	return addr ==
	       (unsigned long)dereference_kernel_function_descriptor(kretprobe_trampoline);
}

static struct kretprobe_instance *
kretprobe_match(struct llist_node *node, void *fp)
{
	struct kretprobe_instance *ri;

	for (; node; node = node->next) {
		ri = llist_entry(node, struct kretprobe_instance, llist);
		if (ri->fp == fp)
			return ri;
	}
	return NULL;
}

NOKPROBE_SYMBOL(kretprobe_match);

/**
 * kretprobe_find_instance() - the instances a trampoline return belongs to
 * @first: the newest pending instance of the task
 *	(task->kretprobe_instances.first)
 * @fp: the frame the trampoline was entered from (kretprobe_instance.fp)
 * @last: set to the last instance of the return (see below)
 *
 * A tail call from a kretprobed function into another one hijacks the
 * same return twice: the second instance of @fp returns to the
 * trampoline, and the real return address is in the next instance of @fp
 * outwards.  The return of @fp is that chain, from the newest instance of
 * @fp to *@last, the first one whose return address is not the
 * trampoline; pending instances of other frames in between are stale.
 *
 * Return: the newest instance of @fp, or NULL when no chain of instances
 * of @fp ends in a real return address.
 */
struct kretprobe_instance *
kretprobe_find_instance(struct llist_node *first, void *fp,
			struct kretprobe_instance **last)
{
	struct kretprobe_instance *ri, *end;

	ri = kretprobe_match(first, fp);
	for (end = ri; end; end = kretprobe_match(end->llist.next, fp))
		if (!at_trampoline((unsigned long)end->ret_addr))
			break;
	if (!end)
		return NULL;
	*last = end;
	return ri;
}
EXPORT_SYMBOL_GPL(kretprobe_find_instance);
NOKPROBE_SYMBOL(kretprobe_find_instance);

/*
 * A return through the trampoline that no pending instance explains: the
 * task's list or its stack is corrupt, and no address is right to return
 * to.  Going on at a guessed one would run the task in a wrong frame, so
 * stop here, as loudly as possible (BUG: the task dies, or the kernel
 * with panic_on_oops).  Nothing can reach this without corrupting a task
 * (a test could not survive it), so the tests pin kretprobe_find_instance()
 * returning NULL instead.
 */
static void __noreturn kretprobe_no_instance(void *fp)
{
	pr_err("%s/%d returned through the kretprobe trampoline %pS (frame %p) with no matching instance\n",
	       current->comm, task_pid_nr(current), kretprobe_trampoline, fp);
	BUG();
}

NOKPROBE_SYMBOL(kretprobe_no_instance);

/*
 * The last instance of the return of @fp (kretprobe_find_instance()), or
 * NULL.  Out of line, so that the common case in the caller takes the
 * address of no local (no stack protector there).
 */
static noinline struct kretprobe_instance *
kretprobe_last_of(struct llist_node *first, void *fp)
{
	struct kretprobe_instance *last;

	return kretprobe_find_instance(first, fp, &last) ? last : NULL;
}

NOKPROBE_SYMBOL(kretprobe_last_of);

/**
 * kretprobe_trampoline_return() - a kretprobed function returned
 * @regs: registers as at the return, built by the arch trampoline
 * @fp: the frame the trampoline was entered from, as recorded in
 *	kretprobe_instance.fp by arch_kretprobe_hijack()
 * @slot: where the return address lies in memory (x86: on the stack), or
 *	NULL (in a register: arm64's link register)
 *
 * Called by the architecture's trampoline.  Runs the handlers of the
 * instances of @fp (several after tail calls between
 * kretprobed functions, see kretprobe_find_instance()), newest first,
 * each with its instance still on the task's list so that stack traces
 * from the handler see the real callers, with the real return address in
 * @regs and get_kretprobe_retaddr(), and with kprobe_running() the
 * kretprobe's kprobe; then recycles them.  Instances of other frames
 * above them on the list belong to frames that never returned normally
 * and are recycled without a handler.
 *
 * The real return address is written to *@slot first, while every
 * instance is still on the list: from then on an unwinder (an interrupt's,
 * or the handler's own stack trace) reads a plain return address there,
 * and none ever meets the trampoline's address with no instance left to
 * explain it.  The one lookup serves both.
 *
 * Return: the address the probed function really returns to; also set as
 * the instruction pointer of @regs.
 */
notrace unsigned long kretprobe_trampoline_return(struct pt_regs *regs,
						  void *fp, unsigned long *slot)
{
	struct llist_head *head = &current->kretprobe_instances;
	struct kretprobe_instance *last, *cur;
	struct kretprobe *rp;
	unsigned long ret;

	preempt_disable_notrace();
	__kprobe_busy_begin();

	/* Mostly the newest instance is the one, with a real return address. */
	last = llist_entry(head->first, struct kretprobe_instance, llist);
	if (unlikely(!head->first || last->fp != fp ||
		     at_trampoline((unsigned long)last->ret_addr)))
		last = kretprobe_last_of(head->first, fp);
	if (unlikely(!last))
		kretprobe_no_instance(fp);
	ret = (unsigned long)last->ret_addr;
	if (slot)
		WRITE_ONCE(*slot, ret);
	instruction_pointer_set(regs, ret);

	do {
		cur = llist_entry(head->first, struct kretprobe_instance,
				  llist);
		/* Above the newest of @fp nothing is of @fp; below, the chain's are. */
		if (cur->fp == fp) {
			/* Unwinders from the handler see it at once. */
			cur->ret_addr = (kprobe_opcode_t *)ret;
			rp = rcu_dereference_sched(cur->pool->rp);
			if (rp && rp->handler) {
				instruction_pointer_set(regs, ret);
				__this_cpu_write(current_kprobe, &rp->kp);
				rp->handler(cur, regs);
				__this_cpu_write(current_kprobe, &kprobe_busy);
			}
		}
		head->first = cur->llist.next;
		kretprobe_recycle(cur);
	} while (cur != last);

	__kprobe_busy_end();
	preempt_enable_notrace();
	return ret;
}

NOKPROBE_SYMBOL(kretprobe_trampoline_return);

/**
 * is_kretprobe_trampoline() - is @addr the kretprobe trampoline?
 * @addr: a return address found on a stack
 *
 * Return: true if @addr is where kretprobes make functions return.
 */
bool is_kretprobe_trampoline(unsigned long addr)
{
	return at_trampoline(addr);
}

NOKPROBE_SYMBOL(is_kretprobe_trampoline);

/**
 * kretprobe_find_ret_addr() - the real return address behind a trampoline
 * @tsk: the task whose stack is unwound (current, or a blocked task)
 * @fp: the frame where the unwinder met the trampoline: the stack slot of
 *	the return address on x86, the caller's frame pointer on arm64
 * @cur: unwinder state: NULL at the start of an unwind, then the last
 *	instance found, so that the search goes on outwards
 *
 * Return: the original return address, or 0 if no pending instance of
 * @tsk belongs to @fp.
 */
unsigned long kretprobe_find_ret_addr(struct task_struct *tsk, void *fp,
				      struct llist_node **cur)
{
	struct llist_node *first = READ_ONCE(tsk->kretprobe_instances.first);
	struct llist_node *from = *cur ? (*cur)->next : first;
	struct kretprobe_instance *ri;
	bool rewound = false;

	for (;;) {
		ri = kretprobe_match(from, fp);
		if (!ri) {
			if (rewound || from == first)
				return 0;
			/* The unwinder skipped around: search from the top. */
			rewound = true;
			from = first;
			continue;
		}
		*cur = &ri->llist;
		/* A tail call hijacked an already hijacked return: go on. */
		if (!is_kretprobe_trampoline((unsigned long)ri->ret_addr))
			return (unsigned long)ri->ret_addr;
		from = ri->llist.next;
	}
}
EXPORT_SYMBOL_GPL(kretprobe_find_ret_addr);
NOKPROBE_SYMBOL(kretprobe_find_ret_addr);

/**
 * kprobe_flush_task() - recycle the instances of a dead task
 * @tk: the task, which will never run again
 *
 * Called when the task_struct is freed.  Functions that never return
 * normally (do_exit()) leave their instances here.
 */
void kprobe_flush_task(struct task_struct *tk)
{
	struct kretprobe_instance *ri, *next;
	struct llist_node *list;

	list = __llist_del_all(&tk->kretprobe_instances);
	if (likely(!list))
		return;

	rcu_read_lock();
	llist_for_each_entry_safe(ri, next, list, llist)
		kretprobe_recycle(ri);
	rcu_read_unlock();
}

NOKPROBE_SYMBOL(kprobe_flush_task);

/**
 * get_kretprobe() - the kretprobe of an instance
 * @ri: the instance, as passed to a handler
 *
 * Call from a handler or under rcu_read_lock().
 *
 * Return: the kretprobe, or NULL once it is unregistered.
 */
struct kretprobe *get_kretprobe(struct kretprobe_instance *ri)
{
	return rcu_dereference_check(ri->pool->rp, rcu_read_lock_any_held());
}
EXPORT_SYMBOL_GPL(get_kretprobe);
NOKPROBE_SYMBOL(get_kretprobe);

/**
 * get_kretprobe_retaddr() - where the function of an instance returns to
 * @ri: the instance, as passed to a handler
 *
 * Return: the original return address the trampoline replaced.
 */
unsigned long get_kretprobe_retaddr(struct kretprobe_instance *ri)
{
	return (unsigned long)ri->ret_addr;
}
EXPORT_SYMBOL_GPL(get_kretprobe_retaddr);
NOKPROBE_SYMBOL(get_kretprobe_retaddr);

bool __weak arch_kretprobe_refused(unsigned long func)
{
	return false;
}

static int kretprobe_default_instances(void)
{
	if (IS_ENABLED(CONFIG_PREEMPTION))
		return max_t(int, 10, 2 * num_possible_cpus());
	return num_possible_cpus();
}

static int kretprobe_check(struct kretprobe *rp, int *nr)
{
	unsigned long addr, size, off;
	size_t obj_size;
	int ret;

	if (!rp)
		return -EINVAL;
	/*
	 * Registered already: -EINVAL, the errno this has always had.  Not
	 * judged by @rp->pool, which holds garbage in a kmalloc()ed
	 * kretprobe never registered.
	 */
	if (kprobe_registered(&rp->kp))
		return -EINVAL;
	if (rp->data_size > KRETPROBE_DATA_SIZE_MAX)
		return -E2BIG;
	*nr = rp->maxactive > 0 ? rp->maxactive : kretprobe_default_instances();
	if (*nr > KRETPROBE_INSTANCES_MAX)
		return -E2BIG;
	obj_size = sizeof(struct kretprobe_instance) + rp->data_size;
	if ((size_t)*nr * obj_size > KRETPROBE_POOL_BYTES_MAX)
		return -E2BIG;

	ret = kprobe_on_func_entry(rp->kp.addr, rp->kp.symbol_name,
				   rp->kp.offset);
	if (ret)
		return ret;

	addr = (unsigned long)rp->kp.addr;
	if (!addr && rp->kp.symbol_name)
		addr = kallsyms_lookup_name(rp->kp.symbol_name);
	if (addr && kallsyms_lookup_size_offset(addr, &size, &off) &&
	    arch_kretprobe_refused(addr - off))
		return -EINVAL;
	/* The caller may set KPROBE_FLAG_DISABLED, no other flag. */
	if (rp->kp.flags & ~KPROBE_FLAG_DISABLED)
		return -EINVAL;
	return 0;
}

/**
 * register_kretprobe() - watch the returns of a function
 * @rp: the kretprobe; @rp->kp names the function (by address or by
 *	symbol_name, at offset 0 or the offset of its entry probe point)
 *
 * Preallocates @rp->maxactive instances (a default when <= 0, written
 * back to @rp->maxactive) of @rp->data_size private bytes each, then
 * registers @rp->kp with a pre-handler of ours.  @rp->kp.pre_handler and
 * post_handler are ours.  When all of them are in use, a call's instance
 * is carved from storage of the calling task (up to KRETPROBE_TASK_STORES
 * chunks of KRETPROBE_STORE_SIZE bytes per task), so @rp->maxactive is a
 * floor, not a limit, on the calls watched at once.
 *
 * Return: 0 on success; -EINVAL for a NULL @rp, a @rp registered already,
 * a flag other than KPROBE_FLAG_DISABLED in @rp->kp.flags, or a function
 * we cannot watch (not a function entry, or refused by the architecture),
 * -E2BIG for a @rp->maxactive over
 * KRETPROBE_INSTANCES_MAX, a @rp->data_size over KRETPROBE_DATA_SIZE_MAX or
 * a pool over KRETPROBE_POOL_BYTES_MAX, -ENOMEM, or an error of
 * register_kprobe() or kprobe_on_func_entry().
 */
int register_kretprobe(struct kretprobe *rp)
{
	struct kretprobe_pool *pool;
	int nr, ret;

	ret = kretprobe_check(rp, &nr);
	if (ret)
		return ret;
	/* Callers may read back the number of instances the pool holds. */
	if (rp->maxactive <= 0)
		rp->maxactive = nr;

	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return -ENOMEM;
	pool->spare = alloc_percpu(struct kretprobe_instance *);
	if (!pool->spare) {
		kfree(pool);
		return -ENOMEM;
	}
	init_llist_head(&pool->orphans);
	init_irq_work(&pool->reaper, kretprobe_reap);
	refcount_set(&pool->users, 1);
	init_irq_work(&pool->freer, kretprobe_pool_free);
	ret = objpool_init(&pool->objs, nr,
			   sizeof(struct kretprobe_instance) + rp->data_size,
			   GFP_KERNEL, pool, kretprobe_instance_init,
			   kretprobe_pool_release);
	if (ret) {
		free_percpu(pool->spare);
		kfree(pool);
		return ret;
	}
	RCU_INIT_POINTER(pool->rp, rp);

	rp->nmissed = 0;
	rp->pool = pool;
	rp->kp.pre_handler = kretprobe_entry;
	rp->kp.post_handler = NULL;
	rp->kp.fault_handler = NULL;

	/* The reserve of task storage is full before the first hit. */
	atomic_inc(&kretprobes_live);
	kretprobe_reserve_refill(NULL);

	ret = kprobe_register_as(&rp->kp, KPROBE_FLAG_RETPROBE);
	if (ret) {
		rp->pool = NULL;
		RCU_INIT_POINTER(pool->rp, NULL);
		/* Nothing ever took an instance: this frees it all. */
		kretprobe_spares_return(pool);
		objpool_fini(&pool->objs);
		if (atomic_dec_and_test(&kretprobes_live))
			queue_work(system_unbound_wq, &kretprobe_reserve_work);
	}
	return ret;
}
EXPORT_SYMBOL_GPL(register_kretprobe);

/**
 * register_kretprobes() - register several kretprobes
 * @rps: the kretprobes
 * @num: how many
 *
 * All or nothing: on an error the ones already registered are
 * unregistered again.
 *
 * Return: 0, -EINVAL for a NULL @rps or @num <= 0, or the first error of
 * register_kretprobe().
 */
int register_kretprobes(struct kretprobe **rps, int num)
{
	int i, ret;

	if (!rps || num <= 0)
		return -EINVAL;
	for (i = 0; i < num; i++) {
		ret = register_kretprobe(rps[i]);
		if (ret) {
			if (i)
				unregister_kretprobes(rps, i);
			return ret;
		}
	}
	return 0;
}
EXPORT_SYMBOL_GPL(register_kretprobes);

/**
 * unregister_kretprobes() - unregister several kretprobes
 * @rps: the kretprobes; NULL entries and unregistered ones are skipped
 * @num: how many
 *
 * When this returns no handler of @rps runs any more and the kretprobes
 * may be freed.  Calls in flight still return where they should: their
 * instances come home to the pool, which lives until the last one does.
 * One grace period covers the whole batch.
 */
void unregister_kretprobes(struct kretprobe **rps, int num)
{
	struct kretprobe_pool *pool;
	int i;

	if (!rps || num <= 0)
		return;

	/* A pool pointer of a kretprobe never registered is garbage. */
	for (i = 0; i < num; i++)
		if (rps[i] && !kprobe_registered(&rps[i]->kp))
			rps[i]->pool = NULL;

	/* Returns from now on see no kretprobe: nothing calls handlers. */
	for (i = 0; i < num; i++)
		if (rps[i] && rps[i]->pool)
			rcu_assign_pointer(rps[i]->pool->rp, NULL);

	kretprobe_unregister_begin_many(rps, num);
	/* Wait out entry handlers and returns that saw the kretprobe. */
	synchronize_rcu();

	for (i = 0; i < num; i++) {
		if (!rps[i] || !rps[i]->pool)
			continue;
		kprobe_unregister_end(&rps[i]->kp);
		pool = rps[i]->pool;
		rps[i]->pool = NULL;
		kretprobe_spares_return(pool);
		objpool_fini(&pool->objs);
		/* The last one: the reserve of task storage goes. */
		if (atomic_dec_and_test(&kretprobes_live))
			queue_work(system_unbound_wq, &kretprobe_reserve_work);
	}
}
EXPORT_SYMBOL_GPL(unregister_kretprobes);

/**
 * unregister_kretprobe() - unregister a kretprobe
 * @rp: the kretprobe
 *
 * See unregister_kretprobes().
 */
void unregister_kretprobe(struct kretprobe *rp)
{
	unregister_kretprobes(&rp, 1);
}
EXPORT_SYMBOL_GPL(unregister_kretprobe);

/**
 * enable_kretprobe() - arm a disabled kretprobe again
 * @rp: the kretprobe
 *
 * Return: 0 or the error of enable_kprobe().
 */
int enable_kretprobe(struct kretprobe *rp)
{
	return enable_kprobe(&rp->kp);
}
EXPORT_SYMBOL_GPL(enable_kretprobe);

/**
 * disable_kretprobe() - stop watching new calls
 * @rp: the kretprobe
 *
 * Calls already watched still run the handler when they return.
 *
 * Return: 0 or the error of disable_kprobe().
 */
int disable_kretprobe(struct kretprobe *rp)
{
	return disable_kprobe(&rp->kp);
}
EXPORT_SYMBOL_GPL(disable_kretprobe);
