// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the twheel per-CPU driver, through the in-kernel API of
 * <linux/twheel.h>, on the running kernel (real clock, real hrtimers, real
 * workqueues, real CPU hotplug).
 *
 * The checks that cannot flake are strict: a callback never starts before
 * its deadline (ktime_get() at callback start), runs once per expiry, on the
 * CPU the timer was armed on, in process context; the counts of callbacks
 * are exact; fixed-delay gaps are never shorter than the period; a callback
 * is never re-entered; nothing runs after a cancel. How late a timer fires
 * depends on the host (these tests run under TCG emulation too), so it is
 * judged against controls (struct twt_ctrl: an hrtimer and a work item on
 * the same CPU, due when the timer's tick starts): at most one wheel tick
 * (the rounding up to the tick) plus the latest control of the same case,
 * the window in which its timers fired. Counts that depend
 * on lateness (overruns, wakeups of a tickless base) are checked against
 * bounds derived from the times the callbacks measured themselves.
 *
 * Every wait for a callback has a timeout, so a broken driver fails a case
 * instead of hanging it, and every timer is cancelled with
 * twheel_timer_cancel_sync() by a KUnit action before its memory is freed. The
 * whole suite takes a few seconds.
 *
 * Suite twheel_driver (this file): bad input, one-shots, fixed rate and
 * fixed delay, re-arm and modify. Suite twheel_driver_sync
 * (driver_sync_test.c): return values, cancel_sync, tickless bases and CPU
 * hotplug. The helpers both share (driver_test.h) are in driver_helpers.c.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/random.h>
#include <linux/twheel.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "driver_test.h"

TWHEEL_IMPORT_KUNIT_NS();

/* 1. Many timers on every online CPU: once each, on time, on their CPU. */
#define TWT_PER_CPU	200

static void twt_realtime(struct kunit *test)
{
	unsigned int n = num_online_cpus() * TWT_PER_CPU, i, k, run;
	struct twt_set *set;
	int cpu;

	/*
	 * Lateness in one of up to TWT_WINDOWS runs: a host that stalls the
	 * guest for 100 ms (seen under a parallel build) leaves hundreds of
	 * callbacks due at once, which a control pays once.
	 */
	for (run = 0; run < TWT_WINDOWS; run++) {
		set = twt_set_alloc(test, n);
		i = 0;
		cpus_read_lock();
		for_each_online_cpu(cpu) {
			for (k = 0; k < TWT_PER_CPU && i < n; k++, i++) {
				u64 delta = (1 + get_random_u32_below(50)) *
					    TWT_MS +
					    get_random_u32_below(TWT_MS);

				KUNIT_EXPECT_EQ(test,
						twt_one_arm(&set->t[i], delta,
							    cpu), 0);
			}
		}
		cpus_read_unlock();
		if (twt_set_check_window(test, set, i, false,
					 run == TWT_WINDOWS - 1))
			break;
	}
}

/* ------------------------------------------------------------ periodics */

#define TWT_MAX_CALLS	32

/*
 * A periodic timer recording when each callback started and returned. The
 * callback number @sleep_at (or every callback with @sleep_all) sleeps
 * @sleep_ms; callback number @limit - 1 queries and cancels its own timer.
 */
struct twt_per {
	struct twheel_timer	timer;
	u64			first;		/* first deadline, absolute */
	u64			period;
	unsigned int		limit;
	unsigned int		sleep_at;
	bool			sleep_all;
	unsigned int		sleep_ms;
	atomic_t		calls;
	atomic_t		inflight;
	atomic_t		reentered;
	int			cancel_ret;
	int			query_ret;
	struct twheel_timer_info info;	/* queried by the last callback */
	struct completion	done;
	u64			start[TWT_MAX_CALLS];
	u64			end[TWT_MAX_CALLS];
	/* ctrl[0] due at @first; ctrl[i + 1] a period after callback i ended */
	struct twt_ctrl		ctrl[TWT_MAX_CALLS + 1];
};

static void twt_per_fn(struct twheel_timer *timer)
{
	struct twt_per *p = container_of(timer, struct twt_per, timer);
	u64 now = ktime_get_ns();
	unsigned int i = atomic_inc_return(&p->calls) - 1;

	if (atomic_inc_return(&p->inflight) > 1)
		atomic_inc(&p->reentered);
	if (i < TWT_MAX_CALLS)
		p->start[i] = now;
	/* At least @sleep_ms: msleep(80) returned after 70-80 ms on 7.2. */
	if (p->sleep_all || i == p->sleep_at)
		while (ktime_get_ns() - now < p->sleep_ms * TWT_MS)
			usleep_range(1000, 2000);
	if (i + 1 == p->limit) {
		p->query_ret = twheel_timer_query(timer, &p->info);
		p->cancel_ret = twheel_timer_cancel(timer);
	}
	if (i < TWT_MAX_CALLS) {
		p->end[i] = ktime_get_ns();
		twt_ctrl_arm(&p->ctrl[i + 1], p->end[i] + p->period,
			     TWHEEL_CPU_ANY);
	}
	atomic_dec(&p->inflight);
	if (i + 1 == p->limit)
		complete(&p->done);
}

static void twt_per_stop_ctrls(void *data)
{
	struct twt_per *p = data;
	unsigned int i;

	for (i = 0; i <= TWT_MAX_CALLS; i++)
		twt_ctrl_stop(&p->ctrl[i]);
}

static struct twt_per *twt_per_alloc(struct kunit *test, unsigned int limit)
{
	struct twt_per *p;
	unsigned int i;

	KUNIT_ASSERT_LE(test, limit, TWT_MAX_CALLS);
	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i <= TWT_MAX_CALLS; i++)
		twt_ctrl_init(&p->ctrl[i]);
	/* After the timer's cancel_sync (actions run in reverse). */
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, twt_per_stop_ctrls, p));
	twheel_timer_init(&p->timer, twt_per_fn);
	p->limit = limit;
	p->sleep_at = UINT_MAX;
	init_completion(&p->done);
	twt_cancel_at_end(test, &p->timer);
	return p;
}

