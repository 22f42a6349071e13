// SPDX-License-Identifier: GPL-2.0
/*
 * twheel debugfs: /sys/kernel/debug/twheel/, readable by root only.
 *
 *   stats     global counters, one "key value" line each; writing
 *             "reset_max" to it zeroes the maxima (lat_max_us, cb_max_us,
 *             pass_max_us), so that a test can measure one workload
 *   percpu    one row per possible CPU under a header row naming the columns
 *   latency   the lateness histogram, one "[lo, hi) us: count" line a bucket
 *   geometry  tick, levels, slots and horizon, "key value" lines
 *
 * The formats are stable and parsed by tools/twheelctl and the stress test:
 * keys and columns may be added at the end, never renamed or reordered.
 * Values are decimal; "-" stands for "none" (e.g. no tick programmed). No
 * kernel address is ever printed.
 */
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/time64.h>
#include <linux/twheel.h>

#include "base.h"
#include "debugfs.h"
#include "stats.h"
#include "testhooks.h"

static struct dentry *twheel_debugfs_dir;

static u64 ns_to_us(u64 ns)
{
	return div_u64(ns, NSEC_PER_USEC);
}

static int tw_dbg_stats_show(struct seq_file *m, void *unused)
{
	struct twheel_base_snapshot snap;
	struct twheel_stats sum;
	unsigned int max_cascades = 0;
	u64 pending = 0;
	int cpu;

	twheel_stats_sum(&sum);

	for_each_possible_cpu(cpu) {
		if (twheel_base_snapshot(cpu, &snap))
			continue;
		pending += snap.pending + snap.expired;
		max_cascades = max(max_cascades, snap.max_cascades);
	}

	seq_printf(m, "pending %llu\n", pending);
	seq_printf(m, "armed %llu\n", sum.armed);
	seq_printf(m, "cancelled %llu\n", sum.cancelled);
	seq_printf(m, "expired %llu\n", sum.expired);
	seq_printf(m, "cascaded %llu\n", sum.cascaded);
	seq_printf(m, "migrated %llu\n", sum.migrated);
	seq_printf(m, "ticks_run %llu\n", sum.ticks_run);
	seq_printf(m, "ticks_idle %llu\n", sum.ticks_idle);
	seq_printf(m, "wakeups %llu\n", sum.wakeups);
	seq_printf(m, "batches %llu\n", sum.batches);
	seq_printf(m, "callbacks %llu\n", sum.callbacks);
	seq_printf(m, "overruns %llu\n", sum.overruns);
	seq_printf(m, "rejected %llu\n", sum.rejected);
	seq_printf(m, "fd_cancelled %llu\n", sum.fd_cancelled);
	seq_printf(m, "lat_max_us %llu\n", ns_to_us(sum.lat_max_ns));
	seq_printf(m, "cb_max_us %llu\n", ns_to_us(sum.cb_max_ns));
	seq_printf(m, "deferred %llu\n", sum.deferred);
	seq_printf(m, "pass_max_us %llu\n", ns_to_us(sum.pass_max_ns));
	seq_printf(m, "clock_steps %llu\n", sum.clock_steps);
	seq_printf(m, "clock_rebound %llu\n", sum.clock_rebound);
	seq_printf(m, "clock_step_max_us %llu\n",
		   ns_to_us(sum.clock_step_max_ns));
	seq_printf(m, "wake_walks %llu\n", sum.wake_walks);
	seq_printf(m, "wake_walked %llu\n", sum.wake_walked);
	seq_printf(m, "wake_walk_max_us %llu\n",
		   ns_to_us(sum.wake_walk_max_ns));
	seq_printf(m, "max_cascades %u\n", max_cascades);
	return 0;
}

static int tw_dbg_stats_open(struct inode *inode, struct file *file)
{
	return single_open(file, tw_dbg_stats_show, inode->i_private);
}

static ssize_t tw_dbg_stats_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	char buf[16];
	int cpu;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (!sysfs_streq(buf, "reset_max"))
		return -EINVAL;
	/* Racing samples may survive the reset: it is a convenience. */
	for_each_possible_cpu(cpu) {
		struct twheel_stats *s = per_cpu_ptr(&twheel_stats, cpu);

		WRITE_ONCE(s->lat_max_ns, 0);
		WRITE_ONCE(s->cb_max_ns, 0);
		WRITE_ONCE(s->pass_max_ns, 0);
		WRITE_ONCE(s->clock_step_max_ns, 0);
		WRITE_ONCE(s->wake_walk_max_ns, 0);
	}
	return len;
}

