// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit suite kprobes_x86: how the x86 port runs probed instructions, on
 * i386 and x86_64.  Boosting (one trap per hit, with a RIP-relative
 * fixup; the post copy keeps a post_handler at one trap), the branches
 * and flags instructions emulated in the trap, and the refusals: an
 * address inside an instruction, an instruction that cannot run out of
 * line, an address inside a function's ENDBR or fentry call.  The
 * targets are written in assembly so that the probed instruction is
 * known.  The arch-independent behaviour is in lib/test_kprobes_core.c
 * (kprobes_core).
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/ftrace.h>
#include <linux/irqflags.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/atomic.h>
#include <kunit/test.h>
#include <asm/text-patching.h>
#include <linux/linkage.h>
#include <asm/ibt.h>
#include <asm/nospec-branch.h>

#include "test-kprobes-x86.h"

/* The fentry call; without CONFIG_FUNCTION_TRACER there is no ftrace site. */
#ifndef MCOUNT_INSN_SIZE
#define MCOUNT_INSN_SIZE	5
#endif

/* How often the pre and the post handlers ran */
static atomic_t kpt_pre_hits, kpt_post_hits;

static void kpt_reset(void)
{
	atomic_set(&kpt_pre_hits, 0);
	atomic_set(&kpt_post_hits, 0);
}

static int kpt_simple_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kpt_pre_hits);
	return 0;
}

static void kpt_simple_post(struct kprobe *p, struct pt_regs *regs,
			    unsigned long flags)
{
	atomic_inc(&kpt_post_hits);
}

/* A C function with an fentry call (with CONFIG_FUNCTION_TRACER) */
static noinline __used __noipa int kpt_x86_target(int x)
{
	return x * 3 + 1;
}

asmlinkage int kpt_x86_leaf(void);
asmlinkage int kpt_x86_riprel(int x);
asmlinkage int kpt_x86_call(int x);
asmlinkage int kpt_x86_jcc(int x);
asmlinkage long kpt_x86_loop(long n);
asmlinkage int kpt_x86_icall_reg(int x);
asmlinkage int kpt_x86_icall_mem(int x);
asmlinkage unsigned long kpt_x86_pushf(void);
asmlinkage int kpt_x86_ret(void);
asmlinkage void kpt_x86_bad(void);

/* Read by the assembly below */
static int kpt_x86_val __used = 5;
static unsigned long kpt_x86_fnptr __used = (unsigned long)kpt_x86_leaf;

/* padded as SYM_FUNC_START pads (kCFI poisons a preamble there) */
#define KPT_FUNC(name)						\
	ASM_FUNC_ALIGN "\n"					\
	"	.globl " #name "\n"					\
	"	.type " #name ", @function\n"				\
	#name ":\n"						\
	ASM_ENDBR
#define KPT_END(name)	"	.size " #name ", . - " #name "\n"
#define KPT_LABEL(name)	"	.globl " #name "\n" #name ":\n"

/*
 * What differs on i386: asmlinkage takes the argument on the stack, and
 * there is no RIP-relative addressing (an absolute disp32 instead).
 */
#ifdef CONFIG_X86_64
#define KPT_PCREL	"(%rip)"
#define KPT_ARG		"%edi"
#define KPT_ARG_LONG	"%rdi"
#define KPT_AX		"%rax"
#define KPT_CX		"%rcx"
#define KPT_TEST_ARG	"	testl %edi, %edi\n"
#define KPT_INSN10	"	movabsq $0x1122334455667788, %rax\n"
#else
#define KPT_PCREL	""
#define KPT_ARG		"4(%esp)"
#define KPT_ARG_LONG	"4(%esp)"
#define KPT_AX		"%eax"
#define KPT_CX		"%ecx"
#define KPT_TEST_ARG	"	cmpl $0, 4(%esp)\n"
#define KPT_INSN10	"	movl $0x11223344, 0x55667788\n"
#endif