/* Arm @p to fire first in one period, then every period; wait for @limit. */
static void twt_per_run(struct kunit *test, struct twt_per *p, u64 period,
			unsigned int flags)
{
	int cpu = raw_smp_processor_id();

	p->period = period;
	p->first = ktime_get_ns() + period;
	KUNIT_ASSERT_EQ(test, twheel_timer_arm_on(&p->timer, p->first, period,
						  flags | TWHEEL_ABS,
						  TWHEEL_CPU_ANY),
			0);
	twt_ctrl_arm(&p->ctrl[0], p->first, cpu);
	KUNIT_ASSERT_TRUE_MSG(test, twt_wait(&p->done),
			      "only %d of %u callbacks in %d ms",
			      atomic_read(&p->calls), p->limit, TWT_TIMEOUT_MS);
	/* The last callback cancelled the timer: nothing may follow. */
	msleep(div_u64(5 * period, TWT_MS) + 20);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->calls), p->limit);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->reentered), 0);
	KUNIT_EXPECT_EQ(test, p->query_ret, 0);
	KUNIT_EXPECT_EQ(test, p->info.state, TWHEEL_RUNNING);
	KUNIT_EXPECT_EQ(test, p->info.period, period);
	KUNIT_EXPECT_EQ(test, p->cancel_ret, 0);	/* running, not pending */
}

/* Fixed rate: callback i never starts before grid point first + i * period. */
static void twt_check_grid(struct kunit *test, struct twt_per *p)
{
	unsigned int i;

	for (i = 0; i < p->limit; i++) {
		u64 grid = p->first + i * p->period;

		KUNIT_EXPECT_GE_MSG(test, p->start[i], grid,
				    "callback %u early", i);
		if (i)
			KUNIT_EXPECT_GE_MSG(test, p->start[i], p->end[i - 1],
					    "callback %u overlaps", i);
	}
	KUNIT_EXPECT_LE(test, p->start[0] - p->first,
			twt_late_max(twt_ctrl_late(test, &p->ctrl[0])));
}

