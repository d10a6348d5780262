// SPDX-License-Identifier: GPL-2.0
/*
 * kp_detach: what detaching a kprobe must guarantee, and detaching under
 * load.
 *
 *   kp_detach closed [-r] FUNC CALLFILE
 *       A perf event of the kprobe PMU on FUNC (-r: a kretprobe) with a
 *       BPF program that counts its runs in an array map (the map's fd is
 *       kept to the end), and a hitter process pinned to another CPU than
 *       ours that keeps writing "100" to CALLFILE (a write that calls FUNC
 *       100 times: kp_target.ko's call file), counting its calls.  The
 *       count must grow while the event is open.  Then the event is
 *       closed, membarrier(MEMBARRIER_CMD_GLOBAL) waits for an RCU grace
 *       period (handlers that had begun have ended), the count is read,
 *       the hitter calls on for at least 200 ms and 5000 calls, and the
 *       count is read again.  Prints one line:
 *
 *         CLOSED ret=0|ERRNO cpus=N cpu=A hitter_cpu=B open_runs=R
 *                open_calls=C inflight_runs=R membarrier=0|ERRNO
 *                after_runs=R after_calls=C after_ms=T hitter_err=0|ERRNO
 *
 *       ret is the errno of the step that failed (ENODEV: fewer than two
 *       CPUs to run on); open_runs the runs counted over open_calls calls
 *       while open; inflight_runs those between the last read while open
 *       and the grace period's end; after_runs those over the after_calls
 *       calls of the after_ms that followed (0 when a closed event gets
 *       no further run).
 *
 *   kp_detach churn SECONDS CALLFILE FALLIBLEFILE FUNC...
 *       For SECONDS: a hitter pinned on every CPU writing to CALLFILE and
 *       FALLIBLEFILE (kp_target.ko's: they call some of the FUNCs); two
 *       processes opening and closing kprobe PMU events on the FUNCs
 *       (kprobes and kretprobes, one of the two with a counting BPF
 *       program on each, groups of 1 to 4 closed in either order, and
 *       every 8th group left to a child that exits without closing
 *       them); one process creating kprobe events on the FUNCs
 *       (kprobe_events, p and r), enabling, disabling and removing them:
 *       one "-:name" write each, one write of all the "-:name" lines (to
 *       kprobe_events or dynamic_events), or one O_TRUNC open of
 *       kprobe_events; every 4th round an O_TRUNC open while one event is
 *       enabled, which must fail with EBUSY and remove nothing.  Any
 *       other error is unexpected.  Prints
 *
 *         CHURN seconds=S
 *         CHURN hitter cpu=N calls=C errors=0|1 err=0|ERRNO
 *         CHURN perf bpf=0|1 groups=G opens=O kretprobes=K exits=X
 *               errors=E [first=OP:ERRNO:FUNC]
 *         CHURN events rounds=R created=C single=S multi=M dynamic=D
 *               trunc=T busy=B errors=E [first=OP:ERRNO]
 *
 *   kp_detach inert FUNC CALLFILE DIVERTEDFILE DECOY...
 *       A kretprobe event of the kprobe PMU on FUNC, without a program,
 *       and a kprobe event on each DECOY; a hitter pinned to another CPU
 *       keeps writing "100" to CALLFILE (kp_target.ko's retcall, whose
 *       calls of FUNC count in DIVERTEDFILE those whose return a
 *       kretprobe diverted).  While open, returns are diverted.  Then
 *       the decoys are closed, so that the reaper of closed events is
 *       busy with them, and 2 ms later the kretprobe's event; the
 *       diverted count is read right after that close() and again after
 *       at least 200 ms and 5000 more calls.  Prints
 *
 *         INERT ret=0|ERRNO open_calls=C open_diverted=D after_calls=C
 *               after_diverted=D
 *
 *       after_diverted: the calls diverted after close() returned (at
 *       most the one the hitter was making then, when a closed
 *       kretprobe diverts no more returns).
 *
 *   kp_detach stall FILE PAGE WAITING RELEASE 'COMMANDS' 'OTHER' 'CMD'
 *       A write to FILE (kprobe_events, dynamic_events) of COMMANDS and a
 *       page of empty lines, followed by the page of kp_slowpage.ko
 *       (PAGE, WAITING, RELEASE: its files), so that the writer runs
 *       COMMANDS and then waits in copy_from_user().  While it waits,
 *       another process writes OTHER to FILE (allowed 5 s), and the
 *       shell command CMD runs; then the page is released.  Prints
 *
 *         STALL ret=0|ERRNO stalled=0|1 other_done=0|1 other_status=S
 *               cmd_status=S writer_status=S
 *
 *       other_done: the other write returned while the first waited;
 *       the statuses are 0 or an errno.
 *
 * Built with the kernel's nolibc (tools/include/nolibc), as kp_perfsb.
 */
