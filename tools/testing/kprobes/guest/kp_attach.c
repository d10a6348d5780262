// SPDX-License-Identifier: GPL-2.0
/*
 * kp_attach: attach and detach N kprobes the way tools do it, and say how
 * long each phase took (guest CLOCK_MONOTONIC).
 *
 *   kp_attach perf N     one perf_event_open() of the kprobe PMU per
 *                        function (as perf, bpftrace and libbpf attach a
 *                        kprobe), then close() of each event in turn;
 *                        gone_ns: from the first close() until no probe
 *                        of the run is left in kprobes/list
 *   kp_attach perf4 N    the same from 4 processes at once, N/4 each; the
 *                        parent times the attach phase (until all have
 *                        attached) and the detach phase (started when all
 *                        have attached, until all have closed theirs)
 *   kp_attach events N   one write to kprobe_events and one to the
 *                        event's enable file per function (as a user or
 *                        perf probe does it), then disable and remove
 *                        each in turn
 *   kp_attach trunc N    create the N events (one write each), enable
 *                        each, disable each, then remove them all with one
 *                        O_TRUNC open of kprobe_events (echo > kprobe_events)
 *   kp_attach multi N    the same, but removed with one write of N
 *                        "-:name" lines
 *   kp_attach bpf N      a bpftrace-style run: a child opens N kprobe PMU
 *                        events, each with a BPF program that counts its
 *                        runs (PERF_EVENT_IOC_SET_BPF), makes kprobe_bench.ko
 *                        call each function once and exits without
 *                        closing anything; the parent times the attach,
 *                        the child's exit until it is reaped (waitpid),
 *                        and the whole run
 *
 * The functions are kpb_fn_1000 ... of the benchmark module kprobe_bench.ko,
 * which must be loaded.  Prints one line:
 *
 *   BENCHRES row=attach via=perf|perf4|events n=N ret=0|ERRNO done=K
 *            attach_ns=T detach_ns=T [gone_ns=T]
 *   BENCHRES row=attach via=trunc|multi n=N ret=0|ERRNO done=K
 *            create_ns=T enable_ns=T disable_ns=T clear_ns=T|remove_ns=T
 *            left=L
 *   BENCHRES row=attach via=bpf n=N ret=0|ERRNO done=K hits=H
 *            attach_ns=T exit_ns=T total_ns=T
 *
 * done counts the probes attached (created and enabled), left the events
 * still in kprobe_events after the removal, hits the runs of the BPF
 * program (one per function called).
 *
 * Built with the kernel's nolibc (tools/include/nolibc), as kp_perfsb.
 */
#include "kp_guest.h"

#define NMAX		10000
#define NPROCS		4
#define FN_FIRST	1000
#define TRACEFS		"/sys/kernel/tracing"
#define KPB_CTL		"/sys/kernel/debug/kprobe_bench/ctl"

static char names[NMAX][24];
static int fds[NMAX];
/* N "-:kpbaNNNN\n" lines, for the one write of "multi" */
static char lines[NMAX * 16];

static const char *fn_name(int i)
{
	return kpg_compose(names[i], "kpb_fn_", FN_FIRST + i, "");
}

static void report(const char *via, int n, int ret, int done,
		   unsigned long long att, unsigned long long det)
{
	printf("BENCHRES row=attach via=%s n=%d ret=%d done=%d attach_ns=%llu detach_ns=%llu\n",
	       via, n, ret, done, att, det);
}

/*
 * Whether kprobes/list still lists a probe on a function of kprobe_bench.ko
 * (" kpb_fn_"), or -1 when it cannot be read.
 */
static int kpb_listed(void)
{
	static char buf[4096 + 8];
	const char *pat = " kpb_fn_";
	int fd = open("/sys/kernel/debug/kprobes/list", O_RDONLY);
	int keep = 0, found = 0, plen = strlen(pat), i;
	ssize_t n;

	if (fd < 0)
		return -1;
	while (!found && (n = read(fd, buf + keep, 4096)) > 0) {
		n += keep;
		for (i = 0; i + plen <= n && !found; i++)
			found = !memcmp(buf + i, pat, plen);
		/* a match may straddle two reads */
		keep = n < plen - 1 ? n : plen - 1;
		memmove(buf, buf + n - keep, keep);
	}
	close(fd);
	return found;
}

