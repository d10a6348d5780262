// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 kprobes: breakpoint probes (x86_64 and i386).
 *
 * A probe is an int3 on the first byte of the probed instruction.  On a
 * hit, kprobe_int3_handler() runs the site's pre_handler, then executes
 * the instruction in one of three ways, chosen when the probe is prepared:
 *
 *  - emulated: relative jmp/call/jcc, loops, ret, indirect jmp/call and
 *    pushf/popf/cli/sti are carried out on the saved registers in the
 *    trap itself (the int3 entry leaves a gap below the interrupted
 *    stack for the pushes).  The flags instructions must not run out of
 *    line: a popf or sti there would let interrupts in, and with them
 *    preemption and migration, before the slot's trap ends the hit;
 *  - boosted: when no post_handler is registered and the instruction
 *    allows it, the trap returns into the slot's second copy, which jumps
 *    back to the next instruction: one trap in all.  An instruction with
 *    an exception table entry is never boosted: nothing would rewind a
 *    fault in the copy to the original address, where the fixup is;
 *  - post copy: with a post_handler, a boostable instruction runs from
 *    the slot's third copy with IF and TF cleared and the probe still
 *    running; the copy's call of kprobe_step_trampoline lays pt_regs as
 *    after the instruction and kprobe_x86_step_callback() ends the hit
 *    as a stepping trap would: one trap in all;
 *  - stepped: the trap returns into the slot's first copy with IF and TF
 *    cleared; the int3 after the copy brings us back, we move the ip to
 *    the next original instruction, restore the flags and run the
 *    post_handler.
 *
 * The probed instruction itself is never exposed: the int3 stays in place
 * until the probe is disarmed, so no CPU runs past the probe unobserved.
 *
 * As after any int3, the handlers see regs->ip == the probed address + 1
 * (INT3_INSN_SIZE); the jump-optimized and ftrace-based paths show the
 * same.  A post_handler sees the address of the next instruction.
 *
 * A fault in a stepped copy is rewound to the original instruction, with
 * the probe's state cleared, before the kernel handles it: its exception
 * table entry (if any) is found there, and an oops or a sleeping page
 * fault happens at the probed address as if no probe were there.
 *
 * Copyright (C) IBM Corporation, 2002, 2004
 *
 * 2002-Oct	Created by Vamsi Krishna S <vamsi_krishna@in.ibm.com> Kernel
 *		Probes initial implementation ( includes contributions from
 *		Rusty Russell).
 * 2004-July	Suparna Bhattacharya <suparna@in.ibm.com> added jumper probes
 *		interface to access function arguments.
 * 2004-Oct	Jim Keniston <jkenisto@us.ibm.com> and Prasanna S Panchamukhi
 *		<prasanna@in.ibm.com> adapted for x86_64 from i386.
 * 2005-Mar	Roland McGrath <roland@redhat.com>
 *		Fixed to handle %rip-relative addressing mode correctly.
 * 2005-May	Hien Nguyen <hien@us.ibm.com>, Jim Keniston
 *		<jkenisto@us.ibm.com> and Prasanna S Panchamukhi
 *		<prasanna@in.ibm.com> added function-return probes.
 * 2005-May	Rusty Lynch <rusty.lynch@intel.com>
 *		Added function return probes functionality
 * 2006-Feb	Masami Hiramatsu <hiramatu@sdl.hitachi.co.jp> added
 *		kprobe-booster and kretprobe-booster for i386.
 * 2007-Dec	Masami Hiramatsu <mhiramat@redhat.com> added kprobe-booster
 *		and kretprobe-booster for x86-64
 * 2007-Dec	Masami Hiramatsu <mhiramat@redhat.com>, Arjan van de Ven
 *		<arjan@infradead.org> and Jim Keniston <jkenisto@us.ibm.com>
 *		unified x86 kprobes code.
 * 2026-Nov	Rewritten: the x86 port of the rebuilt core (emulation,
 *		boosting, post copy, one handler context on every path).
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/context_tracking_irq.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/kallsyms.h>
#include <linux/kdebug.h>
#include <linux/ftrace.h>
#include <linux/execmem.h>
#include <linux/set_memory.h>
#include <linux/uaccess.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/memory.h>
#include <linux/extable.h>
#include <linux/cfi.h>
#include <linux/kgdb.h>
#include <kunit/static_stub.h>
#include <kunit/visibility.h>
#include <asm/text-patching.h>
#include <asm/alternative.h>
#include <asm/insn.h>
#include <asm/ibt.h>
#include <asm/traps.h>
#include <asm/extable.h>

#include "common.h"

/* step_trampoline.S: the post copy's call lands there */
asmlinkage void kprobe_step_trampoline(void);

/* The fentry call; without CONFIG_FUNCTION_TRACER there is no ftrace site. */
#ifndef MCOUNT_INSN_SIZE
#define MCOUNT_INSN_SIZE	5
#endif

/* ---------------------------------------------------------------------
 * Reading and decoding text
 */

/*
 * Copy up to @len bytes of text at @addr, as they were before any of our
 * breakpoints.  Called under kprobe_mutex.  Returns the bytes copied.
 */
static size_t read_orig_text(u8 *buf, unsigned long addr, size_t len)
{
	struct kprobe *p;
	size_t n, i;

	for (n = 0; n < len; n++)
		if (get_kernel_nofault(buf[n], (u8 *)addr + n))
			break;
	for (i = 0; i < n; i++) {
		if (buf[i] != INT3_INSN_OPCODE)
			continue;
		p = get_kprobe((void *)addr + i);
		if (p)
			buf[i] = p->opcode;
	}
#ifdef CONFIG_OPTPROBES
	kprobe_opt_fix_text(buf, addr, n);
#endif
	return n;
}

static int decode_at(struct insn *insn, u8 *buf, unsigned long addr)
{
	size_t n = read_orig_text(buf, addr, MAX_INSN_SIZE);

	if (!n || insn_decode(insn, buf, n, INSN_MODE_KERN) < 0)
		return -EILSEQ;
	return 0;
}

/**
 * kprobe_x86_falls_through() - can the next instruction be reached by
 *	running off the end of this one
 * @insn: a decoded instruction
 *
 * False for the unconditional transfers that compilers and the kernel's
 * own patching follow with int3 padding: ret, jmp, indirect jmp, int3
 * itself, ud2 and the far returns.
 *
 * Return: false when nothing runs into the next byte from @insn.
 */
