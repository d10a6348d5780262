// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit suite kprobes_x86_unusual: probes on the x86_64 instructions that
 * need care, hit from process context (preemptible) and from hard
 * interrupts (an hrtimer and irq_work), with exact hit counts and the
 * instructions' results checked:
 *
 *  - loads with an exception table entry, given good pointers, a bad
 *    kernel pointer (#PF), a non-canonical one (#GP), a user pointer to
 *    an unmapped page and one to a page not yet faulted in: never
 *    boosted, faults fixed up at the original address, no probe state
 *    left behind;
 *  - pushf, popf, cli, sti: emulated in the trap, never stepped;
 *  - call/jmp through memory: emulated with a valid operand; with a bad
 *    one the fault happens at the probed instruction (here it has an
 *    exception table entry, so the fixup shows it without an oops);
 *  - where the handlers see regs->ip: the probed address + 1, and the
 *    next instruction in a post_handler.
 *
 * What a test cannot show: an interrupt in a window of a few
 * instructions (the ones the emulation closes) is rarely hit, and an
 * emulator that delivers interrupts only between blocks of instructions
 * never hits it; the counts and the state checks still pin the behaviour
 * (emulated kinds take no step trap, boosting is off where it must be).
 * Kernel CFI (CONFIG_CFI_CLANG) needs clang >= 16: with gcc, the refusal
 * of the CFI check sequence (core.c, in_cfi_check()) is compiled out and
 * kpx_cfi_check skips; the config matrix's cfi variant (clang-16) runs it.
 *
 * The handler context suite, kprobes_x86_context, is in
 * test-kprobes-ctx.c: it probes the functions written here.
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/kretprobes.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/vmalloc.h>
#include <linux/mman.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/stacktrace.h>
#include <linux/kthread.h>
#include <linux/cfi.h>
#include <linux/jump_label.h>
#include <linux/extable.h>
#include <linux/fprobe.h>
#include <linux/rethook.h>
#include <linux/uaccess.h>
#include <linux/context_tracking.h>
#include <linux/delay.h>
#include <linux/memory.h>
#include <linux/string_choices.h>
#include <kunit/test.h>
#include <kunit/static_stub.h>
#include <asm/text-patching.h>
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/smap.h>
#include <asm/ibt.h>
#include <asm/nospec-branch.h>
#include <asm/insn.h>
#include <asm/apic.h>
#include <asm/nmi.h>
#include <asm/trapnr.h>

#include "test-kprobes-x86.h"

asmlinkage long kpx_uload(const unsigned long __user *src, unsigned long *dst);
asmlinkage long kpx_icall(unsigned long *fnptr);
asmlinkage unsigned long kpx_flags_full(void);
asmlinkage unsigned long kpx_flags_save(void);
asmlinkage unsigned long kpx_popf_bits(void);

/*
 * Aligned and padded as SYM_FUNC_START does (ASM_FUNC_ALIGN): with kernel
 * CFI the kernel takes the 16 bytes in front of a function whose ENDBR it
 * seals for that function's kCFI preamble and poisons the type hash in
 * it (poison_cfi()); without padding of their own these functions had
 * the tail of the one before them zeroed (found by the cfi variant).
 */
#define KPX_FUNC(name)						\
	ASM_FUNC_ALIGN "\n"					\
	"	.globl " #name "\n"					\
	"	.type " #name ", @function\n"				\
	#name ":\n"						\
	ASM_ENDBR
#define KPX_END(name)	"	.size " #name ", . - " #name "\n"
#define KPX_LABEL(name)	"	.globl " #name "\n" #name ":\n"

asm("	.pushsection .text, \"ax\"\n"
/* long kpx_exload(src, dst): *dst = *src, 0; -EFAULT if *src faults */
KPX_FUNC(kpx_exload)
KPX_LABEL(kpx_exload_insn)
"1:	movq (%rdi), %rax\n"
"	movq %rax, (%rsi)\n"
"	xorl %eax, %eax\n"
	ASM_RET
"2:	movq $-14, %rax\n"
	ASM_RET
	_ASM_EXTABLE(1b, 2b)
KPX_END(kpx_exload)

/* the same from user memory */
KPX_FUNC(kpx_uload)
	ASM_STAC
KPX_LABEL(kpx_uload_insn)
"1:	movq (%rdi), %rax\n"
	ASM_CLAC
"	movq %rax, (%rsi)\n"
"	xorl %eax, %eax\n"
	ASM_RET
"2:\n"
	ASM_CLAC
"	movq $-14, %rax\n"
	ASM_RET
	_ASM_EXTABLE_UA(1b, 2b)
KPX_END(kpx_uload)

KPX_FUNC(kpx_leaf)
"	movl $41, %eax\n"
	ASM_RET
KPX_END(kpx_leaf)

/* long kpx_icall(fnptr): (*fnptr)(), or -EFAULT if *fnptr faults */
KPX_FUNC(kpx_icall)
KPX_LABEL(kpx_icall_insn)
	ANNOTATE_RETPOLINE_SAFE
"1:	call *(%rdi)\n"
"	incl %eax\n"
	ASM_RET
"2:	movq $-14, %rax\n"
	ASM_RET
	_ASM_EXTABLE(1b, 2b)
KPX_END(kpx_icall)

/* long kpx_ijmp(fnptr): tail call of *fnptr, or -EFAULT */
KPX_FUNC(kpx_ijmp)
KPX_LABEL(kpx_ijmp_insn)
	ANNOTATE_RETPOLINE_SAFE
"1:	jmp *(%rdi)\n"
"2:	movq $-14, %rax\n"
	ASM_RET
	_ASM_EXTABLE(1b, 2b)
KPX_END(kpx_ijmp)

/* bit 0: IF after cli (0), bit 1: IF after sti (1); flags restored */
KPX_FUNC(kpx_flags_full)
KPX_LABEL(kpx_pushf_insn)
"	pushfq\n"
KPX_LABEL(kpx_cli_insn)
"	cli\n"
"	pushfq\n"
"	popq %rax\n"
KPX_LABEL(kpx_sti_insn)
"	sti\n"
"	pushfq\n"
"	popq %rdx\n"
KPX_LABEL(kpx_popf_insn)
"	popfq\n"
"	andl $0x200, %eax\n"
"	andl $0x200, %edx\n"
"	shrl $9, %eax\n"
"	shrl $8, %edx\n"
"	orl %edx, %eax\n"
	ASM_RET
KPX_END(kpx_flags_full)

/* local_irq_save()/restore() shape, for interrupt context: IF after cli */
KPX_FUNC(kpx_flags_save)
KPX_LABEL(kpx_pushf2_insn)
"	pushfq\n"
KPX_LABEL(kpx_cli2_insn)
"	cli\n"
"	pushfq\n"
"	popq %rax\n"
KPX_LABEL(kpx_popf2_insn)
"	popfq\n"
"	andl $0x200, %eax\n"
	ASM_RET
KPX_END(kpx_flags_save)

/* popf of an image with CF, ZF and SF set: the flags after it */
KPX_FUNC(kpx_popf_bits)
"	pushfq\n"
"	orq $0xc1, (%rsp)\n"
KPX_LABEL(kpx_popf3_insn)
"	popfq\n"
"	pushfq\n"
"	popq %rax\n"
	ASM_RET
KPX_END(kpx_popf_bits)

/* unsigned long kpx_postcopy(x): kpx_pc_var + x (a RIP-relative load) */
KPX_FUNC(kpx_postcopy)
KPX_LABEL(kpx_postcopy_insn)
"	movq kpx_pc_var(%rip), %rax\n"
"	addq %rdi, %rax\n"
KPX_LABEL(kpx_postcopy_skip)
	ASM_RET
KPX_END(kpx_postcopy)

/* unsigned long kpx_df(void): kpx_pc_var, loaded with DF set */
KPX_FUNC(kpx_df)
"	std\n"
KPX_LABEL(kpx_df_insn)
"	movq kpx_pc_var(%rip), %rax\n"
"	cld\n"
	ASM_RET
KPX_END(kpx_df)

/* int kpx_df_opt(x): x + 7, with DF set over an optimizable region */
KPX_FUNC(kpx_df_opt)
"	std\n"
"	movl $7, %eax\n"
"	addl %edi, %eax\n"
"	cld\n"
	ASM_RET
KPX_END(kpx_df_opt)

/* long kpx_rawload(p): *p, no exception table entry; -1 if skipped */
KPX_FUNC(kpx_rawload)
"	movq $-1, %rax\n"
KPX_LABEL(kpx_rawload_insn)
"	movq (%rdi), %rax\n"
KPX_LABEL(kpx_rawload_end)
	ASM_RET
KPX_END(kpx_rawload)

/* int kpx_opt(x): x + 7; its first instruction is an optimizable region */
KPX_FUNC(kpx_opt)
"	movl $7, %eax\n"
"	addl %edi, %eax\n"
	ASM_RET
KPX_END(kpx_opt)

/* int kpx_boost(x): x + 1; boostable, never optimized (a ret follows) */
KPX_FUNC(kpx_boost)
"	leal 1(%rdi), %eax\n"
	ASM_RET
KPX_END(kpx_boost)

/*
 * Never called.  Its first instruction (b8 90 90 90 b8) gets a foreign
 * int3 over its opcode: decoded from there, "int3; nop; nop; nop" makes
 * +3 a boundary, and the 0xb8 at +4 swallows the je, which jumps into
 * the tail of the region at +9 (xorl; movl: 7 bytes).
 */
KPX_FUNC(kpx_foreign)
"	movl $0xb8909090, %eax\n"
"	je 1f\n"
"	xorl %edx, %edx\n"
"	xorl %ecx, %ecx\n"
"1:	movl $1, %ecx\n"
"	addl %ecx, %eax\n"
	ASM_RET
KPX_END(kpx_foreign)
"	.popsection\n"
"	.pushsection .data, \"aw\"\n"
"	.balign 8\n"
"kpx_pc_var:\n"
"	.quad 100\n"
"	.popsection\n"
);

asmlinkage unsigned long kpx_df(void);
asmlinkage int kpx_df_opt(int x);
asmlinkage void kpx_foreign(void);

/* A probe that counts its hits and remembers the ip its handlers saw. */
struct kpx_probe {
	struct kprobe kp;
	atomic_t pre, post;
	unsigned long ip_pre, ip_post;
};

static int kpx_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct kpx_probe *k = container_of(p, struct kpx_probe, kp);

	atomic_inc(&k->pre);
	WRITE_ONCE(k->ip_pre, instruction_pointer(regs));
	return 0;
}

static int kpx_pre_nop(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

static void kpx_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	struct kpx_probe *k = container_of(p, struct kpx_probe, kp);

	atomic_inc(&k->post);
	WRITE_ONCE(k->ip_post, instruction_pointer(regs));
}

static int kpx_register(struct kunit *test, struct kpx_probe *k,
			const char *sym, bool post)
{
	memset(k, 0, sizeof(*k));
	k->kp.symbol_name = sym;
	k->kp.pre_handler = kpx_pre;
	if (post)
		k->kp.post_handler = kpx_post;
	return register_kprobe(&k->kp);
}

unsigned long kpx_sym(const char *sym)
{
	return kallsyms_lookup_name(sym);
}

static bool kpx_no_probe_running(void)
{
	bool idle;

	preempt_disable();
	idle = !kprobe_running();
	preempt_enable();
	return idle;
}

