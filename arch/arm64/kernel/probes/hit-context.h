/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The context of a kprobes handler on arm64, for the hit paths that take
 * no exception: the post copy's trampoline (kprobes.c), a detour buffer
 * (opt.c) and the kretprobe trampoline (kretprobe.c).  Every handler must
 * see what a BRK gives it, whatever the path:
 *
 *  - DAIF all masked.  Taking an exception to EL1 sets PSTATE.{D,A,I,F}
 *    (Arm ARM D1.3, "Taking an exception to AArch64 state"), and el1_dbg
 *    never unmasks (no local_daif_inherit(), entry-common.c): no
 *    interrupt, pseudo-NMI, SError or watchpoint nests in a handler, and
 *    a fault taken there is the handler's own (kprobe_page_fault()).
 *  - With pseudo-NMIs, ICC_PMR_EL1 = GIC_PRIO_IRQON | GIC_PRIO_PSR_I_SET,
 *    as kernel_entry leaves it (entry.S), the interrupted mask in
 *    pt_regs::pmr_save.
 *  - PSTATE.PAN set: the kernel runs with SCTLR_EL1.SPAN clear
 *    (cpu_enable_pan()), so an exception to EL1 sets PAN; without
 *    hardware PAN, __swpan_entry_el1 points TTBR0_EL1 at the reserved
 *    tables and records the emulated PAN bit in the saved PSTATE.
 *  - RCU watching (arm64_enter_el1_dbg(): ct_nmi_enter()), lockdep told
 *    that interrupts are off, preemption off (interrupts are).  The C
 *    entry points of these paths are noinstr, as el1_dbg() is: no
 *    function tracer, BPF fentry or sanitizer runs in them before RCU
 *    watches (instrumentation_begin() marks where it does) nor after
 *    ct_nmi_exit().
 *  - pt_regs: x0-x30, sp, pc, and the PSTATE the exception saved (the
 *    mode, EL1h or, with VHE, EL2h; NZCV, DAIF, PAN, SSBS, DIT, TCO, with
 *    BTYPE clear once the probe owns it);
 *    pmr_save; orig_x0 and syscallno, which an EL1 entry leaves as they
 *    were on the stack: every kprobes path, the BRK's included, sets them
 *    to x0 and NO_SYSCALL, so that no handler sees stack garbage there.
 *
 * Not matched (nothing in a handler should depend on them): the live
 * PSTATE.TCO and PSTATE.SSBS of the handler itself, which an exception
 * entry sets from SCTLR_EL1 (TCO to 1, SSBS to SCTLR_EL1.DSSBS); the
 * fast paths leave them as the probed code had them.  pt_regs shows the
 * probed code's values on every path.
 */
#ifndef _ARM64_KERNEL_KPROBES_HIT_CONTEXT_H
#define _ARM64_KERNEL_KPROBES_HIT_CONTEXT_H

#include <linux/context_tracking_irq.h>
#include <linux/instrumentation.h>
#include <linux/kprobes.h>

#include <asm/barrier.h>
#include <linux/cpufeature.h>
#include <asm/daifflags.h>
#include <asm/ptrace.h>
#include <asm/sysreg.h>
#include <asm/virt.h>
#include <linux/uaccess.h>

#include "decode-insn.h"

/* PSTATE fields an exception saves, read with MRS (FEAT_DIT, SSBS2, MTE) */
#define A64_SYS_DIT	sys_reg(3, 3, 4, 2, 5)
#define A64_SYS_SSBS	sys_reg(3, 3, 4, 2, 6)
#define A64_SYS_TCO	sys_reg(3, 3, 4, 2, 7)

/* The C half of kretprobe_trampoline (kretprobe.c) */
__visible unsigned long kretprobe_arm64_return(struct pt_regs *regs);

/* The priority mask an exception entry sets (kernel_entry, entry.S) */
#define A64_ENTRY_PMR	(GIC_PRIO_IRQON | GIC_PRIO_PSR_I_SET)

/**
 * struct a64_hit_ctx - the probed code's state while a handler runs
 * @daif: its DAIF bits
 * @pmr: with pseudo-NMIs, its priority mask
 * @pan: its PSTATE.PAN (hardware PAN), or whether TTBR0 access was off
 *	(software PAN): PSR_PAN_BIT or 0, as an exception would save it
 * @rcu: RCU was not watching: ct_nmi_enter() was called
 * @lockdep: lockdep saw interrupts on (kprobe_lockdep_irqs_off())
 */
