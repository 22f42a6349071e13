// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers of the KUnit suites of the twheel per-CPU driver, declared in
 * driver_test.h: the controls (struct twt_ctrl) and the bound on lateness
 * they give, waits with a timeout, timers cancelled when a case ends, and
 * sets of one-shot timers checked for exact, on-time, on-CPU expiry. The
 * rules the checks follow are at the top of driver_test.c.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/smp.h>
#include <linux/twheel.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "driver_test.h"
#include "testhooks.h"

/* The latest control of the running case: the window of its timers. */
static atomic64_t twt_ctrl_window;

/* At the start of each case of the driver suites. */
int twt_case_init(struct kunit *test)
{
	atomic64_set(&twt_ctrl_window, 0);
	return 0;
}

/*
 * The promise: one tick (the rounding up to the tick) more than the
 * system added, as the latest control of the case measured it; @ctrl_late
 * is one the caller waited for. TWT_JITTER_TICKS more ticks for sampling:
 * a control is one draw of the wake-up delay a timer's runner pays once
 * more, and single draws under emulation differ by a millisecond or so
 * (a timer 4.24 ms late against a 3.15 ms control, debug 6.12).
 */
#define TWT_JITTER_TICKS	1

u64 twt_late_max(u64 ctrl_late)
{
	return (1 + TWT_JITTER_TICKS) * twheel_tick_ns() +
	       max_t(u64, ctrl_late, atomic64_read(&twt_ctrl_window));
}

static enum hrtimer_restart twt_ctrl_fire(struct hrtimer *hrt)
{
	struct twt_ctrl *c = container_of(hrt, struct twt_ctrl, hrt);

	queue_work_on(c->cpu, system_highpri_wq, &c->work);
	return HRTIMER_NORESTART;
}

static void twt_ctrl_work(struct work_struct *work)
{
	struct twt_ctrl *c = container_of(work, struct twt_ctrl, work);
	u64 now = ktime_get_ns();

	s64 old = atomic64_read(&twt_ctrl_window);

	c->late = now > c->deadline ? now - c->deadline : 0;
	while (old < (s64)c->late &&
	       !atomic64_try_cmpxchg(&twt_ctrl_window, &old, c->late))
		;
	complete(&c->done);
}

void twt_ctrl_init(struct twt_ctrl *c)
{
	twheel_hrtimer_setup(&c->hrt, twt_ctrl_fire, CLOCK_MONOTONIC,
			     HRTIMER_MODE_ABS_PINNED);
	INIT_WORK(&c->work, twt_ctrl_work);
	init_completion(&c->done);
}

static void twt_ctrl_start_here(void *data)
{
	struct twt_ctrl *c = data;

	hrtimer_start(&c->hrt, ns_to_ktime(c->deadline),
		      HRTIMER_MODE_ABS_PINNED);
}

/*
 * Arm @c on @cpu (TWHEEL_CPU_ANY: this one) for the start of the tick of
 * @deadline: the latest time the tick hrtimer of a twheel timer due at
 * @deadline fires (an exact bucket fires earlier), so that the control
 * meets the interrupt latency of that instant.
 */
void twt_ctrl_arm(struct twt_ctrl *c, u64 deadline, int cpu)
{
	u64 tick = twheel_tick_ns();

	if (cpu == TWHEEL_CPU_ANY)
		cpu = raw_smp_processor_id();
	c->deadline = DIV_ROUND_UP_ULL(deadline, tick) * tick;
	c->cpu = cpu;
	c->armed = true;
	reinit_completion(&c->done);
	if (smp_call_function_single(cpu, twt_ctrl_start_here, c, 1))
		c->armed = false;
}

void twt_ctrl_stop(struct twt_ctrl *c)
{
	hrtimer_cancel(&c->hrt);
	cancel_work_sync(&c->work);
}

/* Lateness of armed control @c, once it ran (a failure if it did not). */
u64 twt_ctrl_late(struct kunit *test, struct twt_ctrl *c)
{
	if (!c->armed)
		return 0;
	if (!twt_wait(&c->done)) {
		KUNIT_FAIL(test, "control hrtimer and work did not run in %d ms",
			   TWT_TIMEOUT_MS);
		return 0;
	}
	return c->late;
}

