/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the x86_64 KUnit suites of the kprobes port share: the functions
 * written in assembly in test-kprobes-x86.c (so that the probed
 * instruction is known) that the handler context suite
 * (test-kprobes-ctx.c) probes too, and the helpers both use.
 */
#ifndef _TEST_KPROBES_X86_H
#define _TEST_KPROBES_X86_H

#include <linux/linkage.h>
#include <linux/kprobes.h>
#include <kunit/test.h>

/* The comments at their code in test-kprobes-x86.c say what each does. */
asmlinkage long kpx_exload(const unsigned long *src, unsigned long *dst);
asmlinkage long kpx_ijmp(unsigned long *fnptr);
asmlinkage long kpx_leaf(void);
asmlinkage unsigned long kpx_postcopy(unsigned long x);
asmlinkage long kpx_rawload(const unsigned long *p);
asmlinkage int kpx_opt(int x);
asmlinkage int kpx_boost(int x);

unsigned long kpx_sym(const char *sym);
const struct arch_specific_insn *kpx_ai(struct kprobe *kp);
bool kpx_optimized(struct kprobe *kp);
unsigned long *kpx_bad_kernel_ptr(struct kunit *test, void **area);

#endif /* _TEST_KPROBES_X86_H */
