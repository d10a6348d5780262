/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The x86 trampoline of optimized kprobes (x86_64, and i386 below).
 *
 * An optimized probe's jmp lands on a "call kprobe_opt_trampoline" in its
 * detour buffer (layout in <asm/kprobes.h>).  The return address that
 * call pushes is the buffer's copy of the probed region, and the words
 * before it say which probe and address this is.  Under the return
 * address we lay a struct pt_regs as the registers stood at the probed
 * instruction (ip: the probed address + 1, as a breakpoint shows it),
 * let kprobe_opt_x86_callback() run the handlers with interrupts off
 * (it may replace the return address with the ip a pre_handler set),
 * restore every register and the flags, and return: into the copy,
 * which ends with a jmp back behind the region.  The steps are
 * KPROBE_CALLED_TRAMPOLINE's (trampoline_regs.S), shared with the
 * instruction slots' step trampoline.
 */
#include "trampoline_regs.S"

/* KPROBE_OPT_COPY minus KPROBE_OPT_IP, KPROBE_OPT_OP (checked in opt.c) */
#define OPT_IP_BEFORE_COPY	13
#define OPT_OP_BEFORE_COPY	21

/*
 * From the buffer: the callback's first argument, the op, and the probed
 * address + 1 (as after an int3).  The pt_regs go second: the handlers
 * take them second too, so the callback passes them on in place.
 */
.macro KPROBE_OPT_SET_IP reg
	mov	-OPT_OP_BEFORE_COPY(\reg), %_ASM_ARG1
	mov	-OPT_IP_BEFORE_COPY(\reg), \reg
.endm

	.text
KPROBE_CALLED_TRAMPOLINE kprobe_opt_trampoline, kprobe_opt_x86_callback, \
			 KPROBE_OPT_SET_IP, kprobe_opt_x86_redirect, %_ASM_ARG2