/*
 * Bounds on the overruns counted when the last callback started. Every
 * callback takes one grid point, so at most (grid points up to the last
 * callback) - limit (+1 for rounding) were skipped; at least the grid points
 * the sleeping callbacks spanned, minus one each for the catch-up tick.
 */
static void twt_check_overruns(struct kunit *test, struct twt_per *p,
			       u64 min)
{
	u64 last = p->start[p->limit - 1];
	u64 grid = div64_u64(last - p->first, p->period) + 1;
	u64 max = grid - p->limit + 1;

	kunit_info(test, "overruns %u, expected %llu..%llu\n",
		   p->info.overruns, min, max);
	KUNIT_EXPECT_GE(test, p->info.overruns, min);
	KUNIT_EXPECT_LE(test, p->info.overruns, max);
}

/* 2. Fixed rate: a slow callback is counted as overruns, never replayed. */
static void twt_fixed_rate(struct kunit *test)
{
	const u64 period = 10 * TWT_MS;
	struct twt_per *p = twt_per_alloc(test, 20);
	unsigned int k = 3, m;
	u64 dur, ret;

	p->sleep_at = k;
	p->sleep_ms = 80;
	twt_per_run(test, p, period, 0);
	KUNIT_EXPECT_EQ(test, p->info.mode, TWHEEL_MODE_FIXED_RATE);
	twt_check_grid(test, p);

	dur = div64_u64(p->end[k] - p->start[k], period);
	KUNIT_EXPECT_GE(test, dur, 8);
	twt_check_overruns(test, p, dur - 1);

	/*
	 * No burst after the slow callback returned at ret: the j-th callback
	 * after it is due at a grid point after ret + (j - 1) * period; allow
	 * one more period for a late tick.
	 */
	ret = p->end[k];
	for (m = k + 2; m < p->limit; m++)
		KUNIT_EXPECT_GE_MSG(test, p->start[m] + 2 * period,
				    ret + (m - k) * period,
				    "burst: callback %u %llu ns after the slow one",
				    m, p->start[m] - ret);
}

/*
 * 3. Fixed delay: each callback starts >= period after the previous returned.
 * Never early in every run; late by at most a tick plus the run's latest
 * control in one of up to three runs (a run is ~150 ms: under emulation one
 * callback of one run was seen 0.2 ms over).
 */
static void twt_fixed_delay(struct kunit *test)
{
	const u64 period = 10 * TWT_MS;
	u64 ctrl = 0, gap, worst = 0;
	unsigned int i, try;
	struct twt_per *p;
	bool ok = false;

	for (try = 0; try < 3 && !ok; try++) {
		p = twt_per_alloc(test, 8);
		p->sleep_at = 2;
		p->sleep_ms = 30;
		twt_per_run(test, p, period, TWHEEL_FIXED_DELAY);
		KUNIT_EXPECT_EQ(test, p->info.mode, TWHEEL_MODE_FIXED_DELAY);
		KUNIT_EXPECT_GE(test, p->start[0], p->first);
		KUNIT_EXPECT_EQ(test, p->info.overruns, 0);
		/*
		 * The latest control of the run, as for the one-shot timers:
		 * under emulation latency differs between instants a tick
		 * apart.
		 */
		ctrl = 0;
		for (i = 1; i < p->limit; i++)
			ctrl = max(ctrl, twt_ctrl_late(test, &p->ctrl[i]));
		worst = 0;
		for (i = 1; i < p->limit; i++) {
			gap = p->start[i] - p->end[i - 1];
			KUNIT_EXPECT_GE_MSG(test, p->start[i],
					    p->end[i - 1] + period,
					    "gap before callback %u is %lld ns", i,
					    (s64)gap);
			worst = max(worst, gap);
		}
		ok = worst <= period + twt_late_max(ctrl);
		kunit_info(test, "run %u: longest gap %llu ns, bound %llu ns",
			   try, worst, period + twt_late_max(ctrl));
	}
	KUNIT_EXPECT_TRUE_MSG(test, ok,
			      "a gap over period + a tick + the control in every run");
}

