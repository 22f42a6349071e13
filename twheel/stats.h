/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel statistics: per-CPU counters (stats.c), summed when the debugfs
 * files (debugfs.c) are read.
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

/*
 * struct twheel_stats - counters of one CPU: one u64 per counter of
 * stats_list.h, which says what each counts (a count is named as its entry,
 * a maximum in ns gets _ns), then @lat_hist, the lateness histogram (log2
 * buckets in us).
 */
struct twheel_stats {
	u64
#define TWHEEL_STAT_CNT(name, ...)	name,
#define TWHEEL_STAT_MAX(name, ...)	name##_ns,
#include "stats_list.h"
		lat_hist[TWHEEL_LAT_BUCKETS];
};

DECLARE_PER_CPU(struct twheel_stats, twheel_stats);

#define twheel_stat_inc(field)		this_cpu_inc(twheel_stats.field)
#define twheel_stat_add(field, n)	this_cpu_add(twheel_stats.field, (n))

void twheel_stat_max(u64 *field, u64 val);
const struct twheel_stats *twheel_stats_of(int cpu);
void twheel_stat_callbacks(unsigned long nr, u64 late_ns);

/*
 * The debugfs files (debugfs.c). Failure to create them is not an error:
 * twheel_debugfs_init() only returns an error the module must not ignore.
 */
int twheel_debugfs_init(void);
void twheel_debugfs_exit(void);

#endif /* _TWHEEL_STATS_H */
