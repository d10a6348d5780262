// SPDX-License-Identifier: GPL-2.0-only
/*
 * arm64 kprobes.
 *
 * Arming writes BRK #KPROBES_BRK_IMM over the probed instruction.  On a
 * hit, kprobe_brk_handler() runs the pre_handler and then either emulates
 * the instruction (branches and PC-relative loads, see simulate-insn.c)
 * or resumes at an out-of-line slot holding
 *
 *	<the probed instruction>
 *	BRK #KPROBES_BRK_SS_IMM
 *
 * with all of DAIF masked, so that the CPU cannot be preempted or
 * migrated away from its per-CPU probe state before the second BRK lands
 * in kprobe_ss_brk_handler(), and so that no interrupt, pseudo-NMI,
 * SError or debug exception (watchpoint, hardware breakpoint) can run
 * code, probed or not, in the middle of the step.  Only a synchronous
 * exception of the stepped instruction itself (a fault) can; a probe hit
 * from there is a one-level reentry (see reenter()).  The second BRK puts
 * the interrupted DAIF bits back, resumes after the probed instruction
 * and runs the post_handler.  Hardware single-step is never used.
 *
 * When no post_handler is attached and the instruction cannot fault, the
 * probe is "boosted": it is finished in the first handler, and the CPU
 * resumes with its own DAIF at a second copy of the instruction followed
 * by a direct branch back, so a hit costs one exception instead of two.
 * With a post_handler, such an instruction runs from a third copy, still
 * with everything masked and the probe running, followed by a branch to
 * a64_step_trampoline: it lays a pt_regs, a64_step_callback() runs the
 * post_handlers as the second BRK would, and an ERET resumes with the
 * interrupted PSTATE and priority mask, again one exception in all.
 * The slots are allocated below the kernel image for those branches to
 * reach.  The core reuses a slot only after an RCU-tasks grace period,
 * so a task preempted inside a boosted slot is safe.  With
 * CONFIG_OPTPROBES such probes go one step further: opt.c replaces the
 * BRK with a branch to a detour buffer, and a hit takes no exception.
 *
 * The architecture lets live code be rewritten under other CPUs' feet
 * only when both the old and the new instruction are among B, BL, BRK,
 * NOP, ISB, SVC, HVC and SMC (Arm ARM, "Concurrent modification and
 * execution of instructions").  A probed instruction is usually none of
 * those, so arming and disarming patch the word with every other CPU
 * parked in stop_machine (aarch64_insn_patch_text()), which also makes
 * each of them synchronise its instruction stream.
 *
 * Copyright (C) 2013 Linaro Limited.
 * Author: Sandeepa Prabhu <sandeepa.prabhu@linaro.org>
 * 2026-Nov	Rewritten: the arm64 port of the rebuilt core (boosting,
 *		post copy, one handler context on every path).
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/context_tracking_irq.h>
#include <linux/execmem.h>
#include <linux/extable.h>
#include <linux/kdebug.h>
#include <linux/kprobes.h>
#include <linux/perf_event.h>
#include <linux/sched/debug.h>
#include <linux/set_memory.h>
#include <linux/sizes.h>
#include <linux/vmalloc.h>

#include <asm/cacheflush.h>
#include <asm/daifflags.h>
#include <asm/debug-monitors.h>
#include <asm/esr.h>
#include <asm/exception.h>
#include <asm/insn.h>
#include <asm/patching.h>
#include <asm/ptrace.h>
#include <asm/sections.h>

#include "decode-insn.h"
#include "hit-context.h"

/*
 * What the out-of-line step masks, on top of the interrupted DAIF: all of
 * it.  D keeps watchpoints and hardware breakpoints (and their perf
 * handlers) out of the step, A defers SErrors, I and F keep interrupts
 * and pseudo-NMIs (which need PSTATE.I clear) away.
 */
#define XOL_DAIF_MASK	DAIF_MASK

/*
 * An out-of-line slot:
 *	[SLOT_STEP]	the probed instruction	(entered with IRQs masked)
 *	[SLOT_STEP_END]	BRK #KPROBES_BRK_SS_IMM
 *	[SLOT_BOOST]	the probed instruction	(entered as the probe ends)
 *	[SLOT_BACK]	B <probe + 4>, or BRK #KPROBES_BRK_SS_IMM when the
 *			probe cannot be boosted
 *	[SLOT_POST]	the probed instruction	(entered with DAIF masked)
 *	[SLOT_POST_END]	B a64_step_trampoline, or BRK #KPROBES_BRK_SS_IMM
 *			when the probe cannot be boosted
 */