static const struct file_operations tw_dbg_stats_fops = {
	.owner		= THIS_MODULE,
	.open		= tw_dbg_stats_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= tw_dbg_stats_write,
};

/* Columns of the percpu file, in their stable order. */
enum tw_dbg_col {
	TW_COL_CPU, TW_COL_ONLINE, TW_COL_PENDING, TW_COL_QUEUED,
	TW_COL_NEXT_TICK, TW_COL_TICK_ARMED, TW_COL_ARMED, TW_COL_CANCELLED,
	TW_COL_EXPIRED, TW_COL_CASCADED, TW_COL_MIGRATED, TW_COL_TICKS_RUN,
	TW_COL_TICKS_IDLE, TW_COL_WAKEUPS, TW_COL_BATCHES, TW_COL_CALLBACKS,
	TW_COL_OVERRUNS, TW_COL_REJECTED, TW_COL_FD_CANCELLED,
	TW_COL_LAT_MAX_US, TW_COL_CB_MAX_US, TW_COL_MAX_CASCADES,
	TW_NR_COLS
};

static const char *const tw_dbg_col_names[TW_NR_COLS] = {
	[TW_COL_CPU]		= "cpu",
	[TW_COL_ONLINE]		= "online",
	[TW_COL_PENDING]	= "pending",	/* timers in the wheel */
	[TW_COL_QUEUED]		= "queued",	/* expired, callback not run */
	[TW_COL_NEXT_TICK]	= "next_tick",	/* "-" when not programmed */
	[TW_COL_TICK_ARMED]	= "tick_armed",
	[TW_COL_ARMED]		= "armed",
	[TW_COL_CANCELLED]	= "cancelled",
	[TW_COL_EXPIRED]	= "expired",
	[TW_COL_CASCADED]	= "cascaded",
	[TW_COL_MIGRATED]	= "migrated",
	[TW_COL_TICKS_RUN]	= "ticks_run",
	[TW_COL_TICKS_IDLE]	= "ticks_idle",
	[TW_COL_WAKEUPS]	= "wakeups",
	[TW_COL_BATCHES]	= "batches",
	[TW_COL_CALLBACKS]	= "callbacks",
	[TW_COL_OVERRUNS]	= "overruns",
	[TW_COL_REJECTED]	= "rejected",
	[TW_COL_FD_CANCELLED]	= "fd_cancelled",
	[TW_COL_LAT_MAX_US]	= "lat_max_us",
	[TW_COL_CB_MAX_US]	= "cb_max_us",
	[TW_COL_MAX_CASCADES]	= "max_cascades",
};

static void tw_dbg_percpu_row(int cpu, u64 *v)
{
	const struct twheel_stats *s = per_cpu_ptr(&twheel_stats, cpu);
	struct twheel_base_snapshot snap;

	if (twheel_base_snapshot(cpu, &snap)) {
		memset(&snap, 0, sizeof(snap));
		snap.next_tick = U64_MAX;
	}

	v[TW_COL_CPU] = cpu;
	v[TW_COL_ONLINE] = cpu_online(cpu);
	v[TW_COL_PENDING] = snap.pending;
	v[TW_COL_QUEUED] = snap.expired;
	v[TW_COL_NEXT_TICK] = snap.next_tick;
	v[TW_COL_TICK_ARMED] = snap.tick_armed;
	v[TW_COL_ARMED] = READ_ONCE(s->armed);
	v[TW_COL_CANCELLED] = READ_ONCE(s->cancelled);
	v[TW_COL_EXPIRED] = READ_ONCE(s->expired);
	v[TW_COL_CASCADED] = READ_ONCE(s->cascaded);
	v[TW_COL_MIGRATED] = READ_ONCE(s->migrated);
	v[TW_COL_TICKS_RUN] = READ_ONCE(s->ticks_run);
	v[TW_COL_TICKS_IDLE] = READ_ONCE(s->ticks_idle);
	v[TW_COL_WAKEUPS] = READ_ONCE(s->wakeups);
	v[TW_COL_BATCHES] = READ_ONCE(s->batches);
	v[TW_COL_CALLBACKS] = READ_ONCE(s->callbacks);
	v[TW_COL_OVERRUNS] = READ_ONCE(s->overruns);
	v[TW_COL_REJECTED] = READ_ONCE(s->rejected);
	v[TW_COL_FD_CANCELLED] = READ_ONCE(s->fd_cancelled);
	v[TW_COL_LAT_MAX_US] = ns_to_us(READ_ONCE(s->lat_max_ns));
	v[TW_COL_CB_MAX_US] = ns_to_us(READ_ONCE(s->cb_max_ns));
	v[TW_COL_MAX_CASCADES] = snap.max_cascades;
}

