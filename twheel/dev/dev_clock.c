// SPDX-License-Identifier: GPL-2.0
/*
 * twheel char device: time namespaces. A timer's own clock is one of enum
 * twheel_uclock (clock.h); these helpers convert between the host's time on
 * it and the caller's time namespace, as timerfd does at its boundary.
 */
#include <linux/ktime.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/time.h>
#include <linux/time64.h>
#include <linux/time_namespace.h>

#include "dev_file.h"

/*
 * The offset of the caller's time namespace on @clockid (0 for others):
 * what timens_add_monotonic() and timens_add_boottime() add, read as ns
 * directly: their add normalizes, and a namespace's offsets are normal
 * already (checked when they are written). Every absolute arm pays it.
 */
static s64 twheel_timens_offs(s32 clockid)
{
#ifdef CONFIG_TIME_NS
	const struct timens_offsets *o = &current->nsproxy->time_ns->offsets;

	switch (clockid) {
	case CLOCK_MONOTONIC:
		return timespec64_to_ns(&o->monotonic);
	case CLOCK_BOOTTIME:
		return timespec64_to_ns(&o->boottime);
	default:
		return 0;
	}
#else
	return 0;
#endif
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
