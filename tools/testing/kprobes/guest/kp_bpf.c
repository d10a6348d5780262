// SPDX-License-Identifier: GPL-2.0
/*
 * kp_bpf: a BPF kprobe program, attached as libbpf, bpftrace and perf
 * attach one (a perf_event_open() of the kprobe PMU, then
 * PERF_EVENT_IOC_SET_BPF), while a command runs.
 *
 *   kp_bpf [-r] [-s] [-l] [-o ERRNO] FUNC OFFSET 'shell command'
 *
 * The program records, in an array map, what BPF programs see of a hit:
 * bpf_get_func_ip(), the number of hits, the ip of its pt_regs (ctx) and
 * the first argument (entry) or the return value (-r: a kretprobe).
 * With -o it also calls bpf_override_return(ctx, -ERRNO), as BPF error
 * injection does; with -s, bpf_get_stack(ctx, buf, size, 0) of the last
 * hit, as bpftrace's kstack and profilers read it.  After the command it
 * prints one line:
 *
 *   BPF ret=0|ERRNO hits=N func_ip=HEX ctx_ip=HEX reg=N status=S
 *       [stack=BYTES frames=HEX,HEX,...]
 *
 * With -u, FUNC is a file and OFFSET an offset in it: a uprobe event of
 * the uprobe PMU instead; FUNC "self" is kp_bpf's own file at its
 * main() (OFFSET ignored), a probe that is never hit.
 *
 * With -l the event holds the last reference to the program when it is
 * closed (the program's fd is closed first), and a second line follows:
 *
 *   last_ref_alive=0|1 gone=0|1
 *
 * last_ref_alive: the program could still be found by its id right after
 * close() returned (its reference is dropped after an RCU grace period,
 * as a run that began before may still be executing); gone: it was found
 * no more within 10 s.
 *
 * ret is the errno of the first step that failed (the verifier's log
 * follows when the program was refused).  The program is assembled here, by hand: the
 * guest has no BPF toolchain.  Built with the kernel's nolibc
 * (tools/include/nolibc), as kp_perfsb.
 */
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <asm/ptrace.h>

#include "kp_guest.h"

#ifndef __NR_bpf
#error no bpf
#endif

#if defined(__x86_64__)
/* struct pt_regs of the uapi, as BPF kprobe programs see it */
#define CTX_IP		offsetof(struct pt_regs, rip)
#define CTX_ARG0	offsetof(struct pt_regs, rdi)
#define CTX_RET		offsetof(struct pt_regs, rax)
#elif defined(__aarch64__)
#define CTX_IP		offsetof(struct user_pt_regs, pc)
#define CTX_ARG0	offsetof(struct user_pt_regs, regs[0])
#define CTX_RET		offsetof(struct user_pt_regs, regs[0])
#else
#error kp_bpf: x86_64 and arm64 only
#endif

/* the map's one value: the words, then the stack's frames (-s) */
enum { V_FUNC_IP, V_HITS, V_CTX_IP, V_REG, V_STACK_LEN, V_STACK,
       V_N = V_STACK + 16 };

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
			    .off = (o), .imm = (i) })

static char verifier_log[16384];

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return my_syscall3(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int map_create(void)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = V_N * 8;
	a.max_entries = 1;
	return sys_bpf(BPF_MAP_CREATE, &a);
}