bool kprobe_x86_falls_through(const struct insn *insn)
{
	u8 op = insn->opcode.bytes[0];

	if (insn->opcode.nbytes == 2 && op == 0x0f)
		return insn->opcode.bytes[1] != 0x0b;		/* ud2 */
	if (insn->opcode.nbytes != 1)
		return true;
	switch (op) {
	case 0xc2: case 0xc3:		/* ret */
	case 0xca: case 0xcb:		/* lret */
	case 0xcc:			/* int3 (padding) */
	case 0xcf:			/* iret */
	case 0xe9: case 0xeb:		/* jmp */
		return false;
	case 0xff:			/* jmp *, ljmp * */
		return X86_MODRM_REG(insn->modrm.bytes[0]) != 4 &&
		       X86_MODRM_REG(insn->modrm.bytes[0]) != 5;
	}
	return true;
}

/*
 * kprobe_x86_kgdb_break() - is there a kgdb breakpoint at @ip
 * @ip: a kernel text address
 *
 * A KUnit test stands in for it (kgdb sets none in a test).
 *
 * Return: true when kgdb has an active breakpoint at @ip.
 */
VISIBLE_IF_KUNIT bool kprobe_x86_kgdb_break(unsigned long ip)
{
	KUNIT_STATIC_STUB_REDIRECT(kprobe_x86_kgdb_break, ip);
#ifdef CONFIG_KGDB
	return kgdb_has_hit_break(ip);
#else
	return false;
#endif
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_x86_kgdb_break);

/**
 * kprobe_x86_foreign_int3() - is an int3 in the text someone's breakpoint
 * @insn: an instruction decoded from the original text (our own
 *	breakpoints and jumps undone) at @ip
 * @ip: its address
 * @reached: the instruction before it runs on into it (see
 *	kprobe_x86_falls_through()), or @ip starts a function
 *
 * A breakpoint of another debugger (kgdb) replaces the first byte of an
 * instruction by 0xcc: decoded, it is a one-byte instruction, and every
 * boundary found after it is wrong (a probe or a jump could land inside
 * the real instruction).  Its original byte is not ours to know, so the
 * text around it cannot be decoded until it goes.  kgdb's own table
 * names its active breakpoints.  Without it, an int3 that code runs into
 * is nobody's instruction in compiled kernel text (the int3s there are
 * padding after a ret or jmp, which the kernel's return thunk patching
 * also writes) and is taken for a foreign breakpoint too; text_poke_bp()'s
 * transient int3 is excluded by text_mutex, which the decoders hold.
 * Call under text_mutex.
 *
 * Return: true when @insn is an int3 that is not an instruction.
 */
bool kprobe_x86_foreign_int3(const struct insn *insn, unsigned long ip,
			     bool reached)
{
	if (insn->opcode.nbytes != 1 ||
	    insn->opcode.bytes[0] != INT3_INSN_OPCODE)
		return false;
	if (kprobe_x86_kgdb_break(ip))
		return true;
	return reached;
}

/*
 * Decode the function containing @addr from its start up to @addr.
 *
 * Live text is read: jump labels, static calls and ftrace may patch the
 * same function meanwhile, and text_poke_bp() puts an int3 over the
 * first byte of an instruction while it rewrites the rest.  Decoding that
 * int3 would take a 5-byte instruction for a 1-byte one and misplace
 * every boundary after it.  All of them patch under text_mutex, from the
 * first int3 to the final sync, so the caller holds text_mutex: the text
 * it reads is then whole instructions (our own breakpoints, also written
 * under text_mutex, are replaced by their original bytes).  Another
 * debugger's breakpoint (kprobe_x86_foreign_int3()) is refused with
 * -EBUSY: the boundaries after it cannot be known.
 */
static int check_boundary(unsigned long addr)
{
	unsigned long size, offset, ip;
	u8 buf[MAX_INSN_SIZE];
	bool reached = true;
	struct insn insn;

	if (!kallsyms_lookup_size_offset(addr, &size, &offset))
		return -EILSEQ;
	for (ip = addr - offset; ip < addr; ip += insn.length) {
		if (decode_at(&insn, buf, ip))
			return -EILSEQ;
		if (kprobe_x86_foreign_int3(&insn, ip, reached))
			return -EBUSY;
		reached = kprobe_x86_falls_through(&insn);
	}
	return ip == addr ? 0 : -EILSEQ;
}

/**
 * can_probe() - is an address the start of an instruction
 * @addr: a kernel text address
 *
 * Decodes the function containing @addr from its start.  Call under
 * kprobe_mutex; takes text_mutex (see check_boundary()).
 *
 * Return: true when @addr is an instruction boundary.
 */
bool can_probe(unsigned long addr)
{
	int ret;

	mutex_lock(&text_mutex);
	ret = check_boundary(addr);
	mutex_unlock(&text_mutex);
	return !ret;
}

/**
 * kprobe_x86_decode() - decode the original instruction at an address
 * @insn: decoded here
 * @buf: MAX_INSN_SIZE bytes: the instruction's bytes, as before any probe
 * @addr: a kernel text address
 *
 * Call under kprobe_mutex and text_mutex (see check_boundary()).
 *
 * Return: 0 or -EILSEQ.
 */
int kprobe_x86_decode(struct insn *insn, u8 *buf, unsigned long addr)
{
	return decode_at(insn, buf, addr);
}

/* ---------------------------------------------------------------------
 * Classifying the probed instruction
 */

static int classify_indirect(struct insn *insn, struct arch_specific_insn *ai)
{
	u8 modrm = insn->modrm.bytes[0];
	insn_byte_t prefix;
	int i;

	if (insn->rex_prefix.nbytes &&
	    (insn->rex_prefix.bytes[0] & 0xf0) != 0x40)
		return -EINVAL;		/* REX2: not handled */
	if (insn->addr_bytes != sizeof(long))
		return -EINVAL;		/* 32-bit (or i386's 16-bit) addressing */
	for_each_insn_prefix(insn, i, prefix)
		if (prefix == 0x64 || prefix == 0x65)
			return -EINVAL;		/* fs/gs-relative operand */
	ai->modrm = modrm;
	ai->sib = insn->sib.nbytes ? insn->sib.bytes[0] : 0;
	ai->rex = insn->rex_prefix.nbytes ? insn->rex_prefix.bytes[0] : 0;
	ai->disp = insn->displacement.nbytes ? insn->displacement.value : 0;
	ai->kind = X86_MODRM_REG(modrm) == 2 ? KPX_CALL_IND : KPX_JMP_IND;
	ai->memop = X86_MODRM_MOD(modrm) != 3;
	return 0;
}

/* Opcodes that never run out of line (first opcode byte, one-byte map). */
static bool refused_one_byte(u8 op)
{
	switch (op) {
	case 0xcc:	/* int3: someone else's breakpoint */
	case 0xcd:	/* int n */
	case 0xce:	/* into */
	case 0xcf:	/* iret */
	case 0xf1:	/* int1 */
	case 0xf4:	/* hlt */
	case 0xca:	/* lret imm16 */
	case 0xcb:	/* lret */
	case 0x8e:	/* mov to segment register (mov ss shadow) */
		return true;
	}
	return false;
}

