// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The arch contract of CONFIG_KPROBES_COMPAT (see <linux/kprobes_compat.h>):
 * what the kprobes code of every architecture but x86 and arm64 expects
 * from the core, on top of this one.
 *
 * Their breakpoint and single-step handlers drive the hit themselves with
 * their own current_kprobe and kprobe_ctlblk (the core uses the same
 * per-CPU current_kprobe, which their code defines); get_kprobe()
 * gives them a site's probe, whose handlers dispatch to every probe of
 * the site, so they need nothing more on the hit path.  What is left is
 * wiring: the die notifier, text_mutex around arch_prepare_kprobe(), the
 * return probe glue of the arches without rethook, and the calls of the
 * jump optimizer into arm's and powerpc's optprobes code.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/kdebug.h>
#include <linux/memory.h>
#include <linux/notifier.h>
#include <linux/init.h>

#include "kprobes_internal.h"

/*
 * Several of these arches copy the probed instruction into its slot with
 * their text patching helpers, which want text_mutex.
 */
int kprobe_arch_prepare(struct kprobe *sp)
{
	int ret;

	mutex_lock(&text_mutex);
	ret = arch_prepare_kprobe(sp);
	mutex_unlock(&text_mutex);
	return ret;
}

/**
 * kprobe_compat_fault() - offer a page fault in a handler to its probe
 * @regs: the registers at the fault
 * @trap: the arch's trap number or fault status
 *
 * The arch code of these architectures has no fault_handler call of its
 * own: kprobe_page_fault() asks here first.  A fault while a
 * pre- or post-handler runs goes to that probe's fault_handler, as on
 * x86 and arm64; a fault of the single-stepped instruction stays the
 * arch's.  Called with preemption disabled and a probe running.
 *
 * Return: true when the fault_handler dealt with the fault (it returned
 * nonzero); false lets the arch handle it (exception fixup and so on).
 */
bool kprobe_compat_fault(struct pt_regs *regs, unsigned int trap)
{
	struct kprobe *cur = kprobe_running();
	unsigned long status = get_kprobe_ctlblk()->kprobe_status;
	kprobe_fault_handler_t fh;

	if (status != KPROBE_HIT_ACTIVE && status != KPROBE_HIT_SSDONE)
		return false;
	fh = cur ? READ_ONCE(cur->fault_handler) : NULL;
	return fh && fh(cur, regs, trap);
}

NOKPROBE_SYMBOL(kprobe_compat_fault);

/* Arches that take their breakpoint traps from the die chain define it. */
int __weak kprobe_exceptions_notify(struct notifier_block *self,
				    unsigned long val, void *data)
{
	return NOTIFY_DONE;
}

/**
 * arch_trampoline_kprobe() - is @p the arch's probe on its return trampoline
 * @p: a probe (kprobe_running())
 *
 * powerpc, mips, parisc, loongarch, csky and arc define it; the others
 * have no such probe.
 *
 * Return: nonzero when the return handlers run inside @p's pre_handler.
 */
int __weak arch_trampoline_kprobe(struct kprobe *p)
{
	return 0;
}

NOKPROBE_SYMBOL(arch_trampoline_kprobe);

static struct notifier_block kprobe_die_nb = {
	.notifier_call = kprobe_exceptions_notify,
	/* a breakpoint of ours is seen before any other die notifier */
	.priority = INT_MAX,
};

static int __init kprobes_compat_init(void)
{
	int ret = register_die_notifier(&kprobe_die_nb);

	if (ret)
		pr_err("cannot register the die notifier (%d)\n", ret);
	return ret;
}
early_initcall(kprobes_compat_init);

#if defined(CONFIG_KRETPROBES) && !defined(CONFIG_KRETPROBE_ON_RETHOOK)
/* kernel/kretprobes.c hijacks a return through the arch's hook. */
void arch_kretprobe_hijack(struct kretprobe_instance *ri,
			   struct pt_regs *regs)
{
	arch_prepare_kretprobe(ri, regs);
}

NOKPROBE_SYMBOL(arch_kretprobe_hijack);

/**
 * __kretprobe_trampoline_handler() - the arch trampoline's way in
 * @regs: registers as at the return
 * @fp: the frame arch_prepare_kretprobe() recorded in kretprobe_instance.fp
 *
 * Runs the handlers of the returns of @fp (see
 * kretprobe_trampoline_return()), then lets the arch (parisc) put the
 * real return address in its own place in @regs.
 *
 * Return: the address the probed function really returns to.
 */
unsigned long __kretprobe_trampoline_handler(struct pt_regs *regs, void *fp)
{
	unsigned long to = kretprobe_trampoline_return(regs, fp, NULL);

	arch_kretprobe_fixup_return(regs, (kprobe_opcode_t *)to);
	return to;
}

NOKPROBE_SYMBOL(__kretprobe_trampoline_handler);

/* Only parisc keeps the return address anywhere but the pc. */
void __weak arch_kretprobe_fixup_return(struct pt_regs *regs,
					kprobe_opcode_t *to)
{
}
#endif

