// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the runners (base.h, "Runners"): a callback that sleeps
 * holds back only itself, not the other timers of its CPU; callbacks of one
 * timer never overlap on one base, even when it re-arms itself and then
 * sleeps past its next deadline.
 *
 * A tick's expired timers reach the runners as one list (tw_expire()): in
 * a batch of several passes' worth, with TWHEEL_TIMER_TICK timers mixed
 * in, every timer fires once and none early.
 *
 * The sleeper test is differential: in TWR_ROUNDS rounds each, a timer B
 * due 20 ms after a timer A on the same CPU fires while A's callback
 * sleeps TWR_SLEEP_MS, and again while A's callback returns at once. The
 * median lateness of B with the sleeper may exceed the median without it
 * by one tick plus TWR_NOISE_NS (with a single worker per CPU it would be
 * some TWR_SLEEP_MS - 20 ms); medians, because an emulated guest's vCPU
 * may stall for milliseconds in any one round. The emulated debug guests
 * measured differences of -0.9 to +1.9 ms (the worst on PREEMPT_RT), hence
 * the noise allowance. Both medians are printed.
 *
 * A group's blocked callbacks hold back only that group: while more of one
 * group's callbacks than there are runners block (as a user's callbacks do
 * on PREEMPT_RT behind its file lock, held by a preempted task of that
 * user), a timer of another group due later on the same CPU still fires.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/smp.h>
#include <linux/sort.h>
#include <linux/twheel.h>

#include "base/base.h"
#include "compat.h"

TWHEEL_IMPORT_KUNIT_NS();

#define TWR_SLEEP_MS		200
#define TWR_ROUNDS		5
#define TWR_NOISE_NS		(5 * NSEC_PER_MSEC)
#define TWR_TIMEOUT_MS		10000

struct twr_timer {
	struct twheel_timer	timer;
	struct completion	done;
	u64			deadline;
	u64			fired_ns;
	unsigned int		sleep_ms;
};

static void twr_fn(struct twheel_timer *timer)
{
	struct twr_timer *w = container_of(timer, struct twr_timer, timer);

	w->fired_ns = ktime_get_ns();
	if (w->sleep_ms)
		msleep(w->sleep_ms);
	complete(&w->done);
}

static bool twr_wait(struct completion *c)
{
	return wait_for_completion_timeout(c, msecs_to_jiffies(TWR_TIMEOUT_MS));
}

static void twr_stop(void *data)
{
	twheel_timer_cancel_sync(data);
}

static void twr_arm(struct kunit *test, struct twr_timer *w, u64 deadline,
		    unsigned int sleep_ms, int cpu)
{
	twheel_timer_init(&w->timer, twr_fn);
	init_completion(&w->done);
	w->deadline = deadline;
	w->sleep_ms = sleep_ms;
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, twr_stop, &w->timer));
	KUNIT_ASSERT_EQ(test, 0, twheel_timer_arm_on(&w->timer, deadline, 0,
						     TWHEEL_ABS, cpu));
}

/*
 * One round: A due in 20 ms, its callback sleeping @sleep_ms; B due 20 ms
 * after A on the same CPU. Returns B's lateness in ns.
 */
static u64 twr_round(struct kunit *test, unsigned int sleep_ms, int cpu)
{
	struct twr_timer *a, *b;
	u64 t0 = ktime_get_ns() + 20 * NSEC_PER_MSEC;

	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	twr_arm(test, a, t0, sleep_ms, cpu);
	twr_arm(test, b, t0 + 20 * NSEC_PER_MSEC, 0, cpu);
	KUNIT_ASSERT_TRUE(test, twr_wait(&b->done));
	KUNIT_EXPECT_GE(test, b->fired_ns, b->deadline);
	/* The sleeper was still asleep when B fired. */
	if (sleep_ms)
		KUNIT_EXPECT_FALSE(test, completion_done(&a->done));
	KUNIT_ASSERT_TRUE(test, twr_wait(&a->done));
	return b->fired_ns - b->deadline;
}

static int twr_cmp_u64(const void *x, const void *y)
{
	u64 a = *(const u64 *)x, b = *(const u64 *)y;

	return a < b ? -1 : a > b;
}

