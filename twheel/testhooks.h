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
 * @next_work:		the wheel's next tick with work (tw_wheel_next())
 * @pending:		timers in the wheel
 * @expired:		timers in the expired batch not yet run
 * @tick_armed:		the tick hrtimer is queued
 * @fire_ns:		the tick hrtimer's expiry (CLOCK_MONOTONIC ns), if queued
 * @bits:		log2 of the wheel's buckets per level
 * @online:		the base takes new timers
 * @max_cascades:	most cascades any timer of this wheel went through
 * @cascaded:		total cascades in this wheel
 * @wakeups:		tick hrtimer callbacks on this base
 */
struct twheel_base_snapshot {
	u64		clk;
	u64		next_tick;
	u64		next_work;
	unsigned long	pending;
	unsigned long	expired;
	bool		tick_armed;
	u64		fire_ns;
	unsigned int	bits;
	bool		online;
	unsigned int	max_cascades;
	u64		cascaded;
	u64		wakeups;
};

int twheel_base_snapshot(int cpu, struct twheel_base_snapshot *snap);
int twheel_base_check_queues(int cpu);

/*
 * Delay hooks: test-only points where a race window is widened on demand.
 * Built only with TWHEEL_TESTHOOKS, which Kbuild sets for the project's own
 * test builds (make TWHEEL_TESTHOOKS=1, from tools/vm) against any kernel,
 * the stock ones included; a packaged or DKMS build has none, and
 * twheel_hook() is an empty inline.
 *
 * Each hook is /sys/kernel/debug/twheel/hooks/<name> (root only): write a
 * delay in microseconds (0 turns it off; at most 30 s, and a spin stops
 * after 1 s); read "<delay_us> <hits>", where
 * hits counts the passes through the hook while its delay was set, so a
 * test can tell that its window was actually reached. The delay sleeps (at
 * least that long on CLOCK_MONOTONIC)
 * where the caller may sleep and spins (udelay) where it may not.
 *
 * Add a hook by adding it to testhooks_list.h and calling
 * twheel_hook(TWHEEL_HOOK_<name>) at the point to widen.
 */
enum twheel_hook {
#define TWHEEL_HOOK(name, ...) TWHEEL_HOOK_##name,
#include "testhooks_list.h"
	TWHEEL_HOOK_NR
};

struct dentry;

/*
 * A hook can also be a knob: twheel_hook_knob() returns the value written
 * (counting a hit when it is not 0) and never delays. utimer_early is one:
 * the timers of the clock-bound core (clock_timer.c: ABI-1 timers and
 * clock-bound in-kernel clock timers) are armed that many microseconds
 * before their deadline, a planted early fire that the "never early"
 * counter must see.
 *
 * A hook can also be a watch: twheel_hook_watch() hands the object at its
 * point to the function a KUnit case set (twheel_hook_set_watch()), in the
 * caller's context and under its locks, and counts a hit; it never delays.
 * runner_take is one: each timer a runner takes, in the order the queues
 * hand them out, which is the order fairness promises (a callback that
 * starts later, because its runner was preempted or slept before calling
 * it, was still taken in its turn).
 */
typedef void (*twheel_hook_watch_fn)(void *p);

#ifdef TWHEEL_TESTHOOKS
void twheel_hook(enum twheel_hook h);
unsigned int twheel_hook_knob(enum twheel_hook h);
void twheel_hook_watch(enum twheel_hook h, void *p);
void twheel_hook_poison(enum twheel_hook h, void *p, size_t size);
void twheel_hooks_debugfs(struct dentry *dir);
/* What hooks/<name> does, for the KUnit suites (no debugfs there). */
void twheel_hook_set(enum twheel_hook h, unsigned int delay_us);
u64 twheel_hook_hits(enum twheel_hook h);
void twheel_hook_set_watch(enum twheel_hook h, twheel_hook_watch_fn fn);
#else
static inline void twheel_hook(enum twheel_hook h) { }
static inline unsigned int twheel_hook_knob(enum twheel_hook h) { return 0; }
static inline void twheel_hook_watch(enum twheel_hook h, void *p) { }
static inline void twheel_hook_poison(enum twheel_hook h, void *p,
				      size_t size) { }
static inline void twheel_hooks_debugfs(struct dentry *dir) { }
#endif

#endif /* _TWHEEL_TESTHOOKS_H */
