/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The promise of an ioctl-ABI timer, as the selftests hold it: never early
 * (exactly: the debugfs counter utimer_early stays 0, and no event has
 * @expired before @deadline), and late by at most one wheel tick plus what
 * a control, a timerfd armed for the same CLOCK_MONOTONIC deadline in the
 * same window, measured: not a generous constant. The control is read by
 * the test as a user would, so its lateness includes the wake-up of the
 * test; the twheel event's @expired is the kernel's own clock read in the
 * callback, which comes before any user wake-up.
 *
 * Standalone (libc only), for the tests that keep their own device
 * helpers (twheel_test.c, libtwheel_test.c) as well as those built on
 * twheel_hard.h (through twheel_clk.h).
 */
#ifndef _TWHEEL_LATE_H
#define _TWHEEL_LATE_H

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/timerfd.h>

#define TWL_STATS	"/sys/kernel/debug/twheel/stats"
#define TWL_HOOKS	"/sys/kernel/debug/twheel/hooks/"
#define TWL_SEC		1000000000ULL
/* Controls watched at once by twl_poll(). */
#define TWL_CTL_MAX	16

static inline uint64_t twl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * TWL_SEC + ts.tv_nsec;
}

/* The debugfs counter @key, or -1 (no debugfs stats, or no such key). */
static inline long long twl_stat(const char *key)
{
	char line[256], k[64];
	long long v, r = -1;
	FILE *f = fopen(TWL_STATS, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lld", k, &v) == 2 && !strcmp(k, key))
			r = v;
	fclose(f);
	return r;
}

/*
 * Expiries of ioctl-ABI timers before their deadline on a clock that was
 * not stepped since their arm (re-armed by the kernel, so invisible in the
 * events): must not grow. -1 where debugfs is not readable.
 */
static inline long long twl_early(void)
{
	return twl_stat("utimer_early");
}

/*
 * A KCSAN kernel? Its watchpoints stall instrumented code on purpose
 * (udelay at random accesses), and the module is instrumented throughout
 * where a timerfd control's path is mostly not: lateness there says
 * nothing about the promise. On such a kernel a lateness over its bound
 * is reported as a SKIP with its figures, never as a pass; every other
 * check (never early, none lost, counts) still asserts.
 */
static inline bool twl_kcsan(void)
{
	return access("/sys/kernel/debug/kcsan", F_OK) == 0;
}

/*
 * Test hooks (twheel/testhooks.h): set hook @name to @val (0: off); 0, or
 * -1 where the module has none (a packaged build: skip).
 */
static inline int twl_hook_set(const char *name, unsigned int val)
{
	char path[128];
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), TWL_HOOKS "%s", name);
	f = fopen(path, "we");
	if (!f)
		return -1;
	rc = fprintf(f, "%u\n", val) < 0;
	rc |= fclose(f) != 0;
	return rc ? -1 : 0;
}

/* Passes through hook @name while it was set, or -1 without hooks. */
static inline long long twl_hook_hits(const char *name)
{
	char path[128];
	unsigned int v;
	long long hits;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), TWL_HOOKS "%s", name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fscanf(f, "%u %lld", &v, &hits);
	fclose(f);
	return n == 2 ? hits : -1;
}

/* The CPUs of a cpulist ("1-2,5") in @set; false if there are none. */
static inline bool twl_cpulist(const char *s, cpu_set_t *set)
{
	bool any = false;

	CPU_ZERO(set);
	while (*s >= '0' && *s <= '9') {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (; a <= b && a < CPU_SETSIZE; a++) {
			CPU_SET(a, set);
			any = true;
		}
		s = *end == ',' ? end + 1 : end;
	}
	return any;
}

/*
 * Is @cpu online: 1, 0, or -1 (unreadable)? From the kernel's online mask,
 * /sys/devices/system/cpu/online, not from cpuN/online: a CPU that resume
 * failed to bring back up ("Error taking CPU1 up", seen under TCG) stays
 * "1" there, though it is offline.
 */
static inline int twl_cpu_online(int cpu)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	char buf[256];
	cpu_set_t set;
	bool ok;

	if (!f)
		return -1;
	ok = fgets(buf, sizeof(buf), f) && twl_cpulist(buf, &set);
	fclose(f);
	if (!ok)
		return -1;
	return cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &set);
}

/*
 * Pin the caller to the CPU it runs on: then the twheel timers it arms
 * (on the local CPU), its timerfd controls (whose hrtimers are armed on the
 * CPU of timerfd_settime()) and their wake-ups share one CPU, and a stall
 * of that (virtual) CPU delays both alike. Unpinned, a control on a busy
 * vCPU is compared with timers on an idle one the host is slow to wake.
 * Return: the CPU, or -1.
 */