static bool refused_two_byte(u8 op)
{
	switch (op) {
	case 0x00:	/* sldt, ltr ... */
	case 0x01:	/* lgdt, swapgs, stac, clac ... */
	case 0x05:	/* syscall */
	case 0x07:	/* sysret */
	case 0x0b:	/* ud2 */
	case 0x34:	/* sysenter */
	case 0x35:	/* sysexit */
	case 0xb9:	/* ud1 */
	case 0xff:	/* ud0 */
		return true;
	}
	return false;
}

/*
 * i386 only (invalid, or VEX, in 64-bit mode): far branches, and loads of
 * segment registers (pop %ss has the shadow of mov to %ss; the others are
 * refused with it, as 0x8e is).
 */
static bool refused_i386(struct insn *insn)
{
	u8 op = insn->opcode.bytes[0];

	if (insn->opcode.nbytes == 2 && op == 0x0f)
		switch (insn->opcode.bytes[1]) {
		case 0xa1:	/* pop %fs */
		case 0xa9:	/* pop %gs */
		case 0xb2:	/* lss */
		case 0xb4:	/* lfs */
		case 0xb5:	/* lgs */
			return true;
		}
	if (insn->opcode.nbytes != 1)
		return false;
	switch (op) {
	case 0x07:	/* pop %es */
	case 0x17:	/* pop %ss */
	case 0x1f:	/* pop %ds */
	case 0x9a:	/* lcall ptr16:32 */
	case 0xea:	/* ljmp ptr16:32 */
	case 0xc4:	/* les (VEX was handled before) */
	case 0xc5:	/* lds */
		return true;
	}
	return false;
}

static int classify(struct insn *insn, struct arch_specific_insn *ai)
{
	u8 op = insn->opcode.bytes[0];
	u8 op2 = insn->opcode.bytes[1];
	u8 reg = X86_MODRM_REG(insn->modrm.bytes[0]);

	ai->len = insn->length;
	ai->kind = KPX_STEP;
	ai->boostable = 1;
	ai->memop = 0;
	ai->disp = insn->immediate.value;

	/* VEX/EVEX/XOP opcodes are not branches: run them out of line. */
	if (insn->vex_prefix.nbytes)
		return 0;
	if (IS_ENABLED(CONFIG_X86_32) && refused_i386(insn))
		return -EINVAL;
	if (insn->opcode.nbytes == 1) {
		if (refused_one_byte(op))
			return -EINVAL;
		switch (op) {
		case 0x70 ... 0x7f:
			ai->kind = KPX_JCC;
			ai->cc = op & 0xf;
			break;
		case 0xe0 ... 0xe3:
			if (insn->addr_bytes != sizeof(long))
				return -EINVAL;
			ai->kind = KPX_LOOP;
			ai->cc = op;
			break;
		case 0xe8:
			ai->kind = KPX_CALL;
			break;
		case 0xe9:
		case 0xeb:
			ai->kind = KPX_JMP;
			break;
		case 0xc2:
			ai->kind = KPX_RET;
			ai->disp = (u16)insn->immediate.value;
			break;
		case 0xc3:
			ai->kind = KPX_RET;
			ai->disp = 0;
			break;
		case 0xff:
			if (reg == 3 || reg == 5)
				return -EINVAL;		/* far call/jmp */
			if (reg == 2 || reg == 4)
				return classify_indirect(insn, ai);
			break;
		case 0x9c:
			ai->kind = KPX_PUSHF;
			break;
		case 0x9d:
			ai->kind = KPX_POPF;
			break;
		case 0xfa:
			ai->kind = KPX_CLI;
			break;
		case 0xfb:
			ai->kind = KPX_STI;
			break;
		case 0xc7:
			if (insn->modrm.bytes[0] == 0xf8)
				return -EINVAL;		/* xbegin: relative */
			break;
		}
	} else if (op == 0x0f && insn->opcode.nbytes == 2) {
		if (refused_two_byte(op2))
			return -EINVAL;
		if (op2 >= 0x80 && op2 <= 0x8f) {
			ai->kind = KPX_JCC;
			ai->cc = op2 & 0xf;
		}
	}
	/*
	 * Near branches with a 16-bit operand would truncate the ip; a
	 * 16-bit pushf/popf moves the stack by 2.  Not emulated.
	 */
	if (ai->kind != KPX_STEP && insn->opnd_bytes == 2)
		return -EINVAL;
	return 0;
}

/**
 * kprobe_x86_classify() - how a probe would execute an instruction
 * @insn: the decoded instruction
 * @ai: filled in (no slot is taken)
 *
 * Return: 0, or -EINVAL when it cannot run out of line.
 */
int kprobe_x86_classify(struct insn *insn, struct arch_specific_insn *ai)
{
	return classify(insn, ai);
}

/* ---------------------------------------------------------------------
 * Instruction slots
 */

/**
 * alloc_insn_page() - a read-only executable page for instruction slots
 *
 * Return: the page, filled with int3, or NULL.
 */
void *alloc_insn_page(void)
{
	void *page = execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);

	if (!page)
		return NULL;
	memset(page, INT3_INSN_OPCODE, PAGE_SIZE);
	set_memory_rox((unsigned long)page, 1);
	return page;
}

/**
 * arch_write_insn_slot() - write into a read-only slot page
 * @dst: inside a slot
 * @src: the bytes
 * @len: how many
 *
 * Return: 0.
 */
int arch_write_insn_slot(void *dst, const void *src, size_t len)
{
	text_poke_copy(dst, src, len);
	/* New text for perf (PERF_RECORD_TEXT_POKE), which perf tools decode */
	perf_event_text_poke(dst, NULL, 0, src, len);
	return 0;
}

/*
 * Place a copy of the instruction @buf (decoded as @insn, originally at
 * @from) into @code, which will live at @to; fix a RIP-relative
 * displacement.
 */
static int place_copy(u8 *code, unsigned long to, unsigned long from,
		      struct insn *insn, const u8 *buf)
{
	long disp;
	int off;

	memcpy(code, buf, insn->length);
	if (!insn_rip_relative(insn))
		return 0;
	disp = (long)insn->displacement.value + (long)from - (long)to;
	if (disp != (s32)disp)
		return -ERANGE;
	off = insn_offset_displacement(insn);
	memcpy(code + off, &(s32){ disp }, sizeof(s32));
	return 0;
}

/**
 * kprobe_x86_place_copy() - copy an instruction to run at another address
 * @code: where the copy is built
 * @to: the address the copy will run at
 * @from: the address of the original
 * @insn: the decoded original
 * @buf: its bytes
 *
 * Return: 0, or -ERANGE when a RIP-relative operand is out of reach.
 */
