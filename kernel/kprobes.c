// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel dynamic probes: the architecture-independent core.
 *
 * Design
 * ------
 * Every probed address has one "site": a struct kprobe_site that the
 * breakpoint trap finds in an RCU hash table keyed by address.  The site
 * embeds the struct kprobe the architecture works on (the original opcode,
 * the out-of-line copy, the armed breakpoint) and lists the users' probes
 * at that address in registration order.  The site's handlers call the
 * users' handlers in turn, so a single probe and an aggregate of several
 * take the same path, and the architecture never sees users' probes.
 *
 * Registration, removal, enabling and disabling are serialized by
 * kprobe_mutex.  The hit path takes no lock: hash lookup and list walks
 * are RCU (the trap runs with interrupts off), and the per-CPU
 * current_kprobe/kprobe_ctlblk hold the state of the probe a CPU handles.
 *
 * Removal is two-phase so that a batch waits for one grace period: the
 * first phase disarms and unlinks, the second (after synchronize_rcu())
 * releases the site and its arch resources.  Sites whose code went away
 * (module unload, freed init text) become GONE and leave the hash table;
 * they are released when their probes are unregistered.
 *
 * Out-of-line instruction slots come from pages of executable memory
 * (execmem), packed, listed in /proc/kallsyms, and returned only after an
 * RCU-tasks grace period (a preempted task may still be in a slot).
 *
 * Copyright (C) IBM Corporation, 2002, 2004
 *
 * 2002-Oct	Created by Vamsi Krishna S <vamsi_krishna@in.ibm.com> Kernel
 *		Probes initial implementation (includes suggestions from
 *		Rusty Russell).
 * 2004-Aug	Updated by Prasanna S Panchamukhi <prasanna@in.ibm.com> with
 *		hlists and exceptions notifier as suggested by Andi Kleen.
 * 2004-July	Suparna Bhattacharya <suparna@in.ibm.com> added jumper probes
 *		interface to access function arguments.
 * 2004-Sep	Prasanna S Panchamukhi <prasanna@in.ibm.com> Changed Kprobes
 *		exceptions notifier to be first on the priority list.
 * 2005-May	Hien Nguyen <hien@us.ibm.com>, Jim Keniston
 *		<jkenisto@us.ibm.com> and Prasanna S Panchamukhi
 *		<prasanna@in.ibm.com> added function-return probes.
 * 2026-Nov	Rewritten: probes at one address share a site,
 *		two-phase batched removal, the handler context contract.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/hash.h>
#include <linux/init.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/export.h>
#include <linux/kallsyms.h>
#include <linux/freezer.h>
#include <linux/seq_file.h>
#include <linux/debugfs.h>
#include <linux/sysctl.h>
#include <linux/kdebug.h>
#include <linux/memory.h>
#include <linux/ftrace.h>
#include <linux/cpu.h>
#include <linux/jump_label.h>
#include <linux/static_call.h>
#include <linux/module.h>
#include <linux/moduleloader.h>
#include <linux/execmem.h>
#include <linux/workqueue.h>
#include <linux/perf_event.h>
#include <linux/bitmap.h>
#include <linux/uaccess.h>
#include <linux/fault-inject.h>
#include <linux/cacheflush.h>
#include <kunit/static_stub.h>
#include <kunit/test-bug.h>
#include <kunit/visibility.h>
#include <asm/sections.h>

#include "kprobes_internal.h"

/**
 * struct kprobe_site - everything registered at one address
 * @kp: what the arch arms and the hash table holds; its handlers
 *	dispatch to @probes
 * @probes: users' probes (struct kprobe.list), in registration order
 * @node: on gone_hashed while GONE and still hashed, on gone_sites or
 *	retired_sites when not hashed
 * @owner: on retired_sites: the probe whose unregistration retired it
 * @armed: the breakpoint is in the text
 */
struct kprobe_site {
	struct kprobe kp;
	struct list_head probes;
	struct list_head node;
	struct kprobe *owner;
	bool armed;
};

struct kprobe_bl_entry {
	struct list_head list;
	unsigned long start;
	unsigned long end;
	struct module *mod;
	struct rcu_head rcu;
};

/* Serializes registration, arming and the optimizer (kprobes_internal.h) */
DEFINE_MUTEX(kprobe_mutex);
struct hlist_head kprobe_table[1 << KPROBE_HASH_BITS];
static LIST_HEAD(gone_sites);
static LIST_HEAD(gone_hashed);
static LIST_HEAD(retired_sites);
static LIST_HEAD(kprobe_blacklist);
static bool kprobes_all_disarmed;
static bool kprobes_ready;
struct workqueue_struct *kprobes_wq __ro_after_init;

#ifndef CONFIG_KPROBES_COMPAT	/* there the arch code defines both */
DEFINE_PER_CPU(struct kprobe *, current_kprobe);
DEFINE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);
/* The exception nesting the running handlers started at (kprobe_set_status()) */
DEFINE_PER_CPU(unsigned int, kprobe_handler_nest);
#endif
EXPORT_PER_CPU_SYMBOL_GPL(current_kprobe);

static int site_pre_handler(struct kprobe *sp, struct pt_regs *regs);
static void site_post_handler(struct kprobe *sp, struct pt_regs *regs,
			      unsigned long flags);
static int site_fault_handler(struct kprobe *sp, struct pt_regs *regs,
			      int trapnr);
static void prune_gone_sites(void);

static struct kprobe_site *to_site(struct kprobe *p)
{
	return container_of(p, struct kprobe_site, kp);
}

static bool is_site(const struct kprobe *p)
{
	return p->pre_handler == site_pre_handler;
}

/* ---------------------------------------------------------------------
 * Hit path (no locks; called from the arch trap handlers)
 */

/**
 * get_kprobe() - the probe site at an address
 * @addr: the probed address
 *
 * Called from the breakpoint trap (interrupts off) or under kprobe_mutex.
 * With several probes at @addr this is their common site probe.
 *
 * Return: the probe armed at @addr, or NULL.
 */
struct kprobe *get_kprobe(void *addr)
{
	struct kprobe *p;

	hlist_for_each_entry_rcu(p, kprobe_bucket(addr), hlist,
				 lockdep_is_held(&kprobe_mutex)) {
		if (p->addr == addr)
			return p;
	}
	return NULL;
}

NOKPROBE_SYMBOL(get_kprobe);

static int site_pre_handler(struct kprobe *sp, struct pt_regs *regs)
{
	struct kprobe_site *site = to_site(sp);
	struct kprobe *p, *jprobe = NULL;
	int ret;

	list_for_each_entry_rcu(p, &site->probes, list) {
		if (kprobe_disabled(p))
			continue;
		/* A jprobe leaves the trap for its handler: it goes last. */
		if (IS_ENABLED(CONFIG_JPROBES) && (p->flags & KPROBE_FLAG_JPROBE)) {
			jprobe = p;
			continue;
		}
		if (!p->pre_handler)
			continue;
		__this_cpu_write(current_kprobe, p);
		ret = p->pre_handler(p, regs);
		__this_cpu_write(current_kprobe, sp);
		if (ret)
			return 1;
	}
#ifdef CONFIG_JPROBES
	if (jprobe)
		return kprobe_jprobe_pre_handler(jprobe, regs);
#endif
	return 0;
}

NOKPROBE_SYMBOL(site_pre_handler);

static void site_post_handler(struct kprobe *sp, struct pt_regs *regs,
			      unsigned long flags)
{
	struct kprobe_site *site = to_site(sp);
	struct kprobe *p;

	list_for_each_entry_rcu(p, &site->probes, list) {
		if (kprobe_disabled(p) || !p->post_handler)
			continue;
		__this_cpu_write(current_kprobe, p);
		p->post_handler(p, regs, flags);
		__this_cpu_write(current_kprobe, sp);
	}
}

NOKPROBE_SYMBOL(site_post_handler);

/*
 * A fault of the site's copied instruction: each fault_handler sees its
 * own probe as kprobe_running(), as the other handlers do.
 */
static int site_fault_handler(struct kprobe *sp, struct pt_regs *regs,
			      int trapnr)
{
	struct kprobe_site *site = to_site(sp);
	struct kprobe *p;
	int ret;

	list_for_each_entry_rcu(p, &site->probes, list) {
		if (kprobe_disabled(p) || !p->fault_handler)
			continue;
		__this_cpu_write(current_kprobe, p);
		ret = p->fault_handler(p, regs, trapnr);
		__this_cpu_write(current_kprobe, sp);
		if (ret)
			return 1;
	}
	return 0;
}

NOKPROBE_SYMBOL(site_fault_handler);

/**
 * kprobes_inc_nmissed_count() - count a hit whose handlers were skipped
 * @p: the probe (a site counts on every probe it holds)
 */
void kprobes_inc_nmissed_count(struct kprobe *p)
{
	struct kprobe *q;

#if defined(CONFIG_KPROBES_COMPAT) && defined(CONFIG_OPTPROBES)
	p = kprobe_opt_compat_site(p);
	if (!p)
		return;
#endif
	if (!is_site(p)) {
		p->nmissed++;
		return;
	}
	list_for_each_entry_rcu(q, &to_site(p)->probes, list)
		q->nmissed++;
}

NOKPROBE_SYMBOL(kprobes_inc_nmissed_count);

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * The trap that ends an out-of-line step, as the KUnit suites see it.  A
 * hit whose instruction was stepped out of line and one whose copy was
 * boosted, emulated or run by the post copy run the same instruction and
 * leave the same state behind: only the second trap tells them apart, and
 * no code of a test runs in it when the probe has no post_handler.  So
 * the arch calls kprobe_step_trapped() there, whose inline static branch
 * (<linux/kprobes.h>) calls this while a KUnit test runs.  It is no KUnit
 * static stub, because the stub's lookup takes a spinlock and the x86 trap
 * enters as an NMI; the hook is set beforehand, in task context.
 */
static void (*step_trap_hook)(struct kprobe *p);

