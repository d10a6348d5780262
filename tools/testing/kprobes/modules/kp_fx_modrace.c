// SPDX-License-Identifier: GPL-2.0
/*
 * kp_fx_modrace: a kprobe registration racing a module whose load fails
 * (the test of patches/fixes' "Do not arm a probe in module text that is
 * going away"; guest test 95-fixes-modrace.sh).
 *
 * When kp_fx_modtarget is COMING, a kthread on CPU 1 registers a kprobe
 * in its text.  A kretprobe on jump_label_unlock() holds that kthread
 * right after register_kprobe() has checked the module (which takes
 * jump_label_lock()) and before it takes kprobe_mutex, until the
 * module's GOING notification has passed kprobes' own (this module's
 * notifier comes after it).  The load fails (a bad parameter), so the
 * text is freed once the notification is over; the notifier waits for
 * the registration to end first.
 *
 * Parameters (read-only): held = 1 when the registration was held in that
 * window until the GOING notification came, reg_ret = what
 * register_kprobe() returned (0: a probe armed in text being freed; the
 * probe is then left registered, never touched again).
 */
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/notifier.h>
#include <linux/completion.h>
#include <linux/timekeeping.h>
#include <linux/string.h>
#include <linux/cpumask.h>
#include <linux/sched.h>

static int held;
module_param(held, int, 0444);
static int reg_ret = 1;
module_param(reg_ret, int, 0444);

static struct task_struct *racer;
static bool armed, going_seen;
static DECLARE_COMPLETION(at_window);
static DECLARE_COMPLETION(reg_done);

static struct kprobe kp_race = {
	.symbol_name = "kp_fx_modtarget_func",
};

static int jl_unlock_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	u64 end;

	if (current != READ_ONCE(racer) || !READ_ONCE(armed))
		return 0;
	WRITE_ONCE(armed, false);
	complete(&at_window);
	end = ktime_get_mono_fast_ns() + 5 * NSEC_PER_SEC;
	while (!READ_ONCE(going_seen) && ktime_get_mono_fast_ns() < end)
		cpu_relax();
	held = READ_ONCE(going_seen);
	return 0;
}

static struct kretprobe krp_jl = {
	.kp.symbol_name = "jump_label_unlock",
	.handler = jl_unlock_ret,
	.maxactive = 16,
};

static int racer_fn(void *data)
{
	WRITE_ONCE(armed, true);
	reg_ret = register_kprobe(&kp_race);
	WRITE_ONCE(armed, false);
	complete(&reg_done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

static int kp_fx_modrace_module(struct notifier_block *nb, unsigned long val,
				void *data)
{
	struct module *mod = data;
	struct task_struct *t;

	if (strcmp(mod->name, "kp_fx_modtarget") || READ_ONCE(reg_ret) != 1)
		return NOTIFY_DONE;
	if (val == MODULE_STATE_COMING && !racer) {
		if (num_online_cpus() < 2)
			return NOTIFY_DONE;
		/* the loader on CPU 0, the racer on CPU 1 */
		set_cpus_allowed_ptr(current, cpumask_of(0));
		t = kthread_create(racer_fn, NULL, "kp_fx_racer");
		if (IS_ERR(t))
			return NOTIFY_DONE;
		kthread_bind(t, 1);
		WRITE_ONCE(racer, t);
		wake_up_process(t);
		wait_for_completion_timeout(&at_window, 5 * HZ);
	} else if (val == MODULE_STATE_GOING && racer) {
		/* after kprobes' notifier: let the registration go on */
		WRITE_ONCE(going_seen, true);
		wait_for_completion_timeout(&reg_done, 5 * HZ);
	}
	return NOTIFY_DONE;
}

/* After kprobes' own module notifier (priority 0). */
static struct notifier_block kp_fx_modrace_nb = {
	.notifier_call = kp_fx_modrace_module,
	.priority = -100,
};

static int __init kp_fx_modrace_init(void)
{
	int ret = register_kretprobe(&krp_jl);

	if (ret)
		return ret;
	ret = register_module_notifier(&kp_fx_modrace_nb);
	if (ret)
		unregister_kretprobe(&krp_jl);
	return ret;
}

/* No exit: a probe armed in freed text must never be touched again. */
module_init(kp_fx_modrace_init);
MODULE_DESCRIPTION("kprobes workbench: registration racing a failed module load");
MODULE_LICENSE("GPL");
