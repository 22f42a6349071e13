// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite twheel_driver_sync of the twheel per-CPU driver (see
 * driver_test.c for the rules every case follows): return values and
 * query, twheel_timer_cancel_sync() against running callbacks, a timer
 * re-armed while its callback runs, tickless bases and CPU hotplug.
 *
 * The cases that need a second CPU (cancel_sync of a timer moved while
 * running, hotplug) skip on a uniprocessor guest; the hotplug case takes
 * CPU 1 offline with remove_cpu() and brings it back with add_cpu().
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/random.h>
#include <linux/twheel.h>

#include "base/base.h"
#include "compat.h"
#include "testhooks.h"
#include "driver_test.h"

/* ------------------------------------------------------- cancel_sync */

struct twt_block {
	struct twheel_timer	timer;
	atomic_t		calls;
	u64			cb_end_ns;
	u64			sync_end_ns;
	int			sync_ret;
	bool			block_second;
	int			cpu2;		/* where the second one ran */
	u64			rearm_ns;	/* first callback re-arms, if set */
	int			rearm_ret;
	struct completion	entered;	/* first callback started */
	struct completion	release;	/* let the callback return */
	struct completion	entered2;	/* second one, if block_second */
	struct completion	release2;
	struct completion	synced;		/* cancel_sync() returned */
};

static void twt_block_fn(struct twheel_timer *timer)
{
	struct twt_block *b = container_of(timer, struct twt_block, timer);

	int call = atomic_inc_return(&b->calls);

	if (call == 1) {
		complete(&b->entered);
		twt_wait(&b->release);
		usleep_range(5000, 6000);
		if (b->rearm_ns)
			b->rearm_ret = twheel_timer_arm(timer, b->rearm_ns, 0);
	} else if (call == 2 && b->block_second) {
		WRITE_ONCE(b->cpu2, raw_smp_processor_id());
		complete(&b->entered2);
		twt_wait(&b->release2);
	}
	WRITE_ONCE(b->cb_end_ns, ktime_get_ns());
}

static int twt_block_sync(void *data)
{
	struct twt_block *b = data;

	b->sync_ret = twheel_timer_cancel_sync(&b->timer);
	b->sync_end_ns = ktime_get_ns();
	complete(&b->synced);
	return 0;
}

static void twt_block_cleanup(void *data)
{
	struct twt_block *b = data;

	complete_all(&b->release);
	complete_all(&b->release2);
	twheel_timer_cancel_sync(&b->timer);
}

/* A blocking timer, cancelled and released when the test ends. */
static struct twt_block *twt_block_alloc(struct kunit *test)
{
	struct twt_block *b;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	twheel_timer_init(&b->timer, twt_block_fn);
	init_completion(&b->entered);
	init_completion(&b->release);
	init_completion(&b->entered2);
	init_completion(&b->release2);
	init_completion(&b->synced);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, twt_block_cleanup, b));
	return b;
}

/* Run twheel_timer_cancel_sync() of @b in a kthread. */
static void twt_block_sync_start(struct kunit *test, struct twt_block *b)
{
	struct task_struct *task;

	task = kthread_run(twt_block_sync, b, "twt_cancel_sync");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
}

/*
 * With twt_block_sync_start() done: check that cancel_sync still waits after
 * @ms while the first callback is blocked, then release that callback and
 * check that cancel_sync returned after it.
 */
static void twt_block_sync_check(struct kunit *test, struct twt_block *b,
				 unsigned int ms)
{
	bool synced;

	msleep(ms);
	synced = completion_done(&b->synced);
	complete(&b->release);
	KUNIT_EXPECT_FALSE_MSG(test, synced,
			       "cancel_sync returned while the callback ran");
	/* The kthread uses b until it completes synced: always wait. */
	if (!twt_wait(&b->synced)) {
		KUNIT_FAIL(test, "cancel_sync did not return in %d ms",
			   TWT_TIMEOUT_MS);
		wait_for_completion(&b->synced);
	}
	KUNIT_EXPECT_GE(test, b->sync_end_ns, READ_ONCE(b->cb_end_ns));
}

