// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The arch contract of CONFIG_KPROBES_COMPAT (see <linux/kprobes_compat.h>):
 * what the kprobes code of every architecture but x86_64 and arm64 expects
 * from the core, on top of this one.
 *
 * Their breakpoint and single-step handlers drive the hit themselves with
 * their own current_kprobe and kprobe_ctlblk (the core uses the same
 * per-CPU current_kprobe, which their code defines); get_kprobe()
 * gives them a site's probe, whose handlers dispatch to every probe of
 * the site, so they need nothing more on the hit path.  What is left is
 * wiring: the die notifier, text_mutex around arch_prepare_kprobe(), and
 * the return probe glue of the arches without rethook.
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
 * The arch code of these architectures predates fault_handler (upstream
 * dropped it): kprobe_page_fault() asks here first.  A fault while a
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
