// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the bounded tick: TWHEEL_TIMER_TICK callbacks (run in the
 * pass of the tick that expires them, under the base lock) and bursts of
 * timers sharing one tick, more than one pass's budget (TW_PASS_BUDGET),
 * which the base's work item finishes. Real clock, real hrtimers.
 *
 * Strict checks only: never early, exactly once, the callback's context
 * (the tick's interrupt or softirq, interrupts off, not a worker; a worker
 * timer's callback checked the same way shows the opposite), nothing after
 * twheel_timer_cancel() returned. Every wait has a timeout and every timer is
 * stopped before its memory is freed.
 *
 * The cases of the tick against the rest of the system are in
 * tick_system_test.c, those of exact buckets in tick_exact_test.c, in this
 * suite (tick_test.h).
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/ktime.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/twheel.h>
#include <linux/workqueue.h>

#include "base/base.h"
#include "compat.h"
#include "testhooks.h"
#include "tick_test.h"

TWHEEL_IMPORT_KUNIT_NS();

static void twk_fn(struct twheel_timer *timer)
{
	struct twk_timer *k = container_of(timer, struct twk_timer, timer);
	struct twk_burst *b = k->burst;

	k->fired_ns = ktime_get_ns();
	k->irqs_off = irqs_disabled();
	k->in_task = in_task();
	k->in_worker = current_work();
	atomic_inc(&k->fired);
	if (k->fired_ns < b->deadline)
		atomic_inc(&b->early);
	if (atomic_dec_and_test(&b->left))
		complete(&b->done);
}

static void twk_stop_all(void *data)
{
	struct twk_timer *k = data;

	/* Freed by KUnit after this: stop whatever is left first. */
	while (k->burst) {
		twheel_timer_cancel_sync(&k->timer);
		k++;
	}
}

/* @n timers (TWHEEL_TIMER_TICK if @tick) due together on CPU @cpu. */
struct twk_timer *twk_burst_arm(struct kunit *test, struct twk_burst *b,
				unsigned int n, bool tick, int cpu, u64 in_ns)
{
	struct twk_timer *k;
	unsigned int i;

	k = kunit_kcalloc(test, n + 1, sizeof(*k), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, k);
	init_completion(&b->done);
	atomic_set(&b->left, n);
	atomic_set(&b->early, 0);
	b->deadline = ktime_get_ns() + in_ns;
	for (i = 0; i < n; i++) {
		twheel_timer_setup(&k[i].timer, twk_fn,
				   tick || (i & 1) ? TWHEEL_TIMER_TICK : 0);
		k[i].burst = b;
	}
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, twk_stop_all, k));
	for (i = 0; i < n; i++) {
		int ret = twheel_timer_arm_on(&k[i].timer, b->deadline, 0,
					      TWHEEL_ABS, cpu);

		KUNIT_ASSERT_EQ(test, ret, 0);
	}
	return k;
}

void twk_burst_check(struct kunit *test, struct twk_burst *b,
		     struct twk_timer *k, unsigned int n)
{
	unsigned int i, twice = 0;
	unsigned long left;

	left = wait_for_completion_timeout(&b->done,
					   msecs_to_jiffies(TWK_TIMEOUT_MS));
	KUNIT_ASSERT_TRUE_MSG(test, left, "%d of %u timers did not fire",
			      atomic_read(&b->left), n);
	/* Nothing fires twice, even a little later. */
	msleep(20);
	for (i = 0; i < n; i++)
		twice += atomic_read(&k[i].fired) != 1;
	KUNIT_EXPECT_EQ(test, twice, 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->early), 0);
}

/*
 * A tick callback runs in the tick's pass: in its hrtimer's interrupt (a
 * softirq thread on PREEMPT_RT), with interrupts off (the base lock), not
 * in a worker; never early, exactly once. The same probes in a worker
 * timer's callback, due at the same time, see the opposite, so they tell
 * the two apart.
 */
static void twk_tick_context(struct kunit *test)
{
	struct twk_burst b;
	struct twk_timer *k;

	/* Timer 0 is a worker timer, timer 1 a tick timer: see twk_burst_arm. */
	k = twk_burst_arm(test, &b, 2, false, TWHEEL_CPU_ANY,
			  5 * NSEC_PER_MSEC);
	twk_burst_check(test, &b, k, 2);
	KUNIT_EXPECT_TRUE(test, k[1].irqs_off);
	KUNIT_EXPECT_FALSE(test, k[1].in_task);
	KUNIT_EXPECT_FALSE(test, k[1].in_worker);
	KUNIT_EXPECT_FALSE(test, k[0].irqs_off);
	KUNIT_EXPECT_TRUE(test, k[0].in_task);
	KUNIT_EXPECT_TRUE(test, k[0].in_worker);
	KUNIT_EXPECT_EQ(test, twheel_timer_cancel(&k[0].timer), 0);
	KUNIT_EXPECT_EQ(test, twheel_timer_cancel(&k[1].timer), 0);
}

