// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit cases of the suite twheel_tick (tick_test.c, whose rules they
 * follow): exact buckets (base.h), a tick of a few timers fired at each
 * of their deadlines. Each arms TWHEEL_TIMER_TICK timers on one CPU with
 * preemption off and reads the base's snapshot after each arm, so what
 * the tick hrtimer was programmed for is checked exactly; when they fire
 * is judged against the deadlines and, where the hrtimer's own lateness
 * decides it, a control hrtimer of the tick's mode on the same CPU.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/twheel.h>

#include "base/base.h"
#include "compat.h"
#include "stats.h"
#include "testhooks.h"
#include "tick_test.h"

#define TWK_EXACT_TRIES		8

struct twk_exact {
	struct twheel_timer	timer;
	u64			deadline;
	u64			fired_ns;
	atomic_t		fired;
	struct completion	done;
	bool			end;	/* after the last one */
};

static void twk_exact_fn(struct twheel_timer *timer)
{
	struct twk_exact *e = container_of(timer, struct twk_exact, timer);

	e->fired_ns = ktime_get_ns();
	atomic_inc(&e->fired);
	complete(&e->done);
}

static void twk_exact_stop(void *data)
{
	struct twk_exact *e;

	/* Freed by KUnit after this: stop them first. */
	for (e = data; !e->end; e++)
		twheel_timer_cancel_sync(&e->timer);
}

/* @n timers, stopped when the case ends however it ends. */
static struct twk_exact *twk_exact_alloc(struct kunit *test, unsigned int n)
{
	struct twk_exact *e = kunit_kcalloc(test, n + 1, sizeof(*e),
					    GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, e);
	e[n].end = true;
	for (i = 0; i < n; i++) {
		twheel_timer_setup(&e[i].timer, twk_exact_fn,
				   TWHEEL_TIMER_TICK);
		init_completion(&e[i].done);
	}
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, twk_exact_stop, e));
	return e;
}

/*
 * Wait for @e[0..@n - 1] to fire: each never early, and exactly once, also
 * a little later.
 */
static void twk_exact_wait(struct kunit *test, struct twk_exact *e,
			   unsigned int n)
{
	unsigned long timeout = msecs_to_jiffies(TWK_TIMEOUT_MS), left;
	unsigned int i;

	for (i = 0; i < n; i++) {
		left = wait_for_completion_timeout(&e[i].done, timeout);
		KUNIT_ASSERT_TRUE_MSG(test, left, "timer %u did not fire", i);
	}
	msleep(20);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_GE_MSG(test, e[i].fired_ns, e[i].deadline,
				    "timer %u early", i);
		KUNIT_EXPECT_EQ(test, atomic_read(&e[i].fired), 1);
	}
}

/*
 * The start of a tick a few ticks ahead whose number is a multiple of 4:
 * none of the three ticks after it (those of deadlines in (start, start +
 * 3 * tick]) is a level-1 bucket boundary, whatever the geometry (at least
 * 4 buckets a level).
 */
static u64 twk_exact_start(u64 tick)
{
	u64 t = div64_u64(ktime_get_ns(), tick) + 5;

	return round_up(t, 4) * tick;
}

/*
 * The snapshots @snap[0..@n - 1] after each arm show the timers armed so
 * far all pending and the tick programmed: no pass ran in between (which
 * only a stall of the guest of several ticks allows).
 */
static bool twk_exact_held(const struct twheel_base_snapshot *snap,
			   unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!snap[i].tick_armed || snap[i].pending != snap[0].pending + i)
			return false;
	return true;
}

/* The CPU's debugfs ticks_run right before the first arm of twk_exact_arm(). */
static u64 twk_exact_runs;

/*
 * The control of twk_exact_bucket(): an hrtimer of the tick's own mode
 * (HRTIMER_MODE_ABS_PINNED: hard interrupt, or the softirq thread on
 * PREEMPT_RT) on the tick's CPU, due with the first timer, started after
 * the tick hrtimer: it runs in the same expiry as a pass programmed for
 * that deadline, after it, so its time bounds that pass's.
 */
struct twk_exact_ctrl {
	struct hrtimer	hrt;
	u64		fired_ns;
};