enum {
	SLOT_STEP, SLOT_STEP_END, SLOT_BOOST, SLOT_BACK, SLOT_POST,
	SLOT_POST_END, SLOT_WORDS
};

static __always_inline unsigned long slot_end(const struct kprobe *p)
{
	return (unsigned long)(p->ainsn.api.insn + SLOT_STEP_END);
}

/* Whether the word @w of @p's slot is a branch rather than the step BRK */
static __always_inline bool slot_branches(const struct kprobe *p, int w)
{
	const kprobe_opcode_t *slot = p->ainsn.api.insn;

	return slot && le32_to_cpu((__force __le32)READ_ONCE(slot[w])) !=
		       BRK64_OPCODE_KPROBES_SS;
}

static __always_inline bool slot_boosted(const struct kprobe *p)
{
	return slot_branches(p, SLOT_BACK);
}

/**
 * alloc_insn_page() - a page for out-of-line slots and detour buffers
 *
 * Read-only executable, and when possible just below the kernel image, so
 * that a boosted slot reaches any kernel text with a direct branch.
 *
 * Mapped read-write first and then made ROX with set_memory_rox(), as on
 * x86: with rodata_full (the arm64 default), set_memory_ro() also makes
 * the page's linear-map alias read-only (change_memory_common(),
 * arch/arm64/mm/pageattr.c), which a ROX vmalloc mapping alone leaves
 * writable.  A slot is an instruction the CPU runs with everything
 * masked, a detour buffer holds a function pointer it calls with BLR:
 * neither may be writable through any alias.  Writes go through the
 * text patching fixmap (arch_write_insn_slot()); VM_FLUSH_RESET_PERMS
 * makes vfree() give the linear map its permissions back.
 *
 * Return: the page, or NULL.
 */
void *alloc_insn_page(void)
{
	unsigned long end = (unsigned long)_stext;
	unsigned long start = (unsigned long)_etext - SZ_128M + PAGE_SIZE;
	void *page = NULL;

	start = max_t(unsigned long, start, MODULES_VADDR);
	if (!IS_ENABLED(CONFIG_KASAN) && start < end)
		page = __vmalloc_node_range(PAGE_SIZE, PAGE_SIZE, start, end,
					    GFP_KERNEL | __GFP_NOWARN |
					    __GFP_ZERO,
					    PAGE_KERNEL, VM_FLUSH_RESET_PERMS,
					    NUMA_NO_NODE,
					    __builtin_return_address(0));
	if (!page)
		page = execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);
	if (page && set_memory_rox((unsigned long)page, 1)) {
		execmem_free(page);
		return NULL;
	}
	return page;
}

/*
 * The word after a boosted or post copy (word @w of @slot): a branch to
 * @to when the probe may be boosted and @to is in reach, else the step
 * BRK (that copy is then never entered).
 */
static u32 slot_branch(const struct kprobe *p, const kprobe_opcode_t *slot,
		       int w, unsigned long to)
{
	unsigned long from = (unsigned long)(slot + w);
	long off = (long)to - (long)from;

	if (!a64_probe_boostable(p->opcode) || off < -SZ_128M || off >= SZ_128M)
		return BRK64_OPCODE_KPROBES_SS;
	return aarch64_insn_gen_branch_imm(from, to,
					   AARCH64_INSN_BRANCH_NOLINK);
}

/**
 * arch_write_insn_slot() - fill part of an instruction slot
 * @dst: inside a slot (read-only executable memory)
 * @src: the instructions
 * @len: their size in bytes, a multiple of 4
 *
 * Slots come from EXECMEM_KPROBES, mapped read-only on arm64: write
 * through the text patching alias, which also cleans the D-cache and
 * invalidates the I-cache for the range.
 *
 * Return: 0, or -EINVAL for a misaligned @dst or @len.
 */
int arch_write_insn_slot(void *dst, const void *src, size_t len)
{
	if (!IS_ALIGNED(len, AARCH64_INSN_SIZE) ||
	    !aarch64_insn_copy(dst, (void *)src, len))
		return -EINVAL;
	perf_event_text_poke(dst, NULL, 0, src, len);
	return 0;
}