/*
 * Far more timers in one tick than one pass may expire, half of them tick
 * callbacks and half worker callbacks: all fire once, none early, and the
 * base ends up idle with its tick programmed as before.
 */
static void twk_burst(struct kunit *test)
{
	unsigned int n = 8 * TW_PASS_BUDGET + 7;
	struct twheel_base_snapshot snap;
	struct twk_burst b;
	struct twk_timer *k;
	int cpu = raw_smp_processor_id();

	k = twk_burst_arm(test, &b, n, false, cpu, 20 * NSEC_PER_MSEC);
	twk_burst_check(test, &b, k, n);
	KUNIT_ASSERT_EQ(test, twheel_base_snapshot(cpu, &snap), 0);
	KUNIT_EXPECT_EQ(test, snap.pending, 0UL);
}

/*
 * A burst far in the future (levels above 0: every timer cascades in
 * bounded passes before it expires).
 */
static void twk_burst_cascade(struct kunit *test)
{
	unsigned int n = 4 * TW_PASS_BUDGET + 3;
	struct twk_burst b;
	struct twk_timer *k;

	k = twk_burst_arm(test, &b, n, true, TWHEEL_CPU_ANY,
			  300 * NSEC_PER_MSEC);
	twk_burst_check(test, &b, k, n);
}

struct twk_per {
	struct twheel_timer	timer;
	atomic_t		fired;
	u64			first;
	u64			period;
	atomic_t		early;
};

static void twk_per_fn(struct twheel_timer *timer)
{
	struct twk_per *p = container_of(timer, struct twk_per, timer);
	u64 now = ktime_get_ns();
	int n = atomic_inc_return(&p->fired);

	/* Fixed rate: expiry n (from 1) is due at first + (n - 1) * period. */
	if (now < p->first + (u64)(n - 1) * p->period && !timer->overruns)
		atomic_inc(&p->early);
}

static void twk_per_stop(void *data)
{
	twheel_timer_cancel_sync(data);
}

/*
 * The tick re-arms a periodic tick timer; once twheel_timer_cancel() returns
 * its callback neither runs nor runs again.
 */
static void twk_tick_periodic(struct kunit *test)
{
	struct twk_per *p;
	int seen, i;

	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	twheel_timer_setup(&p->timer, twk_per_fn, TWHEEL_TIMER_TICK);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, twk_per_stop, &p->timer));
	p->period = 2 * NSEC_PER_MSEC;
	p->first = ktime_get_ns() + p->period;
	KUNIT_ASSERT_EQ(test, twheel_timer_arm_periodic(&p->timer, p->first,
							p->period, TWHEEL_ABS),
			0);
	for (i = 0; i < 5000 && atomic_read(&p->fired) < 5; i++)
		usleep_range(1000, 2000);
	KUNIT_ASSERT_GE(test, atomic_read(&p->fired), 5);
	KUNIT_EXPECT_EQ(test, twheel_timer_cancel(&p->timer), 1);
	seen = atomic_read(&p->fired);
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->fired), seen);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->early), 0);
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(&p->timer));
}

static struct kunit_case twk_cases[] = {
	KUNIT_CASE(twk_tick_context),
	KUNIT_CASE(twk_tick_periodic),
	KUNIT_CASE(twk_burst),
	KUNIT_CASE(twk_burst_cascade),
	KUNIT_CASE(twk_tick_restarted),
	KUNIT_CASE(twk_behind_runners_asleep),
	KUNIT_CASE(twk_clock_not_under_lock),
	KUNIT_CASE(twk_exact_bucket),
	KUNIT_CASE(twk_exact_arm_order),
	KUNIT_CASE(twk_exact_remote),
	KUNIT_CASE(twk_exact_within),
	KUNIT_CASE(twk_exact_tries),
	KUNIT_CASE(twk_exact_cascade),
	{}
};

static struct kunit_suite twk_suite = {
	.name = "twheel_tick",
	.test_cases = twk_cases,
};

kunit_test_suites(&twk_suite);
