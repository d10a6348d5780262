// SPDX-License-Identifier: GPL-2.0-only
/*
 * arm64 jump optimization of kprobes.
 *
 * An optimized probe's instruction is replaced by a B to the probe's
 * detour buffer, a copy of the template at the end of
 * kprobes_trampoline.S:
 *
 *	save x0-x30, sp, PSTATE in a pt_regs, pc = the probed address
 *	a64_optprobe_hit(op, regs)		the pre_handlers
 *	restore NZCV and x0-x30, pop the pt_regs
 *	<the probed instruction, relocated>
 *	B <probed address + 4>
 *	BR to a64_opt_exit			when a pre_handler moved the pc
 *	literals
 *
 * so a hit takes no exception.  A64 instructions have one size, so the
 * region the jump covers is the probed word alone: nothing else can
 * branch into it, no task can be stopped in its middle, and no other
 * probe can sit inside it.  B and BRK are both instructions the
 * architecture allows to be swapped under a running CPU; the swap is
 * still made with the other CPUs stopped (aarch64_insn_patch_text()), as
 * the probe is armed.
 *
 * The probed instruction is copied when it can neither fault (the
 * buffer has no exception table entry) nor see the pc: the ones
 * a64_probe_boostable() accepts.  Branches and adr/adrp are relocated:
 * rewritten for the buffer's address.  Everything else (literal loads,
 * blr, instructions that may fault) keeps its BRK.
 *
 * B reaches +-128MiB: buffers come from alloc_insn_page(), below the
 * kernel image, and a probe out of reach of its buffer (in a module far
 * away) is not optimized.
 *
 * Never optimized either: a BTI landing pad (bti c/j/jc) or PACIASP/
 * PACIBSP (an implicit bti c), since an indirect branch landing on the B
 * in a guarded page raises a Branch Target exception (the BRK is a valid
 * target for any branch type, so such probes keep theirs); and cpuidle
 * text, where RCU is not watching: a BRK's debug exception entry makes
 * it watch, and a64_optprobe_hit() does the same for code outside
 * cpuidle text that runs unwatched, but the idle loop is better left
 * with its BRK.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/bitops.h>
#include <linux/cpu.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sizes.h>

#include <linux/cpufeature.h>
#include <asm/daifflags.h>
#include <asm/insn.h>
#include <asm/patching.h>
#include <asm/ptrace.h>

#include "decode-insn.h"
#include "hit-context.h"

#define TMPL_OFF(sym)	((unsigned long)(sym) - (unsigned long)a64_opt_tmpl)
#define TMPL_SIZE	TMPL_OFF(a64_opt_tmpl_end)
#define TMPL_NR_INSNS	((TMPL_OFF(a64_opt_tmpl_exit) - \
			  TMPL_OFF(a64_opt_tmpl_insn)) / AARCH64_INSN_SIZE)

/*
 * A pre_handler moved the pc: where to resume, and the DAIF bits to
 * resume with (and, with pseudo-NMIs, the interrupted priority mask),
 * from a64_optprobe_hit() to the BRK of a64_opt_exit, which this CPU
 * runs with everything masked.
 */
struct opt_exit {
	unsigned long pc;
	unsigned long daif;
	u64 pmr;
};

static DEFINE_PER_CPU(struct opt_exit, opt_exit);

/**
 * a64_optprobe_hit() - an optimized probe was hit
 * @op: the probe
 * @regs: the registers at the probed address, laid by the detour buffer
 *
 * Called from the detour buffer with the probed code's DAIF, priority
 * mask and user access.  The handlers run as the BRK handler would run
 * them (hit-context.h): everything masked as the debug exception masks
 * it, so that no pseudo-NMI, watchpoint or SError nests in a handler and
 * takes a fault kprobe_page_fault() would give to this probe; user
 * access off; lockdep told; @regs completed as an exception entry saves
 * them; current_kprobe set, and a hit while another probe is handled on
 * this CPU only counted as missed.  Where RCU is not watching (probed
 * code between ct_idle_enter() and ct_idle_exit(); optimization refuses
 * cpuidle text itself) a64_hit_enter() makes it watch with
 * ct_nmi_enter(), as the debug exception entry would, before @op->live
 * is read: the handlers run, as after a BRK.  noinstr, as the debug
 * exception's entry is: the function tracer, a BPF fentry program or a
 * sanitizer would otherwise run here before RCU watches, and after it
 * stops watching on the way out.
 *
 * Return: 0 to run the displaced instruction next, with the probed
 * code's state back, or, when a pre_handler set the pc (and the
 * registers) to resume with, the address of a64_opt_exit, which loads
 * the registers, and its BRK the pc, the interrupt masks still masked
 * until then.
 */