/*
 * cancel_sync of a periodic timer whose callback is blocked: it must not
 * return before the callback did, and the timer is not re-armed afterwards.
 * With @to >= 0 the running timer is first re-armed (far away) on CPU @to:
 * cancel_sync must still wait for the callback running on the old CPU.
 */
static void twt_cancel_sync_common(struct kunit *test, int from, int to)
{
	const u64 period = 5 * TWT_MS;
	struct twheel_timer_info info;
	struct twt_block *b = twt_block_alloc(test);

	KUNIT_ASSERT_EQ(test, twheel_timer_arm_on(&b->timer, period, period, 0,
						  from),
			0);
	KUNIT_ASSERT_TRUE(test, twt_wait(&b->entered));
	if (to >= 0)
		KUNIT_EXPECT_GE(test,
				twheel_timer_arm_on(&b->timer,
						    10 * MSEC_PER_SEC * TWT_MS,
						    period, 0, to), 0);

	/* Several periods pass while the callback is blocked. */
	twt_block_sync_start(test, b);
	twt_block_sync_check(test, b, 50);
	/* Not pending while running, unless re-armed elsewhere. */
	KUNIT_EXPECT_EQ(test, b->sync_ret, to >= 0 ? 1 : 0);

	msleep(div_u64(5 * period, TWT_MS) + 20);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->calls), 1);
	KUNIT_EXPECT_EQ(test, twheel_timer_query(&b->timer, &info), 0);
	KUNIT_EXPECT_EQ(test, info.state, TWHEEL_IDLE);
}

/* 7. cancel_sync waits for the running callback; no re-arm afterwards. */
static void twt_cancel_sync_waits(struct kunit *test)
{
	twt_cancel_sync_common(test, TWHEEL_CPU_ANY, -1);
}

/* 7b. The same when the running timer was re-armed on another CPU. */
static void twt_cancel_sync_migrated(struct kunit *test)
{
	int a = cpumask_first(cpu_online_mask);
	int b = cpumask_next(a, cpu_online_mask);

	if (b >= nr_cpu_ids)
		kunit_skip(test, "needs two online CPUs");
	twt_cancel_sync_common(test, a, b);
}

/*
 * 7c. cancel_sync covers exactly one arming when the callback re-arms its
 * timer meanwhile: armed three times (fired, superseded, cancelled), each
 * arming is accounted for once.
 */
static void twt_cancel_sync_rearm(struct kunit *test)
{
	const int cpu = cpumask_first(cpu_online_mask);
	const u64 far = 10 * MSEC_PER_SEC * TWT_MS;
	struct twheel_timer_info info;
	struct twt_block *b = twt_block_alloc(test);

	b->rearm_ns = far;
	KUNIT_ASSERT_EQ(test, twheel_timer_arm_on(&b->timer, 0, 0, 0, cpu), 0);
	KUNIT_ASSERT_TRUE(test, twt_wait(&b->entered));
	/* The one-shot runs: idle, so this arming is a new one. */
	KUNIT_EXPECT_EQ(test, twheel_timer_arm_on(&b->timer, far, 0, 0, cpu),
			0);

	twt_block_sync_start(test, b);
	twt_block_sync_check(test, b, 50);
	/* The callback's arming replaced ours; cancel_sync cancelled it. */
	KUNIT_EXPECT_EQ(test, b->rearm_ret, 1);
	KUNIT_EXPECT_EQ(test, b->sync_ret, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->calls), 1);
	KUNIT_EXPECT_EQ(test, twheel_timer_query(&b->timer, &info), 0);
	KUNIT_EXPECT_EQ(test, info.state, TWHEEL_IDLE);
}

/* ------------------------------------------ return values and query */

