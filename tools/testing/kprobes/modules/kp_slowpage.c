// SPDX-License-Identifier: GPL-2.0
/*
 * kp_slowpage: a page whose first touch waits, to hold a task inside
 * copy_from_user() as a userfaultfd or FUSE page would.
 *
 * /sys/kernel/debug/kp_slowpage/page can be mmap()ed (one page, read
 * only); the first read of the mapping waits until 1 is written to
 * .../release, then finds a page of newlines (empty lines to a tracefs
 * command file).  .../waiting counts the tasks waiting in it.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/wait.h>
#include <linux/atomic.h>
#include <linux/string.h>

static struct dentry *kp_dir;
static DECLARE_WAIT_QUEUE_HEAD(kp_slow_wq);
static bool kp_slow_released;
static atomic_t kp_slow_waiting;

static vm_fault_t kp_slow_fault(struct vm_fault *vmf)
{
	struct page *page;
	int ret;

	atomic_inc(&kp_slow_waiting);
	ret = wait_event_killable(kp_slow_wq, READ_ONCE(kp_slow_released));
	atomic_dec(&kp_slow_waiting);
	if (ret)
		return VM_FAULT_SIGBUS;
	page = alloc_page(GFP_KERNEL);
	if (!page)
		return VM_FAULT_OOM;
	memset(page_address(page), '\n', PAGE_SIZE);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct kp_slow_vm_ops = {
	.fault = kp_slow_fault,
};

static int kp_slow_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (vma->vm_flags & (VM_WRITE | VM_SHARED))
		return -EPERM;
	if (vma->vm_pgoff || vma_pages(vma) != 1)
		return -EINVAL;
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vm_flags_clear(vma, VM_MAYWRITE);
	vma->vm_ops = &kp_slow_vm_ops;
	return 0;
}

static const struct file_operations kp_slow_fops = {
	.owner = THIS_MODULE,
	.mmap = kp_slow_mmap,
};

static int kp_slow_waiting_get(void *data, u64 *val)
{
	*val = atomic_read(&kp_slow_waiting);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(kp_slow_waiting_fops, kp_slow_waiting_get, NULL,
			 "%llu\n");

static int kp_slow_release_set(void *data, u64 val)
{
	WRITE_ONCE(kp_slow_released, !!val);
	if (val)
		wake_up_all(&kp_slow_wq);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(kp_slow_release_fops, NULL, kp_slow_release_set,
			 "%llu\n");

static int __init kp_slow_init(void)
{
	kp_dir = debugfs_create_dir("kp_slowpage", NULL);
	debugfs_create_file_unsafe("page", 0400, kp_dir, NULL, &kp_slow_fops);
	debugfs_create_file_unsafe("waiting", 0400, kp_dir, NULL,
				   &kp_slow_waiting_fops);
	debugfs_create_file_unsafe("release", 0200, kp_dir, NULL,
				   &kp_slow_release_fops);
	return 0;
}

static void __exit kp_slow_exit(void)
{
	kp_slow_release_set(NULL, 1);
	debugfs_remove_recursive(kp_dir);
}

module_init(kp_slow_init);
module_exit(kp_slow_exit);
MODULE_DESCRIPTION("A page that waits, for the kprobes workbench's tests");
MODULE_LICENSE("GPL");