noinstr unsigned long a64_optprobe_hit(struct optimized_kprobe *op,
				       struct pt_regs *regs)
{
	struct a64_hit_ctx ctx __uninitialized;
	struct kprobe *p;
	int moved = 0;

	a64_hit_enter(&ctx);
	instrumentation_begin();
	a64_hit_regs(regs, &ctx);

	/*
	 * With interrupts off and RCU watching this is an RCU reader: a
	 * site retired after the check is freed only after we are done
	 * with it.
	 */
	/* (NULL once unregistered: only the displaced instruction runs) */
	p = READ_ONCE(op->live);
	if (p && !kprobe_missed(p)) {
		moved = !!kprobe_enter_pre(p, regs);
		reset_current_kprobe();
	}
	instrumentation_end();
	if (!moved) {
		a64_hit_exit(&ctx);
		return 0;
	}

	/*
	 * Masked until the BRK, so that the note below cannot be lost;
	 * user access and lockdep as the BRK's entry expects them (its
	 * exit tells lockdep again, see kprobe_opt_exit_brk()).
	 */
	a64_hit_leave(&ctx, false);
	__this_cpu_write(opt_exit.pc, instruction_pointer(regs));
	__this_cpu_write(opt_exit.daif, regs->pstate & DAIF_MASK);
	__this_cpu_write(opt_exit.pmr, regs->pmr_save);
	return (unsigned long)a64_opt_exit;
}

NOKPROBE_SYMBOL(a64_optprobe_hit);

/**
 * kprobe_opt_exit_brk() - the BRK of a64_opt_exit trapped
 * @regs: the state at the BRK: the registers a pre_handler of an
 *	optimized probe left, and the probed code's sp
 *
 * Resume at the pc that pre_handler set, with the interrupted DAIF bits
 * and priority mask (the exception return restores the PMR from
 * pmr_save), as the BRK handler would have.  No branch leads there:
 * PSTATE.BTYPE is clear.
 *
 * Return: true when the BRK was a64_opt_exit's.
 */
bool kprobe_opt_exit_brk(struct pt_regs *regs)
{
	unsigned long daif = __this_cpu_read(opt_exit.daif);

	if (instruction_pointer(regs) != (unsigned long)a64_opt_exit_brk)
		return false;
	instruction_pointer_set(regs, __this_cpu_read(opt_exit.pc));
	regs->pstate = (regs->pstate & ~(DAIF_MASK | PSR_BTYPE_MASK)) | daif;
	if (system_uses_irq_prio_masking())
		regs->pmr_save = __this_cpu_read(opt_exit.pmr);
	/* the exception return may unmask: tell lockdep as it expects */
	regs->lockdep_hardirqs = interrupts_enabled(regs);
	return true;
}

NOKPROBE_SYMBOL(kprobe_opt_exit_brk);

/* Where an indirect branch may land in a guarded page (see above) */
static bool landing_pad(u32 insn)
{
	if (aarch64_insn_is_bti(insn))
		return true;
	if (!aarch64_insn_is_hint(insn))
		return false;
	switch (insn & 0xfe0) {
	case AARCH64_INSN_HINT_PACIASP:
	case AARCH64_INSN_HINT_PACIBSP:
		return true;
	default:
		return false;
	}
}

/*
 * B from @pc to @to, or AARCH64_BREAK_FAULT when out of reach.  The reach
 * is asked here first: the encoder also refuses, but says so on the
 * console, and with KASAN (buffers from execmem, far from the kernel)
 * every refused site would add a line.
 */
static u32 branch(unsigned long pc, unsigned long to)
{
	long off = (long)to - (long)pc;

	if (off < -SZ_128M || off >= SZ_128M)
		return AARCH64_BREAK_FAULT;
	return aarch64_insn_gen_branch_imm(pc, to, AARCH64_INSN_BRANCH_NOLINK);
}

/* LDR X<reg>, <the literal at @lit_pc> at @pc */
static u32 load_literal(unsigned long pc, unsigned long lit_pc, u32 reg)
{
	return aarch64_insn_gen_load_literal(pc, lit_pc, reg, true);
}

/* Where adr/adrp @insn at @addr points */
static u64 adr_value(u32 insn, unsigned long addr)
{
	s64 imm = sign_extend64(aarch64_insn_decode_immediate(AARCH64_INSN_IMM_ADR,
							      insn), 20);

	if (aarch64_insn_is_adrp(insn))
		return ALIGN_DOWN(addr, SZ_4K) + imm * SZ_4K;
	return addr + imm;
}

/*
 * What the buffer runs in place of @insn, probed at @addr: words at @pc
 * on (TMPL_NR_INSNS at most), with the literal at @lit_pc set to *@lit.
 * Return the number of words or an errno.
 */
