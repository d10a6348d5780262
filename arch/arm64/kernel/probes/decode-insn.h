/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A64 instruction triage for kprobes.
 *
 * Every A64 instruction a probe may land on is put in one of three bins:
 * copied to an out-of-line slot and executed there, emulated in C by the
 * BRK handler, or refused.  kprobes and uprobes share it: uprobes.c
 * calls arm_probe_decode_insn() and the emulation handlers it records.
 *
 * Copyright (C) 2013 Linaro Limited.
 */
#ifndef _ARM64_KERNEL_KPROBES_DECODE_INSN_H
#define _ARM64_KERNEL_KPROBES_DECODE_INSN_H

#include <linux/context_tracking.h>
#include <linux/types.h>
#include <asm/probes.h>

/**
 * enum a64_probe_action - what a probe does with the instruction it replaces
 * @A64_PROBE_REFUSE: the instruction cannot be probed (-EINVAL)
 * @A64_PROBE_SIMULATE: the BRK handler emulates it; no slot is needed
 * @A64_PROBE_XOL: it runs unchanged from an out-of-line slot
 */
enum a64_probe_action {
	A64_PROBE_REFUSE,
	A64_PROBE_SIMULATE,
	A64_PROBE_XOL,
};

enum a64_probe_action a64_probe_classify(u32 insn, struct arch_probe_insn *api);
enum a64_probe_action a64_kprobe_classify(u32 *addr,
					  struct arch_probe_insn *api);
bool a64_probe_boostable(u32 insn);
bool a64_bti_target_ok(u32 insn, u64 btype, bool bt);

/**
 * enum probes_insn - what a uprobe does with a user instruction
 * @INSN_REJECTED: it cannot be probed
 * @INSN_GOOD_NO_SLOT: arch_probe_insn.handler emulates it
 * @INSN_GOOD: it is single-stepped from the XOL slot
 *
 * The names are those arch/arm64/kernel/probes/uprobes.c uses.
 */
enum probes_insn {
	INSN_REJECTED,
	INSN_GOOD_NO_SLOT,
	INSN_GOOD,
};

enum probes_insn arm_probe_decode_insn(u32 insn, struct arch_probe_insn *api);

/*
 * For the kprobes hit paths that enter no exception (the post copy's
 * trampoline, a detour buffer, the kretprobe trampoline): whether RCU is
 * not watching this CPU (between ct_idle_enter() and ct_idle_exit()).
 * Without CONTEXT_TRACKING_IDLE, RCU watches everywhere.  Inline: the
 * out-of-line rcu_is_watching() costs a hit some 25 instructions.  With
 * interrupts masked the answer is exact; where the caller may migrate
 * (preemptible, so RCU is watching) a stale "not watching" only makes it
 * take ct_nmi_enter(), which nests anywhere, for nothing.
 */
static __always_inline bool a64_rcu_not_watching(void)
{
#ifdef CONFIG_CONTEXT_TRACKING_IDLE
	return !rcu_is_watching_curr_cpu();
#else
	return false;
#endif
}

#endif /* _ARM64_KERNEL_KPROBES_DECODE_INSN_H */