#ifdef CONFIG_OPTPROBES
/*
 * Jump optimization on arm and powerpc.  Their optprobes code replaces
 * one instruction with a branch to a detour buffer whose callback runs
 * opt_pre_handler() on the op's embedded copy of the site; the optimizer
 * of kernel/kprobes_opt.c decides when, as for x86 and arm64, and calls
 * in here (kprobes_internal.h: kprobe_opt_arch_*()).  The region being one
 * instruction, nothing the optimizer promises about a region's tail
 * asks anything of this arch code.
 */

/*
 * The mark of an op's own kprobe, which only arm's and powerpc's optprobes
 * code sees: nothing calls it (they call opt_pre_handler() directly).
 */
static int opt_kp_mark(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

/*
 * When another probe is running on this CPU, arm's and powerpc's detour
 * callbacks count the hit they skip on &op->kp, which is none of the
 * users' probes: kprobes_inc_nmissed_count() asks here whose it is, and
 * counts it on the site (each of its probes), as a breakpoint hit would.
 * NULL once the site is retired: then nobody is left to count it on.
 */
struct kprobe *kprobe_opt_compat_site(struct kprobe *p)
{
	struct optimized_kprobe *op;

	if (p->pre_handler != opt_kp_mark)
		return p;
	op = container_of(p, struct optimized_kprobe, kp);
	return READ_ONCE(op->live);
}

NOKPROBE_SYMBOL(kprobe_opt_compat_site);

/* kprobe_mutex held; @sp is armed with its breakpoint. */
int kprobe_opt_arch_prepare(struct optimized_kprobe *op, struct kprobe *sp)
{
	int ret;

	op->site = sp;
	INIT_LIST_HEAD(&op->list);
	op->kp.pre_handler = opt_kp_mark;
	op->kp.addr = sp->addr;
	op->kp.opcode = sp->opcode;
	op->kp.ainsn = sp->ainsn;
	/* as for arch_prepare_kprobe(): they patch their buffers as text */
	scoped_guard(kprobe_text)
		ret = arch_prepare_optimized_kprobe(op, sp);
	/* arm records in @sp whether the detour runs the instruction itself */
	op->kp.ainsn = sp->ainsn;
	return ret;
}

/* Inside the region and past its first byte: never, for one instruction. */
bool kprobe_opt_arch_within(struct optimized_kprobe *op, unsigned long addr)
{
	return addr != (unsigned long)op->kp.addr &&
	       arch_within_optimized_kprobe(op, (kprobe_opcode_t *)addr);
}

/*
 * The ops of @ops (linked by ->queue) become branches: the optimizer
 * holds kprobe_mutex, cpus_read_lock() and text_mutex, and every site is
 * armed and enabled.
 */
void kprobe_opt_arch_optimize(struct list_head *ops)
{
	struct optimized_kprobe *op;
	LIST_HEAD(batch);

	list_for_each_entry(op, ops, queue)
		list_add_tail(&op->list, &batch);
	arch_optimize_kprobes(&batch);
	/* each is taken off the batch once its branch is written */
	WARN_ON_ONCE(!list_empty(&batch));
	list_for_each_entry(op, ops, queue) {
		op->kp.flags |= KPROBE_FLAG_OPTIMIZED;
		op->site->flags |= KPROBE_FLAG_OPTIMIZED;
	}
}

/*
 * The branches of @ops go back to breakpoints (the arch arms op->kp over
 * each), same locks.  The text of a GONE site is freed: left alone.
 */
void kprobe_opt_arch_unoptimize(struct list_head *ops)
{
	struct optimized_kprobe *op, *tmp;
	LIST_HEAD(batch);
	LIST_HEAD(done);

	list_for_each_entry(op, ops, queue)
		if (!kprobe_gone(op->site))
			list_add_tail(&op->list, &batch);
	arch_unoptimize_kprobes(&batch, &done);
	list_for_each_entry_safe(op, tmp, &done, list)
		list_del_init(&op->list);
	list_for_each_entry(op, ops, queue) {
		op->kp.flags &= ~KPROBE_FLAG_OPTIMIZED;
		op->site->flags &= ~KPROBE_FLAG_OPTIMIZED;
	}
}

/*
 * The site is being unregistered (op->live is NULL already): powerpc's
 * callback returns at once for a disabled op->kp.  A task already past
 * that test finds op->live NULL in opt_pre_handler().
 */
void kprobe_opt_arch_retire(struct optimized_kprobe *op)
{
	WRITE_ONCE(op->kp.flags, op->kp.flags | KPROBE_FLAG_DISABLED);
}

/**
 * opt_pre_handler() - the pre_handlers of an optimized probe's site
 * @p: the op's kprobe (&op->kp), which the arch callback made the
 *	running probe of this CPU
 * @regs: the registers at the probed instruction
 *
 * For arm's and powerpc's detour callbacks, with preemption (arm:
 * interrupts) disabled, after their kprobe_running() test: runs what a
 * breakpoint hit on the site would run before the step.  Nothing once
 * the site is retired or disabled; an instruction pointer a handler sets
 * is not followed (the detour goes on to the next instruction), as on
 * these arches before.
 */
void opt_pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	struct optimized_kprobe *op = container_of(p, struct optimized_kprobe, kp);
	struct kprobe *sp = READ_ONCE(op->live);

	/* the arch did kprobe_missed()'s test, and resets current_kprobe */
	if (sp)
		kprobe_enter_pre(sp, regs);
}

NOKPROBE_SYMBOL(opt_pre_handler);
#endif /* CONFIG_OPTPROBES */