static int relocate(u32 insn, unsigned long addr, unsigned long pc,
		    unsigned long lit_pc, u64 *lit, u32 *seq)
{
	unsigned long back = addr + AARCH64_INSN_SIZE;
	unsigned long target = 0;
	struct arch_probe_insn api;
	int n = 0, i;

	switch (a64_probe_classify(insn, &api)) {
	case A64_PROBE_XOL:
		if (!a64_probe_boostable(insn))
			return -EFAULT;		/* may fault */
		seq[n++] = insn;
		seq[n++] = branch(pc + 4, back);
		break;
	case A64_PROBE_SIMULATE:
		if (aarch64_insn_is_branch_imm(insn))
			target = addr + aarch64_get_branch_offset(insn);
		if (aarch64_insn_is_b(insn)) {
			seq[n++] = branch(pc, target);
		} else if (aarch64_insn_is_bl(insn)) {
			/* the link register gets the probed address + 4 */
			*lit = back;
			seq[n++] = load_literal(pc, lit_pc, AARCH64_INSN_REG_LR);
			seq[n++] = branch(pc + 4, target);
		} else if (aarch64_insn_is_branch_imm(insn)) {
			/* b.cond, cb*, tb*: taken, skip the branch back */
			seq[n++] = aarch64_set_branch_offset(insn, 8);
			seq[n++] = branch(pc + 4, back);
			seq[n++] = branch(pc + 8, target);
		} else if (aarch64_insn_is_adr_adrp(insn)) {
			u32 rd = aarch64_insn_decode_register(AARCH64_INSN_REGTYPE_RD,
							      insn);

			*lit = adr_value(insn, addr);
			seq[n++] = load_literal(pc, lit_pc, rd);
			seq[n++] = branch(pc + 4, back);
		} else if (aarch64_insn_is_br(insn) || aarch64_insn_is_ret(insn)) {
			/* they do not depend on where they run */
			seq[n++] = insn;
		} else {
			/*
			 * Literal loads would need a scratch register; blr
			 * would branch with the wrong BTYPE for a BTI landing
			 * pad.
			 */
			return -EOPNOTSUPP;
		}
		break;
	default:
		return -EINVAL;
	}

	for (i = 0; i < n; i++)
		if (seq[i] == AARCH64_BREAK_FAULT)
			return -ERANGE;		/* a branch out of reach */
	return n;
}

/**
 * arch_prepare_optimized_kprobe() - build the detour buffer of a probe
 * @op: the probe's optimization state; @op->kp is armed with its BRK
 *
 * Return: 0; -EINVAL or -EOPNOTSUPP when the probed instruction cannot
 * run from the buffer or be replaced by a B (a landing pad, cpuidle
 * text), -EFAULT when it may fault, -ERANGE when a branch between the
 * text and the buffer is out of reach, -ENOMEM.
 */
int arch_prepare_optimized_kprobe(struct optimized_kprobe *op)
{
	unsigned long addr = (unsigned long)op->kp->addr;
	unsigned long buf, insn_pc;
	u32 *code, *seq;
	u64 lit = 0;
	int n, ret;

	if (WARN_ON_ONCE(TMPL_SIZE > KPROBE_OPTINSN_SLOT_SIZE))
		return -E2BIG;
	if (landing_pad(op->kp->opcode) || cpu_in_idle(addr))
		return -EOPNOTSUPP;

	buf = (unsigned long)get_optinsn_slot();
	if (!buf)
		return -ENOMEM;
	code = kmemdup(a64_opt_tmpl, TMPL_SIZE, GFP_KERNEL);
	if (!code) {
		ret = -ENOMEM;
		goto fail;
	}

	/* the jump from the text, and the buffer's branches */
	ret = -ERANGE;
	if (branch(addr, buf) == AARCH64_BREAK_FAULT)
		goto fail;
	insn_pc = buf + TMPL_OFF(a64_opt_tmpl_insn);
	seq = code + TMPL_OFF(a64_opt_tmpl_insn) / AARCH64_INSN_SIZE;
	n = relocate(op->kp->opcode, addr, insn_pc,
		     buf + TMPL_OFF(a64_opt_tmpl_lit), &lit, seq);
	if (n < 0) {
		ret = n;
		goto fail;
	}
	if (WARN_ON_ONCE(n > TMPL_NR_INSNS))
		goto fail;

	*(u64 *)((void *)code + TMPL_OFF(a64_opt_tmpl_op)) = (u64)op;
	*(u64 *)((void *)code + TMPL_OFF(a64_opt_tmpl_addr)) = addr;
	*(u64 *)((void *)code + TMPL_OFF(a64_opt_tmpl_call)) =
		(u64)a64_optprobe_hit;
	*(u64 *)((void *)code + TMPL_OFF(a64_opt_tmpl_lit)) = lit;

	ret = arch_write_insn_slot((void *)buf, code, TMPL_SIZE);
	if (ret)
		goto fail;
	kfree(code);
	op->optinsn.buf = (kprobe_opcode_t *)buf;
	return 0;

fail:
	kfree(code);
	free_optinsn_slot((kprobe_opcode_t *)buf, 0);
	return ret;
}