/* An unmapped kernel address: the guard page after a vmalloc area. */
unsigned long *kpx_bad_kernel_ptr(struct kunit *test, void **area)
{
	*area = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, *area);
	return (unsigned long *)(*area + PAGE_SIZE);
}

#define KPX_NONCANONICAL	((unsigned long *)0xdead000000000000UL)

/* ---------------------------------------------------------------------
 * Loads with an exception table entry
 */

static void kpx_extable_kernel(struct kunit *test)
{
	struct kpx_probe *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	unsigned long good = 0x1234, out = 0, traps;
	const struct arch_specific_insn *ai;
	unsigned long *bad;
	void *area;
	int round;

	KUNIT_ASSERT_NOT_NULL(test, k);
	bad = kpx_bad_kernel_ptr(test, &area);
	/* round 0: no post_handler (boostable); round 1: with one */
	for (round = 0; round < 2; round++) {
		KUNIT_ASSERT_EQ(test, kpx_register(test, k, "kpx_exload_insn",
						   round), 0);
		ai = kpx_ai(&k->kp);
		KUNIT_ASSERT_NOT_NULL(test, ai);
		KUNIT_EXPECT_EQ(test, ai->kind, KPX_STEP);
		/* a boosted copy would fault with no fixup: an oops */
		if (ai->boostable) {
			unregister_kprobe(&k->kp);
			vfree(area);
			KUNIT_FAIL_AND_ABORT(test, "boostable: it would oops");
		}

		traps = kpx_step_traps();
		KUNIT_EXPECT_EQ(test, kpx_exload(&good, &out), 0L);
		KUNIT_EXPECT_EQ(test, out, 0x1234UL);
		KUNIT_EXPECT_EQ(test, kpx_exload(bad, &out), -EFAULT);
		KUNIT_EXPECT_TRUE(test, kpx_no_probe_running());
		KUNIT_EXPECT_EQ(test, kpx_exload(KPX_NONCANONICAL, &out),
				-EFAULT);
		KUNIT_EXPECT_TRUE(test, kpx_no_probe_running());
		KUNIT_EXPECT_EQ(test, kpx_exload(&good, &out), 0L);
		KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), 4);
		/* the faulting hits end at the fixup, without post_handler */
		KUNIT_EXPECT_EQ(test, atomic_read(&k->post), round ? 2 : 0);
		/* each hit stepped: one trap after the copy, none on a fault */
		KUNIT_EXPECT_EQ(test, kpx_step_traps() - traps, 2UL);
		unregister_kprobe(&k->kp);
	}
	vfree(area);
}

static void kpx_extable_user(struct kunit *test)
{
	struct kpx_probe *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	unsigned long user, out = 1;

	KUNIT_ASSERT_NOT_NULL(test, k);
	/* Gives this kthread an mm: two pages, the second unmapped again. */
	user = kunit_vm_mmap(test, NULL, 0, 2 * PAGE_SIZE,
			     PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, user, 0UL, "no user memory");
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(user));
	KUNIT_ASSERT_EQ(test, vm_munmap(user + PAGE_SIZE, PAGE_SIZE), 0);

	KUNIT_ASSERT_EQ(test, kpx_register(test, k, "kpx_uload_insn", false),
			0);
	if (kpx_ai(&k->kp)->boostable) {
		unregister_kprobe(&k->kp);
		KUNIT_FAIL_AND_ABORT(test, "boostable: it would oops");
	}

	/* unmapped: the fault is fixed up at the original instruction */
	KUNIT_EXPECT_EQ(test, kpx_uload((void __user *)(user + PAGE_SIZE),
					&out), -EFAULT);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), 1);
	KUNIT_EXPECT_TRUE(test, kpx_no_probe_running());
	/*
	 * Mapped but not present: the fault is rewound to the original
	 * instruction, handled there (it may sleep: not in the slot), and
	 * the instruction runs again, through the probe again: two hits.
	 */
	KUNIT_EXPECT_EQ(test, kpx_uload((void __user *)user, &out), 0L);
	KUNIT_EXPECT_EQ(test, out, 0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), 3);
	/* present now: one hit */
	KUNIT_EXPECT_EQ(test, kpx_uload((void __user *)user, &out), 0L);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), 4);
	KUNIT_EXPECT_TRUE(test, kpx_no_probe_running());
	unregister_kprobe(&k->kp);
}

/*
 * The kernel's own nofault loads: every instruction of
 * copy_from_kernel_nofault() that has an exception table entry (found by
 * decoding it), probed; then a read of a good and of an unmapped kernel
 * address (the reproducer of the oops, through bpf_probe_read_kernel()
 * in the guest, came this way).  Hits are counted for this task only.
 */
static struct task_struct *kpx_tracked;
static atomic_t kpx_mine;

static int kpx_pre_mine(struct kprobe *p, struct pt_regs *regs)
{
	if (current == READ_ONCE(kpx_tracked))
		atomic_inc(&kpx_mine);
	return 0;
}

#define KPX_NOFAULT_MAX	16

static void kpx_extable_nofault(struct kunit *test)
{
	unsigned long start = (unsigned long)copy_from_kernel_nofault;
	unsigned long size, off, a, good = 0x55aa, dst = 0, *bad;
	unsigned long addrs[KPX_NOFAULT_MAX];
	bool ok[KPX_NOFAULT_MAX] = {};
	struct kprobe *kps;
	u8 buf[MAX_INSN_SIZE];
	struct insn insn;
	int n = 0, i, armed = 0, boosted = 0;
	void *area;

	kps = kunit_kcalloc(test, KPX_NOFAULT_MAX, sizeof(*kps), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, kps);
	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset(start, &size,
							    &off));
	for (a = start; a < start + size && n < KPX_NOFAULT_MAX;
	     a += insn.length) {
		KUNIT_ASSERT_EQ(test, copy_from_kernel_nofault(buf, (void *)a,
							       sizeof(buf)), 0);
		KUNIT_ASSERT_EQ(test, insn_decode_kernel(&insn, buf), 0);
		if (search_exception_tables(a))
			addrs[n++] = a;
	}
	KUNIT_ASSERT_GT(test, n, 0);
	for (i = 0; i < n; i++) {
		kps[i].addr = (void *)addrs[i];
		kps[i].pre_handler = kpx_pre_mine;
		if (register_kprobe(&kps[i]))
			continue;
		ok[i] = true;
		armed++;
		if (kpx_ai(&kps[i])->boostable)
			boosted++;
	}
	if (boosted || !armed) {
		for (i = 0; i < n; i++)
			if (ok[i])
				unregister_kprobe(&kps[i]);
		KUNIT_FAIL_AND_ABORT(test, "%d armed, %d boostable", armed,
				     boosted);
	}

	bad = kpx_bad_kernel_ptr(test, &area);
	atomic_set(&kpx_mine, 0);
	WRITE_ONCE(kpx_tracked, current);
	KUNIT_EXPECT_EQ(test, copy_from_kernel_nofault(&dst, &good, 8), 0L);
	KUNIT_EXPECT_EQ(test, dst, 0x55aaUL);
	KUNIT_EXPECT_EQ(test, copy_from_kernel_nofault(&dst, bad, 8),
			(long)-EFAULT);
	KUNIT_EXPECT_TRUE(test, kpx_no_probe_running());
	WRITE_ONCE(kpx_tracked, NULL);
	/* one 8-byte load each */
	KUNIT_EXPECT_EQ(test, atomic_read(&kpx_mine), 2);
	for (i = 0; i < n; i++)
		if (ok[i])
			unregister_kprobe(&kps[i]);
	vfree(area);
}

/* ---------------------------------------------------------------------
 * Branches through memory
 */

static void kpx_indirect_mem(struct kunit *test)
{
	struct kpx_probe *k = kunit_kzalloc(test, 2 * sizeof(*k), GFP_KERNEL);
	unsigned long fn = (unsigned long)kpx_leaf, traps;
	const struct arch_specific_insn *ai;
	unsigned long *bad;
	void *area;

	KUNIT_ASSERT_NOT_NULL(test, k);
	bad = kpx_bad_kernel_ptr(test, &area);
	KUNIT_ASSERT_EQ(test, kpx_register(test, &k[0], "kpx_icall_insn", true),
			0);
	KUNIT_ASSERT_EQ(test, kpx_register(test, &k[1], "kpx_ijmp_insn", true),
			0);
	ai = kpx_ai(&k[0].kp);
	KUNIT_ASSERT_NOT_NULL(test, ai);
	KUNIT_EXPECT_EQ(test, ai->kind, KPX_CALL_IND);
	KUNIT_EXPECT_EQ(test, kpx_ai(&k[1].kp)->kind, KPX_JMP_IND);
	/* a slot to fault in, for an operand the trap cannot read */
	if (!ai->memop || !ai->insn) {
		unregister_kprobe(&k[1].kp);
		unregister_kprobe(&k[0].kp);
		vfree(area);
		KUNIT_FAIL_AND_ABORT(test, "no fault-safe fallback: it would oops");
	}

	/* a valid operand: emulated in the trap, no step */
	traps = kpx_step_traps();
	KUNIT_EXPECT_EQ(test, kpx_icall(&fn), 42L);
	KUNIT_EXPECT_EQ(test, kpx_ijmp(&fn), 41L);
	KUNIT_EXPECT_EQ(test, kpx_step_traps() - traps, 0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&k[0].pre), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&k[0].post), 1);
	/* the post_handler of an emulated call sees its target */
	KUNIT_EXPECT_EQ(test, k[0].ip_post, fn);
	KUNIT_EXPECT_EQ(test, atomic_read(&k[1].pre), 1);

	/*
	 * A bad operand: not emulated; the fault happens as at the
	 * probed instruction, whose fixup here returns -EFAULT (with no
	 * entry it would be the oops it is without a probe).
	 */
	KUNIT_EXPECT_EQ(test, kpx_icall(bad), -EFAULT);
	KUNIT_EXPECT_TRUE(test, kpx_no_probe_running());
	KUNIT_EXPECT_EQ(test, kpx_icall(KPX_NONCANONICAL), -EFAULT);
	KUNIT_EXPECT_TRUE(test, kpx_no_probe_running());
	KUNIT_EXPECT_EQ(test, kpx_ijmp(bad), -EFAULT);
	KUNIT_EXPECT_EQ(test, kpx_ijmp(KPX_NONCANONICAL), -EFAULT);
	KUNIT_EXPECT_TRUE(test, kpx_no_probe_running());
	KUNIT_EXPECT_EQ(test, atomic_read(&k[0].pre), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&k[0].post), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&k[1].pre), 3);
	/* and the probes work on */
	KUNIT_EXPECT_EQ(test, kpx_icall(&fn), 42L);
	KUNIT_EXPECT_EQ(test, atomic_read(&k[0].pre), 4);
	unregister_kprobe(&k[1].kp);
	unregister_kprobe(&k[0].kp);
	vfree(area);
}

/* ---------------------------------------------------------------------
 * pushf, popf, cli, sti
 */

static const char * const kpx_flag_syms[] = {
	"kpx_pushf_insn", "kpx_cli_insn", "kpx_sti_insn", "kpx_popf_insn",
	"kpx_pushf2_insn", "kpx_cli2_insn", "kpx_popf2_insn", "kpx_popf3_insn",
};