/**
 * __kprobe_step_trapped() - an out-of-line step of @p ended in its trap
 * @p: the probe stepped
 *
 * Called through kprobe_step_trapped() from that trap while a KUnit test
 * runs.
 */
void __kprobe_step_trapped(struct kprobe *p)
{
	void (*hook)(struct kprobe *p) = READ_ONCE(step_trap_hook);

	if (hook)
		hook(p);
}

NOKPROBE_SYMBOL(__kprobe_step_trapped);

/**
 * kprobe_set_step_trap_hook() - be called at the trap ending each step
 * @hook: called from kprobe_step_trapped() while a KUnit test runs, in
 *	the trap (an NMI on x86), with interrupts off: it must not sleep,
 *	take locks or hit probes; NULL: none
 *
 * For the KUnit suites only.  After setting NULL, synchronize_rcu()
 * waits for the calls in flight.
 */
void kprobe_set_step_trap_hook(void (*hook)(struct kprobe *p))
{
	WRITE_ONCE(step_trap_hook, hook);
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_set_step_trap_hook);
#endif

/* The running probe of a CPU in a kprobe_busy_begin() section. */
struct kprobe kprobe_busy = {
	.addr = (void *)&kprobe_busy_begin,
};

/**
 * kprobe_busy_begin() - make probes hit from here on count as missed
 *
 * Disables preemption; pair with kprobe_busy_end().  Used where handlers
 * of other probes must not run (e.g. inside a return trampoline).
 */
void kprobe_busy_begin(void)
{
	preempt_disable();
	__kprobe_busy_begin();
}

NOKPROBE_SYMBOL(kprobe_busy_begin);

/**
 * kprobe_busy_end() - end a kprobe_busy_begin() section
 */
void kprobe_busy_end(void)
{
	__kprobe_busy_end();
	preempt_enable();
}

NOKPROBE_SYMBOL(kprobe_busy_end);

/**
 * dump_kprobe() - print a probe for a bug report
 * @kp: the probe
 */
void dump_kprobe(struct kprobe *kp)
{
	pr_err("probe at %pS: pre %ps post %ps flags %#x\n",
	       kp->addr, kp->pre_handler, kp->post_handler, kp->flags);
}

NOKPROBE_SYMBOL(dump_kprobe);

/* ---------------------------------------------------------------------
 * Instruction slots
 */

struct slot_page {
	struct list_head list;
	struct list_head reap;	/* on the reaper's own list, once off @list */
	void *base;
	unsigned int used;
	unsigned long map[];	/* one bit per slot in use (or dying) */
};

struct slot_cache {
	const char *name;		/* of its pages in kallsyms and perf */
	struct mutex lock;		/* protects pages' maps, and dying */
	struct list_head pages;		/* RCU list of struct slot_page */
	unsigned int slot_size;		/* both set at boot: slot_cache_size() */
	unsigned int nr_slots;
	void *(*page_alloc)(void);	/* a page of executable memory */
	void (*page_free)(void *page);
	struct list_head dying;		/* slots waiting for RCU-tasks */
	struct work_struct reaper;
};

struct dying_slot {
	struct list_head list;
	void *slot;
};

static void slot_reaper(struct work_struct *work);
static void slot_unlink_hook(struct slot_cache *c, struct slot_page *sp);

#ifndef KPROBE_INSN_SLOT_SIZE
#define KPROBE_INSN_SLOT_SIZE	(MAX_INSN_SIZE * sizeof(kprobe_opcode_t))
#endif

static struct slot_cache insn_slots = {
	.name = "kprobe_insn_page",
	.lock = __MUTEX_INITIALIZER(insn_slots.lock),
	.pages = LIST_HEAD_INIT(insn_slots.pages),
	.page_alloc = alloc_insn_page,
	.page_free = free_insn_page,
	.dying = LIST_HEAD_INIT(insn_slots.dying),
	.reaper = __WORK_INITIALIZER(insn_slots.reaper, slot_reaper),
};

#ifdef CONFIG_OPTPROBES
/*
 * The detour buffer's size: the arch's constant, or what the arches of
 * KPROBES_COMPAT always told their cache, MAX_OPTINSN_SIZE opcodes (the
 * length of an assembly template, known only at run time).
 */
#ifndef KPROBE_OPTINSN_SLOT_SIZE
#ifdef CONFIG_KPROBES_COMPAT
#define KPROBE_OPTINSN_SLOT_SIZE	(MAX_OPTINSN_SIZE * sizeof(kprobe_opcode_t))
#else
#define KPROBE_OPTINSN_SLOT_SIZE	256
#endif
#endif

/* Detour buffers of optimized probes: their own pages and kallsyms name. */
static struct slot_cache optinsn_slots = {
	.name = "kprobe_optinsn_page",
	.lock = __MUTEX_INITIALIZER(optinsn_slots.lock),
	.pages = LIST_HEAD_INIT(optinsn_slots.pages),
	.page_alloc = alloc_optinsn_page,
	.page_free = free_optinsn_page,
	.dying = LIST_HEAD_INIT(optinsn_slots.dying),
	.reaper = __WORK_INITIALIZER(optinsn_slots.reaper, slot_reaper),
};
#endif

/**
 * alloc_insn_page() - one page of executable memory for slots
 *
 * Return: the page or NULL.  Architectures override this to choose the
 * page protection.
 */
void __weak *alloc_insn_page(void)
{
	return execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);
}

/**
 * free_insn_page() - release a page from alloc_insn_page()
 * @page: the page
 */
void __weak free_insn_page(void *page)
{
	execmem_free(page);
}

#ifdef CONFIG_OPTPROBES
/**
 * alloc_optinsn_page() - one page of executable memory for detour buffers
 *
 * Return: the page or NULL.  alloc_insn_page() unless the arch needs its
 * buffers elsewhere (powerpc: in its own text, within a branch's reach).
 */
void __weak *alloc_optinsn_page(void)
{
	return alloc_insn_page();
}

/**
 * free_optinsn_page() - release a page from alloc_optinsn_page()
 * @page: the page
 */
void __weak free_optinsn_page(void *page)
{
	free_insn_page(page);
}
#endif

/**
 * arch_write_insn_slot() - write instructions into a slot
 * @dst: inside a slot
 * @src: the bytes
 * @len: how many
 *
 * Return: 0 or an errno.
 */
int __weak arch_write_insn_slot(void *dst, const void *src, size_t len)
{
	memcpy(dst, src, len);
	flush_icache_range((unsigned long)dst, (unsigned long)dst + len);
	return 0;
}

/* Slot sizes in longs, as many slots as fit in a page; set at boot. */
static void __init slot_cache_size(struct slot_cache *c, size_t bytes)
{
	c->slot_size = ALIGN(max_t(size_t, bytes, 1), sizeof(long));
	/* none when a slot would not fit a page: slot_alloc() fails then */
	c->nr_slots = PAGE_SIZE / c->slot_size;
	WARN_ON(!c->nr_slots);
}

/*
 * A page for @c with every slot free, or NULL: the executable page comes
 * first (the scarce one), then its bitmap, which gives the page back if
 * it cannot be had.
 */
static struct slot_page *slot_page_new(struct slot_cache *c)
{
	void *base = c->page_alloc();
	struct slot_page *sp;

	sp = base ? kzalloc(struct_size(sp, map, BITS_TO_LONGS(c->nr_slots)),
			    GFP_KERNEL) : NULL;
	if (sp)
		sp->base = base;
	else if (base)
		c->page_free(base);
	return sp;
}

static kprobe_opcode_t *slot_alloc(struct slot_cache *c)
{
	struct slot_page *sp;
	unsigned int i;

	if (!c->nr_slots)
		return NULL;
	guard(mutex)(&c->lock);
	list_for_each_entry(sp, &c->pages, list) {
		if (sp->used == c->nr_slots)
			continue;
		i = find_first_zero_bit(sp->map, c->nr_slots);
		if (WARN_ON_ONCE(i >= c->nr_slots))
			continue;
		goto found;
	}
	sp = slot_page_new(c);
	if (!sp)
		return NULL;
	list_add_rcu(&sp->list, &c->pages);
	perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL, (unsigned long)sp->base,
			   PAGE_SIZE, false, c->name);
	i = 0;
found:
	__set_bit(i, sp->map);
	sp->used++;
	return sp->base + i * c->slot_size;
}

static bool slot_in_cache(struct slot_cache *c, unsigned long addr)
{
	struct slot_page *sp;
	bool found = false;

	rcu_read_lock();
	list_for_each_entry_rcu(sp, &c->pages, list) {
		/* Below the page, the difference wraps to a huge value. */
		found = addr - (unsigned long)sp->base < PAGE_SIZE;
		if (found)
			break;
	}
	rcu_read_unlock();
	return found;
}

static void slot_reaper(struct work_struct *work)
{
	struct slot_cache *c = container_of(work, struct slot_cache, reaper);
	struct dying_slot *ds, *tmp;
	struct slot_page *sp, *sptmp;
	LIST_HEAD(batch);
	LIST_HEAD(empty);

	mutex_lock(&c->lock);
	list_splice_init(&c->dying, &batch);
	mutex_unlock(&c->lock);
	if (list_empty(&batch))
		return;

	/* A task preempted inside a boosted slot must have left it. */
	synchronize_rcu_tasks();

	mutex_lock(&c->lock);
	list_for_each_entry_safe(ds, tmp, &batch, list) {
		list_for_each_entry(sp, &c->pages, list) {
			unsigned long off = ds->slot - sp->base;

			if (ds->slot < sp->base || off >= PAGE_SIZE)
				continue;
			__clear_bit(off / c->slot_size, sp->map);
			sp->used--;
			break;
		}
		kfree(ds);
	}
	list_for_each_entry_safe(sp, sptmp, &c->pages, list) {
		if (sp->used)
			continue;
		slot_unlink_hook(c, sp);
		/*
		 * RCU readers (kernel_text_address() from any unwinder,
		 * kallsyms) may stand on this page and follow ->list.next
		 * until a grace period has passed: ->list keeps pointing into
		 * @c->pages, and the reaper collects the page through ->reap.
		 */
		list_del_rcu(&sp->list);
		list_add(&sp->reap, &empty);
	}
	mutex_unlock(&c->lock);
	if (list_empty(&empty))
		return;
	/* Readers of is_kprobe_insn_slot() may still walk these pages. */
	synchronize_rcu();
	list_for_each_entry_safe(sp, sptmp, &empty, reap) {
		perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL,
				   (unsigned long)sp->base, PAGE_SIZE, true,
				   c->name);
		c->page_free(sp->base);
		kfree(sp);
	}
}