#include "kp_guest.h"

#define TRACEFS		"/sys/kernel/tracing"
#define NFUNCS		8
#define NEVENTS		6
#define NPERF		2

/* ---- closed ---------------------------------------------------------- */

struct hitter {
	volatile unsigned long long calls;
	volatile int stop;
	volatile int err;
	volatile int started;
	int cpu;
};

/* Write "@what" to @path until told to stop, counting @per calls a write. */
static void hitter_run(struct hitter *h, const char *path, const char *what,
		       unsigned long per, const char *path2)
{
	int fd = open(path, O_WRONLY), fd2 = -1;
	int r;

	if (path2)
		fd2 = open(path2, O_WRONLY);
	r = kpg_pin(h->cpu);
	if (r < 0)
		h->err = -r;
	else if (fd < 0 || (path2 && fd2 < 0))
		h->err = errno;
	h->started = 1;
	if (h->err)
		exit(1);
	while (!h->stop) {
		if (write(fd, what, strlen(what)) != (ssize_t)strlen(what)) {
			h->err = errno;
			break;
		}
		h->calls += per;
		if (fd2 >= 0 && write(fd2, "1", 1) != 1) {
			h->err = errno;
			break;
		}
	}
	exit(h->err != 0);
}

/* wait (at most @max_ms) until @h made @calls more calls than @from */
static int wait_calls(struct hitter *h, unsigned long long from,
		      unsigned long long calls, unsigned int min_ms,
		      unsigned int max_ms)
{
	unsigned long long t0 = kpg_now_ns(), ms;

	for (;;) {
		ms = (kpg_now_ns() - t0) / 1000000;
		if (h->err || ms >= max_ms)
			return -1;
		if (ms >= min_ms && h->calls - from >= calls)
			return 0;
		msleep(10);
	}
}