static void twt_query_pending(struct kunit *test, struct twheel_timer *t,
			      struct twheel_timer_info *info)
{
	u64 t0, t1;

	t0 = ktime_get_ns();
	KUNIT_ASSERT_EQ(test, twheel_timer_query(t, info), 0);
	t1 = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, info->state, TWHEEL_PENDING);
	KUNIT_EXPECT_GT(test, info->remaining, 0);
	/* remaining was computed between t0 and t1 */
	KUNIT_EXPECT_GE(test, info->deadline - info->remaining, t0);
	KUNIT_EXPECT_LE(test, info->deadline - info->remaining, t1);
}

/* 8. cancel, modify and query report the state exactly. */
static void twt_return_values(struct kunit *test)
{
	struct twheel_timer *t = twt_timer_alloc(test, twt_noop_fn);
	struct twt_set *set = twt_set_alloc(test, 1);
	const u64 rel = 2 * MSEC_PER_SEC * TWT_MS;
	struct twheel_timer_info info;
	int cpu = cpumask_last(cpu_online_mask);
	u64 t0, t1, abs;

	/* Idle timer. */
	KUNIT_EXPECT_EQ(test, twheel_timer_cancel(t), 0);
	KUNIT_EXPECT_EQ(test, twheel_timer_query(t, &info), 0);
	KUNIT_EXPECT_EQ(test, info.state, TWHEEL_IDLE);
	KUNIT_EXPECT_EQ(test, info.deadline, 0);
	KUNIT_EXPECT_EQ(test, info.remaining, 0);

	/* One-shot, relative deadline, named CPU. */
	t0 = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, twheel_timer_arm_on(t, rel, 0, 0, cpu), 0);
	t1 = ktime_get_ns();
	KUNIT_EXPECT_TRUE(test, twheel_timer_pending(t));
	twt_query_pending(test, t, &info);
	KUNIT_EXPECT_GE(test, info.deadline, t0 + rel);
	KUNIT_EXPECT_LE(test, info.deadline, t1 + rel);
	KUNIT_EXPECT_LE(test, info.remaining, rel);
	KUNIT_EXPECT_EQ(test, info.mode, TWHEEL_MODE_ONESHOT);
	KUNIT_EXPECT_EQ(test, info.period, 0);
	KUNIT_EXPECT_EQ(test, info.cpu, cpu);
	KUNIT_EXPECT_EQ(test, info.overruns, 0);

	/* Arm of a pending timer: 1. Absolute deadline kept exactly. */
	abs = ktime_get_ns() + rel;
	KUNIT_EXPECT_EQ(test, twheel_timer_arm_on(t, abs, 0, TWHEEL_ABS, cpu),
			1);
	twt_query_pending(test, t, &info);
	KUNIT_EXPECT_EQ(test, info.deadline, abs);

	/* Modify of a pending timer: 1, new deadline and period. */
	abs += 100 * TWT_MS;
	KUNIT_EXPECT_EQ(test, twheel_timer_modify(t, abs, 7 * TWT_MS,
						  TWHEEL_ABS), 1);
	twt_query_pending(test, t, &info);
	KUNIT_EXPECT_EQ(test, info.deadline, abs);
	KUNIT_EXPECT_EQ(test, info.period, 7 * TWT_MS);
	KUNIT_EXPECT_EQ(test, info.mode, TWHEEL_MODE_FIXED_RATE);
	KUNIT_EXPECT_EQ(test, info.cpu, cpu);

	/* Cancel of a pending timer: 1, then idle: 0. */
	KUNIT_EXPECT_EQ(test, twheel_timer_cancel(t), 1);
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(t));
	KUNIT_EXPECT_EQ(test, twheel_timer_cancel(t), 0);
	KUNIT_EXPECT_EQ(test, twheel_timer_cancel_sync(t), 0);
	KUNIT_EXPECT_EQ(test, twheel_timer_query(t, &info), 0);
	KUNIT_EXPECT_EQ(test, info.state, TWHEEL_IDLE);

	/* Modify of an idle timer: 0. */
	KUNIT_EXPECT_EQ(test, twheel_timer_modify(t, rel, 0, 0), 0);
	twheel_timer_cancel_sync(t);

	/* Periodic fixed delay. */
	KUNIT_EXPECT_EQ(test, twheel_timer_arm_on(t, rel, 3 * TWT_MS,
						  TWHEEL_FIXED_DELAY, cpu), 0);
	twt_query_pending(test, t, &info);
	KUNIT_EXPECT_EQ(test, info.mode, TWHEEL_MODE_FIXED_DELAY);
	KUNIT_EXPECT_EQ(test, info.period, 3 * TWT_MS);
	KUNIT_EXPECT_EQ(test, twheel_timer_cancel_sync(t), 1);

	/* A fired one-shot is idle: cancel 0, modify 0. */
	KUNIT_ASSERT_EQ(test, twt_one_arm(&set->t[0], TWT_MS, cpu), 0);
	twt_set_check(test, set, 1, false);
	KUNIT_EXPECT_EQ(test, twheel_timer_query(&set->t[0].timer, &info), 0);
	KUNIT_EXPECT_EQ(test, info.state, TWHEEL_IDLE);
	KUNIT_EXPECT_EQ(test, twheel_timer_cancel(&set->t[0].timer), 0);
}

