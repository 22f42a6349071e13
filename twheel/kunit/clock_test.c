// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite twheel_clock of the in-kernel clock timers (api_clock.c):
 * bad clocks and flags, a CLOCK_BOOTTIME timer that fires not early on its
 * clock, and CLOCK_REALTIME absolute timers across steps of the wall clock
 * made with do_settimeofday64(): a step forward past the deadline fires at
 * once, a step back delays the timer until the clock gets there again, a
 * timer armed after the step back does not fire early. Then modify, and
 * periodic timers across a step: a fixed-rate CLOCK_REALTIME timer stepped
 * an hour forward is called once, at once (long before its period ends,
 * so only the step can have done it), with the hour's periods as
 * overruns, not in a burst, and once stepped back it waits for its clock; a CLOCK_BOOTTIME
 * periodic timer goes on at its rate through both steps. And, on test
 * builds, a timer the wheel fires early on purpose (knob utimer_early)
 * whose callback still waits for its deadline, and a cancel while an
 * expiry is held before its look (hook clock_fire) that reports the timer
 * pending and keeps its callback from running.
 *
 * The step case sets CLOCK_REALTIME and puts it back at the end to the
 * value found at its start plus the CLOCK_MONOTONIC time elapsed; it takes
 * about one second.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/time.h>
#include <linux/timekeeping.h>
#include <linux/twheel.h>

#include "testhooks.h"

#define TWC_MS		((u64)NSEC_PER_MSEC)
#define TWC_HOUR	(3600ULL * NSEC_PER_SEC)
/* Upper bound on a wait for a callback that is due. */
#define TWC_WAIT_MS	1500

struct twc_timer {
	struct twheel_clock_timer	ct;
	atomic_t			calls;
	u64				fired_real;	/* first callback */
	u64				fired_boot;
	u64				fired_mono;
	struct completion		done;		/* first callback */
};

static void twc_fn(struct twheel_clock_timer *ct)
{
	struct twc_timer *t = container_of(ct, struct twc_timer, ct);

	if (atomic_inc_return(&t->calls) != 1)
		return;
	t->fired_real = ktime_get_real_ns();
	t->fired_boot = ktime_get_boottime_ns();
	t->fired_mono = ktime_get_ns();
	complete(&t->done);
}

/*
 * Per case: three timers and the clocks at the start. The exit cancels the
 * timers and puts the wall clock back even when an assertion ended the case.
 */
struct twc_ctx {
	struct twc_timer	t[3];
	u64			real0;
	u64			mono0;
	bool			stepped;
};

static int twc_init(struct kunit *test)
{
	struct twc_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	if (!c)
		return -ENOMEM;
	c->real0 = ktime_get_real_ns();
	c->mono0 = ktime_get_ns();
	test->priv = c;
	return 0;
}

static void twc_set_real(u64 ns)
{
	struct timespec64 ts = ns_to_timespec64(ns);

	WARN_ON(do_settimeofday64(&ts));
}

/* The wall clock as found at the start, plus the time elapsed since. */
static void twc_restore_real(struct twc_ctx *c)
{
	twc_set_real(c->real0 + (ktime_get_ns() - c->mono0));
}

static void twc_exit(struct kunit *test)
{
	struct twc_ctx *c = test->priv;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c->t); i++)
		if (c->t[i].ct.func)
			twheel_clock_cancel_sync(&c->t[i].ct);
	if (c->stepped)
		twc_restore_real(c);
}

static int twc_setup(struct twc_timer *t, clockid_t clockid)
{
	atomic_set(&t->calls, 0);
	init_completion(&t->done);
	return twheel_clock_timer_setup(&t->ct, clockid, twc_fn);
}

static bool twc_wait(struct twc_timer *t, unsigned int ms)
{
	return wait_for_completion_timeout(&t->done, msecs_to_jiffies(ms));
}

