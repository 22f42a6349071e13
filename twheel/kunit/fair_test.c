// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of fairness between groups (base.h, "Fairness"): runners take
 * the expired timers of one CPU round robin between their groups, one per
 * turn. A group that expires several passes' worth of timers at once delays
 * the single timer of each other group due with them by at most one take
 * per group, whatever the order they were armed and expired in: counted in
 * takes, which a test hook (runner_take) numbers under the base lock, so
 * the bound is exact. When the callbacks start is shown, not checked: where
 * runners run side by side a runner can lose the CPU between its take and
 * its call. Timers taken off their queue from its head, middle and tail (a
 * cancel of expired timers) leave it able to take more.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/smp.h>
#include <linux/twheel.h>

#include "base/base.h"
#include "compat.h"
#include "testhooks.h"

/* The cases see the order of takes through a test hook. */
#ifndef TWHEEL_TESTHOOKS
#error "twheel_kunit is built with TWHEEL_TESTHOOKS (Kbuild)"
#endif

TWHEEL_IMPORT_KUNIT_NS();

#define TWG_TIMEOUT_MS		10000

static bool twg_wait(struct completion *c)
{
	return wait_for_completion_timeout(c, msecs_to_jiffies(TWG_TIMEOUT_MS));
}

/* Timers of the flooding group: several passes' budget (TW_PASS_BUDGET). */
#define TWG_N			(4 * TW_PASS_BUDGET)
/* The groups: the flood's (the in-kernel default) and two others. */
#define TWG_GROUPS		3
/* Their deadline: this far ahead of the first arm. */
#define TWG_AHEAD_MS		1000

struct twg;

struct twg_timer {
	struct twheel_timer	timer;
	struct twg		*f;
	atomic_t		fired;
	int			seq;		/* order of its callback, from 1 */
	int			taken;		/* order of its take, from 1 */
};

struct twg {
	struct twg_timer	flood[TWG_N];
	struct twg_timer	other[TWG_GROUPS - 1];
	struct twg_timer	late[2];	/* armed by the cancel test */
	atomic_t		seq;
	atomic_t		taken;
	atomic_t		left;
	atomic_t		early;
	atomic_t		cancelled;
	atomic_t		leader;
	struct completion	cancelled_all;	/* the leader is done */
	unsigned int		nr_flood;	/* of flood[] in use */
	bool			cancel;		/* the cancel test */
	int			cpu;
	u64			deadline;
	struct completion	done;
};

static void twg_done(struct twg *f)
{
	if (atomic_dec_and_test(&f->left))
		complete(&f->done);
}

/*
 * The flood's first callback in the cancel test cancels the rest of the
 * flood, expired and queued behind it (head to tail of its queue), then
 * arms one more timer of the flood's group and one of another, due now.
 */
static void twg_cancel_rest(struct twg *f, struct twg_timer *self)
{
	unsigned int i;

	for (i = 0; i < f->nr_flood; i++) {
		if (&f->flood[i] == self)
			continue;
		if (twheel_timer_cancel(&f->flood[i].timer) == 1) {
			atomic_inc(&f->cancelled);
			twg_done(f);
		}
	}
	for (i = 0; i < ARRAY_SIZE(f->late); i++)
		twheel_timer_arm_on(&f->late[i].timer, ktime_get_ns(), 0,
				    TWHEEL_ABS, f->cpu);
}

static void twg_fn(struct twheel_timer *timer)
{
	struct twg_timer *ft = container_of(timer, struct twg_timer, timer);
	struct twg *f = ft->f;

	if (ktime_get_ns() < f->deadline)
		atomic_inc(&f->early);
	ft->seq = atomic_inc_return(&f->seq);
	atomic_inc(&ft->fired);
	/*
	 * Where runners run side by side (PREEMPT_RT), the flood's other
	 * callbacks that started meanwhile wait for the leader's cancels.
	 */
	if (f->cancel && ft >= f->flood && ft < f->flood + f->nr_flood) {
		if (!atomic_xchg(&f->leader, 1)) {
			twg_cancel_rest(f, ft);
			complete_all(&f->cancelled_all);
		} else {
			wait_for_completion(&f->cancelled_all);
		}
	}
	twg_done(f);
}

static void twg_stop(void *data)
{
	struct twg *f = data;
	unsigned int i;

	for (i = 0; i < TWG_N; i++)
		twheel_timer_cancel_sync(&f->flood[i].timer);
	for (i = 0; i < ARRAY_SIZE(f->other); i++)
		twheel_timer_cancel_sync(&f->other[i].timer);
	for (i = 0; i < ARRAY_SIZE(f->late); i++)
		twheel_timer_cancel_sync(&f->late[i].timer);
}

/*
 * Under the base lock, as a runner takes @p off its queues: number the
 * takes of this test's timers (only one test's are armed at a time).
 */
static void twg_taken(void *p)
{
	struct twheel_timer *t = p;
	struct twg_timer *ft;

	if (t->func != twg_fn)
		return;
	ft = container_of(t, struct twg_timer, timer);
	ft->taken = atomic_inc_return(&ft->f->taken);
}

static void twg_unwatch(void *data)
{
	twheel_hook_set_watch(TWHEEL_HOOK_runner_take, NULL);
}

static void twg_setup(struct twg_timer *ft, struct twg *f, u32 group)
{
	twheel_timer_init(&ft->timer, twg_fn);
	if (group)
		twheel_timer_set_group(&ft->timer, group);
	ft->f = f;
}

