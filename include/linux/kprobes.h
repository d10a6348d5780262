/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel dynamic probes.
 *
 * A kprobe puts a breakpoint on (almost) any kernel instruction.  When the
 * breakpoint is hit, the probe's pre_handler runs, then the original
 * instruction is executed (out of line or emulated), then the
 * post_handler runs, and execution continues after the instruction.
 *
 * Contents:
 *   1. struct kprobe, its flags and handler types      (public)
 *   2. the public API                                  (public)
 *   3. the architecture interface                      (arch code only)
 *   4. the interface for other probe kinds             (kretprobes, jprobes)
 *
 * Locking summary: registration, unregistration, enable/disable and the
 * arch hooks that change text run under kprobe_mutex (a sleeping lock);
 * the hit path takes no lock at all: probes are found in an RCU hash
 * table from the breakpoint trap, with preemption (and, on the trap,
 * interrupts) disabled, and each CPU keeps its own state in per-CPU
 * variables.
 *
 * Copyright (C) IBM Corporation, 2002, 2004
 *
 * 2002-Oct	Created by Vamsi Krishna S <vamsi_krishna@in.ibm.com> Kernel
 *		Probes initial implementation ( includes suggestions from
 *		Rusty Russell).
 * 2004-July	Suparna Bhattacharya <suparna@in.ibm.com> added jumper probes
 *		interface to access function arguments.
 * 2005-May	Hien Nguyen <hien@us.ibm.com> and Jim Keniston
 *		<jkenisto@us.ibm.com>  and Prasanna S Panchamukhi
 *		<prasanna@in.ibm.com> added function-return probes.
 * 2026-Nov	Rewritten: the interface of the rebuilt core, with
 *		the handler context contract.
 */
#ifndef _LINUX_KPROBES_H
#define _LINUX_KPROBES_H

#include <linux/compiler.h>
#include <linux/linkage.h>
#include <linux/list.h>
#include <linux/rculist.h>
#include <linux/hash.h>
#include <linux/notifier.h>
#include <linux/smp.h>
#include <linux/bug.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/rcupdate.h>
#include <linux/mutex.h>
#include <linux/ftrace.h>
#include <linux/objpool.h>
#include <linux/rethook.h>
#include <asm/kprobes.h>

#ifndef CONFIG_KPROBES
typedef u32 kprobe_opcode_t;
struct arch_specific_insn {
	int dummy;
};
#endif

struct kprobe;
struct pt_regs;

/* ---------------------------------------------------------------------
 * 1. struct kprobe
 */

/**
 * typedef kprobe_pre_handler_t - called before the probed instruction
 * @p: the probe
 * @regs: the registers at the probed instruction
 *
 * The handler sees instruction_pointer(regs) == the probed address (on
 * x86 the probed address + 1, as after its int3, whatever the path).
 * Return 0 to run the probed instruction (and the post_handler).  Any
 * other value says the handler has set regs->ip (instruction_pointer) to
 * where execution must continue: the probed instruction and the
 * post_handler are skipped.  This holds whatever the probe is armed as:
 * a jump-optimized probe returns to the new ip (with the registers the
 * handler left in @regs), an ftrace-based one too.
 */
typedef int (*kprobe_pre_handler_t)(struct kprobe *p, struct pt_regs *regs);

/**
 * typedef kprobe_post_handler_t - called after the probed instruction
 * @p: the probe
 * @regs: the registers after the instruction (ip at the next one)
 * @flags: unused and 0 (kept for compatibility)
 */
typedef void (*kprobe_post_handler_t)(struct kprobe *p, struct pt_regs *regs,
				      unsigned long flags);

/**
 * typedef kprobe_fault_handler_t - a fault hit while the probe was active
 * @p: the probe
 * @regs: the registers at the fault
 * @trapnr: the arch trap number
 *
 * Called when a fault (x86: page fault, general protection, the other
 * traps; arm64: page faults) hits inside the pre_handler, the
 * post_handler, or the out-of-line copy of the probed instruction.
 * Return 1 when the handler has dealt with the fault (and fixed regs); 0
 * lets the kernel handle it as usual (x86: for a fault in the copied
 * instruction, at the probed instruction's own address).
 */
typedef int (*kprobe_fault_handler_t)(struct kprobe *p, struct pt_regs *regs,
				      int trapnr);

