// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe_bench: what kprobes cost, measured through their public API
 * only, so that the same module measures any kernel that has kprobes.
 *
 * Load it (insmod kprobe_bench.ko), write a command to
 * /sys/kernel/debug/kprobe_bench/ctl, then read that file: it holds the
 * result of the last command as "key=value" pairs.  Times are in
 * nanoseconds (ktime_get_ns()), "hits" is what the handlers counted,
 * "missed" what the probe missed (its nmissed) during the command.  For
 * example, the cost of a hit on a probe that runs without a second trap:
 *
 *	cd /sys/kernel/debug/kprobe_bench
 *	echo 0 > /proc/sys/debug/kprobes-optimization
 *	echo "run 100000" > ctl; cat ctl	# the unprobed calls
 *	echo "arm b" > ctl; cat ctl
 *	echo state > ctl; cat ctl		# state=trap
 *	echo "run 100000" > ctl; cat ctl	# the same calls, probed
 *	echo disarm > ctl
 *
 * The difference of the two "run" times divided by the calls is the
 * cost of one hit.
 *
 * Commands:
 *   arm KIND      plant one probe of KIND (replacing the armed one):
 *                   k   kprobe with a post_handler inside kpb_target()
 *                   b   the same without post_handler: boosted (no
 *                       second trap) where the architecture can, or
 *                       jump-optimized when the kprobes-optimization
 *                       sysctl allows
 *                   f   kprobe at kpb_target()'s entry, its ftrace site
 *                       (kprobes on ftrace)
 *                   r   kretprobe on kpb_target_nt(), which has no ftrace
 *                       site: its entry probe is a breakpoint, or a jump
 *                       once optimized
 *                   rf  kretprobe on kpb_target() (entry on ftrace)
 *                   rs  kretprobe with the default maxactive on
 *                       kpb_sleeper(), which has no ftrace site and
 *                       sleeps (command "sleep")
 *                   j   jprobe on kpb_target(), where the kernel has jprobes
 *                 result: kind, ret (0 or the error of the registration)
 *                 and the probe's offset in kpb_target() (k, b)
 *   disarm        remove it
 *   state         the text at the armed probe's address, and what it is:
 *                 trap (int3, BRK), jump (jmp rel32, B) or ftrace (the
 *                 call of an ftrace site), else other.  Read from the
 *                 text itself, the same way on every kernel (kprobes/list
 *                 may show [OPTIMIZED] as soon as the probe is queued
 *                 for optimization, before its jump is written)
 *   run N [nt]    call the armed probe's function N times (unarmed:
 *                 kpb_target(), or kpb_target_nt() with "nt"); says how
 *                 long the calls took, how many hits the handlers
 *                 counted and how many the probe missed meanwhile
 *   mt N [nt]     as run, N times on every online CPU at once
 *   sleep N [S]   S kthreads (default KPB_SLEEPERS) call kpb_sleeper()
 *                 N + 1 times each, in rounds: each round, all S are
 *                 asleep inside it at once before they are released.
 *                 Timed: from the moment the first round is all inside
 *                 until the last one is (N calls each); says how many
 *                 hits the handlers counted and how many the probe
 *                 missed over all the calls (entry_missed: of those,
 *                 the ones its entry probe missed)
 *   reg N MODE    register then unregister N kprobes on N distinct
 *                 functions, MODE one (one call each) or batch
 *                 (register_kprobes(), unregister_kprobes())
 *   opt N S       register N kprobes (one batch) inside N distinct
 *                 functions, past their ftrace sites, where they can be
 *                 optimized, and wait (at most S seconds) until the text
 *                 of every one of them holds a jump: how long since their
 *                 registration began.  They stay until "optfree".
 *   optfree       unregister the probes of "opt"
 *   fns N         call each of the first N registration functions
 *                 (kpb_fn_1000 ...) once, through the table: what
 *                 probes put on them from user space (perf, kprobe
 *                 events) see as hits
 *   trace MS [nt] one call of the armed probe's function (as "run"),
 *                 after an untraced one (the steady state), framed for
 *                 an instruction tracer outside the kernel (an
 *                 emulator's execution log): "KPBTRACE on" on the
 *                 console, MS milliseconds for the tracer to start, the
 *                 call, "KPBTRACE off" and MS more to stop it; the
 *                 result gives the address where the traced call starts
 *                 (fn) and the one it returns to (ret)
 */
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/debugfs.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/ktime.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/wait.h>
#include "kprobe_bench.h"

static DEFINE_MUTEX(kpb_lock);
static char kpb_result[256];
static atomic_long_t kpb_hits;
/* the armed kind ("" when none), and whether its function is the notrace one */
static char kpb_kind[4];
static bool kpb_nt;
static unsigned int kpb_offset;

static int kpb_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_long_inc(&kpb_hits);
	return 0;
}

