// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit tests for jump optimization and kprobes on ftrace.
 *
 * kprobes_opt: a probe on a known instruction sequence becomes a jump
 * (KPROBE_FLAG_OPTIMIZED, hits take no breakpoint), each reason not to
 * optimize keeps or brings back the breakpoint, the sysctl unoptimizes
 * and optimizes again, hits from every CPU while probes change state,
 * a pre_handler that moves the ip on an optimized probe, and probes on
 * ftrace sites (KPROBE_FLAG_FTRACE) with pre/post handlers, ip changes
 * and kretprobes.
 *
 * The optimization targets are written in assembly (no fentry call, a
 * known layout); this file keeps its fentry calls for the ftrace targets.
 */
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/error-injection.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <kunit/test.h>

/* x86 handlers see the ip past the int3 on every path, the trap's view */
#ifdef CONFIG_X86
#define KPO_IP_BIAS	1UL
#else
#define KPO_IP_BIAS	0UL
#endif

#ifdef CONFIG_X86
#include <linux/linkage.h>
#include <asm/ibt.h>
#include <asm/nospec-branch.h>
#include <asm/text-patching.h>

/*
 * The argument: in %edi on x86_64, on the stack on i386 (asmlinkage),
 * where the targets' first instruction is then 4 bytes long instead of 2.
 */
#ifdef CONFIG_X86_64
#define KPO_ARG		"%edi"
#define KPO_ARG_LEN	2
#else
#define KPO_ARG		"4(%esp)"
#define KPO_ARG_LEN	4
#endif

asmlinkage int kpo_opt(int x);
asmlinkage int kpo_opt2(int x);
asmlinkage int kpo_jump_in(int x);
asmlinkage int kpo_call(int x);
asmlinkage int kpo_leaf(int x);

/* padded as SYM_FUNC_START pads (kCFI poisons a preamble there) */
#define KPO_FUNC(name)						\
	ASM_FUNC_ALIGN "\n"					\
	"	.globl " #name "\n"					\
	"	.type " #name ", @function\n"				\
	#name ":\n"						\
	ASM_ENDBR
#define KPO_END(name)	"	.size " #name ", . - " #name "\n"

asm("	.pushsection .text, \"ax\"\n"
/* (x + 3) * 5: the probe's region is the mov and the add */
KPO_FUNC(kpo_opt)
"	movl " KPO_ARG ", %eax\n"
"	addl $3, %eax\n"
"	imull $5, %eax, %eax\n"
"	addl $0, %eax\n"
	ASM_RET
KPO_END(kpo_opt)

/* (x + 5) * 7: kpo_opt's layout, a second site for the batch cases */
KPO_FUNC(kpo_opt2)
"	movl " KPO_ARG ", %eax\n"
"	addl $5, %eax\n"
"	imull $7, %eax, %eax\n"
"	addl $0, %eax\n"
	ASM_RET
KPO_END(kpo_opt2)

/* max(x + 1, 10): the loop jumps back into the probe's region */
KPO_FUNC(kpo_jump_in)
"	movl " KPO_ARG ", %eax\n"
"1:	addl $1, %eax\n"
"	cmpl $10, %eax\n"
"	jl 1b\n"
	ASM_RET
KPO_END(kpo_jump_in)

KPO_FUNC(kpo_leaf)
"	addl $1, %eax\n"
	ASM_RET
KPO_END(kpo_leaf)

/* x + 1, through a call inside the probe's region */
KPO_FUNC(kpo_call)
"	movl " KPO_ARG ", %eax\n"
"	call kpo_leaf\n"
	ASM_RET
KPO_END(kpo_call)
"	.popsection\n"
);

/*
 * Addresses inside the targets are looked up, not taken: objtool wants
 * every address taken in C to be an ENDBR.
 */
static unsigned long kpo_sym(const char *name)
{
	return kallsyms_lookup_name(name);
}

/* The first instruction after a live ENDBR. */
static unsigned long kpo_entry(const char *name)
{
	unsigned long a = kpo_sym(name);

	return a && is_endbr(*(u32 *)a) ? a + ENDBR_INSN_SIZE : a;
}

/* Offset in kpo_opt of its second instruction (no symbol of its own) */
static unsigned int __maybe_unused kpo_second_offset(void)
{
	return kpo_entry("kpo_opt") - kpo_sym("kpo_opt") + KPO_ARG_LEN;
}
#endif /* CONFIG_X86 */

/*
 * arm and powerpc (KPROBES_COMPAT): their own optprobes code on our
 * optimizer.  The target adds 1 and then 2 to its argument; the probe
 * goes on the first add, which both arches can run in the detour.
 */
#if defined(CONFIG_OPTPROBES) && \
	(defined(CONFIG_ARM) || defined(CONFIG_PPC64_ELF_ABI_V2))
#define KPO_COMPAT_OPT 1

asmlinkage int kpo_c_opt(int x);

#ifdef CONFIG_ARM
asm("	.pushsection .text, \"ax\"\n"
	"	.arm\n"
	"	.align	2\n"
	"	.globl	kpo_c_opt\n"
	"	.type	kpo_c_opt, %function\n"
	"kpo_c_opt:\n"
	"	add	r0, r0, #1\n"
	"	add	r0, r0, #2\n"
	"	bx	lr\n"
	"	.size	kpo_c_opt, . - kpo_c_opt\n"
	"	.popsection\n");