static enum hrtimer_restart twk_exact_ctrl_fn(struct hrtimer *hrt)
{
	struct twk_exact_ctrl *c = container_of(hrt, struct twk_exact_ctrl,
						hrt);

	WRITE_ONCE(c->fired_ns, ktime_get_ns());
	return HRTIMER_NORESTART;
}

static void twk_exact_ctrl_stop(void *data)
{
	hrtimer_cancel(&((struct twk_exact_ctrl *)data)->hrt);
}

/*
 * Arm @e[0..@n - 1] at their deadlines on this CPU, in that order, with a
 * snapshot of its base after each arm into @snap[0..@n - 1] (and, if
 * @cancel, @e[i - 1] cancelled after @e[i]'s), then start control @ctrl (if
 * not NULL) at the earliest deadline, preemption off: no pass of the CPU's
 * tick, due ticks later, runs in between however the test thread is
 * scheduled. Return: the CPU, or the first error.
 */
static int twk_exact_arm(struct twk_exact *e, unsigned int n,
			 struct twheel_base_snapshot *snap,
			 struct twk_exact_ctrl *ctrl, bool cancel)
{
	int cpu = get_cpu(), ret = 0;
	u64 first = U64_MAX;
	unsigned int i;

	/* Before the first arm: any pass from then on counts. */
	twk_exact_runs = READ_ONCE(twheel_stats_of(cpu)->ticks_run);
	for (i = 0; i < n && !ret; i++) {
		ret = twheel_timer_arm_on(&e[i].timer, e[i].deadline, 0,
					  TWHEEL_ABS, cpu);
		/* 1: it was still pending from an earlier try. */
		if (ret > 0)
			ret = -EBUSY;
		if (!ret)
			ret = twheel_base_snapshot(cpu, &snap[i]);
		if (!ret && cancel && i &&
		    twheel_timer_cancel(&e[i - 1].timer) != 1)
			ret = -EIO;
		first = min(first, e[i].deadline);
	}
	if (!ret && ctrl) {
		WRITE_ONCE(ctrl->fired_ns, 0);
		hrtimer_start(&ctrl->hrt, ns_to_ktime(first),
			      HRTIMER_MODE_ABS_PINNED);
	}
	put_cpu();
	return ret ? ret : cpu;
}

/* Tries of twk_exact_pair() at most, and on-time ones it stops at. */
#define TWK_BUCKET_TRIES	32
#define TWK_BUCKET_ONTIME	4

/*
 * Exact buckets (base.h): a tick's bucket of a few timers fires at each
 * of their deadlines, not when the tick begins nor when its last timer is
 * due, whatever the order they were armed in. Two timers of one bucket,
 * due a fiftieth of a tick after its tick's span begins and a fiftieth
 * before it ends, the later one armed second (twk_exact_bucket) or first
 * (twk_exact_arm_order): once the first is armed, the tick hrtimer is
 * programmed at its deadline (the base's snapshot shows it, where a
 * tick-bound wheel shows the tick's start), and after the second at the
 * earlier of the two (an arm that compared ticks alone would leave it at
 * the later one); neither fires early, each exactly once: the pass at the
 * earlier deadline hands out that timer alone and programs the other's.
 *
 * Whether that pass ran before the later deadline is the hrtimer's
 * lateness, not twheel's (a debug PREEMPT_RT guest under TCG runs soft
 * hrtimers up to a tick late), so a control hrtimer of the tick's mode is
 * due with the earlier timer on its CPU (struct twk_exact_ctrl): in every
 * try where the control ran a fiftieth of a tick before the later
 * deadline or earlier, the earlier timer must have fired before it. A
 * wheel that fires a bucket at its latest deadline fails every such try.
 * Tried until TWK_BUCKET_ONTIME such tries (skipped if the control ran
 * late in all TWK_BUCKET_TRIES). Checked in the tries whose timers went
 * straight into level 0 (the clock in their level-0 turn), of which there
 * must be one; in the others the arm programs the hrtimer a tick early,
 * for the pass that cascades them (twk_exact_cascade).
 * TWHEEL_TIMER_TICK timers: how often both fired before their tick began
 * (the hrtimer's lateness alone) is logged, not asserted; when they did,
 * the pass that took their bucket ahead must count in debugfs ticks_run.
 */