static void kpb_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
}

static int kpb_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_long_inc(&kpb_hits);
	return 0;
}

static struct kprobe kpb_kp;
static struct kretprobe kpb_rp;

/*
 * The first offset past the entry where a plain kprobe registers, at the
 * very address asked for (an address inside a patchable function entry
 * may be moved to the entry proper, which is not the same instruction on
 * every kernel).
 */
static int kpb_arm_inside(bool post)
{
	kprobe_opcode_t *addr;
	unsigned int off;
	int ret = -ENOENT;

	for (off = 1; off < 48; off++) {
		addr = (kprobe_opcode_t *)((unsigned long)kpb_target + off);
		memset(&kpb_kp, 0, sizeof(kpb_kp));
		kpb_kp.addr = addr;
		kpb_kp.pre_handler = kpb_pre;
		if (post)
			kpb_kp.post_handler = kpb_post;
		ret = register_kprobe(&kpb_kp);
		if (ret)
			continue;
		if ((kpb_kp.flags & KPROBE_FLAG_FTRACE) || kpb_kp.addr != addr) {
			unregister_kprobe(&kpb_kp);
			ret = -ENOENT;
			continue;
		}
		kpb_offset = off;
		return 0;
	}
	return ret;
}

/*
 * a kretprobe on @sym with @maxactive (0: the kernel's default); on
 * ftrace (@ftrace) or not, as the row asks
 */
static int kpb_arm_kretprobe(const char *sym, bool ftrace, int maxactive)
{
	int ret;

	memset(&kpb_rp, 0, sizeof(kpb_rp));
	kpb_rp.kp.symbol_name = sym;
	kpb_rp.handler = kpb_ret;
	kpb_rp.maxactive = maxactive;
	ret = register_kretprobe(&kpb_rp);
	if (!ret && !!(kpb_rp.kp.flags & KPROBE_FLAG_FTRACE) != ftrace) {
		unregister_kretprobe(&kpb_rp);
		ret = -EOPNOTSUPP;
	}
	return ret;
}

static int kpb_arm(const char *kind)
{
	int ret;

	kpb_offset = 0;
	kpb_nt = false;
	if (!strcmp(kind, "k")) {
		ret = kpb_arm_inside(true);
	} else if (!strcmp(kind, "b")) {
		ret = kpb_arm_inside(false);
	} else if (!strcmp(kind, "f")) {
		memset(&kpb_kp, 0, sizeof(kpb_kp));
		kpb_kp.symbol_name = "kpb_target";
		kpb_kp.pre_handler = kpb_pre;
		ret = register_kprobe(&kpb_kp);
		if (!ret && !(kpb_kp.flags & KPROBE_FLAG_FTRACE)) {
			unregister_kprobe(&kpb_kp);
			ret = -EOPNOTSUPP;
		}
	} else if (!strcmp(kind, "r")) {
		ret = kpb_arm_kretprobe("kpb_target_nt", false, 4 * num_possible_cpus());
		kpb_nt = true;
	} else if (!strcmp(kind, "rf")) {
		ret = kpb_arm_kretprobe("kpb_target", true, 4 * num_possible_cpus());
	} else if (!strcmp(kind, "rs")) {
		ret = kpb_arm_kretprobe("kpb_sleeper", false, 0);
	} else if (IS_ENABLED(CONFIG_JPROBES) && !strcmp(kind, "j")) {
		ret = kpb_jprobe_arm(&kpb_hits);
	} else {
		return -EOPNOTSUPP;
	}
	if (ret)
		kpb_nt = false;
	else
		strscpy(kpb_kind, kind);
	return ret;
}