/* 4. A callback longer than its period is not re-entered; skips counted. */
static void twt_skip_running(struct kunit *test)
{
	const u64 period = 5 * TWT_MS;
	struct twt_per *p = twt_per_alloc(test, 5);
	u64 min = 0, dur;
	unsigned int i;

	p->sleep_all = true;
	p->sleep_ms = 20;
	twt_per_run(test, p, period, 0);
	twt_check_grid(test, p);
	for (i = 0; i + 1 < p->limit; i++) {
		dur = div64_u64(p->end[i] - p->start[i], period);
		min += dur > 1 ? dur - 1 : 0;
	}
	KUNIT_EXPECT_GE(test, min, p->limit - 1);
	twt_check_overruns(test, p, min);
}

/* 5. A periodic callback cancelling its own timer: no further callbacks. */
static void twt_cancel_in_callback(struct kunit *test)
{
	struct twt_per *p = twt_per_alloc(test, 3);
	struct twheel_timer_info info;

	twt_per_run(test, p, 5 * TWT_MS, 0);
	KUNIT_EXPECT_EQ(test, twheel_timer_query(&p->timer, &info), 0);
	KUNIT_EXPECT_EQ(test, info.state, TWHEEL_IDLE);
	KUNIT_EXPECT_EQ(test, twheel_timer_cancel(&p->timer), 0);
	KUNIT_EXPECT_EQ(test, twheel_timer_cancel_sync(&p->timer), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->calls), 3);
}

/* ------------------------------------------------- re-arm and modify */

#define TWT_REARMS	5

struct twt_rearm {
	struct twheel_timer	timer;
	u64			deadline;
	unsigned int		left;
	atomic_t		calls;
	atomic_t		early;
	atomic_t		bad_ret;
	struct completion	done;
	/* modify of another timer */
	struct twt_one		*other;
	u64			other_deadline;
	int			modify_ret;
};

static void twt_rearm_fn(struct twheel_timer *timer)
{
	struct twt_rearm *r = container_of(timer, struct twt_rearm, timer);
	u64 now = ktime_get_ns();

	if (now < r->deadline)
		atomic_inc(&r->early);
	atomic_inc(&r->calls);
	if (r->left) {
		r->left--;
		r->deadline = now + 2 * TWT_MS;
		/* A one-shot is idle once its callback started. */
		if (twheel_timer_arm_on(timer, r->deadline, 0, TWHEEL_ABS,
					TWHEEL_CPU_ANY))
			atomic_inc(&r->bad_ret);
		return;
	}
	if (r->other) {
		r->other->deadline = now + 10 * TWT_MS;
		r->modify_ret = twheel_timer_modify(&r->other->timer,
						    r->other->deadline, 0,
						    TWHEEL_ABS);
		/* Its control follows it. */
		twt_ctrl_arm(&r->other->ctrl, r->other->deadline,
			     r->other->ctrl.cpu);
	}
	complete(&r->done);
}

static struct twt_rearm *twt_rearm_alloc(struct kunit *test)
{
	struct twt_rearm *r;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	twheel_timer_init(&r->timer, twt_rearm_fn);
	init_completion(&r->done);
	twt_cancel_at_end(test, &r->timer);
	return r;
}

/* 6a. A one-shot re-arming itself from its callback TWT_REARMS times. */
static void twt_rearm_self(struct kunit *test)
{
	struct twt_rearm *r = twt_rearm_alloc(test);

	r->left = TWT_REARMS;
	r->deadline = ktime_get_ns() + 2 * TWT_MS;
	KUNIT_ASSERT_EQ(test, twheel_timer_arm_on(&r->timer, r->deadline, 0,
						  TWHEEL_ABS, TWHEEL_CPU_ANY),
			0);
	KUNIT_ASSERT_TRUE(test, twt_wait(&r->done));
	msleep(30);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->calls), TWT_REARMS + 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->early), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->bad_ret), 0);
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(&r->timer));
}

