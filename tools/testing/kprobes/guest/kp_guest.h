/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the guest tools (kp_perfsb, kp_attach, kp_bpf,
 * kp_detach), which are built with the kernel's nolibc (included before
 * this file).
 */
#ifndef KP_GUEST_H
#define KP_GUEST_H

#include <linux/bpf.h>
#include <linux/perf_event.h>

#define KPG_PMU		"/sys/bus/event_source/devices/kprobe"

/*
 * The integer in a sysfs file, after its first @skip characters ("config:"
 * of a PMU format), or -1.
 */
static inline int kpg_read_int(const char *path, int skip)
{
	char buf[64];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= skip)
		return -1;
	buf[n] = '\0';
	return atoi(buf + skip);
}

/* Run @cmd with /bin/sh -c; its exit status, or -1. */
static inline int kpg_sh(const char *cmd)
{
	char *args[4];
	int status;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		args[0] = "/bin/sh";
		args[1] = "-c";
		args[2] = (char *)cmd;
		args[3] = NULL;
		execve("/bin/sh", args, environ);
		exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WEXITSTATUS(status);
}

struct kpg_ts {
	long long sec;
	long long nsec;
};

/* CLOCK_MONOTONIC in nanoseconds */
static inline unsigned long long kpg_now_ns(void)
{
	struct kpg_ts ts;

	my_syscall2(__NR_clock_gettime, 1 /* CLOCK_MONOTONIC */, &ts);
	return ts.sec * 1000000000ULL + ts.nsec;
}

/* @dst = @a @num @b (no snprintf or strcat in nolibc); returns @dst */
static inline char *kpg_compose(char *dst, const char *a, unsigned int num,
				const char *b)
{
	char *p = dst;

	strcpy(p, a);
	p += strlen(p);
	strcpy(p, utoa(num));
	p += strlen(p);
	strcpy(p, b);
	return dst;
}

/*
 * Write @len bytes of @s to @fd, again after a short write; 0 or the
 * errno of the write that failed.
 */
static inline int kpg_write_all(int fd, const char *s, size_t len)
{
	ssize_t w;

	while (len) {
		w = write(fd, s, len);
		if (w < 0)
			return errno;
		if (w == 0)
			return EIO;
		s += w;
		len -= w;
	}
	return 0;
}

/*
 * Open @path with O_WRONLY | @flags and write @s to it in one write()
 * (more only after a short one); 0 or the errno of the open or write.
 */
static inline int kpg_write_file(const char *path, const char *s, int flags)
{
	int fd = open(path, O_WRONLY | flags);
	int ret;

	if (fd < 0)
		return errno;
	ret = kpg_write_all(fd, s, strlen(s));
	close(fd);
	return ret;
}

/* How many lines @path has (up to 64 KiB of it), or -1. */
static inline int kpg_count_lines(const char *path)
{
	char buf[4096];
	int fd = open(path, O_RDONLY);
	int lines = 0, total = 0;
	ssize_t n, i;

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0 && total < 65536) {
		for (i = 0; i < n; i++)
			lines += buf[i] == '\n';
		total += n;
	}
	close(fd);
	return lines;
}

/*
 * A perf event of the kprobe PMU on @func + @off (a kretprobe with
 * @retprobe), as perf, bpftrace and libbpf open one: counting, enabled,
 * on CPU 0 for every task (a BPF program attached to it runs on every
 * CPU).  Its fd, or -errno.
 */
