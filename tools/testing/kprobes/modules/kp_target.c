// SPDX-License-Identifier: GPL-2.0
/*
 * kp_target: a module with a function to probe.  Writing N to
 * /sys/kernel/debug/kp_target/call calls kp_target_func() N times; the
 * sum of its results is readable in /sys/kernel/debug/kp_target/result.
 * Writing N to .../fallible calls kp_target_fallible(N), a function open
 * to error injection (fail_function, bpf_override_return()); the errno
 * it returned is in .../fallible_errno (0: it succeeded), and the write
 * fails with it.  Writing to .../block calls kp_target_block(), which
 * sleeps until 1 is written to .../release (0 closes it again);
 * .../blocked counts the writers inside it.  Writing N to .../retcall
 * calls kp_target_ret() N times; .../diverted counts the calls that found
 * their return address outside this module (a kretprobe diverted it).
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/error-injection.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/wait.h>
#include <linux/atomic.h>

static struct dentry *kp_dir;
static u64 kp_result;
static u32 kp_fallible_errno;

noinline int kp_target_func(int x)
{
	/* Something the compiler cannot fold away. */
	barrier();
	return x * 3 + 1;
}

noinline int kp_target_fallible(int x)
{
	barrier();
	return x < 0 ? -EINVAL : 0;
}
ALLOW_ERROR_INJECTION(kp_target_fallible, ERRNO);

static atomic_t kp_diverted;

/* Counts the calls whose return a kretprobe diverted. */
noinline int kp_target_ret(int x)
{
	if (!within_module((unsigned long)__builtin_return_address(0),
			   THIS_MODULE))
		atomic_inc(&kp_diverted);
	return x + 2;
}

static DECLARE_WAIT_QUEUE_HEAD(kp_block_wq);
static bool kp_block_open;
static atomic_t kp_blocked;

/* Sleeps until released: a function with many callers inside at once. */
noinline int kp_target_block(int x)
{
	int ret;

	atomic_inc(&kp_blocked);
	ret = wait_event_interruptible(kp_block_wq, READ_ONCE(kp_block_open));
	atomic_dec(&kp_blocked);
	return ret ? ret : x + 1;
}

static ssize_t kp_block_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	int ret = kp_target_block(1);

	return ret < 0 ? ret : count;
}

static const struct file_operations kp_block_fops = {
	.owner = THIS_MODULE,
	.write = kp_block_write,
};

static int kp_blocked_get(void *data, u64 *val)
{
	*val = atomic_read(&kp_blocked);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(kp_blocked_fops, kp_blocked_get, NULL, "%llu\n");

static int kp_release_set(void *data, u64 val)
{
	WRITE_ONCE(kp_block_open, !!val);
	if (val)
		wake_up_all(&kp_block_wq);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(kp_release_fops, NULL, kp_release_set, "%llu\n");

static ssize_t kp_fallible_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	int ret, x;

	ret = kstrtoint_from_user(ubuf, count, 0, &x);
	if (ret)
		return ret;
	ret = kp_target_fallible(x);
	kp_fallible_errno = ret < 0 ? -ret : 0;
	return ret < 0 ? ret : count;
}

static const struct file_operations kp_fallible_fops = {
	.owner = THIS_MODULE,
	.write = kp_fallible_write,
};

static ssize_t kp_call_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	unsigned long n, i;
	int ret;

	ret = kstrtoul_from_user(ubuf, count, 0, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		kp_result += kp_target_func((int)i);
	return count;
}

static const struct file_operations kp_call_fops = {
	.owner = THIS_MODULE,
	.write = kp_call_write,
};

static ssize_t kp_retcall_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	unsigned long n, i;
	int ret;

	ret = kstrtoul_from_user(ubuf, count, 0, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		kp_result += kp_target_ret((int)i);
	return count;
}

static const struct file_operations kp_retcall_fops = {
	.owner = THIS_MODULE,
	.write = kp_retcall_write,
};

static int __init kp_target_init(void)
{
	kp_dir = debugfs_create_dir("kp_target", NULL);
	debugfs_create_file("call", 0200, kp_dir, NULL, &kp_call_fops);
	debugfs_create_u64("result", 0400, kp_dir, &kp_result);
	debugfs_create_file("fallible", 0200, kp_dir, NULL, &kp_fallible_fops);
	debugfs_create_u32("fallible_errno", 0400, kp_dir, &kp_fallible_errno);
	debugfs_create_file("retcall", 0200, kp_dir, NULL, &kp_retcall_fops);
	debugfs_create_atomic_t("diverted", 0400, kp_dir, &kp_diverted);
	debugfs_create_file("block", 0200, kp_dir, NULL, &kp_block_fops);
	debugfs_create_file_unsafe("blocked", 0400, kp_dir, NULL,
				   &kp_blocked_fops);
	debugfs_create_file_unsafe("release", 0200, kp_dir, NULL,
				   &kp_release_fops);
	return 0;
}

static void __exit kp_target_exit(void)
{
	kp_release_set(NULL, 1);
	debugfs_remove_recursive(kp_dir);
}

module_init(kp_target_init);
module_exit(kp_target_exit);
MODULE_DESCRIPTION("kprobes workbench: a function to probe");
MODULE_LICENSE("GPL");