static void twc_bad_input(struct kunit *test)
{
	static const clockid_t bad[] = {
		CLOCK_TAI, CLOCK_REALTIME_ALARM, CLOCK_BOOTTIME_ALARM,
		CLOCK_PROCESS_CPUTIME_ID, CLOCK_MONOTONIC_RAW, -1,
	};
	struct twc_ctx *c = test->priv;
	struct twc_timer *t = &c->t[0];
	struct twheel_timer_info info;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, twc_setup(t, bad[i]), -EINVAL,
				    "clockid %d", bad[i]);

	KUNIT_ASSERT_EQ(test, twc_setup(t, CLOCK_REALTIME), 0);
	/* Relative CLOCK_REALTIME: not a wall-clock deadline. */
	KUNIT_EXPECT_EQ(test, twheel_clock_arm_on(&t->ct, TWC_MS, 0, 0,
						  TWHEEL_CPU_ANY), -EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_clock_modify(&t->ct, TWC_MS, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_clock_arm_on(&t->ct, TWC_HOUR, TWC_MS,
						  TWHEEL_ABS | TWHEEL_FIXED_DELAY,
						  TWHEEL_CPU_ANY), -EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_clock_arm_on(&t->ct, TWC_HOUR, 0,
						  TWHEEL_ABS | BIT(7),
						  TWHEEL_CPU_ANY), -EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_clock_arm_on(&t->ct, TWC_HOUR, 0, TWHEEL_ABS,
						  -5), -ERANGE);
	/* Nothing was armed by the refused calls. */
	KUNIT_EXPECT_EQ(test, twheel_clock_query(&t->ct, &info), 0);
	KUNIT_EXPECT_EQ(test, info.state, (u32)TWHEEL_IDLE);
	KUNIT_EXPECT_EQ(test, info.deadline, 0ULL);
	KUNIT_EXPECT_EQ(test, twheel_clock_cancel(&t->ct), 0);

	KUNIT_ASSERT_EQ(test, twc_setup(t, CLOCK_BOOTTIME), 0);
	KUNIT_EXPECT_EQ(test, twheel_clock_arm_on(&t->ct, TWC_MS, TWC_MS,
						  TWHEEL_FIXED_DELAY,
						  TWHEEL_CPU_ANY), -EINVAL);
	KUNIT_ASSERT_EQ(test, twc_setup(t, CLOCK_MONOTONIC), 0);
	KUNIT_EXPECT_EQ(test, twheel_clock_arm_on(&t->ct, TWC_MS, 0,
						  TWHEEL_FIXED_DELAY,
						  TWHEEL_CPU_ANY), -EINVAL);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->calls), 0);
}

/* A relative CLOCK_BOOTTIME timer, then a periodic one on the same clock. */
static void twc_boottime(struct kunit *test)
{
	struct twc_ctx *c = test->priv;
	struct twc_timer *t = &c->t[0];
	struct twheel_timer_info info;
	u64 b0, late;

	KUNIT_ASSERT_EQ(test, twc_setup(t, CLOCK_BOOTTIME), 0);
	b0 = ktime_get_boottime_ns();
	KUNIT_ASSERT_EQ(test, twheel_clock_arm_on(&t->ct, 20 * TWC_MS, 0, 0,
						  TWHEEL_CPU_ANY), 0);
	KUNIT_EXPECT_EQ(test, twheel_clock_query(&t->ct, &info), 0);
	KUNIT_EXPECT_GE(test, info.deadline, b0 + 20 * TWC_MS);
	KUNIT_EXPECT_LE(test, info.deadline, ktime_get_boottime_ns() + 20 * TWC_MS);
	KUNIT_EXPECT_LE(test, info.remaining, 20 * TWC_MS);
	KUNIT_EXPECT_EQ(test, info.mode, (u32)TWHEEL_MODE_ONESHOT);
	KUNIT_ASSERT_TRUE(test, twc_wait(t, TWC_WAIT_MS));
	KUNIT_EXPECT_GE(test, t->fired_boot, info.deadline);
	late = t->fired_boot - info.deadline;
	kunit_info(test, "boottime one-shot: %llu us late\n", late / 1000);
	KUNIT_EXPECT_EQ(test, twheel_clock_query(&t->ct, &info), 0);
	KUNIT_EXPECT_EQ(test, info.deadline, 0ULL);

	/* Fixed rate on CLOCK_BOOTTIME: keeps firing until cancelled. */
	KUNIT_ASSERT_EQ(test, twc_setup(t, CLOCK_BOOTTIME), 0);
	KUNIT_ASSERT_EQ(test, twheel_clock_arm_on(&t->ct, 10 * TWC_MS,
						  10 * TWC_MS, 0,
						  TWHEEL_CPU_ANY), 0);
	KUNIT_EXPECT_EQ(test, twheel_clock_query(&t->ct, &info), 0);
	KUNIT_EXPECT_EQ(test, info.mode, (u32)TWHEEL_MODE_FIXED_RATE);
	KUNIT_EXPECT_EQ(test, info.period, 10 * TWC_MS);
	msleep(100);
	/* Fixed rate, never cancelled: pending until this cancel. */
	KUNIT_EXPECT_EQ(test, twheel_clock_cancel_sync(&t->ct), 1);
	KUNIT_EXPECT_GE(test, atomic_read(&t->calls), 2);
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(&t->ct.cb.timer));
}

