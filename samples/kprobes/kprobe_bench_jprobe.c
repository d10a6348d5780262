// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe_bench: the jprobe of "arm j" on kpb_target(), built where the
 * kernel has jprobes.  Its handler counts the hit, as the kprobe and
 * kretprobe handlers of kprobe_bench_main.c do.
 */
#include <linux/kprobes.h>
#include "kprobe_bench.h"

static atomic_long_t *kpb_jprobe_hits;

static unsigned long kpb_jentry(unsigned long x)
{
	atomic_long_inc(kpb_jprobe_hits);
	jprobe_return();
	return 0;
}

static struct jprobe kpb_jp = { .entry = kpb_jentry };

int kpb_jprobe_arm(atomic_long_t *hits)
{
	kpb_jprobe_hits = hits;
	kpb_jp.kp = (struct kprobe){ .symbol_name = "kpb_target" };
	return register_jprobe(&kpb_jp);
}

struct kprobe *kpb_jprobe_kprobe(void)
{
	return &kpb_jp.kp;
}

void kpb_jprobe_disarm(void)
{
	unregister_jprobe(&kpb_jp);
}
