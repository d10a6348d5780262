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

#define KPB_FN(n)							\
	noinline int kpb_fn_##n(int x);					\
	noinline int kpb_fn_##n(int x)					\
	{								\
		barrier();						\
		return x * (n) + 1;					\
	}
#define KPB_FN10(n)							\
	KPB_FN(n##0) KPB_FN(n##1) KPB_FN(n##2) KPB_FN(n##3) KPB_FN(n##4)	\
	KPB_FN(n##5) KPB_FN(n##6) KPB_FN(n##7) KPB_FN(n##8) KPB_FN(n##9)
#define KPB_FN100(n)							\
	KPB_FN10(n##0) KPB_FN10(n##1) KPB_FN10(n##2) KPB_FN10(n##3)	\
	KPB_FN10(n##4) KPB_FN10(n##5) KPB_FN10(n##6) KPB_FN10(n##7)	\
	KPB_FN10(n##8) KPB_FN10(n##9)
#define KPB_FN1000(n)							\
	KPB_FN100(n##0) KPB_FN100(n##1) KPB_FN100(n##2) KPB_FN100(n##3)	\
	KPB_FN100(n##4) KPB_FN100(n##5) KPB_FN100(n##6) KPB_FN100(n##7)	\
	KPB_FN100(n##8) KPB_FN100(n##9)

KPB_FN1000(1) KPB_FN1000(2) KPB_FN1000(3) KPB_FN1000(4) KPB_FN1000(5)
KPB_FN1000(6) KPB_FN1000(7) KPB_FN1000(8) KPB_FN1000(9) KPB_FN1000(10)

#define KPB_REF(n) kpb_fn_##n,
#define KPB_REF10(n)							\
	KPB_REF(n##0) KPB_REF(n##1) KPB_REF(n##2) KPB_REF(n##3) KPB_REF(n##4)	\
	KPB_REF(n##5) KPB_REF(n##6) KPB_REF(n##7) KPB_REF(n##8) KPB_REF(n##9)
#define KPB_REF100(n)							\
	KPB_REF10(n##0) KPB_REF10(n##1) KPB_REF10(n##2) KPB_REF10(n##3)	\
	KPB_REF10(n##4) KPB_REF10(n##5) KPB_REF10(n##6) KPB_REF10(n##7)	\
	KPB_REF10(n##8) KPB_REF10(n##9)
#define KPB_REF1000(n)							\
	KPB_REF100(n##0) KPB_REF100(n##1) KPB_REF100(n##2) KPB_REF100(n##3)	\
	KPB_REF100(n##4) KPB_REF100(n##5) KPB_REF100(n##6) KPB_REF100(n##7)	\
	KPB_REF100(n##8) KPB_REF100(n##9)

int (* const kpb_fns[KPB_NFUNCS])(int) = {
	KPB_REF1000(1) KPB_REF1000(2) KPB_REF1000(3) KPB_REF1000(4)
	KPB_REF1000(5) KPB_REF1000(6) KPB_REF1000(7) KPB_REF1000(8)
	KPB_REF1000(9) KPB_REF1000(10)
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