/* ----------------------------------------------------------- tickless */

/* 9. No tick without work; a far timer costs O(levels) wakeups. */
static void twt_tickless(struct kunit *test)
{
	struct twt_set *set = twt_set_alloc(test, 1);
	struct twheel_timer *far = twt_timer_alloc(test, twt_noop_fn);
	struct twheel_timer *inf = twt_timer_alloc(test, twt_noop_fn);
	struct twheel_base_snapshot s0, s1;
	struct twheel_timer_info info;
	int cpu = cpumask_first(cpu_online_mask);

	twt_wait_idle(test, cpu, &s0);
	KUNIT_EXPECT_EQ(test, s0.pending, 0);
	KUNIT_EXPECT_EQ(test, s0.expired, 0);
	KUNIT_EXPECT_FALSE(test, s0.tick_armed);
	KUNIT_EXPECT_EQ(test, s0.next_tick, U64_MAX);
	KUNIT_EXPECT_TRUE(test, s0.online);

	/* Idle base: no wakeups at all. */
	msleep(100);
	twt_snapshot(test, cpu, &s1);
	KUNIT_EXPECT_EQ(test, s1.wakeups, s0.wakeups);

	/* A timer 2 s away: a handful of wakeups at most while it waits. */
	KUNIT_ASSERT_EQ(test, twheel_timer_arm_on(far,
						  2 * MSEC_PER_SEC * TWT_MS, 0,
						  0, cpu), 0);
	msleep(20);	/* a remote base is reprogrammed by IPI */
	twt_snapshot(test, cpu, &s0);
	KUNIT_EXPECT_EQ(test, s0.pending, 1);
	KUNIT_EXPECT_TRUE(test, s0.tick_armed);
	KUNIT_EXPECT_NE(test, s0.next_tick, U64_MAX);
	msleep(200);
	twt_snapshot(test, cpu, &s1);
	KUNIT_EXPECT_LE(test, s1.wakeups - s0.wakeups, twheel_levels());
	KUNIT_EXPECT_EQ(test, twheel_timer_cancel(far), 1);
	twt_snapshot(test, cpu, &s1);
	KUNIT_EXPECT_EQ(test, s1.pending, 0);

	/* A timer 300 ms away, waited for: levels + 2 wakeups at most. */
	twt_wait_idle(test, cpu, &s0);
	KUNIT_ASSERT_EQ(test, twt_one_arm(&set->t[0], 300 * TWT_MS, cpu), 0);
	twt_set_check(test, set, 1, false);
	twt_snapshot(test, cpu, &s1);
	kunit_info(test, "300 ms timer: %llu wakeups, max cascades %u\n",
		   s1.wakeups - s0.wakeups, s1.max_cascades);
	KUNIT_EXPECT_LE(test, s1.wakeups - s0.wakeups, twheel_levels() + 2);
	KUNIT_EXPECT_LE(test, s1.max_cascades, twheel_levels() - 1);

	/* Deadlines at the end of time never fire and can be cancelled. */
	KUNIT_EXPECT_EQ(test, twheel_timer_arm_on(far, U64_MAX, 0, TWHEEL_ABS,
						  cpu),
			0);
	KUNIT_EXPECT_EQ(test, twheel_timer_arm_on(inf, U64_MAX, 0, 0, cpu), 0);
	msleep(50);
	KUNIT_EXPECT_EQ(test, twheel_timer_query(far, &info), 0);
	KUNIT_EXPECT_EQ(test, info.state, TWHEEL_PENDING);
	KUNIT_EXPECT_EQ(test, twheel_timer_query(inf, &info), 0);
	KUNIT_EXPECT_EQ(test, info.state, TWHEEL_PENDING);
	KUNIT_EXPECT_EQ(test, twheel_timer_cancel(far), 1);
	KUNIT_EXPECT_EQ(test, twheel_timer_cancel(inf), 1);
}

