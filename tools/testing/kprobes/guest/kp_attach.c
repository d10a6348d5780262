// SPDX-License-Identifier: GPL-2.0
/*
 * kp_attach: attach and detach N kprobes the way tools do it, one at a
 * time, and say how long each half took (guest CLOCK_MONOTONIC).
 *
 *   kp_attach perf N     one perf_event_open() of the kprobe PMU per
 *                        function (as perf, bpftrace and libbpf attach a
 *                        kprobe), then close() of each event in turn
 *   kp_attach events N   one write to kprobe_events and one to the
 *                        event's enable file per function (as a user or
 *                        perf probe does it), then disable and remove
 *                        each in turn
 *
 * The functions are kpb_fn_1000 ... of the benchmark module kp_bench.ko,
 * which must be loaded.  Prints one line:
 *
 *   BENCHRES row=attach via=perf|events n=N ret=0|ERRNO done=K
 *            attach_ns=T detach_ns=T
 *
 * Built with the kernel's nolibc (tools/include/nolibc), as kp_perfsb.
 */
#include <linux/perf_event.h>

#include "kp_guest.h"

#define NMAX		10000
#define FN_FIRST	1000
#define TRACEFS		"/sys/kernel/tracing"

struct kpa_ts {
	long long sec;
	long long nsec;
};

static unsigned long long now_ns(void)
{
	struct kpa_ts ts;

	my_syscall2(__NR_clock_gettime, 1 /* CLOCK_MONOTONIC */, &ts);
	return ts.sec * 1000000000ULL + ts.nsec;
}

/* @dst = @a @num @b (no snprintf or strcat in nolibc) */
static char *compose(char *dst, const char *a, unsigned int num, const char *b)
{
	char *p = dst;

	strcpy(p, a);
	p += strlen(p);
	strcpy(p, utoa(num));
	p += strlen(p);
	strcpy(p, b);
	return dst;
}

static int write_file(const char *path, const char *s, int flags)
{
	int fd = open(path, O_WRONLY | flags);
	int ret = 0;

	if (fd < 0)
		return errno;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		ret = errno;
	close(fd);
	return ret;
}

static int kprobe_pmu_type(void)
{
	return kpg_read_int("/sys/bus/event_source/devices/kprobe/type", 0);
}

static char names[NMAX][24];
static int fds[NMAX];

static void report(const char *via, int n, int ret, int done,
		   unsigned long long att, unsigned long long det)
{
	printf("BENCHRES row=attach via=%s n=%d ret=%d done=%d attach_ns=%llu detach_ns=%llu\n",
	       via, n, ret, done, att, det);
}

static int by_perf(int n)
{
	struct perf_event_attr attr;
	unsigned long long t0, att, det;
	int type = kprobe_pmu_type();
	int i, ret = 0, done = 0;

	if (type < 0) {
		report("perf", n, ENOENT, 0, 0, 0);
		return 1;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = type;
		attr.config1 = (unsigned long)compose(names[i], "kpb_fn_", FN_FIRST + i, "");
		attr.config2 = 0;
		fds[i] = my_syscall5(__NR_perf_event_open, &attr, -1, 0, -1, 0);
		if (fds[i] < 0) {
			ret = -fds[i];
			break;
		}
		done++;
	}
	att = now_ns() - t0;
	t0 = now_ns();
	for (i = 0; i < done; i++)
		close(fds[i]);
	det = now_ns() - t0;
	report("perf", n, ret, done, att, det);
	return ret != 0;
}

static int by_events(int n)
{
	unsigned long long t0, att, det;
	char line[64], path[96];
	int i, ret = 0, done = 0;

	t0 = now_ns();
	for (i = 0; i < n && !ret; i++) {
		compose(line, "p:kpba", FN_FIRST + i, " kpb_fn_");
		compose(line + strlen(line), "", FN_FIRST + i, "\n");
		ret = write_file(TRACEFS "/kprobe_events", line, O_APPEND);
		if (ret)
			break;
		compose(path, TRACEFS "/events/kprobes/kpba", FN_FIRST + i, "/enable");
		ret = write_file(path, "1", 0);
		if (!ret)
			done++;
	}
	att = now_ns() - t0;
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		int r;

		compose(path, TRACEFS "/events/kprobes/kpba", FN_FIRST + i, "/enable");
		if (i < done)
			write_file(path, "0", 0);
		compose(line, "-:kpba", FN_FIRST + i, "\n");
		r = write_file(TRACEFS "/kprobe_events", line, O_APPEND);
		/* the probe whose enable failed was created: remove it too */
		if (r && i < done && !ret)
			ret = r;
		if (i >= done)
			break;
	}
	det = now_ns() - t0;
	report("events", n, ret, done, att, det);
	return ret != 0;
}

int main(int argc, char **argv)
{
	int n;

	if (argc != 3) {
		printf("usage: kp_attach perf|events N\n");
		return 2;
	}
	n = atoi(argv[2]);
	if (n <= 0 || n > NMAX) {
		printf("kp_attach: N must be 1 to %d\n", NMAX);
		return 2;
	}
	if (!strcmp(argv[1], "perf"))
		return by_perf(n);
	if (!strcmp(argv[1], "events"))
		return by_events(n);
	printf("kp_attach: perf or events, not %s\n", argv[1]);
	return 2;
}
