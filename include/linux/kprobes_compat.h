/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The arch interface of the architectures of CONFIG_KPROBES_COMPAT: every
 * architecture with kprobes but x86_64 and arm64.  Included by
 * <linux/kprobes.h> only.
 *
 * Their code predates this core and keeps its own contract with it, which
 * kernel/kprobes_compat.c (and, for return probes on rethook,
 * kernel/kretprobes_rethook.c) implements on top of ours:
 *
 * - the arch defines the per-CPU kprobe_ctlblk (its own struct, with a
 *   "kprobe_status" field) and current_kprobe, which the core reads and
 *   writes as its own (kprobe_running());
 * - it declares its own kprobe_fault_handler();
 * - some define kprobe_exceptions_notify(), which the core puts on the
 *   die notifier chain;
 * - arch_prepare_kprobe() runs with text_mutex held (some write the
 *   instruction slot with their text patching helpers);
 * - return probes: arches without rethook provide arch_prepare_kretprobe()
 *   and a trampoline, __kretprobe_trampoline, which calls
 *   kretprobe_trampoline_handler(); arches with rethook hook returns
 *   through it (CONFIG_KRETPROBE_ON_RETHOOK).
 */
#ifndef _LINUX_KPROBES_COMPAT_H
#define _LINUX_KPROBES_COMPAT_H

#ifndef _LINUX_KPROBES_H
#error "include <linux/kprobes.h>, not <linux/kprobes_compat.h>"
#endif

struct notifier_block;

int kprobe_exceptions_notify(struct notifier_block *self, unsigned long val,
			     void *data);
/* Is @p the arch's own probe on its kretprobe trampoline?  (powerpc) */
int arch_trampoline_kprobe(struct kprobe *p);

#ifdef CONFIG_KPROBES_ON_FTRACE
/* The name the arch ftrace handlers test. */
#define kprobe_ftrace_disabled	kprobe_ftrace_dead
#endif

/*
 * Functions whose return no kretprobe may watch: arches define the array
 * (empty everywhere today) and kretprobe_blacklist_size.
 */
struct kretprobe_blackpoint {
	const char *name;
	void *addr;
};

#if defined(CONFIG_KRETPROBES) && !defined(CONFIG_KRETPROBE_ON_RETHOOK)
/*
 * Return probes without rethook.  arch_prepare_kretprobe() (the arch)
 * saves the return address in @ri->ret_addr, the frame in @ri->fp and
 * makes the function return to __kretprobe_trampoline, whose handler
 * calls kretprobe_trampoline_handler() with the same frame.
 */
void arch_prepare_kretprobe(struct kretprobe_instance *ri,
			    struct pt_regs *regs);
void __kretprobe_trampoline(void);
/* The trampoline of kernel/kretprobes.c is the arch's. */
#define kretprobe_trampoline	__kretprobe_trampoline
void arch_kretprobe_fixup_return(struct pt_regs *regs, kprobe_opcode_t *to);
unsigned long __kretprobe_trampoline_handler(struct pt_regs *regs, void *fp);

/**
 * kretprobe_trampoline_handler() - a watched function returned
 * @regs: registers as at the return, built by the arch trampoline
 * @fp: the frame recorded by arch_prepare_kretprobe()
 *
 * Return: the address the function really returns to.
 */
static nokprobe_inline unsigned long
kretprobe_trampoline_handler(struct pt_regs *regs, void *fp)
{
	return __kretprobe_trampoline_handler(regs, fp);
}
#endif

#endif /* _LINUX_KPROBES_COMPAT_H */