static void twk_exact_pair(struct kunit *test, bool later_first)
{
	u64 tick = twheel_tick_ns(), start, bt, late_sum = 0, ctrl_sum = 0;
	unsigned int try, before = 0, checked = 0, ontime = 0, i;
	struct twk_exact *e = twk_exact_alloc(test, 2), *early, *late;
	struct twheel_base_snapshot snap[2];
	struct twk_exact_ctrl *c;
	bool level0;
	int cpu;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	twheel_hrtimer_setup(&c->hrt, twk_exact_ctrl_fn, CLOCK_MONOTONIC,
			     HRTIMER_MODE_ABS_PINNED);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, twk_exact_ctrl_stop, c));
	early = later_first ? &e[1] : &e[0];
	late = later_first ? &e[0] : &e[1];
	for (try = 0; try < TWK_BUCKET_TRIES && ontime < TWK_BUCKET_ONTIME;
	     try++) {
		for (i = 0; i < 2; i++) {
			reinit_completion(&e[i].done);
			atomic_set(&e[i].fired, 0);
		}
		start = twk_exact_start(tick);
		early->deadline = start + div64_u64(tick, 50);
		late->deadline = start + tick - div64_u64(tick, 50);
		cpu = twk_exact_arm(e, 2, snap, c, false);
		KUNIT_ASSERT_GE(test, cpu, 0);
		bt = div64_u64(start, tick) + 1;
		level0 = false;
		if (!twk_exact_held(snap, 2) || snap[0].next_tick != bt) {
			/* A stall let a pass run, or other work comes first. */
		} else if (bt >= snap[0].clk &&
			   !((bt ^ snap[0].clk) >> snap[0].bits)) {
			/* In level 0: at the first armed, then the earlier. */
			level0 = true;
			checked++;
			KUNIT_EXPECT_EQ(test, snap[0].fire_ns, e[0].deadline);
			KUNIT_EXPECT_EQ_MSG(test, snap[1].fire_ns,
					    early->deadline,
					    "try %u: programmed %lld ns after the earlier deadline",
					    try, (s64)(snap[1].fire_ns -
						       early->deadline));
		} else {
			/* Above level 0: a tick early, to cascade first. */
			KUNIT_EXPECT_EQ(test, snap[0].fire_ns, (bt - 1) * tick);
		}
		twk_exact_wait(test, e, 2);
		/* Due long before: fired, or cancelled unfired (0). */
		hrtimer_cancel(&c->hrt);
		if (level0 && c->fired_ns &&
		    c->fired_ns + div64_u64(tick, 50) <= late->deadline) {
			ontime++;
			KUNIT_EXPECT_LT_MSG(test, early->fired_ns,
					    late->deadline,
					    "try %u: the control ran %llu ns after the earlier deadline, its timer %llu ns",
					    try, c->fired_ns - early->deadline,
					    early->fired_ns - early->deadline);
		}
		if (c->fired_ns)
			ctrl_sum += c->fired_ns - early->deadline;
		if (max(e[0].fired_ns, e[1].fired_ns) < bt * tick) {
			before++;
			/* The pass that took the bucket ahead counts as run. */
			KUNIT_EXPECT_GT(test,
					READ_ONCE(twheel_stats_of(cpu)->ticks_run),
					twk_exact_runs);
		}
		late_sum += late->fired_ns - late->deadline;
	}
	kunit_info(test,
		   "%u tries, %u checked, %u with the control on time; %u fired before their tick; the control %llu us, the later timer %llu us late on average\n",
		   try, checked, ontime, before,
		   div_u64(ctrl_sum, try * NSEC_PER_USEC),
		   div_u64(late_sum, try * NSEC_PER_USEC));
	KUNIT_EXPECT_GT(test, checked, 0U);
	if (!ontime && READ_ONCE(test->status) == KUNIT_SUCCESS)
		kunit_skip(test, "the control ran late in all %u tries", try);
}

/* The later timer of the bucket armed second (twk_exact_pair()). */
void twk_exact_bucket(struct kunit *test)
{
	twk_exact_pair(test, false);
}