/**
 * arm64_kprobe_patch_text() - patch kernel text words, telling perf
 * @addrs: the addresses
 * @insns: the new instructions
 * @n: how many
 *
 * Every change kprobes makes to kernel text goes through here: perf gets
 * a PERF_RECORD_TEXT_POKE per word (old and new instruction) before the
 * write, which aarch64_insn_patch_text() then makes with the other CPUs
 * stopped (stop_machine; each resumes with an ISB).  A decoder of the
 * trace switches to the new instruction at the record's timestamp; until
 * the write lands the old one may still run, as on x86.
 *
 * Return: the error of aarch64_insn_patch_text().
 */
int arm64_kprobe_patch_text(void **addrs, u32 *insns, int n)
{
	u32 old;
	int i;

	for (i = 0; i < n; i++)
		if (!aarch64_insn_read(addrs[i], &old))
			perf_event_text_poke(addrs[i], &old, AARCH64_INSN_SIZE,
					     &insns[i], AARCH64_INSN_SIZE);
	return aarch64_insn_patch_text(addrs, insns, n);
}

/**
 * arch_prepare_kprobe() - check and prepare the instruction at @p->addr
 * @p: the site's probe, with a resolved address
 *
 * An instruction with an exception table entry (uaccess, the *_nofault
 * loads) is refused: a fault there must be fixed up at its own address,
 * and may sleep (a user page coming in) where the out-of-line step has
 * every exception masked.
 *
 * Return: 0; -EILSEQ when @p->addr is not word aligned; -EFAULT when the
 * text cannot be read; -EINVAL when the instruction cannot be probed
 * (see decode-insn.c) or has an exception table entry; -ENOMEM when no
 * out-of-line slot is left.
 */
int arch_prepare_kprobe(struct kprobe *p)
{
	struct arch_probe_insn *api = &p->ainsn.api;
	kprobe_opcode_t *slot;
	__le32 code[SLOT_WORDS];
	unsigned long to;
	int ret;

	if (!IS_ALIGNED((unsigned long)p->addr, AARCH64_INSN_SIZE))
		return -EILSEQ;
	if (aarch64_insn_read(p->addr, &p->opcode))
		return -EFAULT;
	if (search_exception_tables((unsigned long)p->addr))
		return -EINVAL;

	api->insn = NULL;
	api->pstate_cc = NULL;
	api->restore = (unsigned long)(p->addr + 1);

	switch (a64_kprobe_classify(p->addr, api)) {
	case A64_PROBE_SIMULATE:
		return 0;
	case A64_PROBE_XOL:
		break;
	default:
		return -EINVAL;
	}

	slot = get_insn_slot();
	if (!slot)
		return -ENOMEM;
	code[SLOT_STEP] = cpu_to_le32(p->opcode);
	code[SLOT_STEP_END] = cpu_to_le32(BRK64_OPCODE_KPROBES_SS);
	code[SLOT_BOOST] = cpu_to_le32(p->opcode);
	code[SLOT_BACK] = cpu_to_le32(slot_branch(p, slot, SLOT_BACK,
						  api->restore));
	code[SLOT_POST] = cpu_to_le32(p->opcode);
	to = (unsigned long)a64_step_trampoline;
	code[SLOT_POST_END] = cpu_to_le32(slot_branch(p, slot, SLOT_POST_END,
						      to));
	BUILD_BUG_ON(sizeof(code) > KPROBE_INSN_SLOT_SIZE);
	ret = arch_write_insn_slot(slot, code, sizeof(code));
	if (ret) {
		free_insn_slot(slot, 0);
		return ret;
	}
	api->insn = slot;
	return 0;
}

/*
 * Write one instruction with the other CPUs stopped; they resume with an
 * ISB.  The core holds cpus_read_lock(), as stop_machine_cpuslocked()
 * wants.
 */
static void write_text_word(kprobe_opcode_t *addr, u32 insn)
{
	void *addrs[] = { addr };

	WARN_ON_ONCE(arm64_kprobe_patch_text(addrs, &insn, 1));
}

/**
 * arch_arm_kprobe() - put the breakpoint at @p->addr
 * @p: a prepared probe
 */
void arch_arm_kprobe(struct kprobe *p)
{
	write_text_word(p->addr, BRK64_OPCODE_KPROBES);
}

/**
 * arch_disarm_kprobe() - put the original instruction back at @p->addr
 * @p: an armed probe
 */
void arch_disarm_kprobe(struct kprobe *p)
{
	write_text_word(p->addr, p->opcode);
}