static bool kpb_is_kretprobe(void)
{
	return kpb_kind[0] == 'r';
}

static struct kprobe *kpb_armed_kprobe(void)
{
	if (!kpb_kind[0])
		return NULL;
	if (kpb_is_kretprobe())
		return &kpb_rp.kp;
	if (IS_ENABLED(CONFIG_JPROBES) && kpb_kind[0] == 'j')
		return kpb_jprobe_kprobe();
	return &kpb_kp;
}

/* hits the armed probe missed so far (a kretprobe's and its entry's) */
static unsigned long kpb_missed(void)
{
	struct kprobe *p = kpb_armed_kprobe();

	if (!p)
		return 0;
	return p->nmissed + (kpb_is_kretprobe() ? kpb_rp.nmissed : 0);
}

static void kpb_disarm(void)
{
	if (kpb_is_kretprobe())
		unregister_kretprobe(&kpb_rp);
	else if (IS_ENABLED(CONFIG_JPROBES) && kpb_kind[0] == 'j')
		kpb_jprobe_disarm();
	else if (kpb_kind[0])
		unregister_kprobe(&kpb_kp);
	kpb_kind[0] = '\0';
	kpb_nt = false;
}

static u64 kpb_loop(unsigned long n, bool nt)
{
	unsigned long i, acc = 0;
	u64 t0 = ktime_get_ns();

	for (i = 0; i < n; i++) {
		/* direct calls: the unprobed loop is subtracted from each row */
		acc += nt ? kpb_target_nt(i) : kpb_target(i);
		if (!(i & 4095))
			cond_resched();
	}
	OPTIMIZER_HIDE_VAR(acc);
	return ktime_get_ns() - t0;
}

/* one call of each of the first @n kpb_fns[] */
static u64 kpb_call_fns(unsigned long n)
{
	unsigned long i, acc = 0;
	u64 t0 = ktime_get_ns();

	for (i = 0; i < n; i++) {
		acc += kpb_fns[i]((int)i);
		if (!(i & 1023))
			cond_resched();
	}
	OPTIMIZER_HIDE_VAR(acc);
	return ktime_get_ns() - t0;
}

/* where kpb_trace_one() returns to: the end of a traced call */
static void *kpb_trace_ret;

/*
 * The traced call: the tracer counts the instructions from this
 * function's entry until the pc is back at kpb_trace_ret.
 */
static noinline unsigned long kpb_trace_one(bool nt)
{
	kpb_trace_ret = __builtin_return_address(0);
	return nt ? kpb_target_nt(1) : kpb_target(1);
}

static unsigned long kpb_trace(unsigned long ms, bool nt)
{
	unsigned long r;

	/*
	 * One call first, not traced: the traced one is a hit in the steady
	 * state, as the benchmark's loop measures it (a kretprobe's instance
	 * comes from where the last return put it).
	 */
	kpb_trace_one(nt);
	pr_warn("KPBTRACE on\n");
	msleep(ms);
	r = kpb_trace_one(nt);
	pr_warn("KPBTRACE off\n");
	msleep(ms);
	return r;
}

/*
 * The sleepers of "sleep": kpb_sleeper() is the probed function, where
 * each sleeps until its round is released.  @entered counts every entry
 * of every round, so the round @released lets go is all inside once it
 * reaches @n times the round's number plus one.
 */
#define KPB_SLEEPERS 100

static struct {
	unsigned int n;
	unsigned long rounds;
	atomic_t entered;
	unsigned long released;
	wait_queue_head_t inside;
	wait_queue_head_t go;
} kpb_sl;

noinline notrace unsigned long kpb_sleeper(unsigned long round)
{
	if (!(atomic_inc_return(&kpb_sl.entered) % kpb_sl.n))
		wake_up(&kpb_sl.inside);
	wait_event(kpb_sl.go, READ_ONCE(kpb_sl.released) > round);
	return round;
}