static int closed(int argc, char **argv)
{
	long long c1 = 0, c2 = 0, c3 = 0, c4 = 0;
	unsigned long long h1 = 0, h2 = 0, h3 = 0, h4 = 0, t0, after_ms = 0;
	int cpus[KPG_NCPU], ncpu, map, prog, ev, ret = 0, mb = 0, retprobe = 0;
	const char *func, *callfile;
	struct hitter *h;
	pid_t pid = -1;

	if (argc > 2 && !strcmp(argv[2], "-r")) {
		retprobe = 1;
		argv++;
		argc--;
	}
	if (argc != 4) {
		printf("usage: kp_detach closed [-r] FUNC CALLFILE\n");
		return 2;
	}
	func = argv[2];
	callfile = argv[3];
	h = kpg_shared(sizeof(*h));
	if (!h)
		return 1;
	ncpu = kpg_cpus(cpus);
	if (ncpu < 2) {
		/* the hitter must run beside us, not instead of us */
		ret = ncpu < 0 ? -ncpu : ENODEV;
		goto out;
	}
	h->cpu = cpus[1];
	if (kpg_pin(cpus[0]) < 0) {
		ret = errno;
		goto out;
	}
	/*
	 * The hitter first: forked later, it would hold the event's file
	 * too, and our close() would not be the last.
	 */
	pid = fork();
	if (pid == 0)
		hitter_run(h, callfile, "100", 100, NULL);
	if (pid < 0) {
		ret = errno;
		goto out;
	}
	map = kpg_count_map();
	prog = map < 0 ? map : kpg_count_prog(map);
	if (prog < 0) {
		ret = -prog;
		goto out;
	}
	ev = kpg_kprobe_open(func, 0, retprobe);
	if (ev < 0) {
		ret = -ev;
		goto out;
	}
	if (ioctl(ev, PERF_EVENT_IOC_SET_BPF, (void *)(long)prog) < 0 ||
	    ioctl(ev, PERF_EVENT_IOC_ENABLE, 0) < 0) {
		ret = errno;
		goto out;
	}
	/* open: the program runs for the hitter's calls */
	if (wait_calls(h, h->calls, 1000, 0, 20000)) {
		ret = h->err ? h->err : ETIMEDOUT;
		goto out;
	}
	c1 = kpg_count_read(map);
	h1 = h->calls;
	if (wait_calls(h, h1, 2000, 0, 20000)) {
		ret = h->err ? h->err : ETIMEDOUT;
		goto out;
	}
	c2 = kpg_count_read(map);
	h2 = h->calls;
	/* closed, and every handler that had begun has ended */
	close(ev);
	mb = my_syscall3(__NR_membarrier, 1 /* MEMBARRIER_CMD_GLOBAL */, 0, 0);
	if (mb < 0) {
		ret = -mb;
		goto out;
	}
	c3 = kpg_count_read(map);
	h3 = h->calls;
	t0 = kpg_now_ns();
	if (wait_calls(h, h3, 5000, 200, 20000)) {
		ret = h->err ? h->err : ETIMEDOUT;
		goto out;
	}
	c4 = kpg_count_read(map);
	h4 = h->calls;
	after_ms = (kpg_now_ns() - t0) / 1000000;
	if (c1 < 0 || c2 < 0 || c3 < 0 || c4 < 0)
		ret = EIO;
out:
	h->stop = 1;
	if (pid > 0)
		waitpid(pid, NULL, 0);
	printf("CLOSED ret=%d cpus=%d cpu=%d hitter_cpu=%d open_runs=%lld open_calls=%llu inflight_runs=%lld membarrier=%d after_runs=%lld after_calls=%llu after_ms=%llu hitter_err=%d\n",
	       ret, ncpu, ncpu > 0 ? cpus[0] : -1, ncpu > 1 ? cpus[1] : -1,
	       c2 - c1, h2 - h1, c3 - c2, mb < 0 ? -mb : 0, c4 - c3, h4 - h3,
	       after_ms, h->err);
	return ret != 0;
}

/* ---- inert ----------------------------------------------------------- */

#define NDECOY	8