static inline int twl_pin_here(void)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	if (cpu < 0)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -1 : cpu;
}

/**
 * struct twl_ctl - a timerfd control
 * @fd:		the timerfd (CLOCK_MONOTONIC), -1 when not armed
 * @deadline:	its absolute deadline, CLOCK_MONOTONIC ns
 * @seen:	when the test first saw it readable, 0 until then
 */
struct twl_ctl {
	int		fd;
	uint64_t	deadline;
	uint64_t	seen;
};

/* Arm @c for @deadline (CLOCK_MONOTONIC, absolute): 0 or -errno. */
static inline int twl_ctl_arm(struct twl_ctl *c, uint64_t deadline)
{
	struct itimerspec its = {
		.it_value = {
			.tv_sec = deadline / TWL_SEC,
			.tv_nsec = deadline % TWL_SEC,
		},
	};

	c->deadline = deadline;
	c->seen = 0;
	/* 0 would disarm a timerfd: the past is 1 ns. */
	if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
		its.it_value.tv_nsec = 1;
	c->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (c->fd < 0)
		return -errno;
	if (timerfd_settime(c->fd, TFD_TIMER_ABSTIME, &its, NULL)) {
		close(c->fd);
		c->fd = -1;
		return -errno;
	}
	return 0;
}

static inline void twl_ctl_close(struct twl_ctl *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/* Note when @c became readable, if it is now (does not block). */
static inline void twl_ctl_check(struct twl_ctl *c, uint64_t now)
{
	uint64_t n;

	if (c->seen || c->fd < 0)
		return;
	if (read(c->fd, &n, sizeof(n)) == sizeof(n))
		c->seen = now;
}

/*
 * Wait up to @ms for @fd (a twheel file, or -1 for none) to be readable,
 * noting the controls @c[0..@n) as they become readable on the way; with
 * @fd -1, wait for every control. Return: 1 when done, 0 on timeout.
 */
static inline int twl_poll(int fd, struct twl_ctl *c, int n, int ms)
{
	struct pollfd p[TWL_CTL_MAX + 1];
	uint64_t end = twl_now() + (uint64_t)ms * 1000000ULL, now;
	int i, k, left, r;

	for (;;) {
		k = 0;
		if (fd >= 0)
			p[k++] = (struct pollfd){ .fd = fd, .events = POLLIN };
		for (i = 0; i < n && i < TWL_CTL_MAX; i++)
			if (!c[i].seen && c[i].fd >= 0)
				p[k++] = (struct pollfd){ .fd = c[i].fd,
							  .events = POLLIN };
		if (fd < 0 && !k)
			return 1;
		now = twl_now();
		if (now >= end)
			return 0;
		left = (int)((end - now) / 1000000ULL) + 1;
		r = poll(p, k, left);
		if (r < 0 && errno != EINTR)
			return 0;
		now = twl_now();
		for (i = 0; i < n && i < TWL_CTL_MAX; i++)
			twl_ctl_check(&c[i], now);
		if (fd >= 0 && r > 0 && (p[0].revents & POLLIN))
			return 1;
	}
}

/*
 * The lateness @c showed (seen - deadline), after waiting up to @ms for it;
 * -1 if it never became readable.
 */
static inline int64_t twl_ctl_late(struct twl_ctl *c, int ms)
{
	twl_poll(-1, c, 1, ms);
	if (!c->seen)
		return -1;
	return c->seen > c->deadline ? (int64_t)(c->seen - c->deadline) : 0;
}

/*
 * The most an event due at a control's deadline may be late: a tick plus
 * the largest lateness @c[0..@n) showed, plus TWL_JITTER_TICKS more ticks;
 * 0 if one never fired. The promise is the one tick; the extra is for
 * sampling: a control is one draw of the same wake-up delay the timer's
 * own path pays once more (the runner), and single draws under emulation
 * differ by up to 1.7 ms between a control and a timer due together
 * (measured on debug 6.12). The count of windows a test may try stays 3.
 */
#define TWL_JITTER_TICKS	1
static inline uint64_t twl_late_bound(struct twl_ctl *c, int n, uint64_t tick)
{
	uint64_t worst = 0;
	int64_t l;
	int i;

	for (i = 0; i < n; i++) {
		l = twl_ctl_late(&c[i], 5000);
		if (l < 0)
			return 0;
		if ((uint64_t)l > worst)
			worst = l;
	}
	return (1 + TWL_JITTER_TICKS) * tick + worst;
}

#endif /* _TWHEEL_LATE_H */
