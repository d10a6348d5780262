/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Return probes.  Included by <linux/kprobes.h> only, after struct kprobe.
 *
 * A kretprobe is a kprobe on a function's entry whose pre-handler swaps
 * the return address for the address of an architecture trampoline.  When
 * the function returns, the trampoline builds a pt_regs as at the return,
 * runs the probe's handler and goes on to the original return address.
 * Each watched call is described by a kretprobe_instance taken from a
 * pool the probe preallocates at registration, or, when all of those are
 * in use, from storage of the calling task; pending instances hang on
 * their task's kretprobe_instances list, newest first.
 *
 * The public names below are interface used by kernel/trace/trace_kprobe.c,
 * kernel/exit.c, kernel/fork.c, arch/arm64/kernel/stacktrace.c and the x86
 * unwinders and keep their meaning.
 */
#ifndef _LINUX_KRETPROBES_H
#define _LINUX_KRETPROBES_H

#ifndef _LINUX_KPROBES_H
#error "include <linux/kprobes.h>, not <linux/kretprobes.h>"
#endif

#include <linux/llist.h>

struct kretprobe_instance;
struct kretprobe_pool;
struct kretprobe_store;
struct task_struct;
struct pt_regs;

typedef int (*kretprobe_handler_t)(struct kretprobe_instance *,
				   struct pt_regs *);

/*
 * Limits of register_kretprobe(): more instances or bigger instances than
 * this are refused with -E2BIG, as is a pool of more than
 * KRETPROBE_POOL_BYTES_MAX bytes in all.
 */
#define KRETPROBE_INSTANCES_MAX		65536
#define KRETPROBE_DATA_SIZE_MAX		4096
#define KRETPROBE_POOL_BYTES_MAX	(64UL << 20)

/**
 * struct kretprobe - a return probe
 * @kp: the probe on the function's entry
 * @handler: called when the probed function returns
 * @entry_handler: called at entry; non-zero means "do not watch this return"
 * @maxactive: instances preallocated (<= 0: a default, written back at
 *	registration); more calls at once take instances from the calling
 *	task's storage
 * @nmissed: returns not watched because no instance was free in the pool
 *	and the calling task's storage had no room (a call while another
 *	kprobe runs on its CPU counts in @kp.nmissed)
 * @data_size: bytes of private data in each instance
 * @pool: private to the implementation
 * @rh: instead of @pool with CONFIG_KRETPROBE_ON_RETHOOK: the rethook
 *	the instances come from
 */
struct kretprobe {
	struct kprobe kp;
	kretprobe_handler_t handler;
	kretprobe_handler_t entry_handler;
	size_t data_size;
	int maxactive;
	int nmissed;
#ifdef CONFIG_KRETPROBE_ON_RETHOOK
	struct rethook *rh;
#else
	struct kretprobe_pool *pool;
#endif
};

/**
 * struct kretprobe_instance - one watched call of a probed function
 * @llist: link on the task's kretprobe_instances
 * @pool: the owning probe's pool
 * @ret_addr: the return address the trampoline replaced
 * @fp: where the return was hijacked: on x86 the stack slot of the return
 *	address, on arm64 the caller's frame pointer at the entry
 * @task: the task that made the call
 * @store: the chunk of the task's storage the instance was carved from,
 *	or NULL for an instance of the pool
 * @node: instead of the fields above with CONFIG_KRETPROBE_ON_RETHOOK:
 *	the instance as a rethook shadow-stack entry
 * @data: @data_size bytes of private data
 */
struct kretprobe_instance {
#ifdef CONFIG_KRETPROBE_ON_RETHOOK
	struct rethook_node node;
#else
	struct llist_node llist;
	struct kretprobe_pool *pool;
	kprobe_opcode_t *ret_addr;
	void *fp;
	struct task_struct *task;
	struct kretprobe_store *store;
#endif
	char data[];
};

#ifdef CONFIG_KRETPROBES
int register_kretprobe(struct kretprobe *rp);
int register_kretprobes(struct kretprobe **rps, int num);
int disable_kretprobe(struct kretprobe *rp);
int enable_kretprobe(struct kretprobe *rp);
void unregister_kretprobes(struct kretprobe **rps, int num);
void unregister_kretprobe(struct kretprobe *rp);
/* From a handler: the probe and the real return address of an instance */
struct kretprobe *get_kretprobe(struct kretprobe_instance *ri);
unsigned long get_kretprobe_retaddr(struct kretprobe_instance *ri);
void kprobe_flush_task(struct task_struct *tk);
bool is_kretprobe_trampoline(unsigned long addr);
unsigned long kretprobe_find_ret_addr(struct task_struct *tsk, void *fp,
				      struct llist_node **cur);

/*
 * Architecture side.  The arch provides the trampoline (entered by the
 * probed function's own return instruction, never called), the hijack of
 * the return address at the entry, and may refuse functions whose return
 * cannot be watched.  Its trampoline calls kretprobe_trampoline_return()
 * with a pt_regs as at the return (and where the return address lay in
 * memory, if it did), and goes on to the address that returns.
 */
void kretprobe_trampoline(void);
void arch_kretprobe_hijack(struct kretprobe_instance *ri,
			   struct pt_regs *regs);
bool arch_kretprobe_refused(unsigned long func);
unsigned long kretprobe_trampoline_return(struct pt_regs *regs, void *fp,
					  unsigned long *slot);
struct kretprobe_instance *
kretprobe_find_instance(struct llist_node *first, void *fp,
			struct kretprobe_instance **last);
#else
static inline int register_kretprobe(struct kretprobe *rp)
{
	return -EOPNOTSUPP;
}

static inline void unregister_kretprobe(struct kretprobe *rp)
{
}

static inline int register_kretprobes(struct kretprobe **rps, int num)
{
	return -EOPNOTSUPP;
}

static inline void unregister_kretprobes(struct kretprobe **rps, int num)
{
}

static inline int enable_kretprobe(struct kretprobe *rp)
{
	return -EOPNOTSUPP;
}

static inline int disable_kretprobe(struct kretprobe *rp)
{
	return -EOPNOTSUPP;
}

static inline struct kretprobe *get_kretprobe(struct kretprobe_instance *ri)
{
	return NULL;
}

static inline unsigned long get_kretprobe_retaddr(struct kretprobe_instance *ri)
{
	return 0;
}

static inline void kprobe_flush_task(struct task_struct *tk)
{
}

static inline bool is_kretprobe_trampoline(unsigned long addr)
{
	return false;
}

static inline unsigned long
kretprobe_find_ret_addr(struct task_struct *tsk, void *fp,
			struct llist_node **cur)
{
	return 0;
}
#endif /* CONFIG_KRETPROBES */

#endif /* _LINUX_KRETPROBES_H */