/* A sleeping callback delays a timer due on its CPU by at most a tick. */
static void twr_sleeper_isolated(struct kunit *test)
{
	u64 late[2][TWR_ROUNDS], med[2];
	int cpu = raw_smp_processor_id();
	unsigned int i, k;

	/* Interleaved, so that both see the same guest. */
	for (i = 0; i < TWR_ROUNDS; i++)
		for (k = 0; k < 2; k++)
			late[k][i] = twr_round(test, k ? TWR_SLEEP_MS : 0, cpu);
	for (k = 0; k < 2; k++) {
		sort(late[k], TWR_ROUNDS, sizeof(u64), twr_cmp_u64, NULL);
		med[k] = late[k][TWR_ROUNDS / 2];
	}
	kunit_info(test,
		   "CPU %d: median lateness %llu us without a sleeper, %llu us behind one sleeping %u ms (tick %llu us)\n",
		   cpu, med[0] / NSEC_PER_USEC, med[1] / NSEC_PER_USEC,
		   TWR_SLEEP_MS, twheel_tick_ns() / NSEC_PER_USEC);
	KUNIT_EXPECT_LE_MSG(test, med[1],
			    med[0] + twheel_tick_ns() + TWR_NOISE_NS,
			    "held back by a sleeping callback on CPU %d", cpu);
}

struct twr_self {
	struct twheel_timer	timer;
	atomic_t		inside;
	atomic_t		max_inside;
	atomic_t		runs;
	bool			stop;
	struct completion	done;
};

/* Re-arm 1 ms ahead, then sleep 5+ ms: the next expiry comes meanwhile. */
static void twr_self_fn(struct twheel_timer *timer)
{
	struct twr_self *s = container_of(timer, struct twr_self, timer);
	int in = atomic_inc_return(&s->inside);

	if (in > atomic_read(&s->max_inside))
		atomic_set(&s->max_inside, in);
	if (!READ_ONCE(s->stop))
		twheel_timer_arm(timer, NSEC_PER_MSEC, 0);
	usleep_range(5000, 6000);
	atomic_dec(&s->inside);
	if (atomic_inc_return(&s->runs) == 20)
		complete(&s->done);
}

static void twr_self_stop(void *data)
{
	struct twr_self *s = data;

	WRITE_ONCE(s->stop, true);
	twheel_timer_cancel_sync(&s->timer);
}

static void twr_no_overlap(struct kunit *test)
{
	struct twr_self *s;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	twheel_timer_init(&s->timer, twr_self_fn);
	init_completion(&s->done);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, twr_self_stop, s));
	KUNIT_ASSERT_EQ(test, 0, twheel_timer_arm(&s->timer, NSEC_PER_MSEC, 0));
	KUNIT_ASSERT_TRUE(test, twr_wait(&s->done));
	KUNIT_EXPECT_EQ(test, atomic_read(&s->max_inside), 1);
}

/* More than two passes' budget (TW_PASS_BUDGET), every third a tick timer. */
#define TWR_MIX_N		(3 * TW_PASS_BUDGET + 7)

struct twr_mix;

struct twr_mix_timer {
	struct twheel_timer	timer;
	struct twr_mix		*mix;
	atomic_t		fired;
};

struct twr_mix {
	struct twr_mix_timer	t[TWR_MIX_N];
	atomic_t		early;
	atomic_t		left;
	u64			deadline;
	struct completion	done;
};

/* Runs in the tick (hard irq) for tick timers: atomics and the clock only. */
static void twr_mix_fn(struct twheel_timer *timer)
{
	struct twr_mix_timer *mt = container_of(timer, struct twr_mix_timer,
						timer);
	struct twr_mix *m = mt->mix;

	if (ktime_get_ns() < m->deadline)
		atomic_inc(&m->early);
	atomic_inc(&mt->fired);
	if (atomic_dec_and_test(&m->left))
		complete(&m->done);
}

static void twr_mix_stop(void *data)
{
	struct twr_mix *m = data;
	unsigned int i;

	for (i = 0; i < TWR_MIX_N; i++)
		twheel_timer_cancel_sync(&m->t[i].timer);
}

static void twr_mixed_batch(struct kunit *test)
{
	int cpu = raw_smp_processor_id();
	struct twr_mix *m;
	unsigned int i;

	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	init_completion(&m->done);
	atomic_set(&m->left, TWR_MIX_N);
	m->deadline = ktime_get_ns() + 20 * NSEC_PER_MSEC;
	for (i = 0; i < TWR_MIX_N; i++) {
		twheel_timer_setup(&m->t[i].timer, twr_mix_fn,
				   i % 3 ? 0 : TWHEEL_TIMER_TICK);
		m->t[i].mix = m;
	}
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, twr_mix_stop, m));
	for (i = 0; i < TWR_MIX_N; i++)
		KUNIT_ASSERT_EQ(test, 0, twheel_timer_arm_on(&m->t[i].timer,
							     m->deadline, 0,
							     TWHEEL_ABS, cpu));
	KUNIT_ASSERT_TRUE(test, twr_wait(&m->done));
	/* Nothing fires twice: give a duplicate the time to show. */
	msleep(20);
	for (i = 0; i < TWR_MIX_N; i++)
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&m->t[i].fired), 1,
				    "timer %u", i);
	KUNIT_EXPECT_EQ(test, atomic_read(&m->early), 0);
}

