// SPDX-License-Identifier: GPL-2.0
/*
 * kp_perfsb: what perf's side band says while a command runs.
 *
 *   kp_perfsb 'shell command'
 *
 * Opens a dummy software event with text_poke and ksymbol on every CPU,
 * runs the command with /bin/sh -c, then prints the records that came:
 *
 *   POKE ADDR OLD_LEN NEW_LEN OLDHEX NEWHEX   (PERF_RECORD_TEXT_POKE)
 *   KSYM ADDR LEN TYPE FLAGS NAME             (PERF_RECORD_KSYMBOL)
 *   LOST N
 *
 * Built with the kernel's nolibc (tools/include/nolibc), so it needs no C
 * library for the guest's architecture.
 */
#include <linux/perf_event.h>

#include "kp_guest.h"

#ifndef __NR_perf_event_open
#error no perf_event_open
#endif

#define NCPU_MAX	16
#define DATA_PAGES	64

static long page_size = 4096;

static int perf_open(struct perf_event_attr *attr, int cpu)
{
	return my_syscall5(__NR_perf_event_open, attr, -1, cpu, -1, 0);
}

static void hex(const unsigned char *b, unsigned int n)
{
	unsigned int i;

	if (!n)
		printf("-");
	/* two digits a byte by hand: nolibc's printf has no field width */
	for (i = 0; i < n; i++)
		printf("%c%c", "0123456789abcdef"[b[i] >> 4],
		       "0123456789abcdef"[b[i] & 15]);
}

/* Copy @n bytes at ring offset @off (the data area wraps). */
static void ring_copy(void *dst, const unsigned char *data, unsigned long size,
		      unsigned long off, unsigned long n)
{
	unsigned char *d = dst;
	unsigned long i;

	for (i = 0; i < n; i++)
		d[i] = data[(off + i) % size];
}

static void drain(struct perf_event_mmap_page *pg)
{
	const unsigned char *data = (unsigned char *)pg + page_size;
	unsigned long size = DATA_PAGES * page_size;
	unsigned long head = pg->data_head, tail = pg->data_tail;
	static unsigned char rec[65536];

	__sync_synchronize();
	while (tail < head) {
		struct perf_event_header h;

		ring_copy(&h, data, size, tail, sizeof(h));
		if (h.size < sizeof(h))
			break;
		ring_copy(rec, data, size, tail, h.size);
		if (h.type == PERF_RECORD_TEXT_POKE) {
			unsigned long long addr = *(unsigned long long *)(rec + 8);
			unsigned short ol = *(unsigned short *)(rec + 16);
			unsigned short nl = *(unsigned short *)(rec + 18);

			printf("POKE %llx %u %u ", addr, ol, nl);
			hex(rec + 20, ol);
			printf(" ");
			hex(rec + 20 + ol, nl);
			printf("\n");
		} else if (h.type == PERF_RECORD_KSYMBOL) {
			unsigned long long addr = *(unsigned long long *)(rec + 8);
			unsigned int len = *(unsigned int *)(rec + 16);
			unsigned short type = *(unsigned short *)(rec + 20);
			unsigned short flags = *(unsigned short *)(rec + 22);

			printf("KSYM %llx %u %u %u %s\n", addr, len, type, flags,
			       (char *)rec + 24);
		} else if (h.type == PERF_RECORD_LOST) {
			printf("LOST %llu\n", *(unsigned long long *)(rec + 16));
		}
		tail += h.size;
	}
	pg->data_tail = tail;
}

int main(int argc, char **argv)
{
	struct perf_event_mmap_page *pg[NCPU_MAX];
	struct perf_event_attr attr;
	int cpu, n = 0, fd, status;

	if (argc != 2) {
		printf("usage: kp_perfsb 'command'\n");
		return 2;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.text_poke = 1;
	attr.ksymbol = 1;
	for (cpu = 0; cpu < NCPU_MAX; cpu++) {
		fd = perf_open(&attr, cpu);
		if (fd < 0)
			break;
		pg[n] = mmap(NULL, (DATA_PAGES + 1) * page_size,
			     PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (pg[n] == MAP_FAILED) {
			printf("ERROR mmap cpu %d\n", cpu);
			return 1;
		}
		n++;
	}
	if (!n) {
		printf("ERROR perf_event_open: %d\n", errno);
		return 1;
	}
	status = kpg_sh(argv[1]);
	for (cpu = 0; cpu < n; cpu++)
		drain(pg[cpu]);
	printf("DONE cpus %d status %d\n", n, status);
	return 0;
}