static int tw_dbg_percpu_show(struct seq_file *m, void *unused)
{
	u64 v[TW_NR_COLS];
	unsigned int i;
	int cpu;

	for (i = 0; i < TW_NR_COLS; i++)
		seq_printf(m, "%s%c", tw_dbg_col_names[i],
			   i == TW_NR_COLS - 1 ? '\n' : ' ');

	for_each_possible_cpu(cpu) {
		tw_dbg_percpu_row(cpu, v);
		for (i = 0; i < TW_NR_COLS; i++) {
			if (i == TW_COL_NEXT_TICK && v[i] == U64_MAX)
				seq_puts(m, "-");
			else
				seq_printf(m, "%llu", v[i]);
			seq_putc(m, i == TW_NR_COLS - 1 ? '\n' : ' ');
		}
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tw_dbg_percpu);

static int tw_dbg_latency_show(struct seq_file *m, void *unused)
{
	u64 hist[TWHEEL_LAT_BUCKETS] = { };
	unsigned int i;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct twheel_stats *s = per_cpu_ptr(&twheel_stats, cpu);

		for (i = 0; i < TWHEEL_LAT_BUCKETS; i++)
			hist[i] += READ_ONCE(s->lat_hist[i]);
	}

	/* Bucket 0 is [0, 1) us, bucket i [2^(i-1), 2^i), the last open. */
	for (i = 0; i < TWHEEL_LAT_BUCKETS; i++) {
		u64 lo = i ? 1ULL << (i - 1) : 0;

		if (i == TWHEEL_LAT_BUCKETS - 1)
			seq_printf(m, "[%llu, inf) us: %llu\n", lo, hist[i]);
		else
			seq_printf(m, "[%llu, %llu) us: %llu\n", lo, 1ULL << i,
				   hist[i]);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tw_dbg_latency);

static int tw_dbg_geometry_show(struct seq_file *m, void *unused)
{
	unsigned int levels = twheel_levels(), slots = twheel_slots();
	u64 horizon_ticks = 1;
	unsigned int i;

	for (i = 0; i < levels; i++)
		horizon_ticks *= slots;

	seq_printf(m, "tick_ns %llu\n", twheel_tick_ns());
	seq_printf(m, "levels %u\n", levels);
	seq_printf(m, "slots %u\n", slots);
	seq_printf(m, "horizon_ticks %llu\n", horizon_ticks);
	seq_printf(m, "horizon_ns %llu\n", twheel_horizon_ns());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tw_dbg_geometry);

/**
 * twheel_debugfs_init() - create /sys/kernel/debug/twheel/
 *
 * debugfs is a debugging aid: failing to create it (debugfs disabled or not
 * mounted) does not fail the module load, as the debugfs API recommends.
 *
 * Return: 0.
 */
int twheel_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("twheel", NULL);

	twheel_debugfs_dir = dir;
	debugfs_create_file("stats", 0600, dir, NULL, &tw_dbg_stats_fops);
	debugfs_create_file("percpu", 0400, dir, NULL, &tw_dbg_percpu_fops);
	debugfs_create_file("latency", 0400, dir, NULL, &tw_dbg_latency_fops);
	debugfs_create_file("geometry", 0400, dir, NULL, &tw_dbg_geometry_fops);
	return 0;
}

/**
 * twheel_debugfs_exit() - remove /sys/kernel/debug/twheel/
 *
 * Waits for readers still inside a show function, so it must run before the
 * per-CPU bases that twheel_base_snapshot() reads are freed.
 */
void twheel_debugfs_exit(void)
{
	debugfs_remove_recursive(twheel_debugfs_dir);
	twheel_debugfs_dir = NULL;
}
