// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * i386: what the handler context suite (test-kprobes-ctx.c) takes from
 * test-kprobes-x86.c on x86_64, whose suites are x86_64 only: the probed
 * functions written in assembly (asmlinkage: the arguments on the
 * stack) and the helpers of test-kprobes-x86.h.
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/vmalloc.h>
#include <linux/rcupdate.h>
#include <kunit/test.h>
#include <asm/asm.h>
#include <linux/linkage.h>
#include <asm/nospec-branch.h>

#include "test-kprobes-x86.h"

#define KPX_FUNC(name)						\
	ASM_FUNC_ALIGN "\n"					\
	"	.globl " #name "\n"					\
	"	.type " #name ", @function\n"				\
	#name ":\n"
#define KPX_END(name)	"	.size " #name ", . - " #name "\n"
#define KPX_LABEL(name)	"	.globl " #name "\n" #name ":\n"

asm("	.pushsection .text, \"ax\"\n"
/* long kpx_exload(src, dst): *dst = *src, 0; -EFAULT if *src faults */
KPX_FUNC(kpx_exload)
"	movl 4(%esp), %ecx\n"
KPX_LABEL(kpx_exload_insn)
"1:	movl (%ecx), %eax\n"
"	movl 8(%esp), %ecx\n"
"	movl %eax, (%ecx)\n"
"	xorl %eax, %eax\n"
	ASM_RET
"2:	movl $-14, %eax\n"
	ASM_RET
	_ASM_EXTABLE(1b, 2b)
KPX_END(kpx_exload)

/* long kpx_leaf(void): 41 */
KPX_FUNC(kpx_leaf)
"	movl $41, %eax\n"
	ASM_RET
KPX_END(kpx_leaf)

/* long kpx_ijmp(fnptr): tail call of *fnptr, or -EFAULT */
KPX_FUNC(kpx_ijmp)
"	movl 4(%esp), %ecx\n"
KPX_LABEL(kpx_ijmp_insn)
	ANNOTATE_RETPOLINE_SAFE
"1:	jmp *(%ecx)\n"
"2:	movl $-14, %eax\n"
	ASM_RET
	_ASM_EXTABLE(1b, 2b)
KPX_END(kpx_ijmp)

/* unsigned long kpx_postcopy(x): kpx_pc_var + x (an absolute load) */
KPX_FUNC(kpx_postcopy)
KPX_LABEL(kpx_postcopy_insn)
"	movl kpx_pc_var, %eax\n"
"	addl 4(%esp), %eax\n"
	ASM_RET
KPX_END(kpx_postcopy)

/* long kpx_rawload(p): *p, no exception table entry; -1 if skipped */
KPX_FUNC(kpx_rawload)
"	movl $-1, %eax\n"
"	movl 4(%esp), %ecx\n"
KPX_LABEL(kpx_rawload_insn)
"	movl (%ecx), %eax\n"
KPX_LABEL(kpx_rawload_end)
	ASM_RET
KPX_END(kpx_rawload)

/* int kpx_opt(x): x + 7; its first instruction is an optimizable region */
KPX_FUNC(kpx_opt)
"	movl $7, %eax\n"
"	addl 4(%esp), %eax\n"
	ASM_RET
KPX_END(kpx_opt)

/*
 * int kpx_boost(x): x + 1; its first instruction boostable, never
 * optimized: the instruction after it is a jump target (of a jmp never
 * taken), which the optimizer keeps out of a region.
 */
KPX_FUNC(kpx_boost)
"	movl 4(%esp), %eax\n"
"1:	incl %eax\n"
	ASM_RET
"	jmp 1b\n"
KPX_END(kpx_boost)
"	.popsection\n"
"	.pushsection .data, \"aw\"\n"
"	.balign 4\n"
"kpx_pc_var:\n"
"	.long 100\n"
"	.popsection\n"
);

unsigned long kpx_sym(const char *sym)
{
	return kallsyms_lookup_name(sym);
}

bool kpx_optimized(struct kprobe *kp)
{
	struct kprobe *site;
	bool ret;

	rcu_read_lock();
	site = get_kprobe(kp->addr);
	ret = site && kprobe_optimized(site);
	rcu_read_unlock();
	return ret;
}

/* The address just past a vmalloc'ed page: its guard page faults. */
unsigned long *kpx_bad_kernel_ptr(struct kunit *test, void **area)
{
	*area = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, *area);
	return (unsigned long *)(*area + PAGE_SIZE);
}
