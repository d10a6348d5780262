// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Return probes on rethook (CONFIG_KRETPROBE_ON_RETHOOK): the
 * architectures of CONFIG_KPROBES_COMPAT that have rethook (riscv, s390,
 * loongarch, powerpc) hijack returns through it, with their own
 * arch_rethook_prepare() and trampoline, instead of kernel/kretprobes.c.
 *
 * A kretprobe owns one rethook; its instances are the rethook's nodes,
 * each followed by the probe's private data.  The entry probe takes a
 * node and hooks the return; rethook calls kretprobe_rethook_return()
 * when the function returns and recycles the node.  Unregistering frees
 * the rethook, which stops calling us at once and lives until its last
 * node in flight has come home.
 */
#define pr_fmt(fmt) "kretprobe: " fmt

#include <linux/kprobes.h>
#include <linux/rethook.h>
#include <linux/rcupdate.h>
#include <linux/err.h>
#include <linux/export.h>

#include "kprobes_internal.h"

static void kretprobe_rethook_return(struct rethook_node *node, void *data,
				     unsigned long ret_addr,
				     struct pt_regs *regs)
{
	struct kprobe *cur = kprobe_running();
	struct kretprobe_instance *ri;
	struct kretprobe *rp = data;

	/*
	 * Returns from inside another probe's handlers run no handler.
	 * powerpc takes every return in the pre_handler of a probe on its
	 * trampoline (arch_trampoline_kprobe()): that one is the return.
	 */
	if (unlikely(cur) && !arch_trampoline_kprobe(cur)) {
		rp->nmissed++;
		return;
	}
	/*
	 * A kretprobe may have only an entry_handler (the instance then
	 * carries nothing back): its returns are still hooked, since the
	 * entry_handler may want the instance, and end here.
	 */
	if (!rp->handler)
		return;
	ri = container_of(node, struct kretprobe_instance, node);
	__this_cpu_write(current_kprobe, &rp->kp);
	kprobe_set_status(KPROBE_HIT_ACTIVE);
	rp->handler(ri, regs);
	__this_cpu_write(current_kprobe, cur);
}

NOKPROBE_SYMBOL(kretprobe_rethook_return);

/* The pre-handler of every kretprobe's kprobe. */
static int kretprobe_rethook_entry(struct kprobe *kp, struct pt_regs *regs)
{
	struct kretprobe *rp = container_of(kp, struct kretprobe, kp);
	struct kretprobe_instance *ri;
	struct rethook_node *node;

	node = rethook_try_get(rp->rh);
	if (unlikely(!node)) {
		rp->nmissed++;
		return 0;
	}
	ri = container_of(node, struct kretprobe_instance, node);
	if (rp->entry_handler && rp->entry_handler(ri, regs)) {
		rethook_recycle(node);
		return 0;
	}
	/* An ftrace-based probe sees the registers of the mcount call. */
	rethook_hook(node, regs, kprobe_ftrace(kp));
	return 0;
}

NOKPROBE_SYMBOL(kretprobe_rethook_entry);

/**
 * register_kretprobe() - watch the returns of a function
 * @rp: the kretprobe; @rp->kp names the function's entry
 *
 * As kernel/kretprobes.c's, with the instances taken from a rethook.
 *
 * Return: 0; -EINVAL for a NULL or registered @rp, a flag other than
 * KPROBE_FLAG_DISABLED or an address that is no function entry; -E2BIG
 * for a @rp->maxactive, @rp->data_size or pool over the limits; -ENOMEM;
 * or an error of register_kprobe().
 */
int register_kretprobe(struct kretprobe *rp)
{
	struct rethook *rh;
	size_t size;
	int nr, ret;

	if (!rp || kprobe_registered(&rp->kp) ||
	    (rp->kp.flags & ~KPROBE_FLAG_DISABLED))
		return -EINVAL;
	ret = kprobe_on_func_entry(rp->kp.addr, rp->kp.symbol_name,
				   rp->kp.offset);
	if (ret)
		return ret;
	if (rp->maxactive > 0)
		nr = rp->maxactive;
	else if (IS_ENABLED(CONFIG_PREEMPTION))
		nr = max_t(int, 10, 2 * num_possible_cpus());
	else
		nr = num_possible_cpus();
	size = sizeof(struct kretprobe_instance) + rp->data_size;
	if (nr > KRETPROBE_INSTANCES_MAX ||
	    rp->data_size > KRETPROBE_DATA_SIZE_MAX ||
	    (size_t)nr * size > KRETPROBE_POOL_BYTES_MAX)
		return -E2BIG;

	rh = rethook_alloc(rp, kretprobe_rethook_return, size, nr);
	if (IS_ERR(rh))
		return PTR_ERR(rh);
	rp->rh = rh;
	rp->nmissed = 0;
	rp->kp.pre_handler = kretprobe_rethook_entry;
	rp->kp.post_handler = NULL;
	rp->kp.fault_handler = NULL;

	ret = kprobe_register_as(&rp->kp, KPROBE_FLAG_RETPROBE);
	if (ret) {
		rp->rh = NULL;
		rethook_free(rh);
	}
	return ret;
}
EXPORT_SYMBOL_GPL(register_kretprobe);

