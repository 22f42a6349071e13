// SPDX-License-Identifier: GPL-2.0
/*
 * twheel debugfs: /sys/kernel/debug/twheel/, readable by root only.
 *
 *   stats     global counters, one "key value" line each; writing
 *             "reset_max" to it zeroes the maxima (lat_max_us, cb_max_us,
 *             pass_max_us), so that a test can measure one workload
 *   percpu    one row per possible CPU under a header row naming the columns
 *   latency   the lateness histogram, one "[lo, hi) us: count" line a bucket
 *   geometry  tick, levels, buckets and horizon, "key value" lines
 *   hooks/    test-only delay hooks (testhooks.h), test builds only
 *
 * The keys of stats, and the columns of percpu after its own, are the
 * entries of stats_list.h, in its order. The formats are stable and parsed
 * by tools/twheelctl and the selftests: keys and columns may be added at the
 * end, never renamed or reordered.
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

#include "driver.h"
#include "stats.h"
#include "testhooks.h"

static struct dentry *twheel_debugfs_dir;

static u64 ns_to_us(u64 ns)
{
	return div_u64(ns, NSEC_PER_USEC);
}

/* Values of the stats keys read from the bases (TWHEEL_STAT_BASE). */
struct tw_dbg_base {
	u64	pending;
	u64	max_cascades;
};

enum tw_dbg_kind { TW_DBG_CNT, TW_DBG_MAX, TW_DBG_BASE };

/* A key of the stats file (and maybe a column of percpu): stats_list.h. */
struct tw_dbg_key {
	const char	*key;
	u16		off;	/* in struct twheel_stats, or tw_dbg_base */
	u8		kind;	/* enum tw_dbg_kind */
	u8		percpu;	/* a column of percpu if not 0 */
};

static const struct tw_dbg_key tw_dbg_keys[] = {
#define TWHEEL_STAT_CNT(name, percpu, ...) \
	{ #name, offsetof(struct twheel_stats, name), TW_DBG_CNT, percpu },
#define TWHEEL_STAT_MAX(name, percpu, ...) \
	{ #name "_us", offsetof(struct twheel_stats, name##_ns), TW_DBG_MAX, percpu },
#define TWHEEL_STAT_BASE(name, percpu, ...) \
	{ #name, offsetof(struct tw_dbg_base, name), TW_DBG_BASE, percpu },
#include "stats_list.h"
};

/* The raw value of @k: a counter of one CPU's @s, or a value of @b. */
static u64 tw_dbg_raw(const struct tw_dbg_key *k, const struct twheel_stats *s,
		      const struct tw_dbg_base *b)
{
	const void *p = k->kind == TW_DBG_BASE ? (const void *)b : s;

	return READ_ONCE(*(const u64 *)(p + k->off));
}

/* The value shown for @k given its raw value: maxima in us. */
static u64 tw_dbg_shown(const struct tw_dbg_key *k, u64 raw)
{
	return k->kind == TW_DBG_MAX ? ns_to_us(raw) : raw;
}

static int tw_dbg_stats_show(struct seq_file *m, void *unused)
{
	struct twheel_base_snapshot snap;
	struct tw_dbg_base base = { };
	const struct tw_dbg_key *k;
	int cpu;

	for_each_possible_cpu(cpu) {
		if (twheel_base_snapshot(cpu, &snap))
			continue;
		base.pending += snap.pending + snap.expired;
		base.max_cascades = max_t(u64, base.max_cascades,
					  snap.max_cascades);
	}

	/* Counts are summed over CPUs, maxima are the largest. */
	for (k = tw_dbg_keys; k < tw_dbg_keys + ARRAY_SIZE(tw_dbg_keys); k++) {
		u64 v = 0;

		if (k->kind == TW_DBG_BASE)
			v = tw_dbg_raw(k, NULL, &base);
		for_each_possible_cpu(cpu) {
			u64 x;

			if (k->kind == TW_DBG_BASE)
				break;
			x = tw_dbg_raw(k, per_cpu_ptr(&twheel_stats, cpu), NULL);
			v = k->kind == TW_DBG_MAX ? max(v, x) : v + x;
		}
		seq_printf(m, "%s %llu\n", k->key, tw_dbg_shown(k, v));
	}
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

		const struct tw_dbg_key *k;

		for (k = tw_dbg_keys; k < tw_dbg_keys + ARRAY_SIZE(tw_dbg_keys); k++)
			if (k->kind == TW_DBG_MAX)
				WRITE_ONCE(*(u64 *)((void *)s + k->off), 0);
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

/*
 * The percpu file's own columns, in their stable order; the keys of
 * tw_dbg_keys with percpu set follow.
 */
enum tw_dbg_col {
	TW_COL_CPU, TW_COL_ONLINE, TW_COL_PENDING, TW_COL_QUEUED,
	TW_COL_NEXT_TICK, TW_COL_TICK_ARMED, TW_NR_OWN_COLS
};

static const char *const tw_dbg_col_names[TW_NR_OWN_COLS] = {
	[TW_COL_CPU]		= "cpu",
	[TW_COL_ONLINE]		= "online",
	[TW_COL_PENDING]	= "pending",	/* timers in the wheel */
	[TW_COL_QUEUED]		= "queued",	/* expired, callback not run */
	[TW_COL_NEXT_TICK]	= "next_tick",	/* "-" when not programmed */
	[TW_COL_TICK_ARMED]	= "tick_armed",
};

static int tw_dbg_percpu_show(struct seq_file *m, void *unused)
{
	struct twheel_base_snapshot snap;
	const struct tw_dbg_key *k;
	struct tw_dbg_base base;
	unsigned int i;
	int cpu;

	for (i = 0; i < TW_NR_OWN_COLS; i++)
		seq_printf(m, "%s%s", i ? " " : "", tw_dbg_col_names[i]);
	for (k = tw_dbg_keys; k < tw_dbg_keys + ARRAY_SIZE(tw_dbg_keys); k++)
		if (k->percpu)
			seq_printf(m, " %s", k->key);
	seq_putc(m, '\n');

	for_each_possible_cpu(cpu) {
		const struct twheel_stats *s = per_cpu_ptr(&twheel_stats, cpu);

		if (twheel_base_snapshot(cpu, &snap)) {
			memset(&snap, 0, sizeof(snap));
			snap.next_tick = U64_MAX;
		}
		base.pending = snap.pending;
		base.max_cascades = snap.max_cascades;
		seq_printf(m, "%d %d %llu %llu ", cpu, cpu_online(cpu),
			   (u64)snap.pending, (u64)snap.expired);
		if (snap.next_tick == U64_MAX)
			seq_puts(m, "-");
		else
			seq_printf(m, "%llu", (u64)snap.next_tick);
		seq_printf(m, " %u", (unsigned int)snap.tick_armed);
		for (k = tw_dbg_keys; k < tw_dbg_keys + ARRAY_SIZE(tw_dbg_keys); k++)
			if (k->percpu)
				seq_printf(m, " %llu",
					   tw_dbg_shown(k, tw_dbg_raw(k, s, &base)));
		seq_putc(m, '\n');
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
	unsigned int levels = twheel_levels(), buckets = twheel_buckets();
	u64 horizon_ticks = 1;
	unsigned int i;

	for (i = 0; i < levels; i++)
		horizon_ticks *= buckets;

	seq_printf(m, "tick_ns %llu\n", twheel_tick_ns());
	seq_printf(m, "levels %u\n", levels);
	seq_printf(m, "buckets %u\n", buckets);
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
	twheel_hooks_debugfs(dir);
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