static void slot_free(struct slot_cache *c, void *slot)
{
	struct dying_slot *ds;

	/* Tiny allocation; on failure leak the slot rather than risk it. */
	ds = kmalloc(sizeof(*ds), GFP_KERNEL | __GFP_NOFAIL);
	ds->slot = slot;
	mutex_lock(&c->lock);
	list_add_tail(&ds->list, &c->dying);
	mutex_unlock(&c->lock);
	queue_work(kprobes_wq, &c->reaper);
}

/**
 * get_insn_slot() - an instruction slot of KPROBE_INSN_SLOT_SIZE bytes
 *
 * Return: the slot, in executable memory near the kernel text, or NULL.
 */
kprobe_opcode_t *get_insn_slot(void)
{
	return slot_alloc(&insn_slots);
}

/**
 * free_insn_slot() - give back a slot from get_insn_slot()
 * @slot: the slot
 * @dirty: ignored: slots are always reused only after RCU-tasks
 */
void free_insn_slot(kprobe_opcode_t *slot, int dirty)
{
	if (slot)
		slot_free(&insn_slots, slot);
}

/**
 * is_kprobe_insn_slot() - is an address inside an instruction slot page
 * @addr: the address
 *
 * Safe in any context (RCU).
 *
 * Return: true when @addr is in a page of kprobes' instruction slots.
 */
bool is_kprobe_insn_slot(unsigned long addr)
{
	return slot_in_cache(&insn_slots, addr);
}

#ifdef CONFIG_OPTPROBES
/**
 * get_optinsn_slot() - a detour buffer of KPROBE_OPTINSN_SLOT_SIZE bytes
 *
 * Return: the slot, in executable memory near the kernel text, or NULL.
 */
kprobe_opcode_t *get_optinsn_slot(void)
{
	return slot_alloc(&optinsn_slots);
}

/**
 * free_optinsn_slot() - give back a slot from get_optinsn_slot()
 * @slot: the slot (reused only after an RCU-tasks grace period)
 * @dirty: ignored, as free_insn_slot()'s
 */
void free_optinsn_slot(kprobe_opcode_t *slot, int dirty)
{
	if (slot)
		slot_free(&optinsn_slots, slot);
}

/**
 * is_kprobe_optinsn_slot() - is an address in an optimized probe's buffer
 * @addr: the address
 *
 * Safe in any context (RCU).
 *
 * Return: true when @addr is in a page of detour buffers.
 */
bool is_kprobe_optinsn_slot(unsigned long addr)
{
	return slot_in_cache(&optinsn_slots, addr);
}
#endif

#if IS_ENABLED(CONFIG_KPROBES_KUNIT_TEST)
/*
 * For the KUnit test of the slot reaper (lib/test_kprobes_core.c), only in
 * kernels built with it: it counts the pages, waits for the reaper, and
 * stands as an RCU reader on a page at the moment the reaper unlinks it.
 * The reaper runs in a worker, not in the test's task, where a KUnit
 * static stub would see it: the hook is set beforehand, and looked at
 * only while a KUnit test runs.
 */
static void (*insn_unlink_hook)(unsigned long page);

static void slot_unlink_hook(struct slot_cache *c, struct slot_page *sp)
{
	void (*hook)(unsigned long page);

	if (!static_branch_unlikely(&kunit_running))
		return;
	hook = READ_ONCE(insn_unlink_hook);
	if (hook && c == &insn_slots)
		hook((unsigned long)sp->base);
}

/**
 * kprobe_insn_slot_pages() - the pages of instruction slots
 * @per_page: set to how many slots a page has
 *
 * For the KUnit suite only.
 *
 * Return: how many pages the cache holds now.
 */
unsigned int kprobe_insn_slot_pages(unsigned int *per_page)
{
	struct slot_page *sp;
	unsigned int n = 0;

	guard(mutex)(&insn_slots.lock);
	list_for_each_entry(sp, &insn_slots.pages, list)
		n++;
	*per_page = insn_slots.nr_slots;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_insn_slot_pages);

/**
 * kprobe_insn_slots_reap() - wait until the freed instruction slots are reaped
 *
 * For the KUnit suite only.  Every slot given to free_insn_slot() before
 * the call is free again when it returns, and its page released if it
 * has no other slot in use.
 */
void kprobe_insn_slots_reap(void)
{
	flush_work(&insn_slots.reaper);
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_insn_slots_reap);

/**
 * kprobe_insn_unlink_hook() - be called when the reaper unlinks a page
 * @hook: called with each page of instruction slots the reaper is about
 *	to unlink from the RCU list (it holds the cache's mutex: @hook must
 *	not allocate or free slots); NULL: none
 *
 * For the KUnit suite only.
 */
void kprobe_insn_unlink_hook(void (*hook)(unsigned long page))
{
	WRITE_ONCE(insn_unlink_hook, hook);
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_insn_unlink_hook);

/**
 * kprobe_insn_slot_walk() - walk the instruction slot pages as RCU readers do
 * @page: the page to stop on
 * @stand: called on @page, inside the RCU read-side critical section
 * @arg: for @stand
 *
 * For the KUnit suite only: the walk goes on from @page by its list
 * node, as a reader of is_kprobe_insn_slot() or kallsyms standing there
 * does, whatever @stand waited for meanwhile.
 *
 * Return: how many pages the walk met after @page before it came back to
 * the list's head; -ENOENT when @page is not listed, -ELOOP when the walk
 * did not come back within a million steps.
 */
int kprobe_insn_slot_walk(unsigned long page, void (*stand)(void *arg),
			  void *arg)
{
	struct list_head *pos;
	struct slot_page *sp;
	int n = 0;

	guard(rcu)();
	list_for_each_entry_rcu(sp, &insn_slots.pages, list)
		if ((unsigned long)sp->base == page)
			goto found;
	return -ENOENT;
found:
	stand(arg);
	for (pos = rcu_dereference(list_next_rcu(&sp->list));
	     pos != &insn_slots.pages;
	     pos = rcu_dereference(list_next_rcu(pos)))
		if (++n > 1000000)
			return -ELOOP;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_insn_slot_walk);
#else
static inline void slot_unlink_hook(struct slot_cache *c, struct slot_page *sp)
{
}
#endif

/* The @symnum-th page of @c, as a kallsyms entry; else how many it has. */
static int slot_kallsym(struct slot_cache *c, unsigned int *symnum,
			unsigned long *value, char *type, char *sym)
{
	struct slot_page *sp, *hit = NULL;

	rcu_read_lock();
	list_for_each_entry_rcu(sp, &c->pages, list) {
		if (!(*symnum)--) {
			hit = sp;
			break;
		}
	}
	if (hit) {
		*value = (unsigned long)hit->base;
		*type = 't';
		strscpy(sym, c->name, KSYM_NAME_LEN);
	}
	rcu_read_unlock();
	return hit ? 0 : -ERANGE;
}

/**
 * kprobe_get_kallsym() - the slot pages, as kallsyms entries
 * @symnum: index of the entry wanted
 * @value: its address
 * @type: its type ('t')
 * @sym: its name (KSYM_NAME_LEN bytes): kprobe_insn_page, or
 *	kprobe_optinsn_page for detour buffers
 *
 * Return: 0, or -ERANGE past the last page.
 */
int kprobe_get_kallsym(unsigned int symnum, unsigned long *value, char *type,
		       char *sym)
{
	int ret;

	ret = slot_kallsym(&insn_slots, &symnum, value, type, sym);
#ifdef CONFIG_OPTPROBES
	if (ret)
		ret = slot_kallsym(&optinsn_slots, &symnum, value, type, sym);
#endif
	return ret;
}

/* ---------------------------------------------------------------------
 * Blacklist
 */

static int blacklist_add(unsigned long start, unsigned long end,
			 struct module *mod)
{
	struct kprobe_bl_entry *ent;

	ent = kmalloc(sizeof(*ent), GFP_KERNEL);
	if (!ent)
		return -ENOMEM;
	ent->start = start;
	ent->end = end;
	ent->mod = mod;
	list_add_tail_rcu(&ent->list, &kprobe_blacklist);
	return 0;
}

static int blacklist_add_ksym(unsigned long entry, struct module *mod)
{
	unsigned long size, offset;

	if (!kernel_text_address(entry) ||
	    !kallsyms_lookup_size_offset(entry, &size, &offset))
		return -EINVAL;
	return blacklist_add(entry - offset, entry - offset + size, mod);
}

/**
 * kprobe_add_ksym_blacklist() - refuse probes in the function at an address
 * @entry: an address inside the function
 *
 * For arch_populate_kprobe_blacklist() (kprobe_mutex held, at boot).
 *
 * Return: 0 or an errno.
 */
int kprobe_add_ksym_blacklist(unsigned long entry)
{
	return blacklist_add_ksym(entry, NULL);
}

/**
 * kprobe_add_area_blacklist() - refuse probes in an address range
 * @start: first address
 * @end: address past the end
 *
 * Return: 0 or an errno.
 */
int kprobe_add_area_blacklist(unsigned long start, unsigned long end)
{
	if (start >= end)
		return 0;
	return blacklist_add(start, end, NULL);
}

/**
 * arch_populate_kprobe_blacklist() - add the arch's refused areas
 *
 * Return: 0 or an errno.
 */
int __weak arch_populate_kprobe_blacklist(void)
{
	return 0;
}

/**
 * arch_within_kprobe_blacklist() - an arch-specific refusal
 * @addr: the address
 *
 * Return: true when @addr must not be probed.
 */
