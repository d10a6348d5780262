// SPDX-License-Identifier: GPL-2.0
/* Clock investigation: the cost of a kprobe on ftrace with and without an
 * interrupt state change in its callback, and of a bare cli/sti pair. */
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/irqflags.h>
#include <linux/sched.h>

static unsigned long n = 20000;
module_param(n, ulong, 0444);
static int reps = 5;
module_param(reps, int, 0444);
static atomic_long_t hits;

noinline unsigned long kpc_target(unsigned long x)
{
	unsigned long a = x + 3, b = x ^ 0x5a5a;

	barrier();
	a = a * 7 + (b >> 3);
	b = (b << 2) - a;
	return a ^ b;
}

static int kpc_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_long_inc(&hits);
	return 0;
}

static struct kprobe kp = { .symbol_name = "kpc_target", .pre_handler = kpc_pre };

/* N calls, interrupts as they are (on) or off around chunks of 1000 */
static u64 calls(bool irqoff)
{
	unsigned long i, j, acc = 0, flags = 0;
	u64 t0 = ktime_get_ns();

	for (i = 0; i < n; i += 1000) {
		if (irqoff)
			local_irq_save(flags);
		for (j = i; j < i + 1000 && j < n; j++)
			acc += kpc_target(j);
		if (irqoff)
			local_irq_restore(flags);
		cond_resched();
	}
	OPTIMIZER_HIDE_VAR(acc);
	return ktime_get_ns() - t0;
}

/* N raw_local_irq_save/restore pairs, from interrupts on or off */
static u64 pairs(bool irqoff)
{
	unsigned long i, j, flags, outer = 0;
	u64 t0 = ktime_get_ns();

	for (i = 0; i < n; i += 1000) {
		if (irqoff)
			local_irq_save(outer);
		for (j = i; j < i + 1000 && j < n; j++) {
			raw_local_irq_save(flags);
			barrier();
			raw_local_irq_restore(flags);
		}
		if (irqoff)
			local_irq_restore(outer);
		cond_resched();
	}
	return ktime_get_ns() - t0;
}

static int __init kpc_init(void)
{
	int r, ret;
	u64 t[8];

	for (r = 0; r < reps; r++) {
		t[0] = calls(false);
		t[1] = calls(true);
		t[2] = pairs(false);
		t[3] = pairs(true);
		memset(&kp, 0, sizeof(kp));
		kp.symbol_name = "kpc_target";
		kp.pre_handler = kpc_pre;
		ret = register_kprobe(&kp);
		if (ret) {
			pr_warn("CLKRES error=%d\n", ret);
			return ret;
		}
		calls(false);
		atomic_long_set(&hits, 0);
		if (r & 1) {
			t[5] = calls(true);
			t[4] = calls(false);
		} else {
			t[4] = calls(false);
			t[5] = calls(true);
		}
		pr_warn("CLKRES rep=%d n=%lu flags=%x hits=%ld none_on=%llu none_off=%llu pair_on=%llu pair_off=%llu f_on=%llu f_off=%llu\n",
			r, n, kp.flags, atomic_long_read(&hits), t[0], t[1], t[2], t[3], t[4], t[5]);
		unregister_kprobe(&kp);
	}
	return 0;
}

static void __exit kpc_exit(void)
{
}

module_init(kpc_init);
module_exit(kpc_exit);
MODULE_LICENSE("GPL");
