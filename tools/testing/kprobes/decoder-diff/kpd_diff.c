// SPDX-License-Identifier: GPL-2.0
/*
 * The arm64 instruction decoder of the base against ours, as a black box:
 * built into a kernel with both (decoder-diff.sh), it classifies the same
 * encodings with each and prints one line per distinct outcome pair
 * (class and emulation handler, for uprobes' arm_probe_decode_insn() and
 * for kprobes), with a count and examples.  For pairs where both emulate,
 * it runs both handlers on the same registers and counts disagreements.
 */
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <asm/probes.h>

#include "decode-insn.h"

enum probes_insn old_arm_probe_decode_insn(u32 insn, struct arch_probe_insn *api);
enum probes_insn old_arm_kprobe_decode_insn(kprobe_opcode_t *addr,
					    struct arch_specific_insn *asi);

#define KPD_KEYS	1024
#define KPD_EX		6

struct kpd_key {
	int kind;		/* 0 uprobes, 1 kprobes */
	int oc, nc;
	probes_handler_t *oh, *nh;
	unsigned long count, run, mismatch;
	u32 ex[KPD_EX];
	u32 bad;
};

static struct kpd_key *kpd_keys;
static int kpd_nkeys;
static u32 kpd_word[4] __aligned(16);

static const char *const kpd_cls[] = { "REJECTED", "GOOD_NO_SLOT", "GOOD" };

/* Whether handler @h may read memory (literal loads): not run */
static bool kpd_reads_memory(probes_handler_t *h)
{
	char name[KSYM_SYMBOL_LEN];

	sprint_symbol_no_offset(name, (unsigned long)h);
	return strstr(name, "ld") || strstr(name, "lit");
}

static void kpd_run(struct kpd_key *k, u32 insn)
{
	struct pt_regs a, b;
	long pc = 0x100000;

	if (!k->oh || !k->nh || kpd_reads_memory(k->oh) ||
	    kpd_reads_memory(k->nh))
		return;
	get_random_bytes(&a, sizeof(a));
	a.pstate &= 0xf0000000;	/* NZCV only */
	a.pc = pc;
	b = a;
	k->oh(insn, pc, &a);
	k->nh(insn, pc, &b);
	k->run++;
	if (memcmp(&a.user_regs, &b.user_regs, sizeof(a.user_regs))) {
		if (!k->mismatch)
			k->bad = insn;
		k->mismatch++;
	}
}

static void kpd_note(int kind, u32 insn, int oc, probes_handler_t *oh,
		     int nc, probes_handler_t *nh)
{
	struct kpd_key *k;
	int i;

	for (i = 0; i < kpd_nkeys; i++) {
		k = &kpd_keys[i];
		if (k->kind == kind && k->oc == oc && k->nc == nc &&
		    k->oh == oh && k->nh == nh)
			goto found;
	}
	if (kpd_nkeys == KPD_KEYS)
		return;
	k = &kpd_keys[kpd_nkeys++];
	*k = (struct kpd_key){ .kind = kind, .oc = oc, .nc = nc, .oh = oh,
			       .nh = nh };
found:
	if (k->count < KPD_EX)
		k->ex[k->count] = insn;
	k->count++;
	if (oc == INSN_GOOD_NO_SLOT && nc == INSN_GOOD_NO_SLOT &&
	    (k->count & 63) == 1)
		kpd_run(k, insn);
}

static void kpd_one(u32 insn)
{
	struct arch_probe_insn a = {}, b = {};
	struct arch_specific_insn ka = {};
	int oc, nc;

	oc = old_arm_probe_decode_insn(insn, &a);
	nc = arm_probe_decode_insn(insn, &b);
	kpd_note(0, insn, oc, a.handler, nc, b.handler);

	/* kprobes: an address in no function, so no exclusive scan */
	kpd_word[1] = insn;
	oc = old_arm_kprobe_decode_insn(&kpd_word[1], &ka);
	memset(&b, 0, sizeof(b));
	switch (a64_kprobe_classify(&kpd_word[1], &b)) {
	case A64_PROBE_SIMULATE:
		nc = INSN_GOOD_NO_SLOT;
		break;
	case A64_PROBE_XOL:
		nc = INSN_GOOD;
		break;
	default:
		nc = INSN_REJECTED;
	}
	kpd_note(1, insn, oc, ka.api.handler, nc, b.handler);
}

static int __init kpd_init(void)
{
	static const u16 fixed[] = { 0x0000, 0xffff, 0x03e0, 0x001f, 0x03ff,
				     0xfc00, 0x7fff, 0x8000 };
	u16 low[64];
	u32 seed = 12345, hi, x;
	int i;

	kpd_keys = kcalloc(KPD_KEYS, sizeof(*kpd_keys), GFP_KERNEL);
	if (!kpd_keys)
		return -ENOMEM;
	for (i = 0; i < 64; i++) {
		seed = seed * 1103515245 + 12345;
		low[i] = i < ARRAY_SIZE(fixed) ? fixed[i] : seed >> 16;
	}
	pr_info("KPD start\n");
	for (hi = 0; hi < 0x10000; hi++) {
		for (i = 0; i < 64; i++)
			kpd_one(hi << 16 | low[i]);
		cond_resched();
	}
	/* every encoding of the system and branch-register spaces */
	for (x = 0xd5000000; x < 0xd7000000; x++) {
		kpd_one(x);
		if (!(x & 0xffff))
			cond_resched();
	}
	for (i = 0; i < kpd_nkeys; i++) {
		struct kpd_key *k = &kpd_keys[i];

		if (k->oc == k->nc && k->oh == k->nh)
			continue;
		pr_info("KPD %s old=%s %ps new=%s %ps count=%lu run=%lu mismatch=%lu bad=%08x ex=%08x %08x %08x %08x %08x %08x\n",
			k->kind ? "kprobe" : "uprobe",
			kpd_cls[k->oc], k->oh, kpd_cls[k->nc], k->nh,
			k->count, k->run, k->mismatch, k->bad,
			k->ex[0], k->ex[1], k->ex[2], k->ex[3], k->ex[4],
			k->ex[5]);
	}
	pr_info("KPD done: %d keys\n", kpd_nkeys);
	return 0;
}
late_initcall(kpd_init);