bool twt_wait(struct completion *c)
{
	return wait_for_completion_timeout(c,
					   msecs_to_jiffies(TWT_TIMEOUT_MS));
}

KUNIT_DEFINE_ACTION_WRAPPER(twt_cancel_sync_action, twheel_timer_cancel_sync,
			    struct twheel_timer *);

/* twheel_timer_cancel_sync(@t) when the test ends, before @t is freed. */
void twt_cancel_at_end(struct kunit *test, struct twheel_timer *t)
{
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, twt_cancel_sync_action, t));
}

void twt_noop_fn(struct twheel_timer *timer)
{
}

struct twheel_timer *twt_timer_alloc(struct kunit *test, twheel_func_t fn)
{
	struct twheel_timer *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	twheel_timer_init(t, fn);
	twt_cancel_at_end(test, t);
	return t;
}

/* ------------------------------------------------------------ one-shots */

/* A set of one-shot timers sharing a completion. */
static void twt_one_fn(struct twheel_timer *timer)
{
	struct twt_one *t = container_of(timer, struct twt_one, timer);
	struct twt_set *set = t->set;
	u64 now = ktime_get_ns();

	t->fired_ns = now;
	t->fired_cpu = raw_smp_processor_id();
	t->in_task = in_task() && !irqs_disabled();
	atomic_inc(&t->fired);
	atomic_inc(&set->calls);
	if (atomic_dec_and_test(&set->left))
		complete(&set->done);
}

static void twt_set_cancel(void *data)
{
	struct twt_set *set = data;
	unsigned int i;

	for (i = 0; i < set->n; i++) {
		twheel_timer_cancel_sync(&set->t[i].timer);
		twt_ctrl_stop(&set->t[i].ctrl);
	}
}

struct twt_set *twt_set_alloc(struct kunit *test, unsigned int n)
{
	struct twt_set *set;
	unsigned int i;

	set = kunit_kzalloc(test, sizeof(*set), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, set);
	set->t = kunit_kcalloc(test, n, sizeof(*set->t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, set->t);
	set->n = n;
	/* Biased by one until twt_set_check(): arming may race with expiry. */
	atomic_set(&set->left, 1);
	init_completion(&set->done);
	for (i = 0; i < n; i++) {
		twheel_timer_init(&set->t[i].timer, twt_one_fn);
		twt_ctrl_init(&set->t[i].ctrl);
		set->t[i].set = set;
		set->t[i].cpu = -1;
	}
	/* Runs before the memory above is freed (actions run in reverse). */
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, twt_set_cancel, set));
	return set;
}

/* Arm t on @cpu to fire @delta ns from now; returns twheel_timer_arm_on(). */
int twt_one_arm(struct twt_one *t, u64 delta, int cpu)
{
	int ret;

	t->deadline = ktime_get_ns() + delta;
	t->cpu = cpu;
	t->armed = true;
	atomic_inc(&t->set->left);
	ret = twheel_timer_arm_on(&t->timer, t->deadline, 0, TWHEEL_ABS, cpu);
	if (ret < 0) {
		t->armed = false;
		atomic_dec(&t->set->left);
	} else {
		twt_ctrl_arm(&t->ctrl, t->deadline, cpu);
	}
	return ret;
}

/*
 * Check every armed timer of @set fired exactly once, in process context,
 * on its CPU (unless @any_cpu), not before its deadline and, if @judge_late,
 * at most one tick later than the latest of the set's controls. Return: no
 * timer was later than that.
 */