static int by_perf(int n)
{
	unsigned long long t0, att, det, gone;
	int i, ret = 0, done = 0, listed;

	t0 = kpg_now_ns();
	for (i = 0; i < n; i++) {
		fds[i] = kpg_kprobe_open(fn_name(i), 0, 0);
		if (fds[i] < 0) {
			ret = -fds[i];
			break;
		}
		done++;
	}
	att = kpg_now_ns() - t0;
	t0 = kpg_now_ns();
	for (i = 0; i < done; i++)
		close(fds[i]);
	det = kpg_now_ns() - t0;
	/* until the last of them left kprobes/list (at most 10 minutes) */
	while ((listed = kpb_listed()) > 0 && kpg_now_ns() - t0 < 600000000000ULL)
		msleep(1);
	gone = kpg_now_ns() - t0;
	if (listed && !ret)
		ret = listed < 0 ? EIO : ETIMEDOUT;
	printf("BENCHRES row=attach via=perf n=%d ret=%d done=%d attach_ns=%llu detach_ns=%llu gone_ns=%llu\n",
	       n, ret, done, att, det, gone);
	return ret != 0;
}

/* what a child of perf4 or bpf says through its pipe */
/* @sent: when it was sent (CLOCK_MONOTONIC is one clock for all) */
struct msg {
	int ret;
	int done;
	long long hits;
	unsigned long long sent;
};

static int send_msg(int fd, int ret, int done, long long hits)
{
	struct msg m = { ret, done, hits, kpg_now_ns() };

	return write(fd, &m, sizeof(m)) == sizeof(m) ? 0 : -1;
}

static int recv_msg(int fd, struct msg *m)
{
	return read(fd, m, sizeof(*m)) == sizeof(*m) ? 0 : -1;
}

/*
 * Child @k of perf4: attach functions [@first, @last), say so on @up, wait
 * for the go on @go, close them all, say so again.
 */
static void perf4_child(int first, int last, int up, int go)
{
	int i, ret = 0, done = 0;
	char c;

	for (i = first; i < last; i++) {
		fds[i] = kpg_kprobe_open(fn_name(i), 0, 0);
		if (fds[i] < 0) {
			ret = -fds[i];
			break;
		}
		done++;
	}
	send_msg(up, ret, done, 0);
	if (read(go, &c, 1) != 1)
		exit(1);
	for (i = first; i < first + done; i++)
		close(fds[i]);
	send_msg(up, ret, done, 0);
	exit(0);
}

static int by_perf4(int n)
{
	int up[2], go[2], i, ret = 0, done = 0, procs = n < NPROCS ? n : NPROCS;
	unsigned long long t0, att, det;
	pid_t pids[NPROCS];
	struct msg m;
	char gos[NPROCS];

	if (pipe(up) || pipe(go)) {
		report("perf4", n, errno, 0, 0, 0);
		return 1;
	}
	t0 = kpg_now_ns();
	for (i = 0; i < procs; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			close(up[0]);
			close(go[1]);
			perf4_child(i * n / procs, (i + 1) * n / procs, up[1], go[0]);
		}
		if (pids[i] < 0) {
			ret = errno;
			procs = i;
			break;
		}
	}
	close(up[1]);
	close(go[0]);
	/* the attach phase ends when every child has attached its share */
	for (i = 0; i < procs; i++) {
		if (recv_msg(up[0], &m)) {
			ret = ret ? ret : EPIPE;
			break;
		}
		ret = ret ? ret : m.ret;
		done += m.done;
	}
	att = kpg_now_ns() - t0;
	memset(gos, 'g', sizeof(gos));
	t0 = kpg_now_ns();
	if (write(go[1], gos, procs) != procs)
		ret = ret ? ret : EPIPE;
	for (i = 0; i < procs; i++) {
		if (recv_msg(up[0], &m)) {
			ret = ret ? ret : EPIPE;
			break;
		}
	}
	det = kpg_now_ns() - t0;
	for (i = 0; i < procs; i++)
		waitpid(pids[i], NULL, 0);
	close(up[0]);
	close(go[1]);
	report("perf4", n, ret, done, att, det);
	return ret != 0;
}

