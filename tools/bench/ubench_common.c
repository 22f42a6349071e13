// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-ubench helpers shared by every mode and peer: fatal errors,
 * resource limits, kernel memory and busy CPU time of the guest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/resource.h>

#include "ubench.h"

void ub_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "twheel-ubench: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, ": %s\n", strerror(errno));
	va_end(ap);
	exit(2);
}

void ub_raise_limits(unsigned long n)
{
	struct rlimit rl = { .rlim_cur = n + 256, .rlim_max = n + 256 };

	if (setrlimit(RLIMIT_NOFILE, &rl))
		ub_die("RLIMIT_NOFILE %lu", n + 256);
	if (setrlimit(RLIMIT_SIGPENDING, &rl))
		ub_die("RLIMIT_SIGPENDING %lu", n + 256);
}

/*
 * Bytes of kernel pages this process has mapped from a device or an
 * anonymous inode (a completion ring: /dev/twheel's, io_uring's): pages the
 * kernel allocated for it outside the slab and vmalloc, so not in Slab or
 * VmallocUsed. The size of each such mapping, from /proc/self/maps.
 */
static long long ub_kmem_mapped(void)
{
	char line[512], path[256];
	unsigned long lo, hi;
	long long sum = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		ub_die("/proc/self/maps");
	while (fgets(line, sizeof(line), f)) {
		path[0] = 0;
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %255s", &lo, &hi,
			   path) < 2)
			continue;
		if (!strncmp(path, "/dev/", 5) ||
		    !strncmp(path, "anon_inode:", 11))
			sum += hi - lo;
	}
	fclose(f);
	return sum;
}

/*
 * Kernel memory held for this process's timers, in bytes: Slab +
 * VmallocUsed of /proc/meminfo, plus the kernel pages it maps (rings).
 */
long long ub_kmem(void)
{
	char line[256];
	long long kb, sum = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		ub_die("/proc/meminfo");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Slab: %lld kB", &kb) == 1 ||
		    sscanf(line, "VmallocUsed: %lld kB", &kb) == 1)
			sum += kb;
	}
	fclose(f);
	return sum * 1024 + ub_kmem_mapped();
}

/*
 * Busy (not idle) time of all online CPUs of the guest since boot, in ns,
 * at microsecond precision (twheel_bench.ko's debugfs "busy": the kernel's
 * own idle and iowait time accounting); -1 without it.
 * It covers user, system, hard and soft interrupt and kernel thread time.
 */
long long ub_busy_ns(void)
{
	long long us = -1;
	FILE *f = fopen(UB_BUSY, "r");

	if (!f)
		return -1;
	if (fscanf(f, "busy_us %lld", &us) != 1)
		us = -1;
	fclose(f);
	return us < 0 ? -1 : us * 1000;
}