/* B<cond>: a 24-bit word offset from the branch's address + 8 */
static unsigned long kpo_c_branch_target(unsigned long addr, u32 insn)
{
	if ((insn & 0x0f000000) != 0x0a000000)
		return 0;
	return addr + 8 + ((long)(s32)(insn << 8) >> 6);
}
#else
asm("	.pushsection .text, \"ax\"\n"
	"	.align	2\n"
	"	.globl	kpo_c_opt\n"
	"	.type	kpo_c_opt, @function\n"
	"kpo_c_opt:\n"
	"	addi	3, 3, 1\n"
	"	addi	3, 3, 2\n"
	"	blr\n"
	"	.size	kpo_c_opt, . - kpo_c_opt\n"
	"	.popsection\n");

/* b (AA = LK = 0): a 26-bit byte offset from the branch's address */
static unsigned long kpo_c_branch_target(unsigned long addr, u32 insn)
{
	if ((insn & 0xfc000003) != 0x48000000)
		return 0;
	return addr + ((long)(s32)(insn << 6) >> 6);
}
#endif

/* The word at @addr, as the CPU decodes it (arm: BE8 text is swapped). */
static u32 kpo_c_text(void *addr)
{
	u32 w = READ_ONCE(*(u32 *)addr);

#ifdef CONFIG_ARM
	w = __mem_to_opcode_arm(w);
#endif
	return w;
}

/* Does @addr hold a branch into a detour buffer? */
static bool kpo_c_branches_to_detour(void *addr)
{
	unsigned long to = kpo_c_branch_target((unsigned long)addr,
					       kpo_c_text(addr));

	return to && is_kprobe_optinsn_slot(to);
}
#else
#define KPO_COMPAT_OPT 0
#endif

/* ftrace targets: C functions with their fentry call */
static int kpo_calls;

static noinline __used __noipa int kpo_ftraced(int x)
{
	WRITE_ONCE(kpo_calls, kpo_calls + 1);
	return x * 2 + 1;
}

static noinline __used __noipa int kpo_ftraced2(int x)
{
	WRITE_ONCE(kpo_calls, kpo_calls + 1);
	return x + 11;
}

#if (defined(CONFIG_X86) && defined(CONFIG_OPTPROBES)) || \
	defined(CONFIG_KPROBES_ON_FTRACE) || KPO_COMPAT_OPT
/* ---------------------------------------------------------------------
 * Handlers
 */

struct kpo_state {
	atomic_t pre, post;
	unsigned long ip_pre, ip_post;
	/* the registers the last pre_handler saw besides the ip */
	unsigned long sp_pre, flags_pre, cs_pre, ss_pre;
	/*
	 * Hits whose handler ran with interrupts off behind lockdep's back:
	 * counted only with CONFIG_TRACE_IRQFLAGS (the lockdep kernel of make
	 * stress DEBUG=1), where lockdep_hardirqs_enabled() is not a
	 * constant 0; in other configs it stays 0 and checks nothing.
	 */
	atomic_t unannotated;
	/* hits whose handler ran with interrupts on (every config) */
	atomic_t irqs_on;
	/* pre_handler calls in a breakpoint trap (kpo_in_trap()) */
	atomic_t trapped;
};

static struct kpo_state kps;

static void kpo_reset(void)
{
	atomic_set(&kps.pre, 0);
	atomic_set(&kps.post, 0);
	kps.ip_pre = 0;
	kps.ip_post = 0;
	atomic_set(&kps.unannotated, 0);
	atomic_set(&kps.irqs_on, 0);
	atomic_set(&kps.trapped, 0);
}

/*
 * Whether a handler runs in the breakpoint trap.  Only x86 tells it so
 * cheaply: it enters the int3 trap from kernel mode as an NMI
 * (exc_int3()), while the jump optimizer's detour and kprobes on ftrace
 * call the handlers in the probed code's context, never an NMI here.  A
 * hit that steps its instruction out of line traps first, so a hit that
 * took no breakpoint took no step trap either.
 */
static bool kpo_in_trap(void)
{
	return IS_ENABLED(CONFIG_X86) && in_nmi();
}

static int kpo_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kps.pre);
	if (kpo_in_trap())
		atomic_inc(&kps.trapped);
	if (!irqs_disabled())
		atomic_inc(&kps.irqs_on);
	/* lockdep must know what the CPU knows (see kps.unannotated) */
	if (IS_ENABLED(CONFIG_TRACE_IRQFLAGS) && irqs_disabled() &&
	    lockdep_hardirqs_enabled())
		atomic_inc(&kps.unannotated);
	kps.ip_pre = instruction_pointer(regs);
	kps.sp_pre = kernel_stack_pointer(regs);
#ifdef CONFIG_X86
	kps.flags_pre = regs->flags;
	kps.cs_pre = regs->cs;
	kps.ss_pre = regs->ss;
#endif
	return 0;
}

static void kpo_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	atomic_inc(&kps.post);
	kps.ip_post = instruction_pointer(regs);
}

/* The site probe at an address (nothing unregisters it meanwhile). */
static struct kprobe *kpo_site(void *addr)
{
	struct kprobe *p;

	rcu_read_lock();
	p = get_kprobe(addr);
	rcu_read_unlock();
	return p;
}

static bool __maybe_unused kpo_optimized(struct kprobe *kp)
{
	struct kprobe *site = kpo_site(kp->addr);

	return site && kprobe_optimized(site);
}
#endif /* the cases below */

/* ---------------------------------------------------------------------
 * Jump optimization (x86)
 */
#if defined(CONFIG_X86) && defined(CONFIG_OPTPROBES)

static bool kpo_has_optinsn_page(void)
{
	char name[KSYM_NAME_LEN];
	unsigned long value;
	unsigned int i;
	char type;

	for (i = 0; !kprobe_get_kallsym(i, &value, &type, name); i++)
		if (!strcmp(name, "kprobe_optinsn_page") &&
		    is_kprobe_optinsn_slot(value))
			return true;
	return false;
}