struct a64_hit_ctx {
	unsigned long daif;
	u64 pmr;
	u64 pan;
	bool rcu;
	bool lockdep;
};

/* Whether user access is off now, as the PAN bit of a saved PSTATE. */
static __always_inline u64 a64_pan_now(void)
{
	if (system_uses_hw_pan())
		return read_sysreg_s(SYS_PSTATE_PAN) & PSR_PAN_BIT;
	/* __swpan_entry_el1: the reserved ASID means TTBR0 access is off */
	if (system_uses_ttbr0_pan())
		return read_sysreg(ttbr0_el1) & TTBR_ASID_MASK ? 0 : PSR_PAN_BIT;
	return 0;
}

/*
 * Turn user access off as an exception entry does, when @pan says the
 * probed code had it on: PSTATE.PAN set (FEAT_PAN: taking an exception
 * to EL1 sets it when SCTLR_EL1.SPAN is 0), or TTBR0_EL1 pointed at the
 * reserved tables (__swpan_entry_el1).
 */
static __always_inline void a64_uaccess_off(u64 pan)
{
	if (pan)
		return;
	if (system_uses_hw_pan())
		set_pstate_pan(1);
#ifdef CONFIG_ARM64_SW_TTBR0_PAN
	else if (system_uses_ttbr0_pan())
		__uaccess_ttbr0_disable();
#endif
}

/* Give the probed code its user access back (@pan from a64_pan_now()). */
static __always_inline void a64_uaccess_restore(u64 pan)
{
	if (pan)
		return;
	if (system_uses_hw_pan())
		set_pstate_pan(0);
#ifdef CONFIG_ARM64_SW_TTBR0_PAN
	else if (system_uses_ttbr0_pan())
		__uaccess_ttbr0_enable();
#endif
}

/*
 * Mask everything as the debug exception does, with the priority mask
 * its entry sets.  No tracing here: lockdep is told apart.
 */
static __always_inline void a64_mask_as_exception(void)
{
	asm volatile("msr daifset, #0xf" : : : "memory");
	if (system_uses_irq_prio_masking())
		write_sysreg_s(A64_ENTRY_PMR, SYS_ICC_PMR_EL1);
}

/*
 * What a64_hit_enter() does once everything is masked: user access off,
 * RCU watching (as arm64_enter_el1_dbg() makes it: ct_nmi_enter(), which
 * nests anywhere), lockdep told.  The post copy's trampoline comes here
 * straight: it runs with everything masked since the BRK, and knows the
 * probed code's PAN (@pan, as a saved PSTATE has it) from the BRK.
 * @ctx needs no initialization (callers may declare it __uninitialized).
 */
static __always_inline void __a64_hit_enter_masked(struct a64_hit_ctx *ctx,
						   u64 pan)
{
	ctx->pan = pan;
	a64_uaccess_off(pan);
	/* lockdep's calls too need RCU watching */
	ctx->rcu = a64_rcu_not_watching();
	if (unlikely(ctx->rcu))
		ct_nmi_enter();
	ctx->lockdep = kprobe_lockdep_irqs_off();
}

static __always_inline void a64_hit_enter_masked(struct a64_hit_ctx *ctx)
{
	__a64_hit_enter_masked(ctx, a64_pan_now());
}

/**
 * a64_hit_enter() - enter a handler's context without an exception
 * @ctx: where the probed code's state is kept for a64_hit_exit()
 *
 * For the detour buffer and the kretprobe trampoline, entered with the
 * probed code's DAIF, priority mask and user access: mask as the debug
 * exception does, turn user access off, make RCU watch and tell lockdep.
 */
static __always_inline void a64_hit_enter(struct a64_hit_ctx *ctx)
{
	ctx->daif = read_sysreg(daif);
	ctx->pmr = system_uses_irq_prio_masking() ?
		   read_sysreg_s(SYS_ICC_PMR_EL1) : 0;
	a64_mask_as_exception();
	a64_hit_enter_masked(ctx);
}

/*
 * The end of a handler's context but for the interrupt masks: lockdep,
 * RCU and user access as the probed code had them.  Interrupts stay
 * masked: the caller unmasks (a64_hit_exit()) or lets an exception
 * return do it.
 */
