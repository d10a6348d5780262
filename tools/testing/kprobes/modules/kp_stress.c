// SPDX-License-Identifier: GPL-2.0
/*
 * kp_stress: probe many functions at once, through the public API only
 * (so that the same source stresses both flavours).
 *
 * /sys/kernel/debug/kp_stress/
 *   probe   write symbol names, one a line (any number of writes): a
 *           kprobe goes on the entry of each, counting its hits
 *   clear   write anything: unregister every probe, in one batch
 *   stats   read: "accepted N hits N missed N" then "errno E count N"
 *           lines for the refusals, by errno
 */
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/debugfs.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <linux/mutex.h>

#define KPS_MAX_PROBES	200000
#define KPS_MAX_ERRNO	200

static DEFINE_MUTEX(kps_lock);
static struct kprobe **kps_probes;
static unsigned int kps_nr;
static unsigned long kps_refused[KPS_MAX_ERRNO + 1];
static atomic64_t kps_hits;
static char kps_partial[KSYM_NAME_LEN];
static size_t kps_partial_len;
static struct dentry *kps_dir;
/*
 * verbose=1: name each function before its probe goes in (to find a
 * hang), at warning level: the guest's console shows nothing quieter.
 */
static bool verbose;
module_param(verbose, bool, 0644);

static int kps_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic64_inc(&kps_hits);
	return 0;
}

static void kps_add(const char *name)
{
	struct kprobe *kp;
	int ret;

	if (!*name || kps_nr >= KPS_MAX_PROBES)
		return;
	kp = kzalloc(sizeof(*kp) + strlen(name) + 1, GFP_KERNEL);
	if (!kp) {
		kps_refused[ENOMEM]++;
		return;
	}
	kp->symbol_name = strcpy((char *)(kp + 1), name);
	kp->pre_handler = kps_pre;
	if (verbose)
		pr_warn("kp_stress: %s\n", name);
	ret = register_kprobe(kp);
	if (ret) {
		kps_refused[min(-ret, KPS_MAX_ERRNO)]++;
		kfree(kp);
		return;
	}
	kps_probes[kps_nr++] = kp;
}

static ssize_t kps_probe_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	size_t done = 0, n;
	char *buf;

	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	mutex_lock(&kps_lock);
	while (done < count) {
		n = min_t(size_t, count - done, PAGE_SIZE);
		if (copy_from_user(buf, ubuf + done, n)) {
			done = done ? done : -EFAULT;
			break;
		}
		for (size_t i = 0; i < n; i++) {
			char c = buf[i];

			if (c == '\n' || c == ' ' || c == '\t') {
				kps_partial[kps_partial_len] = 0;
				kps_add(kps_partial);
				kps_partial_len = 0;
			} else if (kps_partial_len < KSYM_NAME_LEN - 1) {
				kps_partial[kps_partial_len++] = c;
			}
		}
		done += n;
		cond_resched();
	}
	mutex_unlock(&kps_lock);
	kfree(buf);
	return done;
}

static void kps_clear(void)
{
	unsigned int i;

	unregister_kprobes(kps_probes, kps_nr);
	for (i = 0; i < kps_nr; i++)
		kfree(kps_probes[i]);
	kps_nr = 0;
}

static ssize_t kps_clear_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	mutex_lock(&kps_lock);
	kps_clear();
	mutex_unlock(&kps_lock);
	return count;
}

static int kps_stats_show(struct seq_file *m, void *v)
{
	unsigned long missed = 0;
	unsigned int i;

	mutex_lock(&kps_lock);
	for (i = 0; i < kps_nr; i++)
		missed += kps_probes[i]->nmissed;
	seq_printf(m, "accepted %u hits %lld missed %lu\n", kps_nr,
		   atomic64_read(&kps_hits), missed);
	for (i = 1; i <= KPS_MAX_ERRNO; i++)
		if (kps_refused[i])
			seq_printf(m, "errno %u count %lu\n", i, kps_refused[i]);
	mutex_unlock(&kps_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kps_stats);

static const struct file_operations kps_probe_fops = {
	.write = kps_probe_write,
};

static const struct file_operations kps_clear_fops = {
	.write = kps_clear_write,
};

static int __init kps_init(void)
{
	kps_probes = vzalloc(array_size(KPS_MAX_PROBES, sizeof(*kps_probes)));
	if (!kps_probes)
		return -ENOMEM;
	kps_dir = debugfs_create_dir("kp_stress", NULL);
	debugfs_create_file("probe", 0200, kps_dir, NULL, &kps_probe_fops);
	debugfs_create_file("clear", 0200, kps_dir, NULL, &kps_clear_fops);
	debugfs_create_file("stats", 0400, kps_dir, NULL, &kps_stats_fops);
	return 0;
}

static void __exit kps_exit(void)
{
	debugfs_remove_recursive(kps_dir);
	kps_clear();
	vfree(kps_probes);
}

module_init(kps_init);
module_exit(kps_exit);
MODULE_DESCRIPTION("kprobes workbench: probe many functions at once");
MODULE_LICENSE("GPL");
