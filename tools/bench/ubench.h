/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel-ubench: userspace benchmark of /dev/twheel against timerfd and
 * POSIX timers. Shared helpers of ubench.c (per-operation costs and kernel
 * memory) and ubench_acc.c (accuracy and idle wake-ups).
 *
 * Every result is printed as one line "RESULT kind key=value ..." on stdout;
 * tools/bench/report.py collects them.
 */
#ifndef TWHEEL_UBENCH_H
#define TWHEEL_UBENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define UB_MIN_NS	1000000ULL		/* 1 ms */
#define UB_SPAN_NS	3600000000000ULL	/* 1 h */
#define UB_DEV		"/dev/twheel"
#define UB_STATS	"/sys/kernel/debug/twheel/stats"

static inline uint64_t ub_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline struct timespec ub_ts(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = ns / 1000000000ULL,
		.tv_nsec = ns % 1000000000ULL,
	};

	return ts;
}

/* xorshift64*: the same sequence for every implementation. */
static inline uint64_t ub_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static inline void *ub_alloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		perror("calloc");
		exit(2);
	}
	return p;
}

void ub_die(const char *fmt, ...);
void ub_raise_limits(unsigned long n);
int ub_acc_main(int argc, char **argv);
int ub_idle_main(int argc, char **argv);

#endif /* TWHEEL_UBENCH_H */