asm("	.pushsection .text, \"ax\"\n"
KPT_FUNC(kpt_x86_leaf)
"	movl $41, %eax\n"
	ASM_RET
KPT_END(kpt_x86_leaf)

/* first instruction RIP-relative: stepped or boosted with a fixup */
KPT_FUNC(kpt_x86_riprel)
"	movl kpt_x86_val" KPT_PCREL ", %eax\n"
"	addl " KPT_ARG ", %eax\n"
	ASM_RET
KPT_END(kpt_x86_riprel)

KPT_FUNC(kpt_x86_call)
"	call kpt_x86_leaf\n"
"	addl " KPT_ARG ", %eax\n"
	ASM_RET
KPT_END(kpt_x86_call)

KPT_FUNC(kpt_x86_jcc)
"	movl $1, %eax\n"
	KPT_TEST_ARG
KPT_LABEL(kpt_x86_jcc_insn)
"	jnz 1f\n"
"	movl $2, %eax\n"
"1:\n"
	ASM_RET
KPT_END(kpt_x86_jcc)

KPT_FUNC(kpt_x86_loop)
"	xorl %eax, %eax\n"
"	mov " KPT_ARG_LONG ", " KPT_CX "\n"
"2:	inc " KPT_AX "\n"
KPT_LABEL(kpt_x86_loop_insn)
"	loop 2b\n"
	ASM_RET
KPT_END(kpt_x86_loop)

KPT_FUNC(kpt_x86_icall_reg)
"	lea kpt_x86_leaf" KPT_PCREL ", " KPT_AX "\n"
KPT_LABEL(kpt_x86_icall_insn)
	ANNOTATE_RETPOLINE_SAFE
"	call *" KPT_AX "\n"
"	addl " KPT_ARG ", %eax\n"
	ASM_RET
KPT_END(kpt_x86_icall_reg)

KPT_FUNC(kpt_x86_icall_mem)
	ANNOTATE_RETPOLINE_SAFE
"	call *kpt_x86_fnptr" KPT_PCREL "\n"
"	addl " KPT_ARG ", %eax\n"
	ASM_RET
KPT_END(kpt_x86_icall_mem)

KPT_FUNC(kpt_x86_pushf)
"	pushf\n"
"	pop " KPT_AX "\n"
	ASM_RET
KPT_END(kpt_x86_pushf)

KPT_FUNC(kpt_x86_ret)
"	movl $7, %eax\n"
KPT_LABEL(kpt_x86_ret_insn)
	ASM_RET
KPT_END(kpt_x86_ret)

/* never called: a 10-byte instruction, then one that cannot be stepped */
KPT_FUNC(kpt_x86_bad)
	KPT_INSN10
"3:	hlt\n"
"	jmp 3b\n"
KPT_END(kpt_x86_bad)
"	.popsection\n"
);

/* Where a function's first real instruction is (after a live ENDBR). */
static unsigned long kpt_entry(const char *sym)
{
	unsigned long a = kallsyms_lookup_name(sym);

	return a && is_endbr(*(u32 *)a) ? a + ENDBR_INSN_SIZE : a;
}

static void kpt_x86_boosting(struct kunit *test)
{
	struct kprobe fast = {
		.symbol_name = "kpt_x86_riprel",
		.pre_handler = kpt_simple_pre,
	};
	struct kprobe slow = {
		.symbol_name = "kpt_x86_riprel",
		.pre_handler = kpt_simple_pre,
		.post_handler = kpt_simple_post,
	};
	const struct arch_specific_insn *ai;
	unsigned long traps;
	int i;

	kpt_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&fast), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)fast.addr,
			kpt_entry("kpt_x86_riprel"));
	ai = kpx_ai(&fast);
	KUNIT_ASSERT_NOT_NULL(test, ai);
	KUNIT_EXPECT_EQ(test, ai->kind, KPX_STEP);
	KUNIT_EXPECT_TRUE(test, ai->boostable);

	/* boosted: one trap per hit, the RIP-relative load still right */
	traps = kpx_step_traps();
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, kpt_x86_riprel(i), 5 + i);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_pre_hits), 5);
	KUNIT_EXPECT_EQ(test, kpx_step_traps() - traps, 0UL);

	/*
	 * A post_handler at the address: the slot's post copy runs it,
	 * still one trap per hit (a stepped copy would take a second).
	 */
	KUNIT_ASSERT_EQ(test, register_kprobe(&slow), 0);
	kpt_reset();
	traps = kpx_step_traps();
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, kpt_x86_riprel(i), 5 + i);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_pre_hits), 10);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_post_hits), 5);
	KUNIT_EXPECT_EQ(test, kpx_step_traps() - traps, 0UL);

	/* without it, boosted again */
	unregister_kprobe(&slow);
	kpt_reset();
	traps = kpx_step_traps();
	KUNIT_EXPECT_EQ(test, kpt_x86_riprel(1), 6);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_pre_hits), 1);
	KUNIT_EXPECT_EQ(test, kpx_step_traps() - traps, 0UL);
	unregister_kprobe(&fast);
}