static void kpo_becomes_optimized(struct kunit *test)
{
	static struct kprobe kp = {
		.symbol_name = "kpo_opt",
		.pre_handler = kpo_pre,
	};
	int i;

	kpo_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)kp.addr, kpo_entry("kpo_opt"));
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&kp));
	KUNIT_EXPECT_FALSE(test, kprobe_ftrace(kpo_site(kp.addr)));
	KUNIT_EXPECT_TRUE(test, kpo_has_optinsn_page());

	/* the jump takes no trap at all */
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ(test, kpo_opt(i), (i + 3) * 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 10);
	/* interrupts off in the detour, lockdep told so (lockdep kernels) */
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.irqs_on), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.unannotated), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.trapped), 0);
	/* the handler sees the probed address (x86: + 1, as after an int3) */
	KUNIT_EXPECT_EQ(test, kps.ip_pre, (unsigned long)kp.addr + KPO_IP_BIAS);
	KUNIT_EXPECT_EQ(test, kp.nmissed, 0UL);

	unregister_kprobe(&kp);
	KUNIT_EXPECT_NULL(test, kpo_site(kp.addr));
	KUNIT_EXPECT_EQ(test, kpo_opt(1), 20);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 10);
}

/*
 * unregister_kprobes() of optimized probes takes their jumps back in one
 * text update (unoptimize_leaving()) before it disarms them: afterwards
 * each site holds its original bytes again and nothing hits.
 */
static void kpo_batch_unregister_optimized(struct kunit *test)
{
	static struct kprobe a = {
		.symbol_name = "kpo_opt",
		.pre_handler = kpo_pre,
	};
	static struct kprobe b = {
		.symbol_name = "kpo_opt2",
		.pre_handler = kpo_pre,
	};
	struct kprobe *probes[] = { &a, &b };
	u8 text_a[JMP32_INSN_SIZE], text_b[JMP32_INSN_SIZE];

	kpo_reset();
	memcpy(text_a, (void *)kpo_entry("kpo_opt"), JMP32_INSN_SIZE);
	memcpy(text_b, (void *)kpo_entry("kpo_opt2"), JMP32_INSN_SIZE);
	KUNIT_ASSERT_EQ(test, register_kprobes(probes, ARRAY_SIZE(probes)), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&a));
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&b));
	KUNIT_EXPECT_EQ(test, *(u8 *)a.addr, (u8)JMP32_INSN_OPCODE);
	KUNIT_EXPECT_EQ(test, *(u8 *)b.addr, (u8)JMP32_INSN_OPCODE);
	KUNIT_EXPECT_EQ(test, kpo_opt(1), 20);
	KUNIT_EXPECT_EQ(test, kpo_opt2(1), 42);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 2);

	unregister_kprobes(probes, ARRAY_SIZE(probes));
	KUNIT_EXPECT_NULL(test, kpo_site(a.addr));
	KUNIT_EXPECT_NULL(test, kpo_site(b.addr));
	KUNIT_EXPECT_EQ(test, memcmp(a.addr, text_a, JMP32_INSN_SIZE), 0);
	KUNIT_EXPECT_EQ(test, memcmp(b.addr, text_b, JMP32_INSN_SIZE), 0);
	KUNIT_EXPECT_EQ(test, kpo_opt(2), 25);
	KUNIT_EXPECT_EQ(test, kpo_opt2(2), 49);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.trapped), 0);
}

static unsigned long kpo_second;

static int kpo_redirect_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kps.pre);
	if (kpo_in_trap())
		atomic_inc(&kps.trapped);
	/* skip the mov: eax keeps what the caller left there */
	regs->ax = 100;
	instruction_pointer_set(regs, kpo_second);
	return 1;
}

static void kpo_optimized_ip_change(struct kunit *test)
{
	static struct kprobe kp = {
		.symbol_name = "kpo_opt",
		.pre_handler = kpo_redirect_pre,
	};

	kpo_second = kpo_sym("kpo_opt") + kpo_second_offset();
	KUNIT_ASSERT_NE(test, kpo_second, 0UL);
	kpo_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&kp));
	/* the detour returns where the handler said, with its registers */
	KUNIT_EXPECT_EQ(test, kpo_opt(1), (100 + 3) * 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.trapped), 0);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpo_opt(1), 20);
}

static void kpo_refused_post_handler(struct kunit *test)
{
	static struct kprobe kp = {
		.symbol_name = "kpo_opt",
		.pre_handler = kpo_pre,
		.post_handler = kpo_post,
	};
	static struct kprobe fast = {
		.symbol_name = "kpo_opt",
		.pre_handler = kpo_pre,
	};

	kpo_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_FALSE(test, kpo_optimized(&kp));
	KUNIT_EXPECT_EQ(test, kpo_opt(2), 25);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.post), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.trapped), 1);
	unregister_kprobe(&kp);

	/* an optimized probe gains a post_handler: back to a breakpoint */
	KUNIT_ASSERT_EQ(test, register_kprobe(&fast), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&fast));
	kp.addr = NULL;		/* by symbol again */
	if (register_kprobe(&kp)) {
		unregister_kprobe(&fast);
		KUNIT_FAIL(test, "cannot register a second probe");
		return;
	}
	KUNIT_EXPECT_FALSE(test, kpo_optimized(&fast));
	kpo_reset();
	KUNIT_EXPECT_EQ(test, kpo_opt(2), 25);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.post), 1);
	unregister_kprobe(&kp);
	/* and without it, optimized again */
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&fast));
	KUNIT_EXPECT_EQ(test, kpo_opt(2), 25);
	unregister_kprobe(&fast);
}

