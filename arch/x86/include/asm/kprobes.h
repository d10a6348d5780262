/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * x86 kprobes: an int3 on the first byte of the probed instruction.
 *
 * How a hit runs (arch/x86/kernel/kprobes/core.c):
 *  - relative branches, calls, returns, loops and indirect register
 *    branches are emulated in the int3 handler: one trap, no slot;
 *  - anything else runs out of line from an instruction slot:
 *      slot[0 .. len)                 the copy, followed by an int3 that
 *                                     brings us back (the "stepped" copy);
 *      slot[KPROBE_BOOST_OFFSET ..)   a second copy followed by a jmp back
 *                                     to addr + len (the "boosted" copy,
 *                                     only when the instruction allows it);
 *    RIP-relative displacements are adjusted for each copy.
 */
#ifndef _ASM_X86_KPROBES_H
#define _ASM_X86_KPROBES_H

#include <asm-generic/kprobes.h>

#ifdef CONFIG_KPROBES

#include <linux/types.h>
#include <linux/ptrace.h>
#include <linux/percpu.h>
#include <asm/insn.h>
#include <asm/text-patching.h>

#define  __ARCH_WANT_KPROBES_INSN_SLOT

typedef u8 kprobe_opcode_t;

#define BREAKPOINT_INSTRUCTION		INT3_INSN_OPCODE

/* Bytes of one instruction slot and where its boosted copy starts. */
#define KPROBE_INSN_SLOT_SIZE		64
#define KPROBE_BOOST_OFFSET		32

struct kprobe;
struct pt_regs;

/**
 * enum kprobe_x86_kind - how the probed instruction is executed
 * @KPX_STEP: out of line from the slot, back through the int3 after it
 * @KPX_JMP: emulated relative jmp (rel8/rel32)
 * @KPX_CALL: emulated relative call
 * @KPX_JCC: emulated conditional jump
 * @KPX_LOOP: emulated loop/loopz/loopnz/jrcxz
 * @KPX_RET: emulated near return (with optional stack release)
 * @KPX_JMP_IND: emulated jmp through a register or memory operand
 * @KPX_CALL_IND: emulated call through a register or memory operand
 */
enum kprobe_x86_kind {
	KPX_STEP,
	KPX_JMP,
	KPX_CALL,
	KPX_JCC,
	KPX_LOOP,
	KPX_RET,
	KPX_JMP_IND,
	KPX_CALL_IND,
};

/* arch_specific_insn.fix: what the stepped copy needs afterwards */
#define KPX_FIX_PUSHF	BIT(0)	/* pushf: put back the IF/TF we hid */
#define KPX_FIX_POPF	BIT(1)	/* popf: the popped flags stand */
#define KPX_FIX_CLI	BIT(2)	/* cli: IF ends clear */
#define KPX_FIX_STI	BIT(3)	/* sti: IF ends set */

/**
 * struct arch_specific_insn - the decoded probed instruction
 * @insn: instruction slot (NULL for emulated kinds)
 * @len: length of the instruction
 * @kind: an enum kprobe_x86_kind
 * @boostable: the boosted copy exists in the slot
 * @fix: KPX_FIX_* flags
 * @cc: condition code of a jcc, or opcode low bits of a loop
 * @addr32: a loop counts in ecx instead of rcx
 * @modrm: ModRM byte of an indirect branch
 * @sib: SIB byte of an indirect branch
 * @rex: REX prefix of an indirect branch (0 if none)
 * @disp: relative displacement, memory displacement, or ret's imm16
 */
struct arch_specific_insn {
	kprobe_opcode_t *insn;
	u8 len;
	u8 kind;
	u8 boostable;
	u8 fix;
	u8 cc;
	u8 addr32;
	u8 modrm;
	u8 sib;
	u8 rex;
	s32 disp;
};

/*
 * Per-CPU control block.  @status is one of the KPROBE_* states of
 * <linux/kprobes.h>.  While the stepped copy runs, the IF and TF bits the
 * interrupted context had are kept in @flags and cleared in its regs, so
 * nothing but an NMI can interleave with the step.  @saved holds the state
 * of the probe we interrupted when a probe is hit while another one on
 * this CPU is being stepped (one level, as an NMI can do).
 */
struct kprobe_ctlblk {
	unsigned long status;
	unsigned long flags;
	struct {
		struct kprobe *kp;
		unsigned long status;
		unsigned long flags;
	} saved;
};

int kprobe_int3_handler(struct pt_regs *regs);

/* Instruction boundary check used by the core and optimizers. */
bool can_probe(unsigned long addr);

#endif /* CONFIG_KPROBES */
#endif /* _ASM_X86_KPROBES_H */
