// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of twheel_batch_on() and twheel_batch_one() (base.h,
 * "Batches"): the timers of one base armed, re-armed and cancelled under one
 * hold of its lock, in order; the prep hook sees each timer detached; a run
 * stops at a timer that sits on another base and twheel_batch_one() does
 * that one; every armed TWHEEL_TIMER_TICK timer fires once, never early;
 * a batch that cancels what it armed leaves an empty wheel with no tick,
 * and the tick of a wheel with other timers where it was.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/smp.h>
#include <linux/twheel.h>

#include "base/base.h"
#include "compat.h"
#include "testhooks.h"

TWHEEL_IMPORT_KUNIT_NS();

#define TWB_N		64
#define TWB_TIMEOUT_MS	10000

struct twb_timer {
	struct twheel_timer	timer;
	u64			deadline;
	atomic_t		fired;
	atomic_t		early;
	bool			detached_in_prep;
};

/* TWHEEL_TIMER_TICK callback: in the tick, under the base lock. */
static void twb_fn(struct twheel_timer *t)
{
	struct twb_timer *b = container_of(t, struct twb_timer, timer);

	if (ktime_get_ns() < b->deadline)
		atomic_inc(&b->early);
	atomic_inc(&b->fired);
}

/*
 * Detached: in no wheel and no expired batch. Not "not pending": a timer
 * being re-armed keeps its PENDING state across the detach, so that a
 * lockless twheel_timer_cancel() never sees it idle (tw_detach()).
 */
static void twb_prep(struct twheel_batch_ent *e)
{
	struct twb_timer *b = container_of(e->timer, struct twb_timer, timer);

	b->detached_in_prep = hlist_unhashed(&e->timer->node.entry);
}

static void twb_cancel_all(void *data)
{
	struct twb_timer *b = data;
	unsigned int i;

	for (i = 0; i < TWB_N; i++)
		twheel_timer_cancel_sync(&b[i].timer);
}

static struct twb_timer *twb_alloc(struct kunit *test)
{
	struct twb_timer *b = kunit_kcalloc(test, TWB_N, sizeof(*b), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, b);
	for (i = 0; i < TWB_N; i++)
		twheel_timer_setup(&b[i].timer, twb_fn, TWHEEL_TIMER_TICK);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, twb_cancel_all, b));
	return b;
}

static void twb_fill(struct twheel_batch_ent *e, struct twb_timer *b,
		     u8 op, u64 deadline, int cpu)
{
	memset(e, 0, sizeof(*e));
	e->timer = &b->timer;
	e->op = op;
	e->cpu = cpu;
	e->deadline = deadline;
	e->mode = TWHEEL_MODE_ONESHOT;
	b->deadline = deadline;
}