static const u8 kpx_flag_kinds[] = {
	KPX_PUSHF, KPX_CLI, KPX_STI, KPX_POPF,
	KPX_PUSHF, KPX_CLI, KPX_POPF, KPX_POPF,
};

static void kpx_flags_emulated(struct kunit *test)
{
	int n = ARRAY_SIZE(kpx_flag_syms), i;
	struct kpx_probe *k = kunit_kcalloc(test, n, sizeof(*k), GFP_KERNEL);
	unsigned long traps, f;

	KUNIT_ASSERT_NOT_NULL(test, k);
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ_MSG(test, kpx_register(test, &k[i],
						       kpx_flag_syms[i], true),
				    0, "%s", kpx_flag_syms[i]);
		KUNIT_EXPECT_EQ_MSG(test, kpx_ai(&k[i].kp)->kind,
				    kpx_flag_kinds[i], "%s", kpx_flag_syms[i]);
	}
	traps = kpx_step_traps();
	KUNIT_EXPECT_EQ(test, kpx_flags_full(), 2UL);
	KUNIT_EXPECT_FALSE(test, irqs_disabled());
	KUNIT_EXPECT_EQ(test, kpx_flags_save(), 0UL);
	KUNIT_EXPECT_FALSE(test, irqs_disabled());
	f = kpx_popf_bits();
#define KPX_POPF_BITS	(X86_EFLAGS_CF | X86_EFLAGS_ZF | X86_EFLAGS_SF)
	KUNIT_EXPECT_EQ(test, f & KPX_POPF_BITS, (unsigned long)KPX_POPF_BITS);
	KUNIT_EXPECT_TRUE(test, f & X86_EFLAGS_IF);
	local_irq_disable();
	f = kpx_popf_bits();
	KUNIT_EXPECT_EQ(test, kpx_flags_save(), 0UL);
	KUNIT_EXPECT_TRUE(test, irqs_disabled());
	local_irq_enable();
	KUNIT_EXPECT_FALSE(test, f & X86_EFLAGS_IF);
	/* all emulated: not one step trap */
	KUNIT_EXPECT_EQ(test, kpx_step_traps() - traps, 0UL);
	for (i = 0; i < n; i++) {
		/* kpx_flags_full once, the two others twice */
		int want = i < 4 ? 1 : 2;

		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&k[i].pre), want, "%s",
				    kpx_flag_syms[i]);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&k[i].post), want, "%s",
				    kpx_flag_syms[i]);
		/* 1-byte instructions: after the int3 is the next one */
		KUNIT_EXPECT_EQ_MSG(test, k[i].ip_pre, k[i].ip_post, "%s",
				    kpx_flag_syms[i]);
		KUNIT_EXPECT_EQ_MSG(test, k[i].ip_pre,
				    (unsigned long)k[i].kp.addr + 1, "%s",
				    kpx_flag_syms[i]);
	}
	for (i = 0; i < n; i++)
		unregister_kprobe(&k[i].kp);
}

/* ---------------------------------------------------------------------
 * Every class at once, from process context and hard interrupts
 */

struct kpx_storm {
	struct hrtimer timer;
	struct irq_work work;
	unsigned long fn;
	unsigned long *bad;
	atomic_t irq_calls, work_calls, errors;
	bool stop;
};

/* What an interrupt runs: each class once, results checked. */
static void kpx_storm_round(struct kpx_storm *s, bool irq)
{
	unsigned long v = 7, out = 0;

	if (kpx_flags_save() != 0)
		atomic_inc(&s->errors);
	if (kpx_exload(&v, &out) || out != 7)
		atomic_inc(&s->errors);
	if (kpx_exload(s->bad, &out) != -EFAULT)
		atomic_inc(&s->errors);
	if (kpx_icall(&s->fn) != 42)
		atomic_inc(&s->errors);
	if (kpx_icall(s->bad) != -EFAULT)
		atomic_inc(&s->errors);
	if (irq && kprobe_running())
		atomic_inc(&s->errors);
}

static enum hrtimer_restart kpx_storm_timer(struct hrtimer *t)
{
	struct kpx_storm *s = container_of(t, struct kpx_storm, timer);

	kpx_storm_round(s, true);
	atomic_inc(&s->irq_calls);
	if (READ_ONCE(s->stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(200 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static void kpx_storm_work(struct irq_work *w)
{
	struct kpx_storm *s = container_of(w, struct kpx_storm, work);

	kpx_storm_round(s, true);
	atomic_inc(&s->work_calls);
}

/* The probes of kpx_contexts() and kpx_nmi() */
static const char * const kpx_ctx_syms[] = {
	"kpx_pushf2_insn", "kpx_cli2_insn", "kpx_popf2_insn",
	"kpx_pushf_insn", "kpx_cli_insn", "kpx_sti_insn",
	"kpx_popf_insn", "kpx_exload_insn", "kpx_icall_insn",
};

/* hits per process round and per interrupt round */
static const int kpx_per_proc[] = { 1, 1, 1, 1, 1, 1, 1, 2, 2 };
static const int kpx_per_irq[] = { 1, 1, 1, 0, 0, 0, 0, 2, 2 };

/*
 * The probes of kpx_ctx_syms (every other one with a post_handler) and
 * the state of the rounds: in *@k and *@s, which the test frees.
 */
static void kpx_ctx_setup(struct kunit *test, struct kpx_probe **k,
			  struct kpx_storm **s, void **area)
{
	int n = ARRAY_SIZE(kpx_ctx_syms), i;

	BUILD_BUG_ON(ARRAY_SIZE(kpx_per_proc) != ARRAY_SIZE(kpx_ctx_syms));
	BUILD_BUG_ON(ARRAY_SIZE(kpx_per_irq) != ARRAY_SIZE(kpx_ctx_syms));
	*k = kunit_kcalloc(test, n, sizeof(**k), GFP_KERNEL);
	*s = kunit_kzalloc(test, sizeof(**s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, *k);
	KUNIT_ASSERT_NOT_NULL(test, *s);
	(*s)->fn = (unsigned long)kpx_leaf;
	(*s)->bad = kpx_bad_kernel_ptr(test, area);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ_MSG(test, kpx_register(test, &(*k)[i],
						       kpx_ctx_syms[i], i & 1),
				    0, "%s", kpx_ctx_syms[i]);
}

static void kpx_contexts(struct kunit *test)
{
	const char * const *syms = kpx_ctx_syms;
	const int *per_proc = kpx_per_proc, *per_irq = kpx_per_irq;
	int n = ARRAY_SIZE(kpx_ctx_syms), i, rounds, irqs, works, want;
	unsigned long deadline;
	struct kpx_probe *k;
	struct kpx_storm *s;
	void *area;

	kpx_ctx_setup(test, &k, &s, &area);

	init_irq_work(&s->work, kpx_storm_work);
	hrtimer_init(&s->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	s->timer.function = kpx_storm_timer;
	hrtimer_start(&s->timer, ns_to_ktime(200 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_HARD);

	/*
	 * Preemptible process context, as long as it takes for the timer
	 * to interrupt us a good number of times (bounded, not measured).
	 */
	deadline = jiffies + 30 * HZ;
	for (rounds = 0; rounds < 20000;) {
		if (kpx_flags_full() != 2)
			atomic_inc(&s->errors);
		kpx_storm_round(s, false);
		if (!(rounds % 64))
			irq_work_queue(&s->work);
		rounds++;
		cond_resched();
		if (rounds >= 2000 && atomic_read(&s->irq_calls) >= 100)
			break;
		if (time_after(jiffies, deadline))
			break;
	}
	WRITE_ONCE(s->stop, true);
	hrtimer_cancel(&s->timer);
	irq_work_sync(&s->work);

	irqs = atomic_read(&s->irq_calls);
	works = atomic_read(&s->work_calls);
	kunit_info(test, "%d process rounds, %d from hrtimer, %d from irq_work\n",
		   rounds, irqs, works);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->errors), 0);
	KUNIT_EXPECT_GT(test, irqs, 0);
	KUNIT_EXPECT_GT(test, works, 0);
	KUNIT_EXPECT_FALSE(test, irqs_disabled());
	for (i = 0; i < n; i++) {
		want = rounds * per_proc[i] + (irqs + works) * per_irq[i];
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&k[i].pre), want, "%s",
				    syms[i]);
		KUNIT_EXPECT_EQ_MSG(test, k[i].kp.nmissed, 0UL, "%s", syms[i]);
	}
	for (i = 0; i < n; i++)
		unregister_kprobe(&k[i].kp);
	vfree(area);
}

/*
 * The same classes from NMIs: the test sends NMIs to its own CPU (the
 * local APIC's NMI delivery; no PMU needed) and its
 * NMI handler runs a round.  Nothing else runs a probe on this CPU
 * meanwhile, so no hit may be missed.
 */
static struct kpx_storm *kpx_nmi_storm;
static atomic_t kpx_nmi_pending;

static int kpx_nmi_handler(unsigned int type, struct pt_regs *regs)
{
	struct kpx_storm *s = READ_ONCE(kpx_nmi_storm);

	if (!s || !atomic_xchg(&kpx_nmi_pending, 0))
		return NMI_DONE;
	kpx_storm_round(s, true);
	if (!in_nmi())
		atomic_inc(&s->errors);
	atomic_inc(&s->irq_calls);
	return NMI_HANDLED;
}

static void kpx_nmi(struct kunit *test)
{
	int n = ARRAY_SIZE(kpx_ctx_syms), i, sent, nmis;
	unsigned long spins;
	struct kpx_probe *k;
	struct kpx_storm *s;
	void *area;

	kpx_ctx_setup(test, &k, &s, &area);
	WRITE_ONCE(kpx_nmi_storm, s);
	KUNIT_ASSERT_EQ(test, register_nmi_handler(NMI_LOCAL, kpx_nmi_handler,
						   0, "kpx_test"), 0);

	for (sent = 0; sent < 50; sent++) {
		preempt_disable();
		atomic_set(&kpx_nmi_pending, 1);
		__apic_send_IPI_mask(cpumask_of(smp_processor_id()),
				     NMI_VECTOR);
		for (spins = 0; atomic_read(&kpx_nmi_pending) &&
		     spins < 100000000UL; spins++)
			cpu_relax();
		preempt_enable();
		if (atomic_read(&kpx_nmi_pending))
			break;
	}
	unregister_nmi_handler(NMI_LOCAL, "kpx_test");
	WRITE_ONCE(kpx_nmi_storm, NULL);

	nmis = atomic_read(&s->irq_calls);
	KUNIT_EXPECT_EQ(test, sent, 50);
	KUNIT_EXPECT_EQ(test, nmis, sent);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->errors), 0);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&k[i].pre),
				    nmis * kpx_per_irq[i], "%s",
				    kpx_ctx_syms[i]);
		KUNIT_EXPECT_EQ_MSG(test, k[i].kp.nmissed, 0UL, "%s",
				    kpx_ctx_syms[i]);
	}
	for (i = 0; i < n; i++)
		unregister_kprobe(&k[i].kp);
	vfree(area);
}

#if defined(CONFIG_FPROBE) && defined(CONFIG_KRETPROBES)
/*
 * A task with a rethook (an fprobe's exit) and a kretprobe pending at
 * once: kpx_rh_outer()'s return is hijacked by rethook, kpx_rh_inner()'s
 * by our trampoline, and a stack trace taken in kpx_rh_inner() must see
 * through both.  The two kinds keep their pending returns on different
 * lists, so the unwinder walks them with a cursor each (patch 0400);
 * with one shared cursor the second recovery would search the wrong
 * list and leave a trampoline's address in the trace.
 */