/**
 * arch_remove_kprobe() - release what arch_prepare_kprobe() took
 * @p: a disarmed probe no CPU is handling any more
 */
void arch_remove_kprobe(struct kprobe *p)
{
	if (p->ainsn.api.insn) {
		free_insn_slot(p->ainsn.api.insn, 0);
		p->ainsn.api.insn = NULL;
	}
}

/**
 * arch_populate_kprobe_blacklist() - refuse arm64's unprobeable text
 *
 * The idmap and hibernation exit code runs with the MMU off or on other
 * page tables, hyp code at EL2, the entry trampoline and kexec relocation
 * code with the kernel unmapped: a BRK there cannot reach our handler.
 *
 * Return: 0 or an errno from kprobe_add_area_blacklist().
 */
int __init arch_populate_kprobe_blacklist(void)
{
	static const struct {
		const char *start, *end;
	} areas[] = {
		{ __idmap_text_start, __idmap_text_end },
		{ __hyp_idmap_text_start, __hyp_idmap_text_end },
		{ __hyp_text_start, __hyp_text_end },
#ifdef CONFIG_HIBERNATION
		{ __hibernate_exit_text_start, __hibernate_exit_text_end },
#endif
#ifdef CONFIG_UNMAP_KERNEL_AT_EL0
		{ __entry_tramp_text_start, __entry_tramp_text_end },
#endif
#ifdef CONFIG_KEXEC_CORE
		{ __relocate_new_kernel_start, __relocate_new_kernel_end },
#endif
	};
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(areas); i++) {
		if (areas[i].start == areas[i].end)
			continue;
		ret = kprobe_add_area_blacklist((unsigned long)areas[i].start,
						(unsigned long)areas[i].end);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---------------------------------------------------------------------
 * The hit path: BRK exceptions from EL1, interrupts masked.
 */

/* One level of nesting: the probe a reentered hit interrupted. */
static void __kprobes save_outer(struct kprobe_ctlblk *kcb)
{
	kcb->prev = (typeof(kcb->prev)){
		.kp = kprobe_running(), .status = kcb->status,
		.probe = kcb->probe, .saved_daif = kcb->saved_daif,
		.saved_pmr = kcb->saved_pmr,
	};
}

static void __kprobes restore_outer(struct kprobe_ctlblk *kcb)
{
	typeof(kcb->prev) outer = kcb->prev;

	kcb->prev.kp = NULL;
	kcb->status = outer.status;
	kcb->probe = outer.probe;
	kcb->saved_daif = outer.saved_daif;
	kcb->saved_pmr = outer.saved_pmr;
	__this_cpu_write(current_kprobe, outer.kp);
}

/* After the instruction: post_handler, then this CPU is free again. */
static void __kprobes step_done(struct kprobe *p, struct pt_regs *regs,
				struct kprobe_ctlblk *kcb)
{
	kcb->probe = NULL;
	if (kcb->status == KPROBE_REENTER) {
		restore_outer(kcb);
		return;
	}
	kcb->status = KPROBE_HIT_SSDONE;
	if (p->post_handler) {
		__this_cpu_write(current_kprobe, p);
		/* after the instruction, an emulated one included */
		a64_regs_not_syscall(regs);
		kprobe_run_post(p, regs);
	}
	reset_current_kprobe();
}

/*
 * Execute the probed instruction: emulate it now, or send the CPU to the
 * slot.  kcb->status is KPROBE_HIT_SS or KPROBE_REENTER.
 */
static __always_inline void step(struct kprobe *p, struct pt_regs *regs,
				 struct kprobe_ctlblk *kcb)
{
	struct arch_probe_insn *api = &p->ainsn.api;

	kcb->probe = p;
	kcb->saved_daif = regs->pstate & DAIF_MASK;
	/*
	 * The BRK was a valid target for any branch type; whatever runs or
	 * is emulated next starts with no branch pending.
	 */
	regs->pstate &= ~PSR_BTYPE_MASK;

	if (api->handler) {
		api->handler(p->opcode, (long)p->addr, regs);
		step_done(p, regs, kcb);
		return;
	}
	regs->pstate |= XOL_DAIF_MASK;
	/*
	 * With pseudo-NMIs the kernel reads "interrupts off" from the
	 * priority mask alone: a fault of the step (kprobe_page_fault())
	 * must see them off, as they are.
	 */
	if (system_uses_irq_prio_masking()) {
		kcb->saved_pmr = regs->pmr_save;
		regs->pmr_save = GIC_PRIO_IRQOFF;
	}
	instruction_pointer_set(regs, (unsigned long)api->insn);
}

/*
 * Finish the probe now and resume at the boosted copy of the instruction,
 * when the slot has one.
 */
static __always_inline bool boost(struct kprobe *p, struct pt_regs *regs)
{
	if (!slot_boosted(p))
		return false;
	regs->pstate &= ~PSR_BTYPE_MASK;
	instruction_pointer_set(regs,
				(unsigned long)(p->ainsn.api.insn + SLOT_BOOST));
	return true;
}

/*
 * @p was hit while this CPU was already handling a probe.  Return false
 * when it cannot be handled (the BRK is then reported as a bug).
 */
static bool __kprobes reenter(struct kprobe *p, struct pt_regs *regs,
			      struct kprobe_ctlblk *kcb)
{
	/* skip the handlers, but run the instruction */
	kprobes_inc_nmissed_count(p);
	if (boost(p, regs))
		return true;

	switch (kcb->status) {
	case KPROBE_HIT_ACTIVE:
	case KPROBE_HIT_SSDONE:
	case KPROBE_HIT_SS:
		/*
		 * From a handler, or from an exception the stepped
		 * instruction raised (its fault path, its fault_handler;
		 * all else is masked during a step): step with the
		 * interrupted probe saved, which goes on after this step.
		 */
		save_outer(kcb);
		__this_cpu_write(current_kprobe, p);
		kcb->status = KPROBE_REENTER;
		step(p, regs, kcb);
		return true;
	default:
		break;
	}

	/*
	 * A second level of reentry: an emulated instruction needs no
	 * per-CPU state, but a second step cannot be nested.
	 */
	if (p->ainsn.api.handler) {
		p->ainsn.api.handler(p->opcode, (long)p->addr, regs);
		return true;
	}
	pr_emerg("unrecoverable reentry at %pS\n", p->addr);
	dump_kprobe(p);
	return false;
}

/* The NZCV flags of PSTATE (those of SPSR_EL1 and of the nzcv register) */
#define PSR_NZCV_MASK	(PSR_N_BIT | PSR_Z_BIT | PSR_C_BIT | PSR_V_BIT)

/*
 * After the pre_handlers: boost, run the post copy, or step out of line
 * (current_kprobe is @p).  The post copy is for an instruction that
 * could be boosted (it cannot fault), when no hardware single-step is
 * pending (its debug exception belongs after the probed instruction,
 * which only the stepping BRK gives): it runs as a step, everything
 * masked, and a64_step_callback() ends the hit.
 */
static __always_inline void run_probed_insn(struct kprobe *p,
					    struct pt_regs *regs,
					    struct kprobe_ctlblk *kcb)
{
	bool post = READ_ONCE(p->post_handler);

	if (!post && boost(p, regs)) {
		reset_current_kprobe();
		return;
	}
	kcb->status = KPROBE_HIT_SS;
	step(p, regs, kcb);
	if (post && !(regs->pstate & DBG_SPSR_SS) &&
	    slot_branches(p, SLOT_POST_END)) {
		kcb->post_pstate = (regs->pstate & ~(DAIF_MASK | PSR_NZCV_MASK)) |
				   kcb->saved_daif;
		instruction_pointer_set(regs,
					(unsigned long)(p->ainsn.api.insn + SLOT_POST));
	}
}

/**
 * a64_step_callback() - the end of a hit that ran the slot's post copy
 * @regs: the registers after the copied instruction (x0-x30, sp, NZCV),
 *	laid by a64_step_trampoline
 *
 * Called with everything still masked, as the BRK handler left it: this
 * CPU ran only the copy since, so kcb->probe is the probe whose copy
 * branched to the trampoline.  As kprobe_ss_brk_handler() does: pc after
 * the probed instruction, the interrupted DAIF and priority mask back
 * (in @regs, which the trampoline's ERET takes), the post_handlers, the
 * hit over.  A post_handler may change the registers, NZCV and the pc.
 *
 * The post_handlers get what the second BRK's entry would give them
 * (hit-context.h): the priority mask an exception entry sets (the copy
 * ran with GIC_PRIO_IRQOFF), user access off (the BRK's exception return
 * gave the copy the probed code's PAN and TTBR0), RCU watching where the
 * probed code runs without (between ct_idle_enter() and ct_idle_exit()
 * outside the blacklisted cpuidle text), and lockdep told that
 * interrupts are off.  noinstr, as the debug exception's entry is:
 * nothing traces or instruments it before RCU watches.
 */
__visible noinstr void a64_step_callback(struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *p = kcb->probe;
	struct a64_hit_ctx ctx __uninitialized;

	if (system_uses_irq_prio_masking()) {
		write_sysreg_s(A64_ENTRY_PMR, SYS_ICC_PMR_EL1);
		regs->pmr_save = kcb->saved_pmr;
	}
	/*
	 * The copy ran with the PAN (and TTBR0) the BRK's exception return
	 * gave it, the probed code's, which the BRK saved in its PSTATE: a
	 * copy cannot change them (MSR is refused, decode-insn.c).
	 */
	__a64_hit_enter_masked(&ctx, kcb->post_pstate & PSR_PAN_BIT);
	instrumentation_begin();
	instruction_pointer_set(regs, p->ainsn.api.restore);
	/* the frame record the trampoline linked: unwinders see the pc */
	regs->stackframe[1] = p->ainsn.api.restore;
	regs->pstate = kcb->post_pstate | (regs->pstate & PSR_NZCV_MASK);
	a64_regs_not_syscall(regs);
	kcb->probe = NULL;
	kcb->status = KPROBE_HIT_SSDONE;
	kprobe_end_post(p, regs);
	instrumentation_end();
	a64_hit_leave(&ctx, true);
	/*
	 * The ERET puts PSTATE.PAN back from the saved bit; an ARMv8.0 CPU
	 * (software PAN) does not know that bit (as __swpan_exit_el1).
	 */
	if (!system_uses_hw_pan())
		regs->pstate &= ~PSR_PAN_BIT;
}

NOKPROBE_SYMBOL(a64_step_callback);

/*
 * No probe at the BRK: the end of a jprobe handler; or the probe went
 * away after this CPU fetched the BRK, and the original instruction is
 * back, so run it again; or the BRK is not ours.  Out of line: the hit
 * path keeps no local whose address is taken (and no stack protector
 * with it), nor the jprobe check.
 */
static noinline int __kprobes brk_without_probe(struct pt_regs *regs,
						struct kprobe_ctlblk *kcb)
{
	void *addr = (void *)instruction_pointer(regs);
	u32 insn;

#ifdef CONFIG_JPROBES
	/* The end of a jprobe handler: back to the probed instruction. */
	if (!kprobe_running() && (unsigned long)addr == jprobe_return_trap_addr()) {
		struct kprobe *p = kprobe_jprobe_resume(regs);

		if (!p)
			return DBG_HOOK_ERROR;
		/* the entry's registers are back */
		a64_regs_not_syscall(regs);
		__this_cpu_write(current_kprobe, p);
		kcb->status = KPROBE_HIT_ACTIVE;
		run_probed_insn(p, regs, kcb);
		return DBG_HOOK_HANDLED;
	}
#endif
	if (!aarch64_insn_read(addr, &insn) && insn != BRK64_OPCODE_KPROBES)
		return DBG_HOOK_HANDLED;
	return DBG_HOOK_ERROR;
}

/*
 * An indirect branch left @btype set at @p's BRK.  The BRK is a valid
 * target for any branch type, the probed instruction may not be: with
 * BTI in the kernel its text is guarded (PTE_GP, and PTE_MAYBE_GP for
 * modules and slots), and unprobed the CPU would have raised a Branch
 * Target exception at @p->addr instead of running it.  Whether that
 * instruction is compatible with @btype is decided here, as the CPU
 * would decide it (SCTLR_ELx.BT, which VHE's SCTLR_EL2 has at the same
 * place, for PACIASP and PACIBSP).
 */
static bool __kprobes bti_refuses(struct kprobe *p, u64 btype)
{
	return btype && system_supports_bti_kernel() &&
	       !a64_bti_target_ok(p->opcode, btype,
				  read_sysreg(sctlr_el1) & SCTLR_EL1_BT1);
}

/*
 * Report the Branch Target exception the probed instruction would have
 * raised, as el1_bti() does: do_el1_bti() with the probed address, the
 * PSTATE with its BTYPE, and the syndrome of that exception.  It dies
 * ("Oops - BTI"), as the BRK of BUG() does, unless it is an EFI runtime
 * service's to recover from.  No handler runs and no copy of the
 * instruction either: an illegitimate branch to a probed instruction
 * must not run it silently.
 */
static void __kprobes bti_report(struct pt_regs *regs, u64 btype)
{
	unsigned long esr = ESR_ELx_EC_BTI << ESR_ELx_EC_SHIFT | ESR_ELx_IL |
			    btype >> PSR_BTYPE_SHIFT;

	do_el1_bti(regs, esr);
}

/**
 * kprobe_brk_handler() - a BRK #KPROBES_BRK_IMM trapped at EL1
 * @regs: the interrupted state
 * @esr: the exception syndrome
 *
 * Return: DBG_HOOK_HANDLED, or DBG_HOOK_ERROR for a BRK that is not a
 * probe's (the caller then reports it).
 */
int __kprobes kprobe_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	void *addr = (void *)instruction_pointer(regs);
	struct kprobe *p;
	u64 btype;

	a64_regs_not_syscall(regs);
	p = kprobe_lookup(addr);
	if (!p)
		return brk_without_probe(regs, kcb);
	/*
	 * A BLR to the probed instruction (a function's first one, called
	 * through a pointer) leaves PSTATE.BTYPE set at the BRK, which is a
	 * valid target for any branch type.  A branch the probed
	 * instruction would not have accepted is reported as it would have
	 * been (bti_refuses()).  Otherwise the probe owns the pc from here
	 * on: whatever runs next, the probed instruction included, starts
	 * with no branch pending (step(), boost()), and the handlers see
	 * BTYPE clear as on the paths without a BRK, whose trampolines
	 * cannot save it (hit-context.h).
	 */
	btype = regs->pstate & PSR_BTYPE_MASK;
	if (unlikely(bti_refuses(p, btype))) {
		bti_report(regs, btype);
		return DBG_HOOK_HANDLED;
	}
	regs->pstate &= ~PSR_BTYPE_MASK;

	if (kprobe_running())
		return reenter(p, regs, kcb) ? DBG_HOOK_HANDLED : DBG_HOOK_ERROR;

	__this_cpu_write(current_kprobe, p);
	kcb->status = KPROBE_HIT_ACTIVE;
	if (kprobe_run_pre(p, regs)) {
		/*
		 * The handler chose where to resume: no branch leads there,
		 * so no BTI landing pad is needed (the BRK itself was a valid
		 * target for any branch type).
		 */
		regs->pstate &= ~PSR_BTYPE_MASK;
		reset_current_kprobe();
		return DBG_HOOK_HANDLED;
	}
	run_probed_insn(p, regs, kcb);
	return DBG_HOOK_HANDLED;
}