/*
 * @nr_flood timers of group 0 and one of each other group, all due in one
 * tick on this CPU, the others armed amid the flood; with @cancel, the
 * late[] timers (of the flood's group and of another) are armed by the
 * flood's first callback. Waits for every callback.
 */
static struct twg *twg_arm(struct kunit *test, unsigned int nr_flood,
			   bool cancel)
{
	struct twg *f;
	unsigned int i, k = 0;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	init_completion(&f->done);
	init_completion(&f->cancelled_all);
	f->nr_flood = nr_flood;
	f->cancel = cancel;
	f->cpu = raw_smp_processor_id();
	for (i = 0; i < TWG_N; i++)
		twg_setup(&f->flood[i], f, 0);
	for (i = 0; i < ARRAY_SIZE(f->other); i++)
		twg_setup(&f->other[i], f, 1 + 2 * i);
	twg_setup(&f->late[0], f, 0);
	twg_setup(&f->late[1], f, 1);
	atomic_set(&f->left, nr_flood + ARRAY_SIZE(f->other) +
			     (cancel ? ARRAY_SIZE(f->late) : 0));
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, twg_stop, f));
	twheel_hook_set_watch(TWHEEL_HOOK_runner_take, twg_taken);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   twg_unwatch,
							   NULL));
	/*
	 * Far enough for every arm to be made before it, even on an emulated
	 * debug guest: the turns are those of timers due together.
	 */
	f->deadline = ktime_get_ns() + TWG_AHEAD_MS * NSEC_PER_MSEC;
	/* The others amid the flood: its order in a bucket does not help. */
	for (i = 0; i < nr_flood; i++) {
		if (k < ARRAY_SIZE(f->other) &&
		    i == (k + 1) * nr_flood / (ARRAY_SIZE(f->other) + 1)) {
			struct twheel_timer *other = &f->other[k].timer;

			KUNIT_ASSERT_EQ(test, 0,
					twheel_timer_arm_on(other, f->deadline,
							    0, TWHEEL_ABS,
							    f->cpu));
			k++;
		}
		KUNIT_ASSERT_EQ(test, 0, twheel_timer_arm_on(&f->flood[i].timer,
							     f->deadline, 0,
							     TWHEEL_ABS,
							     f->cpu));
	}
	KUNIT_ASSERT_EQ(test, ARRAY_SIZE(f->other), k);
	KUNIT_ASSERT_LT_MSG(test, ktime_get_ns() + twheel_tick_ns(), f->deadline,
			    "arming took over %u ms: the timers are not due together",
			    TWG_AHEAD_MS);
	KUNIT_ASSERT_TRUE(test, twg_wait(&f->done));
	KUNIT_EXPECT_EQ(test, atomic_read(&f->early), 0);
	return f;
}

/*
 * Each other group's timer is taken within the first turn of every group.
 * That is the promise (base.h, "Fairness"): when its callback starts is up
 * to the scheduler once runners run side by side (PREEMPT_RT, or a runner
 * the workqueue counts CPU intensive on a slow guest), as a runner that
 * took its timer in turn can lose the CPU before it calls it while the
 * others run the flood; it is shown, not checked.
 */
static void twg_turns(struct kunit *test)
{
	struct twg *f = twg_arm(test, TWG_N, false);
	unsigned int i;

	/* Nothing fires twice: give a duplicate the time to show. */
	msleep(20);
	for (i = 0; i < TWG_N; i++)
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&f->flood[i].fired), 1,
				    "flood timer %u", i);
	/* Every callback's timer was seen taken, once. */
	KUNIT_EXPECT_EQ(test, atomic_read(&f->taken), atomic_read(&f->seq));
	for (i = 0; i < ARRAY_SIZE(f->other); i++) {
		kunit_info(test, "group %u: take %d, callback %d of %d\n",
			   1 + 2 * i, f->other[i].taken, f->other[i].seq,
			   atomic_read(&f->seq));
		KUNIT_EXPECT_EQ(test, atomic_read(&f->other[i].fired), 1);
		KUNIT_EXPECT_GE(test, f->other[i].taken, 1);
		KUNIT_EXPECT_LE_MSG(test, f->other[i].taken, TWG_GROUPS,
				    "group %u was taken behind the flood",
				    1 + 2 * i);
	}
}

/*
 * Expired timers cancelled from their queue's head, middle and tail leave
 * it and the round-robin list whole: later timers of both groups fire.
 */
static void twg_cancel(struct kunit *test)
{
	struct twg *f = twg_arm(test, 2 * TW_PASS_BUDGET, true);
	unsigned int i, fired = 0;

	msleep(20);
	for (i = 0; i < f->nr_flood; i++) {
		KUNIT_EXPECT_LE_MSG(test, atomic_read(&f->flood[i].fired), 1,
				    "flood timer %u", i);
		fired += atomic_read(&f->flood[i].fired);
	}
	KUNIT_EXPECT_EQ(test, fired + atomic_read(&f->cancelled), f->nr_flood);
	/*
	 * The flood's first callback cancelled the rest: only those that
	 * other runners started meanwhile ran (none where runners run one
	 * after the other).
	 */
	KUNIT_EXPECT_LE(test, fired, TW_RUNNERS);
	for (i = 0; i < ARRAY_SIZE(f->late); i++)
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&f->late[i].fired), 1,
				    "timer armed after the cancels, %u", i);
}

static struct kunit_case twg_cases[] = {
	KUNIT_CASE(twg_turns),
	KUNIT_CASE(twg_cancel),
	{}
};

static struct kunit_suite twg_suite = {
	.name = "twheel_fairness",
	.test_cases = twg_cases,
};

kunit_test_suites(&twg_suite);