/* More blocking callbacks of one group than a CPU has runners. */
#define TWR_BLOCK_N		(TW_RUNNERS + 1)
#define TWR_BLOCK_GROUP		1
#define TWR_BLOCK_OTHER		3

struct twr_block {
	struct twr_timer	blocked[TWR_BLOCK_N];
	struct twr_timer	other;
	struct completion	gate;
	atomic_t		started;
};

static struct twr_block *twr_block_of;

static void twr_block_fn(struct twheel_timer *timer)
{
	struct twr_timer *w = container_of(timer, struct twr_timer, timer);
	struct twr_block *b = twr_block_of;

	w->fired_ns = ktime_get_ns();
	atomic_inc(&b->started);
	wait_for_completion(&b->gate);
	complete(&w->done);
}

static void twr_block_stop(void *data)
{
	struct twr_block *b = data;
	unsigned int i;

	complete_all(&b->gate);
	for (i = 0; i < TWR_BLOCK_N; i++)
		twheel_timer_cancel_sync(&b->blocked[i].timer);
	twheel_timer_cancel_sync(&b->other.timer);
}

/*
 * TWR_BLOCK_N timers of one group due together, whose callbacks block until
 * the test opens a gate, then one timer of another group due 20 ms later on
 * the same CPU: it fires while the gate is still closed.
 */
static void twr_blocked_group(struct kunit *test)
{
	int cpu = raw_smp_processor_id();
	struct twr_block *b;
	bool other_fired;
	u64 t0;
	unsigned int i;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	init_completion(&b->gate);
	twr_block_of = b;
	for (i = 0; i < TWR_BLOCK_N; i++) {
		twheel_timer_init(&b->blocked[i].timer, twr_block_fn);
		twheel_timer_set_group(&b->blocked[i].timer, TWR_BLOCK_GROUP);
		init_completion(&b->blocked[i].done);
	}
	twheel_timer_init(&b->other.timer, twr_fn);
	twheel_timer_set_group(&b->other.timer, TWR_BLOCK_OTHER);
	init_completion(&b->other.done);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, twr_block_stop, b));
	t0 = ktime_get_ns() + 20 * NSEC_PER_MSEC;
	for (i = 0; i < TWR_BLOCK_N; i++) {
		b->blocked[i].deadline = t0;
		KUNIT_ASSERT_EQ(test, 0,
				twheel_timer_arm_on(&b->blocked[i].timer, t0,
						    0, TWHEEL_ABS, cpu));
	}
	b->other.deadline = t0 + 20 * NSEC_PER_MSEC;
	KUNIT_ASSERT_EQ(test, 0, twheel_timer_arm_on(&b->other.timer,
						     b->other.deadline, 0,
						     TWHEEL_ABS, cpu));
	other_fired = wait_for_completion_timeout(&b->other.done,
						  msecs_to_jiffies(2000));
	kunit_info(test,
		   "CPU %d: %d of %d blocked callbacks of group %d started; group %d's timer %s\n",
		   cpu, atomic_read(&b->started), TWR_BLOCK_N, TWR_BLOCK_GROUP,
		   TWR_BLOCK_OTHER, other_fired ? "fired" : "did not fire in 2 s");
	KUNIT_EXPECT_TRUE_MSG(test, other_fired,
			      "group %d's blocked callbacks held back group %d",
			      TWR_BLOCK_GROUP, TWR_BLOCK_OTHER);
	KUNIT_EXPECT_GE(test, atomic_read(&b->started), 1);
	complete_all(&b->gate);
	for (i = 0; i < TWR_BLOCK_N; i++) {
		KUNIT_EXPECT_TRUE(test, twr_wait(&b->blocked[i].done));
		KUNIT_EXPECT_GE(test, b->blocked[i].fired_ns, t0);
	}
	/* Not fired in time: it fires once the gate opened. */
	if (!other_fired)
		KUNIT_EXPECT_TRUE(test, twr_wait(&b->other.done));
	KUNIT_EXPECT_GE(test, b->other.fired_ns, b->other.deadline);
}

static struct kunit_case twr_cases[] = {
	KUNIT_CASE(twr_sleeper_isolated),
	KUNIT_CASE(twr_no_overlap),
	KUNIT_CASE(twr_mixed_batch),
	KUNIT_CASE(twr_blocked_group),
	{}
};

static struct kunit_suite twr_suite = {
	.name = "twheel_runners",
	.test_cases = twr_cases,
};

kunit_test_suites(&twr_suite);