/**
 * kprobe_ss_brk_handler() - the BRK ending an out-of-line step trapped
 * @regs: the state after the copied instruction ran
 * @esr: the exception syndrome
 *
 * The BRK of a64_opt_exit comes here too: a pre_handler of an optimized
 * probe moved the pc (see opt.c).  That BRK is never at the end of a
 * slot, so the step, the common case, is recognised first.
 *
 * Return: DBG_HOOK_HANDLED, or DBG_HOOK_ERROR when this CPU is not
 * stepping a probe at that slot.
 */
int __kprobes kprobe_ss_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *p = kcb->probe;

	if (unlikely(!p || !kprobe_running() ||
		     !(kcb->status & (KPROBE_HIT_SS | KPROBE_REENTER)) ||
		     !p->ainsn.api.insn ||
		     instruction_pointer(regs) != slot_end(p)))
		return kprobe_opt_exit_brk(regs) ? DBG_HOOK_HANDLED :
						   DBG_HOOK_ERROR;

	kprobe_step_trapped(p);
	a64_regs_not_syscall(regs);
	regs->pstate = (regs->pstate & ~DAIF_MASK) | kcb->saved_daif;
	if (system_uses_irq_prio_masking())
		regs->pmr_save = kcb->saved_pmr;
	instruction_pointer_set(regs, p->ainsn.api.restore);
	step_done(p, regs, kcb);
	return DBG_HOOK_HANDLED;
}

