// SPDX-License-Identifier: GPL-2.0
/*
 * kp_fx_modtarget: the module kp_fx_modrace probes while it loads.  Its
 * int parameter "val" makes the load fail after the COMING notification
 * when it is not a number (insmod kp_fx_modtarget.ko val=x): the module
 * goes GOING and its text is freed.
 */
#include <linux/module.h>
#include <linux/compiler.h>

static int kp_fx_val;
module_param_named(val, kp_fx_val, int, 0444);

int kp_fx_modtarget_func(int x);

/*
 * notrace: no ftrace site at its entry, so the probe is a breakpoint;
 * global, so that it keeps its name.
 */
noinline notrace int kp_fx_modtarget_func(int x)
{
	return x * 3 + READ_ONCE(kp_fx_val);
}

static int __init kp_fx_modtarget_init(void)
{
	return kp_fx_modtarget_func(1) == INT_MIN ? -EINVAL : 0;
}

module_init(kp_fx_modtarget_init);
MODULE_DESCRIPTION("kprobes workbench: a module probed while it loads");
MODULE_LICENSE("GPL");
