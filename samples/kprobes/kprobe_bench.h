/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprobe_bench: the functions shared by the module's translation units.
 */
#ifndef _SAMPLES_KPROBE_BENCH_H
#define _SAMPLES_KPROBE_BENCH_H

#include <linux/atomic.h>

struct kprobe;

/* kprobe_bench_funcs.c: the functions the benchmark probes */
#define KPB_NFUNCS 10000

extern int (* const kpb_fns[KPB_NFUNCS])(int);
unsigned long kpb_target(unsigned long x);
unsigned long kpb_target_nt(unsigned long x);

/* kprobe_bench_main.c: the function the kthreads of "sleep" sleep in */
unsigned long kpb_sleeper(unsigned long round);

/* kprobe_bench_jprobe.c: the jprobe of "arm j", where jprobes exist */
int kpb_jprobe_arm(atomic_long_t *hits);
struct kprobe *kpb_jprobe_kprobe(void);
void kpb_jprobe_disarm(void);

#endif /* _SAMPLES_KPROBE_BENCH_H */