static void twc_realtime_step(struct kunit *test)
{
	struct twc_ctx *c = test->priv;
	struct twc_timer *a = &c->t[0], *b = &c->t[1], *d = &c->t[2];
	struct twheel_timer_info info;
	u64 da, db, dd, t0;

	KUNIT_ASSERT_EQ(test, twc_setup(a, CLOCK_REALTIME), 0);
	KUNIT_ASSERT_EQ(test, twc_setup(b, CLOCK_REALTIME), 0);
	KUNIT_ASSERT_EQ(test, twc_setup(d, CLOCK_REALTIME), 0);

	/* A: 2 s ahead, then the wall clock jumps 1 h forward: fires at once. */
	da = c->real0 + 2 * NSEC_PER_SEC;
	KUNIT_ASSERT_EQ(test, twheel_clock_arm_on(&a->ct, da, 0, TWHEEL_ABS,
						  TWHEEL_CPU_ANY), 0);
	t0 = ktime_get_ns();
	c->stepped = true;
	twc_set_real(ktime_get_real_ns() + TWC_HOUR);
	KUNIT_EXPECT_TRUE(test, twc_wait(a, TWC_WAIT_MS));
	KUNIT_EXPECT_EQ(test, atomic_read(&a->calls), 1);
	KUNIT_EXPECT_GE(test, a->fired_real, da);
	KUNIT_EXPECT_LT(test, a->fired_mono - t0, (u64)TWC_WAIT_MS * TWC_MS);
	kunit_info(test, "+1 h step: fired %llu ms after it\n",
		   (a->fired_mono - t0) / TWC_MS);
	twc_restore_real(c);

	/* B: 300 ms ahead, then the wall clock goes back 1 h: not due. */
	db = ktime_get_real_ns() + 300 * TWC_MS;
	KUNIT_ASSERT_EQ(test, twheel_clock_arm_on(&b->ct, db, 0, TWHEEL_ABS,
						  TWHEEL_CPU_ANY), 0);
	twc_set_real(ktime_get_real_ns() - TWC_HOUR);
	/* D: armed after the step back, 100 ms ahead: not early either. */
	dd = ktime_get_real_ns() + 100 * TWC_MS;
	KUNIT_ASSERT_EQ(test, twheel_clock_arm_on(&d->ct, dd, 0, TWHEEL_ABS,
						  TWHEEL_CPU_ANY), 0);
	KUNIT_EXPECT_TRUE(test, twc_wait(d, TWC_WAIT_MS));
	KUNIT_EXPECT_GE(test, d->fired_real, dd);
	msleep(500);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->calls), 0);
	KUNIT_EXPECT_EQ(test, twheel_clock_query(&b->ct, &info), 0);
	KUNIT_EXPECT_EQ(test, info.deadline, db);
	KUNIT_EXPECT_GT(test, info.remaining, TWC_HOUR - 10 * NSEC_PER_SEC);

	/* Back to the true time: B is due and fires at once. */
	twc_restore_real(c);
	KUNIT_EXPECT_TRUE(test, twc_wait(b, TWC_WAIT_MS));
	KUNIT_EXPECT_GE(test, b->fired_real, db);

	c->stepped = false;
	twheel_clock_cancel_sync(&a->ct);
	twheel_clock_cancel_sync(&b->ct);
	twheel_clock_cancel_sync(&d->ct);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->calls), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->calls), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&d->calls), 1);
}