struct kpt_emul_case {
	const char *name;
	const char *sym;
	int kind;
};

static void kpt_x86_emulated(struct kunit *test)
{
	static const struct kpt_emul_case cases[] = {
		{ "call", "kpt_x86_call", KPX_CALL },
		{ "jcc", "kpt_x86_jcc_insn", KPX_JCC },
		{ "loop", "kpt_x86_loop_insn", KPX_LOOP },
		{ "call *reg", "kpt_x86_icall_insn", KPX_CALL_IND },
		{ "call *mem", "kpt_x86_icall_mem", KPX_CALL_IND },
		{ "ret", "kpt_x86_ret_insn", -1 },
	};
	const struct arch_specific_insn *ai;
	struct kprobe kp;
	unsigned long traps;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(&kp, 0, sizeof(kp));
		kp.symbol_name = cases[i].sym;
		kp.pre_handler = kpt_simple_pre;
		kp.post_handler = kpt_simple_post;
		KUNIT_ASSERT_EQ_MSG(test, register_kprobe(&kp), 0, "%s",
				    cases[i].name);
		ai = kpx_ai(&kp);
		KUNIT_ASSERT_NOT_NULL(test, ai);
		if (cases[i].kind >= 0)
			KUNIT_EXPECT_EQ_MSG(test, ai->kind, cases[i].kind, "%s",
					    cases[i].name);
		else	/* ret, or jmp to the return thunk */
			KUNIT_EXPECT_TRUE_MSG(test, ai->kind == KPX_RET ||
					      ai->kind == KPX_JMP, "%s",
					      cases[i].name);
		kpt_reset();
		traps = kpx_step_traps();
		switch (i) {
		case 0:
			KUNIT_EXPECT_EQ(test, kpt_x86_call(1), 42);
			KUNIT_EXPECT_EQ(test, atomic_read(&kpt_pre_hits), 1);
			break;
		case 1:
			KUNIT_EXPECT_EQ(test, kpt_x86_jcc(0), 2);
			KUNIT_EXPECT_EQ(test, kpt_x86_jcc(1), 1);
			KUNIT_EXPECT_EQ(test, atomic_read(&kpt_pre_hits), 2);
			break;
		case 2:
			KUNIT_EXPECT_EQ(test, kpt_x86_loop(4), 4L);
			KUNIT_EXPECT_EQ(test, atomic_read(&kpt_pre_hits), 4);
			break;
		case 3:
			KUNIT_EXPECT_EQ(test, kpt_x86_icall_reg(2), 43);
			KUNIT_EXPECT_EQ(test, atomic_read(&kpt_pre_hits), 1);
			break;
		case 4:
			KUNIT_EXPECT_EQ(test, kpt_x86_icall_mem(3), 44);
			KUNIT_EXPECT_EQ(test, atomic_read(&kpt_pre_hits), 1);
			break;
		case 5:
			KUNIT_EXPECT_EQ(test, kpt_x86_ret(), 7);
			KUNIT_EXPECT_EQ(test, atomic_read(&kpt_pre_hits), 1);
			break;
		}
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kpt_post_hits),
				    atomic_read(&kpt_pre_hits), "%s", cases[i].name);
		/* emulated in the first trap */
		KUNIT_EXPECT_EQ_MSG(test, kpx_step_traps() - traps, 0UL,
				    "%s", cases[i].name);
		unregister_kprobe(&kp);
	}
}

static void kpt_x86_flags(struct kunit *test)
{
	struct kprobe kp = {
		.symbol_name = "kpt_x86_pushf",
		.pre_handler = kpt_simple_pre,
	};
	unsigned long flags, traps;

	kpt_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	/* emulated in the trap, never run out of line */
	KUNIT_EXPECT_EQ(test, kpx_ai(&kp)->kind, KPX_PUSHF);
	traps = kpx_step_traps();
	/* the emulated pushf must see the interrupt flag of its caller */
	flags = kpt_x86_pushf();
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_pre_hits), 1);
	KUNIT_EXPECT_EQ(test, kpx_step_traps() - traps, 0UL);
	KUNIT_EXPECT_TRUE(test, flags & X86_EFLAGS_IF);
	KUNIT_EXPECT_TRUE(test, irqs_disabled() == false);
	local_irq_disable();
	flags = kpt_x86_pushf();
	local_irq_enable();
	KUNIT_EXPECT_FALSE(test, flags & X86_EFLAGS_IF);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpt_pre_hits), 2);
	unregister_kprobe(&kp);
}