static int kpb_sleeper_fn(void *data)
{
	unsigned long r, acc = 0;

	for (r = 0; r <= kpb_sl.rounds; r++)
		acc += kpb_sleeper(r);
	OPTIMIZER_HIDE_VAR(acc);
	/* kpb_sleepers() stops every sleeper: module text is left first */
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* wait until round @r (from 0) has all its sleepers inside */
static void kpb_sleepers_inside(unsigned long r)
{
	wait_event(kpb_sl.inside,
		   atomic_read(&kpb_sl.entered) >= kpb_sl.n * (r + 1));
}

static int kpb_sleepers(unsigned int n, unsigned long rounds, u64 *ns)
{
	struct task_struct **t;
	unsigned long r;
	unsigned int i;
	int ret = 0;
	u64 t0;

	if (!n || n > 10000 || !rounds || rounds > 100000)
		return -EINVAL;
	t = kcalloc(n, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	kpb_sl.n = n;
	kpb_sl.rounds = rounds;
	atomic_set(&kpb_sl.entered, 0);
	kpb_sl.released = 0;
	init_waitqueue_head(&kpb_sl.inside);
	init_waitqueue_head(&kpb_sl.go);
	for (i = 0; i < n; i++) {
		t[i] = kthread_create(kpb_sleeper_fn, NULL, "kpb_sl/%u", i);
		if (IS_ERR(t[i])) {
			ret = PTR_ERR(t[i]);
			/* never woken, the others return without running */
			while (i--)
				kthread_stop(t[i]);
			goto out;
		}
	}
	for (i = 0; i < n; i++)
		wake_up_process(t[i]);
	/* round 0 untimed: each sleeper's first hit is not the steady state */
	kpb_sleepers_inside(0);
	t0 = ktime_get_ns();
	for (r = 1; r <= rounds; r++) {
		WRITE_ONCE(kpb_sl.released, r);
		wake_up_all(&kpb_sl.go);
		kpb_sleepers_inside(r);
	}
	*ns = ktime_get_ns() - t0;
	WRITE_ONCE(kpb_sl.released, rounds + 1);
	wake_up_all(&kpb_sl.go);
	for (i = 0; i < n; i++)
		kthread_stop(t[i]);
out:
	kfree(t);
	return ret;
}

struct kpb_worker {
	unsigned long n;
	bool nt;
	struct completion *go;
	atomic_t *left;
	struct completion *done;
};

static int kpb_worker_fn(void *data)
{
	struct kpb_worker *w = data;

	wait_for_completion(w->go);
	kpb_loop(w->n, w->nt);
	if (atomic_dec_and_test(w->left))
		complete(w->done);
	return 0;
}

static int kpb_mt(unsigned long n, bool nt, u64 *ns, unsigned int *ncpu)
{
	DECLARE_COMPLETION_ONSTACK(go);
	DECLARE_COMPLETION_ONSTACK(done);
	struct kpb_worker *w;
	atomic_t left;
	unsigned int cpu, k = 0;
	u64 t0;

	w = kcalloc(nr_cpu_ids, sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	atomic_set(&left, num_online_cpus());
	for_each_online_cpu(cpu) {
		struct task_struct *t;

		w[k] = (struct kpb_worker){ n, nt, &go, &left, &done };
		t = kthread_create_on_cpu(kpb_worker_fn, &w[k], cpu, "kpb/%u");
		if (IS_ERR(t)) {
			/* count it as done so the others can finish */
			if (atomic_dec_and_test(&left))
				complete(&done);
			continue;
		}
		wake_up_process(t);
		k++;
	}
	t0 = ktime_get_ns();
	complete_all(&go);
	wait_for_completion(&done);
	*ns = ktime_get_ns() - t0;
	*ncpu = k;
	kfree(w);
	return 0;
}

static int kpb_reg(unsigned long n, bool batch, u64 *reg_ns, u64 *unreg_ns)
{
	struct kprobe *kps, **pp = NULL;
	unsigned long i;
	int ret = 0;
	u64 t0;

	if (n > KPB_NFUNCS)
		return -EINVAL;
	kps = vcalloc(n, sizeof(*kps));
	if (!kps)
		return -ENOMEM;
	pp = vcalloc(n, sizeof(*pp));
	if (!pp) {
		vfree(kps);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		kps[i].addr = (kprobe_opcode_t *)kpb_fns[i];
		kps[i].pre_handler = kpb_pre;
		pp[i] = &kps[i];
	}
	t0 = ktime_get_ns();
	if (batch) {
		ret = register_kprobes(pp, n);
	} else {
		for (i = 0; i < n && !ret; i++)
			ret = register_kprobe(&kps[i]);
		if (ret)
			while (--i > 0)
				unregister_kprobe(&kps[i - 1]);
	}
	*reg_ns = ktime_get_ns() - t0;
	if (!ret) {
		t0 = ktime_get_ns();
		if (batch) {
			unregister_kprobes(pp, n);
		} else {
			for (i = 0; i < n; i++)
				unregister_kprobe(&kps[i]);
		}
		*unreg_ns = ktime_get_ns() - t0;
	}
	vfree(pp);
	vfree(kps);
	return ret;
}

static struct kprobe *kpb_opt_kps, **kpb_opt_pp;
static unsigned long kpb_opt_n;
static u64 kpb_opt_t0;

static void kpb_opt_free(void)
{
	vfree(kpb_opt_pp);
	vfree(kpb_opt_kps);
	kpb_opt_pp = NULL;
	kpb_opt_kps = NULL;
	kpb_opt_n = 0;
}

/* kpb_arm_inside()'s offset, in the kpb_fns[] functions */
static int kpb_opt_offset(unsigned int *offset)
{
	kprobe_opcode_t *addr;
	struct kprobe kp;
	unsigned int off;
	bool skip;

	for (off = 1; off < 16; off++) {
		addr = (kprobe_opcode_t *)((unsigned long)kpb_fns[0] + off);
		kp = (struct kprobe){ .addr = addr, .pre_handler = kpb_pre };
		if (register_kprobe(&kp))
			continue;
		/* as in kpb_arm_inside() */
		skip = (kp.flags & KPROBE_FLAG_FTRACE) || kp.addr != addr;
		unregister_kprobe(&kp);
		if (skip)
			continue;
		*offset = off;
		return 0;
	}
	return -ENOENT;
}

/*
 * What the text at @addr is: a trap (breakpoint), a jump (the optimizer's)
 * or the call of an ftrace site.  Read from the text, the same way on
 * every kernel; @text gets its first instruction word (arm64) or byte.
 */
static const char *kpb_text_state(unsigned long addr, unsigned int *text)
{
#if defined(CONFIG_X86)
	u8 op = READ_ONCE(*(u8 *)addr);

	*text = op;
	switch (op) {
	case 0xcc:				/* int3 */
		return "trap";
	case 0xe9:				/* jmp rel32 */
		return "jump";
	case 0xe8:				/* call rel32: ftrace */
		return "ftrace";
	}
#elif defined(CONFIG_ARM64)
	u32 insn = le32_to_cpu(READ_ONCE(*(__le32 *)addr));

	*text = insn;
	if ((insn & 0xffe0001f) == 0xd4200000)	/* brk #imm16 */
		return "trap";
	if ((insn & 0xfc000000) == 0x14000000)	/* b imm26 */
		return "jump";
	if ((insn & 0xfc000000) == 0x94000000)	/* bl imm26: ftrace */
		return "ftrace";
#else
	*text = 0;
#endif
	return "other";
}

static bool kpb_text_jumps(unsigned long addr)
{
	unsigned int text;

	return !strcmp(kpb_text_state(addr, &text), "jump");
}

static unsigned long kpb_opt_count(void)
{
	unsigned long i, k = 0;

	for (i = 0; i < kpb_opt_n; i++)
		k += kpb_text_jumps((unsigned long)kpb_opt_kps[i].addr);
	return k;
}

/* Wait until every probe of "opt" jumps, or @secs: ns since t0, how many. */
static u64 kpb_opt_wait(unsigned long secs, unsigned long *done)
{
	u64 deadline = kpb_opt_t0 + (u64)secs * NSEC_PER_SEC, now;

	for (;;) {
		*done = kpb_opt_count();
		now = ktime_get_ns();
		if (*done == kpb_opt_n || now > deadline)
			return now - kpb_opt_t0;
		usleep_range(500, 1000);
	}
}

static int kpb_opt(unsigned long n, u64 *reg_ns, unsigned int *offset)
{
	unsigned long i;
	int ret;

	if (kpb_opt_n || !n || n > KPB_NFUNCS)
		return -EINVAL;
	ret = kpb_opt_offset(offset);
	if (ret)
		return ret;
	/*
	 * Start from a quiet system: let the grace periods (RCU, RCU-tasks)
	 * that finding the offset set off run out first.
	 */
	msleep(500);
	kpb_opt_kps = vcalloc(n, sizeof(*kpb_opt_kps));
	kpb_opt_pp = vcalloc(n, sizeof(*kpb_opt_pp));
	if (!kpb_opt_kps || !kpb_opt_pp) {
		kpb_opt_free();
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		kpb_opt_kps[i].addr = (kprobe_opcode_t *)((unsigned long)kpb_fns[i] + *offset);
		kpb_opt_kps[i].pre_handler = kpb_pre;
		kpb_opt_pp[i] = &kpb_opt_kps[i];
	}
	kpb_opt_t0 = ktime_get_ns();
	ret = register_kprobes(kpb_opt_pp, n);
	*reg_ns = ktime_get_ns() - kpb_opt_t0;
	if (ret)
		kpb_opt_free();
	else
		kpb_opt_n = n;
	return ret;
}

static int kpb_optfree(u64 *unreg_ns)
{
	u64 t0;

	if (!kpb_opt_n)
		return -EINVAL;
	t0 = ktime_get_ns();
	unregister_kprobes(kpb_opt_pp, kpb_opt_n);
	*unreg_ns = ktime_get_ns() - t0;
	kpb_opt_free();
	return 0;
}

static ssize_t kpb_ctl_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[64], cmd[16], arg[16] = "";
	unsigned long n = 0;
	int ret = 0;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%15s %lu %15s", cmd, &n, arg) < 1 &&
	    sscanf(buf, "%15s %15s", cmd, arg) < 1)
		return -EINVAL;

	mutex_lock(&kpb_lock);
	if (!strcmp(cmd, "arm")) {
		/* the kind, at most three characters ("" without one) */
		if (sscanf(buf, "%15s %3s", cmd, arg) != 2)
			arg[0] = '\0';
		if (kpb_kind[0])
			kpb_disarm();
		ret = kpb_arm(arg);
		snprintf(kpb_result, sizeof(kpb_result), "kind=%s ret=%d offset=%u\n",
			 arg, ret, kpb_offset);
	} else if (!strcmp(cmd, "state")) {
		struct kprobe *p = kpb_armed_kprobe();
		unsigned int text = 0;
		const char *state = "none";

		if (p)
			state = kpb_text_state((unsigned long)p->addr, &text);
		snprintf(kpb_result, sizeof(kpb_result), "state=%s text=%x\n",
			 state, text);
	} else if (!strcmp(cmd, "disarm")) {
		kpb_disarm();
		snprintf(kpb_result, sizeof(kpb_result), "ret=0\n");
	} else if (!strcmp(cmd, "run")) {
		bool nt = kpb_kind[0] ? kpb_nt : !strcmp(arg, "nt");
		unsigned long missed = kpb_missed();
		u64 ns;

		atomic_long_set(&kpb_hits, 0);
		ns = kpb_loop(n, nt);
		snprintf(kpb_result, sizeof(kpb_result),
			 "iters=%lu ns=%llu hits=%ld missed=%lu target=%s\n",
			 n, ns, atomic_long_read(&kpb_hits), kpb_missed() - missed,
			 nt ? "nt" : "t");
	} else if (!strcmp(cmd, "trace")) {
		bool nt = kpb_kind[0] ? kpb_nt : !strcmp(arg, "nt");

		atomic_long_set(&kpb_hits, 0);
		kpb_trace(min(n, 10000UL), nt);
		/* where the traced call starts and returns to, for the tracer */
		snprintf(kpb_result, sizeof(kpb_result),
			 "hits=%ld target=%s fn=%lx ret=%lx\n",
			 atomic_long_read(&kpb_hits), nt ? "nt" : "t",
			 (unsigned long)kpb_trace_one,
			 (unsigned long)kpb_trace_ret);
	} else if (!strcmp(cmd, "mt")) {
		bool nt = kpb_kind[0] ? kpb_nt : !strcmp(arg, "nt");
		unsigned int ncpu = 0;
		u64 ns = 0;

		atomic_long_set(&kpb_hits, 0);
		ret = kpb_mt(n, nt, &ns, &ncpu);
		snprintf(kpb_result, sizeof(kpb_result),
			 "iters=%lu cpus=%u ns=%llu hits=%ld ret=%d\n",
			 n, ncpu, ns, atomic_long_read(&kpb_hits), ret);
	} else if (!strcmp(cmd, "sleep")) {
		unsigned long missed = kpb_missed();
		unsigned long kmissed = kpb_kind[0] ? kpb_armed_kprobe()->nmissed : 0;
		unsigned int s = KPB_SLEEPERS;
		u64 ns = 0;

		if (arg[0] && kstrtouint(arg, 10, &s))
			s = 0;
		atomic_long_set(&kpb_hits, 0);
		ret = kpb_sleepers(s, n, &ns);
		if (kpb_kind[0])
			kmissed = kpb_armed_kprobe()->nmissed - kmissed;
		/* missed: all; entry_missed: of those, the entry probe's (reentry) */
		snprintf(kpb_result, sizeof(kpb_result),
			 "iters=%lu calls=%lu inflight=%u rounds=%lu ns=%llu hits=%ld missed=%lu entry_missed=%lu target=sleep ret=%d\n",
			 n * s, (n + 1) * s, s, n, ns, atomic_long_read(&kpb_hits),
			 kpb_missed() - missed, kmissed, ret);
		ret = 0;
	} else if (!strcmp(cmd, "reg")) {
		u64 rns = 0, uns = 0;

		ret = kpb_reg(n, !strcmp(arg, "batch"), &rns, &uns);
		snprintf(kpb_result, sizeof(kpb_result),
			 "n=%lu mode=%s ret=%d reg_ns=%llu unreg_ns=%llu\n",
			 n, arg, ret, rns, uns);
	} else if (!strcmp(cmd, "opt")) {
		unsigned long secs = 60, done = 0;
		unsigned int off = 0;
		u64 rns = 0, ons = 0;

		if (kstrtoul(arg, 10, &secs))
			secs = 60;
		ret = kpb_opt(n, &rns, &off);
		if (!ret)
			ons = kpb_opt_wait(secs, &done);
		snprintf(kpb_result, sizeof(kpb_result),
			 "n=%lu ret=%d offset=%u reg_ns=%llu opt_ns=%llu jumps=%lu\n",
			 n, ret, off, rns, ons, done);
	} else if (!strcmp(cmd, "fns")) {
		u64 ns;

		if (n > KPB_NFUNCS) {
			ret = -EINVAL;
		} else {
			ns = kpb_call_fns(n);
			snprintf(kpb_result, sizeof(kpb_result),
				 "calls=%lu ns=%llu\n", n, ns);
		}
	} else if (!strcmp(cmd, "optfree")) {
		u64 uns = 0;

		ret = kpb_optfree(&uns);
		snprintf(kpb_result, sizeof(kpb_result), "ret=%d unreg_ns=%llu\n",
			 ret, uns);
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&kpb_lock);
	return ret ? ret : count;
}

static ssize_t kpb_ctl_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	return simple_read_from_buffer(ubuf, count, ppos, kpb_result,
				       strlen(kpb_result));
}

static const struct file_operations kpb_ctl_fops = {
	.owner = THIS_MODULE,
	.write = kpb_ctl_write,
	.read = kpb_ctl_read,
};

static struct dentry *kpb_dir;

static int __init kpb_init(void)
{
	kpb_dir = debugfs_create_dir("kprobe_bench", NULL);
	debugfs_create_file("ctl", 0600, kpb_dir, NULL, &kpb_ctl_fops);
	return 0;
}

static void __exit kpb_exit(void)
{
	debugfs_remove_recursive(kpb_dir);
	mutex_lock(&kpb_lock);
	if (kpb_kind[0])
		kpb_disarm();
	if (kpb_opt_n)
		unregister_kprobes(kpb_opt_pp, kpb_opt_n);
	kpb_opt_free();
	mutex_unlock(&kpb_lock);
}

module_init(kpb_init);
module_exit(kpb_exit);
MODULE_DESCRIPTION("kprobes benchmark: per-hit and registration cost");
MODULE_LICENSE("GPL");
