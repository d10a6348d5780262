// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprobe_example: put a kprobe on a kernel function and report each hit.
 *
 *	insmod kprobe_example.ko symbol=kernel_clone [offset=N]
 *
 * The pre-handler runs before the probed instruction, the post-handler
 * after it (a post-handler makes the probe take the slower single-step
 * path; drop it to see a boosted or optimized probe in kprobes/list).
 * Both print to the kernel log, rate-limited, so `dmesg` shows them.
 */
#define pr_fmt(fmt) "kprobe_example: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>

static char symbol[KSYM_NAME_LEN] = "kernel_clone";
module_param_string(symbol, symbol, sizeof(symbol), 0644);
MODULE_PARM_DESC(symbol, "function to probe (default kernel_clone)");

static unsigned int offset;
module_param(offset, uint, 0444);
MODULE_PARM_DESC(offset, "offset of the probed instruction in the function");

static bool post = true;
module_param(post, bool, 0444);
MODULE_PARM_DESC(post, "also register a post-handler (default yes)");

/*
 * The first argument, as the function sees it at its entry (at another
 * offset the register may hold something else by then).  Only the
 * architectures with HAVE_FUNCTION_ARG_ACCESS_API can tell, and a module
 * cannot ask on s390, whose regs_get_register() is not exported.
 */
static unsigned long example_arg0(struct pt_regs *regs)
{
#if defined(CONFIG_HAVE_FUNCTION_ARG_ACCESS_API) && !defined(CONFIG_S390)
	return regs_get_kernel_argument(regs, 0);
#else
	return 0;
#endif
}

static int example_pre(struct kprobe *p, struct pt_regs *regs)
{
	pr_info_ratelimited("<%s> pre_handler: p->addr = %pS, ip = %lx, arg0 = %lx\n",
			    p->symbol_name, p->addr, instruction_pointer(regs),
			    example_arg0(regs));
	/* Zero: go on and run the probed instruction. */
	return 0;
}

static void example_post(struct kprobe *p, struct pt_regs *regs,
			 unsigned long flags)
{
	pr_info_ratelimited("<%s> post_handler: p->addr = %pS, ip = %lx\n",
			    p->symbol_name, p->addr, instruction_pointer(regs));
}

static struct kprobe example_probe = {
	.pre_handler = example_pre,
};

static int __init kprobe_example_init(void)
{
	int ret;

	example_probe.symbol_name = symbol;
	example_probe.offset = offset;
	if (post)
		example_probe.post_handler = example_post;
	ret = register_kprobe(&example_probe);
	if (ret < 0) {
		pr_err("cannot probe %s+%u: %d\n", symbol, offset, ret);
		return ret;
	}
	pr_info("probe planted at %pS (%px)\n", example_probe.addr,
		example_probe.addr);
	return 0;
}

static void __exit kprobe_example_exit(void)
{
	unregister_kprobe(&example_probe);
	pr_info("probe at %s removed; missed %lu hits\n", symbol,
		example_probe.nmissed);
}

module_init(kprobe_example_init);
module_exit(kprobe_example_exit);
MODULE_DESCRIPTION("Example of a kprobe with pre- and post-handlers");
MODULE_LICENSE("GPL");