/**
 * register_kretprobes() - register several kretprobes
 * @rps: the kretprobes
 * @num: how many
 *
 * Return: 0, -EINVAL for a NULL @rps or @num <= 0, or the first error of
 * register_kretprobe() (those registered before it are unregistered).
 */
int register_kretprobes(struct kretprobe **rps, int num)
{
	int i, ret = 0;

	if (!rps || num <= 0)
		return -EINVAL;
	for (i = 0; i < num && !ret; i++)
		ret = register_kretprobe(rps[i]);
	if (ret && i > 1)
		unregister_kretprobes(rps, i - 1);
	return ret;
}
EXPORT_SYMBOL_GPL(register_kretprobes);

/**
 * unregister_kretprobes() - unregister several kretprobes
 * @rps: the kretprobes; NULL entries and unregistered ones are skipped
 * @num: how many
 *
 * When this returns no handler of @rps runs any more; returns in flight
 * still go back where they should, through the rethook that outlives
 * the kretprobes.
 */
void unregister_kretprobes(struct kretprobe **rps, int num)
{
	int i;

	if (!rps || num <= 0)
		return;
	for (i = 0; i < num; i++) {
		if (!rps[i])
			continue;
		if (!kprobe_registered(&rps[i]->kp)) {
			rps[i]->rh = NULL;
			continue;
		}
		rethook_stop(rps[i]->rh);
	}
	kretprobe_unregister_begin_many(rps, num);
	synchronize_rcu();
	for (i = 0; i < num; i++) {
		if (!rps[i] || !rps[i]->rh)
			continue;
		kprobe_unregister_end(&rps[i]->kp);
		rethook_free(rps[i]->rh);
		rps[i]->rh = NULL;
	}
}
EXPORT_SYMBOL_GPL(unregister_kretprobes);

/**
 * unregister_kretprobe() - unregister a kretprobe
 * @rp: the kretprobe
 */
void unregister_kretprobe(struct kretprobe *rp)
{
	unregister_kretprobes(&rp, 1);
}
EXPORT_SYMBOL_GPL(unregister_kretprobe);

/**
 * enable_kretprobe() - arm a disabled kretprobe again
 * @rp: the kretprobe
 *
 * Return: 0 or the error of enable_kprobe().
 */
int enable_kretprobe(struct kretprobe *rp)
{
	return enable_kprobe(&rp->kp);
}
EXPORT_SYMBOL_GPL(enable_kretprobe);

/**
 * disable_kretprobe() - stop watching new calls
 * @rp: the kretprobe
 *
 * Return: 0 or the error of disable_kprobe().
 */
int disable_kretprobe(struct kretprobe *rp)
{
	return disable_kprobe(&rp->kp);
}
EXPORT_SYMBOL_GPL(disable_kretprobe);

/**
 * get_kretprobe() - the kretprobe of an instance
 * @ri: the instance, as passed to a handler
 *
 * Return: the kretprobe, or NULL once it is being unregistered.
 */
struct kretprobe *get_kretprobe(struct kretprobe_instance *ri)
{
	struct rethook *rh = ri->node.rethook;

	return rcu_access_pointer(rh->handler) ? rh->data : NULL;
}
EXPORT_SYMBOL_GPL(get_kretprobe);
NOKPROBE_SYMBOL(get_kretprobe);

/**
 * get_kretprobe_retaddr() - where the function of an instance returns to
 * @ri: the instance, as passed to a handler
 *
 * Return: the original return address the trampoline replaced.
 */
unsigned long get_kretprobe_retaddr(struct kretprobe_instance *ri)
{
	return ri->node.ret_addr;
}
EXPORT_SYMBOL_GPL(get_kretprobe_retaddr);
NOKPROBE_SYMBOL(get_kretprobe_retaddr);

/**
 * is_kretprobe_trampoline() - is @addr the return trampoline?
 * @addr: a return address found on a stack
 *
 * Return: true if @addr is rethook's trampoline.
 */
bool is_kretprobe_trampoline(unsigned long addr)
{
	return is_rethook_trampoline(addr);
}

NOKPROBE_SYMBOL(is_kretprobe_trampoline);

/**
 * kretprobe_find_ret_addr() - the real return address behind a trampoline
 * @tsk: the task whose stack is unwound
 * @fp: the frame the unwinder met the trampoline in
 * @cur: unwinder state (NULL at the start)
 *
 * Return: the original return address, or 0.
 */
unsigned long kretprobe_find_ret_addr(struct task_struct *tsk, void *fp,
				      struct llist_node **cur)
{
	return rethook_find_ret_addr(tsk, (unsigned long)fp, cur);
}
EXPORT_SYMBOL_GPL(kretprobe_find_ret_addr);
NOKPROBE_SYMBOL(kretprobe_find_ret_addr);

/**
 * kprobe_flush_task() - recycle the instances of a dead task
 * @tk: the task
 *
 * Nothing to do: rethook_flush_task() recycles its nodes.
 */
void kprobe_flush_task(struct task_struct *tk)
{
}

NOKPROBE_SYMBOL(kprobe_flush_task);