static void kpo_refused_region(struct kunit *test)
{
	static struct kprobe jt = {
		.symbol_name = "kpo_jump_in",
		.pre_handler = kpo_pre,
	};
	static struct kprobe call = {
		.symbol_name = "kpo_call",
		.pre_handler = kpo_pre,
	};

	kpo_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&jt), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&call), 0);
	wait_for_kprobe_optimizer();
	/* a jump into the region's tail */
	KUNIT_EXPECT_FALSE(test, kpo_optimized(&jt));
	/* a call inside the region */
	KUNIT_EXPECT_FALSE(test, kpo_optimized(&call));
	/* still working breakpoints */
	KUNIT_EXPECT_EQ(test, kpo_jump_in(3), 10);
	KUNIT_EXPECT_EQ(test, kpo_jump_in(20), 21);
	KUNIT_EXPECT_EQ(test, kpo_call(4), 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 3);
	unregister_kprobe(&jt);
	unregister_kprobe(&call);
}

static void kpo_refused_neighbour(struct kunit *test)
{
	static struct kprobe first = {
		.symbol_name = "kpo_opt",
		.pre_handler = kpo_pre,
	};
	static struct kprobe second = {
		.symbol_name = "kpo_opt",
		.pre_handler = kpo_pre,
	};

	second.offset = kpo_second_offset();
	kpo_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&first), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&first));
	/* a probe inside the region: the jump goes at once */
	KUNIT_ASSERT_EQ(test, register_kprobe(&second), 0);
	KUNIT_EXPECT_FALSE(test, kpo_optimized(&first));
	KUNIT_EXPECT_EQ(test, kpo_opt(1), 20);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 2);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_FALSE(test, kpo_optimized(&first));
	/* the second one has a region of its own */
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&second));
	KUNIT_EXPECT_EQ(test, kpo_opt(2), 25);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 4);
	/* the neighbour gone, the first one is optimized again */
	unregister_kprobe(&second);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&first));
	KUNIT_EXPECT_EQ(test, kpo_opt(3), 30);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 5);
	unregister_kprobe(&first);
}

static void kpo_refused_disabled(struct kunit *test)
{
	static struct kprobe kp = {
		.symbol_name = "kpo_opt",
		.pre_handler = kpo_pre,
		.flags = KPROBE_FLAG_DISABLED,
	};

	kpo_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_FALSE(test, kpo_optimized(&kp));
	KUNIT_EXPECT_EQ(test, kpo_opt(1), 20);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&kp));
	KUNIT_EXPECT_EQ(test, kpo_opt(1), 20);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 1);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&kp), 0);
	KUNIT_EXPECT_FALSE(test, kpo_optimized(&kp));
	KUNIT_EXPECT_EQ(test, kpo_opt(1), 20);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 1);
	unregister_kprobe(&kp);
}

/*
 * Write the sysctl through procfs, as an administrator would; at boot
 * /proc is not mounted yet: use a private mount of it.
 */
static int kpo_sysctl(const char *val)
{
	struct file_system_type *fs;
	struct vfsmount *mnt = NULL;
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	f = filp_open("/proc/sys/debug/kprobes-optimization", O_WRONLY, 0);
	if (IS_ERR(f)) {
		fs = get_fs_type("proc");
		if (!fs)
			return -ENOENT;
		mnt = vfs_kern_mount(fs, 0, "proc", NULL);
		put_filesystem(fs);
		if (IS_ERR(mnt))
			return PTR_ERR(mnt);
		f = file_open_root_mnt(mnt, "sys/debug/kprobes-optimization",
				       O_WRONLY, 0);
	}
	if (IS_ERR(f)) {
		n = PTR_ERR(f);
	} else {
		n = kernel_write(f, val, strlen(val), &pos);
		filp_close(f, NULL);
	}
	if (mnt)
		mntput(mnt);
	return n < 0 ? n : 0;
}

static void kpo_sysctl_round_trip(struct kunit *test)
{
	static struct kprobe kp = {
		.symbol_name = "kpo_opt",
		.pre_handler = kpo_pre,
	};
	unsigned long sp, flags;
	int ret;

	kpo_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&kp));
	ret = kpo_sysctl("0\n");
	if (ret) {
		unregister_kprobe(&kp);
		kunit_skip(test, "no /proc/sys here (%d)", ret);
	}
	KUNIT_EXPECT_FALSE(test, kpo_optimized(&kp));
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_FALSE(test, kpo_optimized(&kp));
	KUNIT_EXPECT_EQ(test, kpo_opt(1), 20);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 1);
	sp = kps.sp_pre;
	flags = kps.flags_pre;
	KUNIT_EXPECT_EQ(test, kpo_sysctl("1\n"), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&kp));
	KUNIT_EXPECT_EQ(test, kpo_opt(1), 20);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 2);
	/*
	 * The detour's trampoline lays pt_regs as the int3 entry does: the
	 * same stack pointer (the same caller, the same depth), interrupts
	 * as they were, kernel segments.
	 */
	KUNIT_EXPECT_EQ(test, kps.sp_pre, sp);
	KUNIT_EXPECT_EQ(test, kps.flags_pre & X86_EFLAGS_IF, flags & X86_EFLAGS_IF);
	KUNIT_EXPECT_EQ(test, kps.flags_pre & X86_EFLAGS_IF, (unsigned long)X86_EFLAGS_IF);
	KUNIT_EXPECT_EQ(test, kps.cs_pre, (unsigned long)__KERNEL_CS);
	KUNIT_EXPECT_EQ(test, kps.ss_pre, (unsigned long)__KERNEL_DS);
	unregister_kprobe(&kp);
}