static int prog_load(int map, int ret_probe, int override, int stack)
{
	struct bpf_insn p[40];
	union bpf_attr a;
	int n = 0;

	/* r6 = ctx */
	p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	/* r0 = bpf_get_func_ip(ctx) */
	p[n++] = INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_func_ip);
	/* r7 = &value (a direct map value load: two instructions) */
	p[n++] = INSN(BPF_LD | BPF_DW | BPF_IMM, 7, BPF_PSEUDO_MAP_VALUE, 0, map);
	p[n++] = INSN(0, 0, 0, 0, 0);
	p[n++] = INSN(BPF_STX | BPF_MEM | BPF_DW, 7, 0, V_FUNC_IP * 8, 0);
	/* lock value[V_HITS] += 1 */
	p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, 1);
	p[n++] = INSN(BPF_STX | BPF_ATOMIC | BPF_DW, 7, 1, V_HITS * 8, BPF_ADD);
	p[n++] = INSN(BPF_LDX | BPF_MEM | BPF_DW, 1, 6, 0, 0);
	p[n - 1].off = CTX_IP;
	p[n++] = INSN(BPF_STX | BPF_MEM | BPF_DW, 7, 1, V_CTX_IP * 8, 0);
	p[n++] = INSN(BPF_LDX | BPF_MEM | BPF_DW, 1, 6, 0, 0);
	p[n - 1].off = ret_probe ? CTX_RET : CTX_ARG0;
	p[n++] = INSN(BPF_STX | BPF_MEM | BPF_DW, 7, 1, V_REG * 8, 0);
	if (stack) {
		/* value[V_STACK_LEN] = bpf_get_stack(ctx, &value[V_STACK], size, 0) */
		p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
		p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, 2, 7, 0, 0);
		p[n++] = INSN(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, V_STACK * 8);
		p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0,
			      (V_N - V_STACK) * 8);
		p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, 0);
		p[n++] = INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_stack);
		p[n++] = INSN(BPF_STX | BPF_MEM | BPF_DW, 7, 0, V_STACK_LEN * 8, 0);
	}
	if (override) {
		/* bpf_override_return(ctx, -override) */
		p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0);
		p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, -override);
		p[n++] = INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_override_return);
	}
	p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
	p[n++] = INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_KPROBE;
	a.insns = (unsigned long)p;
	a.insn_cnt = n;
	/* bpf_get_func_ip() and bpf_override_return() are GPL only */
	a.license = (unsigned long)"GPL";
	a.log_level = 1;
	a.log_buf = (unsigned long)verifier_log;
	a.log_size = sizeof(verifier_log);
	return sys_bpf(BPF_PROG_LOAD, &a);
}

static int kprobe_open(const char *func, unsigned long off, int ret_probe,
		       int uprobe)
{
	const char *pmu = uprobe ? "/sys/bus/event_source/devices/uprobe" :
				   "/sys/bus/event_source/devices/kprobe";
	struct perf_event_attr attr;
	char path[96];
	int type, bit = 0;

	strcpy(path, pmu);
	strcpy(path + strlen(path), "/type");
	type = kpg_read_int(path, 0);
	if (type < 0)
		return -ENOENT;
	if (ret_probe) {
		/* "config:N" */
		strcpy(path, pmu);
		strcpy(path + strlen(path), "/format/retprobe");
		bit = kpg_read_int(path, 7);
		if (bit < 0)
			return -ENOENT;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = ret_probe ? 1ULL << bit : 0;
	attr.config1 = (unsigned long)func;	/* kprobe_func, uprobe_path */
	attr.config2 = off;			/* probe_offset */
	attr.sample_period = 1;
	attr.wakeup_events = 1;
	return my_syscall5(__NR_perf_event_open, &attr, -1, 0, -1,
			   PERF_FLAG_FD_CLOEXEC);
}

int main(int argc, char **argv);

static unsigned long hexval(const char **p)
{
	unsigned long v = 0;
	int d;

	for (;; (*p)++) {
		d = **p >= '0' && **p <= '9' ? **p - '0' :
		    **p >= 'a' && **p <= 'f' ? **p - 'a' + 10 : -1;
		if (d < 0)
			return v;
		v = v * 16 + d;
	}
}

/*
 * -u self: the file and file offset of main(), from /proc/self/maps
 * ("start-end perms offset dev inode path"); 0 or -1.
 */
static int self_main(char *path, size_t len, unsigned long *off)
{
	static char maps[16384];
	unsigned long addr = (unsigned long)main, start, end, pgoff;
	const char *l, *p;
	ssize_t n;
	size_t k;
	int fd;

	fd = open("/proc/self/maps", O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, maps, sizeof(maps) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	maps[n] = '\0';
	for (l = maps; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		p = l;
		start = hexval(&p);
		p++;
		end = hexval(&p);
		if (addr < start || addr >= end)
			continue;
		p = strchr(p, ' ');		/* perms */
		if (!p)
			return -1;
		p++;
		p = strchr(p, ' ');		/* offset */
		if (!p)
			return -1;
		p++;
		pgoff = hexval(&p);
		p = strchr(p, '/');
		if (!p)
			return -1;
		for (k = 0; k + 1 < len && p[k] && p[k] != '\n'; k++)
			path[k] = p[k];
		path[k] = '\0';
		*off = addr - start + pgoff;
		return 0;
	}
	return -1;
}

/* -l: the id of @prog, 0 on error */
static unsigned int prog_id(int prog)
{
	struct bpf_prog_info info;
	union bpf_attr a;

	memset(&info, 0, sizeof(info));
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = prog;
	a.info.info_len = sizeof(info);
	a.info.info = (unsigned long)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a) < 0)
		return 0;
	return info.id;
}

