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

#define KPD_KEYS	4096
#define KPD_EX		16

struct kpd_key {
	int kind;		/* 0 uprobes, 1 kprobes */
	u32 group;		/* bits 31:21, for a change of class */
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
	return strstr(name, "ldr") || strstr(name, "lit");
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
	u32 group = oc != nc ? insn >> 21 : 0;
	static u32 seed = 1;
	struct kpd_key *k;
	int i;

	for (i = 0; i < kpd_nkeys; i++) {
		k = &kpd_keys[i];
		if (k->kind == kind && k->oc == oc && k->nc == nc &&
		    k->oh == oh && k->nh == nh && k->group == group)
			goto found;
	}
	if (kpd_nkeys == KPD_KEYS) {
		pr_info("KPD out of keys\n");
		return;
	}
	k = &kpd_keys[kpd_nkeys++];
	*k = (struct kpd_key){ .kind = kind, .oc = oc, .nc = nc, .oh = oh,
			       .nh = nh, .group = group };
found:
	/* a uniform sample of the encodings of the key */
	if (k->count < KPD_EX) {
		k->ex[k->count] = insn;
	} else {
		seed = seed * 1103515245 + 12345;
		if ((seed >> 8) % (k->count + 1) < KPD_EX)
			k->ex[(seed >> 4) % KPD_EX] = insn;
	}
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

/* named instructions: kpdi.s, assembled with aarch64-linux-gnu-as */
static const u32 kpd_named[] = {
	0xd51b4200, 0xd53b4200, 0xd51b4400, 0xd51b4420, 0xd53b4400, 0xd53bd040,
	0xd51bd040, 0xd53bd060, 0xd53b0020, 0xd53be040, 0xd53be000, 0xd53b00e0,
	0xd5380000, 0xd53b4220, 0xd5384020, 0xd5384000, 0xd5385200, 0xd5386000,
	0xd5384240, 0xd5384100, 0xd5384600, 0xd50342df, 0xd50342ff, 0xd50041bf,
	0xd500419f, 0xd500417f, 0xd503413f, 0xd503415f, 0xd503419f, 0xd500401f,
	0xd500403f, 0xd500405f, 0xd503201f, 0xd503203f, 0xd503205f, 0xd503207f,
	0xd503209f, 0xd50320bf, 0xd503221f, 0xd503223f, 0xd503225f, 0xd503229f,
	0xd503241f, 0xd503245f, 0xd503249f, 0xd50324df, 0xd503233f, 0xd503237f,
	0xd503231f, 0xd503211f, 0xd50323bf, 0xd50323ff, 0xd50320ff, 0xd5032fff,
	0xd5033bbf, 0xd5033f9f, 0xd5033fdf, 0xd50330ff, 0xd5033f5f, 0xd503309f,
	0xd503349f, 0xd50b7e20, 0xd50b7b20, 0xd50b7420, 0xd50b7520, 0xd508751f,
	0xd508871f, 0xd5087800, 0xd5087500, 0xd5281000, 0xd4000001, 0xd4000002,
	0xd4200000, 0xd4400000, 0xd69f03e0, 0x00000000, 0xd61f0000, 0xd63f0000,
	0xd65f03c0, 0xd71f0801, 0xd73f0801, 0xd65f0bff, 0xd65f0fff, 0x14000000,
	0x94000000, 0x54000000, 0x54000010, 0xb4000000, 0x36180000, 0x10000000,
	0x90000000, 0x58000000, 0x18000000, 0x98000000, 0x1c000000, 0x5c000000,
	0x9c000000, 0xd8000000, 0xc85f7c20, 0xc8027c20, 0xc85ffc20, 0xc802fc20,
	0xc87f0c20, 0xc8dffc20, 0xc89ffc20, 0xf8bfc020, 0xc8a07c22, 0xf8200022,
	0xf8208022, 0xf9400020, 0xf94007e0, 0xf9000020, 0xa9bf7bfd, 0x4c407000,
	0x8b020020, 0x1e622820, 0x910003e0, 0x1d010440, 0x19c20420, 0xf83fd020,
	0xf83f9020, 0xa5e0a000, 0x04e20020, 0xd503477f, 0xd503467f, 0x04bf5820,
	0xc00800ff, 0xe1000000, 0x9adf1020, 0xd9200820, 0xd9600020,
};

static void kpd_named_one(u32 insn)
{
	struct arch_probe_insn a = {}, b = {};
	struct arch_specific_insn ka = {};
	int uo, un, ko, kn;

	uo = old_arm_probe_decode_insn(insn, &a);
	un = arm_probe_decode_insn(insn, &b);
	pr_info("KPDI %08x uprobe old=%s %ps new=%s %ps\n", insn,
		kpd_cls[uo], a.handler, kpd_cls[un], b.handler);
	kpd_word[1] = insn;
	ko = old_arm_kprobe_decode_insn(&kpd_word[1], &ka);
	memset(&b, 0, sizeof(b));
	kn = a64_kprobe_classify(&kpd_word[1], &b);
	pr_info("KPDI %08x kprobe old=%s %ps new=%s %ps\n", insn,
		kpd_cls[ko], ka.api.handler,
		kn == A64_PROBE_SIMULATE ? "GOOD_NO_SLOT" :
		kn == A64_PROBE_XOL ? "GOOD" : "REJECTED", b.handler);
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
	for (i = 0; i < ARRAY_SIZE(kpd_named); i++)
		kpd_named_one(kpd_named[i]);
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
		pr_info("KPD %s old=%s %ps new=%s %ps group=%03x count=%lu run=%lu mismatch=%lu bad=%08x ex=%*phN\n",
			k->kind ? "kprobe" : "uprobe",
			kpd_cls[k->oc], k->oh, kpd_cls[k->nc], k->nh,
			k->group, k->count, k->run, k->mismatch, k->bad,
			(int)(min_t(unsigned long, k->count, KPD_EX) * 4),
			k->ex);
	}
	pr_info("KPD done: %d keys\n", kpd_nkeys);
	return 0;
}
late_initcall(kpd_init);
