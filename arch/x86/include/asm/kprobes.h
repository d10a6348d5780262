/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * x86 kprobes: an int3 on the first byte of the probed instruction.
 *
 * How a hit runs (arch/x86/kernel/kprobes/core.c):
 *  - relative branches, calls, returns, loops, indirect branches and
 *    pushf/popf/cli/sti are emulated in the int3 handler: one trap, no
 *    slot (a memory-indirect branch keeps a slot for when its operand
 *    cannot be read, see core.c);
 *  - anything else runs out of line from an instruction slot:
 *      slot[0 .. len)                 the copy, followed by an int3 that
 *                                     brings us back (the "stepped" copy);
 *      slot[KPROBE_BOOST_OFFSET ..)   a second copy followed by a jmp back
 *                                     to addr + len (the "boosted" copy,
 *                                     only when the instruction allows it);
 *      slot[KPROBE_POST_OFFSET ..)    a third copy followed by a call of
 *                                     kprobe_step_trampoline, which runs
 *                                     the post_handlers (the "post" copy,
 *                                     present when the boosted one is);
 *    RIP-relative displacements are adjusted for each copy.
 *
 * Copyright (C) IBM Corporation, 2002, 2004
 *
 * See arch/x86/kernel/kprobes/core.c for x86 kprobes history.
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

/* Bytes of one instruction slot and where its copies start. */
#define KPROBE_INSN_SLOT_SIZE		64
#define KPROBE_BOOST_OFFSET		20
#define KPROBE_POST_OFFSET		42

struct kprobe;
struct pt_regs;
struct optimized_kprobe;

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
 * @KPX_PUSHF: emulated pushf
 * @KPX_POPF: emulated popf
 * @KPX_CLI: emulated cli
 * @KPX_STI: emulated sti
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
	KPX_PUSHF,
	KPX_POPF,
	KPX_CLI,
	KPX_STI,
};

/*
 * Kinds that run unchanged in a jump optimizer's detour copy (no trap
 * is involved there, so the flags instructions need no emulation).  Not
 * sti: its one-instruction interrupt shadow would cover the detour's jmp
 * back instead of the instruction after it ("sti; hlt").
 */
static inline bool kprobe_x86_straight(u8 kind)
{
	return kind == KPX_STEP || (kind >= KPX_PUSHF && kind != KPX_STI);
}

/**
 * struct arch_specific_insn - the decoded probed instruction
 * @insn: instruction slot (NULL for emulated kinds)
 * @len: length of the instruction
 * @kind: an enum kprobe_x86_kind
 * @boostable: the boosted and the post copies exist in the slot
 * @memop: an indirect branch through memory; the slot holds a "push" of
 *	its operand, stepped when the trap cannot read the operand itself
 * @cc: condition code of a jcc, or opcode low bits of a loop
 * @addr32: a loop counts in ecx instead of rcx
 * @modrm: ModRM byte of an indirect branch
 * @sib: SIB byte of an indirect branch
 * @rex: REX prefix of an indirect branch (0 if none)
 * @disp: relative displacement, memory displacement, or ret's imm16
 * @op: the site's jump optimization state once the optimizer prepared
 *	it (CONFIG_OPTPROBES), else NULL; read locklessly by the int3 path
 */
struct arch_specific_insn {
	kprobe_opcode_t *insn;
	u8 len;
	u8 kind;
	u8 boostable;
	u8 memop;
	u8 cc;
	u8 addr32;
	u8 modrm;
	u8 sib;
	u8 rex;
	s32 disp;
#ifdef CONFIG_OPTPROBES
	struct optimized_kprobe *op;
#endif
};

#ifdef CONFIG_OPTPROBES
/*
 * Jump optimization (arch/x86/kernel/kprobes/opt.c).  The first bytes of
 * the region are replaced by a jmp rel32 into the probe's detour buffer:
 *
 *   +KPROBE_OPT_OP     the struct optimized_kprobe (data)
 *   +KPROBE_OPT_IP     the probed address + 1: the ip the handlers see,
 *                      as after an int3 (data)
 *   +KPROBE_OPT_ENTRY  call kprobe_opt_trampoline   <- the jmp lands here
 *   +KPROBE_OPT_COPY   the region's instructions, relocated
 *                      jmp to the end of the region
 *
 * The trampoline finds the buffer from its return address; it saves a
 * struct pt_regs, runs the site's handlers, restores and returns to the
 * copy, or to the ip a pre_handler set when it returned nonzero.
 */