/**
 * DOC: Handler context
 *
 * A handler here is a kprobe's pre_handler, post_handler or
 * fault_handler, or a kretprobe's entry_handler or handler.  On x86 and
 * arm64 it runs in one context whichever path the hit took: the
 * breakpoint trap (the instruction emulated, boosted or stepped out of
 * line), the post copy, an optimized probe's detour, the ftrace callback
 * of a probe on ftrace, the kretprobe trampoline.  Two things are not
 * part of that context:
 *
 * - in_nmi(), in_hardirq(), in_atomic() and preempt_count() differ from
 *   path to path: on x86 the breakpoint trap runs its handlers in NMI
 *   context and the other paths do not, and preempt_count() may be 0 in
 *   a handler.  Test irqs_disabled() or preemptible() instead.
 * - A jprobe's entry is not a handler in this sense: it is an ordinary
 *   function with the probed function's prototype, run in the probed
 *   function's place with its arguments, stack and interrupt state; it
 *   has no pt_regs, kprobe_running() is NULL there, and only preemption
 *   is disabled.  RCU watches it, also where the probed code runs
 *   without (the entry trap keeps RCU watching until the trap of
 *   jprobe_return()).  The other handlers of its site get the context
 *   below.
 *
 * A handler may rely on:
 *
 * - Interrupts disabled, so the handler is not preemptible; it must not
 *   sleep.  x86: the paths that take no exception mask interrupts with
 *   cli natively and with the paravirt irq ops (the event channel mask,
 *   which irqs_disabled() reads) in a Xen PV guest, where cli does not
 *   mask them: this holds there too.
 * - RCU watching (rcu_is_watching()): RCU readers in a handler are safe,
 *   and the grace period of an unregistration waits for every handler in
 *   flight.  Where the probed code runs without RCU watching (between
 *   ct_idle_enter() and ct_idle_exit()) the hit makes RCU watch for its
 *   handlers, as an NMI entry does; only the ftrace path runs no handler
 *   for such a hit instead.
 * - kprobe_running() is the probe whose handler runs (a kretprobe's own
 *   kp in its handlers), and the status in kprobe_ctlblk says where the
 *   hit stands: KPROBE_HIT_ACTIVE in a pre_handler, entry_handler or
 *   return handler, KPROBE_HIT_SSDONE in a post_handler.  A probe hit
 *   while a handler runs calls none of its own handlers: it counts in
 *   its nmissed.
 * - No plain user access: x86 has EFLAGS.AC clear (SMAP armed), arm64
 *   PSTATE.PAN set (TTBR0 switched away on CPUs without PAN), even when
 *   the probed code was inside a user access window.  The nofault
 *   accessors work, and fail with -EFAULT rather than sleep for a page
 *   that is not there.
 * - x86: EFLAGS.DF clear, so string instructions, memcpy() and memset()
 *   work forwards even when the probed code runs with DF set.  arm64:
 *   PSTATE.DAIF all masked.
 * - pt_regs: the probed code's registers and flags, laid out as the
 *   exception entry of the breakpoint lays them: as they stand at the
 *   probed instruction in a pre_handler or entry_handler, after it in a
 *   post_handler, at the return in a kretprobe's handler.  The
 *   instruction pointer is the probed address in a pre_handler (x86: the
 *   address + 1, as after its int3), where the probed instruction
 *   continues in a post_handler, and the real return address in a
 *   kretprobe's handler.  A fault_handler gets the pt_regs of the fault.
 *
 * A fault in a handler, or in the probed instruction's copy, goes to the
 * running probe's fault_handler (with kprobe_running() that probe); a
 * fault of an exception nested in a handler (an NMI, a watchpoint) is
 * never given to it.  What differs from path to path, and the order of
 * the fault_handler and the exception tables per trap, is in the tables
 * of Documentation/trace/kprobes.rst.
 *
 * The architectures of the compat layer (CONFIG_KPROBES_COMPAT) run
 * their own trap, ftrace and optprobes code, which gives their handlers
 * the context that code gives.
 */

/**
 * struct kprobe - a probe on one kernel instruction
 * @hlist: internal: link in the address hash (unhashed when unregistered)
 * @list: internal: link in the probe's site (empty when unregistered)
 * @nmissed: hits whose handlers were skipped because another probe was
 *	running on the same CPU
 * @addr: address to probe; or NULL and @symbol_name.  After a successful
 *	registration it holds the resolved address.
 * @symbol_name: symbol to probe, "sym" or "module:sym" (with @offset)
 * @offset: offset into @symbol_name
 * @pre_handler: see kprobe_pre_handler_t (may be NULL)
 * @post_handler: see kprobe_post_handler_t (may be NULL).  A probe with
 *	a post_handler makes its address take the slower, two-trap path.
 * @fault_handler: see kprobe_fault_handler_t (may be NULL)
 * @single: internal: on a site's probe, the site's only probe when the
 *	hit path may call its handlers directly (see kprobe_run_pre()),
 *	else NULL
 * @opcode: internal: the original first opcode unit at @addr
 * @ainsn: internal: the arch's copy and decoding of the instruction
 * @flags: KPROBE_FLAG_* below.  Set only KPROBE_FLAG_DISABLED before
 *	registering (any other flag is refused with -EINVAL); read the
 *	rest through kprobe_gone(), kprobe_disabled() & co.  Unregistering
 *	clears all but KPROBE_FLAG_DISABLED.
 */
struct kprobe {
	/*
	 * What the breakpoint trap reads, first: one cache line.  The hash
	 * chain first of all, so that kprobe_lookup() walks it without
	 * converting node pointers.
	 */
	struct hlist_node hlist;
	kprobe_opcode_t *addr;
	kprobe_pre_handler_t pre_handler;
	kprobe_post_handler_t post_handler;
	kprobe_fault_handler_t fault_handler;
	struct kprobe *single;
	u32 flags;
	kprobe_opcode_t opcode;
	struct arch_specific_insn ainsn;
	/* registration and bookkeeping */
	struct list_head list;
	unsigned long nmissed;
	const char *symbol_name;
	unsigned int offset;
};

