// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit suite kprobes_x86_tramp: what the trampolines of the paths that
 * take no exception (the post copy's step trampoline, the optimized
 * detour, the kretprobe trampoline) give their handlers, on both x86
 * widths:
 *  - a stack trace taken in a handler goes through the probed function
 *    (and its caller), or for a return handler through the caller the
 *    function returns to, with the frame pointer unwinder too;
 *  - interrupts are off in the handlers and back on after the hit, as
 *    the probed code had them;
 *  - the flags a function returns with reach its caller, and a return
 *    handler sees them in pt_regs;
 *  - x86_64: the paravirt masking a Xen PV kernel runs in place of cli.
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/kretprobes.h>
#include <linux/kallsyms.h>
#include <linux/stacktrace.h>
#include <linux/irqflags.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <kunit/test.h>
#include <asm/asm.h>
#include <linux/linkage.h>
#include <asm/ibt.h>
#include <asm/processor-flags.h>

#include "common.h"

/* Aligned and padded as SYM_FUNC_START does (see test-kprobes-x86.c). */
#define KPT_FUNC(name)						\
	ASM_FUNC_ALIGN "\n"					\
	"	.globl " #name "\n"					\
	"	.type " #name ", @function\n"				\
	#name ":\n"						\
	ASM_ENDBR
#define KPT_END(name)	"	.size " #name ", . - " #name "\n"
#define KPT_LABEL(name)	"	.globl " #name "\n" #name ":\n"

/* No arguments: the same C prototypes for both widths' conventions. */
asmlinkage long kptr_post(void);
asmlinkage long kptr_opt(void);
asmlinkage unsigned long kptr_zf(void);
asmlinkage unsigned long kptr_zf_caller(void);

asm("	.pushsection .text, \"ax\"\n"
/* long kptr_post(void): 42, in a frame; the mov is a post copy site */
KPT_FUNC(kptr_post)
"	push %" _ASM_BP "\n"
"	mov %" _ASM_SP ", %" _ASM_BP "\n"
KPT_LABEL(kptr_post_insn)
"	movl $42, %eax\n"
"	pop %" _ASM_BP "\n"
	ASM_RET
KPT_LABEL(kptr_post_end)
KPT_END(kptr_post)

/* long kptr_opt(void): 8, in a frame; an optimizable region at the label */
KPT_FUNC(kptr_opt)
"	push %" _ASM_BP "\n"
"	mov %" _ASM_SP ", %" _ASM_BP "\n"
KPT_LABEL(kptr_opt_insn)
"	movl $7, %eax\n"
"	addl $1, %eax\n"
"	pop %" _ASM_BP "\n"
	ASM_RET
KPT_LABEL(kptr_opt_end)
KPT_END(kptr_opt)

/* unsigned long kptr_zf(void): 0, returning with ZF and CF set */
KPT_FUNC(kptr_zf)
"	xorl %eax, %eax\n"
"	stc\n"
	ASM_RET
KPT_END(kptr_zf)

/* unsigned long kptr_zf_caller(void): the flags kptr_zf() returned with */
KPT_FUNC(kptr_zf_caller)
"	push %" _ASM_BP "\n"
"	mov %" _ASM_SP ", %" _ASM_BP "\n"
"	call kptr_zf\n"
"	pushf\n"
"	pop %" _ASM_AX "\n"
"	pop %" _ASM_BP "\n"
	ASM_RET
KPT_END(kptr_zf_caller)
"	.popsection\n");

#define KPT_ENTRIES	32

/* What a handler saw. */
static struct {
	int hits;
	int int3;		/* of them in an int3 trap */
	bool irqs_off, preemptible;
	unsigned long flags;
	unsigned int n;
	unsigned long entries[KPT_ENTRIES];
} kpt;

static void kpt_seen(struct pt_regs *regs)
{
	kpt.hits++;
	/* From kernel mode the int3 trap is entered as an NMI (exc_int3()). */
	if (in_nmi())
		kpt.int3++;
	kpt.irqs_off = irqs_disabled();
	kpt.preemptible = preemptible();
	kpt.flags = regs->flags;
	kpt.n = stack_trace_save(kpt.entries, KPT_ENTRIES, 0);
}

static int kpt_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpt_seen(regs);
	return 0;
}

static int kpt_nop_pre(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

static void kpt_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	kpt_seen(regs);
}

static int __maybe_unused kpt_ret(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	kpt_seen(regs);
	return 0;
}

/* The callers: in their own frames, no tail calls. */
static noinline __used __noipa long kptr_call_post(void)
{
	long ret = kptr_post();

	OPTIMIZER_HIDE_VAR(ret);
	return ret;
}

static noinline __used __noipa long kptr_call_opt(void)
{
	long ret = kptr_opt();

	OPTIMIZER_HIDE_VAR(ret);
	return ret;
}