static unsigned long kpx_rh_trace[32];
static unsigned int kpx_rh_len, kpx_rh_exits;

static noinline void kpx_rh_inner(void)
{
	kpx_rh_len = stack_trace_save(kpx_rh_trace, ARRAY_SIZE(kpx_rh_trace),
				      0);
}

static noinline void kpx_rh_outer(void)
{
	kpx_rh_inner();
	/* no tail call: kpx_rh_inner() returns here */
	WRITE_ONCE(kpx_rh_exits, READ_ONCE(kpx_rh_exits));
}

static void kpx_rh_exit(struct fprobe *fp, unsigned long entry_ip,
			unsigned long ret_ip, struct pt_regs *regs, void *data)
{
	kpx_rh_exits++;
}

static int kpx_rh_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return 0;
}

/* Is @addr inside the function that starts at @fn? */
static bool kpx_in_func(unsigned long addr, void *fn)
{
	unsigned long size, off;

	return kallsyms_lookup_size_offset(addr, &size, &off) &&
	       addr - off == (unsigned long)fn;
}

static noinline void kpx_rethook_and_kretprobe(struct kunit *test)
{
	struct fprobe fp = { .exit_handler = kpx_rh_exit };
	struct kretprobe rp = {
		.kp.symbol_name = "kpx_rh_inner",
		.handler = kpx_rh_ret,
	};
	bool outer = false, self = false;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, register_fprobe(&fp, "kpx_rh_outer", NULL), 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	kpx_rh_exits = 0;
	kpx_rh_len = 0;
	kpx_rh_outer();
	unregister_kretprobe(&rp);
	unregister_fprobe(&fp);

	KUNIT_EXPECT_EQ(test, kpx_rh_exits, 1);
	KUNIT_EXPECT_GT(test, kpx_rh_len, 2);
	for (i = 0; i < kpx_rh_len; i++) {
		KUNIT_EXPECT_FALSE_MSG(test,
				       is_kretprobe_trampoline(kpx_rh_trace[i]) ||
				       is_rethook_trampoline(kpx_rh_trace[i]),
				       "entry %u: %pS", i, (void *)kpx_rh_trace[i]);
		if (kpx_in_func(kpx_rh_trace[i], kpx_rh_outer))
			outer = true;
		if (kpx_in_func(kpx_rh_trace[i], kpx_rethook_and_kretprobe))
			self = true;
	}
	/* both real return addresses recovered, in order */
	KUNIT_EXPECT_TRUE(test, outer);
	KUNIT_EXPECT_TRUE(test, self);
}
#endif

/* ---------------------------------------------------------------------
 * Where the handlers see the ip
 */

static void kpx_ip_after_int3(struct kunit *test)
{
	struct kpx_probe *k = kunit_kcalloc(test, 2, sizeof(*k), GFP_KERNEL);
	unsigned long v = 3, out, a;

	KUNIT_ASSERT_NOT_NULL(test, k);
	/* stepped (post_handler), a 3-byte load */
	KUNIT_ASSERT_EQ(test, kpx_register(test, &k[0], "kpx_exload_insn",
					   true), 0);
	/* boosted-or-stepped alike without post_handler: a 5-byte mov */
	KUNIT_ASSERT_EQ(test, kpx_register(test, &k[1], "kpx_leaf", false), 0);
	KUNIT_EXPECT_EQ(test, kpx_exload(&v, &out), 0L);
	a = kpx_sym("kpx_exload_insn");
	KUNIT_EXPECT_EQ(test, k[0].ip_pre, a + INT3_INSN_SIZE);
	KUNIT_EXPECT_EQ(test, k[0].ip_post, a + 3);
	KUNIT_EXPECT_EQ(test, kpx_leaf(), 41L);
	KUNIT_EXPECT_EQ(test, atomic_read(&k[1].pre), 1);
	KUNIT_EXPECT_EQ(test, k[1].ip_pre,
			(unsigned long)k[1].kp.addr + INT3_INSN_SIZE);
	unregister_kprobe(&k[1].kp);
	unregister_kprobe(&k[0].kp);
}

/* ---------------------------------------------------------------------
 * A post_handler without a second trap: the slot's post copy
 */

static struct {
	int mode;	/* 0: look; 1: also add 1000 to ax; 2: skip the add */
	atomic_t hits;
	unsigned long ip, ax, flags;
	bool irqs_off, lockdep_on, running, rcu_off;
} kpx_pc;

static void kpx_pc_post(struct kprobe *p, struct pt_regs *regs,
			unsigned long flags)
{
	atomic_inc(&kpx_pc.hits);
	WRITE_ONCE(kpx_pc.ip, regs->ip);
	WRITE_ONCE(kpx_pc.ax, regs->ax);
	WRITE_ONCE(kpx_pc.flags, regs->flags);
	WRITE_ONCE(kpx_pc.irqs_off, irqs_disabled());
	/* lockdep's view: checked only with CONFIG_TRACE_IRQFLAGS, below */
	WRITE_ONCE(kpx_pc.lockdep_on, lockdep_hardirqs_enabled());
	WRITE_ONCE(kpx_pc.running, kprobe_running() == p);
	if (!rcu_is_watching())
		WRITE_ONCE(kpx_pc.rcu_off, true);
	if (kpx_pc.mode == 1)
		regs->ax += 1000;
	else if (kpx_pc.mode == 2)
		regs->ip = kpx_sym("kpx_postcopy_skip");
}

/*
 * A boostable instruction (a RIP-relative load, which each copy must
 * relocate) probed with a post_handler: no step trap; the post_handler
 * sees the load done, the ip at the next instruction, the interrupted
 * IF in regs->flags, interrupts off (lockdep told so, in the debug
 * flavour) and itself running; its changes to
 * the registers and the ip take effect; the caller's IF is back after.
 * Fails on a tree that steps such a hit with a second trap.
 */
static void kpx_post_copy(struct kunit *test)
{
	struct kprobe *kp = kunit_kzalloc(test, sizeof(*kp), GFP_KERNEL);
	const struct arch_specific_insn *ai;
	unsigned long traps, a, v;

	KUNIT_ASSERT_NOT_NULL(test, kp);
	memset(&kpx_pc, 0, sizeof(kpx_pc));
	kp->symbol_name = "kpx_postcopy_insn";
	kp->pre_handler = kpx_pre_nop;
	kp->post_handler = kpx_pc_post;
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	a = (unsigned long)kp->addr;
	ai = kpx_ai(kp);
	KUNIT_ASSERT_NOT_NULL(test, ai);
	KUNIT_EXPECT_EQ(test, ai->kind, KPX_STEP);
	KUNIT_EXPECT_TRUE(test, ai->boostable);

	traps = kpx_step_traps();
	KUNIT_EXPECT_EQ(test, kpx_postcopy(5), 105UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpx_pc.hits), 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(kpx_pc.ip), a + ai->len);
	KUNIT_EXPECT_EQ(test, READ_ONCE(kpx_pc.ax), 100UL);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(kpx_pc.flags) & X86_EFLAGS_IF);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(kpx_pc.irqs_off));
	/*
	 * lockdep told: checked only where something tracks interrupts
	 * (CONFIG_TRACE_IRQFLAGS, e.g. the lockdep kernel of make stress
	 * DEBUG=1).  Elsewhere lockdep_hardirqs_enabled() is a constant 0,
	 * so the check is left out there; irqs_off above is what the CPU
	 * says, in every config.
	 */
	if (IS_ENABLED(CONFIG_TRACE_IRQFLAGS))
		KUNIT_EXPECT_FALSE(test, READ_ONCE(kpx_pc.lockdep_on));
	KUNIT_EXPECT_TRUE(test, READ_ONCE(kpx_pc.running));
	KUNIT_EXPECT_FALSE(test, irqs_disabled());
	KUNIT_EXPECT_TRUE(test, kpx_no_probe_running());

	/* interrupts off at the probe: still off after, IF clear in regs */
	local_irq_disable();
	v = kpx_postcopy(6);
	KUNIT_EXPECT_TRUE(test, irqs_disabled());
	local_irq_enable();
	KUNIT_EXPECT_EQ(test, v, 106UL);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(kpx_pc.flags) & X86_EFLAGS_IF);

	/* a post_handler's register and ip changes take effect */
	kpx_pc.mode = 1;
	KUNIT_EXPECT_EQ(test, kpx_postcopy(7), 1107UL);
	kpx_pc.mode = 2;
	KUNIT_EXPECT_EQ(test, kpx_postcopy(8), 100UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpx_pc.hits), 4);
#ifdef CONFIG_CONTEXT_TRACKING_IDLE
	/*
	 * Called where RCU does not watch: the post_handler gets it
	 * watching, as from a second int3.
	 */
	kpx_pc.mode = 0;
	local_irq_disable();
	ct_idle_enter();
	v = kpx_postcopy(10);
	ct_idle_exit();
	local_irq_enable();
	KUNIT_EXPECT_EQ(test, v, 110UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpx_pc.hits), 5);
#endif
	KUNIT_EXPECT_FALSE(test, READ_ONCE(kpx_pc.rcu_off));
	KUNIT_EXPECT_EQ(test, kpx_step_traps() - traps, 0UL);
	KUNIT_EXPECT_EQ(test, kp->nmissed, 0UL);
	KUNIT_EXPECT_TRUE(test, kpx_no_probe_running());
	unregister_kprobe(kp);
	KUNIT_EXPECT_EQ(test, kpx_postcopy(9), 109UL);
}

/* ---------------------------------------------------------------------
 * Stack traces through a kretprobed function's return
 */
#ifdef CONFIG_KRETPROBES

#define KPX_TRACE_MAX	32

struct kpx_trace {
	unsigned long entries[KPX_TRACE_MAX];
	unsigned int n;
};

static struct {
	struct irq_work work;
	struct kpx_trace handler, irq;
	atomic_t irq_done;
	int hits;
} kpx_krp;

static noinline __used __noipa int kpx_krp_target(int x)
{
	return x * 2;
}

static noinline __used __noipa int kpx_krp_caller(int x)
{
	return kpx_krp_target(x) + 1;
}

static void kpx_krp_irq(struct irq_work *w)
{
	kpx_krp.irq.n = stack_trace_save(kpx_krp.irq.entries, KPX_TRACE_MAX,
					 0);
	atomic_set(&kpx_krp.irq_done, 1);
}

static int kpx_krp_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	long spin;

	kpx_krp.hits++;
	kpx_krp.handler.n = stack_trace_save(kpx_krp.handler.entries,
					     KPX_TRACE_MAX, 0);
	/*
	 * An interrupt while the return is handled: the handler runs with
	 * interrupts off, as every handler does, so the self-IPI comes in
	 * at the trampoline's popf, inside the trampoline (after the real
	 * return address is back in the slot).  Were they on, it would
	 * come in here.
	 */
	irq_work_queue(&kpx_krp.work);
	if (!irqs_disabled())
		for (spin = 0; spin < 100000000L &&
		     !atomic_read(&kpx_krp.irq_done); spin++)
			cpu_relax();
	return 0;
}