/* Arm, re-arm and cancel on one base: one call each, in order. */
static void twb_one_base(struct kunit *test)
{
	struct twheel_batch_ent *e;
	struct twb_timer *b = twb_alloc(test);
	unsigned int i, j, done, fired = 0;
	u64 now = ktime_get_ns();
	int cpu;

	e = kunit_kcalloc(test, TWB_N, sizeof(*e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e);
	cpu = get_cpu();
	for (i = 0; i < TWB_N; i++) {
		/* Idle timers whose first base is this one, wherever set up. */
		WRITE_ONCE(b[i].timer.cpu, cpu);
		/* Far enough that none fires before the checks below. */
		twb_fill(&e[i], &b[i], TW_BATCH_ARM,
			 now + (10000 + i % 16) * NSEC_PER_MSEC,
			 TWHEEL_CPU_ANY);
	}
	done = twheel_batch_on(cpu, e, TWB_N, twb_prep);
	put_cpu();
	KUNIT_ASSERT_EQ(test, done, TWB_N);
	for (i = 0; i < TWB_N; i++) {
		KUNIT_EXPECT_EQ(test, e[i].ret, 0);
		KUNIT_EXPECT_TRUE(test, b[i].detached_in_prep);
		KUNIT_EXPECT_TRUE(test, twheel_timer_pending(&b[i].timer));
	}
	/* Re-arm the first half far away (1: pending), cancel the rest (1). */
	for (i = 0; i < TWB_N; i++) {
		twb_fill(&e[i], &b[i], i < TWB_N / 2 ? TW_BATCH_MODIFY :
			 TW_BATCH_CANCEL, now + 3600 * NSEC_PER_SEC, 0);
	}
	done = twheel_batch_on(cpu, e, TWB_N, twb_prep);
	KUNIT_ASSERT_EQ(test, done, TWB_N);
	for (i = 0; i < TWB_N; i++) {
		KUNIT_EXPECT_EQ(test, e[i].ret, 1);
		KUNIT_EXPECT_EQ(test, twheel_timer_pending(&b[i].timer),
				i < TWB_N / 2);
	}
	/* Bring the first half back near: they fire, once, not early. */
	now = ktime_get_ns();
	for (i = 0; i < TWB_N / 2; i++)
		twb_fill(&e[i], &b[i], TW_BATCH_MODIFY, now + 10 * NSEC_PER_MSEC,
			 0);
	KUNIT_ASSERT_EQ(test, twheel_batch_on(cpu, e, TWB_N / 2, NULL),
			TWB_N / 2);
	for (i = 0; i < TWB_TIMEOUT_MS / 20 && fired < TWB_N / 2; i++) {
		msleep(20);
		fired = 0;
		for (j = 0; j < TWB_N / 2; j++)
			fired += atomic_read(&b[j].fired) > 0;
	}
	msleep(50);
	for (i = 0; i < TWB_N; i++) {
		KUNIT_EXPECT_EQ(test, atomic_read(&b[i].fired),
				i < TWB_N / 2 ? 1 : 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&b[i].early), 0);
	}
}

/* A timer on another base ends the run; twheel_batch_one() moves it. */
static void twb_other_base(struct kunit *test)
{
	struct twheel_batch_ent e[3];
	struct twb_timer *b = twb_alloc(test);
	u64 far = ktime_get_ns() + 3600 * NSEC_PER_SEC;
	int cpu, other;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	cpu = get_cpu();
	other = cpumask_any_but(cpu_online_mask, cpu);
	put_cpu();
	KUNIT_ASSERT_LT(test, other, nr_cpu_ids);
	KUNIT_ASSERT_EQ(test, 0, twheel_timer_arm_on(&b[1].timer, far, 0,
						     TWHEEL_ABS, other));
	WRITE_ONCE(b[0].timer.cpu, cpu);
	WRITE_ONCE(b[2].timer.cpu, cpu);
	twb_fill(&e[0], &b[0], TW_BATCH_ARM, far, cpu);
	twb_fill(&e[1], &b[1], TW_BATCH_ARM, far, cpu);
	twb_fill(&e[2], &b[2], TW_BATCH_ARM, far, cpu);
	KUNIT_EXPECT_EQ(test, twheel_batch_on(cpu, e, 3, twb_prep), 1U);
	twheel_batch_one(&e[1], twb_prep);
	KUNIT_EXPECT_EQ(test, e[1].ret, 1);
	KUNIT_EXPECT_TRUE(test, b[1].detached_in_prep);
	KUNIT_EXPECT_EQ(test, (int)READ_ONCE(b[1].timer.cpu), cpu);
	KUNIT_EXPECT_EQ(test, twheel_batch_on(cpu, e + 2, 1, twb_prep), 1U);
	KUNIT_EXPECT_EQ(test, e[2].ret, 0);
	/* A cancel is done wherever the timer is. */
	twb_fill(&e[0], &b[1], TW_BATCH_CANCEL, 0, 0);
	twheel_batch_one(&e[0], NULL);
	KUNIT_EXPECT_EQ(test, e[0].ret, 1);
	KUNIT_EXPECT_FALSE(test, twheel_timer_pending(&b[1].timer));
}

/* twb_arm_cancel_on()'s snapshots and entries. */
struct twb_ac {
	struct twheel_base_snapshot	before, mid, after;
	struct twheel_batch_ent		e[2];
	u64				d0;
};

/*
 * On this CPU's base, empty or the case skips: arm @b[1] at +@other_ns
 * alone first (unless 0), snapshot (@ac->mid), then one batch arms @b[0]
 * at +50 ms (@ac->d0) and cancels it, and snapshot (@ac->after).
 */