static noinline __used __noipa int kptr_kr_target(int x)
{
	return x + 1;
}

static noinline __used __noipa int kptr_kr_caller(int x)
{
	int ret = kptr_kr_target(x);

	OPTIMIZER_HIDE_VAR(ret);
	return ret + 1;
}

/*
 * Is an address of the function at @fn (its entry excluded) in the
 * trace?  Its end: the label @end, for the functions above (kallsyms
 * ends them at their next label), or kallsyms' size.
 */
static bool kpt_traced(void *fn, const char *end)
{
	unsigned long start = (unsigned long)fn, size, off;
	unsigned int i;

	if (end)
		size = kallsyms_lookup_name(end) - start;
	else if (!kallsyms_lookup_size_offset(start, &size, &off))
		return false;
	for (i = 0; i < kpt.n; i++)
		if (kpt.entries[i] > start && kpt.entries[i] < start + size)
			return true;
	return false;
}

static void kpt_expect_traced(struct kunit *test, void *fn, const char *end,
			      const char *name)
{
	unsigned int i;

	KUNIT_EXPECT_TRUE_MSG(test, kpt_traced(fn, end),
			      "%s missing from the handler's stack trace", name);
	if (!kpt_traced(fn, end))
		for (i = 0; i < kpt.n; i++)
			kunit_info(test, "trace: %pS\n", (void *)kpt.entries[i]);
}

/* What every handler of these paths must have seen, called with IRQs on. */
static void kpt_expect_context(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kpt.hits, 1);
	KUNIT_EXPECT_TRUE_MSG(test, kpt.irqs_off, "handler with interrupts on");
	KUNIT_EXPECT_FALSE_MSG(test, kpt.preemptible, "handler preemptible");
	KUNIT_EXPECT_FALSE_MSG(test, irqs_disabled(),
			       "interrupts not back on after the hit");
}