/* -l: whether the program of @id still exists */
static int prog_alive(unsigned int id)
{
	union bpf_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.prog_id = id;
	fd = sys_bpf(BPF_PROG_GET_FD_BY_ID, &a);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static void hex(const char *name, unsigned long long v)
{
	/* nolibc's printf has %llx but no field width: none is needed */
	printf(" %s=%llx", name, v);
}

static int report(int ret, const unsigned long long *v, int status,
		  int stack)
{
	long long len = ret ? 0 : (long long)v[V_STACK_LEN];
	int i;

	printf("BPF ret=%d hits=%llu", ret, ret ? 0ULL : v[V_HITS]);
	hex("func_ip", ret ? 0 : v[V_FUNC_IP]);
	hex("ctx_ip", ret ? 0 : v[V_CTX_IP]);
	printf(" reg=%lld status=%d", ret ? 0LL : (long long)v[V_REG], status);
	if (stack) {
		printf(" stack=%lld frames=", len);
		for (i = 0; i < len / 8 && i < V_N - V_STACK; i++)
			printf("%s%llx", i ? "," : "", v[V_STACK + i]);
	}
	printf("\n");
	return ret != 0;
}

int main(int argc, char **argv)
{
	unsigned long long v[V_N];
	int ret_probe = 0, override = 0, stack = 0, last = 0, uprobe = 0, i = 1;
	int alive = 0, gone = 0, n;
	unsigned int id = 0;
	static char self_path[256];
	unsigned long self_off = 0;
	int map, prog, ev, status;
	unsigned int key = 0;
	union bpf_attr a;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-r")) {
			ret_probe = 1;
		} else if (!strcmp(argv[i], "-s")) {
			stack = 1;
		} else if (!strcmp(argv[i], "-l")) {
			last = 1;
		} else if (!strcmp(argv[i], "-u")) {
			uprobe = 1;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			override = atoi(argv[++i]);
		} else {
			i = argc;
			break;
		}
	}
	if (argc - i != 3 || override < 0 || override > 4095) {
		printf("usage: kp_bpf [-r] [-s] [-l] [-u] [-o ERRNO] FUNC OFFSET 'command'\n");
		return 2;
	}
	memset(v, 0, sizeof(v));
	map = map_create();
	if (map < 0)
		return report(-map, v, -1, stack);
	prog = prog_load(map, ret_probe, override, stack);
	if (prog < 0) {
		report(-prog, v, -1, stack);
		printf("%s\n", verifier_log);
		return 1;
	}
	if (uprobe && !strcmp(argv[i], "self")) {
		if (self_main(self_path, sizeof(self_path), &self_off))
			return report(ENOENT, v, -1, stack);
		ev = kprobe_open(self_path, self_off, ret_probe, uprobe);
	} else {
		ev = kprobe_open(argv[i], strtoul(argv[i + 1], NULL, 0),
				 ret_probe, uprobe);
	}
	if (ev < 0)
		return report(-ev, v, -1, stack);
	if (ioctl(ev, PERF_EVENT_IOC_SET_BPF, (void *)(long)prog) < 0)
		return report(errno, v, -1, stack);
	if (ioctl(ev, PERF_EVENT_IOC_ENABLE, 0) < 0)
		return report(errno, v, -1, stack);
	status = kpg_sh(argv[i + 2]);
	ioctl(ev, PERF_EVENT_IOC_DISABLE, 0);
	memset(&a, 0, sizeof(a));
	a.map_fd = map;
	a.key = (unsigned long)&key;
	a.value = (unsigned long)v;
	if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &a) < 0)
		return report(errno, v, status, stack);
	if (!last) {
		close(ev);
		close(prog);
		close(map);
		return report(0, v, status, stack);
	}
	id = prog_id(prog);
	close(prog);
	close(map);
	close(ev);		/* the last reference to the program */
	alive = id && prog_alive(id);
	for (n = 0; id && n < 1000 && !gone; n++) {
		gone = !prog_alive(id);
		if (!gone)
			usleep(10000);
	}
	report(0, v, status, stack);
	printf("last_ref_alive=%d gone=%d\n", alive, gone);
	return !id;
}