static int inert(int argc, char **argv)
{
	unsigned long long h1 = 0, h2 = 0, h3 = 0, h4 = 0;
	int d1 = 0, d2 = 0, d3 = 0, d4 = 0;
	int cpus[KPG_NCPU], decoy[NDECOY], ndecoy = 0, ncpu, ev = -1;
	int ret = 0, i;
	const char *divfile;
	struct hitter *h;
	pid_t pid = -1;

	if (argc < 6 || argc - 5 > NDECOY) {
		printf("usage: kp_detach inert FUNC CALLFILE DIVERTEDFILE DECOY...\n");
		return 2;
	}
	divfile = argv[4];
	h = kpg_shared(sizeof(*h));
	if (!h)
		return 1;
	ncpu = kpg_cpus(cpus);
	if (ncpu < 2) {
		ret = ncpu < 0 ? -ncpu : ENODEV;
		goto out;
	}
	h->cpu = cpus[1];
	if (kpg_pin(cpus[0]) < 0) {
		ret = errno;
		goto out;
	}
	/* forked before the events are opened: our close() is the last */
	pid = fork();
	if (pid == 0)
		hitter_run(h, argv[3], "100", 100, NULL);
	if (pid < 0) {
		ret = errno;
		goto out;
	}
	for (i = 5; i < argc; i++) {
		decoy[ndecoy] = kpg_kprobe_open(argv[i], 0, 0);
		if (decoy[ndecoy] < 0) {
			ret = -decoy[ndecoy];
			goto out;
		}
		ndecoy++;
	}
	ev = kpg_kprobe_open(argv[2], 0, 1);
	if (ev < 0) {
		ret = -ev;
		goto out;
	}
	if (ioctl(ev, PERF_EVENT_IOC_ENABLE, 0) < 0) {
		ret = errno;
		goto out;
	}
	if (wait_calls(h, h->calls, 1000, 0, 20000)) {
		ret = h->err ? h->err : ETIMEDOUT;
		goto out;
	}
	/*
	 * The count first, then the calls: the hitter's CPU may run for a
	 * long while between two of our reads (one host thread runs every
	 * vCPU in turn), and the calls we wait for must come after d1.
	 */
	d1 = kpg_read_int(divfile, 0);
	h1 = h->calls;
	if (wait_calls(h, h1, 2000, 0, 20000)) {
		ret = h->err ? h->err : ETIMEDOUT;
		goto out;
	}
	h2 = h->calls;
	d2 = kpg_read_int(divfile, 0);
	/* the reaper busy with the decoys, then the kretprobe closed */
	while (ndecoy)
		close(decoy[--ndecoy]);
	msleep(2);
	close(ev);
	ev = -1;
	d3 = kpg_read_int(divfile, 0);
	h3 = h->calls;
	if (wait_calls(h, h3, 5000, 200, 20000)) {
		ret = h->err ? h->err : ETIMEDOUT;
		goto out;
	}
	h4 = h->calls;
	d4 = kpg_read_int(divfile, 0);
	if (d1 < 0 || d2 < 0 || d3 < 0 || d4 < 0)
		ret = EIO;
out:
	h->stop = 1;
	if (pid > 0)
		waitpid(pid, NULL, 0);
	while (ndecoy)
		close(decoy[--ndecoy]);
	if (ev >= 0)
		close(ev);
	printf("INERT ret=%d open_calls=%llu open_diverted=%d after_calls=%llu after_diverted=%d\n",
	       ret, h2 - h1, d2 - d1, h4 - h3, d4 - d3);
	return ret != 0;
}

/* ---- stall ----------------------------------------------------------- */

#define STALL_PAGE	4096

/* Write @len bytes of @buf to @path in one write(): 0 or an errno. */
static int write_once(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_APPEND);
	ssize_t n;

	if (fd < 0)
		return errno;
	n = write(fd, buf, len);
	close(fd);
	if (n < 0)
		return errno;
	return (size_t)n == len ? 0 : EIO;
}

/* waitpid() for at most @ms: the child's exit code, or -1 if it runs on */
static int wait_child(pid_t pid, unsigned int ms)
{
	unsigned long long t0 = kpg_now_ns();
	int status;

	for (;;) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 255;
		if ((kpg_now_ns() - t0) / 1000000 >= ms)
			return -1;
		msleep(10);
	}
}