static void twb_arm_cancel_on(struct kunit *test, struct twb_timer *b,
			      u64 other_ns, struct twb_ac *ac)
{
	int cpu, ret0, ret1 = 0, ret2 = -1;
	unsigned int done0 = 1, done = 0;

	cpu = get_cpu();
	ret0 = twheel_base_snapshot(cpu, &ac->before);
	if (!ret0 && !ac->before.pending && !ac->before.expired) {
		if (other_ns) {
			WRITE_ONCE(b[1].timer.cpu, cpu);
			twb_fill(&ac->e[0], &b[1], TW_BATCH_ARM,
				 ktime_get_ns() + other_ns, TWHEEL_CPU_ANY);
			done0 = twheel_batch_on(cpu, ac->e, 1, NULL);
			ret1 = twheel_base_snapshot(cpu, &ac->mid);
		}
		WRITE_ONCE(b[0].timer.cpu, cpu);
		ac->d0 = ktime_get_ns() + 50 * NSEC_PER_MSEC;
		twb_fill(&ac->e[0], &b[0], TW_BATCH_ARM, ac->d0,
			 TWHEEL_CPU_ANY);
		twb_fill(&ac->e[1], &b[0], TW_BATCH_CANCEL, 0, 0);
		done = twheel_batch_on(cpu, ac->e, 2, NULL);
		ret2 = twheel_base_snapshot(cpu, &ac->after);
	}
	put_cpu();
	KUNIT_ASSERT_EQ(test, ret0, 0);
	if (ac->before.pending || ac->before.expired)
		kunit_skip(test, "CPU %d's wheel holds %lu timers", cpu,
			   ac->before.pending + ac->before.expired);
	KUNIT_ASSERT_EQ(test, ret1, 0);
	KUNIT_ASSERT_EQ(test, ret2, 0);
	KUNIT_ASSERT_EQ(test, done0, 1U);
	KUNIT_ASSERT_EQ(test, done, 2U);
	KUNIT_EXPECT_EQ(test, ac->e[0].ret, 0);
	KUNIT_EXPECT_EQ(test, ac->e[1].ret, 1);
}

/*
 * One batch arms a timer and cancels it: the base's wheel, empty before,
 * is empty after it, and its tick hrtimer is not left programmed for the
 * timer that is gone (one interrupt for nothing per batch otherwise).
 */
static void twb_arm_cancel(struct kunit *test)
{
	struct twb_ac ac = {};

	twb_arm_cancel_on(test, twb_alloc(test), 0, &ac);
	KUNIT_EXPECT_EQ(test, ac.after.pending, 0UL);
	KUNIT_EXPECT_FALSE_MSG(test, ac.after.tick_armed,
			       "tick programmed for %llu ns with an empty wheel",
			       ac.after.fire_ns);
	KUNIT_EXPECT_EQ(test, ac.after.next_tick, TW_NO_TICK);
}

/*
 * The same with another timer pending, later: the tick goes by the wheel's
 * next work (that timer's tick, or the cascade that brings it down, which
 * is earlier), not by the tick of the timer the batch armed and took back.
 * twb_alloc()'s cleanup cancels the pending one.
 */
static void twb_arm_cancel_pending(struct kunit *test)
{
	struct twb_ac ac = {};

	twb_arm_cancel_on(test, twb_alloc(test), 10 * NSEC_PER_SEC, &ac);
	KUNIT_EXPECT_EQ(test, ac.after.pending, 1UL);
	KUNIT_EXPECT_EQ_MSG(test, ac.after.next_tick, ac.after.next_work,
			    "the tick of the timer taken back: %llu",
			    DIV_ROUND_UP_ULL(ac.d0, twheel_tick_ns()));
	KUNIT_EXPECT_LE(test, ac.after.next_tick, ac.mid.next_tick);
}

static struct kunit_case twb_cases[] = {
	KUNIT_CASE(twb_one_base),
	KUNIT_CASE(twb_other_base),
	KUNIT_CASE(twb_arm_cancel),
	KUNIT_CASE(twb_arm_cancel_pending),
	{}
};

static struct kunit_suite twb_suite = {
	.name = "twheel_batch",
	.test_cases = twb_cases,
};

kunit_test_suites(&twb_suite);
