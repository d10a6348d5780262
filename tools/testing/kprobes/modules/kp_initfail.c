// SPDX-License-Identifier: GPL-2.0
/*
 * kp_initfail: a module whose init fails after kp_gonehit has put a
 * kprobe in its text (see kp_gonehit.c).  Loading it always fails with
 * -ENODEV; that is its purpose.
 */
#include <linux/module.h>
#include <linux/compiler.h>

int kp_gonehit_target(int (*fn)(int x));

static int kp_initfail_salt = 3;

/* notrace: no ftrace site at its entry, so the probe is a breakpoint */
static noinline notrace int kp_initfail_func(int x)
{
	return x * 2 + READ_ONCE(kp_initfail_salt);
}

static int __init kp_initfail_init(void)
{
	int ret = kp_gonehit_target(kp_initfail_func);

	if (ret)
		return ret;
	kp_initfail_func(1);
	return -ENODEV;
}

module_init(kp_initfail_init);
MODULE_DESCRIPTION("kprobes workbench: a module whose init fails");
MODULE_LICENSE("GPL");