/* Every CPU calls the target while the main thread changes its probes. */
struct kpo_hammer {
	struct task_struct *task;
	unsigned long calls;
	unsigned long wrong;
};

static bool kpo_stop;

static int kpo_hammer_fn(void *data)
{
	struct kpo_hammer *h = data;
	int i;

	while (!READ_ONCE(kpo_stop)) {
		for (i = 0; i < 100; i++) {
			if (kpo_opt(i) != (i + 3) * 5)
				h->wrong++;
			h->calls++;
		}
		/*
		 * Sleep now and then: only a voluntary switch ends an RCU-tasks
		 * grace period, which the optimizer waits for.
		 */
		usleep_range(100, 200);
	}
	while (!kthread_should_stop())
		usleep_range(1000, 2000);
	return 0;
}

static void kpo_all_cpus(struct kunit *test)
{
	static struct kprobe kp = {
		.symbol_name = "kpo_opt",
		.pre_handler = kpo_pre,
	};
	static struct kprobe post = {
		.symbol_name = "kpo_opt",
		.pre_handler = kpo_pre,
		.post_handler = kpo_post,
	};
	static struct kprobe inner = {
		.symbol_name = "kpo_opt",
		.pre_handler = kpo_pre,
	};
	struct kpo_hammer *h;
	unsigned long calls = 0, wrong = 0;
	int cpu, round, n = 0;

	inner.offset = kpo_second_offset();
	h = kunit_kcalloc(test, nr_cpu_ids, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	kpo_reset();
	WRITE_ONCE(kpo_stop, false);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	for_each_online_cpu(cpu) {
		h[cpu].task = kthread_create_on_cpu(kpo_hammer_fn, &h[cpu], cpu,
						    "kpo_hammer/%u");
		if (!IS_ERR(h[cpu].task)) {
			wake_up_process(h[cpu].task);
			n++;
		} else {
			h[cpu].task = NULL;
		}
	}
	KUNIT_EXPECT_GT(test, n, 0);
	for (round = 0; round < 4; round++) {
		wait_for_kprobe_optimizer();
		KUNIT_EXPECT_TRUE(test, kpo_optimized(&kp));
		msleep(20);
		/* unoptimize by a post_handler, then by a neighbour */
		post.addr = NULL;
		KUNIT_EXPECT_EQ(test, register_kprobe(&post), 0);
		msleep(20);
		unregister_kprobe(&post);
		inner.addr = NULL;
		KUNIT_EXPECT_EQ(test, register_kprobe(&inner), 0);
		msleep(20);
		unregister_kprobe(&inner);
		/* disable while queued or optimized */
		if (round & 1) {
			wait_for_kprobe_optimizer();
			msleep(20);
		}
		KUNIT_EXPECT_EQ(test, disable_kprobe(&kp), 0);
		msleep(20);
		KUNIT_EXPECT_EQ(test, enable_kprobe(&kp), 0);
	}
	wait_for_kprobe_optimizer();
	WRITE_ONCE(kpo_stop, true);
	for_each_online_cpu(cpu) {
		if (!h[cpu].task)
			continue;
		kthread_stop(h[cpu].task);
		calls += h[cpu].calls;
		wrong += h[cpu].wrong;
	}
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, wrong, 0UL);
	KUNIT_EXPECT_GT(test, calls, 0UL);
	KUNIT_EXPECT_GT(test, atomic_read(&kps.pre), 0);
	kunit_info(test, "%lu calls on %d CPUs, %d handler runs\n", calls, n,
		   atomic_read(&kps.pre));
}

#endif /* CONFIG_X86 && CONFIG_OPTPROBES */

/* ---------------------------------------------------------------------
 * Jump optimization of arm and powerpc (KPROBES_COMPAT)
 */
#if KPO_COMPAT_OPT

/*
 * A second probe whose pre_handler calls the optimized target: that hit
 * comes while a probe runs, and is missed.  arm's and powerpc's detour
 * callbacks count it on their own copy of the site's kprobe; it must
 * reach the user's probe (kprobes_inc_nmissed_count()).
 */
static int kpo_c_nested_ret;

static noinline __used __noipa int kpo_c_caller(int x)
{
	return READ_ONCE(x) + 1;
}

static int kpo_c_outer_pre(struct kprobe *p, struct pt_regs *regs)
{
	WRITE_ONCE(kpo_c_nested_ret, kpo_c_opt(4));
	return 0;
}

/*
 * The probe becomes a branch to a detour buffer; hits run the handler
 * with the probed address and the instruction's effect; a hit from
 * inside another probe's handler is missed and counted on the probe;
 * disabling puts the original instruction back, enabling optimizes
 * again, and unregistering leaves the original text.
 */
