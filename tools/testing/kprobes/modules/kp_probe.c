// SPDX-License-Identifier: GPL-2.0
/*
 * kp_probe: registers a kprobe (kind=k) or a kretprobe (kind=r) on
 * `symbol` and counts its hits in /sys/module/kp_probe/parameters/hits
 * (kretprobe: entries in hits, returns in rets, misses in missed).
 * Uses only the public API, so it builds on either flavour.
 */
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/atomic.h>

static char *symbol = "kp_target_func";
module_param(symbol, charp, 0444);
static char *kind = "k";
module_param(kind, charp, 0444);
static unsigned int offset;
module_param(offset, uint, 0444);
static int hits;
module_param(hits, int, 0444);
static int rets;
module_param(rets, int, 0444);

static int kp_pre(struct kprobe *p, struct pt_regs *regs)
{
	WRITE_ONCE(hits, READ_ONCE(hits) + 1);
	return 0;
}

static int kp_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	WRITE_ONCE(rets, READ_ONCE(rets) + 1);
	return 0;
}

static int kp_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	WRITE_ONCE(hits, READ_ONCE(hits) + 1);
	return 0;
}

static struct kprobe kp = { .pre_handler = kp_pre };
static struct kretprobe rp = {
	.handler = kp_ret,
	.entry_handler = kp_entry,
	.maxactive = 16,
};

static int kp_missed_get(char *buf, const struct kernel_param *kparam)
{
	unsigned long n = kind[0] == 'r' ? rp.nmissed : kp.nmissed;

	return sysfs_emit(buf, "%lu\n", n);
}

static const struct kernel_param_ops kp_missed_ops = {
	.get = kp_missed_get,
};
module_param_cb(missed, &kp_missed_ops, NULL, 0444);

static int __init kp_probe_init(void)
{
	if (kind[0] == 'r') {
		rp.kp.symbol_name = symbol;
		return register_kretprobe(&rp);
	}
	kp.symbol_name = symbol;
	kp.offset = offset;
	return register_kprobe(&kp);
}

static void __exit kp_probe_exit(void)
{
	if (kind[0] == 'r')
		unregister_kretprobe(&rp);
	else
		unregister_kprobe(&kp);
}

module_init(kp_probe_init);
module_exit(kp_probe_exit);
MODULE_DESCRIPTION("kprobes workbench: count hits of a probe");
MODULE_LICENSE("GPL");