bool __weak arch_within_kprobe_blacklist(unsigned long addr)
{
	return false;
}

static bool within_blacklist_entries(unsigned long addr)
{
	struct kprobe_bl_entry *ent;
	bool ret = false;

	rcu_read_lock();
	list_for_each_entry_rcu(ent, &kprobe_blacklist, list) {
		if (addr >= ent->start && addr < ent->end) {
			ret = true;
			break;
		}
	}
	rcu_read_unlock();
	return ret;
}

/*
 * Is @addr in a copy the compiler split off a blacklisted function: its
 * cold part (foo.cold), a specialized or partial clone (foo.constprop.N,
 * foo.isra.N, foo.part.N), or an LLVM-renamed local (foo.llvm.N)?  Such
 * a copy runs the same code in the same contexts as foo.  The name before
 * the first '.' is looked up in @addr's own module, or in the kernel.
 */
static bool within_blacklisted_copy(unsigned long addr)
{
	char buf[MODULE_NAME_LEN + 1 + KSYM_NAME_LEN];
	char *name = buf + MODULE_NAME_LEN + 1;
	unsigned long size, off, base;
	const char *sym;
	char *modname, *dot;

	sym = kallsyms_lookup(addr, &size, &off, &modname, name);
	if (!sym)
		return false;
	/* kallsyms_lookup() may return a name it holds elsewhere */
	if (sym != name)
		strscpy(name, sym, KSYM_NAME_LEN);
	dot = strchr(name + 1, '.');
	if (!dot)
		return false;
	*dot = '\0';
	if (modname) {
		/* "module:symbol", ending where the name begins */
		size = strnlen(modname, MODULE_NAME_LEN);
		name -= size + 1;
		memcpy(name, modname, size);
		name[size] = ':';
	}
	base = kallsyms_lookup_name(name);
	return base && base != addr - off && within_blacklist_entries(base);
}

/**
 * within_kprobe_blacklist() - may an address not be probed
 * @addr: the address
 *
 * Covers NOKPROBE_SYMBOL() functions, .kprobes.text, entry, irqentry and
 * noinstr text, the arch's areas, and the copies the compiler split off
 * blacklisted functions (foo.cold, foo.constprop.N...).  Safe in atomic
 * context.
 *
 * Return: true when a probe at @addr is refused.
 */
bool within_kprobe_blacklist(unsigned long addr)
{
	/* a test of what lies past the blacklist (kprobes_arm64) */
	KUNIT_STATIC_STUB_REDIRECT(within_kprobe_blacklist, addr);
	if (arch_within_kprobe_blacklist(addr))
		return true;
	if (within_blacklist_entries(addr))
		return true;
	return within_blacklisted_copy(addr);
}

static void blacklist_add_section(unsigned long *start, unsigned long *end,
				  struct module *mod)
{
	unsigned long *iter;

	for (iter = start; iter < end; iter++)
		if (blacklist_add_ksym(*iter, mod))
			pr_debug("blacklist entry %ps not text\n", (void *)*iter);
}

/*
 * Not every architecture lays out entry text (mips, arm, powerpc and s390
 * have none): weak, so that where the section is absent its bounds are 0
 * and the area is empty.
 */
extern char __entry_text_start[] __weak, __entry_text_end[] __weak;

/*
 * Functions the kernel's exception entry calls before any kprobe handler
 * runs, from the instrumentable parts of its noinstr code, and which
 * their own files do not mark NOKPROBE_SYMBOL().  ct_nmi_enter() and
 * ct_nmi_exit() (every breakpoint or debug exception taken in the
 * kernel, on x86 and arm64 alike) fire the rcu_watching tracepoint, which
 * asks rcu_is_watching() in a LOCKDEP kernel, and where RCU was not
 * watching they hand the context tracking state to KASAN's or KCSAN's
 * checks.  A breakpoint in one of them traps again inside that entry,
 * before a trap handler could see a probe running and count the hit as
 * missed: the CPU recurses until the NMI nesting count or the stack
 * overflows (seen on x86_64 with KASAN and lockdep, probing every
 * function, rcu_is_watching among them).  Refused by name; a name
 * configured out is skipped.
 */
static const char * const trap_entry_callees[] __initconst = {
	"rcu_is_watching",
	"__kasan_check_read",
	"__kasan_check_write",
	"kasan_check_range",
	"__kcsan_check_access",
};

static int __init populate_blacklist(void)
{
	unsigned long areas[][2] = {
		{ (unsigned long)__kprobes_text_start,
		  (unsigned long)__kprobes_text_end },
		{ (unsigned long)__entry_text_start,
		  (unsigned long)__entry_text_end },
		{ (unsigned long)__irqentry_text_start,
		  (unsigned long)__irqentry_text_end },
		{ (unsigned long)__noinstr_text_start,
		  (unsigned long)__noinstr_text_end },
	};
	int i, ret;

	blacklist_add_section(__start_kprobe_blacklist,
			      __stop_kprobe_blacklist, NULL);
	for (i = 0; i < ARRAY_SIZE(trap_entry_callees); i++) {
		unsigned long a = kallsyms_lookup_name(trap_entry_callees[i]);

		if (a)
			blacklist_add_ksym(a, NULL);
	}
	for (i = 0; i < ARRAY_SIZE(areas); i++) {
		ret = kprobe_add_area_blacklist(areas[i][0], areas[i][1]);
		if (ret)
			return ret;
	}
	return arch_populate_kprobe_blacklist();
}

#ifdef CONFIG_MODULES
static void blacklist_module_add(struct module *mod)
{
	unsigned long start;

	if (mod->num_kprobe_blacklist)
		blacklist_add_section(mod->kprobe_blacklist,
				      mod->kprobe_blacklist +
				      mod->num_kprobe_blacklist, mod);
	start = (unsigned long)mod->kprobes_text_start;
	if (start && mod->kprobes_text_size)
		blacklist_add(start, start + mod->kprobes_text_size, mod);
	start = (unsigned long)mod->noinstr_text_start;
	if (start && mod->noinstr_text_size)
		blacklist_add(start, start + mod->noinstr_text_size, mod);
}

static void blacklist_module_del(struct module *mod)
{
	struct kprobe_bl_entry *ent, *tmp;

	list_for_each_entry_safe(ent, tmp, &kprobe_blacklist, list) {
		if (ent->mod != mod)
			continue;
		list_del_rcu(&ent->list);
		kfree_rcu(ent, rcu);
	}
}
#endif /* CONFIG_MODULES */

/* ---------------------------------------------------------------------
 * Arming (kprobe_mutex held)
 */

#ifdef CONFIG_FAULT_INJECTION
/*
 * A test-only failure point: debugfs fail_kprobe_arm makes the arming of
 * sites of any kind fail, as an ftrace filter update can.  Off unless
 * configured through debugfs.
 */
static DECLARE_FAULT_ATTR(fail_kprobe_arm);

static bool arm_should_fail(void)
{
	return should_fail(&fail_kprobe_arm, 1);
}

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
static int __init fail_kprobe_arm_debugfs(void)
{
	return PTR_ERR_OR_ZERO(fault_create_debugfs_attr("fail_kprobe_arm",
							 NULL,
							 &fail_kprobe_arm));
}
late_initcall(fail_kprobe_arm_debugfs);
#endif
#else
static bool arm_should_fail(void)
{
	return false;
}
#endif

static int site_write(struct kprobe_site *site, bool arm)
{
	int ret;

	if (arm && arm_should_fail())
		return -ENOMEM;
	if (kprobe_ftrace(&site->kp)) {
		/* ftrace takes text_mutex itself */
		ret = arm ? kprobe_ftrace_arm(&site->kp) :
			    kprobe_ftrace_disarm(&site->kp);
		if (ret)
			return ret;
		site->armed = arm;
		return 0;
	}
	if (arm) {
		kprobe_opt_arming(site->kp.addr);	/* no jump over it */
	} else if (kprobe_opt_disarm(&site->kp)) {
		/* the jump went, and the original instruction is back */
		site->armed = false;
		return 0;
	}
	scoped_guard(kprobe_text) {
		if (arm)
			arch_arm_kprobe(&site->kp);
		else
			arch_disarm_kprobe(&site->kp);
	}
	site->armed = arm;
	return 0;
}

#ifdef CONFIG_KPROBES_ON_FTRACE
/*
 * For kprobes_ftrace.c: does some probe of the site @sp move the ip after
 * the call, so that the site needs the IPMODIFY ftrace_ops?  A
 * post_handler (it runs with the ip after the call) or a jprobe.
 */
bool kprobe_site_moves_ip(struct kprobe *sp)
{
	struct kprobe *p;

	list_for_each_entry(p, &to_site(sp)->probes, list)
		if (p->post_handler || (p->flags & KPROBE_FLAG_JPROBE))
			return true;
	return false;
}
#endif

/*
 * The probe the hit path may call straight (kprobe_run_pre()): the site's
 * only probe, enabled, with a pre_handler, and not a jprobe (which must
 * run after the others with the site as the running probe).
 */
static struct kprobe *site_single(struct kprobe_site *site)
{
	struct kprobe *p;

	if (!list_is_singular(&site->probes))
		return NULL;
	p = list_first_entry(&site->probes, struct kprobe, list);
	if (kprobe_disabled(p) || !p->pre_handler ||
	    (p->flags & KPROBE_FLAG_JPROBE))
		return NULL;
	return p;
}

/*
 * Bring a site in line with its probes: the aggregated post_handler exists
 * only when some probe has one (so the others keep the fast path), and the
 * breakpoint is armed when some probe is enabled and arming is on.  Then
 * the optimizer decides whether the breakpoint becomes a jump.  Returns
 * the error of arming (only ftrace-based sites can fail).
 */