static void kpo_compat_optimized(struct kunit *test)
{
	static struct kprobe kp = {
		.symbol_name = "kpo_c_opt",
		.pre_handler = kpo_pre,
	};
	static struct kprobe outer = {
		.symbol_name = "kpo_c_caller",
		.pre_handler = kpo_c_outer_pre,
	};
	void *addr = kpo_c_opt;
	u32 orig = kpo_c_text(addr);
	int i;

	kpo_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_PTR_EQ(test, (void *)kp.addr, addr);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&kp));
	KUNIT_EXPECT_TRUE(test, kpo_c_branches_to_detour(addr));
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ(test, kpo_c_opt(i), i + 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 10);
	KUNIT_EXPECT_EQ(test, kps.ip_pre, (unsigned long)addr);
	KUNIT_EXPECT_EQ(test, kp.nmissed, 0UL);

	outer.addr = NULL;
	outer.flags = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(&outer), 0);
	WRITE_ONCE(kpo_c_nested_ret, 0);
	KUNIT_EXPECT_EQ(test, kpo_c_caller(1), 2);
	unregister_kprobe(&outer);
	KUNIT_EXPECT_EQ(test, READ_ONCE(kpo_c_nested_ret), 7);
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&kp));
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 10);
	KUNIT_EXPECT_EQ(test, kp.nmissed, 1UL);

	KUNIT_EXPECT_EQ(test, disable_kprobe(&kp), 0);
	KUNIT_EXPECT_FALSE(test, kpo_optimized(&kp));
	KUNIT_EXPECT_EQ(test, kpo_c_text(addr), orig);
	KUNIT_EXPECT_EQ(test, kpo_c_opt(1), 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 10);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&kp));
	KUNIT_EXPECT_TRUE(test, kpo_c_branches_to_detour(addr));
	KUNIT_EXPECT_EQ(test, kpo_c_opt(5), 8);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 11);

	unregister_kprobe(&kp);
	KUNIT_EXPECT_NULL(test, kpo_site(addr));
	KUNIT_EXPECT_EQ(test, kpo_c_text(addr), orig);
	KUNIT_EXPECT_EQ(test, kpo_c_opt(1), 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 11);
}

/*
 * A post_handler keeps the breakpoint (it needs the step); an optimized
 * site gaining one goes back to the breakpoint, and is optimized again
 * once it is gone.  Two probes on an optimized site both run.
 */
static void kpo_compat_post_and_aggregate(struct kunit *test)
{
	static struct kprobe post = {
		.symbol_name = "kpo_c_opt",
		.pre_handler = kpo_pre,
		.post_handler = kpo_post,
	};
	static struct kprobe a = {
		.symbol_name = "kpo_c_opt",
		.pre_handler = kpo_pre,
	};
	static struct kprobe b = {
		.symbol_name = "kpo_c_opt",
		.pre_handler = kpo_pre,
	};
	void *addr = kpo_c_opt;
	u32 orig = kpo_c_text(addr);

	kpo_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&post), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_FALSE(test, kpo_optimized(&post));
	KUNIT_EXPECT_FALSE(test, kpo_c_branches_to_detour(addr));
	KUNIT_EXPECT_EQ(test, kpo_c_opt(2), 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.post), 1);
	/* the post_handler runs after the probed instruction only */
	KUNIT_EXPECT_EQ(test, kps.ip_post, (unsigned long)addr + 4);

	KUNIT_ASSERT_EQ(test, register_kprobe(&a), 0);
	KUNIT_EXPECT_FALSE(test, kpo_optimized(&a));
	unregister_kprobe(&post);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&a));
	KUNIT_EXPECT_TRUE(test, kpo_c_branches_to_detour(addr));

	KUNIT_ASSERT_EQ(test, register_kprobe(&b), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&b));
	kpo_reset();
	KUNIT_EXPECT_EQ(test, kpo_c_opt(3), 6);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 2);
	unregister_kprobe(&a);
	KUNIT_EXPECT_EQ(test, kpo_c_opt(3), 6);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 3);
	unregister_kprobe(&b);
	KUNIT_EXPECT_EQ(test, kpo_c_text(addr), orig);
	KUNIT_EXPECT_EQ(test, kpo_c_opt(3), 6);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.post), 0);
}

#ifdef CONFIG_KRETPROBES
static int kpo_c_ret_value;
static atomic_t kpo_c_rets;

static int kpo_c_ret_handler(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	kpo_c_ret_value = regs_return_value(regs);
	atomic_inc(&kpo_c_rets);
	return 0;
}

/* A kretprobe's entry through the detour hijacks the return as well. */
static void kpo_compat_kretprobe(struct kunit *test)
{
	static struct kretprobe rp = {
		.kp.symbol_name = "kpo_c_opt",
		.handler = kpo_c_ret_handler,
		.maxactive = 4,
	};

	atomic_set(&kpo_c_rets, 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_TRUE(test, kpo_optimized(&rp.kp));
	KUNIT_EXPECT_TRUE(test, kpo_c_branches_to_detour(kpo_c_opt));
	KUNIT_EXPECT_EQ(test, kpo_c_opt(7), 10);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_c_rets), 1);
	KUNIT_EXPECT_EQ(test, kpo_c_ret_value, 10);
	KUNIT_EXPECT_EQ(test, kpo_c_opt(8), 11);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_c_rets), 2);
	KUNIT_EXPECT_EQ(test, kpo_c_ret_value, 11);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
}
#endif
#endif /* KPO_COMPAT_OPT */

/* ---------------------------------------------------------------------
 * Kprobes on ftrace
 */
#ifdef CONFIG_KPROBES_ON_FTRACE

/* Return 4242 to the caller, as fail_function and BPF overrides do. */
static int kpo_override_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kps.pre);
#ifdef CONFIG_FUNCTION_ERROR_INJECTION
	regs_set_return_value(regs, 4242);
	override_function_with_return(regs);
#endif
	return 1;
}