static __always_inline void a64_hit_leave(struct a64_hit_ctx *ctx,
					  bool lockdep)
{
	if (lockdep)
		kprobe_lockdep_irqs_on(ctx->lockdep);
	if (unlikely(ctx->rcu))
		ct_nmi_exit();
	a64_uaccess_restore(ctx->pan);
}

/**
 * a64_hit_exit() - back to the probed code's context
 * @ctx: what a64_hit_enter() saved
 *
 * The priority mask first, with everything still masked, then DAIF, as
 * kernel_exit does (the PMR write synchronised, pmr_sync(), before any
 * interrupt may be taken).
 */
static __always_inline void a64_hit_exit(struct a64_hit_ctx *ctx)
{
	a64_hit_leave(ctx, true);
	if (system_uses_irq_prio_masking()) {
		write_sysreg_s(ctx->pmr, SYS_ICC_PMR_EL1);
		pmr_sync();
	}
	write_sysreg(ctx->daif, daif);
}

/*
 * orig_x0 and syscallno, which an exception entry from EL1 does not write
 * (entry.S sets syscallno for EL0 only): what every kprobes path gives.
 */
static __always_inline void a64_regs_not_syscall(struct pt_regs *regs)
{
	regs->orig_x0 = regs->regs[0];
	regs->syscallno = NO_SYSCALL;
}

/**
 * __a64_ssbs_now() - PSTATE.SSBS, as an exception taken here would save it
 * @ssbs2: every CPU has FEAT_SSBS2 (HWCAP_SSBS): the register may be read
 *
 * The SSBS special-purpose register, which MRS reads, is present only
 * with FEAT_SSBS2 (ID_AA64PFR1_EL1.SSBS >= 0b0010); with FEAT_SSBS alone
 * (0b0001, all that ARM64_SSBS needs) PSTATE.SSBS exists but a direct
 * access to that register is UNDEFINED (Arm ARM, the SSBS special-purpose
 * register).  HWCAP_SSBS is FEAT_SSBS2 on every CPU (cpufeature.c
 * refuses a late CPU without it), so MRS only then.  Otherwise the
 * kernel's PSTATE.SSBS is what every exception entry to this EL sets it
 * to, SCTLR_ELx.DSSBS: the kernel writes PSTATE.SSBS only to make the two
 * agree (spectre_v4_enable_hw_mitigation()), and an exception return to
 * kernel code restores the value an entry set.
 *
 * Return: PSR_SSBS_BIT or 0.
 */
static __always_inline u64 __a64_ssbs_now(bool ssbs2)
{
	if (!cpus_have_final_cap(ARM64_SSBS))
		return 0;
	if (ssbs2)
		return read_sysreg_s(A64_SYS_SSBS) & PSR_SSBS_BIT;
	return read_sysreg(sctlr_el1) & SCTLR_ELx_DSSBS ? PSR_SSBS_BIT : 0;
}

static __always_inline u64 a64_ssbs_now(void)
{
	return __a64_ssbs_now(cpu_have_named_feature(SSBS));
}

/**
 * a64_hit_regs() - complete a pt_regs laid by a trampoline
 * @regs: x0-x30, sp, pc, NZCV and DAIF as the trampoline saved them
 * @ctx: the probed code's state (a64_hit_enter())
 *
 * As an exception entry would have saved them: the priority mask in
 * pmr_save; the mode, PAN (the emulated bit with software PAN), DIT,
 * SSBS and TCO in pstate; orig_x0 and syscallno as every kprobes path
 * sets them.  The mode is the kernel's EL with SP_ELx: EL1h, or EL2h on
 * a VHE host, where the BRK paths' SPSR_EL2 says so.
 */
static __always_inline void a64_hit_regs(struct pt_regs *regs,
					 const struct a64_hit_ctx *ctx)
{
	u64 pstate = ctx->pan | (has_vhe() ? PSR_MODE_EL2h : PSR_MODE_EL1h);

	regs->pmr_save = ctx->pmr;
	if (cpus_have_final_cap(ARM64_HAS_DIT))
		pstate |= read_sysreg_s(A64_SYS_DIT) & PSR_DIT_BIT;
	pstate |= a64_ssbs_now();
	if (cpus_have_final_cap(ARM64_MTE))
		pstate |= read_sysreg_s(A64_SYS_TCO) & PSR_TCO_BIT;
	regs->pstate |= pstate;
	a64_regs_not_syscall(regs);
}

#endif /* _ARM64_KERNEL_KPROBES_HIT_CONTEXT_H */