/* Public flags */
#define KPROBE_FLAG_GONE	1   /* the probed code went away (module unload, init freed) */
#define KPROBE_FLAG_DISABLED	2   /* registered but not armed */
#define KPROBE_FLAG_OPTIMIZED	4   /* armed as a jump (optprobes) */
#define KPROBE_FLAG_FTRACE	8   /* armed through ftrace */
#define KPROBE_FLAG_ON_FUNC_ENTRY 16 /* at a function's entry (set by registration) */
/* Type flags, set by the code that owns the probe before registering */
#define KPROBE_FLAG_RETPROBE	32  /* the entry probe of a kretprobe ('r') */
#define KPROBE_FLAG_JPROBE	64  /* the entry probe of a jprobe ('j') */

#define KPROBE_FLAG_TYPE_MASK	(KPROBE_FLAG_RETPROBE | KPROBE_FLAG_JPROBE)

/* kprobe_ctlblk status values: what this CPU is doing for the current probe */
#define KPROBE_HIT_ACTIVE	0x00000001  /* running pre_handler(s) */
#define KPROBE_HIT_SS		0x00000002  /* executing the instruction out of line */
#define KPROBE_REENTER		0x00000004  /* stepping a probe hit inside a handler */
#define KPROBE_HIT_SSDONE	0x00000008  /* running post_handler(s) */

/**
 * kprobe_gone() - the probed code has gone away
 * @p: a registered probe
 *
 * Return: true once the module or init text @p was in has been freed; the
 * probe stays registered (and must still be unregistered).
 */
static inline bool kprobe_gone(const struct kprobe *p)
{
	return p->flags & KPROBE_FLAG_GONE;
}

/**
 * kprobe_disabled() - the probe is disabled or gone
 * @p: a probe
 *
 * Return: true when @p's handlers will not run.
 */
static inline bool kprobe_disabled(const struct kprobe *p)
{
	return p->flags & (KPROBE_FLAG_DISABLED | KPROBE_FLAG_GONE);
}

/**
 * kprobe_optimized() - the probe is armed as a jump
 * @p: a probe
 *
 * Return: true when @p is an optimized probe.
 */
static inline bool kprobe_optimized(const struct kprobe *p)
{
	return p->flags & KPROBE_FLAG_OPTIMIZED;
}

/**
 * kprobe_ftrace() - the probe is armed through ftrace
 * @p: a probe
 *
 * Return: true when @p runs from an ftrace callback.
 */
static inline bool kprobe_ftrace(const struct kprobe *p)
{
	return p->flags & KPROBE_FLAG_FTRACE;
}

/*
 * Return probes (struct kretprobe & co) live in their own header; it
 * needs struct kprobe.
 */
struct task_struct;
#include <linux/kretprobes.h>

/*
 * Jump probes (struct jprobe, register_jprobe() ...) come from their own
 * header too; their entry probe is a struct kprobe with KPROBE_FLAG_JPROBE
 * set.
 */
#include <linux/jprobes.h>

/* ---------------------------------------------------------------------
 * 2. Public API
 */
#ifdef CONFIG_KPROBES

DECLARE_PER_CPU(struct kprobe *, current_kprobe);
DECLARE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);
DECLARE_PER_CPU(unsigned int, kprobe_handler_nest);

/**
 * kprobe_running() - the probe this CPU is handling, if any
 *
 * Call with preemption disabled.  Inside a handler this is the probe
 * whose handler runs.
 *
 * Return: the probe, or NULL when no probe is active on this CPU.
 */
static nokprobe_inline struct kprobe *kprobe_running(void)
{
	return __this_cpu_read(current_kprobe);
}

/**
 * get_kprobe_ctlblk() - this CPU's kprobe control block
 *
 * Return: the per-CPU struct kprobe_ctlblk (call with preemption disabled).
 */
static nokprobe_inline struct kprobe_ctlblk *get_kprobe_ctlblk(void)
{
	return this_cpu_ptr(&kprobe_ctlblk);
}

/* Registration (process context, may sleep) */
int register_kprobe(struct kprobe *p);
int register_kprobes(struct kprobe **kps, int num);
int disable_kprobe(struct kprobe *kp);
int enable_kprobe(struct kprobe *kp);
void unregister_kprobes(struct kprobe **kps, int num);
void unregister_kprobe(struct kprobe *p);
/* The hit path's lookup (RCU; for arch code) */
struct kprobe *get_kprobe(void *addr);

#define KPROBE_HASH_BITS	10	/* 8 KiB of buckets: short chains at 10k probes */
/* The sites by address (kernel/kprobes.c), for kprobe_lookup() */
extern struct hlist_head kprobe_table[1 << KPROBE_HASH_BITS];

/* The chain of kprobe_table that holds the site at @addr, if any */
static __always_inline struct hlist_head *kprobe_bucket(const void *addr)
{
	return &kprobe_table[hash_ptr(addr, KPROBE_HASH_BITS)];
}

/**
 * kprobe_lookup() - get_kprobe() inlined, for the arch hit paths
 * @addr: the address hit
 *
 * Call as an RCU reader (interrupts or preemption off, as the hit paths
 * run).  Inlined, the lookup is a hash, a load and a compare per entry.
 *
 * Return: the site probe at @addr, or NULL.
 */
static __always_inline struct kprobe *kprobe_lookup(void *addr)
{
	struct kprobe *p;

	hlist_for_each_entry_rcu(p, kprobe_bucket(addr), hlist) {
		if (p->addr == addr)
			return p;
	}
	return NULL;
}