/* Modify a pending CLOCK_REALTIME timer; periodic timers across steps. */
static void twc_modify_periodic_step(struct kunit *test)
{
	struct twc_ctx *c = test->priv;
	struct twc_timer *a = &c->t[0], *r = &c->t[1], *p = &c->t[2];
	struct twheel_timer_info info;
	int ra, rp;
	u64 d;

	KUNIT_ASSERT_EQ(test, twc_setup(a, CLOCK_REALTIME), 0);
	KUNIT_ASSERT_EQ(test, twc_setup(r, CLOCK_REALTIME), 0);
	KUNIT_ASSERT_EQ(test, twc_setup(p, CLOCK_BOOTTIME), 0);

	/* A: an hour ahead, modified to 100 ms ahead: pending, then fires. */
	KUNIT_ASSERT_EQ(test, twheel_clock_arm_on(&a->ct, c->real0 + TWC_HOUR,
						  0, TWHEEL_ABS,
						  TWHEEL_CPU_ANY), 0);
	d = ktime_get_real_ns() + 100 * TWC_MS;
	KUNIT_EXPECT_EQ(test, twheel_clock_modify(&a->ct, d, 0, TWHEEL_ABS), 1);
	KUNIT_EXPECT_EQ(test, twheel_clock_query(&a->ct, &info), 0);
	KUNIT_EXPECT_EQ(test, info.deadline, d);
	KUNIT_EXPECT_TRUE(test, twc_wait(a, TWC_WAIT_MS));
	KUNIT_EXPECT_GE(test, a->fired_real, d);

	/*
	 * R: fixed rate of 5 s on CLOCK_REALTIME, so that only the step can
	 * make it fire in the 500 ms after it (its wheel timer is 5 s away);
	 * P: 100 ms on BOOTTIME.
	 */
	d = ktime_get_real_ns() + 100 * TWC_MS;
	KUNIT_ASSERT_EQ(test, twheel_clock_arm_on(&r->ct, d, 5000 * TWC_MS,
						  TWHEEL_ABS,
						  TWHEEL_CPU_ANY), 0);
	KUNIT_ASSERT_EQ(test, twheel_clock_arm_on(&p->ct, 100 * TWC_MS,
						  100 * TWC_MS, 0,
						  TWHEEL_CPU_ANY), 0);
	KUNIT_ASSERT_TRUE(test, twc_wait(r, TWC_WAIT_MS));
	msleep(200);

	/*
	 * An hour forward: the step re-arms R, which is called once, at
	 * once, with the ~720 periods of the hour as overruns.
	 */
	c->stepped = true;
	ra = atomic_read(&r->calls);
	rp = atomic_read(&p->calls);
	twc_set_real(ktime_get_real_ns() + TWC_HOUR);
	msleep(500);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&r->calls), ra + 1,
			    "a step forward by many periods is one call, at once");
	KUNIT_EXPECT_EQ(test, twheel_clock_query(&r->ct, &info), 0);
	KUNIT_EXPECT_GE(test, info.overruns, 718U);
	KUNIT_EXPECT_EQ(test, info.period, 5000 * TWC_MS);

	/* Back an hour: R's next deadline is an hour away on its clock. */
	twc_restore_real(c);
	c->stepped = false;
	msleep(200);
	ra = atomic_read(&r->calls);
	msleep(500);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->calls), ra);
	KUNIT_EXPECT_EQ(test, twheel_clock_query(&r->ct, &info), 0);
	KUNIT_EXPECT_GT(test, info.remaining, TWC_HOUR - 10 * NSEC_PER_SEC);

	/* P kept its rate through both steps: about 12 calls in 1.2 s. */
	KUNIT_EXPECT_GE(test, atomic_read(&p->calls), rp + 5);
	KUNIT_EXPECT_LT(test, atomic_read(&p->calls), rp + 40);
	kunit_info(test, "BOOTTIME periodic: %d calls across the steps\n",
		   atomic_read(&p->calls) - rp);
}

/*
 * Never early even when the wheel is: with the test knob utimer_early, the
 * clock-bound core arms every timer 50 ms before its deadline's conversion
 * (planted: the wheel timer's deadline shows it), so the wheel fires a
 * CLOCK_BOOTTIME timer 200 ms ahead 50 ms early. Its callback must still
 * come no earlier than the deadline on CLOCK_BOOTTIME, once: the core's
 * re-check puts it back (and counts utimer_early, in debugfs).
 */
#define TWC_PLANTED_US	50000