static int site_update(struct kprobe_site *site)
{
	unsigned int enabled = 0;
	bool post = false, jprobe = false, want;
	struct kprobe *p;
	int ret = 0;

	list_for_each_entry(p, &site->probes, list) {
		post |= !!p->post_handler;
		jprobe |= !!(p->flags & KPROBE_FLAG_JPROBE);
		enabled += !kprobe_disabled(p);
	}
	WRITE_ONCE(site->kp.post_handler, post ? site_post_handler : NULL);
	WRITE_ONCE(site->kp.single, site_single(site));

	want = enabled > 0;
	if (want)
		site->kp.flags &= ~KPROBE_FLAG_DISABLED;
	else
		site->kp.flags |= KPROBE_FLAG_DISABLED;
	want = want && !kprobes_all_disarmed && !kprobe_gone(&site->kp);
	if (want != site->armed)
		ret = site_write(site, want);
	else if (want && kprobe_ftrace(&site->kp))
		ret = kprobe_ftrace_update(&site->kp);
	kprobe_opt_update(&site->kp, site->armed && !jprobe);
	return ret;
}

/* ---------------------------------------------------------------------
 * Address resolution and checks
 */

/**
 * kprobe_lookup_name() - the address of a symbol
 * @name: "sym" or "module:sym"
 * @offset: the offset the caller will add (for arches that care)
 *
 * Return: the address or NULL.
 */
kprobe_opcode_t * __weak kprobe_lookup_name(const char *name, unsigned int offset)
{
	return (kprobe_opcode_t *)kallsyms_lookup_name(name);
}

/**
 * arch_adjust_kprobe_addr() - where a probe at function+offset goes
 * @addr: start of the function
 * @offset: offset asked for
 * @on_func_entry: set when the result is the function's entry
 *
 * Return: the address to probe.
 */
kprobe_opcode_t * __weak arch_adjust_kprobe_addr(unsigned long addr,
						 unsigned long offset,
						 bool *on_func_entry)
{
	*on_func_entry = !offset;
	return (kprobe_opcode_t *)(addr + offset);
}

/*
 * The address @addr or @sym, plus @offset, judged on its own: @offset may
 * take it past the end of @sym (perf probe writes "_text+OFFSET", and
 * "sym+size" is the next function's first byte); what counts is the
 * function it lands in.  The caller checks that it is text and an
 * instruction boundary there.
 */
static kprobe_opcode_t *resolve_addr(kprobe_opcode_t *addr, const char *sym,
				     unsigned long offset, bool *on_entry)
{
	unsigned long base, where, size, off;
	char name[KSYM_NAME_LEN];
	char *modname;

	*on_entry = false;
	if (!addr == !sym)
		return ERR_PTR(-EINVAL);
	if (sym) {
		addr = kprobe_lookup_name(sym, offset);
		if (!addr)
			return ERR_PTR(-ENOENT);
	}
	base = (unsigned long)addr;
	/* An offset that wraps around the address space is no location. */
	if (check_add_overflow(base, offset, &where))
		return ERR_PTR(-EINVAL);
	/* No symbol covers it (a user address, a hole): -ENOENT. */
	if (!kallsyms_lookup(where, &size, &off, &modname, name))
		return ERR_PTR(-ENOENT);
	/* Nor is the padding or CFI preamble in front of a function. */
	if (str_has_prefix(name, "__pfx_") || str_has_prefix(name, "__cfi_"))
		return ERR_PTR(-EINVAL);
	return arch_adjust_kprobe_addr(where - off, off, on_entry);
}

/**
 * kprobe_on_func_entry() - does a probe location resolve to a function entry
 * @addr: address, or NULL with @sym
 * @sym: symbol name, or NULL with @addr
 * @offset: offset from @addr or @sym
 *
 * Return: 0 when it is a function's entry, -EINVAL when it is not, or the
 * errno of resolving the location.
 */
int kprobe_on_func_entry(kprobe_opcode_t *addr, const char *sym,
			 unsigned long offset)
{
	kprobe_opcode_t *where;
	bool on_entry;

	where = resolve_addr(addr, sym, offset, &on_entry);
	if (IS_ERR(where))
		return PTR_ERR(where);
	return on_entry ? 0 : -EINVAL;
}

/*
 * 1 when @addr is an ftrace site a probe goes through ftrace for, 0 when
 * it is no ftrace site, or an errno: -EINVAL (no kprobes on ftrace: the
 * site's call is ftrace's), -EBUSY (ftrace killed), -EILSEQ (inside the
 * site's call).
 */
static int kprobe_ftrace_site(unsigned long addr)
{
	if (!ftrace_text_reserved((void *)addr, (void *)addr))
		return 0;
	if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
		return -EINVAL;
	if (ftrace_location(addr) != addr)
		return -EILSEQ;
#ifdef CONFIG_KPROBES_ON_FTRACE
	if (kprobe_ftrace_killed())
		return -EBUSY;
#endif
	return 1;
}

#ifdef CONFIG_MODULES
/*
 * kprobe_text_module() - the module whose text holds @addr
 * @addr: an address
 *
 * __module_text_address(), for check_location() and recheck_module();
 * with preemption disabled.  A KUnit test stands in for it to change a
 * module's state while a registration waits for kprobe_mutex.
 *
 * Return: the module, or NULL.
 */
VISIBLE_IF_KUNIT struct module *kprobe_text_module(unsigned long addr)
{
	KUNIT_STATIC_STUB_REDIRECT(kprobe_text_module, addr);
	return __module_text_address(addr);
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_text_module);
#endif

/*
 * Is @addr somewhere a breakpoint may go?  On success with a module
 * address, *@modp holds a reference the caller drops after registering,
 * and *@corep is an address of the module's core text (see
 * recheck_module()).
 */
static int check_location(unsigned long addr, struct module **modp,
			  unsigned long *corep)
{
	struct module *mod __maybe_unused;
	int ret = 0;

	*modp = NULL;
	if (!core_kernel_text(addr) && !is_module_text_address(addr))
		return -EINVAL;
	if (within_kprobe_blacklist(addr))
		return -EINVAL;
	/*
	 * Text others patch: -EINVAL.  jump_label_lock() keeps
	 * static keys still while we look: x86's check decodes each jump
	 * label site's live instruction, and a key being switched leaves
	 * text_poke_bp()'s int3 on its sites (arch_jump_entry_size() BUGs on
	 * it).  Nothing here takes text_mutex, which nests inside.
	 */
	jump_label_lock();
	ret = jump_label_text_reserved((void *)addr, (void *)addr) ||
	      static_call_text_reserved((void *)addr, (void *)addr);
	jump_label_unlock();
	if (ret)
		return -EINVAL;
	/* An ftrace site is probed through ftrace, at its first byte. */
	ret = kprobe_ftrace_site(addr);
	if (ret < 0)
		return ret;
	ret = 0;

#ifdef CONFIG_MODULES
	preempt_disable();
	mod = kprobe_text_module(addr);
	if (mod) {
		if (mod->state == MODULE_STATE_GOING || !try_module_get(mod)) {
			ret = -ENOENT;
		} else if (within_module_init(addr, mod) &&
			   mod->state != MODULE_STATE_COMING) {
			module_put(mod);
			ret = -ENOENT;
		} else {
			*modp = mod;
			*corep = (unsigned long)mod->mem[MOD_TEXT].base;
		}
	}
	preempt_enable();
#endif
	return ret;
}

/*
 * kprobe_module_text_left() - is the module text check_location() found
 *	still there to be probed
 * @mod: the module check_location() found @addr in
 * @found: the module whose text holds @addr now (__module_text_address(),
 *	asked under kprobe_mutex), or NULL
 * @addr: the address to probe
 *
 * check_location() runs before kprobe_mutex: a module whose init fails
 * meanwhile goes GOING, its GOING notifier (kprobes_module_callback())
 * finds nothing of ours to kill, and free_module() frees its text
 * whatever reference we hold; a module that went LIVE meanwhile had its
 * init sites killed by the LIVE notifier and frees its init text soon.
 * A site registered after that would stay armed in freed text.  Both
 * notifiers run under kprobe_mutex after the state is set, so under
 * kprobe_mutex either they are still to come (and will find the site) or
 * this sees the state they were called for.  @mod itself may be freed
 * already: it is only compared, @found is what is read.
 *
 * Return: 0, or -ENOENT when the text is going or gone.
 */
VISIBLE_IF_KUNIT __maybe_unused int
kprobe_module_text_left(struct module *mod, struct module *found,
			unsigned long addr)
{
#ifdef CONFIG_MODULES
	if (!found || found != mod || found->state == MODULE_STATE_GOING)
		return -ENOENT;
	if (within_module_init(addr, found) &&
	    found->state != MODULE_STATE_COMING)
		return -ENOENT;
#endif
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_module_text_left);

/*
 * kprobe_module_text_left() for @addr in @mod (NULL: kernel text, whose
 * init text is dealt with by kprobe_free_init_mem() under kprobe_mutex).
 * When the text is gone, the reference check_location() took is dropped
 * if @mod is still there (found at @core, its core text): a module that
 * went LIVE meanwhile, whose init text was probed, must not be left
 * with a count no one drops.  One that is gone (a failed init frees its
 * memory, struct module included, whatever its count) is not touched.
 */
static int recheck_module(struct module *mod, unsigned long addr,
			  unsigned long core)
{
	int ret = 0;

	lockdep_assert_held(&kprobe_mutex);
	if (!mod)
		return 0;
#ifdef CONFIG_MODULES
	preempt_disable();
	ret = kprobe_module_text_left(mod, kprobe_text_module(addr), addr);
	if (ret && kprobe_text_module(core) == mod)
		module_put(mod);
	preempt_enable();
#endif
	return ret;
}

/* ---------------------------------------------------------------------
 * Registration
 */

static struct kprobe_site *site_of(struct kprobe *p)
{
	struct kprobe_site *site;
	struct kprobe *sp, *q;

	lockdep_assert_held(&kprobe_mutex);
	sp = get_kprobe(p->addr);
	if (sp) {
		site = to_site(sp);
		list_for_each_entry(q, &site->probes, list)
			if (q == p)
				return site;
	}
	list_for_each_entry(site, &gone_sites, node)
		list_for_each_entry(q, &site->probes, list)
			if (q == p)
				return site;
	return NULL;
}