kprobe_opcode_t *kprobe_lookup_name(const char *name, unsigned int offset);
int kprobe_on_func_entry(kprobe_opcode_t *addr, const char *sym,
			 unsigned long offset);
bool within_kprobe_blacklist(unsigned long addr);
void kprobe_free_init_mem(void);
int kprobe_get_kallsym(unsigned int symnum, unsigned long *value, char *type,
		       char *sym);
bool is_kprobe_insn_slot(unsigned long addr);
void kprobe_ftrace_kill(void);
void dump_kprobe(struct kprobe *kp);

#ifdef CONFIG_OPTPROBES
bool is_kprobe_optinsn_slot(unsigned long addr);
void wait_for_kprobe_optimizer(void);
#else
static inline bool is_kprobe_optinsn_slot(unsigned long addr)
{
	return false;
}

static inline void wait_for_kprobe_optimizer(void)
{
}
#endif

/*
 * Trap handler: the probe's fault_handler (arch code).  The
 * architectures of KPROBES_COMPAT declare their own, in <asm/kprobes.h>.
 */
#ifndef CONFIG_KPROBES_COMPAT
int kprobe_fault_handler(struct pt_regs *regs, int trapnr);
#endif

#else /* !CONFIG_KPROBES */

static inline struct kprobe *kprobe_running(void)
{
	return NULL;
}

static inline int register_kprobe(struct kprobe *p)
{
	return -EOPNOTSUPP;
}

static inline void unregister_kprobe(struct kprobe *p)
{
}

static inline int register_kprobes(struct kprobe **kps, int num)
{
	return -EOPNOTSUPP;
}

static inline void unregister_kprobes(struct kprobe **kps, int num)
{
}

static inline int enable_kprobe(struct kprobe *kp)
{
	return -EOPNOTSUPP;
}

static inline int disable_kprobe(struct kprobe *kp)
{
	return -EOPNOTSUPP;
}

static inline struct kprobe *get_kprobe(void *addr)
{
	return NULL;
}

static inline bool within_kprobe_blacklist(unsigned long addr)
{
	return true;
}

static inline void kprobe_free_init_mem(void)
{
}

static inline int kprobe_get_kallsym(unsigned int symnum, unsigned long *value,
				     char *type, char *sym)
{
	return -ERANGE;
}

static inline bool is_kprobe_insn_slot(unsigned long addr)
{
	return false;
}

static inline bool is_kprobe_optinsn_slot(unsigned long addr)
{
	return false;
}

static inline void kprobe_ftrace_kill(void)
{
}

static inline void wait_for_kprobe_optimizer(void)
{
}

static inline int kprobe_fault_handler(struct pt_regs *regs, int trapnr)
{
	return 0;
}

static inline void kprobe_busy_begin(void)
{
}

static inline void kprobe_busy_end(void)
{
}

#endif /* CONFIG_KPROBES */

#ifdef CONFIG_KPROBES_COMPAT
bool kprobe_compat_fault(struct pt_regs *regs, unsigned int trap);
#endif

/**
 * kprobe_page_fault() - give a kernel-mode page fault to the active probe
 * @regs: registers at the fault
 * @trap: arch trap number (or fault status)
 *
 * Called first thing by the arch page fault handlers.
 *
 * Return: true when the active probe's fault handling dealt with it.
 */
static nokprobe_inline bool kprobe_page_fault(struct pt_regs *regs,
					      unsigned int trap)
{
#ifdef CONFIG_KPROBES
	if (user_mode(regs) || preemptible() || !kprobe_running())
		return false;
#ifdef CONFIG_KPROBES_COMPAT
	/* Their arch code knows no fault_handler: it is offered the fault first. */
	if (kprobe_compat_fault(regs, trap))
		return true;
#endif
	return kprobe_fault_handler(regs, trap);
#else
	return false;
#endif
}