int kprobe_x86_place_copy(u8 *code, unsigned long to, unsigned long from,
			  struct insn *insn, const u8 *buf)
{
	return place_copy(code, to, from, insn, buf);
}

static int build_slot(struct kprobe *p, struct insn *insn, const u8 *buf)
{
	struct arch_specific_insn *ai = &p->ainsn;
	unsigned long addr = (unsigned long)p->addr;
	u8 code[KPROBE_INSN_SLOT_SIZE];
	unsigned long slot, boost, post;
	long back, call;
	int ret;

	BUILD_BUG_ON(MAX_INSN_SIZE + INT3_INSN_SIZE > KPROBE_BOOST_OFFSET);
	BUILD_BUG_ON(MAX_INSN_SIZE + JMP32_INSN_SIZE >
		     KPROBE_POST_OFFSET - KPROBE_BOOST_OFFSET);
	BUILD_BUG_ON(MAX_INSN_SIZE + CALL_INSN_SIZE >
		     KPROBE_INSN_SLOT_SIZE - KPROBE_POST_OFFSET);

	ai->insn = get_insn_slot();
	if (!ai->insn)
		return -ENOMEM;
	slot = (unsigned long)ai->insn;
	boost = slot + KPROBE_BOOST_OFFSET;
	post = slot + KPROBE_POST_OFFSET;
	memset(code, INT3_INSN_OPCODE, sizeof(code));

	ret = place_copy(code, slot, addr, insn, buf);
	if (ret)
		goto fail;
	if (ai->memop) {
		/*
		 * "push r/m64" (FF /6) reads the operand the branch (FF /2,
		 * FF /4) would, with the same addressing (an rsp base is
		 * taken before the push): it faults as the branch would.
		 */
		code[insn_offset_modrm(insn)] = (insn->modrm.bytes[0] & ~0x38) |
						(6 << 3);
	}
	back = (long)(addr + ai->len) - (long)(boost + ai->len + JMP32_INSN_SIZE);
	call = (long)kprobe_step_trampoline -
	       (long)(post + ai->len + CALL_INSN_SIZE);
	if (ai->boostable && back == (s32)back && call == (s32)call &&
	    !place_copy(code + KPROBE_BOOST_OFFSET, boost, addr, insn, buf) &&
	    !place_copy(code + KPROBE_POST_OFFSET, post, addr, insn, buf)) {
		__text_gen_insn(code + KPROBE_BOOST_OFFSET + ai->len,
				JMP32_INSN_OPCODE,
				(void *)(boost + ai->len),
				(void *)(addr + ai->len), JMP32_INSN_SIZE);
		__text_gen_insn(code + KPROBE_POST_OFFSET + ai->len,
				CALL_INSN_OPCODE,
				(void *)(post + ai->len),
				kprobe_step_trampoline, CALL_INSN_SIZE);
	} else {
		ai->boostable = 0;
	}

	ret = arch_write_insn_slot(ai->insn, code, sizeof(code));
	if (!ret)
		return 0;
fail:
	free_insn_slot(ai->insn, 0);
	ai->insn = NULL;
	return ret == -ERANGE ? -EINVAL : ret;
}

/* ---------------------------------------------------------------------
 * Arch hooks called by the core
 */

/*
 * The kCFI check in front of an indirect call (CONFIG_CFI_CLANG):
 *
 *   movl $-type, %r10d       6 bytes, at trap - 12
 *   addl -N(%reg), %r10d     4 bytes, at trap - 6
 *   je 1f                    2 bytes, at trap - 2
 *   ud2                      the trap (refused as any ud2)
 *
 * On a failed check the #UD handler decodes the movl and addl from the
 * text to report the type and the target; an int3 over either would turn
 * the report into an anonymous one.  Refuse the whole sequence.  Without
 * CFI_CLANG (gcc builds) is_cfi_trap() is constant false.
 */
static bool in_cfi_check(unsigned long addr)
{
	static const u8 trap_at[] = { 0, 2, 6, 12 };
	int i;

	if (!IS_ENABLED(CONFIG_CFI_CLANG))
		return false;
	for (i = 0; i < ARRAY_SIZE(trap_at); i++)
		if (is_cfi_trap(addr + trap_at[i]))
			return true;
	return false;
}

/**
 * arch_prepare_kprobe() - check and copy the probed instruction
 * @p: the site's probe, @p->addr resolved
 *
 * Return: 0, -EILSEQ (not an instruction boundary), -EINVAL (cannot be
 * probed: an alternatives site, ENDBR, kCFI check sequence, "sti; hlt",
 * unsupported instruction, someone else's breakpoint at @p->addr),
 * -EBUSY (another debugger's breakpoint before @p->addr in its function)
 * or -ENOMEM.
 */
int arch_prepare_kprobe(struct kprobe *p)
{
	unsigned long addr = (unsigned long)p->addr;
	u8 buf[MAX_INSN_SIZE], next;
	struct insn insn;
	int ret;

	/* No one patches text while we decode it: see check_boundary(). */
	mutex_lock(&text_mutex);
	if (alternatives_text_reserved(p->addr, p->addr))
		ret = -EINVAL;
	else
		ret = check_boundary(addr);
	if (!ret)
		ret = decode_at(&insn, buf, addr);
	/*
	 * sti delays interrupts by one instruction, the emulation does not:
	 * an interrupt taken between an emulated "sti" and its "hlt" would
	 * leave the CPU halted with its wakeup already handled.
	 */
	if (!ret && insn.opcode.bytes[0] == 0xfb && insn.opcode.nbytes == 1 &&
	    read_orig_text(&next, addr + insn.length, 1) == 1 &&
	    next == 0xf4)
		ret = -EINVAL;
	mutex_unlock(&text_mutex);
	if (ret)
		return ret;
	/* Replacing an ENDBR would break indirect branches to it (IBT). */
	if (insn.length == 4 && is_endbr(*(u32 *)buf))
		return -EINVAL;
	if (in_cfi_check(addr))
		return -EINVAL;
	ret = classify(&insn, &p->ainsn);
	if (ret)
		return ret;
	/*
	 * A fault in the boosted copy would find no probe to rewind it to
	 * the original address, where its exception table entry is, and
	 * no fixup: never boost an instruction that has one.
	 */
	if (search_exception_tables(addr))
		p->ainsn.boostable = 0;
	p->opcode = buf[0];
	p->ainsn.insn = NULL;
	if (p->ainsn.memop)
		p->ainsn.boostable = 0;
	if (p->ainsn.kind == KPX_STEP || p->ainsn.memop)
		return build_slot(p, &insn, buf);
	return 0;
}