static void kpo_ftrace_pre_post(struct kunit *test)
{
	static struct kprobe kp = {
		.symbol_name = "kpo_ftraced",
		.pre_handler = kpo_pre,
		.post_handler = kpo_post,
	};
	unsigned long site;
	struct kprobe *sp;
	int i;

	site = ftrace_location((unsigned long)kpo_ftraced);
	if (!site)
		kunit_skip(test, "kpo_ftraced has no ftrace site");
	kpo_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	/* the entry probe sits on the ftrace site, and goes through ftrace */
	KUNIT_EXPECT_EQ(test, (unsigned long)kp.addr, site);
	KUNIT_EXPECT_TRUE(test, kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
	sp = kpo_site(kp.addr);
	KUNIT_ASSERT_NOT_NULL(test, sp);
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(sp));
	/* the probe itself says so too, for kprobe_ftrace() callers */
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(&kp));
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(sp));

	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, kpo_ftraced(i), i * 2 + 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.post), 5);
	/* no trap (only x86 tells) */
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.trapped), 0);
	/* as from a breakpoint on the call: past its int3, then after it */
	KUNIT_EXPECT_EQ(test, kps.ip_pre, site + KPO_IP_BIAS);
	KUNIT_EXPECT_EQ(test, kps.ip_post, site + MCOUNT_INSN_SIZE);

	/* disabled: silent; enabled again: back */
	KUNIT_EXPECT_EQ(test, disable_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpo_ftraced(1), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 5);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpo_ftraced(1), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 6);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpo_ftraced(1), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 6);
}

static void kpo_ftrace_ip_change(struct kunit *test)
{
	static struct kprobe kp = {
		.symbol_name = "kpo_ftraced2",
		.pre_handler = kpo_override_pre,
		.post_handler = kpo_post,
	};
	int calls;

	if (!IS_ENABLED(CONFIG_FUNCTION_ERROR_INJECTION))
		kunit_skip(test, "no CONFIG_FUNCTION_ERROR_INJECTION");
	if (!ftrace_location((unsigned long)kpo_ftraced2))
		kunit_skip(test, "kpo_ftraced2 has no ftrace site");
	kpo_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(kpo_site(kp.addr)));
	calls = kpo_calls;
	/* the body is skipped, the function returns what the handler set */
	KUNIT_EXPECT_EQ(test, kpo_ftraced2(1), 4242);
	KUNIT_EXPECT_EQ(test, kpo_calls, calls);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.post), 0);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpo_ftraced2(1), 12);
}

static int kpo_ret_value;
static int kpo_entries;

static int kpo_entry_handler(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	kpo_entries++;
	return 0;
}

static int kpo_ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	kpo_ret_value = regs_return_value(regs);
	return 0;
}

static void kpo_ftrace_kretprobe(struct kunit *test)
{
	static struct kretprobe rp = {
		.kp.symbol_name = "kpo_ftraced",
		.entry_handler = kpo_entry_handler,
		.handler = kpo_ret_handler,
		.maxactive = 4,
	};

	if (!ftrace_location((unsigned long)kpo_ftraced))
		kunit_skip(test, "kpo_ftraced has no ftrace site");
	if (!IS_ENABLED(CONFIG_KRETPROBES)) {
		/* Without kretprobes their stub refuses. */
		KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -EOPNOTSUPP);
		return;
	}
	kpo_entries = 0;
	kpo_ret_value = 0;
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(kpo_site(rp.kp.addr)));
	KUNIT_EXPECT_EQ(test, kpo_ftraced(20), 41);
	KUNIT_EXPECT_EQ(test, kpo_entries, 1);
	KUNIT_EXPECT_EQ(test, kpo_ret_value, 41);
	unregister_kretprobe(&rp);
}

/*
 * Two probes on one ftrace site, and ftrace probes next to each other.
 * (The probes of these tests are static: an assertion that fails leaves
 * them registered, which a probe on a dead stack frame must not be.)
 */
static void kpo_ftrace_aggregate(struct kunit *test)
{
	static struct kprobe a = {
		.symbol_name = "kpo_ftraced",
		.pre_handler = kpo_pre,
	};
	static struct kprobe b = {
		.symbol_name = "kpo_ftraced",
		.pre_handler = kpo_pre,
		.post_handler = kpo_post,
	};
	static struct kprobe c = {
		.symbol_name = "kpo_ftraced2",
		.pre_handler = kpo_pre,
	};

	if (!ftrace_location((unsigned long)kpo_ftraced))
		kunit_skip(test, "kpo_ftraced has no ftrace site");
	kpo_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&a), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&b), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&c), 0);
	KUNIT_EXPECT_EQ(test, kpo_ftraced(1), 3);
	KUNIT_EXPECT_EQ(test, kpo_ftraced2(1), 12);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.post), 1);
	unregister_kprobe(&a);
	KUNIT_EXPECT_EQ(test, kpo_ftraced(1), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 4);
	unregister_kprobe(&b);
	unregister_kprobe(&c);
	KUNIT_EXPECT_EQ(test, kpo_ftraced(1), 3);
	KUNIT_EXPECT_EQ(test, kpo_ftraced2(1), 12);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 4);
}

/*
 * A hit on an ftrace site from inside a handler is missed, and the nested
 * function runs to its end like any call: the missed hit must leave the
 * registers' ip alone (an ip put back on the fentry call would call into
 * ftrace again, for ever).  Found by make stress, kallsyms from a handler.
 */
static struct kprobe kpo_nested_b = {
	.symbol_name = "kpo_ftraced2",
	.pre_handler = kpo_pre,
};

static int kpo_nested_ret;

static int kpo_nesting_pre(struct kprobe *p, struct pt_regs *regs)
{
	WRITE_ONCE(kpo_nested_ret, kpo_ftraced2(1));
	return 0;
}