/* The trace has @fn as a caller, and no trampoline anywhere. */
static void kpx_check_trace(struct kunit *test, const struct kpx_trace *t,
			    const char *what)
{
	unsigned long caller = (unsigned long)kpx_krp_caller, size, off, e;
	bool found = false;
	unsigned int i;

	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset(caller, &size,
							    &off));
	KUNIT_EXPECT_GT_MSG(test, t->n, 0U, "%s", what);
	for (i = 0; i < t->n; i++) {
		e = t->entries[i];
		if (e > caller && e < caller + size)
			found = true;
		KUNIT_EXPECT_NE_MSG(test, e, (unsigned long)kretprobe_trampoline,
				    "%s: entry %u", what, i);
	}
	KUNIT_EXPECT_TRUE_MSG(test, found, "%s: kpx_krp_caller not in the trace",
			      what);
	if (!found)
		for (i = 0; i < t->n; i++)
			kunit_info(test, "%s: %pS\n", what,
				   (void *)t->entries[i]);
}

static void kpx_kretprobe_trace(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.symbol_name = "kpx_krp_target",
		.handler = kpx_krp_ret,
	};

	memset(&kpx_krp, 0, sizeof(kpx_krp));
	init_irq_work(&kpx_krp.work, kpx_krp_irq);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, kpx_krp_caller(5), 11);
	unregister_kretprobe(&rp);
	irq_work_sync(&kpx_krp.work);
	KUNIT_ASSERT_EQ(test, kpx_krp.hits, 1);
	kpx_check_trace(test, &kpx_krp.handler, "return handler");
	KUNIT_ASSERT_EQ(test, atomic_read(&kpx_krp.irq_done), 1);
	kpx_check_trace(test, &kpx_krp.irq, "interrupt in the return");
}
#endif /* CONFIG_KRETPROBES */

/* ---------------------------------------------------------------------
 * Decoding while a jump label in the same function flips
 */

static DEFINE_STATIC_KEY_FALSE(kpx_key);

static noinline __used __noipa int kpx_keyed(int x)
{
	if (static_branch_unlikely(&kpx_key))
		x += 100;
	return x * 3;
}

#define KPX_RACE_MAX	24

static void kpx_nopost(struct kprobe *p, struct pt_regs *regs,
		       unsigned long flags)
{
}

/* The jump label site of kpx_key (in kpx_keyed), or 0. */
static unsigned long kpx_key_site(void)
{
#ifdef CONFIG_JUMP_LABEL
	struct jump_entry *e;

	for (e = __start___jump_table; e < __stop___jump_table; e++)
		if (jump_entry_key(e) == &kpx_key.key)
			return jump_entry_code(e);
#endif
	return 0;
}

struct kpx_reg {
	struct kprobe **list;
	int n, ret;
	struct completion started, done;
};

static int kpx_registrar(void *data)
{
	struct kpx_reg *r = data;

	complete(&r->started);
	r->ret = register_kprobes(r->list, r->n);
	complete(&r->done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void kpx_reset_probes(struct kprobe **list, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		list[i]->flags = 0;
		list[i]->nmissed = 0;
		INIT_HLIST_NODE(&list[i]->hlist);
		INIT_LIST_HEAD(&list[i]->list);
	}
}

/*
 * Register @n probes at boundaries after @at while @at is as
 * text_poke_bp() leaves an instruction in the middle of a change: an
 * int3 over its first byte, text_mutex held, and for a jump label site
 * (@jl) jump_label_lock() too, as a key's change holds them.
 * Registration must wait for the patching and then decode whole
 * instructions: it succeeds.  Had it decoded meanwhile, the int3 would
 * be a one-byte instruction that code runs into, taken for another
 * debugger's breakpoint: -EBUSY.
 */
static void kpx_decode_mid_patch(struct kunit *test, unsigned long at,
				 bool jl, struct kprobe **list, int n)
{
	struct kpx_reg r = { .list = list, .n = n, .ret = -EINVAL };
	u8 int3 = INT3_INSN_OPCODE, orig;
	struct task_struct *t;
	bool early, done;
	int i;

	init_completion(&r.started);
	init_completion(&r.done);
	kpx_reset_probes(list, n);
	if (jl)
		jump_label_lock();
	mutex_lock(&text_mutex);
	orig = *(u8 *)at;
	text_poke((void *)at, &int3, INT3_INSN_SIZE);
	text_poke_sync();
	t = kthread_run(kpx_registrar, &r, "kpx_registrar");
	if (!IS_ERR(t)) {
		wait_for_completion(&r.started);
		/* until it is done or asleep (on a lock the patching holds) */
		for (i = 0; i < 5000 && !completion_done(&r.done); i++) {
			if (READ_ONCE(t->__state) == TASK_UNINTERRUPTIBLE)
				break;
			usleep_range(1000, 2000);
		}
	}
	early = !IS_ERR(t) && completion_done(&r.done);
	text_poke((void *)at, &orig, 1);
	text_poke_sync();
	mutex_unlock(&text_mutex);
	if (jl)
		jump_label_unlock();
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	/* bounded: a registrar that oopsed must not hang the suite */
	done = wait_for_completion_timeout(&r.done, 30 * HZ);
	KUNIT_ASSERT_TRUE_MSG(test, done, "registration mid-patch never ended");
	kthread_stop(t);
	KUNIT_EXPECT_FALSE_MSG(test, early,
			       "registration did not wait for the patching of %pS",
			       (void *)at);
	KUNIT_EXPECT_EQ_MSG(test, r.ret, 0,
			    "a boundary after %pS refused, decoded mid-patch",
			    (void *)at);
	if (!r.ret)
		unregister_kprobes(list, n);
}

/*
 * Decoding while the text of the same function is patched.
 * text_poke_bp() leaves an int3 over the first byte of an instruction
 * while it rewrites the rest; a decoder reading the text then would
 * misplace the boundaries after it.  A key's change holds
 * jump_label_lock() (which registration's check for jump label sites
 * takes) and text_mutex; ftrace's and static calls' changes hold
 * text_mutex, which registration's decoding holds.
 *
 * Deterministic: rather than race a flipping key (which hit the window
 * only now and then), the test puts the text in that very state itself,
 * holding what the patcher holds, while another thread registers the
 * boundaries after the site: at the jump label site of kpx_key (with
 * jump_label_lock()) and at the first instruction of kpx_keyed that
 * ftrace patches (its fentry call; without ftrace the first one longer
 * than a byte) with text_mutex alone.  So with the key off (a nop at the
 * site) and on (a jmp).  In both states, every boundary registers and
 * every mid-instruction address is refused.
 */
static void kpx_decode_vs_jump_label(struct kunit *test)
{
	unsigned long start, size, off, a, site, other = 0;
	struct kprobe *kps, **list;
	int n = 0, nmid = 0, i, after, state, ret;
	unsigned long *mid;
	u8 buf[MAX_INSN_SIZE];
	struct insn insn;

	kps = kunit_kcalloc(test, KPX_RACE_MAX, sizeof(*kps), GFP_KERNEL);
	list = kunit_kcalloc(test, KPX_RACE_MAX, sizeof(*list), GFP_KERNEL);
	mid = kunit_kcalloc(test, KPX_RACE_MAX, sizeof(*mid), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, kps);
	KUNIT_ASSERT_NOT_NULL(test, list);
	KUNIT_ASSERT_NOT_NULL(test, mid);
	if (!IS_ENABLED(CONFIG_JUMP_LABEL))
		kunit_skip(test, "CONFIG_JUMP_LABEL is off: no jump label site");
	KUNIT_EXPECT_EQ(test, kpx_keyed(1), 3);
	start = (unsigned long)kpx_keyed;
	site = kpx_key_site();
	KUNIT_ASSERT_NE(test, site, 0UL);
	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset(start, &size,
							    &off));
	KUNIT_ASSERT_TRUE(test, site > start && site < start + size);
	/* the boundaries that register while the key is quiet */
	after = -1;
	for (a = start; a < start + size && n < KPX_RACE_MAX; a += insn.length) {
		KUNIT_ASSERT_EQ(test, copy_from_kernel_nofault(buf, (void *)a,
							       sizeof(buf)), 0);
		KUNIT_ASSERT_EQ(test, insn_decode_kernel(&insn, buf), 0);
		if (insn.length > 1 && nmid < KPX_RACE_MAX)
			mid[nmid++] = a + 1;
		if (insn.length > 1 && !other && a < site)
			other = a;
		memset(&kps[n], 0, sizeof(kps[n]));
		kps[n].addr = (void *)a;
		kps[n].pre_handler = kpx_pre_nop;
		kps[n].post_handler = kpx_nopost;	/* never optimized */
		if (!register_kprobe(&kps[n])) {
			unregister_kprobe(&kps[n]);
			memset(&kps[n], 0, sizeof(kps[n]));
			kps[n].addr = (void *)a;
			kps[n].pre_handler = kpx_pre_nop;
			kps[n].post_handler = kpx_nopost;
			list[n] = &kps[n];
			if (a > site && after < 0)
				after = n;
			n++;
		}
	}
	KUNIT_ASSERT_GT(test, n, 2);
	KUNIT_ASSERT_GE_MSG(test, after, 0, "no boundary after %pS",
			    (void *)site);
	if (ftrace_location(start))
		other = ftrace_location(start);
	KUNIT_ASSERT_NE(test, other, 0UL);

	for (state = 0; state < 2; state++) {
		if (state)
			static_branch_enable(&kpx_key);
		kpx_decode_mid_patch(test, site, true, list + after, n - after);
		kpx_decode_mid_patch(test, other, false, list + after,
				     n - after);
		kpx_reset_probes(list, n);
		ret = register_kprobes(list, n);
		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "key %s", str_on_off(state));
		if (!ret) {
			KUNIT_EXPECT_EQ(test, kpx_keyed(2), state ? 306 : 6);
			unregister_kprobes(list, n);
		}
		for (i = 0; i < nmid; i++) {
			struct kprobe kp = {
				.addr = (void *)mid[i],
				.pre_handler = kpx_pre_nop,
			};

			ret = register_kprobe(&kp);
			KUNIT_EXPECT_NE_MSG(test, ret, 0,
					    "mid-instruction %pS, key %s",
					    (void *)mid[i], str_on_off(state));
			if (!ret)
				unregister_kprobe(&kp);
		}
	}
	static_branch_disable(&kpx_key);
}

#ifdef CONFIG_CFI_CLANG
static noinline __used __noipa int kpx_cfi_callee(int x)
{
	return x + 7;
}

static int (*kpx_cfi_fp)(int) = kpx_cfi_callee;

/*
 * An indirect call: kCFI checks the target's type in front of it (read
 * once, so that the compiler cannot make it a direct call).
 */
static noinline __used __noipa int kpx_cfi_caller(int x)
{
	return READ_ONCE(kpx_cfi_fp)(x);
}
#endif

/*
 * Kernel CFI (CONFIG_CFI_CLANG): the check in front of an indirect call
 * (movl $-type,%r10d; addl -4(%reg),%r10d; je 1f; ud2) is refused at
 * each of its four instructions, so that a CFI failure's #UD handler
 * still decodes the type and target from the movl and addl; the call
 * after it is probed as any.  A gcc build has no kCFI: skipped there;
 * the config matrix's cfi variant builds with clang-16 and runs it.
 */