/* The out-of-line step of @p ends without its post_handler. */
static void __kprobes abort_step(struct kprobe_ctlblk *kcb,
				 struct pt_regs *regs)
{
	regs->pstate = (regs->pstate & ~(DAIF_MASK | PSR_BTYPE_MASK)) |
		       kcb->saved_daif;
	if (system_uses_irq_prio_masking())
		regs->pmr_save = kcb->saved_pmr;
	kcb->probe = NULL;
	if (kcb->status == KPROBE_REENTER)
		restore_outer(kcb);
	else
		reset_current_kprobe();
}

/*
 * The copy of @p's instruction faulted in its slot.  The fault_handler
 * sees the fault as raised at the probed address (which has no exception
 * table entry: arch_prepare_kprobe() refuses those).  One that returns 1
 * either moved the pc (the probe ends there, without its post_handler)
 * or left it (it removed the cause: the copy runs again, still as this
 * probe's step).
 *
 * Otherwise the kernel handles the fault where it happened, in the slot,
 * with the step still going on: a fault it recovers from (a spurious
 * translation fault, a KFENCE report, a user page read in) resumes at
 * the faulting instruction, which then completes the step as if nothing
 * had happened: one hit, pre_handler and post_handler once each.
 * Resuming at the probed address instead would hit the BRK again and run
 * the pre_handlers twice.  A fault it cannot recover from (no exception
 * table entry matches a slot) dies, and kprobe_die_notify() ends the step
 * and shows the probed address in the report.
 */
