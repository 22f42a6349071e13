/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel statistics: per-CPU counters, summed when debugfs is read.
 *
 * Each counter is bumped with this_cpu_inc()/this_cpu_add() on the CPU doing
 * the work (no shared cache line, no atomics on the hot path); readers sum
 * over possible CPUs and may see a slightly torn but monotonic picture.
 */
#ifndef _TWHEEL_STATS_H
#define _TWHEEL_STATS_H

#include <linux/percpu.h>
#include <linux/types.h>

/* Lateness histogram: bucket i counts lateness in [2^(i-1), 2^i) us. */
#define TWHEEL_LAT_BUCKETS	24

/**
 * struct twheel_stats - counters of one CPU
 * @armed:		timers armed (one per arm or re-arm of a periodic)
 * @cancelled:		armings ended before expiry by a cancel, re-arm or modify
 * @expired:		timers handed from a wheel to an expired batch
 * @cascaded:		moves of a timer to a lower level
 * @migrated:		timers moved off a dead CPU
 * @ticks_run:		wheel ticks with work that were processed
 * @ticks_idle:		ticks jumped over because no bucket was due
 * @wakeups:		tick hrtimer callbacks
 * @batches:		expired batches queued to the workqueue
 * @callbacks:		callbacks run
 * @overruns:		periods skipped (fixed rate late, or busy callback)
 * @rejected:		arms refused by a cap
 * @fd_cancelled:	timers cancelled by the last close() of a file
 * @lat_max_ns:		largest lateness seen (deadline to callback start; a
 *			runner counts from its last clock read, at most
 *			TW_CLOCK_BATCH - 1 callbacks earlier)
 * @cb_max_ns:		longest callback, or group of up to TW_CLOCK_BATCH
 *			one-shot callbacks run between two clock reads
 * @deferred:		tick passes that ran out of budget (work item finished)
 * @pass_max_ns:	longest bounded pass (base lock held, interrupts off)
 * @clock_steps:	clock steps followed by /dev/twheel (dev_step.c)
 * @clock_rebound:	clock-bound timers those steps re-armed or canceled
 * @clock_step_max_ns:	longest walk of one step over every such timer
 * @lat_hist:		lateness histogram, log2 buckets in us
 */
struct twheel_stats {
	u64	armed;
	u64	cancelled;
	u64	expired;
	u64	cascaded;
	u64	migrated;
	u64	ticks_run;
	u64	ticks_idle;
	u64	wakeups;
	u64	batches;
	u64	callbacks;
	u64	overruns;
	u64	rejected;
	u64	fd_cancelled;
	u64	lat_max_ns;
	u64	cb_max_ns;
	u64	deferred;
	u64	pass_max_ns;
	u64	clock_steps;
	u64	clock_rebound;
	u64	clock_step_max_ns;
	u64	lat_hist[TWHEEL_LAT_BUCKETS];
};

DECLARE_PER_CPU(struct twheel_stats, twheel_stats);

#define twheel_stat_inc(field)		this_cpu_inc(twheel_stats.field)
#define twheel_stat_add(field, n)	this_cpu_add(twheel_stats.field, (n))

void twheel_stat_max(u64 *field, u64 val);
void twheel_stat_latency(u64 late_ns);
void twheel_stats_sum(struct twheel_stats *sum);

#endif /* _TWHEEL_STATS_H */