static void kpx_cfi_check(struct kunit *test)
{
#ifdef CONFIG_CFI_CLANG
	static const int at[] = { -12, -6, -2, 0 };
	unsigned long start, size, off, a, trap = 0;
	struct kpx_probe *k;
	u8 buf[MAX_INSN_SIZE];
	struct insn insn;
	int i, ret;

	KUNIT_EXPECT_EQ(test, kpx_cfi_caller(1), 8);
	start = (unsigned long)kpx_cfi_caller;
	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset(start, &size,
							    &off));
	for (a = start; a < start + size; a += insn.length) {
		KUNIT_ASSERT_EQ(test, copy_from_kernel_nofault(buf, (void *)a,
							       sizeof(buf)), 0);
		KUNIT_ASSERT_EQ(test, insn_decode_kernel(&insn, buf), 0);
		if (is_cfi_trap(a)) {
			trap = a;
			break;
		}
	}
	KUNIT_ASSERT_NE_MSG(test, trap, 0, "no kCFI check in %pS",
			    kpx_cfi_caller);
	for (i = 0; i < ARRAY_SIZE(at); i++) {
		struct kprobe kp = {
			.addr = (void *)(trap + at[i]),
			.pre_handler = kpx_pre_nop,
		};

		ret = register_kprobe(&kp);
		KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "probe on %pS (trap%+d)",
				    kp.addr, at[i]);
		if (!ret)
			unregister_kprobe(&kp);
	}
	k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, k);
	k->kp.addr = (void *)(trap + 2);
	k->kp.pre_handler = kpx_pre;
	KUNIT_ASSERT_EQ(test, register_kprobe(&k->kp), 0);
	KUNIT_EXPECT_EQ(test, kpx_cfi_caller(2), 9);
	unregister_kprobe(&k->kp);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->pre), 1);
#else
	kunit_skip(test, "no kernel CFI (a gcc build): the cfi variant runs it");
#endif
}

/* ---------------------------------------------------------------------
 * What the handlers of the trampoline paths may rely on
 */

/* The body of an asm test function: past its ENDBR, if any. */
static unsigned long kpx_body(void *fn)
{
	unsigned long a = (unsigned long)fn;

	/* computed here, not as a relocation past the ENDBR (objtool) */
	OPTIMIZER_HIDE_VAR(a);
	return is_endbr(*(u32 *)a) ? a + ENDBR_INSN_SIZE : a;
}

/* Has the optimizer made @kp's site a jump? */
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

/*
 * A handler's string instructions, with DF as the handler finds it:
 * a rep stosb of 64 bytes into the middle of three.  With DF set it
 * stores downwards from there, over the guard below.
 */
static struct {
	atomic_t hits;
	atomic_t int3;		/* of them in the int3 trap */
	bool df;
	u8 buf[3 * 64];
} kpx_dfs;

static void kpx_df_handler(void)
{
	void *dst = kpx_dfs.buf + 64;
	unsigned long n = 64;

	atomic_inc(&kpx_dfs.hits);
	if (kpx_in_int3())
		atomic_inc(&kpx_dfs.int3);
	if (native_save_fl() & X86_EFLAGS_DF)
		WRITE_ONCE(kpx_dfs.df, true);
	asm volatile("rep stosb" : "+D" (dst), "+c" (n) : "a" (0x5a) : "memory");
}

static int kpx_df_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpx_df_handler();
	return 0;
}

static void kpx_df_post(struct kprobe *p, struct pt_regs *regs,
			unsigned long flags)
{
	kpx_df_handler();
}

static void kpx_df_expect(struct kunit *test, const char *path)
{
	unsigned int i;

	KUNIT_EXPECT_FALSE_MSG(test, READ_ONCE(kpx_dfs.df),
			       "%s: handler ran with DF set", path);
	for (i = 0; i < sizeof(kpx_dfs.buf); i++)
		if (kpx_dfs.buf[i] != (i >= 64 && i < 128 ? 0x5a : 0))
			break;
	KUNIT_EXPECT_EQ_MSG(test, i, sizeof(kpx_dfs.buf),
			    "%s: rep stosb stored outside its 64 bytes", path);
	memset(&kpx_dfs, 0, sizeof(kpx_dfs));
}

/*
 * A probed instruction inside "std ... cld".  The post copy's
 * post_handler (kprobe_step_trampoline) and an optimized probe's
 * pre_handler (kprobe_opt_trampoline) run with DF clear, as from an
 * int3; the probed code gets DF set back.  Trampolines without their
 * cld fail it: DF set in both handlers, and the rep stosb going
 * backwards over the guard.
 */
static void kpx_df_clear(struct kunit *test)
{
	struct kprobe *kp = kunit_kcalloc(test, 2, sizeof(*kp), GFP_KERNEL);
	unsigned long traps;

	KUNIT_ASSERT_NOT_NULL(test, kp);
	memset(&kpx_dfs, 0, sizeof(kpx_dfs));
	kp[0].symbol_name = "kpx_df_insn";
	kp[0].pre_handler = kpx_pre_nop;
	kp[0].post_handler = kpx_df_post;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp[0]), 0);
	KUNIT_ASSERT_TRUE(test, kpx_ai(&kp[0])->boostable);
	traps = kpx_step_traps();
	KUNIT_EXPECT_EQ(test, kpx_df(), 100UL);
	KUNIT_EXPECT_EQ(test, kpx_step_traps() - traps, 0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpx_dfs.hits), 1);
	unregister_kprobe(&kp[0]);
	kpx_df_expect(test, "post copy");

	/*
	 * The movl after the std: optimized, or without OPTPROBES a
	 * breakpoint's pre_handler, which must see DF clear as well.
	 */
	kp[1].addr = (kprobe_opcode_t *)(kpx_body(kpx_df_opt) + 1);
	kp[1].pre_handler = kpx_df_pre;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp[1]), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_EQ(test, kpx_optimized(&kp[1]), IS_ENABLED(CONFIG_OPTPROBES));
	KUNIT_EXPECT_EQ(test, kpx_df_opt(1), 8);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpx_dfs.int3),
			IS_ENABLED(CONFIG_OPTPROBES) ? 0 : 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpx_dfs.hits), 1);
	unregister_kprobe(&kp[1]);
	kpx_df_expect(test, IS_ENABLED(CONFIG_OPTPROBES) ? "optimized" : "int3");
}

/*
 * A fault_handler that handles a page fault (returns 1, as documented,
 * having moved regs->ip past the load): do_kern_addr_fault() must not
 * warn about a fault kprobes took (WARN_ON_ONCE(kprobe_page_fault())
 * would): no TAINT_WARN after the hit.
 */
static struct {
	unsigned long *bad;
	unsigned long insn, resume;
	long val;
	int faults, trapnr;
} kpx_fh;

static int kpx_fh_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpx_fh.val = kpx_rawload(kpx_fh.bad);
	return 0;
}

static int kpx_fh_fault(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	if (regs->ip != kpx_fh.insn)
		return 0;
	kpx_fh.faults++;
	kpx_fh.trapnr = trapnr;
	regs->ip = kpx_fh.resume;
	return 1;
}

static void kpx_fault_handled(struct kunit *test)
{
	struct kprobe *kp = kunit_kzalloc(test, sizeof(*kp), GFP_KERNEL);
	bool warned = test_taint(TAINT_WARN);
	void *area;

	KUNIT_ASSERT_NOT_NULL(test, kp);
	memset(&kpx_fh, 0, sizeof(kpx_fh));
	kpx_fh.bad = kpx_bad_kernel_ptr(test, &area);
	kpx_fh.insn = kpx_sym("kpx_rawload_insn");
	kpx_fh.resume = kpx_sym("kpx_rawload_end");
	kp->symbol_name = "kpx_leaf";
	kp->pre_handler = kpx_fh_pre;
	kp->fault_handler = kpx_fh_fault;
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_EXPECT_EQ(test, kpx_leaf(), 41L);
	unregister_kprobe(kp);
	vfree(area);
	KUNIT_EXPECT_EQ(test, kpx_fh.faults, 1);
	KUNIT_EXPECT_EQ(test, kpx_fh.trapnr, X86_TRAP_PF);
	KUNIT_EXPECT_EQ(test, kpx_fh.val, -1L);
	KUNIT_EXPECT_TRUE(test, kpx_no_probe_running());
	/* a WARN taints once per boot: only a clean kernel can tell */
	if (!warned)
		KUNIT_EXPECT_FALSE_MSG(test, test_taint(TAINT_WARN),
				       "a handled fault warned");
}

/*
 * kcb->reading is the trap's own, while it reads an emulated
 * branch's memory operand (indirect_target()).  A probe hit in that
 * window (an NMI's) whose stepped copy faults must still be rewound to
 * its original address, where the exception table entry is.  The outer
 * pre_handler here opens the window itself and calls into a reentered
 * probe on a load with an exception table entry, given a bad pointer.
 * Before reenter() saved and cleared kcb->reading the fault in the slot
 * was taken for the reader's, not rewound, and oopsed there (no fixup
 * in a slot): the kernel died in the test.
 */
static struct {
	unsigned long *bad;
	long ret;
	bool reading_after;
	int outer;
} kpx_rd;

static int kpx_rd_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	unsigned long out = 0;

	kpx_rd.outer++;
	kcb->reading = true;		/* as indirect_target() reads */
	kpx_rd.ret = kpx_exload(kpx_rd.bad, &out);
	kpx_rd.reading_after = kcb->reading;
	kcb->reading = false;
	return 0;
}

static void kpx_reading_reentry(struct kunit *test)
{
	struct kprobe *kp = kunit_kcalloc(test, 2, sizeof(*kp), GFP_KERNEL);
	void *area;

	KUNIT_ASSERT_NOT_NULL(test, kp);
	memset(&kpx_rd, 0, sizeof(kpx_rd));
	kpx_rd.bad = kpx_bad_kernel_ptr(test, &area);
	kp[0].symbol_name = "kpx_exload_insn";
	kp[0].pre_handler = kpx_pre_nop;
	kp[1].symbol_name = "kpx_leaf";
	kp[1].pre_handler = kpx_rd_pre;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp[0]), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp[1]), 0);
	KUNIT_EXPECT_EQ(test, kpx_leaf(), 41L);
	unregister_kprobe(&kp[1]);
	unregister_kprobe(&kp[0]);
	vfree(area);
	KUNIT_EXPECT_EQ(test, kpx_rd.outer, 1);
	KUNIT_EXPECT_EQ(test, kpx_rd.ret, (long)-EFAULT);
	/* the outer hit's window is its own again */
	KUNIT_EXPECT_TRUE(test, kpx_rd.reading_after);
	KUNIT_EXPECT_EQ(test, kp[0].nmissed, 1UL);
	KUNIT_EXPECT_TRUE(test, kpx_no_probe_running());
}

/*
 * Handlers where RCU does not watch.  An optimized probe hit
 * between ct_idle_enter() and ct_idle_exit(), and a kretprobed function
 * that returns there (it calls ct_idle_enter() itself: its entry hit is
 * an ordinary one).  Their handlers find RCU watching (the callbacks
 * make it, with ct_nmi_enter()).  It catches code where rcu_is_watching()
 * false in both handlers, where an unregistration's synchronize_rcu()
 * would not have waited for them.  The post copy's callback has done
 * it since it came (kpx_post_copy tests it).  Without OPTPROBES the
 * probe is a breakpoint, whose entry makes RCU watch.
 */
#ifdef CONFIG_CONTEXT_TRACKING_IDLE
static struct {
	atomic_t hits;
	bool rcu_off;
} kpx_idle;

