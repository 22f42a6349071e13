// SPDX-License-Identifier: GPL-2.0
/*
 * twheel statistics: the per-CPU counters and the few helpers that are more
 * than a this_cpu_inc(). See stats.h for the counters themselves. And the
 * tracepoints (trace.h), instantiated here, used by the driver
 * (base/base_arm.c, base/base_expire.c): like the counters, what the module
 * reports of its work, used by the driver and using nothing of it.
 *
 * Writers only ever touch a counter of the CPU they run on (or, for the
 * maxima, any CPU's slot through a cmpxchg loop), so there is no shared
 * cache line on the hot path. Readers sum over possible CPUs without any
 * lock: each u64 is read once, so the sum is slightly torn across fields but
 * every field is monotonic (the maxima never decrease).
 */
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/time64.h>

#include "compat.h"
#include "stats.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

DEFINE_PER_CPU(struct twheel_stats, twheel_stats);

/**
 * twheel_stats_of() - the counters of one CPU, for the KUnit suites
 * @cpu:	a possible CPU
 *
 * Return: @cpu's counters, read without a lock (see stats.h).
 */
const struct twheel_stats *twheel_stats_of(int cpu)
{
	return per_cpu_ptr(&twheel_stats, cpu);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_stats_of);

/**
 * twheel_stat_max() - raise a maximum counter to @val
 * @field:	a maximum of one CPU's struct twheel_stats, normally
 *		raw_cpu_ptr(&twheel_stats.cb_max_ns) (or .lat_max_ns)
 * @val:	the new sample
 *
 * The update is a compare-and-exchange loop, so it is safe in any context
 * and with preemption enabled: if the caller migrated after computing
 * @field, the sample lands in another CPU's slot, which only matters to the
 * per-CPU view (the global view takes the maximum over CPUs anyway) and can
 * not lose a larger concurrent sample. The common case (@val not a new
 * maximum) is a single load.
 *
 * Context: any context.
 */
void twheel_stat_max(u64 *field, u64 val)
{
	u64 old = READ_ONCE(*field);

	while (val > old) {
		if (try_cmpxchg64(field, &old, val))
			break;
	}
}

/* Histogram bucket of a lateness: 0 for < 1 us, else fls64(us), capped. */
static unsigned int twheel_lat_bucket(u64 late_ns)
{
	u64 us = div_u64(late_ns, NSEC_PER_USEC);

	return min_t(unsigned int, fls64(us), TWHEEL_LAT_BUCKETS - 1);
}

/**
 * twheel_stat_callbacks() - account callbacks and their lateness
 * @nr:		callbacks
 * @late_ns:	lateness of each of them: callback start minus the timer's
 *		deadline, in ns (0 if on time)
 *
 * Adds @nr to the callbacks counter and to the log2 lateness histogram
 * (bucket i holds [2^(i-1), 2^i) us, bucket 0 less than 1 us, the last
 * bucket everything above) of the local CPU, and raises the local lateness
 * maximum: once for a run of callbacks of one lateness (a runner's timers
 * of one deadline started after one clock read), not once per callback.
 *
 * Context: any context; preemption may be enabled.
 */
void twheel_stat_callbacks(unsigned long nr, u64 late_ns)
{
	this_cpu_add(twheel_stats.callbacks, nr);
	this_cpu_add(twheel_stats.lat_hist[twheel_lat_bucket(late_ns)], nr);
	twheel_stat_max(raw_cpu_ptr(&twheel_stats.lat_max_ns), late_ns);
}
