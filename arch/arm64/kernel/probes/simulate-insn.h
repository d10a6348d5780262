/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Emulation of the A64 instructions that cannot run from an out-of-line
 * slot because they read or write the PC.
 *
 * Copyright (C) 2013 Linaro Limited
 */
#ifndef _ARM64_KERNEL_KPROBES_SIMULATE_INSN_H
#define _ARM64_KERNEL_KPROBES_SIMULATE_INSN_H

#include <asm/probes.h>

/*
 * Each emulator follows probes_handler_t: @insn is the original
 * instruction, @pc the address it was fetched from, and @regs the state
 * to update as the instruction would have, including the new PC.
 */
probes_handler_t a64_sim_pcrel_addr;	/* adr, adrp */
probes_handler_t a64_sim_branch_imm;	/* b, bl */
probes_handler_t a64_sim_branch_cond;	/* b.cond, bc.cond */
probes_handler_t a64_sim_cmp_branch;	/* cbz, cbnz */
probes_handler_t a64_sim_test_branch;	/* tbz, tbnz */
probes_handler_t a64_sim_branch_reg;	/* br, blr, ret */
probes_handler_t a64_sim_load_lit;	/* ldr, ldrsw (literal) */
probes_handler_t a64_sim_load_lit_fp;	/* ldr s/d/q (literal) */
probes_handler_t a64_sim_nop;		/* prfm (literal) */
probes_handler_t a64_sim_mrs_pmr;	/* mrs xN, ICC_PMR_EL1 (pseudo-NMIs) */

#endif /* _ARM64_KERNEL_KPROBES_SIMULATE_INSN_H */
