// SPDX-License-Identifier: GPL-2.0-only
/*
 * kretprobe_example: time a kernel function and report what it returns.
 *
 *	insmod kretprobe_example.ko func=kernel_clone
 *
 * The entry handler stamps the time into the instance's private data;
 * the return handler prints the return value and the time the call took.
 */
#define pr_fmt(fmt) "kretprobe_example: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/ptrace.h>

static char func[KSYM_NAME_LEN] = "kernel_clone";
module_param_string(func, func, sizeof(func), 0644);
MODULE_PARM_DESC(func, "function to time (default kernel_clone)");

static int maxactive;
module_param(maxactive, int, 0444);
MODULE_PARM_DESC(maxactive, "calls watched at once (0: a default)");

struct call_stamp {
	ktime_t entered;
};

static int on_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct call_stamp *stamp = (struct call_stamp *)ri->data;

	/* Calls from kernel threads are not worth timing here. */
	if (!current->mm)
		return 1;
	stamp->entered = ktime_get();
	return 0;
}

static int on_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct call_stamp *stamp = (struct call_stamp *)ri->data;
	s64 ns = ktime_to_ns(ktime_sub(ktime_get(), stamp->entered));

	pr_info_ratelimited("%s returned %lu and took %lld ns to execute\n",
			    func, regs_return_value(regs), ns);
	return 0;
}

static struct kretprobe timing_probe = {
	.handler = on_return,
	.entry_handler = on_entry,
	.data_size = sizeof(struct call_stamp),
};

static int __init kretprobe_example_init(void)
{
	int ret;

	timing_probe.kp.symbol_name = func;
	timing_probe.maxactive = maxactive;
	ret = register_kretprobe(&timing_probe);
	if (ret < 0) {
		pr_err("cannot probe the return of %s: %d\n", func, ret);
		return ret;
	}
	pr_info("return probe planted on %s\n", func);
	return 0;
}

static void __exit kretprobe_example_exit(void)
{
	unregister_kretprobe(&timing_probe);
	pr_info("return probe on %s removed; missed %d calls\n", func,
		timing_probe.nmissed);
}

module_init(kretprobe_example_init);
module_exit(kretprobe_example_exit);
MODULE_DESCRIPTION("Example of a kretprobe timing a function");
MODULE_LICENSE("GPL");