/* ---------------------------------------------------------------------
 * 3. Architecture interface
 *
 * The arch provides <asm/kprobes.h> with:
 *   kprobe_opcode_t          one opcode unit (x86: u8, arm64: u32)
 *   struct arch_specific_insn  in every struct kprobe (p->ainsn)
 *   struct kprobe_ctlblk     per-CPU; must have an "unsigned long status"
 *                            (KPROBE_HIT_*); the rest is the arch's
 *   KPROBE_INSN_SLOT_SIZE    bytes per instruction slot (optional;
 *                            default MAX_INSN_SIZE * sizeof(kprobe_opcode_t))
 *
 * Hooks the core calls (all in process context, may sleep unless said):
 *
 * int arch_prepare_kprobe(struct kprobe *p)
 *	kprobe_mutex held.  p->addr is resolved and passed every generic
 *	check (text, blacklist, jump label, static call, ftrace site).
 *	Check that the instruction can be probed (errno otherwise: -EINVAL
 *	for an instruction that cannot run out of line, -EILSEQ for an
 *	address that is not an instruction boundary), save the original
 *	opcode in p->opcode, prepare p->ainsn (slots from get_insn_slot()).
 *	Must not modify the text.  For a site with several probes it is
 *	called once, on the site's own struct kprobe.
 * void arch_arm_kprobe(struct kprobe *p)
 * void arch_disarm_kprobe(struct kprobe *p)
 *	kprobe_mutex, cpus_read_lock() and text_mutex held.  Write the
 *	breakpoint / p->opcode at p->addr and make every CPU see it before
 *	returning.
 * void arch_remove_kprobe(struct kprobe *p)
 *	kprobe_mutex held, after a grace period since the probe was unhashed
 *	(no CPU can be in its handlers).  Release what arch_prepare_kprobe()
 *	took (free_insn_slot()).  Out-of-line slots are reused only after an
 *	RCU-tasks grace period, handled by the slot allocator.
 * int arch_init_kprobes(void)                            (weak, optional)
 * int arch_populate_kprobe_blacklist(void)               (weak, optional)
 *	add arch areas with kprobe_add_area_blacklist().
 * bool arch_within_kprobe_blacklist(unsigned long addr)  (weak, optional)
 *	default: .kprobes.text, entry text, irqentry text, noinstr text.
 * kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
 *		unsigned long offset, bool *on_func_entry)  (weak, optional)
 *	@addr is a function start, @offset the requested offset: return
 *	the address to probe and say whether it is the function entry
 *	(default: addr + offset, entry when offset == 0).
 * void *alloc_insn_page(void), void free_insn_page(void *page)  (weak)
 *	one page for instruction slots (default: execmem EXECMEM_KPROBES).
 * int arch_write_insn_slot(void *dst, const void *src, size_t len) (weak)
 *	default memcpy; x86 uses text_poke_copy() for read-only pages.
 *
 * The arch trap handler (breakpoint trap, interrupts disabled) does:
 *	p = get_kprobe(addr);                      (RCU, no lock)
 *	if (kprobe_running()) {                    reentered from a handler:
 *		kprobes_inc_nmissed_count(p);      skip p's handlers, run
 *		... execute the instruction ...    its instruction, keep the
 *	}                                          interrupted probe's state
 *	else {
 *		__this_cpu_write(current_kprobe, p);
 *		kcb->status = KPROBE_HIT_ACTIVE;
 *		if (p->pre_handler && p->pre_handler(p, regs)) {
 *			reset_current_kprobe();    handler moved the pc
 *			return handled;
 *		}
 *		... KPROBE_HIT_SS: execute the instruction ...
 *		kcb->status = KPROBE_HIT_SSDONE;
 *		if (p->post_handler) p->post_handler(p, regs, 0);
 *		reset_current_kprobe();
 *	}
 * p (the site's probe) carries the aggregated handlers: they call every
 * enabled probe at the address in registration order, with
 * current_kprobe set to that probe while its handler runs.  A fault while
 * a probe is active goes to kprobe_fault_handler() (arch), which calls
 * kprobe_running()->fault_handler.
 */
#ifdef CONFIG_KPROBES

struct kprobe_blacklist_entry {
	struct list_head list;
	unsigned long start_addr;
	unsigned long end_addr;
};

int arch_prepare_kprobe(struct kprobe *p);
void arch_arm_kprobe(struct kprobe *p);
void arch_disarm_kprobe(struct kprobe *p);
/* (sparc's <asm/kprobes.h> makes it a macro that does nothing) */
#ifndef arch_remove_kprobe
void arch_remove_kprobe(struct kprobe *p);
#endif
int arch_init_kprobes(void);
int arch_populate_kprobe_blacklist(void);
bool arch_within_kprobe_blacklist(unsigned long addr);
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset,
					 bool *on_func_entry);
void *alloc_insn_page(void);
void free_insn_page(void *page);
int arch_write_insn_slot(void *dst, const void *src, size_t len);

/* Bounds of the _kprobe_blacklist section (NOKPROBE_SYMBOL entries) */
extern unsigned long __start_kprobe_blacklist[];
extern unsigned long __stop_kprobe_blacklist[];

int kprobe_add_ksym_blacklist(unsigned long entry);
int kprobe_add_area_blacklist(unsigned long start, unsigned long end);

kprobe_opcode_t *get_insn_slot(void);
void free_insn_slot(kprobe_opcode_t *slot, int dirty);

void kprobes_inc_nmissed_count(struct kprobe *p);

#ifdef CONFIG_KPROBES_ON_FTRACE
/*
 * Kprobes on ftrace: a probe on a function's ftrace site (the address
 * ftrace_location() reports) is armed by adding the site to an ftrace_ops
 * with SAVE_REGS and IPMODIFY, never with a breakpoint; the site's probe
 * has KPROBE_FLAG_FTRACE.  The arch provides:
 *
 * int arch_prepare_kprobe_ftrace(struct kprobe *p)
 *	instead of arch_prepare_kprobe() for such a site (no text is read
 *	or copied).
 * void kprobe_ftrace_handler(ip, parent_ip, ops, fregs)
 *	the ftrace_ops callback: like the breakpoint trap it runs the
 *	site's pre_handler with regs->ip == the probed address + 1, then (when
 *	it returns 0) moves regs->ip past the fentry call and runs the
 *	post_handler; a pre_handler that returns nonzero keeps the regs->ip
 *	it set, and ftrace returns there.  It does nothing once
 *	kprobe_ftrace_killed().
 */
int arch_prepare_kprobe_ftrace(struct kprobe *p);
void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs);
extern bool kprobe_ftrace_dead;