static void kpx_idle_seen(void)
{
	atomic_inc(&kpx_idle.hits);
	if (!rcu_is_watching())
		WRITE_ONCE(kpx_idle.rcu_off, true);
}

static int kpx_idle_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpx_idle_seen();
	return 0;
}

static noinline __used __noipa void kpx_idle_enter(void)
{
	ct_idle_enter();
}

#ifdef CONFIG_KRETPROBES
static int kpx_idle_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	kpx_idle_seen();
	return 0;
}
#endif
#endif

static void kpx_rcu_idle(struct kunit *test)
{
#ifdef CONFIG_CONTEXT_TRACKING_IDLE
	struct kprobe *kp;
	struct kretprobe *rp __maybe_unused;
	int v;

	memset(&kpx_idle, 0, sizeof(kpx_idle));
	/* optimized; without OPTPROBES, the breakpoint's pre_handler */
	kp = kunit_kzalloc(test, sizeof(*kp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, kp);
	kp->symbol_name = "kpx_opt";
	kp->pre_handler = kpx_idle_pre;
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_EQ(test, kpx_optimized(kp), IS_ENABLED(CONFIG_OPTPROBES));
	local_irq_disable();
	ct_idle_enter();
	v = kpx_opt(2);
	ct_idle_exit();
	local_irq_enable();
	unregister_kprobe(kp);
	KUNIT_EXPECT_EQ(test, v, 9);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpx_idle.hits), 1);
	KUNIT_EXPECT_FALSE_MSG(test, READ_ONCE(kpx_idle.rcu_off),
			       "pre_handler: RCU not watching");
#ifdef CONFIG_KRETPROBES
	rp = kunit_kzalloc(test, sizeof(*rp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rp);
	memset(&kpx_idle, 0, sizeof(kpx_idle));
	rp->kp.symbol_name = "kpx_idle_enter";
	rp->handler = kpx_idle_ret;
	KUNIT_ASSERT_EQ(test, register_kretprobe(rp), 0);
	local_irq_disable();
	kpx_idle_enter();
	ct_idle_exit();
	local_irq_enable();
	unregister_kretprobe(rp);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpx_idle.hits), 1);
	KUNIT_EXPECT_FALSE_MSG(test, READ_ONCE(kpx_idle.rcu_off),
			       "kretprobe return: RCU not watching");
#endif
#else
	kunit_skip(test, "no CONFIG_CONTEXT_TRACKING_IDLE (TINY_RCU): RCU always watches");
#endif
}

/*
 * Another debugger's breakpoint (kgdb's, here an int3 the
 * test writes itself over the first byte of kpx_foreign's 5-byte movl).
 * Decoded from the function's start, it makes +3 an instruction
 * boundary and hides a je into the tail of the region at +9.  A probe
 * at +3 is refused (-EBUSY) and the probe at +9, registered before the
 * int3 came and enabled while it is there, is not optimized.  Failed
 * before: the probe at +3 registered (its int3 inside the movl's
 * immediate), the one at +9 optimized.  kpx_foreign never runs.
 */
static void kpx_foreign_poke(u8 byte)
{
	mutex_lock(&text_mutex);
	text_poke((void *)kpx_body(kpx_foreign), &byte, 1);
	text_poke_sync();
	mutex_unlock(&text_mutex);
}

static void kpx_foreign_int3(struct kunit *test)
{
	struct kprobe *kp = kunit_kcalloc(test, 2, sizeof(*kp), GFP_KERNEL);
	unsigned long x = kpx_body(kpx_foreign);
	u8 orig = *(u8 *)x;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, kp);
	KUNIT_ASSERT_EQ(test, orig, 0xb8);
	kp[1].addr = (kprobe_opcode_t *)(x + 9);
	kp[1].pre_handler = kpx_pre_nop;
	kp[1].flags = KPROBE_FLAG_DISABLED;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp[1]), 0);

	kpx_foreign_poke(INT3_INSN_OPCODE);
	kp[0].addr = (kprobe_opcode_t *)(x + 3);
	kp[0].pre_handler = kpx_pre_nop;
	ret = register_kprobe(&kp[0]);
	if (!ret)
		unregister_kprobe(&kp[0]);
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp[1]), 0);
#ifdef CONFIG_OPTPROBES
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_FALSE(test, kpx_optimized(&kp[1]));
#endif
	unregister_kprobe(&kp[1]);
	kpx_foreign_poke(orig);
}

/*
 * A fault of an NMI that came while a handler ran is not the probe's:
 * the handlers (a pre_handler from the int3 trap, a post_handler from the
 * post copy, a pre_handler from the optimized detour) each send an NMI to
 * their own CPU and wait for it; its handler reads a bad kernel address
 * with copy_from_kernel_nofault(), whose exception table entry makes it
 * fail with -EFAULT.  The probe's fault_handler, which would take it,
 * must not be called.  It catches code where it was called for each of them,
 * with the NMI's pt_regs.
 */
static struct {
	unsigned long *bad;
	atomic_t pending, nmis, efault, fh_calls;
} kpx_nf;

static int kpx_nf_nmi(unsigned int type, struct pt_regs *regs)
{
	unsigned long v;

	if (!atomic_read(&kpx_nf.pending))
		return NMI_DONE;
	if (copy_from_kernel_nofault(&v, kpx_nf.bad, sizeof(v)) == -EFAULT)
		atomic_inc(&kpx_nf.efault);
	atomic_inc(&kpx_nf.nmis);
	atomic_set(&kpx_nf.pending, 0);
	return NMI_HANDLED;
}

static void kpx_nf_send(void)
{
	unsigned long spins;

	atomic_set(&kpx_nf.pending, 1);
	__apic_send_IPI_mask(cpumask_of(smp_processor_id()), NMI_VECTOR);
	for (spins = 0; atomic_read(&kpx_nf.pending) && spins < 100000000UL;
	     spins++)
		cpu_relax();
}

static int kpx_nf_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpx_nf_send();
	return 0;
}

static void kpx_nf_post(struct kprobe *p, struct pt_regs *regs,
			unsigned long flags)
{
	kpx_nf_send();
}

static int kpx_nf_fh(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	atomic_inc(&kpx_nf.fh_calls);
	return 0;
}

static void kpx_nmi_fault(struct kunit *test)
{
	struct kprobe *kp = kunit_kcalloc(test, 3, sizeof(*kp), GFP_KERNEL);
	int i, n = IS_ENABLED(CONFIG_OPTPROBES) ? 3 : 2;
	void *area;

	KUNIT_ASSERT_NOT_NULL(test, kp);
	memset(&kpx_nf, 0, sizeof(kpx_nf));
	kpx_nf.bad = kpx_bad_kernel_ptr(test, &area);
	kp[0].symbol_name = "kpx_boost";
	kp[0].pre_handler = kpx_nf_pre;
	kp[1].symbol_name = "kpx_postcopy_insn";
	kp[1].pre_handler = kpx_pre_nop;
	kp[1].post_handler = kpx_nf_post;
	kp[2].symbol_name = "kpx_opt";
	kp[2].pre_handler = kpx_nf_pre;
	for (i = 0; i < n; i++) {
		kp[i].fault_handler = kpx_nf_fh;
		KUNIT_ASSERT_EQ(test, register_kprobe(&kp[i]), 0);
	}
	KUNIT_ASSERT_EQ(test, register_nmi_handler(NMI_LOCAL, kpx_nf_nmi, 0,
						   "kpx_nmi_fault"), 0);
	KUNIT_EXPECT_EQ(test, kpx_boost(4), 5);
	KUNIT_EXPECT_EQ(test, kpx_postcopy(1), 101UL);
	if (n == 3) {
		wait_for_kprobe_optimizer();
		KUNIT_EXPECT_TRUE(test, kpx_optimized(&kp[2]));
		KUNIT_EXPECT_EQ(test, kpx_opt(1), 8);
	}
	unregister_nmi_handler(NMI_LOCAL, "kpx_nmi_fault");
	for (i = 0; i < n; i++)
		unregister_kprobe(&kp[i]);
	vfree(area);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpx_nf.nmis), n);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpx_nf.efault), n);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpx_nf.fh_calls), 0);
	KUNIT_EXPECT_TRUE(test, kpx_no_probe_running());
}

/*
 * Where RCU does not watch, an optimized probe whose pre_handler moves
 * the ip: where it resumes (kprobe_opt_x86_resume_ip(), which reads the
 * site) is worked out while RCU still watches, for an unregistration's
 * grace period waits for nothing else.  A stand-in for it notes whether
 * RCU watched.  It catches code where the trampoline's redirect call worked it
 * out after ct_nmi_exit(), with RCU not watching, from a site that could
 * have been freed meanwhile.
 */
#if defined(CONFIG_CONTEXT_TRACKING_IDLE) && defined(CONFIG_OPTPROBES)
static struct {
	atomic_t calls;
	bool rcu_off;
	unsigned long to;
} kpx_rr;

static int kpx_rr_pre(struct kprobe *p, struct pt_regs *regs)
{
	regs->ax = 42;
	regs->ip = kpx_rr.to;
	return 1;
}

/* kpx_rr.to is past the optimized region: the ip stays as it is */
static unsigned long kpx_rr_resume_ip(struct optimized_kprobe *op,
				      unsigned long ip)
{
	atomic_inc(&kpx_rr.calls);
	if (!rcu_is_watching())
		WRITE_ONCE(kpx_rr.rcu_off, true);
	return ip;
}
#endif

static void kpx_rcu_idle_redirect(struct kunit *test)
{
#if defined(CONFIG_CONTEXT_TRACKING_IDLE) && defined(CONFIG_OPTPROBES)
	struct kprobe *kp = kunit_kzalloc(test, sizeof(*kp), GFP_KERNEL);
	int v1, v2;

	KUNIT_ASSERT_NOT_NULL(test, kp);
	memset(&kpx_rr, 0, sizeof(kpx_rr));
	/* kpx_opt's ret, after the 5-byte movl and the 2-byte addl */
	kpx_rr.to = kpx_body(kpx_opt) + 7;
	kp->symbol_name = "kpx_opt";
	kp->pre_handler = kpx_rr_pre;
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpx_optimized(kp));
	kunit_activate_static_stub(test, kprobe_opt_x86_resume_ip,
				   kpx_rr_resume_ip);
	v1 = kpx_opt(1);
	local_irq_disable();
	ct_idle_enter();
	v2 = kpx_opt(2);
	ct_idle_exit();
	local_irq_enable();
	kunit_deactivate_static_stub(test, kprobe_opt_x86_resume_ip);
	unregister_kprobe(kp);
	KUNIT_EXPECT_EQ(test, v1, 42);
	KUNIT_EXPECT_EQ(test, v2, 42);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpx_rr.calls), 2);
	KUNIT_EXPECT_FALSE_MSG(test, READ_ONCE(kpx_rr.rcu_off),
			       "the redirect read the site with RCU not watching");
	KUNIT_EXPECT_TRUE(test, kpx_no_probe_running());
#else
	kunit_skip(test, "needs CONFIG_CONTEXT_TRACKING_IDLE and CONFIG_OPTPROBES");
#endif
}

/*
 * Where RCU does not watch, a probe with a post_handler whose site is
 * unregistered while its post copy runs (RCU did not watch since the
 * int3's exit, so the grace period need not wait for the hit): the
 * callback looks the site up again once RCU watches, and finding it gone
 * ends the hit at the next instruction, with the probed code's IF back,
 * reading nothing of the site.  The lookup's stand-in says "gone" (an
 * unregistration unhashes the site first); with RCU watching it is not
 * asked.  It catches code where the post_handler ran from the freed site.
 */