static char *enable_path(char *path, int i)
{
	return kpg_compose(path, TRACEFS "/events/kprobes/kpba", FN_FIRST + i, "/enable");
}

static int by_events(int n)
{
	unsigned long long t0, att, det;
	char line[64], path[96];
	int i, ret = 0, done = 0;

	t0 = kpg_now_ns();
	for (i = 0; i < n && !ret; i++) {
		kpg_compose(line, "p:kpba", FN_FIRST + i, " kpb_fn_");
		kpg_compose(line + strlen(line), "", FN_FIRST + i, "\n");
		ret = kpg_write_file(TRACEFS "/kprobe_events", line, O_APPEND);
		if (ret)
			break;
		ret = kpg_write_file(enable_path(path, i), "1", 0);
		if (!ret)
			done++;
	}
	att = kpg_now_ns() - t0;
	t0 = kpg_now_ns();
	for (i = 0; i < n; i++) {
		int r;

		if (i < done)
			kpg_write_file(enable_path(path, i), "0", 0);
		kpg_compose(line, "-:kpba", FN_FIRST + i, "\n");
		r = kpg_write_file(TRACEFS "/kprobe_events", line, O_APPEND);
		/* the probe whose enable failed was created: remove it too */
		if (r && i < done && !ret)
			ret = r;
		if (i >= done)
			break;
	}
	det = kpg_now_ns() - t0;
	report("events", n, ret, done, att, det);
	return ret != 0;
}

/*
 * trunc and multi: create, enable and disable the N events one write at
 * a time, timing each phase, then remove them all at once: one O_TRUNC
 * open of kprobe_events (@multi 0) or one write of N "-:name" lines.
 */
static int by_events_batch(int n, int multi)
{
	unsigned long long t0, create, enable, disable, remove;
	int i, fd, ret = 0, created = 0, done = 0, left;
	char line[64], path[96], *p;

	t0 = kpg_now_ns();
	for (i = 0; i < n; i++) {
		kpg_compose(line, "p:kpba", FN_FIRST + i, " kpb_fn_");
		kpg_compose(line + strlen(line), "", FN_FIRST + i, "\n");
		ret = kpg_write_file(TRACEFS "/kprobe_events", line, O_APPEND);
		if (ret)
			break;
		created++;
	}
	create = kpg_now_ns() - t0;
	t0 = kpg_now_ns();
	for (i = 0; i < created && !ret; i++) {
		ret = kpg_write_file(enable_path(path, i), "1", 0);
		if (!ret)
			done++;
	}
	enable = kpg_now_ns() - t0;
	t0 = kpg_now_ns();
	for (i = 0; i < done; i++) {
		int r = kpg_write_file(enable_path(path, i), "0", 0);

		ret = ret ? ret : r;
	}
	disable = kpg_now_ns() - t0;
	if (multi) {
		p = lines;
		for (i = 0; i < created; i++) {
			kpg_compose(p, "-:kpba", FN_FIRST + i, "\n");
			p += strlen(p);
		}
	}
	t0 = kpg_now_ns();
	if (multi) {
		fd = open(TRACEFS "/kprobe_events", O_WRONLY | O_APPEND);
		if (fd >= 0) {
			int r = kpg_write_all(fd, lines, p - lines);

			ret = ret ? ret : r;
			close(fd);
		}
	} else {
		/* as the shell's "echo > kprobe_events" opens it */
		fd = open(TRACEFS "/kprobe_events", O_WRONLY | O_TRUNC);
		if (fd >= 0)
			close(fd);
	}
	if (fd < 0)
		ret = ret ? ret : errno;
	remove = kpg_now_ns() - t0;
	left = kpg_count_lines(TRACEFS "/kprobe_events");
	/* whatever is left goes, untimed, so that the next row starts clean */
	for (i = 0; i < created && left; i++) {
		kpg_write_file(enable_path(path, i), "0", 0);
		kpg_compose(line, "-:kpba", FN_FIRST + i, "\n");
		kpg_write_file(TRACEFS "/kprobe_events", line, O_APPEND);
	}
	printf("BENCHRES row=attach via=%s n=%d ret=%d done=%d create_ns=%llu enable_ns=%llu disable_ns=%llu %s=%llu left=%d\n",
	       multi ? "multi" : "trunc", n, ret, done, create, enable, disable,
	       multi ? "remove_ns" : "clear_ns", remove, left);
	return ret != 0 || left != 0;
}

