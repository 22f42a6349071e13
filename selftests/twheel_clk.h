/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the selftests that compare twheel timers on their own clock
 * with timerfds (twheel_clocks.c, twheel_alarm.c).
 */
#ifndef _TWHEEL_CLK_H
#define _TWHEEL_CLK_H

#include <poll.h>
#include <sys/timerfd.h>

#include "twheel_hard.h"
#include "twheel_late.h"

#define MS		1000000ULL
#define SEC		1000000000ULL
/*
 * Lateness is bounded by a tick plus what a control measured: a timerfd on
 * the timer's clock, due at the same time, armed in the same window and
 * crossing the same clock step or suspend (twl_late_bound() in
 * twheel_late.h). A control's "due" is a CLOCK_MONOTONIC time: for a clock
 * that was stepped, the step (both are due when it is noticed); for a
 * deadline on another clock, that deadline as CLOCK_MONOTONIC reads it now,
 * clk_mono_due(): the offset of the two clocks does not change after the
 * last step or resume, so lateness measured on either clock is the same.
 */

static inline uint64_t clk_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

/*
 * A window whose timer was later than its control allowed is measured
 * again, CLK_TRIES windows at most, as twheel_test.c's LATE_TRIES: a
 * control is one draw of the guest's wake-up delays, the timer's path
 * another; a timer that is late by design is late in every window.
 */
#define CLK_TRIES	3

/* @deadline on @clk as CLOCK_MONOTONIC: valid since the last step/resume. */
static inline uint64_t clk_mono_due(clockid_t clk, uint64_t deadline)
{
	uint64_t m = clk_ns(CLOCK_MONOTONIC), c = clk_ns(clk);

	return deadline - c + m;
}

/* A control: timerfd @fd (any clock), due at CLOCK_MONOTONIC @due. */
static inline struct twl_ctl clk_ctl(int fd, uint64_t due)
{
	return (struct twl_ctl){ .fd = fd, .deadline = due };
}

/* Move CLOCK_REALTIME by @delta ns: 0 or -errno. */
static inline int step_realtime(int64_t delta)
{
	uint64_t t = clk_ns(CLOCK_REALTIME) + delta;
	struct timespec ts = { .tv_sec = t / SEC, .tv_nsec = t % SEC };

	return clock_settime(CLOCK_REALTIME, &ts) ? -errno : 0;
}

static inline int tw_arm_clk(int fd, uint32_t flags, clockid_t clk,
			     uint64_t expires, uint64_t cookie, uint64_t *id)
{
	struct twheel_arm a = {
		.size = sizeof(a), .flags = flags, .clockid = clk,
		.expires = expires, .cookie = cookie,
	};
	long r = tw_ioctl(fd, TWHEEL_IOC_ARM, &a);

	if (!r)
		*id = a.id;
	return r;
}

/* A non-blocking timerfd on @clk armed at @t with timerfd_settime(@flags). */
static inline int tfd_arm(clockid_t clk, uint64_t t, int flags)
{
	struct itimerspec its = {
		.it_value = { .tv_sec = t / SEC, .tv_nsec = t % SEC },
	};
	int fd = timerfd_create(clk, TFD_NONBLOCK | TFD_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (timerfd_settime(fd, flags, &its, NULL)) {
		close(fd);
		return -errno;
	}
	return fd;
}

/* A non-blocking timerfd on @clk armed at the absolute @deadline. */
static inline int tfd_abs(clockid_t clk, uint64_t deadline, int flags)
{
	return tfd_arm(clk, deadline, TFD_TIMER_ABSTIME | flags);
}

/* Wait up to @ms for @fd to be readable: 1 if it is, 0 if not. */
static inline int wait_readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r;

	do {
		r = poll(&p, 1, ms);
	} while (r < 0 && errno == EINTR);
	return r > 0;
}

/* Read one twheel event without blocking: 1, 0 (none) or -errno. */
static inline int tw_read1(int fd, struct twheel_event *ev)
{
	ssize_t n = read(fd, ev, sizeof(*ev));

	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	return n == sizeof(*ev);
}

/* A timerfd's read(): expirations, 0 (none), or -errno (ECANCELED). */
static inline int64_t tfd_read(int fd)
{
	uint64_t n;

	if (read(fd, &n, sizeof(n)) != sizeof(n))
		return errno == EAGAIN ? 0 : -errno;
	return n;
}

/* A counter of TW_DBG/stats, or -1. */
static inline long long dbg_stat(const char *key)
{
	return twl_stat(key);
}

#endif /* _TWHEEL_CLK_H */
