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
 * Fairness (base.h): the callbacks of timers due in one tick on one CPU
 * run round robin between their groups, one per turn. A group that expires
 * several passes' worth of timers at once delays the single timer of each
 * other group due with them by at most one callback per group, whatever
 * the order they were armed and expired in: counted in callbacks, not
 * time, so the bound is exact. Timers taken off their queue from its head,
 * middle and tail (a cancel of expired timers) leave it able to take more.
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
#include "testhooks.h"

/* The fairness cases see the order of takes through a test hook. */
#ifndef TWHEEL_TESTHOOKS
#error "twheel_kunit is built with TWHEEL_TESTHOOKS (Kbuild)"
#endif

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

/* Timers of the flooding group: several passes' budget (TW_PASS_BUDGET). */
#define TWR_FAIR_N		(4 * TW_PASS_BUDGET)
/* The groups: the flood's (the in-kernel default) and two others. */
#define TWR_FAIR_GROUPS		3
/* Their deadline: this far ahead of the first arm. */
#define TWR_FAIR_AHEAD_MS	1000

struct twr_fair;

struct twr_ft {
	struct twheel_timer	timer;
	struct twr_fair		*f;
	atomic_t		fired;
	int			seq;		/* order of its callback, from 1 */
	int			taken;		/* order of its take, from 1 */
};

struct twr_fair {
	struct twr_ft		flood[TWR_FAIR_N];
	struct twr_ft		other[TWR_FAIR_GROUPS - 1];
	struct twr_ft		late[2];	/* armed by the cancel test */
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

static void twr_fair_done(struct twr_fair *f)
{
	if (atomic_dec_and_test(&f->left))
		complete(&f->done);
}

/*
 * The flood's first callback in the cancel test cancels the rest of the
 * flood, expired and queued behind it (head to tail of its queue), then
 * arms one more timer of the flood's group and one of another, due now.
 */
static void twr_fair_cancel_rest(struct twr_fair *f, struct twr_ft *self)
{
	unsigned int i;

	for (i = 0; i < f->nr_flood; i++) {
		if (&f->flood[i] == self)
			continue;
		if (twheel_timer_cancel(&f->flood[i].timer) == 1) {
			atomic_inc(&f->cancelled);
			twr_fair_done(f);
		}
	}
	for (i = 0; i < ARRAY_SIZE(f->late); i++)
		twheel_timer_arm_on(&f->late[i].timer, ktime_get_ns(), 0,
				    TWHEEL_ABS, f->cpu);
}

static void twr_fair_fn(struct twheel_timer *timer)
{
	struct twr_ft *ft = container_of(timer, struct twr_ft, timer);
	struct twr_fair *f = ft->f;

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
			twr_fair_cancel_rest(f, ft);
			complete_all(&f->cancelled_all);
		} else {
			wait_for_completion(&f->cancelled_all);
		}
	}
	twr_fair_done(f);
}

static void twr_fair_stop(void *data)
{
	struct twr_fair *f = data;
	unsigned int i;

	for (i = 0; i < TWR_FAIR_N; i++)
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
static void twr_fair_taken(void *p)
{
	struct twheel_timer *t = p;
	struct twr_ft *ft;

	if (t->func != twr_fair_fn)
		return;
	ft = container_of(t, struct twr_ft, timer);
	ft->taken = atomic_inc_return(&ft->f->taken);
}

static void twr_fair_unwatch(void *data)
{
	twheel_hook_set_watch(TWHEEL_HOOK_runner_take, NULL);
}

static void twr_fair_setup(struct twr_ft *ft, struct twr_fair *f, u32 group)
{
	twheel_timer_init(&ft->timer, twr_fair_fn);
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
static struct twr_fair *twr_fair_arm(struct kunit *test,
				     unsigned int nr_flood, bool cancel)
{
	struct twr_fair *f;
	unsigned int i, k = 0;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	init_completion(&f->done);
	init_completion(&f->cancelled_all);
	f->nr_flood = nr_flood;
	f->cancel = cancel;
	f->cpu = raw_smp_processor_id();
	for (i = 0; i < TWR_FAIR_N; i++)
		twr_fair_setup(&f->flood[i], f, 0);
	for (i = 0; i < ARRAY_SIZE(f->other); i++)
		twr_fair_setup(&f->other[i], f, 1 + 2 * i);
	twr_fair_setup(&f->late[0], f, 0);
	twr_fair_setup(&f->late[1], f, 1);
	atomic_set(&f->left, nr_flood + ARRAY_SIZE(f->other) +
			     (cancel ? ARRAY_SIZE(f->late) : 0));
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, twr_fair_stop, f));
	twheel_hook_set_watch(TWHEEL_HOOK_runner_take, twr_fair_taken);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   twr_fair_unwatch,
							   NULL));
	/*
	 * Far enough for every arm to be made before it, even on an emulated
	 * debug guest: the turns are those of timers due together.
	 */
	f->deadline = ktime_get_ns() + TWR_FAIR_AHEAD_MS * NSEC_PER_MSEC;
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
			    TWR_FAIR_AHEAD_MS);
	KUNIT_ASSERT_TRUE(test, twr_wait(&f->done));
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
static void twr_fair_turns(struct kunit *test)
{
	struct twr_fair *f = twr_fair_arm(test, TWR_FAIR_N, false);
	unsigned int i;

	/* Nothing fires twice: give a duplicate the time to show. */
	msleep(20);
	for (i = 0; i < TWR_FAIR_N; i++)
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
		KUNIT_EXPECT_LE_MSG(test, f->other[i].taken, TWR_FAIR_GROUPS,
				    "group %u was taken behind the flood",
				    1 + 2 * i);
	}
}

/*
 * Expired timers cancelled from their queue's head, middle and tail leave
 * it and the round-robin list whole: later timers of both groups fire.
 */
static void twr_fair_cancel(struct kunit *test)
{
	struct twr_fair *f = twr_fair_arm(test, 2 * TW_PASS_BUDGET, true);
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
	KUNIT_CASE(twr_fair_turns),
	KUNIT_CASE(twr_fair_cancel),
	KUNIT_CASE(twr_blocked_group),
	{}
};

static struct kunit_suite twr_suite = {
	.name = "twheel_runners",
	.test_cases = twr_cases,
};

kunit_test_suites(&twr_suite);