/**
 * arch_arm_kprobe() - write the breakpoint
 * @p: a prepared probe (text_mutex held)
 */
void arch_arm_kprobe(struct kprobe *p)
{
	u8 int3 = INT3_INSN_OPCODE;

	text_poke(p->addr, &int3, INT3_INSN_SIZE);
	text_poke_sync();
	perf_event_text_poke(p->addr, &p->opcode, 1, &int3, 1);
}

/**
 * arch_disarm_kprobe() - restore the original byte
 * @p: an armed probe (text_mutex held)
 */
void arch_disarm_kprobe(struct kprobe *p)
{
	u8 int3 = INT3_INSN_OPCODE;

	text_poke(p->addr, &p->opcode, 1);
	text_poke_sync();
	perf_event_text_poke(p->addr, &int3, 1, &p->opcode, 1);
}

/**
 * arch_remove_kprobe() - release the probe's slot
 * @p: a disarmed, unhashed probe
 */
void arch_remove_kprobe(struct kprobe *p)
{
	if (p->ainsn.insn) {
		free_insn_slot(p->ainsn.insn, 0);
		p->ainsn.insn = NULL;
	}
}

/**
 * arch_adjust_kprobe_addr() - place function-entry probes
 * @addr: function start
 * @offset: requested offset
 * @on_func_entry: set when the probe is at the function's entry
 *
 * The entry of a function is offset 0, or the end of its ENDBR.  The
 * ENDBR must stay in place for IBT, so a probe there goes after it: on
 * the function's ftrace site with CONFIG_KPROBES_ON_FTRACE (the probe
 * then runs from ftrace), after the fentry call without it (the first
 * instruction that is the function's own).  Any other offset is taken as
 * it is and is not the entry: one inside ENDBR or fentry is then refused,
 * and the end of the fentry call is the body's first instruction (no
 * kretprobe there, and BPF's
 * bpf_get_func_ip() is 0 for a probe there, KPROBE_FLAG_ON_FUNC_ENTRY
 * being unset).
 *
 * Return: the address to probe.
 */
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset,
					 bool *on_func_entry)
{
	unsigned long want = addr + offset, entry = addr;
	u32 insn;

	*on_func_entry = !offset;
	if (!get_kernel_nofault(insn, (u32 *)entry) && is_endbr(insn)) {
		entry += ENDBR_INSN_SIZE;
		*on_func_entry |= want == entry;
	}
	if (!*on_func_entry)
		return (kprobe_opcode_t *)want;
	if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE) &&
	    ftrace_location(entry) == entry)
		entry += MCOUNT_INSN_SIZE;
	return (kprobe_opcode_t *)entry;
}

/* ---------------------------------------------------------------------
 * Hit path
 */

/*
 * ModRM/SIB register numbers to pt_regs.  i386 has no REX, so only the
 * first eight are ever asked for there; its kernel-mode trap frame has a
 * valid regs->sp (entry_32.S completes it), as x86_64's.
 */
static const u16 gpr_offset[16] = {
	offsetof(struct pt_regs, ax), offsetof(struct pt_regs, cx),
	offsetof(struct pt_regs, dx), offsetof(struct pt_regs, bx),
	offsetof(struct pt_regs, sp), offsetof(struct pt_regs, bp),
	offsetof(struct pt_regs, si), offsetof(struct pt_regs, di),
#ifdef CONFIG_X86_64
	offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
	offsetof(struct pt_regs, r10), offsetof(struct pt_regs, r11),
	offsetof(struct pt_regs, r12), offsetof(struct pt_regs, r13),
	offsetof(struct pt_regs, r14), offsetof(struct pt_regs, r15),
#endif
};

static unsigned long gpr(struct pt_regs *regs, unsigned int n)
{
	return regs_get_register(regs, gpr_offset[n & 15]);
}

NOKPROBE_SYMBOL(gpr);

/*
 * Target of an indirect jmp/call, computed from ModRM/SIB as the CPU
 * would, into *@target.  The memory operand is read fault-safe: false
 * when it cannot be read (the caller then lets the CPU fault on it).
 */
static bool indirect_target(struct arch_specific_insn *ai,
			    struct pt_regs *regs, unsigned long next,
			    unsigned long *target)
{
	struct kprobe_ctlblk *kcb;
	unsigned long val;
	bool ok;

	unsigned int mod = X86_MODRM_MOD(ai->modrm);
	unsigned int rm = X86_MODRM_RM(ai->modrm);
	unsigned int base, index;
	unsigned long ea;

	if (X86_REX_B(ai->rex))
		rm |= 8;
	if (mod == 3) {
		*target = gpr(regs, rm);
		return true;
	}

	if ((rm & 7) == 4) {
		base = X86_SIB_BASE(ai->sib) | (X86_REX_B(ai->rex) ? 8 : 0);
		index = X86_SIB_INDEX(ai->sib) | (X86_REX_X(ai->rex) ? 8 : 0);
		ea = index == 4 ? 0 :
		     gpr(regs, index) << X86_SIB_SCALE(ai->sib);
		if (!((base & 7) == 5 && mod == 0))
			ea += gpr(regs, base);
	} else if ((rm & 7) == 5 && mod == 0) {
		/* RIP-relative on x86_64, an absolute disp32 on i386 */
		ea = IS_ENABLED(CONFIG_X86_64) ? next : 0;
	} else {
		ea = gpr(regs, rm);
	}
	ea += (long)ai->disp;
	/*
	 * A bad pointer must fault at the probed instruction, not here:
	 * read it so that a fault is fixed up, and tell the caller.  A user
	 * address is never read here (get_kernel_nofault() refuses it).
	 */
	kcb = get_kprobe_ctlblk();
	kcb->reading = true;
	ok = !get_kernel_nofault(val, (unsigned long *)ea);
	kcb->reading = false;
	if (ok)
		*target = val;
	return ok;
}

NOKPROBE_SYMBOL(indirect_target);

/* Bits popf can change in 64-bit mode at CPL 0 (RF and VM end clear). */
#define KPX_POPF_MASK	(X86_EFLAGS_CF | X86_EFLAGS_PF | X86_EFLAGS_AF | \
			 X86_EFLAGS_ZF | X86_EFLAGS_SF | X86_EFLAGS_TF | \
			 X86_EFLAGS_IF | X86_EFLAGS_DF | X86_EFLAGS_OF | \
			 X86_EFLAGS_IOPL | X86_EFLAGS_NT | X86_EFLAGS_AC | \
			 X86_EFLAGS_ID)

/*
 * Carry out the instruction of @p on @regs.  Return: false when it must
 * be stepped instead (a memory operand that cannot be read).
 */