static bool __twt_set_check(struct kunit *test, struct twt_set *set,
			    unsigned int armed, bool any_cpu, bool judge_late)
{
	unsigned int i, bad_count = 0, early = 0, late = 0, wrong_cpu = 0;
	unsigned int not_task = 0;
	u64 lat, lat_max = 0, ctrl_max = 0;

	if (atomic_dec_and_test(&set->left))
		complete(&set->done);
	KUNIT_ASSERT_TRUE_MSG(test, twt_wait(&set->done),
			      "%d of %u timers did not fire in %d ms",
			      atomic_read(&set->left), armed, TWT_TIMEOUT_MS);
	/* Leave time for a duplicate expiry to show up. */
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&set->calls), armed);
	KUNIT_EXPECT_EQ(test, atomic_read(&set->left), 0);
	for (i = 0; i < set->n; i++)
		if (set->t[i].armed)
			ctrl_max = max(ctrl_max,
				       twt_ctrl_late(test, &set->t[i].ctrl));

	for (i = 0; i < set->n; i++) {
		struct twt_one *t = &set->t[i];

		if (!t->armed)
			continue;
		if (atomic_read(&t->fired) != 1) {
			bad_count++;
			continue;
		}
		if (t->fired_ns < t->deadline) {
			early++;
			kunit_err(test, "timer %u early by %llu ns\n", i,
				  t->deadline - t->fired_ns);
			continue;
		}
		/* Never negative: one may fire before @late_from was read. */
		lat = t->fired_ns - min(t->fired_ns,
					max(t->deadline, t->late_from));
		lat_max = max(lat_max, lat);
		if (lat > twt_late_max(ctrl_max))
			late++;
		if (!any_cpu && t->cpu >= 0 && t->fired_cpu != t->cpu)
			wrong_cpu++;
		if (!t->in_task)
			not_task++;
	}
	/*
	 * KCSAN stalls instrumented code on purpose, the module's far more
	 * than the control's path: lateness is reported, not asserted, there
	 * (every other check still is).
	 */
	if (judge_late && late && IS_ENABLED(CONFIG_KCSAN) && !bad_count &&
	    !early && !wrong_cpu && !not_task)
		kunit_skip(test, "%u timers later than %llu ns (max %llu) on a KCSAN kernel",
			   late, twt_late_max(ctrl_max), lat_max);
	KUNIT_EXPECT_EQ_MSG(test, bad_count, 0, "timers not fired exactly once");
	KUNIT_EXPECT_EQ_MSG(test, early, 0, "timers fired before deadline");
	if (judge_late)
		KUNIT_EXPECT_EQ_MSG(test, late, 0,
				    "timers later than %llu ns (max %llu)",
				    twt_late_max(ctrl_max), lat_max);
	KUNIT_EXPECT_EQ_MSG(test, wrong_cpu, 0, "callbacks on the wrong CPU");
	KUNIT_EXPECT_EQ_MSG(test, not_task, 0, "callbacks not in process context");
	kunit_info(test, "%u timers, max lateness %llu us, control %llu us%s\n",
		   armed, div_u64(lat_max, NSEC_PER_USEC),
		   div_u64(ctrl_max, NSEC_PER_USEC),
		   late ? " (over the bound)" : "");
	return !late;
}

void twt_set_check(struct kunit *test, struct twt_set *set,
		   unsigned int armed, bool any_cpu)
{
	__twt_set_check(test, set, armed, any_cpu, true);
}

/*
 * twt_set_check() of one of up to TWT_WINDOWS runs of the same case: every
 * check but lateness holds in each; lateness is judged in the @last only
 * (the caller stops at the first run that meets it). Return: it was met.
 * The controls' window starts again with the next run.
 */
bool twt_set_check_window(struct kunit *test, struct twt_set *set,
			  unsigned int armed, bool any_cpu, bool last)
{
	bool ok = __twt_set_check(test, set, armed, any_cpu, last);

	atomic64_set(&twt_ctrl_window, 0);
	return ok;
}

/* A snapshot of the base of @cpu (a failure ends the case). */
void twt_snapshot(struct kunit *test, int cpu,
		  struct twheel_base_snapshot *snap)
{
	KUNIT_ASSERT_EQ(test, twheel_base_snapshot(cpu, snap), 0);
}

/* Wait up to 2 s for the base of @cpu to be empty. */
void twt_wait_idle(struct kunit *test, int cpu,
		   struct twheel_base_snapshot *snap)
{
	int i;

	for (i = 0; i < 200; i++) {
		twt_snapshot(test, cpu, snap);
		if (!snap->pending && !snap->expired && !snap->tick_armed)
			return;
		usleep_range(10000, 11000);
	}
}