#define KPROBE_OPTINSN_SLOT_SIZE	64
/* At most a jmp rel32's first 4 bytes and then a whole instruction. */
#define KPROBE_OPT_REGION_MAX		(JMP32_INSN_SIZE - 1 + MAX_INSN_SIZE)
#define KPROBE_OPT_OP			0
#define KPROBE_OPT_IP			8
#define KPROBE_OPT_ENTRY		16
#define KPROBE_OPT_COPY			(KPROBE_OPT_ENTRY + CALL_INSN_SIZE)

/**
 * struct arch_optimized_insn - x86 part of an optimized probe
 * @detour: the detour buffer (an optinsn slot)
 * @len: bytes of the region (whole instructions, at least a jmp rel32)
 * @orig: the original bytes the jmp replaces (orig[0] is the opcode
 *	under the breakpoint)
 * @node: in the list of probes whose jmp is in the text
 */
struct arch_optimized_insn {
	kprobe_opcode_t *detour;
	u8 len;
	u8 orig[JMP32_INSN_SIZE];
	struct list_head node;
};

void kprobe_opt_fix_text(u8 *buf, unsigned long addr, size_t len);
struct optimized_kprobe;
/*
 * The trampolines' callbacks are called directly, never through a
 * pointer: no ENDBR (__noendbr), one instruction less on every hit.
 */
__visible __noendbr int
kprobe_opt_x86_callback(struct optimized_kprobe *op, struct pt_regs *regs);
__visible __noendbr void kprobe_opt_x86_redirect(struct pt_regs *regs);
unsigned long kprobe_opt_resume_ip(struct kprobe *p, unsigned long ip);
#endif

/* Called by kprobe_step_trampoline at the end of a slot's post copy. */
__visible __noendbr void kprobe_x86_step_callback(struct pt_regs *regs);

/*
 * Per-CPU control block.  @status is one of the KPROBE_* states of
 * <linux/kprobes.h>.  While the stepped copy runs, the IF and TF bits the
 * interrupted context had are kept in @flags and cleared in its regs, so
 * nothing but an NMI can interleave with the step.  @saved holds the state
 * of the probe we interrupted when a probe is hit while another one on
 * this CPU is being stepped (one level, as an NMI can do).  @reading is
 * set while the trap reads an emulated instruction's memory operand: a
 * fault there is the reader's, fixed up by its own exception table entry.
 * It belongs to the probe that set it: a probe hit inside that window
 * (from an NMI) saves it with the rest and clears it, or a fault in its
 * stepped copy would be taken for the reader's and not rewound.  @addr
 * and @next are the probed address and the next instruction's of a hit
 * that runs the post copy (never a reentered one), for
 * kprobe_x86_step_callback() to find again the site it must not read
 * once that may be gone.
 */
struct kprobe_ctlblk {
	unsigned long status;
	unsigned long flags;
	bool reading;
	unsigned long addr;
	unsigned long next;
	struct {
		struct kprobe *kp;
		unsigned long status;
		unsigned long flags;
		bool reading;
	} saved;
};

int kprobe_int3_handler(struct pt_regs *regs);

/* Instruction boundary check used by the core and optimizers. */
bool can_probe(unsigned long addr);

/* For opt.c: decoding and relocating as the breakpoint probes do. */
int kprobe_x86_decode(struct insn *insn, u8 *buf, unsigned long addr);
bool kprobe_x86_falls_through(const struct insn *insn);
bool kprobe_x86_foreign_int3(const struct insn *insn, unsigned long ip,
			     bool reached);
int kprobe_x86_classify(struct insn *insn, struct arch_specific_insn *ai);
int kprobe_x86_place_copy(u8 *code, unsigned long to, unsigned long from,
			  struct insn *insn, const u8 *buf);

#if IS_ENABLED(CONFIG_KUNIT)
/* What the KUnit tests stand in for (kunit_activate_static_stub()). */
bool kprobe_x86_kgdb_break(unsigned long ip);
bool kprobe_x86_site_left(struct kprobe *p, unsigned long addr);
unsigned long kprobe_opt_x86_resume_ip(struct optimized_kprobe *op,
				       unsigned long ip);
#endif

#endif /* CONFIG_KPROBES */
#endif /* _ASM_X86_KPROBES_H */