static bool emulate(struct kprobe *p, struct pt_regs *regs)
{
	struct arch_specific_insn *ai = &p->ainsn;
	unsigned long next = (unsigned long)p->addr + ai->len;
	unsigned long target, val;
	bool taken;

	switch (ai->kind) {
	case KPX_JMP:
		int3_emulate_jmp(regs, next + ai->disp);
		break;
	case KPX_CALL:
		int3_emulate_push(regs, next);
		int3_emulate_jmp(regs, next + ai->disp);
		break;
	case KPX_JCC:
		int3_emulate_jcc(regs, ai->cc, next, ai->disp);
		break;
	case KPX_LOOP:
		if (ai->cc == 0xe3) {			/* jrcxz */
			taken = !regs->cx;
		} else {
			regs->cx--;
			taken = regs->cx != 0;
			if (ai->cc == 0xe1)		/* loopz */
				taken &= !!(regs->flags & X86_EFLAGS_ZF);
			else if (ai->cc == 0xe0)	/* loopnz */
				taken &= !(regs->flags & X86_EFLAGS_ZF);
		}
		int3_emulate_jmp(regs, taken ? next + ai->disp : next);
		break;
	case KPX_RET:
		int3_emulate_ret(regs);
		regs->sp += (u16)ai->disp;
		break;
	case KPX_JMP_IND:
	case KPX_CALL_IND:
		if (!indirect_target(ai, regs, next, &target))
			return false;
		if (ai->kind == KPX_CALL_IND)
			int3_emulate_push(regs, next);
		int3_emulate_jmp(regs, target);
		break;
	/*
	 * The flags in @regs are those of the interrupted context, IF
	 * included: iret puts them in place.
	 */
	case KPX_PUSHF:
		int3_emulate_push(regs, regs->flags &
				  ~(X86_EFLAGS_RF | X86_EFLAGS_VM));
		int3_emulate_jmp(regs, next);
		break;
	case KPX_POPF:
		val = int3_emulate_pop(regs);
		regs->flags = (regs->flags & ~(KPX_POPF_MASK | X86_EFLAGS_RF)) |
			      (val & KPX_POPF_MASK);
		int3_emulate_jmp(regs, next);
		break;
	case KPX_CLI:
		regs->flags &= ~X86_EFLAGS_IF;
		int3_emulate_jmp(regs, next);
		break;
	case KPX_STI:
		regs->flags |= X86_EFLAGS_IF;
		int3_emulate_jmp(regs, next);
		break;
	}
	return true;
}

NOKPROBE_SYMBOL(emulate);

/* The hit is over: run post handlers, or go back to the probe we interrupted. */
static void finish_hit(struct kprobe *p, struct pt_regs *regs,
		       struct kprobe_ctlblk *kcb, bool reentered)
{
	if (reentered) {
		__this_cpu_write(current_kprobe, kcb->saved.kp);
		kcb->status = kcb->saved.status;
		kcb->flags = kcb->saved.flags;
		kcb->reading = kcb->saved.reading;
		kcb->saved.kp = NULL;
		return;
	}
	if (p->post_handler) {
		kprobe_set_status(KPROBE_HIT_SSDONE);
		kprobe_run_post(p, regs);
	}
	reset_current_kprobe();
}

NOKPROBE_SYMBOL(finish_hit);

/* The site is being (or is) optimized: its detour buffer is in use. */
static __always_inline struct optimized_kprobe *queued_op(struct kprobe *p)
{
#ifdef CONFIG_OPTPROBES
	struct optimized_kprobe *op = READ_ONCE(p->ainsn.op);

	if (op && READ_ONCE(op->state) >= KPROBE_OPT_QUEUED)
		return op;
#endif
	return NULL;
}

/*
 * Where a hit without post_handler can continue with no second trap: the
 * detour buffer's copy of the region while the probe is being (or is)
 * optimized, which keeps tasks out of the region's tail; else the slot's
 * boosted copy when there is one.  0: step it.
 */
static nokprobe_inline unsigned long boost_ip(struct kprobe *p)
{
	struct arch_specific_insn *ai = &p->ainsn;
#ifdef CONFIG_OPTPROBES
	struct optimized_kprobe *op = queued_op(p);

	if (op)
		return (unsigned long)op->optinsn.detour + KPROBE_OPT_COPY;
#endif
	if (ai->boostable)
		return (unsigned long)ai->insn + KPROBE_BOOST_OFFSET;
	return 0;
}

/*
 * A hit with a post_handler runs the slot's post copy, whose call of
 * kprobe_step_trampoline ends the hit (kprobe_x86_step_callback()): one
 * trap instead of two.  Only for a boostable instruction (it falls
 * through, has no exception table entry and no memory-indirect form),
 * not for a reentered probe (its hit must end in the trap that saved the
 * outer one), not when TF was set (the debug trap belongs after the
 * probed instruction, which only the stepping trap can give), and not
 * while the site is being optimized (as boost_ip(): that hit must not
 * end in the region's tail by a path other than the detour).
 */
static __always_inline bool post_copy_ok(struct kprobe *p,
					 struct pt_regs *regs, bool reentered)
{
	return p->ainsn.boostable && !reentered &&
	       !(regs->flags & X86_EFLAGS_TF) && !queued_op(p);
}

/*
 * Execute the probed instruction of @p (current_kprobe is @p).  Inline:
 * as a function of its own it would cost every hit a call and a return
 * (with the function tracer's entry and the return thunk, about two
 * dozen instructions), more than all it does for a stepped or boosted
 * instruction.
 */
static nokprobe_inline void run_insn(struct kprobe *p, struct pt_regs *regs,
				     struct kprobe_ctlblk *kcb, bool reentered)
{
	struct arch_specific_insn *ai = &p->ainsn;
	unsigned long boost;

	if (ai->kind != KPX_STEP) {
		if (emulate(p, regs)) {
			finish_hit(p, regs, kcb, reentered);
			return;
		}
		/* The operand's fault is to happen in the slot: step. */
		boost = 0;
	} else {
		boost = READ_ONCE(p->post_handler) ? 0 : boost_ip(p);
	}
	if (boost) {
		regs->ip = boost;
		/* Nothing comes back to us: the hit ends here. */
		if (reentered)
			finish_hit(p, regs, kcb, true);
		else
			reset_current_kprobe();
		return;
	}
	kcb->flags = regs->flags & (X86_EFLAGS_IF | X86_EFLAGS_TF);
	regs->flags &= ~(X86_EFLAGS_IF | X86_EFLAGS_TF);
	regs->ip = (unsigned long)ai->insn;
	if (ai->kind == KPX_STEP && post_copy_ok(p, regs, reentered)) {
		regs->ip += KPROBE_POST_OFFSET;
		kcb->addr = (unsigned long)p->addr;
		kcb->next = kcb->addr + ai->len;
	}
	kcb->status = reentered ? KPROBE_REENTER : KPROBE_HIT_SS;
}