static void kpo_ftrace_nested_missed(struct kunit *test)
{
	static struct kprobe a = {
		.symbol_name = "kpo_ftraced",
		.pre_handler = kpo_nesting_pre,
	};

	if (!ftrace_location((unsigned long)kpo_ftraced) ||
	    !ftrace_location((unsigned long)kpo_ftraced2))
		kunit_skip(test, "no ftrace sites in the targets");
	kpo_reset();
	kpo_nested_b.addr = NULL;
	kpo_nested_b.flags = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(&a), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kpo_nested_b), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(kpo_site(kpo_nested_b.addr)));
	KUNIT_EXPECT_EQ(test, kpo_ftraced(1), 3);
	KUNIT_EXPECT_EQ(test, READ_ONCE(kpo_nested_ret), 12);
	KUNIT_EXPECT_EQ(test, kpo_nested_b.nmissed, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 0);
	/* called straight, it is hit */
	KUNIT_EXPECT_EQ(test, kpo_ftraced2(1), 12);
	KUNIT_EXPECT_EQ(test, atomic_read(&kps.pre), 1);
	unregister_kprobe(&a);
	unregister_kprobe(&kpo_nested_b);
}

#endif /* CONFIG_KPROBES_ON_FTRACE */

/*
 * The workbench builds its kernels with the options kpo_configured
 * asserts; the configuration matrix (configmatrix.sh) turns them off on
 * purpose and says so on the command line.
 */
static bool workbench = true;
module_param(workbench, bool, 0444);
MODULE_PARM_DESC(workbench,
		 "the kernel has the workbench's kprobes options (default: yes)");

/*
 * What the other cases take for granted, asserted: the architecture's
 * jump optimization is built in wherever the arch has it, and has cases
 * here or in the arch's suite (arm64); x86_64 has kprobes on ftrace; and
 * the ftrace targets really have an ftrace site, so that the kpo_ftrace_*
 * cases probe through ftrace and do not skip.
 */
static void kpo_configured(struct kunit *test)
{
	int x86 = IS_ENABLED(CONFIG_X86);
	int cases = (x86 && IS_ENABLED(CONFIG_OPTPROBES)) ||
		    IS_ENABLED(CONFIG_ARM64) || KPO_COMPAT_OPT;

	if (!workbench)
		kunit_skip(test, "not the workbench's configuration (workbench=0)");

	KUNIT_EXPECT_EQ(test, IS_ENABLED(CONFIG_OPTPROBES),
			IS_ENABLED(CONFIG_HAVE_OPTPROBES));
	KUNIT_EXPECT_EQ(test, IS_ENABLED(CONFIG_OPTPROBES), cases);
	if (x86)
		KUNIT_EXPECT_TRUE(test, IS_ENABLED(CONFIG_KPROBES_ON_FTRACE));
	else if (IS_ENABLED(CONFIG_ARM64))
		KUNIT_EXPECT_FALSE(test, IS_ENABLED(CONFIG_KPROBES_ON_FTRACE));
	if (IS_ENABLED(CONFIG_KPROBES_ON_FTRACE)) {
		unsigned long f = (unsigned long)kpo_ftraced;
		unsigned long f2 = (unsigned long)kpo_ftraced2;
		/* powerpc's is past the TOC setup and a mflr */
		unsigned long most = x86 ? 4 : 16;

		/*
		 * The site is in the function, at its entry (after ENDBR);
		 * compared as a distance, not against f + 4: clang makes that
		 * a relocation to a non-ENDBR address, which objtool flags.
		 */
		KUNIT_EXPECT_GE(test, ftrace_location(f), f);
		KUNIT_EXPECT_LE(test, ftrace_location(f) - f, most);
		KUNIT_EXPECT_GE(test, ftrace_location(f2), f2);
		KUNIT_EXPECT_LE(test, ftrace_location(f2) - f2, most);
	}
	/* the targets are real, callable functions */
	KUNIT_EXPECT_EQ(test, kpo_ftraced(0), 1);
	KUNIT_EXPECT_EQ(test, kpo_ftraced2(0), 11);
}

static struct kunit_case kprobes_opt_cases[] = {
	KUNIT_CASE(kpo_configured),
#if defined(CONFIG_X86) && defined(CONFIG_OPTPROBES)
	KUNIT_CASE(kpo_becomes_optimized),
	KUNIT_CASE(kpo_batch_unregister_optimized),
	KUNIT_CASE(kpo_optimized_ip_change),
	KUNIT_CASE(kpo_refused_post_handler),
	KUNIT_CASE(kpo_refused_region),
	KUNIT_CASE(kpo_refused_neighbour),
	KUNIT_CASE(kpo_refused_disabled),
	KUNIT_CASE(kpo_sysctl_round_trip),
	KUNIT_CASE_SLOW(kpo_all_cpus),
#endif
#if KPO_COMPAT_OPT
	KUNIT_CASE(kpo_compat_optimized),
	KUNIT_CASE(kpo_compat_post_and_aggregate),
#ifdef CONFIG_KRETPROBES
	KUNIT_CASE(kpo_compat_kretprobe),
#endif
#endif
#ifdef CONFIG_KPROBES_ON_FTRACE
	KUNIT_CASE(kpo_ftrace_pre_post),
	KUNIT_CASE(kpo_ftrace_ip_change),
	KUNIT_CASE(kpo_ftrace_kretprobe),
	KUNIT_CASE(kpo_ftrace_nested_missed),
	KUNIT_CASE(kpo_ftrace_aggregate),
#endif
	{}
};

static struct kunit_suite kprobes_opt_suite = {
	.name = "kprobes_opt",
	.test_cases = kprobes_opt_cases,
};

kunit_test_suites(&kprobes_opt_suite);

MODULE_DESCRIPTION("KUnit tests for optimized and ftrace-based kprobes");
MODULE_LICENSE("GPL");
