// SPDX-License-Identifier: GPL-2.0-only
/*
 * jprobe_example: call a handler with the arguments of a kernel function
 * each time it is entered.
 *
 *	insmod jprobe_example.ko symbol=kernel_clone
 *
 * A jprobe handler has the probed function's prototype and ends with
 * jprobe_return().  To probe any function this sample declares six
 * unsigned long parameters, which on x86_64 and arm64 receive the first
 * six integer or pointer arguments whatever their types; a handler for
 * one function would declare that function's own prototype.  The handler
 * runs with preemption disabled and must not sleep.
 */
#define pr_fmt(fmt) "jprobe_example: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/kprobes.h>

static char symbol[KSYM_NAME_LEN] = "kernel_clone";
module_param_string(symbol, symbol, sizeof(symbol), 0444);
MODULE_PARM_DESC(symbol, "function to probe (default kernel_clone)");

static unsigned long hits;
module_param(hits, ulong, 0444);
MODULE_PARM_DESC(hits, "times the handler ran");

static long example_entry(unsigned long a0, unsigned long a1,
			  unsigned long a2, unsigned long a3,
			  unsigned long a4, unsigned long a5)
{
	hits++;
	pr_info_ratelimited("<%s> called: args %lx %lx %lx %lx %lx %lx\n",
			    symbol, a0, a1, a2, a3, a4, a5);
	/* Back to the probed function, with the arguments it was given. */
	jprobe_return();
	return 0;
}

static struct jprobe example_jprobe = {
	.entry = example_entry,
};

static int __init jprobe_example_init(void)
{
	int ret;

	example_jprobe.kp.symbol_name = symbol;
	ret = register_jprobe(&example_jprobe);
	if (ret < 0) {
		pr_err("cannot put a jprobe on %s: %d\n", symbol, ret);
		return ret;
	}
	pr_info("jprobe planted at %pS\n", example_jprobe.kp.addr);
	return 0;
}

static void __exit jprobe_example_exit(void)
{
	unregister_jprobe(&example_jprobe);
	pr_info("jprobe on %s removed after %lu calls, %lu missed\n", symbol,
		hits, example_jprobe.kp.nmissed);
}

module_init(jprobe_example_init);
module_exit(jprobe_example_exit);
MODULE_DESCRIPTION("Example of a jprobe: a function's arguments at its entry");
MODULE_LICENSE("GPL");