#ifdef CONFIG_CONTEXT_TRACKING_IDLE
static struct {
	atomic_t post, lookups;
} kpx_pg;

static void kpx_pg_post(struct kprobe *p, struct pt_regs *regs,
			unsigned long flags)
{
	atomic_inc(&kpx_pg.post);
}

static bool kpx_pg_site_left(struct kprobe *p, unsigned long addr)
{
	atomic_inc(&kpx_pg.lookups);
	return false;
}
#endif

static void kpx_rcu_idle_post_gone(struct kunit *test)
{
#ifdef CONFIG_CONTEXT_TRACKING_IDLE
	struct kprobe *kp = kunit_kzalloc(test, sizeof(*kp), GFP_KERNEL);
	unsigned long v, traps;
	bool irqs_off;

	KUNIT_ASSERT_NOT_NULL(test, kp);
	memset(&kpx_pg, 0, sizeof(kpx_pg));
	kp->symbol_name = "kpx_postcopy_insn";
	kp->pre_handler = kpx_pre_nop;
	kp->post_handler = kpx_pg_post;
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_EXPECT_TRUE(test, kpx_ai(kp)->boostable);
	kunit_activate_static_stub(test, kprobe_x86_site_left,
				   kpx_pg_site_left);
	traps = kpx_step_traps();
	local_irq_disable();
	ct_idle_enter();
	v = kpx_postcopy(10);
	ct_idle_exit();
	irqs_off = irqs_disabled();
	local_irq_enable();
	KUNIT_EXPECT_EQ(test, v, 110UL);
	KUNIT_EXPECT_TRUE(test, irqs_off);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpx_pg.post), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpx_pg.lookups), 1);
	KUNIT_EXPECT_TRUE(test, kpx_no_probe_running());
	/* RCU watching: no lookup, the post_handler runs */
	KUNIT_EXPECT_EQ(test, kpx_postcopy(1), 101UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpx_pg.post), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpx_pg.lookups), 1);
	KUNIT_EXPECT_EQ(test, kpx_step_traps() - traps, 0UL);
	kunit_deactivate_static_stub(test, kprobe_x86_site_left);
	unregister_kprobe(kp);
	KUNIT_EXPECT_TRUE(test, kpx_no_probe_running());
#else
	kunit_skip(test, "no CONFIG_CONTEXT_TRACKING_IDLE (TINY_RCU): RCU always watches");
#endif
}

/*
 * kgdb's own breakpoint, which kprobe_x86_foreign_int3() asks kgdb about:
 * an int3 after a jmp (where padding may be, so not foreign by itself)
 * followed by code, and a probe after it.  Without a kgdb breakpoint
 * there the probe registers; with one (kgdb's table stood in for) it is
 * refused with -EBUSY, as the int3 hides the first byte of an unknown
 * instruction.  Without the kgdb branch it registers both times.
 */
asm("	.pushsection .text, \"ax\"\n"
/* int kpx_kgdb(void): 3; an int3 that never runs after its jmp */
KPX_FUNC(kpx_kgdb)
"	jmp 1f\n"
"	int3\n"
"1:	movl $3, %eax\n"
	ASM_RET
KPX_END(kpx_kgdb)
"	.popsection\n"
);

asmlinkage int kpx_kgdb(void);

static unsigned long kpx_kgdb_at;

static bool kpx_kgdb_break_at(unsigned long ip)
{
	return ip == kpx_kgdb_at;
}

static void kpx_kgdb_break(struct kunit *test)
{
	struct kprobe *kp = kunit_kcalloc(test, 2, sizeof(*kp), GFP_KERNEL);
	unsigned long x = kpx_body(kpx_kgdb);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, kp);
	/* jmp rel8, then the int3 */
	KUNIT_ASSERT_EQ(test, *(u8 *)x, 0xeb);
	KUNIT_ASSERT_EQ(test, *(u8 *)(x + 2), INT3_INSN_OPCODE);
	kp[0].addr = (kprobe_opcode_t *)(x + 3);
	kp[0].pre_handler = kpx_pre_nop;
	ret = register_kprobe(&kp[0]);
	if (!ret)
		unregister_kprobe(&kp[0]);
	KUNIT_EXPECT_EQ(test, ret, 0);

	kpx_kgdb_at = x + 2;
	kunit_activate_static_stub(test, kprobe_x86_kgdb_break,
				   kpx_kgdb_break_at);
	kp[1].addr = (kprobe_opcode_t *)(x + 3);
	kp[1].pre_handler = kpx_pre_nop;
	ret = register_kprobe(&kp[1]);
	if (!ret)
		unregister_kprobe(&kp[1]);
	kunit_deactivate_static_stub(test, kprobe_x86_kgdb_break);
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
	KUNIT_EXPECT_EQ(test, kpx_kgdb(), 3);
}

/*
 * The order on a general protection fault in a handler, as documented:
 * the exception tables first (the kernel's #GP handler tries them before
 * kprobes), so a load with a fixup entry is fixed without the
 * fault_handler; one without goes to the fault_handler, with X86_TRAP_GP.
 * A page fault (the other cases of this suite) goes to the fault_handler
 * first.
 */
static struct {
	atomic_t fh;
	int trapnr;
	long exload, rawload;
} kpx_gp;

static int kpx_gp_pre(struct kprobe *p, struct pt_regs *regs)
{
	unsigned long out = 0;

	kpx_gp.exload = kpx_exload(KPX_NONCANONICAL, &out);
	kpx_gp.rawload = kpx_rawload(KPX_NONCANONICAL);
	return 0;
}

static int kpx_gp_fh(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	atomic_inc(&kpx_gp.fh);
	kpx_gp.trapnr = trapnr;
	if (regs->ip != kpx_sym("kpx_rawload_insn"))
		return 0;
	regs->ip = kpx_sym("kpx_rawload_end");
	return 1;
}

static void kpx_gp_order(struct kunit *test)
{
	struct kprobe *kp = kunit_kzalloc(test, sizeof(*kp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, kp);
	memset(&kpx_gp, 0, sizeof(kpx_gp));
	kp->symbol_name = "kpx_boost";
	kp->pre_handler = kpx_gp_pre;
	kp->fault_handler = kpx_gp_fh;
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	KUNIT_EXPECT_EQ(test, kpx_boost(1), 2);
	unregister_kprobe(kp);
	KUNIT_EXPECT_EQ(test, kpx_gp.exload, (long)-EFAULT);
	KUNIT_EXPECT_EQ(test, kpx_gp.rawload, -1L);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpx_gp.fh), 1);
	KUNIT_EXPECT_EQ(test, kpx_gp.trapnr, X86_TRAP_GP);
	KUNIT_EXPECT_TRUE(test, kpx_no_probe_running());
}

/*
 * A jprobe on a function called where RCU does not watch (no ftrace site:
 * the breakpoint's path; the ftrace path skips such hits): its handler
 * finds RCU watching, and RCU stops watching again once the function
 * returned.  It catches code where the handler ran with RCU not watching, where
 * the grace period of an unregistration would not have waited for it.
 */
#if defined(CONFIG_JPROBES) && defined(CONFIG_CONTEXT_TRACKING_IDLE)
static struct {
	atomic_t calls;
	bool rcu_off;
} kpx_jr;

static noinline notrace __used __noipa long kpx_jr_target(long x)
{
	return x + 3;
}

static long kpx_jr_handler(long x)
{
	atomic_inc(&kpx_jr.calls);
	if (!rcu_is_watching())
		WRITE_ONCE(kpx_jr.rcu_off, true);
	jprobe_return();
	return 0;
}
#endif

static void kpx_jprobe_rcu_idle(struct kunit *test)
{
#if defined(CONFIG_JPROBES) && defined(CONFIG_CONTEXT_TRACKING_IDLE)
	struct jprobe *jp = kunit_kzalloc(test, sizeof(*jp), GFP_KERNEL);
	bool watching_after;
	long v;

	KUNIT_ASSERT_NOT_NULL(test, jp);
	memset(&kpx_jr, 0, sizeof(kpx_jr));
	jp->kp.symbol_name = "kpx_jr_target";
	jp->entry = kpx_jr_handler;
	KUNIT_ASSERT_EQ(test, register_jprobe(jp), 0);
	KUNIT_EXPECT_FALSE(test, kprobe_ftrace(&jp->kp));
	local_irq_disable();
	ct_idle_enter();
	v = kpx_jr_target(1);
	watching_after = rcu_is_watching();
	ct_idle_exit();
	local_irq_enable();
	KUNIT_EXPECT_EQ(test, kpx_jr_target(2), 5L);
	unregister_jprobe(jp);
	KUNIT_EXPECT_EQ(test, v, 4L);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpx_jr.calls), 2);
	KUNIT_EXPECT_FALSE_MSG(test, READ_ONCE(kpx_jr.rcu_off),
			       "jprobe handler: RCU not watching");
	KUNIT_EXPECT_FALSE(test, watching_after);
	KUNIT_EXPECT_TRUE(test, kpx_no_probe_running());
#else
	kunit_skip(test, "needs CONFIG_JPROBES and CONFIG_CONTEXT_TRACKING_IDLE");
#endif
}

static struct kunit_case kprobes_x86_unusual_cases[] = {
	KUNIT_CASE(kpx_extable_kernel),
	KUNIT_CASE(kpx_extable_user),
	KUNIT_CASE(kpx_extable_nofault),
	KUNIT_CASE(kpx_indirect_mem),
	KUNIT_CASE(kpx_flags_emulated),
	KUNIT_CASE(kpx_ip_after_int3),
	KUNIT_CASE(kpx_post_copy),
#ifdef CONFIG_KRETPROBES
	KUNIT_CASE(kpx_kretprobe_trace),
#endif
	KUNIT_CASE_SLOW(kpx_contexts),
	KUNIT_CASE(kpx_nmi),
#if defined(CONFIG_FPROBE) && defined(CONFIG_KRETPROBES)
	KUNIT_CASE(kpx_rethook_and_kretprobe),
#endif
	KUNIT_CASE_SLOW(kpx_decode_vs_jump_label),
	KUNIT_CASE(kpx_cfi_check),
	KUNIT_CASE(kpx_df_clear),
	KUNIT_CASE(kpx_fault_handled),
	KUNIT_CASE(kpx_reading_reentry),
	KUNIT_CASE(kpx_rcu_idle),
	KUNIT_CASE(kpx_foreign_int3),
	KUNIT_CASE(kpx_nmi_fault),
	KUNIT_CASE(kpx_rcu_idle_redirect),
	KUNIT_CASE(kpx_rcu_idle_post_gone),
	KUNIT_CASE(kpx_kgdb_break),
	KUNIT_CASE(kpx_gp_order),
	KUNIT_CASE(kpx_jprobe_rcu_idle),
	{}
};

static struct kunit_suite kprobes_x86_unusual_suite = {
	.name = "kprobes_x86_unusual",
	.suite_init = kpx_watch_steps,
	.suite_exit = kpx_unwatch_steps,
	.test_cases = kprobes_x86_unusual_cases,
};

kunit_test_suite(kprobes_x86_unusual_suite);

MODULE_DESCRIPTION("KUnit tests of the x86 kprobes port");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
