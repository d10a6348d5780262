// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe_bench: the functions it probes.  They live in a translation
 * unit of their own so that the compiler, building the loops of
 * kprobe_bench_main.c, sees none of their bodies: each call stays a
 * plain call of the function, with the standard calling convention,
 * and no clone or interprocedural shortcut moves or hides the probed
 * instruction.
 *
 * 10,000 distinct small functions, kpb_fn_1000 ... kpb_fn_10999, for
 * the registration commands, and the table of their addresses.
 */
#include <linux/compiler.h>
#include <linux/kernel.h>
#include "kprobe_bench.h"

/* KPB_X10(M, n): M(n0) M(n1) ... M(n9), each digit pasted to n */
#define KPB_X10(M, n)							\
	M(n##0) M(n##1) M(n##2) M(n##3) M(n##4)				\
	M(n##5) M(n##6) M(n##7) M(n##8) M(n##9)
#define KPB_X100(M, n)							\
	KPB_X10(M, n##0) KPB_X10(M, n##1) KPB_X10(M, n##2)		\
	KPB_X10(M, n##3) KPB_X10(M, n##4) KPB_X10(M, n##5)		\
	KPB_X10(M, n##6) KPB_X10(M, n##7) KPB_X10(M, n##8)		\
	KPB_X10(M, n##9)
#define KPB_X1000(M, n)							\
	KPB_X100(M, n##0) KPB_X100(M, n##1) KPB_X100(M, n##2)		\
	KPB_X100(M, n##3) KPB_X100(M, n##4) KPB_X100(M, n##5)		\
	KPB_X100(M, n##6) KPB_X100(M, n##7) KPB_X100(M, n##8)		\
	KPB_X100(M, n##9)
/* M(1000) ... M(10999): the KPB_NFUNCS registration functions */
#define KPB_ALL(M)							\
	KPB_X1000(M, 1) KPB_X1000(M, 2) KPB_X1000(M, 3) KPB_X1000(M, 4)	\
	KPB_X1000(M, 5) KPB_X1000(M, 6) KPB_X1000(M, 7) KPB_X1000(M, 8)	\
	KPB_X1000(M, 9) KPB_X1000(M, 10)

#define KPB_FN(n)							\
	noinline int kpb_fn_##n(int x);					\
	noinline int kpb_fn_##n(int x)					\
	{								\
		barrier();						\
		return x * (n) + 1;					\
	}
KPB_ALL(KPB_FN)

#define KPB_REF(n) kpb_fn_##n,
int (* const kpb_fns[KPB_NFUNCS])(int) = {
	KPB_ALL(KPB_REF)
};

static __always_inline unsigned long kpb_target_body(unsigned long x)
{
	unsigned long a = x + 3, b = x ^ 0x5a5a;

	barrier();
	a = a * 7 + (b >> 3);
	b = (b << 2) - a;
	return a ^ b;
}

/*
 * The probed functions of the per-hit commands, long enough for a jump:
 * kpb_target() has an ftrace site at its entry where the kernel has
 * ftrace ("arm f" and "arm rf" probe it there), kpb_target_nt() none, so
 * that a kretprobe's entry probe on it is a breakpoint or, once
 * optimized, a jump ("arm r").
 */
noinline unsigned long kpb_target(unsigned long x)
{
	return kpb_target_body(x);
}

noinline notrace unsigned long kpb_target_nt(unsigned long x)
{
	return kpb_target_body(x);
}
