// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86_64 jump optimization of kprobes.
 *
 * The "region" of a probe is the whole instructions covering the 5 bytes
 * from the probed address.  Optimizing writes a jmp rel32 over its first
 * 5 bytes (the breakpoint becomes the jmp's opcode through text_poke_bp's
 * protocol); the jmp enters the probe's detour buffer (layout in
 * <asm/kprobes.h>), which calls kprobe_opt_trampoline, runs the region's
 * instructions relocated and jumps back behind the region.
 *
 * A region qualifies when, decoding its whole function with the kernel's
 * instruction decoder:
 *  - it lies inside the function;
 *  - nothing jumps into it but at its first byte: no relative branch
 *    targets its tail, the function has no indirect jump (a jump table or
 *    a retpoline jump thunk could go anywhere) and no exception table
 *    entry (a fixup could land anywhere);
 *  - each of its instructions can run relocated and is no branch or call
 *    (a call would leave a return address into the detour, and a task
 *    could sleep there);
 *  - it holds no ENDBR but maybe at its start, no jump label, static
 *    call, alternative or ftrace site.
 * No other probe may lie inside the region (checked each time).
 *
 * A pre_handler of an optimized probe that returns nonzero has set
 * regs->ip: the trampoline returns there instead of into the copy, with
 * every other register (and the flags) as the handler left them in
 * pt_regs, exactly as after a breakpoint.  An ip inside the region's
 * tail (whose bytes are the jmp's now) continues at the same offset in
 * the copy, which has the same instruction boundaries.  The handlers run
 * with interrupts disabled, as they do from the breakpoint.
 *
 * Copyright (C) IBM Corporation, 2002, 2004
 * Copyright (C) Hitachi Ltd., 2012
 * 2026-Nov	Rewritten: jump optimization on the rebuilt core.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/extable.h>
#include <linux/ftrace.h>
#include <linux/jump_label.h>
#include <linux/static_call.h>
#include <linux/list_sort.h>
#include <linux/memory.h>
#include <linux/perf_event.h>
#include <linux/rcupdate.h>
#include <linux/context_tracking_irq.h>
#include <kunit/static_stub.h>
#include <kunit/visibility.h>
#include <asm/text-patching.h>
#include <asm/alternative.h>
#include <asm/nospec-branch.h>
#include <asm/insn.h>
#include <asm/ibt.h>

#include "common.h"

asmlinkage void kprobe_opt_trampoline(void);

/* Probes whose jmp is in the text (kprobe_mutex). */
static LIST_HEAD(patched_ops);

/**
 * kprobe_opt_fix_text() - show the original bytes under optimized jumps
 * @buf: bytes read from the text at @addr
 * @addr: where they were read
 * @len: how many
 *
 * Called under kprobe_mutex by the decoder of the breakpoint probes.
 */
void kprobe_opt_fix_text(u8 *buf, unsigned long addr, size_t len)
{
	struct optimized_kprobe *op;
	unsigned long a, i;

	list_for_each_entry(op, &patched_ops, optinsn.node) {
		a = (unsigned long)op->kp->addr;
		for (i = 0; i < JMP32_INSN_SIZE; i++)
			if (a + i >= addr && a + i < addr + len)
				buf[a + i - addr] = op->optinsn.orig[i];
	}
}

/* ---------------------------------------------------------------------
 * Checking the function
 */

static bool is_jump_thunk(unsigned long target)
{
#ifdef CONFIG_MITIGATION_RETPOLINE
	unsigned long thunks = (unsigned long)__x86_indirect_thunk_array;
	unsigned long jthunks = (unsigned long)__x86_indirect_jump_thunk_array;

	if (target >= thunks && target < thunks + 16 * RETPOLINE_THUNK_SIZE)
		return true;
	if (IS_ENABLED(CONFIG_MITIGATION_CALL_DEPTH_TRACKING) &&
	    target >= jthunks && target < jthunks + 16 * RETPOLINE_THUNK_SIZE)
		return true;
#endif
	return false;
}

/*
 * Where a relative branch at @ip goes, in *@target (0: no branch);
 * -EINVAL for an indirect jump, or a jump to a retpoline thunk.
 */
static int branch_target(struct insn *insn, unsigned long ip,
			 unsigned long *target)
{
	u8 op = insn->opcode.bytes[0];

	*target = 0;
	if (insn->opcode.nbytes == 1) {
		switch (op) {
		case 0x70 ... 0x7f:	/* jcc rel8 */
		case 0xe0 ... 0xe3:	/* loop, jrcxz */
		case 0xe8:		/* call */
		case 0xe9:		/* jmp rel32 */
		case 0xeb:		/* jmp rel8 */
			break;
		case 0xea:		/* far jmp */
			return -EINVAL;
		case 0xff:
			if (X86_MODRM_REG(insn->modrm.bytes[0]) == 4 ||
			    X86_MODRM_REG(insn->modrm.bytes[0]) == 5)
				return -EINVAL;	/* jmp *x */
			return 0;
		default:
			return 0;
		}
	} else if (op == 0x0f && insn->opcode.nbytes == 2 &&
		   insn->opcode.bytes[1] >= 0x80 &&
		   insn->opcode.bytes[1] <= 0x8f) {
		;			/* jcc rel32 */
	} else {
		return 0;
	}
	*target = ip + insn->length + insn->immediate.value;
	if (op != 0xe8 && is_jump_thunk(*target))
		return -EINVAL;
	return 0;
}

/*
 * Nothing in [start, end) may jump into the tail of [addr, addr + len).
 * Another debugger's breakpoint anywhere in the function hides the
 * instructions after it (kprobe_x86_foreign_int3()): -EBUSY.
 */
static int check_function(unsigned long start, unsigned long end,
			  unsigned long addr, unsigned int len)
{
	unsigned long ip, target;
	u8 buf[MAX_INSN_SIZE];
	bool reached = true;
	struct insn insn;

	for (ip = start; ip < end; ip += insn.length) {
		if (kprobe_x86_decode(&insn, buf, ip))
			return -EILSEQ;
		if (kprobe_x86_foreign_int3(&insn, ip, reached))
			return -EBUSY;
		reached = kprobe_x86_falls_through(&insn);
		if (search_exception_tables(ip))
			return -EINVAL;
		if (branch_target(&insn, ip, &target))
			return -EINVAL;
		if (target > addr && target < addr + len)
			return -EINVAL;
	}
	return 0;
}

/*
 * Called without text_mutex: jump labels and static calls take their own
 * locks before text_mutex.  jump_label_text_reserved() decodes the live
 * instruction of each jump label site (arch_jump_entry_size(), which BUGs
 * on anything but a 2- or 5-byte jmp or nop): jump_label_lock() keeps
 * every static key still, so no site holds text_poke_bp()'s int3 while
 * we look.  The static call and ftrace checks read only their tables.
 */
static int check_reserved(unsigned long addr, unsigned int len)
{
	void *s = (void *)addr, *e = (void *)(addr + len - 1);
	bool reserved;

	jump_label_lock();
	reserved = jump_label_text_reserved(s, e);
	jump_label_unlock();
	if (reserved || static_call_text_reserved(s, e) ||
	    ftrace_text_reserved(s, e))
		return -EBUSY;
	return 0;
}

/* ---------------------------------------------------------------------
 * Arch hooks of the optimizer
 */

/*
 * Relocate the region at @addr into @code (the buffer's copy, to run at
 * @to); return its length or an errno.
 */
static int copy_region(u8 *code, unsigned long to, unsigned long addr,
		       unsigned long end, u8 *orig)
{
	struct arch_specific_insn ai;
	u8 buf[MAX_INSN_SIZE];
	struct insn insn;
	unsigned int len;
	int ret;

	for (len = 0; len < JMP32_INSN_SIZE; len += insn.length) {
		ret = kprobe_x86_decode(&insn, buf, addr + len);
		if (ret)
			return ret;
		if (addr + len + insn.length > end)
			return -EINVAL;		/* leaves the function */
		if (len && insn.length == ENDBR_INSN_SIZE &&
		    is_endbr(*(u32 *)buf))
			return -EINVAL;		/* an indirect branch target */
		ret = kprobe_x86_classify(&insn, &ai);
		if (ret || (len && !kprobe_x86_straight(ai.kind)) ||
		    (!len && ai.kind != KPX_STEP))
			return -EINVAL;		/* branch, call, ret, unsafe */
		ret = kprobe_x86_place_copy(code + len, to + len, addr + len,
					    &insn, buf);
		if (ret)
			return ret;
		memcpy(orig + len, buf, min_t(unsigned int, insn.length,
					      JMP32_INSN_SIZE - len));
	}
	return len;
}

/**
 * arch_prepare_optimized_kprobe() - check a region, build its detour
 * @op: the op of an armed breakpoint site
 *
 * Return: 0, or why it cannot be optimized: -EINVAL (region unsafe),
 * -EBUSY (patched by someone else), -EILSEQ (undecodable function),
 * -ERANGE (operand out of reach of the buffer), -ENOMEM.
 */
int arch_prepare_optimized_kprobe(struct optimized_kprobe *op)
{
	struct kprobe *p = op->kp;
	unsigned long addr = (unsigned long)p->addr;
	u8 code[KPROBE_OPTINSN_SLOT_SIZE], orig[JMP32_INSN_SIZE + MAX_INSN_SIZE];
	unsigned long size, offset, start, end, slot, ip;
	int len, ret;

	BUILD_BUG_ON(KPROBE_OPT_COPY - KPROBE_OPT_IP != 13);
	BUILD_BUG_ON(KPROBE_OPT_COPY - KPROBE_OPT_OP != 21);
	BUILD_BUG_ON(KPROBE_OPT_COPY + KPROBE_OPT_REGION_MAX + JMP32_INSN_SIZE >
		     KPROBE_OPTINSN_SLOT_SIZE);
	BUILD_BUG_ON(offsetof(struct optimized_kprobe, kp) != 0);

	if (p->ainsn.kind != KPX_STEP)
		return -EINVAL;
	if (!kallsyms_lookup_size_offset(addr, &size, &offset))
		return -EINVAL;
	start = addr - offset;
	end = start + size;

	op->optinsn.detour = get_optinsn_slot();
	if (!op->optinsn.detour)
		return -ENOMEM;
	slot = (unsigned long)op->optinsn.detour;

	memset(code, INT3_INSN_OPCODE, sizeof(code));
	memcpy(code + KPROBE_OPT_OP, &op, sizeof(op));
	ip = addr + INT3_INSN_SIZE;
	memcpy(code + KPROBE_OPT_IP, &ip, sizeof(ip));
	__text_gen_insn(code + KPROBE_OPT_ENTRY, CALL_INSN_OPCODE,
			(void *)slot + KPROBE_OPT_ENTRY, kprobe_opt_trampoline,
			CALL_INSN_SIZE);
	/*
	 * The region and its function are decoded from live text: under
	 * text_mutex, which every text patcher (jump labels, static calls,
	 * ftrace, alternatives, kprobes) holds from its first int3 to its
	 * last sync, so no half-patched instruction is read.
	 */
	mutex_lock(&text_mutex);
	len = copy_region(code + KPROBE_OPT_COPY, slot + KPROBE_OPT_COPY,
			  addr, end, orig);
	if (len >= 0 && alternatives_text_reserved((void *)addr,
						   (void *)addr + len - 1))
		len = -EBUSY;
	if (len >= 0) {
		ret = check_function(start, end, addr, len);
		if (ret)
			len = ret;
	}
	mutex_unlock(&text_mutex);
	if (len < 0) {
		ret = len;
		goto fail;
	}
	__text_gen_insn(code + KPROBE_OPT_COPY + len, JMP32_INSN_OPCODE,
			(void *)slot + KPROBE_OPT_COPY + len,
			(void *)addr + len, JMP32_INSN_SIZE);

	ret = check_reserved(addr, len);
	if (!ret)
		ret = arch_write_insn_slot(op->optinsn.detour, code,
					   sizeof(code));
	if (ret)
		goto fail;

	op->optinsn.len = len;
	memcpy(op->optinsn.orig, orig, JMP32_INSN_SIZE);
	INIT_LIST_HEAD(&op->optinsn.node);
	WRITE_ONCE(p->ainsn.op, op);
	return 0;
fail:
	free_optinsn_slot(op->optinsn.detour, 0);
	op->optinsn.detour = NULL;
	return ret;
}

/**
 * arch_check_optimized_kprobe() - is the region free of other probes
 * @op: a prepared op
 *
 * Return: 0, or -EEXIST when another probe lies inside the region.
 */
int arch_check_optimized_kprobe(struct optimized_kprobe *op)
{
	unsigned long addr = (unsigned long)op->kp->addr;
	unsigned int i;

	for (i = 1; i < op->optinsn.len; i++)
		if (get_kprobe((void *)addr + i))
			return -EEXIST;
	return 0;
}

/**
 * arch_within_optimized_kprobe() - is an address in a region's tail
 * @op: a prepared op
 * @addr: the address
 *
 * Return: true when @addr is inside the region, past its first byte.
 */
bool arch_within_optimized_kprobe(struct optimized_kprobe *op,
				  unsigned long addr)
{
	unsigned long start = (unsigned long)op->kp->addr;

	return addr > start && addr < start + op->optinsn.len;
}

static int cmp_addr(void *priv, const struct list_head *a,
		    const struct list_head *b)
{
	const struct optimized_kprobe *x = list_entry(a, typeof(*x), queue);
	const struct optimized_kprobe *y = list_entry(b, typeof(*y), queue);

	return x->kp->addr < y->kp->addr ? -1 : x->kp->addr > y->kp->addr;
}

static void gen_jmp(u8 *insn, struct optimized_kprobe *op)
{
	__text_gen_insn(insn, JMP32_INSN_OPCODE, op->kp->addr,
			op->optinsn.detour + KPROBE_OPT_ENTRY, JMP32_INSN_SIZE);
}

/**
 * arch_optimize_kprobes() - write the jumps of a batch of probes
 * @ops: ops linked by ->queue (kprobe_mutex, cpus_read_lock, text_mutex)
 *
 * The breakpoints become jumps in one text_poke_bp batch: a CPU that hits
 * a breakpoint meanwhile is sent on as the jump would send it.
 */
void arch_optimize_kprobes(struct list_head *ops)
{
	struct optimized_kprobe *op;
	u8 jmp[JMP32_INSN_SIZE];

	list_sort(NULL, ops, cmp_addr);
	list_for_each_entry(op, ops, queue) {
		gen_jmp(jmp, op);
		text_poke_queue(op->kp->addr, jmp, JMP32_INSN_SIZE, NULL);
		op->kp->flags |= KPROBE_FLAG_OPTIMIZED;
		list_add(&op->optinsn.node, &patched_ops);
	}
	text_poke_finish();
}

/**
 * arch_unoptimize_kprobes() - put the breakpoints of a batch back
 * @ops: ops linked by ->queue (kprobe_mutex, cpus_read_lock, text_mutex)
 *
 * The jumps become a breakpoint followed by the original bytes; a CPU
 * that hits the breakpoint before the batch is over is sent on as the
 * jump would send it.  The text of GONE probes is left alone.
 */
void arch_unoptimize_kprobes(struct list_head *ops)
{
	u8 insn[JMP32_INSN_SIZE], jmp[JMP32_INSN_SIZE];
	struct optimized_kprobe *op;
	bool queued = false;

	list_sort(NULL, ops, cmp_addr);
	list_for_each_entry(op, ops, queue) {
		op->kp->flags &= ~KPROBE_FLAG_OPTIMIZED;
		list_del_init(&op->optinsn.node);
		if (kprobe_gone(op->kp))
			continue;
		insn[0] = INT3_INSN_OPCODE;
		memcpy(insn + 1, op->optinsn.orig + 1, JMP32_INSN_SIZE - 1);
		gen_jmp(jmp, op);
		text_poke_queue(op->kp->addr, insn, JMP32_INSN_SIZE, jmp);
		queued = true;
	}
	if (queued)
		text_poke_finish();
}

/**
 * arch_remove_optimized_kprobe() - release the detour buffer
 * @op: an unoptimized op whose site is going away
 */
void arch_remove_optimized_kprobe(struct optimized_kprobe *op)
{
	WRITE_ONCE(op->kp->ainsn.op, NULL);
	free_optinsn_slot(op->optinsn.detour, 0);
	op->optinsn.detour = NULL;
}

/* ---------------------------------------------------------------------
 * Hit path
 */

/*
 * kprobe_opt_x86_resume_ip() - where the ip a pre_handler set resumes
 * @op: the hit's op
 * @ip: the ip the pre_handler set
 *
 * Reads the site: RCU must be watching.  A KUnit test stands in for it
 * to check that.
 *
 * Return: @ip, or its place in the detour's copy of the region.
 */
VISIBLE_IF_KUNIT unsigned long
kprobe_opt_x86_resume_ip(struct optimized_kprobe *op, unsigned long ip)
{
	unsigned long addr;

	KUNIT_STATIC_STUB_REDIRECT(kprobe_opt_x86_resume_ip, op, ip);
	addr = (unsigned long)op->kp->addr;

	if (ip > addr && ip < addr + op->optinsn.len)
		return (unsigned long)op->optinsn.detour + KPROBE_OPT_COPY +
		       (ip - addr);
	return ip;
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_opt_x86_resume_ip);
NOKPROBE_SYMBOL(kprobe_opt_x86_resume_ip);

/**
 * kprobe_opt_resume_ip() - where an ip set by a pre_handler can resume
 * @p: the site's probe
 * @ip: the ip the pre_handler set
 *
 * Called by the breakpoint path: once a probe is queued for optimization
 * its region's tail may become the jmp's bytes at any moment; an ip in
 * it resumes in the detour copy instead.
 *
 * Return: the ip to resume at.
 */
unsigned long kprobe_opt_resume_ip(struct kprobe *p, unsigned long ip)
{
	struct optimized_kprobe *op = READ_ONCE(p->ainsn.op);

	if (op && READ_ONCE(op->state) >= KPROBE_OPT_QUEUED)
		return kprobe_opt_x86_resume_ip(op, ip);
	return ip;
}

NOKPROBE_SYMBOL(kprobe_opt_resume_ip);

/**
 * kprobe_opt_x86_redirect() - resume where a pre_handler set the ip
 * @regs: as for kprobe_opt_x86_callback(), which returned nonzero
 *
 * Called by the trampoline: the return address (under which the
 * trampoline laid @regs) becomes regs->ip, or its place in the detour's
 * copy of the region.
 */
__visible __noendbr notrace void
kprobe_opt_x86_redirect(struct pt_regs *regs)
{
	unsigned long *ret = (unsigned long *)(regs + 1);
	struct optimized_kprobe *op;

	op = *(struct optimized_kprobe **)(*ret - KPROBE_OPT_COPY + KPROBE_OPT_OP);
	*ret = kprobe_opt_x86_resume_ip(op, regs->ip);
}

NOKPROBE_SYMBOL(kprobe_opt_x86_redirect);

/*
 * The hit itself, with RCU watching (kprobe_opt_x86_callback()): out of
 * line, so that the sanitizers see it.
 */
static noinline notrace int opt_hit(struct optimized_kprobe *op,
				    struct pt_regs *regs)
{
	struct kprobe *p;
	bool lockdep;
	int ret = 0;

	/*
	 * NULL: retired.  A disabled site is unoptimized at once; a task
	 * that was preempted in the detour before may still come here, and
	 * finds no enabled probe to run (->single is NULL, the aggregated
	 * handler skips the disabled): no need to look at the site's flag.
	 */
	p = READ_ONCE(op->live);
	if (likely(p) && !kprobe_missed(p)) {
		lockdep = kprobe_lockdep_irqs_off();
		ret = kprobe_enter_pre(p, regs);
		kprobe_lockdep_irqs_on(lockdep);
		reset_current_kprobe();
	}
	return ret;
}

NOKPROBE_SYMBOL(opt_hit);

/*
 * A hit where RCU is not watching: out of line, off the common path, and
 * noinstr as its caller is: nothing may be instrumented (the function
 * tracer, sanitizers) before ct_nmi_enter() has made RCU watch, nor after
 * ct_nmi_exit(); what runs in between is.  Where a pre_handler sent the ip is
 * worked out here too, while RCU still watches: after ct_nmi_exit() an
 * unregistration need not wait for this CPU, and the site may be freed
 * before kprobe_opt_x86_redirect() could read it.  The return address
 * (under which the trampoline laid @regs) is set as that would set it,
 * and 0 tells the trampoline that nothing is left to redirect.
 */
static noinline noinstr int opt_hit_rcu_idle(struct optimized_kprobe *op,
					     struct pt_regs *regs)
{
	unsigned long *ret = (unsigned long *)(regs + 1);

	ct_nmi_enter();
	instrumentation_begin();
	if (opt_hit(op, regs))
		*ret = kprobe_opt_x86_resume_ip(op, regs->ip);
	instrumentation_end();
	ct_nmi_exit();
	return 0;
}

NOKPROBE_SYMBOL(opt_hit_rcu_idle);

/**
 * kprobe_opt_x86_callback() - run an optimized probe's handlers
 * @op: the probe's op, which the trampoline read from the buffer
 * @regs: the registers at the probed address, laid by the trampoline
 *	under its return address (the buffer's copy of the region)
 *
 * The trampoline calls it with interrupts disabled, which makes the
 * call an RCU-sched read-side critical section: a site retired by an
 * unregistration stays valid until we return, as its release waits for
 * a grace period.  That needs RCU to be watching, which it is not where
 * probed code runs between ct_idle_enter() and ct_idle_exit() (noinstr
 * text is refused, but what it calls with instrumentation_begin() is
 * not): there the synchronize_rcu() of an unregistration would not wait
 * for us, and the handlers are promised RCU watching on every path.  As
 * kprobe_x86_step_callback() does, and as the int3 entry would
 * (irqentry_nmi_enter()), RCU is made to watch with ct_nmi_enter()
 * before anything of the site is read (interrupts are off, as that
 * needs).  Lockdep is told that interrupts are off while the handlers
 * run (the trampoline's cli is not an exception entry).
 *
 * Return: nonzero when a pre_handler set regs->ip: the trampoline then
 * calls kprobe_opt_x86_redirect() (so that nothing here lives across the
 * handler call); where RCU was not watching, the redirect is done before
 * RCU stops watching again (opt_hit_rcu_idle()), and the return is 0.
 */
__visible __noendbr noinstr int
kprobe_opt_x86_callback(struct optimized_kprobe *op, struct pt_regs *regs)
{
	int ret;

	if (unlikely(!kprobe_rcu_watching()))
		return opt_hit_rcu_idle(op, regs);
	instrumentation_begin();
	ret = opt_hit(op, regs);
	instrumentation_end();
	return ret;
}

NOKPROBE_SYMBOL(kprobe_opt_x86_callback);
