/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * arm64 kprobes: a BRK #KPROBES_BRK_IMM replaces the probed instruction.
 * The instruction then either runs from an out-of-line slot that ends with
 * BRK #KPROBES_BRK_SS_IMM, or is emulated by the BRK handler.  No hardware
 * single-step is involved.
 *
 * Copyright (C) 2013 Linaro Limited
 */
#ifndef _ARM64_KPROBES_H
#define _ARM64_KPROBES_H

#include <asm-generic/kprobes.h>

#ifdef CONFIG_KPROBES

#include <linux/percpu.h>
#include <linux/types.h>
#include <asm/brk-imm.h>
#include <asm/debug-monitors.h>
#include <asm/probes.h>

/*
 * One A64 instruction per probe.  A slot holds it three times: followed
 * by the step-end BRK, by a branch back, and by a branch to
 * a64_step_trampoline (see kprobes.c).
 */
#define MAX_INSN_SIZE			1
#define KPROBE_INSN_SLOT_SIZE		(6 * AARCH64_INSN_SIZE)

#define BREAKPOINT_INSTRUCTION		BRK64_OPCODE_KPROBES

struct pt_regs;
struct kprobe;

/**
 * struct kprobe_ctlblk - per-CPU state of the probe being handled
 * @status: KPROBE_HIT_* (the core's convention)
 * @probe: the site whose instruction is executing out of line
 * @saved_daif: the interrupted context's DAIF bits, restored after the
 *	out-of-line step (which runs with IRQ and FIQ masked)
 * @saved_pmr: with pseudo-NMIs, the interrupted context's priority mask,
 *	also restored after the step (which runs with it at GIC_PRIO_IRQOFF,
 *	so that the kernel's view of the step is "interrupts off" too)
 * @post_pstate: while the slot's post copy runs, the PSTATE to resume
 *	with but for NZCV (which the copied instruction sets): the
 *	interrupted one, DAIF included, with BTYPE clear
 * @prev: the interrupted probe's state while a probe hit from inside a
 *	handler (KPROBE_REENTER) is stepped
 * @prev.kp: its current_kprobe
 * @prev.status: its @status
 * @prev.probe: its @probe
 * @prev.saved_daif: its @saved_daif
 * @prev.saved_pmr: its @saved_pmr
 */
struct kprobe_ctlblk {
	unsigned long status;
	struct kprobe *probe;
	unsigned long saved_daif;
	u64 saved_pmr;
	u64 post_pstate;
	struct {
		struct kprobe *kp;
		unsigned long status;
		struct kprobe *probe;
		unsigned long saved_daif;
		u64 saved_pmr;
	} prev;
};

/*
 * jprobes: only the interrupted registers go back at the end of a
 * handler; the rest of struct pt_regs is the exception entry's own.
 */
#define arch_jprobe_restore_regs(regs, saved)	\
	((regs)->user_regs = (saved)->user_regs)
/* jprobe_return() leaves the handler's stack pointer in x1 for its BRK. */
#define arch_jprobe_handler_sp(r)	((r)->regs[1])

int kprobe_brk_handler(struct pt_regs *regs, unsigned long esr);
int kprobe_ss_brk_handler(struct pt_regs *regs, unsigned long esr);
int kretprobe_brk_handler(struct pt_regs *regs, unsigned long esr);
/* The end of a slot's post copy (kprobes_trampoline.S, kprobes.c) */
void a64_step_trampoline(void);
__visible void a64_step_callback(struct pt_regs *regs);
/* Patch kernel text words, with a PERF_RECORD_TEXT_POKE for each */
int arm64_kprobe_patch_text(void **addrs, u32 *insns, int n);

/*
 * Jump optimization: the probed instruction becomes a B to a detour
 * buffer of KPROBE_OPTINSN_SLOT_SIZE bytes within branch range.
 */
#define KPROBE_OPTINSN_SLOT_SIZE	256
/* The B replaces the probed instruction alone. */
#define KPROBE_OPT_REGION_MAX		AARCH64_INSN_SIZE

/**
 * struct arch_optimized_insn - the arm64 part of an optimized probe
 * @buf: its detour buffer (see opt.c)
 */
struct arch_optimized_insn {
	kprobe_opcode_t *buf;
};

#ifdef CONFIG_OPTPROBES
struct optimized_kprobe;

bool kprobe_opt_exit_brk(struct pt_regs *regs);
__visible unsigned long a64_optprobe_hit(struct optimized_kprobe *op,
					 struct pt_regs *regs);

/* Where a detour buffer goes when a pre_handler moved the pc */
void a64_opt_exit(void);
extern const u32 a64_opt_exit_brk[];

/* The detour buffer's template (kprobes_trampoline.S), never run there */
extern const u32 a64_opt_tmpl[], a64_opt_tmpl_insn[], a64_opt_tmpl_exit[];
extern const u64 a64_opt_tmpl_op[], a64_opt_tmpl_addr[];
extern const u64 a64_opt_tmpl_call[], a64_opt_tmpl_lit[], a64_opt_tmpl_end[];
#else
static inline bool kprobe_opt_exit_brk(struct pt_regs *regs)
{
	return false;
}
#endif

#endif /* CONFIG_KPROBES */

#endif /* _ARM64_KPROBES_H */