static int __kprobes slot_fault(struct kprobe *p, struct pt_regs *regs,
				struct kprobe_ctlblk *kcb, int trapnr)
{
	unsigned long addr = (unsigned long)p->addr;
	unsigned long at = instruction_pointer(regs);

	instruction_pointer_set(regs, addr);
	if (kcb->status == KPROBE_HIT_SS && p->fault_handler &&
	    p->fault_handler(p, regs, trapnr)) {
		if (instruction_pointer(regs) == addr) {
			regs->pstate &= ~PSR_BTYPE_MASK;
			instruction_pointer_set(regs,
						(unsigned long)p->ainsn.api.insn);
			return 1;
		}
		abort_step(kcb, regs);
		return 1;
	}
	instruction_pointer_set(regs, at);
	return 0;
}

/* Whether @regs are at a copy of the instruction of the probe being stepped */
static bool __kprobes in_stepped_slot(struct kprobe_ctlblk *kcb,
				      struct pt_regs *regs)
{
	struct kprobe *p = kcb->probe;

	return (kcb->status & (KPROBE_HIT_SS | KPROBE_REENTER)) && p &&
	       p->ainsn.api.insn &&
	       (instruction_pointer(regs) == (unsigned long)p->ainsn.api.insn ||
		instruction_pointer(regs) ==
		(unsigned long)(p->ainsn.api.insn + SLOT_POST));
}