static struct kprobe_site *site_create(struct kprobe *p)
{
	struct kprobe_site *site;
	int ret;

	site = kzalloc(sizeof(*site), GFP_KERNEL);
	if (!site)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&site->probes);
	INIT_LIST_HEAD(&site->node);
	INIT_HLIST_NODE(&site->kp.hlist);
	INIT_LIST_HEAD(&site->kp.list);
	site->kp.addr = p->addr;
	site->kp.pre_handler = site_pre_handler;
	site->kp.fault_handler = site_fault_handler;
	site->kp.flags = p->flags & (KPROBE_FLAG_ON_FUNC_ENTRY |
				     KPROBE_FLAG_DISABLED);

	if (kprobe_ftrace_site((unsigned long)p->addr) > 0) {
		site->kp.flags |= KPROBE_FLAG_FTRACE;
		ret = kprobe_ftrace_prepare(&site->kp);
	} else {
		ret = kprobe_arch_prepare(&site->kp);
	}
	if (ret) {
		kfree(site);
		return ERR_PTR(ret);
	}
	return site;
}

static bool site_has_jprobe(struct kprobe_site *site)
{
	struct kprobe *q;

	list_for_each_entry(q, &site->probes, list)
		if (q->flags & KPROBE_FLAG_JPROBE)
			return true;
	return false;
}

static int __register_kprobe(struct kprobe *p)
{
	struct kprobe_site *site;
	struct kprobe *sp;
	int ret;

	sp = get_kprobe(p->addr);
	/* Still hashed GONE: the module is going (check_location() raced). */
	if (sp && kprobe_gone(sp))
		return -ENOENT;
	if (sp) {
		site = to_site(sp);
		if ((p->flags & KPROBE_FLAG_JPROBE) && site_has_jprobe(site))
			return -EBUSY;
	} else {
		site = site_create(p);
		if (IS_ERR(site))
			return PTR_ERR(site);
		hlist_add_head_rcu(&site->kp.hlist, kprobe_bucket(p->addr));
	}
	/* How the address is probed shows on each probe, as on the site. */
	p->flags |= site->kp.flags & KPROBE_FLAG_FTRACE;
	list_add_tail_rcu(&p->list, &site->probes);
	ret = site_update(site);
	if (!ret)
		return 0;
	/* Arming failed (ftrace): as if @p had never come. */
	p->flags &= ~KPROBE_FLAG_FTRACE;
	list_del_rcu(&p->list);
	if (sp) {
		site_update(site);
		synchronize_rcu();
		return ret;
	}
	hlist_del_rcu(&site->kp.hlist);
	synchronize_rcu();
	kprobe_opt_release(&site->kp);
	arch_remove_kprobe(&site->kp);
	kfree(site);
	return ret;
}

/*
 * The probe that kprobe_register_as() registers right now: only it may
 * come with a type flag.  Callers set KPROBE_FLAG_DISABLED at most: the
 * other flags are the core's (a type flag picks the hit path, a plain
 * kprobe with KPROBE_FLAG_JPROBE would be run as a jprobe).
 */
static DEFINE_MUTEX(kprobe_typed_mutex);
static struct kprobe *kprobe_typed;

static int check_caller_flags(const struct kprobe *p)
{
	u32 allowed = KPROBE_FLAG_DISABLED;

	if (p == READ_ONCE(kprobe_typed))
		allowed |= KPROBE_FLAG_TYPE_MASK;
	return p->flags & ~allowed ? -EINVAL : 0;
}

/**
 * kprobe_registered() - is a probe registered (gone or not)
 * @p: the probe; none of its fields but @p->addr is trusted
 *
 * Return: true when @p is registered.
 */
bool kprobe_registered(struct kprobe *p)
{
	guard(mutex)(&kprobe_mutex);
	return site_of(p);
}

/*
 * Registering and unregistering may sleep (kprobe_mutex), and RCU-tasks
 * counts a voluntary sleep as a quiescent state, so nothing that waits for
 * RCU-tasks may count on a caller here being a holdout: report a quiescent
 * state at each call, slept or not.  A caller that registers thousands of
 * probes in one system call (a tracefs or debugfs write) never sleeps
 * while kprobe_mutex is free; the jump optimizer waits for RCU-tasks
 * without kprobe_mutex, so registration goes on meanwhile, and its grace
 * period (the slot reapers' too) would otherwise last until that call
 * returns to user space: minutes on a slow kernel.
 */
static void kprobe_tasks_qs(void)
{
	cond_resched_tasks_rcu_qs();
}

/* Registration proper, kprobe_mutex held: @p is not registered. */
static int register_at(struct kprobe *p, kprobe_opcode_t *addr, bool on_entry)
{
	int ret;

	prune_gone_sites();
	p->addr = addr;
	p->flags &= KPROBE_FLAG_DISABLED | KPROBE_FLAG_TYPE_MASK;
	if (on_entry)
		p->flags |= KPROBE_FLAG_ON_FUNC_ENTRY;
	p->nmissed = 0;
	INIT_HLIST_NODE(&p->hlist);
	ret = __register_kprobe(p);
	if (ret) {
		INIT_LIST_HEAD(&p->list);
		/* What registration set does not stay on a failed probe. */
		p->flags &= KPROBE_FLAG_DISABLED | KPROBE_FLAG_TYPE_MASK;
	}
	return ret;
}

/**
 * register_kprobe() - put a probe on a kernel instruction
 * @p: the probe: @addr, or @symbol_name (+ @offset); handlers; flags
 *
 * Set KPROBE_FLAG_DISABLED in @p->flags to register without arming.
 *
 * The address that @p->symbol_name (or @p->addr) plus @p->offset names
 * may be in another function than the symbol's: it is judged on its own.
 *
 * Return: 0, or -EINVAL (bad location, both or neither of @p->addr and
 * @p->symbol_name, @p->offset wrapping around, blacklisted, not text, a jump
 * label, static call or alternatives site, an ftrace site without
 * CONFIG_KPROBES_ON_FTRACE, already registered, instruction cannot be
 * probed), -ENOENT (unknown symbol, no symbol at the address, module going
 * away), -EILSEQ (not an instruction boundary), -EBUSY (x86: another
 * debugger's breakpoint before the address in its function; a second
 * jprobe on a function), -ENOMEM, -EAGAIN (too early in boot).
 * Documentation/trace/kprobes.rst has the table.
 */
int register_kprobe(struct kprobe *p)
{
	kprobe_opcode_t *addr;
	unsigned long core = 0;
	struct module *mod;
	bool on_entry;
	int ret;

	if (!p)
		return -EINVAL;
	kprobe_tasks_qs();
	ret = check_caller_flags(p);
	if (ret)
		return ret;
	if (!READ_ONCE(kprobes_ready))
		return -EAGAIN;
	addr = resolve_addr(p->addr, p->symbol_name, p->offset, &on_entry);
	if (IS_ERR(addr))
		return PTR_ERR(addr);

	ret = check_location((unsigned long)addr, &mod, &core);
	if (ret)
		return ret;

	scoped_guard(mutex, &kprobe_mutex) {
		ret = recheck_module(mod, (unsigned long)addr, core);
		if (ret)
			/* its reference is dealt with (recheck_module()) */
			return ret;
		ret = site_of(p) ? -EINVAL : register_at(p, addr, on_entry);
	}
	/* Registered, the probe needs no reference: GONE covers unloading. */
	module_put(mod);
	return ret;
}
EXPORT_SYMBOL_GPL(register_kprobe);

/**
 * kprobe_register_as() - register the entry probe of another probe kind
 * @p: the probe, with no flag but KPROBE_FLAG_DISABLED
 * @type: KPROBE_FLAG_RETPROBE or KPROBE_FLAG_JPROBE
 *
 * For kernel/kretprobes.c and kernel/jprobes.c: like register_kprobe(),
 * with @type set on @p while it is registered.
 *
 * Return: 0, -EINVAL for other flags in @p->flags or a bad @type, or an
 * error of register_kprobe().
 */
int kprobe_register_as(struct kprobe *p, u32 type)
{
	int ret;

	if (!p || (p->flags & ~KPROBE_FLAG_DISABLED) ||
	    hweight32(type) != 1 || (type & ~KPROBE_FLAG_TYPE_MASK))
		return -EINVAL;
	guard(mutex)(&kprobe_typed_mutex);
	p->flags |= type;
	WRITE_ONCE(kprobe_typed, p);
	ret = register_kprobe(p);
	WRITE_ONCE(kprobe_typed, NULL);
	if (ret)
		p->flags &= ~type;
	return ret;
}

/**
 * kprobe_unregister_begin() - first half of unregistering a probe
 * @p: a registered probe (others are ignored)
 *
 * Disarms and unlinks @p without waiting: handlers may still be running on
 * other CPUs until an RCU grace period has passed.  Then call
 * kprobe_unregister_end().
 */
void kprobe_unregister_begin(struct kprobe *p)
{
	struct kprobe_site *site;

	kprobe_tasks_qs();
	mutex_lock(&kprobe_mutex);
	site = site_of(p);
	if (!site)
		goto out;
	list_del_rcu(&p->list);
	if (!list_empty(&site->probes)) {
		site_update(site);
		goto out;
	}
	WRITE_ONCE(site->kp.single, NULL);
	if (site->armed)
		site_write(site, false);
	if (kprobe_gone(&site->kp))
		list_del(&site->node);	/* gone_hashed or gone_sites */
	if (!hlist_unhashed(&site->kp.hlist))
		hlist_del_rcu(&site->kp.hlist);
	kprobe_opt_retire(&site->kp);
	site->owner = p;
	/*
	 * At the tail: the ends of a batch, called in the order of their
	 * begins, then each find theirs at the head.
	 */
	list_add_tail(&site->node, &retired_sites);
out:
	mutex_unlock(&kprobe_mutex);
}