/**
 * kprobe_ftrace_killed() - has ftrace been killed
 *
 * Inline: the ftrace callback asks on every hit.
 *
 * Return: true after kprobe_ftrace_kill(): callbacks do nothing and no
 * ftrace-based probe can be armed.
 */
static __always_inline bool kprobe_ftrace_killed(void)
{
	return READ_ONCE(kprobe_ftrace_dead);
}
#endif

#ifdef CONFIG_OPTPROBES
/*
 * Jump optimization.  A probe is armed with a breakpoint first; the
 * optimizer (kernel/kprobes_opt.c) then asks the arch to replace the
 * probed region with a jump to a detour buffer.  The generic code owns
 * the state and the queue, the arch the text and the buffer:
 *
 * int arch_prepare_optimized_kprobe(struct optimized_kprobe *op)
 *	kprobe_mutex held, the site armed with its breakpoint.  Check that
 *	the region at op->kp->addr can be replaced (one function, no jump
 *	into it, relocatable instructions) and build the detour buffer
 *	(get_optinsn_slot()).  Errno when the probe cannot be optimized.
 *	From then on the arch's breakpoint path sends hits of a probe
 *	whose op->state is KPROBE_OPT_QUEUED or KPROBE_OPT_OPTIMIZED (and
 *	that has no post_handler) through the detour buffer's copy of the
 *	region: no task enters the region's tail once it is queued.
 * int arch_check_optimized_kprobe(struct optimized_kprobe *op)
 *	0 when no other probe lies inside the region (checked each time
 *	the probe is to be queued).
 * bool arch_within_optimized_kprobe(struct optimized_kprobe *op,
 *		unsigned long addr)
 *	@addr is inside the region, past its first byte.
 * void arch_optimize_kprobes(struct list_head *ops)
 * void arch_unoptimize_kprobes(struct list_head *ops)
 *	kprobe_mutex, cpus_read_lock() and text_mutex held; the ops are
 *	linked by op->queue.  Write (restore) the jumps of every op in one
 *	batch and set (clear) KPROBE_FLAG_OPTIMIZED on op->kp.  Optimizing
 *	is called an RCU-tasks grace period after the ops were queued.
 *	Unoptimizing a GONE probe must not touch the text.
 * void arch_remove_optimized_kprobe(struct optimized_kprobe *op)
 *	kprobe_mutex held; release the buffer (free_optinsn_slot()).  The
 *	op itself is freed after an RCU-tasks grace period.
 *
 * The architectures of KPROBES_COMPAT with jump optimization (arm,
 * powerpc) keep the contract their code was written for, with its own
 * struct optimized_kprobe: <linux/kprobes_compat.h>.
 */
enum kprobe_opt_state {
	KPROBE_OPT_REFUSED = -1,	/* the arch cannot optimize it */
	KPROBE_OPT_IDLE,		/* prepared, armed as a breakpoint */
	KPROBE_OPT_QUEUED,		/* waiting for the optimizer */
	KPROBE_OPT_OPTIMIZED,		/* the jump is in the text */
};

#ifndef CONFIG_KPROBES_COMPAT
/**
 * struct optimized_kprobe - jump optimization state of one site
 * @kp: the site's probe
 * @state: an enum kprobe_opt_state (read locklessly by the hit path)
 * @retired: the site is being unregistered: the detour must not call
 *	into @kp any more
 * @live: @kp until @retired, then NULL: the detours' callbacks run
 *	what this says (one load; read locklessly by the hit path)
 * @allowed: the core allows optimizing (armed, no jprobe ...)
 * @err: why the arch refused (KPROBE_OPT_REFUSED)
 * @node: in the optimizer's list of all ops
 * @hnode: in the optimizer's table of ops by site
 * @queue: on the optimizer's queue or a batch being (un)optimized
 * @rcu: freeing after RCU-tasks
 * @optinsn: the arch's part (detour buffer, saved bytes)
 */
struct optimized_kprobe {
	struct kprobe *kp;
	struct kprobe *live;
	int state;
	bool retired;
	bool allowed;
	int err;
	struct list_head node;
	struct hlist_node hnode;
	struct list_head queue;
	struct rcu_head rcu;
	struct arch_optimized_insn optinsn;
};

int arch_prepare_optimized_kprobe(struct optimized_kprobe *op);
int arch_check_optimized_kprobe(struct optimized_kprobe *op);
bool arch_within_optimized_kprobe(struct optimized_kprobe *op,
				  unsigned long addr);
void arch_optimize_kprobes(struct list_head *ops);
void arch_unoptimize_kprobes(struct list_head *ops);
void arch_remove_optimized_kprobe(struct optimized_kprobe *op);
#endif /* !CONFIG_KPROBES_COMPAT */

bool arch_disarm_optimized_kprobes(struct list_head *ops);

kprobe_opcode_t *get_optinsn_slot(void);
void free_optinsn_slot(kprobe_opcode_t *slot, int dirty);
/* the pages of detour buffers (weak: alloc_insn_page()'s) */
void *alloc_optinsn_page(void);
void free_optinsn_page(void *page);
#endif /* CONFIG_OPTPROBES */

#if IS_ENABLED(CONFIG_KUNIT)
#include <kunit/test-bug.h>

