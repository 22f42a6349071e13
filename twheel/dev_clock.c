// SPDX-License-Identifier: GPL-2.0
/*
 * twheel char device: the clocks of userspace timers and time namespaces.
 * A timer's own clock is one of enum twheel_uclock (design in dev_file.h,
 * "Clocks"); these helpers convert between it, CLOCK_MONOTONIC (the wheel's
 * time) and the caller's time namespace.
 */
#include <linux/ktime.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/time.h>
#include <linux/time64.h>
#include <linux/time_namespace.h>
#include <linux/timekeeping.h>

#include "dev_file.h"

/* @t + @offs, kept within 0 .. KTIME_MAX. */
static u64 twheel_clamp_add(u64 t, s64 offs)
{
	s64 r;

	if (check_add_overflow((s64)t, offs, &r))
		return offs < 0 ? 0 : KTIME_MAX;
	return r < 0 ? 0 : r;
}

/**
 * twheel_uclock_now() - the current time on a timer's clock
 * @clock:	enum twheel_uclock
 *
 * Return: ns on @clock (host time).
 */
u64 twheel_uclock_now(unsigned int clock)
{
	switch (clock) {
	case TWHEEL_UCLK_BOOT:
		return ktime_get_boottime_ns();
	case TWHEEL_UCLK_REAL:
		return ktime_get_real_ns();
	default:
		return ktime_get_ns();
	}
}

/**
 * twheel_uclock_offs() - @clock minus CLOCK_MONOTONIC, now
 * @clock:	enum twheel_uclock
 *
 * Changes only when the clock is set or the system resumes from suspend.
 *
 * Return: the offset in ns (0 for CLOCK_MONOTONIC).
 */
s64 twheel_uclock_offs(unsigned int clock)
{
	switch (clock) {
	case TWHEEL_UCLK_BOOT:
		return ktime_to_ns(ktime_mono_to_any(0, TK_OFFS_BOOT));
	case TWHEEL_UCLK_REAL:
		return ktime_to_ns(ktime_mono_to_any(0, TK_OFFS_REAL));
	default:
		return 0;
	}
}

/**
 * twheel_uclock_to_mono() - convert a deadline on @clock to the wheel's time
 * @clock:	enum twheel_uclock
 * @own:	deadline on @clock, 0 .. KTIME_MAX
 *
 * With the clock's offset of now: a later step of the clock changes the
 * result. A deadline before CLOCK_MONOTONIC's zero gives 0 (long past).
 *
 * Return: the CLOCK_MONOTONIC deadline, 0 .. KTIME_MAX.
 */
u64 twheel_uclock_to_mono(unsigned int clock, u64 own)
{
	if (clock == TWHEEL_UCLK_MONO)
		return own;
	return twheel_clamp_add(own, -twheel_uclock_offs(clock));
}

/* The offset of the caller's time namespace on @clockid (0 for others). */
static s64 twheel_timens_offs(s32 clockid)
{
	struct timespec64 ts = {};

	switch (clockid) {
	case CLOCK_MONOTONIC:
		timens_add_monotonic(&ts);
		break;
	case CLOCK_BOOTTIME:
		timens_add_boottime(&ts);
		break;
	default:
		return 0;
	}
	return timespec64_to_ns(&ts);
}

/**
 * twheel_timens_to_host() - an absolute time of the caller, to host time
 * @clockid:	CLOCK_MONOTONIC, CLOCK_BOOTTIME or CLOCK_REALTIME
 * @t:		ns on @clockid as the caller's time namespace sees it,
 *		0 .. KTIME_MAX
 *
 * As timens_ktime_to_host(), with the offsets of the inline helpers of
 * <linux/time_namespace.h> (do_timens_ktime_to_host() is not exported).
 *
 * Context: process context of the caller.
 * Return: ns on @clockid of the host, 0 .. KTIME_MAX.
 */
u64 twheel_timens_to_host(s32 clockid, u64 t)
{
	return twheel_clamp_add(t, -twheel_timens_offs(clockid));
}

/**
 * twheel_uclock_to_user() - a time on a timer's clock, as the caller sees it
 * @clock:	enum twheel_uclock
 * @t:		host ns on @clock, 0 .. KTIME_MAX
 *
 * Context: process context of the caller (its time namespace).
 * Return: @t in the caller's time namespace, 0 .. KTIME_MAX.
 */
u64 twheel_uclock_to_user(unsigned int clock, u64 t)
{
	switch (clock) {
	case TWHEEL_UCLK_BOOT:
		return twheel_clamp_add(t, twheel_timens_offs(CLOCK_BOOTTIME));
	case TWHEEL_UCLK_MONO:
		return twheel_clamp_add(t, twheel_timens_offs(CLOCK_MONOTONIC));
	default:
		return t;
	}
}