/* ------------------------------------------------------------ hotplug */

#define TWT_HOTPLUG_CPU	1
#define TWT_HOTPLUG_N	60

static void twt_cpu_up(void *data)
{
	add_cpu((long)data);
}

/* 10. Timers of an offlined CPU move and fire once, not early. */
static void twt_hotplug(struct kunit *test)
{
	const int cpu = TWT_HOTPLUG_CPU;
	struct twheel_base_snapshot snap;
	struct twt_set *set, *after;
	struct twheel_timer *t;
	unsigned int i;
	u64 removed;
	int ret;

	t = twt_timer_alloc(test, twt_noop_fn);
	KUNIT_EXPECT_EQ(test, twheel_timer_arm_on(t, TWT_MS, 0, 0, nr_cpu_ids),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, twheel_timer_arm_on(t, TWT_MS, 0, 0, INT_MAX),
			-ERANGE);

	if (num_online_cpus() < 2 || !cpu_online(cpu))
		kunit_skip(test, "needs CPU %d online and another CPU", cpu);

	set = twt_set_alloc(test, TWT_HOTPLUG_N);
	after = twt_set_alloc(test, 1);
	/* Some due at once (likely in flight when the CPU dies), most later. */
	for (i = 0; i < TWT_HOTPLUG_N; i++) {
		u64 delta = i < 10 ? i * TWT_MS / 10 :
			    (100 + get_random_u32_below(200)) * TWT_MS;

		KUNIT_ASSERT_EQ(test, twt_one_arm(&set->t[i], delta, cpu), 0);
	}

	ret = remove_cpu(cpu);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "remove_cpu(%d)", cpu);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, twt_cpu_up,
							   (void *)(long)cpu));
	/*
	 * A timer due while its CPU was being taken down is moved when the
	 * twheel's hotplug step runs, not when the CPU's hrtimers (the
	 * controls) are: its lateness counts from the end of the removal.
	 * It is still never early and fires exactly once.
	 */
	removed = ktime_get_ns();
	for (i = 0; i < TWT_HOTPLUG_N; i++)
		set->t[i].late_from = removed;

	twt_snapshot(test, cpu, &snap);
	KUNIT_EXPECT_FALSE(test, snap.online);
	KUNIT_EXPECT_EQ(test, snap.pending, 0);
	KUNIT_EXPECT_EQ(test, snap.expired, 0);
	KUNIT_EXPECT_EQ(test, twheel_timer_arm_on(t, TWT_MS, 0, 0, cpu),
			-ENXIO);
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(t));

	/* All fire exactly once, none early, wherever they moved. */
	twt_set_check(test, set, TWT_HOTPLUG_N, true);

	kunit_release_action(test, twt_cpu_up, (void *)(long)cpu);
	KUNIT_ASSERT_TRUE(test, cpu_online(cpu));
	twt_snapshot(test, cpu, &snap);
	KUNIT_EXPECT_TRUE(test, snap.online);

	/* The CPU takes timers again, and runs them itself. */
	KUNIT_EXPECT_EQ(test, twt_one_arm(&after->t[0], 5 * TWT_MS, cpu), 0);
	twt_set_check(test, after, 1, false);
}