/* 6b. A callback modifying another pending timer: it fires at the new time. */
static void twt_modify_other(struct kunit *test)
{
	struct twt_rearm *r = twt_rearm_alloc(test);
	struct twt_set *set = twt_set_alloc(test, 1);
	struct twt_one *b = &set->t[0];

	/* B far away; A modifies it to 10 ms after A's callback. */
	KUNIT_ASSERT_EQ(test, twt_one_arm(b, 10 * MSEC_PER_SEC * TWT_MS,
					  TWHEEL_CPU_ANY), 0);
	r->other = b;
	r->deadline = ktime_get_ns() + 5 * TWT_MS;
	KUNIT_ASSERT_EQ(test, twheel_timer_arm_on(&r->timer, r->deadline, 0,
						  TWHEEL_ABS, TWHEEL_CPU_ANY),
			0);
	KUNIT_ASSERT_TRUE(test, twt_wait(&r->done));
	KUNIT_EXPECT_EQ(test, atomic_read(&r->calls), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->early), 0);
	KUNIT_EXPECT_EQ(test, r->modify_ret, 1);
	twt_set_check(test, set, 1, true);
}

/* ---------------------------------------------------------- bad input */

/* 11. Invalid flags and periods are refused and leave the timer idle. */
static void twt_bad_input(struct kunit *test)
{
	struct twheel_timer *t = twt_timer_alloc(test, twt_noop_fn);
	struct twheel_timer_info info;

	KUNIT_EXPECT_EQ(test, twheel_timer_arm_on(t, TWT_MS, 0, 1U << 7,
						  TWHEEL_CPU_ANY), -EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_timer_arm_on(t, TWT_MS, 0, ~0U,
						  TWHEEL_CPU_ANY), -EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_timer_arm_on(t, TWT_MS, 0,
						  TWHEEL_FIXED_DELAY,
						  TWHEEL_CPU_ANY), -EINVAL);
	KUNIT_EXPECT_EQ(test,
			twheel_timer_arm_on(t, TWT_MS, 0,
					    TWHEEL_FIXED_DELAY | TWHEEL_ABS,
					    TWHEEL_CPU_ANY), -EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_timer_query(t, &info), 0);
	KUNIT_EXPECT_EQ(test, info.state, TWHEEL_IDLE);

	/* The same through modify of a pending timer: it stays as it was. */
	KUNIT_ASSERT_EQ(test, twheel_timer_arm_on(t, 10 * MSEC_PER_SEC * TWT_MS,
						  0, 0, TWHEEL_CPU_ANY), 0);
	KUNIT_EXPECT_EQ(test, twheel_timer_modify(t, TWT_MS, 0, 1U << 7),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_timer_modify(t, TWT_MS, 0,
						  TWHEEL_FIXED_DELAY),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_timer_query(t, &info), 0);
	KUNIT_EXPECT_EQ(test, info.state, TWHEEL_PENDING);
	KUNIT_EXPECT_EQ(test, info.mode, TWHEEL_MODE_ONESHOT);
	KUNIT_EXPECT_GT(test, info.remaining, MSEC_PER_SEC * TWT_MS);
	KUNIT_EXPECT_EQ(test, twheel_timer_cancel(t), 1);
}

static struct kunit_case twt_driver_cases[] = {
	KUNIT_CASE(twt_bad_input),
	KUNIT_CASE(twt_realtime),
	KUNIT_CASE(twt_fixed_rate),
	KUNIT_CASE(twt_fixed_delay),
	KUNIT_CASE(twt_skip_running),
	KUNIT_CASE(twt_cancel_in_callback),
	KUNIT_CASE(twt_rearm_self),
	KUNIT_CASE(twt_modify_other),
	{}
};

static struct kunit_suite twt_driver_suite = {
	.name = "twheel_driver",
	.init = twt_case_init,
	.test_cases = twt_driver_cases,
};

kunit_test_suites(&twt_driver_suite);