/*
 * kprobe_x86_site_left() - is @p still the site registered at @addr
 * @p: the running probe, a site that may be freed: only compared
 * @addr: its probed address
 *
 * With RCU watching.  A KUnit test stands in for it to make a site go
 * while its post copy runs.
 *
 * Return: true when the lookup finds @p.
 */
VISIBLE_IF_KUNIT bool kprobe_x86_site_left(struct kprobe *p,
					   unsigned long addr)
{
	KUNIT_STATIC_STUB_REDIRECT(kprobe_x86_site_left, p, addr);
	return kprobe_lookup((kprobe_opcode_t *)addr) == p;
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_x86_site_left);
NOKPROBE_SYMBOL(kprobe_x86_site_left);

/*
 * The end of a post copy hit, once RCU watches (kprobe_x86_step_callback()):
 * out of line, so that the sanitizers see it.
 */
static noinline notrace void post_copy_done(struct pt_regs *regs, bool rcu)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *p = kprobe_running();
	bool lockdep;

	if (unlikely(rcu) && unlikely(!kprobe_x86_site_left(p, kcb->addr))) {
		regs->flags |= kcb->flags;
		regs->ip = kcb->next;
		reset_current_kprobe();
		return;
	}
	lockdep = kprobe_lockdep_irqs_off();
	regs->ip = (unsigned long)p->addr + p->ainsn.len;
	regs->flags |= kcb->flags;
	kprobe_set_status(KPROBE_HIT_SSDONE);
	kprobe_end_post(p, regs);
	kprobe_lockdep_irqs_on(lockdep);
}

NOKPROBE_SYMBOL(post_copy_done);

/**
 * kprobe_x86_step_callback() - the end of a hit that ran the post copy
 * @regs: the registers after the copied instruction, laid by
 *	kprobe_step_trampoline under its return address
 *
 * The int3 handler left the probe running (KPROBE_HIT_SS) with IF and
 * TF clear, and this CPU has run only the copy since (interrupts off):
 * the running probe is the one whose copy called us.  As step_done()
 * does after a second trap: the ip to the next original instruction,
 * the interrupted IF back, the post_handlers, the hit over; then return
 * to regs->ip (a post_handler may have moved it).  Lockdep learns that
 * interrupts are off meanwhile, and where RCU is not watching (probed
 * code called between ct_idle_enter() and ct_idle_exit()) the handlers
 * get ct_nmi_enter(), as the second int3's entry would give them.
 *
 * There, though, RCU did not watch since the int3's exit either: an
 * unregistration's grace period did not wait for this hit, and the site
 * may be gone.  Nothing of it is read before the lookup under
 * ct_nmi_enter() has found it still registered (an unregistration
 * unhashes it before its grace period, which then waits for us); if it
 * has gone, the hit ends with no post_handler, at the next instruction
 * the int3 handler noted.
 *
 * noinstr: nothing may be instrumented before ct_nmi_enter() has made RCU
 * watch, nor after ct_nmi_exit(); what runs in between is.
 */
__visible __noendbr noinstr void
kprobe_x86_step_callback(struct pt_regs *regs)
{
	unsigned long *ret = (unsigned long *)(regs + 1);
	bool rcu = !kprobe_rcu_watching();

	if (unlikely(rcu))
		ct_nmi_enter();
	instrumentation_begin();
	post_copy_done(regs, rcu);
	instrumentation_end();
	if (unlikely(rcu))
		ct_nmi_exit();
	*ret = regs->ip;
}

NOKPROBE_SYMBOL(kprobe_x86_step_callback);

#ifdef CONFIG_X86_64
/**
 * kprobe_xenpv_irqs_off() - mask interrupts for a trampoline, on Xen PV
 * @regs: the trampoline's pt_regs, the flags as its pushfq saved them
 *
 * A Xen PV kernel runs unprivileged: cli and popf there leave the mask
 * of the event channel upcalls (its interrupts) as it is, and pushfq
 * shows IF always set.  The kprobes trampolines (KPROBE_IRQS_OFF in
 * trampoline_regs.S) call this instead of cli: it puts the interrupt
 * state of the probed code into regs->flags, as an exception frame shows
 * it, and masks interrupts with the paravirt irq ops.  Then no event
 * can preempt or migrate the task while a handler runs or a probe is
 * running on this CPU, and the handlers' calls are an RCU-sched
 * read-side section, as natively after cli.
 */
__visible __noendbr notrace void kprobe_xenpv_irqs_off(struct pt_regs *regs)
{
	unsigned long flags;

	raw_local_irq_save(flags);
	regs->flags = (regs->flags & ~X86_EFLAGS_IF) | (flags & X86_EFLAGS_IF);
}

NOKPROBE_SYMBOL(kprobe_xenpv_irqs_off);

/**
 * kprobe_xenpv_irqs_restore() - unmask interrupts after a trampoline, on Xen PV
 * @regs: the trampoline's pt_regs, whose flags its popfq will restore
 *
 * Called by the trampolines of a Xen PV kernel before that popfq, which
 * cannot change the interrupt mask there (KPROBE_IRQS_RESTORE): unmasks
 * interrupts when regs->flags has IF (the probed code's, as
 * kprobe_xenpv_irqs_off() put it there, or the one the post copy's
 * callback gives back).
 */
__visible __noendbr notrace void kprobe_xenpv_irqs_restore(struct pt_regs *regs)
{
	if (regs->flags & X86_EFLAGS_IF)
		raw_local_irq_enable();
}

NOKPROBE_SYMBOL(kprobe_xenpv_irqs_restore);
#endif

/* The int3 after a stepped copy: resume after the original instruction. */
static void step_done(struct kprobe *p, struct pt_regs *regs,
		      struct kprobe_ctlblk *kcb)
{
	struct arch_specific_insn *ai = &p->ainsn;
	unsigned long next = (unsigned long)p->addr + ai->len;
	unsigned long keep = kcb->flags;

	kprobe_step_trapped(p);
	regs->flags |= keep;
	if (ai->memop) {
		/*
		 * The operand could be read after all (it was mapped in
		 * meanwhile): the push left the target on the stack.
		 */
		unsigned long target = int3_emulate_pop(regs);

		if (ai->kind == KPX_CALL_IND)
			int3_emulate_push(regs, next);
		regs->ip = target;
	} else {
		regs->ip = next;
	}
	finish_hit(p, regs, kcb, kcb->status == KPROBE_REENTER);
}

NOKPROBE_SYMBOL(step_done);

