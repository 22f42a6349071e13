/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel internals for debugfs and for twheel_kunit.ko. Always built (debugfs
 * uses them); exported with EXPORT_SYMBOL_IF_KUNIT() (namespace
 * EXPORTED_FOR_KUNIT_TESTING) only when the kernel has KUnit.
 */
#ifndef _TWHEEL_TESTHOOKS_H
#define _TWHEEL_TESTHOOKS_H

#include <linux/types.h>

/**
 * struct twheel_base_snapshot - state of one CPU's wheel, read under its lock
 * @clk:		the wheel's clock (first unprocessed tick)
 * @next_tick:		tick the tick hrtimer is programmed for, or U64_MAX
 * @pending:		timers in the wheel
 * @expired:		timers in the expired batch not yet run
 * @tick_armed:		the tick hrtimer is queued
 * @online:		the base takes new timers
 * @max_cascades:	most cascades any timer of this wheel went through
 * @cascaded:		total cascades in this wheel
 * @wakeups:		tick hrtimer callbacks on this base
 */
struct twheel_base_snapshot {
	u64		clk;
	u64		next_tick;
	unsigned long	pending;
	unsigned long	expired;
	bool		tick_armed;
	bool		online;
	unsigned int	max_cascades;
	u64		cascaded;
	u64		wakeups;
};

int twheel_base_snapshot(int cpu, struct twheel_base_snapshot *snap);

#endif /* _TWHEEL_TESTHOOKS_H */