void __kprobe_step_trapped(struct kprobe *p);
void kprobe_set_step_trap_hook(void (*hook)(struct kprobe *p));

/*
 * The trap ending an out-of-line step, for the KUnit suites (see
 * kernel/kprobes.c).  Inline, so that while no test runs the trap pays
 * a patched-out static branch and no call.
 */
static __always_inline void kprobe_step_trapped(struct kprobe *p)
{
	if (static_branch_unlikely(&kunit_running))
		__kprobe_step_trapped(p);
}
#else
static inline void kprobe_step_trapped(struct kprobe *p)
{
}
#endif

/*
 * The exception nesting of this CPU as preempt_count() counts it: NMIs
 * (and the x86 breakpoint and debug traps, which enter as NMIs) and
 * hardirqs.
 */
static __always_inline unsigned int kprobe_nest_level(void)
{
	return preempt_count() & (NMI_MASK | HARDIRQ_MASK);
}

/**
 * kprobe_set_status() - what this CPU does for its running probe
 * @status: KPROBE_HIT_*
 *
 * KPROBE_HIT_ACTIVE and KPROBE_HIT_SSDONE (handlers about to run) also
 * record the exception nesting they run at, for kprobe_fault_nested().
 * The control block of the architectures of KPROBES_COMPAT is theirs,
 * with the field under the name their code uses.  Ours is written as a
 * per-CPU field (one %gs-relative store on x86, not an address
 * computation and a store: every hit path passes here).
 */
static nokprobe_inline void kprobe_set_status(unsigned long status)
{
#ifdef CONFIG_KPROBES_COMPAT
	get_kprobe_ctlblk()->kprobe_status = status;
#else
	__this_cpu_write(kprobe_ctlblk.status, status);
	if (status == KPROBE_HIT_ACTIVE || status == KPROBE_HIT_SSDONE)
		__this_cpu_write(kprobe_handler_nest, kprobe_nest_level());
#endif
}

/**
 * kprobe_fault_nested() - is a fault not the running handlers' own?
 *
 * For the arch fault paths, while the running probe's handlers run
 * (KPROBE_HIT_ACTIVE, KPROBE_HIT_SSDONE): a fault of an exception that
 * interrupted them and that interrupts cannot mask (an NMI, a debug
 * exception) comes at a deeper NMI or hardirq level than the one
 * kprobe_set_status() recorded when they started, and is not theirs to
 * handle.
 *
 * Return: true when the fault is not at the handlers' level.
 */
static nokprobe_inline bool kprobe_fault_nested(void)
{
	return __this_cpu_read(kprobe_handler_nest) != kprobe_nest_level();
}

/**
 * reset_current_kprobe() - this CPU no longer handles a probe
 */
static nokprobe_inline void reset_current_kprobe(void)
{
	__this_cpu_write(current_kprobe, NULL);
}

/**
 * kprobe_lockdep_irqs_off() - a trampoline masked interrupts: tell lockdep
 *
 * For hit paths that run handlers with interrupts masked by the
 * architecture's own trampoline code (cli, or DAIF set before a slot)
 * rather than by an exception entry: lockdep must know they are off, as
 * an exception entry tells it, or a lock taken in a handler is recorded
 * as taken with interrupts on.  Call with interrupts masked.
 *
 * Return: whether lockdep saw them on (for kprobe_lockdep_irqs_on()).
 */
static __always_inline bool kprobe_lockdep_irqs_off(void)
{
	bool on = lockdep_hardirqs_enabled();

	if (on)
		lockdep_hardirqs_off(_THIS_IP_);
	return on;
}

/**
 * kprobe_lockdep_irqs_on() - the trampoline is about to unmask again
 * @on: what kprobe_lockdep_irqs_off() returned
 *
 * Call with interrupts still masked, right before the trampoline gives
 * the probed code its interrupt state back.
 */
static __always_inline void kprobe_lockdep_irqs_on(bool on)
{
	if (on) {
		lockdep_hardirqs_on_prepare();
		lockdep_hardirqs_on(_THIS_IP_);
	}
}

/**
 * kprobe_missed() - is a hit that takes no breakpoint missed?
 * @sp: the site's probe
 *
 * For callback hit paths (ftrace, jump optimization), with preemption
 * disabled, before they touch @regs: as in the breakpoint trap, a hit
 * while this CPU handles a probe is missed.  Otherwise the caller goes
 * on with kprobe_enter_pre().
 *
 * Return: true when missed (counted in the nmissed of @sp's probes).
 */
static __always_inline bool kprobe_missed(struct kprobe *sp)
{
	if (unlikely(kprobe_running())) {
		kprobes_inc_nmissed_count(sp);
		return true;
	}
	return false;
}

/**
 * kprobe_run_pre() - run the pre_handler(s) of a site
 * @sp: the site's probe (get_kprobe()), the running probe of this CPU
 * @regs: the registers at the probed address
 *
 * For the arch hit paths, with preemption disabled and current_kprobe
 * @sp.  A site holding a single enabled probe calls that probe's
 * pre_handler directly, with no list walk and one indirect call; any
 * other site goes through its aggregated handler.  current_kprobe is the
 * probe whose handler runs, and @sp again on return.
 *
 * Return: nonzero when a pre_handler set the instruction pointer.
 */