/*
 * The later timer of the bucket armed first: the earlier one's arm moves
 * the tick hrtimer earlier within the tick it is programmed for
 * (twk_exact_pair()).
 */
void twk_exact_arm_order(struct kunit *test)
{
	twk_exact_pair(test, true);
}

/* Poll @cpu until its tick is programmed at @want (ns), by @until. */
static bool twk_exact_poll(int cpu, u64 want, u64 until)
{
	struct twheel_base_snapshot snap;

	do {
		if (twheel_base_snapshot(cpu, &snap))
			return false;
		if (snap.tick_armed && snap.fire_ns == want)
			return true;
		udelay(5);
	} while (ktime_get_ns() < until);
	return false;
}

/*
 * twk_exact_arm_order from another CPU, whose reprogram IPI has no
 * deadline at hand (the handler looks at the bucket again): once the
 * remote hrtimer shows the later deadline, armed first, it must show the
 * earlier one's after the second arm (polled; about a dozen ticks for the
 * IPI). Tried until one try saw the first, up to TWK_EXACT_TRIES times.
 */
void twk_exact_remote(struct kunit *test)
{
	u64 tick = twheel_tick_ns(), start;
	struct twk_exact *e = twk_exact_alloc(test, 2);
	unsigned int try, checked = 0, i, cpu, other;
	bool seen, moved = false;
	int ret[2];

	for (try = 0; try < TWK_EXACT_TRIES && !checked; try++) {
		for (i = 0; i < 2; i++) {
			reinit_completion(&e[i].done);
			atomic_set(&e[i].fired, 0);
		}
		start = twk_exact_start(tick) + 12 * tick;
		e[0].deadline = start + tick - div64_u64(tick, 50);
		e[1].deadline = start + div64_u64(tick, 50);
		/* Nothing that may sleep (a failed expectation) until put. */
		cpus_read_lock();
		cpu = get_cpu();
		other = cpumask_any_but(cpu_online_mask, cpu);
		if (other >= nr_cpu_ids) {
			put_cpu();
			cpus_read_unlock();
			kunit_skip(test, "needs two online CPUs");
		}
		ret[0] = twheel_timer_arm_on(&e[0].timer, e[0].deadline, 0,
					     TWHEEL_ABS, other);
		seen = twk_exact_poll(other, e[0].deadline, start - tick);
		ret[1] = twheel_timer_arm_on(&e[1].timer, e[1].deadline, 0,
					     TWHEEL_ABS, other);
		if (seen)
			moved = twk_exact_poll(other, e[1].deadline, start);
		put_cpu();
		cpus_read_unlock();
		KUNIT_EXPECT_EQ(test, ret[0], 0);
		KUNIT_EXPECT_EQ(test, ret[1], 0);
		if (seen) {
			checked++;
			KUNIT_EXPECT_TRUE_MSG(test, moved,
					      "try %u: the remote tick stayed at the later deadline",
					      try);
		}
		twk_exact_wait(test, e, 2);
	}
	kunit_info(test, "checked in try %u of %u\n", try, TWK_EXACT_TRIES);
	if (!checked)
		kunit_skip(test, "no try saw the first deadline programmed");
}

/*
 * twk_exact_arm() of @e[0..@n - 1], @cancel as there. Return: true if no
 * pass ran in between and the first arm was programmed at its deadline
 * (the tick in level 0).
 */
static bool twk_exact_arm_each(struct kunit *test, struct twk_exact *e,
			       unsigned int n, struct twheel_base_snapshot *snap,
			       bool cancel)
{
	int cpu = twk_exact_arm(e, n, snap, NULL, cancel);
	unsigned int i;
	bool held = true;

	KUNIT_ASSERT_GE(test, cpu, 0);
	for (i = 0; i < n; i++)
		held &= snap[i].tick_armed &&
			snap[i].pending == snap[0].pending +
					   (cancel ? !!i : i);
	return held && snap[0].fire_ns == e[0].deadline;
}

