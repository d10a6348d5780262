/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For arch/x86/kernel/rethook.c (rethook, which fprobe and BPF
 * kprobe_multi return probes use), the one file outside this directory
 * that includes it: the register save and restore of its trampoline, as
 * strings for its top-level asm.  Our own trampolines use
 * trampoline_regs.S.  Also kprobe_rcu_watching(), for core.c and
 * ftrace.c, and the Xen PV interrupt masking of our trampolines.
 *
 * The contract, from rethook.c's trampoline: SAVE_REGS_STRING is entered
 * with the stack pointer at the flags word of a struct pt_regs being
 * built (ss, sp and flags are pushed already) and leaves it at the start
 * of that pt_regs, with the general registers stored in it and the frame
 * pointer encoding it for the frame pointer unwinder;
 * RESTORE_REGS_STRING loads the general registers from it (a handler may
 * have changed them) and leaves the stack pointer at the flags word
 * again.  The fields in between (orig_ax, ip, cs and, on i386, the
 * segment registers) are the trampoline's callback's to fill.
 */
#ifndef _X86_KERNEL_KPROBES_COMMON_H
#define _X86_KERNEL_KPROBES_COMMON_H

#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/stringify.h>
#include <asm/frame.h>
#include <asm/ibt.h>
#include <asm/ptrace.h>

/*
 * The word of each pt_regs field (asm/ptrace-abi.h has them for C only
 * with __FRAME_OFFSETS, which must come before its first inclusion),
 * checked against the struct.
 */
#define KPX_W(field)	KPX_W_##field
#define KPX_CHECK(field, word)					\
	static_assert(offsetof(struct pt_regs, field) == (word) * sizeof(long))

#ifdef CONFIG_X86_64

#define KPX_W_r15	0
#define KPX_W_r14	1
#define KPX_W_r13	2
#define KPX_W_r12	3
#define KPX_W_bp	4
#define KPX_W_bx	5
#define KPX_W_r11	6
#define KPX_W_r10	7
#define KPX_W_r9	8
#define KPX_W_r8	9
#define KPX_W_ax	10
#define KPX_W_cx	11
#define KPX_W_dx	12
#define KPX_W_si	13
#define KPX_W_di	14
#define KPX_W_flags	18
KPX_CHECK(r15, KPX_W_r15); KPX_CHECK(r14, KPX_W_r14);
KPX_CHECK(r13, KPX_W_r13); KPX_CHECK(r12, KPX_W_r12);
KPX_CHECK(bp, KPX_W_bp); KPX_CHECK(bx, KPX_W_bx); KPX_CHECK(r11, KPX_W_r11);
KPX_CHECK(r10, KPX_W_r10); KPX_CHECK(r9, KPX_W_r9); KPX_CHECK(r8, KPX_W_r8);
KPX_CHECK(ax, KPX_W_ax); KPX_CHECK(cx, KPX_W_cx); KPX_CHECK(dx, KPX_W_dx);
KPX_CHECK(si, KPX_W_si); KPX_CHECK(di, KPX_W_di);
KPX_CHECK(flags, KPX_W_flags);
#define KPX_STR_REG(reg, f) \
	"	movq %" #reg ", 8*" __stringify(KPX_W(f)) "(%rsp)\n"
#define KPX_LDR_REG(reg, f) \
	"	movq 8*" __stringify(KPX_W(f)) "(%rsp), %" #reg "\n"

#define SAVE_REGS_STRING					\
	"	subq $8*" __stringify(KPX_W(flags)) ", %rsp\n"	\
	KPX_STR_REG(rax, ax) KPX_STR_REG(rcx, cx)		\
	KPX_STR_REG(rdx, dx) KPX_STR_REG(rsi, si)		\
	KPX_STR_REG(rdi, di) KPX_STR_REG(r8, r8)		\
	KPX_STR_REG(r9, r9) KPX_STR_REG(r10, r10)		\
	KPX_STR_REG(r11, r11) KPX_STR_REG(rbx, bx)		\
	KPX_STR_REG(rbp, bp) KPX_STR_REG(r12, r12)		\
	KPX_STR_REG(r13, r13) KPX_STR_REG(r14, r14)		\
	KPX_STR_REG(r15, r15)					\
	ENCODE_FRAME_POINTER