/**
 * kprobe_unregister_end() - second half of unregistering a probe
 * @p: a probe passed to kprobe_unregister_begin()
 *
 * Call after synchronize_rcu() following kprobe_unregister_begin(): frees
 * what the probe's site held and leaves @p ready to register again.
 */
void kprobe_unregister_end(struct kprobe *p)
{
	struct kprobe_site *site, *tmp;

	kprobe_tasks_qs();
	mutex_lock(&kprobe_mutex);
	list_for_each_entry_safe(site, tmp, &retired_sites, node) {
		if (site->owner != p)
			continue;
		list_del(&site->node);
		kprobe_opt_release(&site->kp);
		arch_remove_kprobe(&site->kp);
		kfree(site);
		break;
	}
	INIT_LIST_HEAD(&p->list);
	INIT_HLIST_NODE(&p->hlist);
	/* Flags of the core and types go: @p may be registered again. */
	p->flags &= KPROBE_FLAG_DISABLED;
	mutex_unlock(&kprobe_mutex);
}

/**
 * register_kprobes() - register an array of probes
 * @kps: the probes
 * @num: how many
 *
 * Return: 0, or the first error; probes registered before the failing one
 * are unregistered again.
 */
int register_kprobes(struct kprobe **kps, int num)
{
	bool batch;
	int i, ret = 0;

	if (!kps || num <= 0)
		return -EINVAL;
	/* Sites on ftrace are armed by one filter update at the end. */
	scoped_guard(mutex, &kprobe_mutex)
		batch = kprobe_ftrace_batch_begin();
	for (i = 0; i < num && !ret; i++)
		ret = register_kprobe(kps[i]);
	if (ret)
		i--;
	if (batch) {
		int err;

		scoped_guard(mutex, &kprobe_mutex)
			err = kprobe_ftrace_batch_end();
		if (!ret && err) {
			ret = err;
			i = num;
		}
	}
	if (ret)
		unregister_kprobes(kps, i);
	return ret;
}
EXPORT_SYMBOL_GPL(register_kprobes);

/*
 * The optimized sites that @kps leave without a probe go back to
 * breakpoints in one text update, before kprobe_unregister_begin()
 * disarms them one by one; otherwise each would be unoptimized on its
 * own first.  On arm64 the one update (one stop_machine()) writes their
 * original instructions instead: they are disarmed, and
 * kprobe_unregister_begin() has nothing left to write.  Where memory is
 * short they go one by one, as without a batch.
 */
static void unoptimize_leaving(struct kprobe **kps, int num)
{
	struct kprobe_site *site;
	struct kprobe **sites;
	int i, n = 0;

	lockdep_assert_held(&kprobe_mutex);
	if (!IS_ENABLED(CONFIG_OPTPROBES) || num < 2)
		return;
	sites = kmalloc_array(num, sizeof(*sites), GFP_KERNEL);
	if (!sites)
		return;
	for (i = 0; i < num; i++) {
		site = kps[i] ? site_of(kps[i]) : NULL;
		if (site && kprobe_optimized(&site->kp) &&
		    list_is_singular(&site->probes))
			sites[n++] = &site->kp;
	}
	n = kprobe_opt_unoptimize(sites, n);
	for (i = 0; i < n; i++)
		to_site(sites[i])->armed = false;
	kfree(sites);
}

/**
 * kprobe_unregister_begin_many() - kprobe_unregister_begin() for a batch
 * @kps: the probes; NULL entries are skipped
 * @num: how many
 *
 * Sites on ftrace are disarmed by one filter update, optimized ones go
 * back to breakpoints by one text update, where one by one each would
 * take its own.
 */
void kprobe_unregister_begin_many(struct kprobe **kps, int num)
{
	bool batch;
	int i;

	scoped_guard(mutex, &kprobe_mutex) {
		batch = kprobe_ftrace_batch_begin();
		unoptimize_leaving(kps, num);
	}
	for (i = 0; i < num; i++)
		if (kps[i])
			kprobe_unregister_begin(kps[i]);
	if (batch) {
		scoped_guard(mutex, &kprobe_mutex)
			kprobe_ftrace_batch_end();
	}
}

#ifdef CONFIG_KRETPROBES
/*
 * kprobe_unregister_begin_many() of the entry probes of @rps (NULL
 * entries skipped; unregistered ones are ignored, as by
 * kprobe_unregister_begin()).  Without memory for the array, one by one.
 */
void kretprobe_unregister_begin_many(struct kretprobe **rps, int num)
{
	struct kprobe **kps;
	int i, n = 0;

	kps = num > 1 ? kmalloc_array(num, sizeof(*kps), GFP_KERNEL) : NULL;
	for (i = 0; i < num; i++) {
		if (!rps[i])
			continue;
		if (kps)
			kps[n++] = &rps[i]->kp;
		else
			kprobe_unregister_begin(&rps[i]->kp);
	}
	if (kps)
		kprobe_unregister_begin_many(kps, n);
	kfree(kps);
}
#endif

/**
 * unregister_kprobes() - unregister an array of probes
 * @kps: the probes
 * @num: how many
 *
 * Waits for one RCU grace period for the whole batch.  When it returns no
 * handler of these probes is running anywhere.
 */
void unregister_kprobes(struct kprobe **kps, int num)
{
	int i;

	if (!kps || num <= 0)
		return;
	kprobe_unregister_begin_many(kps, num);
	synchronize_rcu();
	for (i = 0; i < num; i++)
		kprobe_unregister_end(kps[i]);
}
EXPORT_SYMBOL_GPL(unregister_kprobes);

/**
 * unregister_kprobe() - remove a probe
 * @p: the probe
 *
 * When it returns no handler of @p is running; @p may be registered again.
 */
void unregister_kprobe(struct kprobe *p)
{
	unregister_kprobes(&p, 1);
}
EXPORT_SYMBOL_GPL(unregister_kprobe);

/**
 * disable_kprobe() - stop a probe's handlers without unregistering it
 * @kp: a registered probe
 *
 * Return: 0, or -EINVAL when @kp is not registered.
 */