/*
 * The kernel dies of a fault in a slot that slot_fault() left to it: end
 * the step, so that this CPU handles probes again once the task is gone,
 * and report the probed address rather than the slot's.
 */
static int __kprobes kprobe_die_notify(struct notifier_block *nb,
				       unsigned long val, void *data)
{
	struct die_args *args = data;
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();

	if (val != DIE_OOPS || !args->regs || user_mode(args->regs) ||
	    !kprobe_running() || !in_stepped_slot(kcb, args->regs))
		return NOTIFY_DONE;
	instruction_pointer_set(args->regs, (unsigned long)kcb->probe->addr);
	abort_step(kcb, args->regs);
	return NOTIFY_DONE;
}

static struct notifier_block kprobe_die_nb = {
	.notifier_call = kprobe_die_notify,
};

/**
 * arch_init_kprobes() - arm64 setup at boot
 *
 * Return: the error of register_die_notifier().
 */
int __init arch_init_kprobes(void)
{
	return register_die_notifier(&kprobe_die_nb);
}

/**
 * kprobe_fault_handler() - a kernel fault hit while a probe is active
 * @regs: the state at the fault
 * @trapnr: the fault's syndrome (ESR), passed on to the fault_handler
 *
 * A fault of the out-of-line copy is handled by slot_fault().  A fault
 * in a handler (or an emulation) goes to the running probe's
 * fault_handler.
 *
 * Return: 1 when the probe's fault_handler dealt with the fault, else 0.
 */
int __kprobes kprobe_fault_handler(struct pt_regs *regs, int trapnr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *cur = kprobe_running();

	if (in_stepped_slot(kcb, regs))
		return slot_fault(kcb->probe, regs, kcb, trapnr);

	/* a fault in a handler or in an emulation: the handler may fix it */
	if (cur && cur->fault_handler && cur->fault_handler(cur, regs, trapnr))
		return 1;
	return 0;
}