/*
 * Within one tick the tick hrtimer moves earlier at most TW_EXACT_TRIES
 * times, never later (base.h "Exact buckets"): of TW_EXACT_TRIES + 2
 * timers of one tick, each due before the last, the first TW_EXACT_TRIES
 * arms program their deadlines, the next ones leave the earliest (not the
 * tick's start). With every timer kept (the bucket also outgrows
 * TW_EXACT_NODES), and with each cancelled after the next one's arm (the
 * tries alone stop the moves). Never early, kept ones exactly once.
 */
static void twk_exact_within_run(struct kunit *test, bool cancel)
{
	const unsigned int n = TW_EXACT_TRIES + 2;
	u64 tick = twheel_tick_ns(), start;
	struct twheel_base_snapshot *snap;
	struct twk_exact *e = twk_exact_alloc(test, n);
	unsigned int try, i, k;
	bool exact = false;

	snap = kunit_kcalloc(test, n, sizeof(*snap), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, snap);
	for (try = 0; try < TWK_EXACT_TRIES && !exact; try++) {
		for (i = 0; i < n; i++) {
			reinit_completion(&e[i].done);
			atomic_set(&e[i].fired, 0);
		}
		start = twk_exact_start(tick);
		for (i = 0; i < n; i++)
			e[i].deadline = start + tick -
					div64_u64((i + 1) * tick, n + 2);
		exact = twk_exact_arm_each(test, e, n, snap, cancel);
		for (i = 0; exact && i < n; i++) {
			k = min(i, TW_EXACT_TRIES - 1);
			KUNIT_EXPECT_EQ_MSG(test, snap[i].fire_ns, e[k].deadline,
					    "arm %u of %u: %lld ns after the deadline of arm %u",
					    i, n,
					    (s64)(snap[i].fire_ns - e[k].deadline),
					    k);
		}
		if (!cancel) {
			twk_exact_wait(test, e, n);
			continue;
		}
		twk_exact_wait(test, &e[n - 1], 1);
		for (i = 0; i < n - 1; i++)
			KUNIT_EXPECT_EQ(test, atomic_read(&e[i].fired), 0);
	}
	KUNIT_EXPECT_TRUE_MSG(test, exact,
			      "no try had its tick in level 0");
}

void twk_exact_within(struct kunit *test)
{
	twk_exact_within_run(test, false);
	twk_exact_within_run(test, true);
}

/*
 * The tick hrtimer is programmed at an exact bucket's deadline at most
 * TW_EXACT_TRIES times while the wheel's clock stays on one tick, then at
 * the tick's start (base.h "Exact buckets"): what bounds the interrupts of
 * a timer pushed later and later within its tick, each push making the
 * pass programmed for the last one find its bucket not due, to
 * TW_EXACT_TRIES + 1 a tick. Here TW_EXACT_TRIES + 1 lone timers are armed
 * on one CPU, each due a tick before the last, so that each arm
 * reprograms, within microseconds (no pass runs in between): the first
 * TW_EXACT_TRIES are programmed at their deadlines, the last at its
 * tick's start. Tried until the ticks were in the clock's level-0 turn
 * (the first one programmed exactly), up to TWK_EXACT_TRIES times.
 */
void twk_exact_tries(struct kunit *test)
{
	const unsigned int n = TW_EXACT_TRIES + 1;
	u64 tick = twheel_tick_ns(), start, want;
	struct twheel_base_snapshot *snap;
	unsigned int try, i;
	struct twk_exact *e = twk_exact_alloc(test, n);
	bool exact = false;
	int cpu;

	snap = kunit_kcalloc(test, n, sizeof(*snap), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, snap);
	for (try = 0; try < TWK_EXACT_TRIES && !exact; try++) {
		start = twk_exact_start(tick);
		for (i = 0; i < n; i++)
			e[i].deadline = start + (n - 1 - i) * tick +
					div64_u64(tick, 3);
		cpu = twk_exact_arm(e, n, snap, NULL, false);
		KUNIT_EXPECT_GE(test, cpu, 0);
		/* Not in level 0 (the tick's start): try again. */
		exact = cpu >= 0 && twk_exact_held(snap, n) &&
			snap[0].fire_ns == e[0].deadline;
		for (i = 0; exact && i < n; i++) {
			want = i < n - 1 ? e[i].deadline :
			       DIV_ROUND_UP_ULL(e[i].deadline, tick) * tick;
			KUNIT_EXPECT_EQ_MSG(test, snap[i].fire_ns, want,
					    "arm %u of %u", i, n);
		}
		for (i = 0; i < n; i++)
			twheel_timer_cancel_sync(&e[i].timer);
		/* Past the turn boundary that the ticks crossed. */
		if (!exact)
			msleep(20);
	}
	KUNIT_EXPECT_TRUE_MSG(test, exact,
			      "no try had its ticks in level 0");
}