static int stall(int argc, char **argv)
{
	int ret = 0, stalled = 0, other_done = 0, other = -1, cmd = -1;
	int writer = -1, fd, i, len;
	pid_t wpid = -1, opid = -1;
	char *buf;

	if (argc != 9) {
		printf("usage: kp_detach stall FILE PAGE WAITING RELEASE 'COMMANDS' 'OTHER' 'CMD'\n");
		return 2;
	}
	len = strlen(argv[6]);
	if (len + 1 >= STALL_PAGE - 1)
		return 2;
	buf = mmap(NULL, 2 * STALL_PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return 1;
	/*
	 * COMMANDS, then newlines to the end of the first page: the first
	 * copy_from_user() of the write (a page less one byte) ends on a
	 * line's end, and the second touches the slow page.
	 */
	memcpy(buf, argv[6], len);
	for (i = len; i < STALL_PAGE; i++)
		buf[i] = '\n';
	fd = open(argv[3], O_RDONLY);
	if (fd < 0 || mmap(buf + STALL_PAGE, STALL_PAGE, PROT_READ,
			   MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
		ret = errno;
		goto out;
	}
	close(fd);
	wpid = fork();
	if (wpid == 0)
		exit(write_once(argv[2], buf, STALL_PAGE + 64));
	if (wpid < 0) {
		ret = errno;
		goto out;
	}
	for (i = 0; i < 1000 && !stalled; i++) {
		stalled = kpg_read_int(argv[4], 0) == 1;
		if (!stalled)
			msleep(10);
	}
	if (!stalled) {
		ret = ETIMEDOUT;
		goto out;
	}
	opid = fork();
	if (opid == 0)
		exit(write_once(argv[2], argv[7], strlen(argv[7])));
	if (opid < 0) {
		ret = errno;
		goto out;
	}
	other = wait_child(opid, 5000);
	other_done = other >= 0;
	if (other_done)
		opid = -1;
	cmd = kpg_sh(argv[8]);
out:
	kpg_write_file(argv[5], "1", 0);
	if (wpid > 0)
		writer = wait_child(wpid, 20000);
	if (opid > 0)
		other = wait_child(opid, 20000);
	printf("STALL ret=%d stalled=%d other_done=%d other_status=%d cmd_status=%d writer_status=%d\n",
	       ret, stalled, other_done, other, cmd, writer);
	return ret != 0;
}

/* ---- churn ----------------------------------------------------------- */

struct tally {
	unsigned long long ops[8];
	unsigned long long errors;
	char first[80];
};

static void note_error(struct tally *t, const char *op, int err, const char *func)
{
	char *p;

	if (!t->errors++) {
		p = t->first;
		strcpy(p, op);
		p += strlen(p);
		kpg_compose(p, ":", err, func ? ":" : "");
		if (func)
			strlcat(t->first, func, sizeof(t->first));
	}
}

static const char *funcs[NFUNCS];
static int nfuncs;
static unsigned long long deadline;

static int time_left(void)
{
	return kpg_now_ns() < deadline;
}

/* perf tally slots */
enum { P_GROUPS, P_OPENS, P_KRET, P_EXITS };

/*
 * Open a group of @k events from @first (kretprobes on odd indexes), each
 * with @prog when >= 0; their fds in @fds, how many opened.
 */
static int perf_group(struct tally *t, int first, int k, int prog, int *fds)
{
	int j, n = 0;

	for (j = 0; j < k; j++) {
		const char *f = funcs[(first + j) % nfuncs];
		int ret = (first + j) & 1;
		int fd = kpg_kprobe_open(f, 0, ret);

		if (fd < 0) {
			note_error(t, ret ? "open-kretprobe" : "open-kprobe", -fd, f);
			continue;
		}
		t->ops[P_OPENS]++;
		t->ops[P_KRET] += ret;
		if (prog >= 0 &&
		    ioctl(fd, PERF_EVENT_IOC_SET_BPF, (void *)(long)prog) < 0)
			note_error(t, "set-bpf", errno, f);
		if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
			note_error(t, "enable", errno, f);
		fds[n++] = fd;
	}
	return n;
}

static void perf_churn(struct tally *t, int bpf)
{
	int fds[4], round, map, prog = -1, n, j, status;
	pid_t pid;

	if (bpf) {
		map = kpg_count_map();
		prog = map < 0 ? map : kpg_count_prog(map);
		if (prog < 0) {
			note_error(t, "bpf-load", -prog, NULL);
			exit(1);
		}
	}
	/* at least once each group size, order and a child's exit */
	for (round = 0; time_left() || round < 8; round++) {
		int k = 1 + round % 4;

		t->ops[P_GROUPS]++;
		if (round % 8 == 7) {
			/* a tracer that ends without closing its events */
			pid = fork();
			if (pid == 0) {
				perf_group(t, round, k, prog, fds);
				msleep(2);
				exit(0);
			}
			if (pid < 0 || waitpid(pid, &status, 0) < 0)
				note_error(t, "fork", errno, NULL);
			else
				t->ops[P_EXITS]++;
			continue;
		}
		n = perf_group(t, round, k, prog, fds);
		if (round & 1)
			msleep(1);
		for (j = 0; j < n; j++)
			close(fds[round & 2 ? n - 1 - j : j]);
	}
	exit(0);
}

/* events tally slots */
enum { E_ROUNDS, E_CREATED, E_SINGLE, E_MULTI, E_DYNAMIC, E_TRUNC, E_BUSY };

static char *ev_enable(char *path, int j)
{
	return kpg_compose(path, TRACEFS "/events/kprobes/kpd", j, "/enable");
}

static void events_churn(struct tally *t)
{
	char line[96], path[96], rm[NEVENTS * 16], *p;
	int round, j, r, fd, n, left;

	/* at least once each way of removing them, and the EBUSY case */
	for (round = 0; time_left() || round < 5; round++) {
		t->ops[E_ROUNDS]++;
		n = 0;
		for (j = 0; j < NEVENTS; j++) {
			const char *f = funcs[(round + j) % nfuncs];

			kpg_compose(line, j & 1 ? "r:kpd" : "p:kpd", j, " ");
			strlcat(line, f, sizeof(line));
			strlcat(line, "\n", sizeof(line));
			r = kpg_write_file(TRACEFS "/kprobe_events", line, O_APPEND);
			if (r) {
				note_error(t, "create", r, f);
				break;
			}
			t->ops[E_CREATED]++;
			n++;
		}
		for (j = 0; j < n; j++) {
			r = kpg_write_file(ev_enable(path, j), "1", 0);
			if (r)
				note_error(t, "enable", r, NULL);
		}
		msleep(2);
		if (round % 4 == 3 && n) {
			/* an enabled event: the O_TRUNC open fails, nothing goes */
			for (j = 1; j < n; j++)
				kpg_write_file(ev_enable(path, j), "0", 0);
			fd = open(TRACEFS "/kprobe_events", O_WRONLY | O_TRUNC);
			if (fd >= 0) {
				close(fd);
				note_error(t, "trunc-while-enabled", 0, NULL);
			} else if (errno != EBUSY) {
				note_error(t, "trunc-while-enabled", errno, NULL);
			} else if (kpg_count_lines(TRACEFS "/kprobe_events") != n) {
				note_error(t, "trunc-busy-removed", EBUSY, NULL);
			} else {
				t->ops[E_BUSY]++;
			}
		}
		for (j = 0; j < n; j++) {
			r = kpg_write_file(ev_enable(path, j), "0", 0);
			if (r)
				note_error(t, "disable", r, NULL);
		}
		switch (round % 3) {
		case 0:
			for (j = 0; j < n; j++) {
				r = kpg_write_file(TRACEFS "/kprobe_events",
						   kpg_compose(line, "-:kpd", j, "\n"),
						   O_APPEND);
				if (r)
					note_error(t, "remove", r, NULL);
			}
			t->ops[E_SINGLE]++;
			break;
		case 1:
			p = rm;
			for (j = 0; j < n; j++) {
				kpg_compose(p, "-:kpd", j, "\n");
				p += strlen(p);
			}
			/* every other time through dynamic_events */
			r = kpg_write_file(round % 2 ? TRACEFS "/kprobe_events" :
					   TRACEFS "/dynamic_events", rm, O_APPEND);
			if (r)
				note_error(t, round % 2 ? "remove-lines" :
					   "remove-lines-dynamic", r, NULL);
			t->ops[round % 2 ? E_MULTI : E_DYNAMIC]++;
			break;
		default:
			fd = open(TRACEFS "/kprobe_events", O_WRONLY | O_TRUNC);
			if (fd < 0)
				note_error(t, "trunc", errno, NULL);
			else
				close(fd);
			t->ops[E_TRUNC]++;
			break;
		}
		left = kpg_count_lines(TRACEFS "/kprobe_events");
		if (left) {
			note_error(t, "left", left, NULL);
			/* start the next round clean */
			fd = open(TRACEFS "/kprobe_events", O_WRONLY | O_TRUNC);
			if (fd >= 0)
				close(fd);
		}
	}
	exit(0);
}

static void print_first(struct tally *t)
{
	if (t->errors)
		printf(" first=%s", t->first);
	printf("\n");
}

static int churn(int argc, char **argv)
{
	int cpus[KPG_NCPU], ncpu, i, nproc = 0, bad = 0, secs;
	struct tally *perf, *ev;
	unsigned long long t0;
	struct hitter *hs;
	pid_t pids[KPG_NCPU + NPERF + 1];

	if (argc < 6) {
		printf("usage: kp_detach churn SECONDS CALLFILE FALLIBLEFILE FUNC...\n");
		return 2;
	}
	secs = atoi(argv[2]);
	for (i = 5; i < argc && nfuncs < NFUNCS; i++)
		funcs[nfuncs++] = argv[i];
	ncpu = kpg_cpus(cpus);
	if (ncpu < 1) {
		printf("CHURN ret=%d\n", -ncpu);
		return 1;
	}
	hs = kpg_shared(KPG_NCPU * sizeof(*hs));
	perf = kpg_shared((NPERF + 1) * sizeof(*perf));
	if (!hs || !perf)
		return 1;
	ev = &perf[NPERF];
	t0 = kpg_now_ns();
	deadline = t0 + secs * 1000000000ULL;
	for (i = 0; i < ncpu; i++) {
		hs[i].cpu = cpus[i];
		pids[nproc] = fork();
		if (pids[nproc] == 0)
			hitter_run(&hs[i], argv[3], "20", 20, argv[4]);
		if (pids[nproc] > 0)
			nproc++;
	}
	for (i = 0; i < NPERF; i++) {
		pids[nproc] = fork();
		if (pids[nproc] == 0)
			perf_churn(&perf[i], i);
		if (pids[nproc] > 0)
			nproc++;
	}
	pids[nproc] = fork();
	if (pids[nproc] == 0)
		events_churn(ev);
	if (pids[nproc] > 0)
		nproc++;
	/* the churners end on their own; then the hitters are stopped */
	for (i = ncpu; i < nproc; i++)
		waitpid(pids[i], NULL, 0);
	for (i = 0; i < ncpu; i++)
		hs[i].stop = 1;
	for (i = 0; i < ncpu; i++)
		waitpid(pids[i], NULL, 0);
	printf("CHURN seconds=%llu\n", (kpg_now_ns() - t0) / 1000000000ULL);
	if (nproc != ncpu + NPERF + 1) {
		printf("CHURN ret=%d forked=%d\n", EAGAIN, nproc);
		bad = 1;
	}
	for (i = 0; i < ncpu; i++)
		printf("CHURN hitter cpu=%d calls=%llu errors=%d err=%d\n",
		       hs[i].cpu, hs[i].calls, hs[i].err ? 1 : 0, hs[i].err);
	for (i = 0; i < NPERF; i++) {
		printf("CHURN perf bpf=%d groups=%llu opens=%llu kretprobes=%llu exits=%llu errors=%llu",
		       i, perf[i].ops[P_GROUPS], perf[i].ops[P_OPENS],
		       perf[i].ops[P_KRET], perf[i].ops[P_EXITS], perf[i].errors);
		print_first(&perf[i]);
	}
	printf("CHURN events rounds=%llu created=%llu single=%llu multi=%llu dynamic=%llu trunc=%llu busy=%llu errors=%llu",
	       ev->ops[E_ROUNDS], ev->ops[E_CREATED], ev->ops[E_SINGLE],
	       ev->ops[E_MULTI], ev->ops[E_DYNAMIC], ev->ops[E_TRUNC],
	       ev->ops[E_BUSY], ev->errors);
	print_first(ev);
	return bad;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "closed"))
		return closed(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "churn"))
		return churn(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "inert"))
		return inert(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "stall"))
		return stall(argc, argv);
	printf("usage: kp_detach closed|churn|inert|stall ...\n");
	return 2;
}