static void kpt_x86_refused(struct kunit *test)
{
	unsigned long entry, size, off;
	struct kprobe kp = {};
	int ret;

	/* inside the movabs: not an instruction boundary */
	kp.symbol_name = "kpt_x86_bad";
	kp.offset = ENDBR_INSN_SIZE + 1;
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EILSEQ);
	memset(&kp, 0, sizeof(kp));
	kp.symbol_name = "kpt_x86_bad";
	kp.offset = ENDBR_INSN_SIZE + 3;
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EILSEQ);
	/* hlt cannot run out of line */
	memset(&kp, 0, sizeof(kp));
	kp.symbol_name = "kpt_x86_bad";
	kp.offset = ENDBR_INSN_SIZE + 10;
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EINVAL);
	/* the movabs itself is fine */
	memset(&kp, 0, sizeof(kp));
	kp.symbol_name = "kpt_x86_bad";
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)kp.addr, kpt_entry("kpt_x86_bad"));
	unregister_kprobe(&kp);

	/*
	 * a function's symbol lands after its ENDBR, on its ftrace site with
	 * kprobes on ftrace, else after the fentry call
	 */
	memset(&kp, 0, sizeof(kp));
	kp.symbol_name = "kpt_x86_target";
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	entry = kpt_entry("kpt_x86_target");
	if (ftrace_location(entry) == entry &&
	    !IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
		entry += MCOUNT_INSN_SIZE;
	KUNIT_EXPECT_EQ(test, (unsigned long)kp.addr, entry);
	KUNIT_EXPECT_TRUE(test, kallsyms_lookup_size_offset(entry, &size, &off));
	unregister_kprobe(&kp);

	/* inside the ENDBR or the fentry call: not the entry, refused */
	KUNIT_EXPECT_EQ(test, kprobe_on_func_entry(NULL, "kpt_x86_target", 1),
			-EINVAL);
	memset(&kp, 0, sizeof(kp));
	kp.symbol_name = "kpt_x86_target";
	kp.offset = 1;
	ret = register_kprobe(&kp);
	KUNIT_EXPECT_TRUE(test, ret == -EILSEQ || ret == -EBUSY);
	if (!ret)
		unregister_kprobe(&kp);
}

/* "_text+OFFSET" lands in kpt_x86_bad: its instruction boundaries count */
static void kpt_x86_text_offset(struct kunit *test)
{
	unsigned long text = kallsyms_lookup_name("_text");
	unsigned long bad = (unsigned long)kpt_x86_bad;
	struct kprobe kp = {};

	KUNIT_ASSERT_NE(test, text, 0UL);
	/* inside the movabs */
	kp.symbol_name = "_text";
	kp.offset = bad + ENDBR_INSN_SIZE + 1 - text;
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EILSEQ);
	KUNIT_EXPECT_EQ(test, kprobe_on_func_entry(NULL, "_text", kp.offset),
			-EINVAL);
	/* the function's first byte: its entry, after the ENDBR */
	memset(&kp, 0, sizeof(kp));
	kp.symbol_name = "_text";
	kp.offset = bad - text;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)kp.addr, kpt_entry("kpt_x86_bad"));
	KUNIT_EXPECT_TRUE(test, kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
	unregister_kprobe(&kp);
}

static struct kunit_case kprobes_x86_cases[] = {
	KUNIT_CASE(kpt_x86_boosting),
	KUNIT_CASE(kpt_x86_emulated),
	KUNIT_CASE(kpt_x86_flags),
	KUNIT_CASE(kpt_x86_refused),
	KUNIT_CASE(kpt_x86_text_offset),
	{}
};

static struct kunit_suite kprobes_x86_suite = {
	.name = "kprobes_x86",
	.suite_init = kpx_watch_steps,
	.suite_exit = kpx_unwatch_steps,
	.test_cases = kprobes_x86_cases,
};

kunit_test_suite(kprobes_x86_suite);

MODULE_DESCRIPTION("KUnit tests of how the x86 kprobes port runs instructions");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
