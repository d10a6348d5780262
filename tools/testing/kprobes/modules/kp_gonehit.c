// SPDX-License-Identifier: GPL-2.0
/*
 * kp_gonehit: a probe in the text of a module whose init fails.
 *
 * kp_initfail's init hands kp_gonehit_target() one of its functions,
 * which gets a kprobe here (a breakpoint: the function is notrace and the
 * probe has a post_handler, so it is never optimized), calls it once and
 * fails.  On that module's GOING notification, which comes after kprobes'
 * own (kprobes marks the probe GONE there) and before the module's text
 * is freed, the function is called once more: its breakpoint is still in
 * the text, and the trap must still be handled (the handlers no longer
 * run).  Counters in /sys/module/kp_gonehit/parameters: hits (pre_handler
 * runs), going_calls (calls from the GOING notification), gone_seen (of
 * those, calls that found the probe GONE).  Uses only the public API.
 */
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/notifier.h>
#include <linux/string.h>

static int hits;
module_param(hits, int, 0444);
static int going_calls;
module_param(going_calls, int, 0444);
static int gone_seen;
module_param(gone_seen, int, 0444);

static int (*kp_gonehit_fn)(int x);
static bool kp_gonehit_registered;
static DEFINE_MUTEX(kp_gonehit_lock);

static int kp_gonehit_pre(struct kprobe *p, struct pt_regs *regs)
{
	WRITE_ONCE(hits, READ_ONCE(hits) + 1);
	return 0;
}

static void kp_gonehit_post(struct kprobe *p, struct pt_regs *regs,
			    unsigned long flags)
{
}

static struct kprobe kp = {
	.pre_handler = kp_gonehit_pre,
	.post_handler = kp_gonehit_post,
};

/**
 * kp_gonehit_target() - probe @fn, to be called again when its module goes
 * @fn: a function of the calling module (notrace: no ftrace site)
 *
 * Return: 0 or the error of register_kprobe().
 */
int kp_gonehit_target(int (*fn)(int x))
{
	int ret;

	mutex_lock(&kp_gonehit_lock);
	if (kp_gonehit_registered)
		unregister_kprobe(&kp);
	kp_gonehit_registered = false;
	memset(&kp, 0, sizeof(kp));
	kp.addr = (kprobe_opcode_t *)fn;
	kp.pre_handler = kp_gonehit_pre;
	kp.post_handler = kp_gonehit_post;
	ret = register_kprobe(&kp);
	if (!ret) {
		kp_gonehit_registered = true;
		kp_gonehit_fn = fn;
	}
	mutex_unlock(&kp_gonehit_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(kp_gonehit_target);

static int kp_gonehit_module(struct notifier_block *nb, unsigned long val,
			     void *data)
{
	struct module *mod = data;
	int (*fn)(int x);

	if (val != MODULE_STATE_GOING || strcmp(mod->name, "kp_initfail"))
		return NOTIFY_DONE;
	mutex_lock(&kp_gonehit_lock);
	fn = kp_gonehit_fn;
	kp_gonehit_fn = NULL;
	if (fn) {
		if (kprobe_gone(&kp))
			gone_seen++;
		/* The text is still mapped, the breakpoint still in it. */
		fn(1);
		going_calls++;
	}
	mutex_unlock(&kp_gonehit_lock);
	return NOTIFY_DONE;
}

/* After kprobes' own module notifier (priority 0). */
static struct notifier_block kp_gonehit_nb = {
	.notifier_call = kp_gonehit_module,
	.priority = -100,
};

static int __init kp_gonehit_init(void)
{
	return register_module_notifier(&kp_gonehit_nb);
}

static void __exit kp_gonehit_exit(void)
{
	unregister_module_notifier(&kp_gonehit_nb);
	if (kp_gonehit_registered)
		unregister_kprobe(&kp);
}

module_init(kp_gonehit_init);
module_exit(kp_gonehit_exit);
MODULE_DESCRIPTION("kprobes workbench: a probe in a module whose init fails");
MODULE_LICENSE("GPL");