#define RESTORE_REGS_STRING					\
	KPX_LDR_REG(r15, r15) KPX_LDR_REG(r14, r14)		\
	KPX_LDR_REG(r13, r13) KPX_LDR_REG(r12, r12)		\
	KPX_LDR_REG(rbp, bp) KPX_LDR_REG(rbx, bx)		\
	KPX_LDR_REG(r11, r11) KPX_LDR_REG(r10, r10)		\
	KPX_LDR_REG(r9, r9) KPX_LDR_REG(r8, r8)			\
	KPX_LDR_REG(rdi, di) KPX_LDR_REG(rsi, si)		\
	KPX_LDR_REG(rdx, dx) KPX_LDR_REG(rcx, cx)		\
	KPX_LDR_REG(rax, ax)					\
	"	addq $8*" __stringify(KPX_W(flags)) ", %rsp\n"

#else /* i386 */

#define KPX_W_bx	0
#define KPX_W_cx	1
#define KPX_W_dx	2
#define KPX_W_si	3
#define KPX_W_di	4
#define KPX_W_bp	5
#define KPX_W_ax	6
#define KPX_W_ds	7
#define KPX_W_es	8
#define KPX_W_fs	9
#define KPX_W_flags	14
KPX_CHECK(bx, KPX_W_bx); KPX_CHECK(cx, KPX_W_cx); KPX_CHECK(dx, KPX_W_dx);
KPX_CHECK(si, KPX_W_si); KPX_CHECK(di, KPX_W_di); KPX_CHECK(bp, KPX_W_bp);
KPX_CHECK(ax, KPX_W_ax); KPX_CHECK(ds, KPX_W_ds); KPX_CHECK(es, KPX_W_es);
KPX_CHECK(fs, KPX_W_fs); KPX_CHECK(flags, KPX_W_flags);
#define KPX_STR_REG(reg, f) \
	"	movl %" #reg ", 4*" __stringify(KPX_W(f)) "(%esp)\n"
#define KPX_LDR_REG(reg, f) \
	"	movl 4*" __stringify(KPX_W(f)) "(%esp), %" #reg "\n"

/* %gs is unused by i386 kernels: the callback clears its field */
#define SAVE_REGS_STRING					\
	"	subl $4*" __stringify(KPX_W(flags)) ", %esp\n"	\
	KPX_STR_REG(eax, ax) KPX_STR_REG(ecx, cx)		\
	KPX_STR_REG(edx, dx) KPX_STR_REG(ebx, bx)		\
	KPX_STR_REG(esi, si) KPX_STR_REG(edi, di)		\
	KPX_STR_REG(ebp, bp)					\
	"	movl %ds, %eax\n" KPX_STR_REG(eax, ds)		\
	"	movl %es, %eax\n" KPX_STR_REG(eax, es)		\
	"	movl %fs, %eax\n" KPX_STR_REG(eax, fs)		\
	ENCODE_FRAME_POINTER

#define RESTORE_REGS_STRING					\
	KPX_LDR_REG(ebp, bp) KPX_LDR_REG(edi, di)		\
	KPX_LDR_REG(esi, si) KPX_LDR_REG(ebx, bx)		\
	KPX_LDR_REG(edx, dx) KPX_LDR_REG(ecx, cx)		\
	KPX_LDR_REG(eax, ax)					\
	"	addl $4*" __stringify(KPX_W(flags)) ", %esp\n"

#endif /* CONFIG_X86_64 */

/*
 * For our own hit paths that no exception entry made RCU watch (the
 * ftrace callback, the post copy's callback): is RCU watching this CPU?
 * Asked on every hit: inline when it can be, and exact with preemption
 * or interrupts off, as those paths run.
 */
#include <linux/context_tracking.h>
#include <linux/rcupdate.h>

static __always_inline bool kprobe_rcu_watching(void)
{
#ifdef CONFIG_CONTEXT_TRACKING_IDLE
	/*
	 * rcu_is_watching_curr_cpu(), read %gs-relative: one instruction
	 * instead of three (this CPU's offset, the load, the test).
	 */
	return raw_cpu_read(context_tracking.state.counter) & CT_RCU_WATCHING;
#else
	return rcu_is_watching();
#endif
}

#ifdef CONFIG_X86_64
/*
 * What the trampolines of a Xen PV kernel call in place of cli and before
 * their popf (KPROBE_IRQS_OFF, KPROBE_IRQS_RESTORE in trampoline_regs.S).
 */
__visible __noendbr void kprobe_xenpv_irqs_off(struct pt_regs *regs);
__visible __noendbr void kprobe_xenpv_irqs_restore(struct pt_regs *regs);
#endif

#endif /* _X86_KERNEL_KPROBES_COMMON_H */