static struct kprobe *kpt_probe(struct kunit *test, const char *sym, bool post)
{
	struct kprobe *kp = kunit_kzalloc(test, sizeof(*kp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, kp);
	memset(&kpt, 0, sizeof(kpt));
	kp->symbol_name = sym;
	if (post) {
		kp->pre_handler = kpt_nop_pre;
		kp->post_handler = kpt_post;
	} else {
		kp->pre_handler = kpt_pre;
	}
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	return kp;
}

/*
 * A post_handler run from the post copy (no second trap): its stack
 * trace has the probed function and its caller, the interrupt state is
 * as the int3 path gives it, and the probed code's IF comes back.
 */
static void kpt_post_copy(struct kunit *test)
{
	struct kprobe *kp = kpt_probe(test, "kptr_post_insn", true);

	KUNIT_EXPECT_FALSE(test, irqs_disabled());
	KUNIT_EXPECT_EQ(test, kptr_call_post(), 42L);
	/* not from the trap after a stepped copy */
	KUNIT_EXPECT_EQ(test, kpt.int3, 0);
	kpt_expect_context(test);
	unregister_kprobe(kp);
	kpt_expect_traced(test, kptr_post, "kptr_post_end",
			  "the probed function");
	kpt_expect_traced(test, kptr_call_post, NULL, "its caller");
}

static bool __maybe_unused kpt_is_optimized(struct kprobe *kp)
{
	struct kprobe *site;
	bool ret;

	rcu_read_lock();
	site = get_kprobe(kp->addr);
	ret = site && kprobe_optimized(site);
	rcu_read_unlock();
	return ret;
}

/* A pre_handler run from the optimized detour: as for the post copy. */
static void kpt_optimized(struct kunit *test)
{
#ifdef CONFIG_OPTPROBES
	struct kprobe *kp = kpt_probe(test, "kptr_opt_insn", false);

	wait_for_kprobe_optimizer();
	KUNIT_ASSERT_TRUE(test, kpt_is_optimized(kp));
	KUNIT_EXPECT_FALSE(test, irqs_disabled());
	KUNIT_EXPECT_EQ(test, kptr_call_opt(), 8L);
	KUNIT_EXPECT_EQ(test, kpt.int3, 0);
	kpt_expect_context(test);
	unregister_kprobe(kp);
	kpt_expect_traced(test, kptr_opt, "kptr_opt_end",
			  "the probed function");
	kpt_expect_traced(test, kptr_call_opt, NULL, "its caller");
#else
	kunit_skip(test, "no CONFIG_OPTPROBES");
#endif
}

/*
 * A return handler run from the kretprobe trampoline: its stack trace
 * has the caller the function returned to.
 */
static void kpt_kretprobe(struct kunit *test)
{
#ifdef CONFIG_KRETPROBES
	struct kretprobe *rp = kunit_kzalloc(test, sizeof(*rp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rp);
	memset(&kpt, 0, sizeof(kpt));
	rp->kp.symbol_name = "kptr_kr_target";
	rp->handler = kpt_ret;
	KUNIT_ASSERT_EQ(test, register_kretprobe(rp), 0);
	KUNIT_EXPECT_FALSE(test, irqs_disabled());
	KUNIT_EXPECT_EQ(test, kptr_kr_caller(5), 7);
	kpt_expect_context(test);
	unregister_kretprobe(rp);
	kpt_expect_traced(test, kptr_kr_caller, NULL, "the caller");
#else
	kunit_skip(test, "no CONFIG_KRETPROBES");
#endif
}

/*
 * The arithmetic flags a function returns with are its caller's to read
 * (the ABI does not promise them, but the kretprobe trampoline must not
 * change what it returns to), and a return handler sees them in
 * regs->flags.  kptr_zf() returns with ZF and CF set.
 */
static void kpt_kretprobe_flags(struct kunit *test)
{
#ifdef CONFIG_KRETPROBES
	struct kretprobe *rp = kunit_kzalloc(test, sizeof(*rp), GFP_KERNEL);
	unsigned long want = X86_EFLAGS_ZF | X86_EFLAGS_CF;

	KUNIT_ASSERT_NOT_NULL(test, rp);
	KUNIT_EXPECT_EQ(test, kptr_zf_caller() & want, want);
	memset(&kpt, 0, sizeof(kpt));
	rp->kp.symbol_name = "kptr_zf";
	rp->handler = kpt_ret;
	KUNIT_ASSERT_EQ(test, register_kretprobe(rp), 0);
	KUNIT_EXPECT_EQ_MSG(test, kptr_zf_caller() & want, want,
			    "flags after the return");
	unregister_kretprobe(rp);
	KUNIT_EXPECT_EQ(test, kpt.hits, 1);
	KUNIT_EXPECT_EQ_MSG(test, kpt.flags & want, want,
			    "the return handler's regs->flags");
#else
	kunit_skip(test, "no CONFIG_KRETPROBES");
#endif
}

/*
 * The paravirt masking the trampolines of a Xen PV kernel call in place
 * of cli and before their popf.  Here (no Xen PV) the alternatives keep
 * cli and popf, so the calls are made directly: the interrupt state is
 * read from the irq ops and not from the saved flags (which show IF
 * always set on Xen PV), recorded in regs->flags, masked, and given back
 * from regs->flags.  Whether the alternatives are applied on Xen PV, and
 * what Xen does with cli, cannot be seen here.
 */
static void kpt_xenpv_irqs(struct kunit *test)
{
#ifdef CONFIG_X86_64
	struct pt_regs regs = { .flags = X86_EFLAGS_FIXED };
	unsigned long flags;
	bool off, off2, on, off3;
	unsigned long rf, rf2;

	/* The probed code had interrupts on, the saved flags say off. */
	local_irq_save(flags);
	raw_local_irq_enable();
	kprobe_xenpv_irqs_off(&regs);
	off = raw_irqs_disabled();
	rf = regs.flags;
	kprobe_xenpv_irqs_restore(&regs);
	on = !raw_irqs_disabled();

	/* The probed code had them off, the saved flags say on. */
	raw_local_irq_disable();
	regs.flags = X86_EFLAGS_FIXED | X86_EFLAGS_IF;
	kprobe_xenpv_irqs_off(&regs);
	off2 = raw_irqs_disabled();
	rf2 = regs.flags;
	kprobe_xenpv_irqs_restore(&regs);
	off3 = raw_irqs_disabled();
	local_irq_restore(flags);

	KUNIT_EXPECT_TRUE(test, off);
	KUNIT_EXPECT_EQ(test, rf, X86_EFLAGS_FIXED | X86_EFLAGS_IF);
	KUNIT_EXPECT_TRUE(test, on);
	KUNIT_EXPECT_TRUE(test, off2);
	KUNIT_EXPECT_EQ(test, rf2, (unsigned long)X86_EFLAGS_FIXED);
	KUNIT_EXPECT_TRUE(test, off3);
#else
	kunit_skip(test, "i386 kernels do not run as Xen PV guests");
#endif
}

static struct kunit_case kprobes_x86_tramp_cases[] = {
	KUNIT_CASE(kpt_post_copy),
	KUNIT_CASE(kpt_optimized),
	KUNIT_CASE(kpt_kretprobe),
	KUNIT_CASE(kpt_kretprobe_flags),
	KUNIT_CASE(kpt_xenpv_irqs),
	{}
};

static struct kunit_suite kprobes_x86_tramp_suite = {
	.name = "kprobes_x86_tramp",
	.test_cases = kprobes_x86_tramp_cases,
};

kunit_test_suite(kprobes_x86_tramp_suite);