int disable_kprobe(struct kprobe *kp)
{
	struct kprobe_site *site;
	int ret = 0;

	mutex_lock(&kprobe_mutex);
	site = site_of(kp);
	if (!site) {
		ret = -EINVAL;
		goto out;
	}
	kp->flags |= KPROBE_FLAG_DISABLED;
	site_update(site);
out:
	mutex_unlock(&kprobe_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(disable_kprobe);

/**
 * enable_kprobe() - re-enable a disabled probe
 * @kp: a registered probe
 *
 * Return: 0, or -EINVAL when @kp is not registered or its code is gone.
 */
int enable_kprobe(struct kprobe *kp)
{
	struct kprobe_site *site;
	int ret = 0;

	mutex_lock(&kprobe_mutex);
	site = site_of(kp);
	if (!site || kprobe_gone(kp)) {
		ret = -EINVAL;
		goto out;
	}
	kp->flags &= ~KPROBE_FLAG_DISABLED;
	ret = site_update(site);
	if (ret) {
		kp->flags |= KPROBE_FLAG_DISABLED;
		site_update(site);
	}
out:
	mutex_unlock(&kprobe_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(enable_kprobe);

/* ---------------------------------------------------------------------
 * Code going away
 */

/* The code of @site is freed: keep the probes registered but GONE. */
static void site_kill(struct kprobe_site *site)
{
	struct kprobe *p;

	site->kp.flags |= KPROBE_FLAG_GONE;
	WRITE_ONCE(site->kp.single, NULL);
	list_for_each_entry(p, &site->probes, list)
		p->flags |= KPROBE_FLAG_GONE;
	/* The text is being freed: nothing to restore, nobody runs it. */
	if (site->armed && kprobe_ftrace(&site->kp))
		site_write(site, false);	/* leave ftrace's filter */
	site->armed = false;
	kprobe_opt_gone(&site->kp);
	/*
	 * The breakpoint stays in the text, which may still be mapped and
	 * run (a module whose init failed is GOING until free_module()):
	 * the site stays hashed, so that the trap handler still knows it
	 * and just runs the instruction, until prune_gone_sites() sees the
	 * text freed.
	 */
	list_add(&site->node, &gone_hashed);
}

/*
 * Unhash the GONE sites whose text is freed: no longer text of a GOING
 * module (kernel init text, module init text after LIVE, a module freed
 * after GOING).  That memory may hold new text: neither its hits nor the
 * decoding of a new probe there may meet the old site.  Runs before each
 * registration and on each module event, before anything can be
 * registered in new text.
 */
static void prune_gone_sites(void)
{
	struct kprobe_site *site, *tmp;
	bool keep;

	lockdep_assert_held(&kprobe_mutex);
	list_for_each_entry_safe(site, tmp, &gone_hashed, node) {
		keep = false;
#ifdef CONFIG_MODULES
		{
			struct module *mod;

			preempt_disable();
			mod = __module_text_address((unsigned long)site->kp.addr);
			keep = mod && mod->state == MODULE_STATE_GOING;
			preempt_enable();
		}
#endif
		if (keep)
			continue;
		hlist_del_init_rcu(&site->kp.hlist);
		list_move(&site->node, &gone_sites);
	}
}

static void kill_sites_in(bool (*dying)(unsigned long addr, void *data),
			  void *data)
{
	struct hlist_node *tmp;
	struct kprobe *p;
	int i;

	for (i = 0; i < ARRAY_SIZE(kprobe_table); i++)
		hlist_for_each_entry_safe(p, tmp, &kprobe_table[i], hlist)
			if (!kprobe_gone(p) && dying((unsigned long)p->addr, data))
				site_kill(to_site(p));
}

static bool in_kernel_init(unsigned long addr, void *data)
{
	return is_kernel_inittext(addr);
}

/**
 * kprobe_free_init_mem() - drop the probes in init text before it is freed
 */
void kprobe_free_init_mem(void)
{
	mutex_lock(&kprobe_mutex);
	kill_sites_in(in_kernel_init, NULL);
	mutex_unlock(&kprobe_mutex);
}

#ifdef CONFIG_MODULES
static bool in_module_init(unsigned long addr, void *data)
{
	return within_module_init(addr, data);
}

static bool in_module(unsigned long addr, void *data)
{
	return within_module(addr, data);
}

static int kprobes_module_callback(struct notifier_block *nb,
				   unsigned long val, void *data)
{
	struct module *mod = data;

	mutex_lock(&kprobe_mutex);
	prune_gone_sites();
	switch (val) {
	case MODULE_STATE_COMING:
		blacklist_module_add(mod);
		break;
	case MODULE_STATE_LIVE:
		kill_sites_in(in_module_init, mod);
		break;
	case MODULE_STATE_GOING:
		kill_sites_in(in_module, mod);
		blacklist_module_del(mod);
		break;
	}
	mutex_unlock(&kprobe_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block kprobes_module_nb = {
	.notifier_call = kprobes_module_callback,
	.priority = 0,
};
#endif /* CONFIG_MODULES */

#ifndef CONFIG_KPROBES_ON_FTRACE
/**
 * kprobe_ftrace_kill() - ftrace hit a fatal error: stop using it
 *
 * Without kprobes on ftrace no probe uses ftrace: nothing to stop.
 */
void kprobe_ftrace_kill(void)
{
}
#endif

/**
 * arch_init_kprobes() - arch setup at boot
 *
 * Return: 0 or an errno.
 */
int __weak arch_init_kprobes(void)
{
	return 0;
}

/* ---------------------------------------------------------------------
 * Global arm/disarm and debugfs
 */

/*
 * Arm (disarm) every site whose probes want it.  Arming again while armed
 * retries the sites that failed before.  Sites that cannot be armed stay
 * disarmed (kprobes/list shows their probes [DISABLED]).
 *
 * Return: 0, or the first error of arming a site.
 */
static int __maybe_unused arm_all(bool arm)
{
	unsigned int failed = 0;
	struct kprobe *p;
	bool batch, changed;
	int i, err, ret = 0;

	mutex_lock(&kprobe_mutex);
	changed = kprobes_all_disarmed == arm;
	kprobes_all_disarmed = !arm;
	batch = kprobe_ftrace_batch_begin();
	for (i = 0; i < ARRAY_SIZE(kprobe_table); i++) {
		hlist_for_each_entry(p, &kprobe_table[i], hlist) {
			if (kprobe_gone(p))
				continue;
			err = site_update(to_site(p));
			if (err) {
				failed++;
				ret = ret ?: err;
			}
		}
	}
	/* Sites on ftrace are armed in one update: its error is theirs. */
	if (batch) {
		err = kprobe_ftrace_batch_end();
		ret = ret ?: err;
	}
	if (failed)
		pr_warn("%u probe sites could not be armed (%d)\n", failed, ret);
	else if (ret)
		pr_warn("some probes on ftrace could not be armed (%d)\n", ret);
	if (changed)
		pr_info("kprobes globally %s\n", arm ? "enabled" : "disabled");
	mutex_unlock(&kprobe_mutex);
	return ret;
}

static int __init init_kprobes(void)
{
	int ret;

	/* before any registration: nothing is queued until then */
	kprobes_wq = alloc_workqueue("kprobes", WQ_UNBOUND, 0);
	if (!kprobes_wq) {
		pr_err("disabled: no workqueue\n");
		return -ENOMEM;
	}
	slot_cache_size(&insn_slots, KPROBE_INSN_SLOT_SIZE);
#ifdef CONFIG_OPTPROBES
	slot_cache_size(&optinsn_slots, KPROBE_OPTINSN_SLOT_SIZE);
#endif
	mutex_lock(&kprobe_mutex);
	ret = populate_blacklist();
	mutex_unlock(&kprobe_mutex);
	if (ret)
		pr_err("cannot build the blacklist (%d)\n", ret);
	/*
	 * The arch code of KPROBES_COMPAT registers probes of its own (on
	 * its kretprobe trampoline) from arch_init_kprobes().
	 */
	if (IS_ENABLED(CONFIG_KPROBES_COMPAT))
		WRITE_ONCE(kprobes_ready, true);
	ret = arch_init_kprobes();
#ifdef CONFIG_MODULES
	if (!ret)
		ret = register_module_notifier(&kprobes_module_nb);
#endif
	if (ret) {
		WRITE_ONCE(kprobes_ready, false);
		pr_err("disabled (%d)\n", ret);
		return ret;
	}
	WRITE_ONCE(kprobes_ready, true);
	return 0;
}
early_initcall(init_kprobes);

#ifdef CONFIG_DEBUG_FS

struct list_pos {
	int bucket;		/* kprobe_table index, or -1 for gone_sites */
};

static char probe_type(const struct kprobe *p)
{
	if (p->flags & KPROBE_FLAG_RETPROBE)
		return 'r';
	if (p->flags & KPROBE_FLAG_JPROBE)
		return 'j';
	return 'k';
}

/*
 * One line per probe, as tools parse it:
 *	ADDR  TYPE  SYMBOL+OFFSET  MODULE [FLAGS]
 * ADDR in 16 hex digits (zeros for readers who may not see addresses),
 * TYPE k, r or j, MODULE the module's name or a blank for the kernel's
 * own text, FLAGS [GONE], [DISABLED], [OPTIMIZED] and [FTRACE] with no
 * space between them.  An address with no symbol any more (freed text)
 * shows as 0xADDR in place of SYMBOL+OFFSET and MODULE.
 */
static void show_probe(struct seq_file *m, struct kprobe_site *site,
		       struct kprobe *p)
{
	char namebuf[KSYM_NAME_LEN];
	unsigned long size, offset;
	const char *sym;
	char *modname;
	void *addr;
	bool off;

	addr = kallsyms_show_value(m->file->f_cred) ? p->addr : NULL;
	sym = kallsyms_lookup((unsigned long)p->addr, &size, &offset,
			      &modname, namebuf);
	seq_printf(m, "%016lx  %c  ", (unsigned long)addr, probe_type(p));
	if (sym)
		seq_printf(m, "%s+0x%lx  %s ", sym, offset, modname ?: " ");
	else
		seq_printf(m, "0x%lx ", (unsigned long)addr);
	/* Not armed although it should be: its arming failed. */
	off = (kprobe_disabled(p) && !kprobe_gone(p)) ||
	      (!kprobe_gone(p) && !site->armed && !kprobes_all_disarmed);
	seq_printf(m, "%s%s%s%s\n",
		   kprobe_gone(p) ? "[GONE]" : "",
		   off ? "[DISABLED]" : "",
		   kprobe_opt_committed(&site->kp) ? "[OPTIMIZED]" : "",
		   kprobe_ftrace(&site->kp) ? "[FTRACE]" : "");
}

static int list_show(struct seq_file *m, void *v)
{
	struct kprobe_site *site;
	struct kprobe *sp, *p;
	int i;

	mutex_lock(&kprobe_mutex);
	for (i = 0; i < ARRAY_SIZE(kprobe_table); i++) {
		hlist_for_each_entry(sp, &kprobe_table[i], hlist) {
			site = to_site(sp);
			list_for_each_entry(p, &site->probes, list)
				show_probe(m, site, p);
		}
	}
	list_for_each_entry(site, &gone_sites, node)
		list_for_each_entry(p, &site->probes, list)
			show_probe(m, site, p);
	mutex_unlock(&kprobe_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(list);

/*
 * One line per blacklisted function, "0xSTART-0xEND\tSYMBOL" (and
 * " [MODULE]" for a module's): an area (entry text, .kprobes.text...)
 * shows as the functions in it, as kallsyms sizes them.
 */
static void blacklist_show_range(struct seq_file *m, unsigned long start,
				 unsigned long end, bool show)
{
	unsigned long addr = start, size, off, fend;

	while (addr < end) {
		if (!kallsyms_lookup_size_offset(addr, &size, &off) || !size) {
			/* No symbol here: the rest of the area as one. */
			seq_printf(m, "0x%016lx-0x%016lx\t%ps\n",
				   show ? addr : 0, show ? end : 0,
				   (void *)addr);
			return;
		}
		fend = min(addr - off + size, end);
		seq_printf(m, "0x%016lx-0x%016lx\t%ps\n",
			   show ? addr - off : 0, show ? fend : 0,
			   (void *)addr);
		addr = fend;
	}
}

static int blacklist_show(struct seq_file *m, void *v)
{
	struct kprobe_bl_entry *ent;
	bool show = kallsyms_show_value(m->file->f_cred);

	mutex_lock(&kprobe_mutex);
	list_for_each_entry(ent, &kprobe_blacklist, list)
		blacklist_show_range(m, ent->start, ent->end, show);
	mutex_unlock(&kprobe_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(blacklist);

static ssize_t enabled_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	const char *val = READ_ONCE(kprobes_all_disarmed) ? "0\n" : "1\n";

	return simple_read_from_buffer(ubuf, count, ppos, val, 2);
}

static ssize_t enabled_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	bool on;
	int ret = kstrtobool_from_user(ubuf, count, &on);

	if (!ret)
		ret = arm_all(on);
	return ret ?: count;
}

static const struct file_operations enabled_fops = {
	.read = enabled_read,
	.write = enabled_write,
	.llseek = default_llseek,
};

/* Only root reads the lists or arms and disarms everything. */
static const struct {
	const char *name;
	umode_t mode;
	const struct file_operations *fops;
} kprobes_debugfs_files[] = {
	{ "list",	0400, &list_fops },
	{ "enabled",	0600, &enabled_fops },
	{ "blacklist",	0400, &blacklist_fops },
};

static int __init kprobes_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("kprobes", NULL);
	int i;

	for (i = 0; i < ARRAY_SIZE(kprobes_debugfs_files); i++)
		debugfs_create_file(kprobes_debugfs_files[i].name,
				    kprobes_debugfs_files[i].mode, dir, NULL,
				    kprobes_debugfs_files[i].fops);
	return 0;
}
late_initcall(kprobes_debugfs_init);

#endif /* CONFIG_DEBUG_FS */