/*
 * 10b. A timer re-armed on its own CPU while its callback runs there stays
 * on that base, deferred (pending, in no wheel), when the CPU goes down:
 * nothing is left in the dead CPU's wheel, cancel_sync waits for the
 * callback, which goes on running on the old base, and cancels the arming.
 */
static void twt_cancel_sync_hotplug(struct kunit *test)
{
	const int cpu = TWT_HOTPLUG_CPU;
	const u64 period = 5 * TWT_MS;
	struct twheel_base_snapshot snap;
	struct twt_block *b;

	if (num_online_cpus() < 2 || !cpu_online(cpu))
		kunit_skip(test, "needs CPU %d online and another CPU", cpu);
	b = twt_block_alloc(test);
	KUNIT_ASSERT_EQ(test, twheel_timer_arm_on(&b->timer, period, period, 0,
						  cpu),
			0);
	KUNIT_ASSERT_TRUE(test, twt_wait(&b->entered));
	/* Running (not pending): re-armed far away on the same base. */
	KUNIT_EXPECT_EQ(test, twheel_timer_arm_on(&b->timer,
						  10 * MSEC_PER_SEC * TWT_MS,
						  period, 0, cpu), 0);

	KUNIT_ASSERT_EQ_MSG(test, remove_cpu(cpu), 0, "remove_cpu(%d)", cpu);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, twt_cpu_up,
							   (void *)(long)cpu));
	twt_snapshot(test, cpu, &snap);
	KUNIT_EXPECT_EQ(test, snap.pending, 0);
	KUNIT_EXPECT_TRUE(test, twheel_timer_pending(&b->timer));

	twt_block_sync_start(test, b);
	twt_block_sync_check(test, b, 50);
	KUNIT_EXPECT_EQ(test, b->sync_ret, 1);
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(&b->timer));
	KUNIT_EXPECT_EQ(test, atomic_read(&b->calls), 1);
}

/*
 * A timer running on CPU @a (blocked in its first callback) is re-armed,
 * due at once, on CPU @c (@c < 0: without naming a CPU, after @a went down
 * when @down). Its second callback must not start while the first runs, on
 * any CPU (running timers stay put: the arming waits for the callback to
 * return); then it runs on @c, or on an online CPU. cancel_sync ends it.
 * With @down this is the interleaving where a re-armed timer's second
 * callback, on another CPU, let its owner free it under the first.
 */