/* @p was hit while this CPU already handles kprobe_running(). */
static void reenter(struct kprobe *p, struct pt_regs *regs,
		    struct kprobe_ctlblk *kcb)
{
	if (kcb->saved.kp) {
		/* Only one level can be saved; a third one is a bug. */
		dump_kprobe(p);
		panic("kprobes: probe hit three levels deep at %pS\n", p->addr);
	}
	kprobes_inc_nmissed_count(p);
	kcb->saved.kp = kprobe_running();
	kcb->saved.status = kcb->status;
	kcb->saved.flags = kcb->flags;
	/* The outer trap may be reading an operand: that is not ours. */
	kcb->saved.reading = kcb->reading;
	kcb->reading = false;
	__this_cpu_write(current_kprobe, p);
	kcb->status = KPROBE_REENTER;
	run_insn(p, regs, kcb, true);
}

NOKPROBE_SYMBOL(reenter);

/**
 * kprobe_int3_handler() - the breakpoint trap's entry into kprobes
 * @regs: registers at the int3 (ip is after it)
 *
 * Called with interrupts disabled from the int3 trap, before the die
 * notifiers.
 *
 * Return: 1 when the trap was ours, 0 otherwise.
 */
int kprobe_int3_handler(struct pt_regs *regs)
{
	kprobe_opcode_t *addr = (kprobe_opcode_t *)(regs->ip - INT3_INSN_SIZE);
	struct kprobe_ctlblk *kcb;
	struct kprobe *p, *cur;

	if (user_mode(regs))
		return 0;

	kcb = get_kprobe_ctlblk();
	cur = kprobe_running();
	if (cur && (kcb->status == KPROBE_HIT_SS ||
		    kcb->status == KPROBE_REENTER) &&
	    cur->ainsn.insn && addr == cur->ainsn.insn + cur->ainsn.len) {
		step_done(cur, regs, kcb);
		return 1;
	}

#ifdef CONFIG_JPROBES
	/* The end of a jprobe handler: back to the probed instruction. */
	if (!cur && (unsigned long)addr == jprobe_return_trap_addr()) {
		p = kprobe_jprobe_resume(regs);
		if (!p)
			return 0;
		__this_cpu_write(current_kprobe, p);
		kprobe_set_status(KPROBE_HIT_ACTIVE);
		run_insn(p, regs, kcb, false);
		return 1;
	}
#endif

	p = kprobe_lookup(addr);
	if (!p) {
		/*
		 * The probe went away after this CPU trapped on it: the byte
		 * is back, run it.  Any other int3 is not ours.
		 */
		if (*addr != INT3_INSN_OPCODE) {
			regs->ip = (unsigned long)addr;
			return 1;
		}
		return 0;
	}

	/* Handlers see regs->ip past the int3: the probed address + 1. */
	if (cur) {
		reenter(p, regs, kcb);
		return 1;
	}

	__this_cpu_write(current_kprobe, p);
	kprobe_set_status(KPROBE_HIT_ACTIVE);
	if (kprobe_run_pre(p, regs)) {
		/* The handler moved the ip: skip the instruction. */
#ifdef CONFIG_OPTPROBES
		regs->ip = kprobe_opt_resume_ip(p, regs->ip);
#endif
		reset_current_kprobe();
		return 1;
	}
	run_insn(p, regs, kcb, false);
	return 1;
}

NOKPROBE_SYMBOL(kprobe_int3_handler);

/* @ip is on the copy of @p's instruction at @off in its slot. */
static bool in_copy(struct kprobe *p, unsigned long ip, unsigned int off)
{
	unsigned long copy = (unsigned long)p->ainsn.insn + off;

	return p->ainsn.insn && ip >= copy && ip < copy + p->ainsn.len;
}

NOKPROBE_SYMBOL(in_copy);

/**
 * kprobe_fault_handler() - a fault while this CPU handles a probe
 * @regs: registers at the fault
 * @trapnr: the x86 trap number
 *
 * Called with preemption disabled while kprobe_running().  A fault in the
 * copied instruction is rewound to the original instruction (so the
 * fault is reported, and fixed up, there); a fault in a handler goes to
 * that probe's fault_handler, but for one of an NMI or #DB nested in the
 * handler (kprobe_fault_nested()).
 *
 * Return: 1 when handled, 0 to let the kernel handle the fault.
 */
int kprobe_fault_handler(struct pt_regs *regs, int trapnr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *cur = kprobe_running();
	bool reentered;

	if (!cur || kcb->reading)
		return 0;

	switch (kcb->status) {
	case KPROBE_HIT_SS:
	case KPROBE_REENTER:
		if (!in_copy(cur, regs->ip, 0) &&
		    !(cur->ainsn.boostable &&
		      in_copy(cur, regs->ip, KPROBE_POST_OFFSET)))
			break;
		reentered = kcb->status == KPROBE_REENTER;
		regs->ip = (unsigned long)cur->addr;
		regs->flags |= kcb->flags;
		if (!reentered && cur->fault_handler &&
		    cur->fault_handler(cur, regs, trapnr)) {
			reset_current_kprobe();
			return 1;
		}
		if (reentered)
			finish_hit(cur, regs, kcb, true);
		else
			reset_current_kprobe();
		/* The #PF path fixes up after us; others already tried. */
		if (trapnr != X86_TRAP_PF &&
		    fixup_exception(regs, trapnr, current->thread.error_code, 0))
			return 1;
		return 0;
	case KPROBE_HIT_ACTIVE:
	case KPROBE_HIT_SSDONE:
		/*
		 * Not a fault of an NMI or #DB that came in the handler:
		 * those are the kernel's to handle, at the ip they faulted.
		 */
		if (kprobe_fault_nested())
			break;
		if (cur->fault_handler && cur->fault_handler(cur, regs, trapnr))
			return 1;
		break;
	}
	return 0;
}

NOKPROBE_SYMBOL(kprobe_fault_handler);

/*
 * Traps that reach us only through the die chain (DIE_TRAP: divide error,
 * overflow, bounds, segment faults ...) while a probe is active.  Int3,
 * #GP and #PF call into kprobes directly.
 */
static int kprobe_die_notify(struct notifier_block *nb, unsigned long val,
			     void *data)
{
	struct die_args *args = data;

	if (val != DIE_TRAP || user_mode(args->regs) || preemptible() ||
	    !kprobe_running())
		return NOTIFY_DONE;
	return kprobe_fault_handler(args->regs, args->trapnr) ?
	       NOTIFY_STOP : NOTIFY_DONE;
}

NOKPROBE_SYMBOL(kprobe_die_notify);

static struct notifier_block kprobe_die_nb = {
	.notifier_call = kprobe_die_notify,
	.priority = INT_MAX,
};

/**
 * arch_init_kprobes() - x86 setup
 *
 * Return: 0 or an errno.
 */
int __init arch_init_kprobes(void)
{
	return register_die_notifier(&kprobe_die_nb);
}