static inline int kpg_kprobe_open(const char *func, unsigned long off,
				  int retprobe)
{
	struct perf_event_attr attr;
	int type, bit = 0;

	type = kpg_read_int(KPG_PMU "/type", 0);
	if (type < 0)
		return -ENOENT;
	if (retprobe) {
		/* "config:N" */
		bit = kpg_read_int(KPG_PMU "/format/retprobe", 7);
		if (bit < 0)
			return -ENOENT;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = retprobe ? 1ULL << bit : 0;
	attr.config1 = (unsigned long)func;	/* kprobe_func */
	attr.config2 = off;			/* probe_offset */
	return my_syscall5(__NR_perf_event_open, &attr, -1, 0, -1,
			   PERF_FLAG_FD_CLOEXEC);
}

static inline long kpg_bpf(int cmd, union bpf_attr *attr)
{
	return my_syscall3(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* An array map of one u64, the counter of kpg_count_prog(); fd or -errno */
static inline int kpg_count_map(void)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = 1;
	return kpg_bpf(BPF_MAP_CREATE, &a);
}

/*
 * The smallest useful BPF kprobe program: it adds one to the counter in
 * @map on every run (as a bpftrace "kprobe:f { @n = count(); }" does)
 * and returns 0.  Assembled here: the guest has no BPF toolchain.  Its
 * fd, or -errno.
 */
static inline int kpg_count_prog(int map)
{
	struct bpf_insn p[6];
	union bpf_attr a;

	memset(p, 0, sizeof(p));
	/* r1 = &value: a direct map value load, two instructions */
	p[0].code = BPF_LD | BPF_DW | BPF_IMM;
	p[0].dst_reg = 1;
	p[0].src_reg = BPF_PSEUDO_MAP_VALUE;
	p[0].imm = map;
	/* r2 = 1; lock *(u64 *)(r1 + 0) += r2 */
	p[2].code = BPF_ALU64 | BPF_MOV | BPF_K;
	p[2].dst_reg = 2;
	p[2].imm = 1;
	p[3].code = BPF_STX | BPF_ATOMIC | BPF_DW;
	p[3].dst_reg = 1;
	p[3].src_reg = 2;
	p[3].imm = BPF_ADD;
	/* return 0 */
	p[4].code = BPF_ALU64 | BPF_MOV | BPF_K;
	p[5].code = BPF_JMP | BPF_EXIT;
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_KPROBE;
	a.insns = (unsigned long)p;
	a.insn_cnt = 6;
	a.license = (unsigned long)"GPL";
	return kpg_bpf(BPF_PROG_LOAD, &a);
}

/* The counter of kpg_count_prog() in @map, or -errno */
static inline long long kpg_count_read(int map)
{
	unsigned long long v = 0;
	unsigned int key = 0;
	union bpf_attr a;
	long ret;

	memset(&a, 0, sizeof(a));
	a.map_fd = map;
	a.key = (unsigned long)&key;
	a.value = (unsigned long)&v;
	ret = kpg_bpf(BPF_MAP_LOOKUP_ELEM, &a);
	return ret < 0 ? ret : (long long)v;
}

#define KPG_NCPU	64

/*
 * The CPUs this task may run on, in @cpus (at most KPG_NCPU); how many,
 * or -errno.
 */
static inline int kpg_cpus(int *cpus)
{
	unsigned long mask[KPG_NCPU / (8 * sizeof(long))];
	int i, n = 0;
	long ret;

	memset(mask, 0, sizeof(mask));
	ret = my_syscall3(__NR_sched_getaffinity, 0, sizeof(mask), mask);
	if (ret < 0)
		return ret;
	for (i = 0; i < KPG_NCPU; i++)
		if (mask[i / (8 * sizeof(long))] & (1UL << (i % (8 * sizeof(long)))))
			cpus[n++] = i;
	return n;
}

/* Pin the calling task to @cpu: 0 or -errno */
static inline int kpg_pin(int cpu)
{
	unsigned long mask[KPG_NCPU / (8 * sizeof(long))];

	memset(mask, 0, sizeof(mask));
	mask[cpu / (8 * sizeof(long))] = 1UL << (cpu % (8 * sizeof(long)));
	return my_syscall3(__NR_sched_setaffinity, 0, sizeof(mask), mask);
}

/* Shared anonymous memory, visible to the children forked after; or NULL */
static inline void *kpg_shared(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Allow @n open files (perf events are one fd each); 0 or -errno */
static inline int kpg_nofile(unsigned long n)
{
	unsigned long lim[2] = { n, n };

	return my_syscall4(__NR_prlimit64, 0, 7 /* RLIMIT_NOFILE */, lim, NULL);
}

#endif /* KP_GUEST_H */