static void twt_rearm_running_common(struct kunit *test, int a, int c,
				     bool down)
{
	const u64 period = 5 * TWT_MS;
	struct twheel_timer_info info;
	struct twt_block *b = twt_block_alloc(test);

	b->block_second = true;
	b->cpu2 = -1;
	KUNIT_ASSERT_EQ(test, twheel_timer_arm_on(&b->timer, period, period, 0,
						  a),
			0);
	KUNIT_ASSERT_TRUE(test, twt_wait(&b->entered));
	if (down) {
		KUNIT_ASSERT_EQ_MSG(test, remove_cpu(a), 0, "remove_cpu(%d)", a);
		KUNIT_ASSERT_EQ(test, 0,
				kunit_add_action_or_reset(test, twt_cpu_up,
							  (void *)(long)a));
	}
	/* Running, not pending: this arming is a new one. */
	KUNIT_EXPECT_EQ(test, twheel_timer_arm_on(&b->timer, 0, period, 0,
						  c < 0 ? TWHEEL_CPU_ANY : c),
			0);
	/*
	 * Pending, still on its base while the callback runs (the state
	 * says so), and reported on the CPU it goes to: the one named, or
	 * one that is not @a once @a went down.
	 */
	KUNIT_EXPECT_EQ(test, twheel_timer_query(&b->timer, &info), 0);
	KUNIT_EXPECT_EQ(test, info.state, TWHEEL_PENDING);
	KUNIT_EXPECT_EQ(test, (int)READ_ONCE(b->timer.cpu), a);
	if (c >= 0)
		KUNIT_EXPECT_EQ(test, info.cpu, c);
	if (down)
		KUNIT_EXPECT_NE(test, info.cpu, a);

	msleep(50);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&b->calls), 1,
			    "a second callback started while the first ran");
	complete(&b->release);
	KUNIT_ASSERT_TRUE(test, twt_wait(&b->entered2));
	if (c >= 0)
		KUNIT_EXPECT_EQ(test, READ_ONCE(b->cpu2), c);
	else
		KUNIT_EXPECT_TRUE(test, cpu_online(READ_ONCE(b->cpu2)));
	if (down)
		KUNIT_EXPECT_NE(test, READ_ONCE(b->cpu2), a);

	/* cancel_sync waits for the second callback, on the new base. */
	twt_block_sync_start(test, b);
	msleep(50);
	KUNIT_EXPECT_FALSE_MSG(test, completion_done(&b->synced),
			       "cancel_sync returned while the callback ran");
	complete(&b->release2);
	KUNIT_ASSERT_TRUE(test, twt_wait(&b->synced));
	KUNIT_EXPECT_GE(test, b->sync_end_ns, READ_ONCE(b->cb_end_ns));
	msleep(div_u64(5 * period, TWT_MS) + 20);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->calls), 2);
	KUNIT_EXPECT_EQ(test, twheel_timer_query(&b->timer, &info), 0);
	KUNIT_EXPECT_EQ(test, info.state, TWHEEL_IDLE);
}

/* 7d. Re-armed on another CPU while running: the move waits for it. */
static void twt_rearm_running_elsewhere(struct kunit *test)
{
	int a = cpumask_first(cpu_online_mask);
	int c = cpumask_next(a, cpu_online_mask);

	if (c >= nr_cpu_ids)
		kunit_skip(test, "needs two online CPUs");
	twt_rearm_running_common(test, a, c, false);
}

/* 10c. Re-armed while running on a CPU that went down meanwhile. */
static void twt_rearm_running_hotplug(struct kunit *test)
{
	const int cpu = TWT_HOTPLUG_CPU;

	if (num_online_cpus() < 2 || !cpu_online(cpu))
		kunit_skip(test, "needs CPU %d online and another CPU", cpu);
	twt_rearm_running_common(test, cpu, -1, true);
}

static struct kunit_case twt_sync_cases[] = {
	KUNIT_CASE(twt_return_values),
	KUNIT_CASE(twt_cancel_sync_waits),
	KUNIT_CASE(twt_cancel_sync_migrated),
	KUNIT_CASE(twt_cancel_sync_rearm),
	KUNIT_CASE(twt_rearm_running_elsewhere),
	KUNIT_CASE(twt_tickless),
	KUNIT_CASE(twt_hotplug),
	KUNIT_CASE(twt_cancel_sync_hotplug),
	KUNIT_CASE(twt_rearm_running_hotplug),
	{}
};

static struct kunit_suite twt_sync_suite = {
	.name = "twheel_driver_sync",
	.init = twt_case_init,
	.test_cases = twt_sync_cases,
};

kunit_test_suites(&twt_sync_suite);