static __always_inline int kprobe_run_pre(struct kprobe *sp,
					  struct pt_regs *regs)
{
	struct kprobe *p = READ_ONCE(sp->single);
	int ret;

	if (likely(p && !kprobe_disabled(p))) {
		__this_cpu_write(current_kprobe, p);
		ret = p->pre_handler(p, regs);
		__this_cpu_write(current_kprobe, sp);
		return ret;
	}
	return sp->pre_handler ? sp->pre_handler(sp, regs) : 0;
}

/**
 * kprobe_enter_pre() - start a hit without a breakpoint, run its pre_handlers
 * @sp: the site's probe
 * @regs: the registers at the probed address
 *
 * For callback hit paths (ftrace, jump optimization) once kprobe_missed()
 * said no: kprobe_run_pre() for a hit that steps nothing afterwards.  The
 * probe whose handler runs becomes this CPU's running probe (a site's
 * single probe straight away, with no write of the site first) and stays
 * so on return, for the caller's kprobe_run_post() or
 * reset_current_kprobe(), which are all that may follow.
 *
 * Return: nonzero when a pre_handler set the instruction pointer.
 */
static __always_inline int kprobe_enter_pre(struct kprobe *sp,
					    struct pt_regs *regs)
{
	struct kprobe *p = READ_ONCE(sp->single);

	if (likely(p && !kprobe_disabled(p))) {
		__this_cpu_write(current_kprobe, p);
		kprobe_set_status(KPROBE_HIT_ACTIVE);
		return p->pre_handler(p, regs);
	}
	__this_cpu_write(current_kprobe, sp);
	kprobe_set_status(KPROBE_HIT_ACTIVE);
	return sp->pre_handler ? sp->pre_handler(sp, regs) : 0;
}

/* kprobe_run_post(), leaving @after as this CPU's running probe */
static __always_inline void __kprobe_run_post(struct kprobe *sp,
					      struct pt_regs *regs,
					      struct kprobe *after)
{
	struct kprobe *p = READ_ONCE(sp->single);
	kprobe_post_handler_t post;

	if (likely(p && !kprobe_disabled(p))) {
		if (p->post_handler) {
			__this_cpu_write(current_kprobe, p);
			p->post_handler(p, regs, 0);
			__this_cpu_write(current_kprobe, after);
		} else if (after != sp) {
			__this_cpu_write(current_kprobe, after);
		}
		return;
	}
	post = READ_ONCE(sp->post_handler);
	if (post)
		post(sp, regs, 0);
	if (after != sp)
		__this_cpu_write(current_kprobe, after);
}

/**
 * kprobe_run_post() - run the post_handler(s) of a site
 * @sp: the site's probe, the running probe of this CPU
 * @regs: the registers after the probed instruction
 *
 * Like kprobe_run_pre(), for the post_handlers.  Callers look at
 * @sp->post_handler first to decide whether to step at all; it may be
 * gone since (its last probe with a post_handler unregistered on another
 * CPU), so it is read once here and a site without one runs nothing.
 */
static __always_inline void kprobe_run_post(struct kprobe *sp,
					    struct pt_regs *regs)
{
	__kprobe_run_post(sp, regs, sp);
}

/**
 * kprobe_end_post() - kprobe_run_post(), and the hit is over
 * @sp: the site's probe, the running probe of this CPU
 * @regs: the registers after the probed instruction
 *
 * kprobe_run_post() followed by reset_current_kprobe(), with one write of
 * the running probe fewer.
 */
static __always_inline void kprobe_end_post(struct kprobe *sp,
					    struct pt_regs *regs)
{
	__kprobe_run_post(sp, regs, NULL);
}

/* ---------------------------------------------------------------------
 * 4. Interface for the other probe kinds (kretprobes, jprobes, fprobe).
 *    Internal: not for modules.
 *
 * - Register with kprobe_register_as(kp, type), type a type flag
 *   (KPROBE_FLAG_RETPROBE, KPROBE_FLAG_JPROBE): register_kprobe()
 *   refuses any flag but KPROBE_FLAG_DISABLED.  debugfs shows 'r' / 'j'.
 * - Batch removal with one grace period:
 *	for each: kprobe_unregister_begin(kp);   disarm + unlink, no wait
 *	synchronize_rcu();
 *	for each: kprobe_unregister_end(kp);     release arch resources
 *   Both take kprobe_mutex themselves.  A probe never registered (or
 *   already removed) is ignored by both.  kprobe_unregister_begin_many()
 *   is the first loop with one text or ftrace update for the batch.
 * - kprobe_busy_begin()/kprobe_busy_end() bracket code that must make
 *   probes hit inside it count as missed (it looks like a running probe).
 *   The section must not sleep; begin disables preemption.
 */
int kprobe_register_as(struct kprobe *p, u32 type);
void kprobe_unregister_begin(struct kprobe *p);
void kprobe_unregister_begin_many(struct kprobe **kps, int num);
void kprobe_unregister_end(struct kprobe *p);
void kprobe_busy_begin(void);
void kprobe_busy_end(void);

#ifdef CONFIG_KPROBES_COMPAT
#include <linux/kprobes_compat.h>
#endif

#endif /* CONFIG_KPROBES */

#endif /* _LINUX_KPROBES_H */
