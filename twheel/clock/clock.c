// SPDX-License-Identifier: GPL-2.0
/*
 * twheel clocks: conversions between a clock-bound timer's own clock and
 * CLOCK_MONOTONIC, the wheel's time (design in clock.h). Any context; each
 * is a timekeeping read, O(1).
 */
#include <linux/ktime.h>
#include <linux/timekeeping.h>

#include "clock.h"

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