/*
 * The child of a bpftrace-style run: a counting program on every
 * function, then one call of each (kprobe_bench.ko), and exit with every fd
 * still open, as a tracer that is killed or simply ends does.
 */
static void bpf_child(int n, int up)
{
	int i, map, prog, ret = 0, done = 0;
	long long hits = 0;

	map = kpg_count_map();
	prog = map < 0 ? map : kpg_count_prog(map);
	if (prog < 0)
		ret = -prog;
	for (i = 0; i < n && !ret; i++) {
		fds[i] = kpg_kprobe_open(fn_name(i), 0, 0);
		if (fds[i] < 0) {
			ret = -fds[i];
			break;
		}
		if (ioctl(fds[i], PERF_EVENT_IOC_SET_BPF, (void *)(long)prog) < 0 ||
		    ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0) < 0) {
			ret = errno;
			break;
		}
		done++;
	}
	send_msg(up, ret, done, 0);
	if (!ret) {
		char cmd[32];

		ret = kpg_write_file(KPB_CTL, kpg_compose(cmd, "fns ", n, ""), 0);
		hits = kpg_count_read(map);
		if (hits < 0 && !ret)
			ret = -hits;
	}
	send_msg(up, ret, done, hits);
	exit(0);
}

static int by_bpf(int n)
{
	unsigned long long t0, t1, att = 0, ex = 0, total;
	int up[2], ret = 0, done = 0;
	long long hits = 0;
	struct msg m;
	pid_t pid;

	if (pipe(up)) {
		ret = errno;
		goto out;
	}
	t0 = kpg_now_ns();
	pid = fork();
	if (pid == 0) {
		close(up[0]);
		bpf_child(n, up[1]);
	}
	if (pid < 0) {
		ret = errno;
		goto out;
	}
	close(up[1]);
	if (recv_msg(up[0], &m) == 0) {
		att = kpg_now_ns() - t0;
		ret = m.ret;
		done = m.done;
	} else {
		ret = EPIPE;
	}
	if (recv_msg(up[0], &m) == 0) {
		ret = ret ? ret : m.ret;
		hits = m.hits;
	} else {
		ret = ret ? ret : EPIPE;
	}
	/*
	 * From the child's last word (it exits right after) until reaped,
	 * timed from when the child sent it: this process may run only once
	 * the child has gone.
	 */
	t1 = m.sent ? m.sent : kpg_now_ns();
	waitpid(pid, NULL, 0);
	ex = kpg_now_ns() - t1;
	total = kpg_now_ns() - t0;
	close(up[0]);
	printf("BENCHRES row=attach via=bpf n=%d ret=%d done=%d hits=%lld attach_ns=%llu exit_ns=%llu total_ns=%llu\n",
	       n, ret, done, hits, att, ex, total);
	return ret != 0;
out:
	printf("BENCHRES row=attach via=bpf n=%d ret=%d done=0\n", n, ret);
	return 1;
}

int main(int argc, char **argv)
{
	int n;

	if (argc != 3) {
		printf("usage: kp_attach perf|perf4|events|trunc|multi|bpf N\n");
		return 2;
	}
	n = atoi(argv[2]);
	if (n <= 0 || n > NMAX) {
		printf("kp_attach: N must be 1 to %d\n", NMAX);
		return 2;
	}
	/* one fd per perf event, beyond the default limit of 1024 */
	kpg_nofile(NMAX + 64);
	if (!strcmp(argv[1], "perf"))
		return by_perf(n);
	if (!strcmp(argv[1], "perf4"))
		return by_perf4(n);
	if (!strcmp(argv[1], "events"))
		return by_events(n);
	if (!strcmp(argv[1], "trunc"))
		return by_events_batch(n, 0);
	if (!strcmp(argv[1], "multi"))
		return by_events_batch(n, 1);
	if (!strcmp(argv[1], "bpf"))
		return by_bpf(n);
	printf("kp_attach: perf, perf4, events, trunc, multi or bpf, not %s\n", argv[1]);
	return 2;
}