/*
 * Timers due in the first tick of a level-1 bucket sit above level 0 until
 * that bucket cascades: the hrtimer is programmed for the start of the
 * tick before, and that pass, whose next tick begins the bucket, does the
 * cascade at once (tw_wheel_cascade()) and programs the hrtimer at the
 * earliest deadline of the tick's level-0 bucket, not at the tick's start.
 * The base's snapshot is polled after the arm for the expiry that pass
 * programmed, before the timers fire (due a tenth and two thirds into the
 * tick before): with both pending, the earlier deadline; with the earlier
 * one handed out by the pass at its deadline, the later one's (a try
 * whose poll missed both is not checked, and the case is skipped if none
 * saw them). Never early, each exactly once.
 */
/*
 * After the arm of @e[0..1], due in the first tick of a level-1 bucket,
 * which starts at @start + tick, with the hrtimer programmed at @start:
 * the pass then programs it at the earlier deadline, and the pass at that
 * one at the later deadline. Return: 1 if one of those passes was seen
 * before the timers fired (and checked), else 0.
 */
static unsigned int twk_exact_polled(struct kunit *test, int cpu,
				     struct twk_exact *e, u64 start)
{
	u64 t0 = ktime_get_ns(), tick = twheel_tick_ns();
	struct twheel_base_snapshot snap;

	KUNIT_EXPECT_EQ(test, 0, twheel_base_snapshot(cpu, &snap));
	while (snap.fire_ns == start && snap.pending &&
	       ktime_get_ns() - t0 < 1000 * tick) {
		usleep_range(50, 100);
		KUNIT_EXPECT_EQ(test, 0, twheel_base_snapshot(cpu, &snap));
	}
	if (!snap.tick_armed || !snap.pending || snap.pending > 2)
		return 0;
	KUNIT_EXPECT_EQ(test, snap.fire_ns, e[2 - snap.pending].deadline);
	return 1;
}

void twk_exact_cascade(struct kunit *test)
{
	u64 tick = twheel_tick_ns(), start, bt;
	struct twk_exact *e = twk_exact_alloc(test, 2);
	struct twheel_base_snapshot snap[2];
	unsigned int try, checked = 0, i;
	int cpu;

	KUNIT_ASSERT_EQ(test, 0, twheel_base_snapshot(0, &snap[0]));
	for (try = 0; try < TWK_EXACT_TRIES && !checked; try++) {
		for (i = 0; i < 2; i++) {
			reinit_completion(&e[i].done);
			atomic_set(&e[i].fired, 0);
		}
		bt = round_up(div64_u64(ktime_get_ns(), tick) + 6,
			      1ULL << snap[0].bits);
		start = (bt - 1) * tick;
		e[0].deadline = start + div64_u64(tick, 10);
		e[1].deadline = start + div64_u64(2 * tick, 3);
		cpu = twk_exact_arm(e, 2, snap, NULL, false);
		KUNIT_ASSERT_GE(test, cpu, 0);
		/* Unless other work of the base comes first. */
		if (twk_exact_held(snap, 2) && snap[1].next_tick == bt) {
			KUNIT_EXPECT_EQ(test, snap[1].fire_ns, start);
			checked += twk_exact_polled(test, cpu, e, start);
		}
		twk_exact_wait(test, e, 2);
	}
	kunit_info(test, "checked in try %u of %u; %llu us after the later deadline\n",
		   try, TWK_EXACT_TRIES,
		   div_u64(e[1].fired_ns - e[1].deadline, NSEC_PER_USEC));
	if (!checked)
		kunit_skip(test, "no poll saw the pass of the tick before");
}
