// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86_64 kprobes on ftrace: the ftrace_ops callback.
 *
 * ftrace_regs_caller hands us a full struct pt_regs as the registers stood
 * at the fentry call: regs->sp points at the function's return address
 * (as at the function's first instruction) and regs->ip past the call.
 * The handlers see what a breakpoint at the ftrace site would show them:
 * regs->ip is the site's address + 1 (INT3_INSN_SIZE, as after an int3)
 * in the pre_handler and the address after the call in the post_handler
 * (the "instruction" they probe is the call, which does nothing as far
 * as they are concerned).  When the
 * pre_handler returns nonzero, the regs->ip it set stands and the
 * post_handler is skipped; ftrace_regs_caller returns to regs->ip.
 *
 * The handlers run in the context of the int3 path: preemption and
 * interrupts disabled (regs->flags keeps the IF the function was called
 * with, as ftrace_regs_caller saved it), lockdep told so, RCU watching
 * (a hit where it does not is skipped), DF and AC clear (at a function's
 * entry the ABI has DF clear, and objtool keeps calls out of user-access
 * regions).  A probe hit from inside a handler is counted as missed,
 * like a reentered breakpoint.
 *
 * Copyright (C) Hitachi Ltd., 2012
 * 2026-Nov	Rewritten: kprobes on ftrace on the rebuilt core.
 */

#include <linux/kprobes.h>
#include <linux/ftrace.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/context_tracking.h>
#include <asm/text-patching.h>

#include "common.h"

/**
 * kprobe_ftrace_handler() - run the probe at an ftrace site
 * @ip: the site (address of the fentry call)
 * @parent_ip: the caller's return address
 * @ops: the kprobes ftrace_ops
 * @fregs: the saved registers: a full pt_regs, which ftrace always gives
 *	an ops with FTRACE_OPS_FL_SAVE_REGS (ftrace_regs_caller, or the list
 *	function it calls), so not checked with ftrace_get_regs()
 *
 * No ftrace recursion guard: what runs here before current_kprobe is set
 * cannot carry a kprobe (it is notrace or on the kprobes blacklist, and
 * only probed functions are in the ops' filter), and from then on a
 * nested hit finds kprobe_running() and is counted as missed.
 * Preemption is disabled too (the per-CPU state; in_atomic() for the
 * handlers, as the trap's preempt count gives them).  notrace: nothing on
 * the hit path is traced, as nothing on it can be probed.
 */
notrace void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *ops,
				   struct ftrace_regs *fregs)
{
	struct pt_regs *regs = &arch_ftrace_regs(fregs)->regs;
	unsigned long resume, flags;
	struct kprobe *p;
	bool lockdep;

	if (kprobe_ftrace_killed())
		return;
	/*
	 * Interrupts off, as in the int3 path: the handler context is the
	 * same on every path.  raw_: nothing traceable runs before the
	 * probe is known, lockdep is told below.
	 */
	preempt_disable_notrace();
	raw_local_irq_save(flags);
	/* Handlers use RCU: not from where it does not watch. */
	if (unlikely(!kprobe_rcu_watching()))
		goto out;

	p = kprobe_lookup((kprobe_opcode_t *)ip);
	if (unlikely(!p) || kprobe_disabled(p))
		goto out;
	/* A missed hit leaves regs->ip alone: ftrace returns past the call. */
	if (kprobe_missed(p))
		goto out;
	lockdep = kprobe_lockdep_irqs_off();
	/*
	 * Where ftrace resumes: past the call, or where an ops called before
	 * ours sent the function (a live patch, beside a probe on the ops
	 * without IPMODIFY).  Left so unless the pre_handler moves the ip.
	 */
	resume = instruction_pointer(regs);
	/* Handlers see the ip as after an int3 at the site, on every path. */
	instruction_pointer_set(regs, ip + INT3_INSN_SIZE);
	/*
	 * And orig_ax as an exception entry leaves it.  ftrace saved 0
	 * there, and x86_64's ftrace_regs_caller takes anything else on
	 * return for a direct trampoline to jump to: 0 again before going
	 * back, whatever a handler wrote.
	 */
	regs->orig_ax = -1UL;
	if (!kprobe_enter_pre(p, regs)) {
		/* "Execute" the fentry call: continue after it. */
		instruction_pointer_set(regs, ip + MCOUNT_INSN_SIZE);
		if (unlikely(p->post_handler)) {
			kprobe_set_status(KPROBE_HIT_SSDONE);
			kprobe_run_post(p, regs);
		}
		instruction_pointer_set(regs, resume);
	}
	/* else the pre_handler set where the function continues */
	regs->orig_ax = 0;
	reset_current_kprobe();
	kprobe_lockdep_irqs_on(lockdep);
out:
	raw_local_irq_restore(flags);
	preempt_enable_notrace();
}

NOKPROBE_SYMBOL(kprobe_ftrace_handler);

/**
 * arch_prepare_kprobe_ftrace() - prepare a probe on an ftrace site
 * @p: the site's probe
 *
 * Nothing is copied or decoded: the fentry call is ftrace's, and the
 * callback "executes" it by moving the ip past it.
 *
 * Return: 0.
 */
int arch_prepare_kprobe_ftrace(struct kprobe *p)
{
	p->opcode = 0;
	memset(&p->ainsn, 0, sizeof(p->ainsn));
	p->ainsn.len = MCOUNT_INSN_SIZE;
	/* Never reached through a breakpoint: emulate as "jmp next". */
	p->ainsn.kind = KPX_JMP;
	return 0;
}