/**
 * arch_check_optimized_kprobe() - may @op be optimized with its neighbours
 * @op: a prepared probe
 *
 * The jump covers the probed word alone: no other probe can be in it.
 *
 * Return: 0.
 */
int arch_check_optimized_kprobe(struct optimized_kprobe *op)
{
	return 0;
}

/**
 * arch_within_optimized_kprobe() - is @addr inside @op's region, past
 *	its start
 * @op: a prepared probe
 * @addr: an address
 *
 * Return: true for the bytes of the probed word after the first.
 */
bool arch_within_optimized_kprobe(struct optimized_kprobe *op,
				  unsigned long addr)
{
	unsigned long start = (unsigned long)op->kp->addr;

	return addr > start && addr < start + AARCH64_INSN_SIZE;
}

/* What patch_ops() writes over each op's probed word. */
enum patch_to {
	PATCH_BRANCH,	/* the B into its detour */
	PATCH_BRK,	/* the BRK of a plain probe */
	PATCH_ORIG,	/* the original instruction: disarmed */
};

/* Write each op's word, all in one stop_machine. */
static void patch_ops(struct list_head *ops, enum patch_to to)
{
	struct optimized_kprobe *op;
	void **addrs;
	u32 *insns;
	int n = 0;

	list_for_each_entry(op, ops, queue)
		n++;
	addrs = kcalloc(n, sizeof(*addrs), GFP_KERNEL);
	insns = kcalloc(n, sizeof(*insns), GFP_KERNEL);

	n = 0;
	list_for_each_entry(op, ops, queue) {
		struct kprobe *p = op->kp;
		u32 insn;

		if (to == PATCH_BRANCH) {
			p->flags |= KPROBE_FLAG_OPTIMIZED;
			insn = branch((unsigned long)p->addr,
				      (unsigned long)op->optinsn.buf);
		} else {
			p->flags &= ~KPROBE_FLAG_OPTIMIZED;
			insn = to == PATCH_BRK ? BRK64_OPCODE_KPROBES : p->opcode;
		}
		if (kprobe_gone(p))
			continue;	/* its text is gone */
		if (addrs && insns) {
			addrs[n] = p->addr;
			insns[n++] = insn;
		} else {
			/* no memory for a batch: one at a time */
			WARN_ON_ONCE(arm64_kprobe_patch_text((void **)&p->addr,
							     &insn, 1));
		}
	}
	if (n)
		WARN_ON_ONCE(arm64_kprobe_patch_text(addrs, insns, n));
	kfree(addrs);
	kfree(insns);
}

/**
 * arch_optimize_kprobes() - replace the BRK of each op by its jump
 * @ops: prepared ops, linked by ->queue
 */
void arch_optimize_kprobes(struct list_head *ops)
{
	patch_ops(ops, PATCH_BRANCH);
}

/**
 * arch_unoptimize_kprobes() - put the BRK of each op back
 * @ops: optimized ops, linked by ->queue
 */
void arch_unoptimize_kprobes(struct list_head *ops)
{
	patch_ops(ops, PATCH_BRK);
}

/**
 * arch_disarm_optimized_kprobes() - the original words straight over the Bs
 * @ops: optimized ops whose sites are being disarmed, linked by ->queue
 *
 * Writing each B back to a BRK and the BRK to the original would be two
 * stop_machine()s: any write of text here is made with the other CPUs
 * stopped (arm64_kprobe_patch_text()), so the original instructions can
 * replace the Bs at once, all of them in one.  A task preempted in a
 * detour before still finishes in the buffer, which outlives an
 * RCU-tasks grace period.
 *
 * Return: true.
 */
bool arch_disarm_optimized_kprobes(struct list_head *ops)
{
	patch_ops(ops, PATCH_ORIG);
	return true;
}

/**
 * arch_remove_optimized_kprobe() - release the detour buffer
 * @op: an op no longer optimized
 *
 * The slot allocator reuses the buffer only after an RCU-tasks grace
 * period, so a task still inside it finishes there.
 */
void arch_remove_optimized_kprobe(struct optimized_kprobe *op)
{
	free_optinsn_slot(op->optinsn.buf, 0);
	op->optinsn.buf = NULL;
}