static void twc_planted_early(struct kunit *test)
{
#ifdef TWHEEL_TESTHOOKS
	struct twc_ctx *c = test->priv;
	struct twc_timer *t = &c->t[0];
	struct twheel_timer_info info;
	u64 h0, conv;

	KUNIT_ASSERT_EQ(test, twc_setup(t, CLOCK_BOOTTIME), 0);
	h0 = twheel_hook_hits(TWHEEL_HOOK_utimer_early);
	twheel_hook_set(TWHEEL_HOOK_utimer_early, TWC_PLANTED_US);
	KUNIT_ASSERT_EQ(test, twheel_clock_arm_on(&t->ct, 200 * TWC_MS, 0, 0,
						  TWHEEL_CPU_ANY), 0);
	KUNIT_EXPECT_EQ(test, twheel_clock_query(&t->ct, &info), 0);
	conv = info.deadline - (ktime_get_boottime_ns() - ktime_get_ns());
	KUNIT_EXPECT_LE_MSG(test, t->ct.cb.timer.deadline + 25 * TWC_MS, conv,
			    "the wheel timer is armed early on purpose");
	KUNIT_EXPECT_TRUE(test, twc_wait(t, TWC_WAIT_MS));
	twheel_hook_set(TWHEEL_HOOK_utimer_early, 0);
	KUNIT_EXPECT_GE(test, t->fired_boot, info.deadline);
	KUNIT_EXPECT_LT(test, h0, twheel_hook_hits(TWHEEL_HOOK_utimer_early));
	msleep(100);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->calls), 1);
#else
	kunit_skip(test, "no test hooks in this build");
#endif
}

/*
 * Cancelled while its expiry is held (hook clock_fire: 300 ms between the
 * wheel timer's expiry and twheel_clock_fire()'s look under the clock
 * lock): a fixed-rate CLOCK_BOOTTIME timer, then a one-shot one. Each is
 * still pending to its user there, its callback not run yet, so
 * twheel_clock_cancel_sync() returns 1, and the callback never runs. A
 * cancel that asked the wheel timer alone would say 0 ("idle") for a
 * timer whose callback then never comes.
 */
#define TWC_HOLD_US	300000

#ifdef TWHEEL_TESTHOOKS
static void twc_hook_off(void *data)
{
	twheel_hook_set((enum twheel_hook)(long)data, 0);
}
#endif

static void twc_cancel_held_expiry(struct kunit *test)
{
#ifdef TWHEEL_TESTHOOKS
	struct twc_ctx *c = test->priv;
	void *hook = (void *)(long)TWHEEL_HOOK_clock_fire;
	unsigned int i, waited;
	u64 h0;

	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, twc_hook_off, hook));
	for (i = 0; i < 2; i++) {
		struct twc_timer *t = &c->t[i];
		u64 period = i ? 0 : 10 * TWC_MS;

		KUNIT_ASSERT_EQ(test, twc_setup(t, CLOCK_BOOTTIME), 0);
		h0 = twheel_hook_hits(TWHEEL_HOOK_clock_fire);
		twheel_hook_set(TWHEEL_HOOK_clock_fire, TWC_HOLD_US);
		KUNIT_ASSERT_EQ(test, twheel_clock_arm_on(&t->ct, 10 * TWC_MS,
							  period, 0,
							  TWHEEL_CPU_ANY), 0);
		for (waited = 0; waited < TWC_WAIT_MS &&
		     twheel_hook_hits(TWHEEL_HOOK_clock_fire) == h0; waited++)
			usleep_range(1000, 1100);
		/* Later expiries are not held; this one sleeps on. */
		twheel_hook_set(TWHEEL_HOOK_clock_fire, 0);
		KUNIT_ASSERT_NE_MSG(test, twheel_hook_hits(TWHEEL_HOOK_clock_fire),
				    h0, "the expiry never reached the hook");
		KUNIT_EXPECT_EQ_MSG(test, twheel_clock_cancel_sync(&t->ct), 1,
				    "%s timer cancelled in its held expiry",
				    period ? "fixed-rate" : "one-shot");
		KUNIT_EXPECT_EQ(test, atomic_read(&t->calls), 0);
		KUNIT_EXPECT_FALSE(test, twheel_timer_pending(&t->ct.cb.timer));
		msleep(30);
		KUNIT_EXPECT_EQ(test, atomic_read(&t->calls), 0);
	}
#else
	kunit_skip(test, "no test hooks in this build");
#endif
}

static struct kunit_case twc_cases[] = {
	KUNIT_CASE(twc_bad_input),
	KUNIT_CASE(twc_boottime),
	KUNIT_CASE(twc_planted_early),
	KUNIT_CASE(twc_cancel_held_expiry),
	KUNIT_CASE(twc_realtime_step),
	KUNIT_CASE(twc_modify_periodic_step),
	{}
};

static struct kunit_suite twc_suite = {
	.name = "twheel_clock",
	.init = twc_init,
	.exit = twc_exit,
	.test_cases = twc_cases,
};

kunit_test_suites(&twc_suite);
