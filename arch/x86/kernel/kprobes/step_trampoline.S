/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The x86 step trampoline (x86_64 and i386): how a breakpoint hit with a
 * post_handler ends without a second trap.
 *
 * The slot's third copy of a boostable instruction is followed by a
 * "call kprobe_step_trampoline" (layout in <asm/kprobes.h>).  The int3
 * handler enters that copy with interrupts off and the probe still
 * running (KPROBE_HIT_SS), so a fault in the copy is rewound to the
 * probed address as in a stepped copy.  The call lands here:
 * KPROBE_CALLED_TRAMPOLINE (trampoline_regs.S) lays the registers as the
 * copy left them, and kprobe_x86_step_callback() puts the ip at the next
 * original instruction, gives back the interrupted IF, runs the
 * post_handlers and ends the hit; the return goes to the next
 * instruction (or where a post_handler sent the ip).
 */
#include "trampoline_regs.S"

/* The ip is the callback's to set: it knows the probe. */
.macro KPROBE_STEP_IP reg
.endm

	.text
KPROBE_CALLED_TRAMPOLINE kprobe_step_trampoline, kprobe_x86_step_callback, KPROBE_STEP_IP
