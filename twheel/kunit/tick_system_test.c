// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit cases of the suite twheel_tick (tick_test.c, whose rules they
 * follow): the tick against the rest of the system, with test-only delay
 * hooks (testhooks.h; the cases skip without them): the tick hrtimer restarted
 * while its callback runs (PREEMPT_RT), a burst larger than a pass while
 * every runner of the CPU sleeps in a callback, and a slow clock read.
 * Lateness is judged against a control hrtimer on the same CPU and hrtimer
 * base, due with the timer (or just after it, where the order they run in
 * matters): at most one tick more than the control.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/twheel.h>

#include "base/base.h"
#include "compat.h"
#include "testhooks.h"
#include "tick_test.h"

#define TWK_MS		((u64)NSEC_PER_MSEC)

/*
 * A control hrtimer on one CPU, in the hrtimer base of the tick hrtimers
 * (HRTIMER_MODE_ABS_PINNED: hard interrupt, a softirq thread on
 * PREEMPT_RT), or with @hard in the hard-interrupt base everywhere.
 */
struct twk_ctrl {
	struct hrtimer		hrt;
	enum hrtimer_mode	mode;
	u64			deadline;
	u64			fired_ns;
	struct completion	done;
};

static enum hrtimer_restart twk_ctrl_fn(struct hrtimer *hrt)
{
	struct twk_ctrl *c = container_of(hrt, struct twk_ctrl, hrt);

	c->fired_ns = ktime_get_ns();
	complete(&c->done);
	return HRTIMER_NORESTART;
}

static void twk_ctrl_stop(void *data)
{
	hrtimer_cancel(&((struct twk_ctrl *)data)->hrt);
}

static void twk_ctrl_start_here(void *data)
{
	struct twk_ctrl *c = data;

	hrtimer_start(&c->hrt, ns_to_ktime(c->deadline), c->mode);
}

/* Start control @c for @deadline on @cpu. */
static struct twk_ctrl *twk_ctrl_start(struct kunit *test, int cpu,
				       u64 deadline, bool hard)
{
	struct twk_ctrl *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->mode = hard ? HRTIMER_MODE_ABS_PINNED_HARD : HRTIMER_MODE_ABS_PINNED;
	c->deadline = deadline;
	init_completion(&c->done);
	twheel_hrtimer_setup(&c->hrt, twk_ctrl_fn, CLOCK_MONOTONIC, c->mode);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, twk_ctrl_stop, c));
	KUNIT_ASSERT_EQ(test, smp_call_function_single(cpu, twk_ctrl_start_here,
						       c, 1), 0);
	return c;
}

/* Lateness of control @c, waiting at most @ms for it; U64_MAX if it did not fire. */
static u64 twk_ctrl_late(struct twk_ctrl *c, unsigned int ms)
{
	if (!wait_for_completion_timeout(&c->done, msecs_to_jiffies(ms)))
		return U64_MAX;
	return c->fired_ns - c->deadline;
}

/* Tick timers of their own, each with a deadline and a completion. */
struct twk_one {
	struct twheel_timer	timer;
	u64			deadline;
	u64			fired_ns;
	atomic_t		fired;
	struct completion	done;
};

static void twk_one_fn(struct twheel_timer *timer)
{
	struct twk_one *o = container_of(timer, struct twk_one, timer);

	if (atomic_inc_return(&o->fired) != 1)
		return;
	o->fired_ns = ktime_get_ns();
	complete(&o->done);
}

static void twk_one_stop(void *data)
{
	twheel_timer_cancel_sync(&((struct twk_one *)data)->timer);
}

static struct twk_one *twk_one_alloc(struct kunit *test)
{
	struct twk_one *o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, o);
	twheel_timer_setup(&o->timer, twk_one_fn, TWHEEL_TIMER_TICK);
	init_completion(&o->done);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, twk_one_stop, o));
	return o;
}

static int twk_one_arm(struct twk_one *o, u64 deadline, int cpu)
{
	o->deadline = deadline;
	return twheel_timer_arm_on(&o->timer, deadline, 0, TWHEEL_ABS, cpu);
}

#ifdef TWHEEL_TESTHOOKS
static void twk_hook_off(void *data)
{
	twheel_hook_set((enum twheel_hook)(long)data, 0);
}

/* Set hook @h to @us, turned off when the case ends. */
static void twk_hook(struct kunit *test, enum twheel_hook h, unsigned int us)
{
	twheel_hook_set(h, us);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, twk_hook_off,
							   (void *)(long)h));
}

#define TWK_HOOKS	true
#else
static void twk_hook(struct kunit *test, enum twheel_hook h, unsigned int us)
{
}

static u64 twheel_hook_hits(enum twheel_hook h)
{
	return 0;
}

static void twheel_hook_set(enum twheel_hook h, unsigned int us)
{
}

#define TWK_HOOKS	false
#endif

/*
 * The tick hrtimer restarted while its callback runs. On PREEMPT_RT the
 * callback runs in a thread and takes interrupts until it holds the base
 * lock: a reprogram IPI for a tick earlier than the running one (an arm
 * from another CPU with a deadline in the past) hrtimer_start()s it again
 * then. The callback must not change the expiry of that queued hrtimer in
 * place: the hrtimer base orders its timers by expiry, and a control
 * hrtimer of the same CPU and base, due long before the wheel's next tick,
 * would wait for that tick: it must be at most a tick later than a
 * hard-interrupt hrtimer due at the same time (another base on RT). The
 * tick_clock hook holds the callback after its clock read (spinning,
 * interrupts on; interrupts are off there without PREEMPT_RT, where the
 * IPI waits and the case shows nothing).
 */
void twk_tick_restarted(struct kunit *test)
{
	struct twk_one *x, *y, *z;
	struct twk_ctrl *c, *h, *s;
	u64 now, hits, late, hard, soft, end;
	int a, b;

	if (!TWK_HOOKS)
		kunit_skip(test, "no test hooks in this build");
	a = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	if (a >= nr_cpu_ids)
		kunit_skip(test, "needs two online CPUs");
	x = twk_one_alloc(test);
	y = twk_one_alloc(test);
	z = twk_one_alloc(test);

	now = ktime_get_ns();
	KUNIT_ASSERT_EQ(test, twk_one_arm(z, now + 3000 * TWK_MS, a), 0);
	KUNIT_ASSERT_EQ(test, twk_one_arm(x, now + 50 * TWK_MS, a), 0);
	c = twk_ctrl_start(test, a, x->deadline + 200 * TWK_MS, false);
	/* The references: a hard-interrupt hrtimer, in another base on RT, */
	h = twk_ctrl_start(test, a, c->deadline, true);
	/* and one of the control's base on a CPU whose tick is not held. */
	b = cpumask_any_but(cpu_online_mask, a);
	s = twk_ctrl_start(test, b, c->deadline, false);

	/*
	 * Hold X's own tick (not a cascade tick before it): the hook is set
	 * only just before X is due. The held pass read the clock at X's
	 * tick, expires X and programs the wheel's next work, Z's.
	 */
	while (ktime_get_ns() + 2 * TWK_MS < x->deadline)
		usleep_range(200, 400);
	hits = twheel_hook_hits(TWHEEL_HOOK_tick_clock);
	twk_hook(test, TWHEEL_HOOK_tick_clock, 30000);
	end = ktime_get_ns() + 2000 * TWK_MS;
	while (twheel_hook_hits(TWHEEL_HOOK_tick_clock) == hits &&
	       ktime_get_ns() < end)
		usleep_range(50, 100);
	/* Earlier than the tick that runs: the IPI restarts its hrtimer. */
	KUNIT_EXPECT_EQ(test, twk_one_arm(y, 1, a), 0);
	twheel_hook_set(TWHEEL_HOOK_tick_clock, 0);
	/* This thread woke after X's tick had run: nothing to hold. */
	if (twheel_hook_hits(TWHEEL_HOOK_tick_clock) == hits &&
	    atomic_read(&x->fired))
		kunit_skip(test, "X fired before the hook was set: window missed");
	KUNIT_ASSERT_GT_MSG(test, twheel_hook_hits(TWHEEL_HOOK_tick_clock),
			    hits, "the tick never reached the hook");
	/* This thread ran too late (emulation): the window is missed. */
	if (atomic_read(&x->fired))
		kunit_skip(test, "X fired before Y was armed: window missed");

	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&x->done,
							    msecs_to_jiffies(1000)));
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&y->done,
							    msecs_to_jiffies(1000)));
	late = twk_ctrl_late(c, 1500);
	hard = twk_ctrl_late(h, 1500);
	soft = twk_ctrl_late(s, 1500);
	KUNIT_ASSERT_NE(test, hard, U64_MAX);
	KUNIT_ASSERT_NE(test, soft, U64_MAX);
	KUNIT_EXPECT_NE_MSG(test, late, U64_MAX,
			    "control hrtimer on CPU %d did not fire in 1.5 s: held back to the wheel's next tick",
			    a);
	if (late != U64_MAX) {
		kunit_info(test, "control hrtimer %llu us late, hard one %llu us, other CPU's %llu us\n",
			   div_u64(late, NSEC_PER_USEC),
			   div_u64(hard, NSEC_PER_USEC),
			   div_u64(soft, NSEC_PER_USEC));
		/*
		 * Held back to the wheel's next tick: far more than a tick.
		 * Allowed: a tick, a tick of sampling jitter
		 * (driver_helpers.c), and the later of the references (on
		 * PREEMPT_RT the control's base runs in a thread, whose
		 * wake-up the hard one does not pay).
		 */
		KUNIT_EXPECT_LE(test, late,
				max(hard, soft) + 2 * twheel_tick_ns());
	}
	KUNIT_EXPECT_GE(test, x->fired_ns, x->deadline);
	KUNIT_EXPECT_EQ(test, atomic_read(&z->fired), 0);
	KUNIT_EXPECT_EQ(test, twheel_timer_cancel(&z->timer), 1);
}

/* Worker timers whose callbacks sleep until released. */
struct twk_sleepers;

struct twk_sleeper {
	struct twheel_timer	timer;
	struct twk_sleepers	*s;
};

struct twk_sleepers {
	struct twk_sleeper	t[TW_RUNNERS];
	atomic_t		started;
	struct completion	release;
};

static void twk_sleeper_fn(struct twheel_timer *timer)
{
	struct twk_sleepers *s = container_of(timer, struct twk_sleeper,
					      timer)->s;

	atomic_inc(&s->started);
	wait_for_completion_timeout(&s->release,
				    msecs_to_jiffies(TWK_TIMEOUT_MS));
}

static void twk_sleepers_stop(void *data)
{
	struct twk_sleepers *s = data;
	unsigned int i;

	for (i = 0; i < TW_RUNNERS; i++)
		twheel_timer_cancel_sync(&s->t[i].timer);
}

static void twk_sleepers_release(void *data)
{
	complete_all(&((struct twk_sleepers *)data)->release);
}

/*
 * Every runner of a CPU asleep in a callback (TW_RUNNERS, which the API
 * allows), then more timers due in one tick than a pass takes: the tick's
 * pass runs out of budget and no runner can go on with it. The wheel must
 * go on anyway: the burst (tick timers, which need no runner) fires, and a
 * tick timer due later on that CPU fires on time, at most one tick later
 * than a control hrtimer due with it there.
 *
 * The control is due 1 ns after the timer, so that its hrtimer base runs it
 * after the tick hrtimer due at the timer's tick, always: due at the same
 * time, the control would run first whenever the tick was restarted for
 * that tick after the control was started (at a cascade), and the timer's
 * lateness would include all the interrupt's work after the control (its
 * wake-up of this thread, the tick's pass) and any guest stall in between,
 * which the control does not pay; milliseconds under emulation with debug
 * options. Fired in that interrupt, the timer is no later than the
 * control; the bound allows it the one tick more that the promise does.
 */
void twk_behind_runners_asleep(struct kunit *test)
{
	unsigned int n = 2 * TW_PASS_BUDGET + 1, i;
	int cpu = raw_smp_processor_id();
	struct twk_sleepers *s;
	struct twk_burst b;
	struct twk_timer *k;
	struct twk_one *w;
	struct twk_ctrl *c;
	u64 late, ctrl, deadline, last = 0;
	bool fired;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	init_completion(&s->release);
	for (i = 0; i < TW_RUNNERS; i++) {
		twheel_timer_setup(&s->t[i].timer, twk_sleeper_fn, 0);
		s->t[i].s = s;
	}
	/* Released before they are waited for (actions run in reverse). */
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, twk_sleepers_stop, s));
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, twk_sleepers_release, s));
	for (i = 0; i < TW_RUNNERS; i++)
		KUNIT_ASSERT_EQ(test, twheel_timer_arm_on(&s->t[i].timer,
							  TWK_MS, 0, 0, cpu),
							  0);
	for (i = 0; i < 2000 && atomic_read(&s->started) < TW_RUNNERS; i++)
		usleep_range(500, 1000);
	KUNIT_ASSERT_EQ_MSG(test, atomic_read(&s->started), TW_RUNNERS,
			    "not every runner of CPU %d is in a callback", cpu);

	k = twk_burst_arm(test, &b, n, true, cpu, 20 * TWK_MS);
	/*
	 * Well after the burst's catch-up (a pass a tick at least), on a tick
	 * boundary: due at the start of its tick, just before the control.
	 */
	w = twk_one_alloc(test);
	deadline = roundup(b.deadline + 200 * TWK_MS, twheel_tick_ns());
	KUNIT_ASSERT_EQ(test, twk_one_arm(w, deadline, cpu), 0);
	c = twk_ctrl_start(test, cpu, deadline + 1, false);
	KUNIT_ASSERT_NE(test, twk_ctrl_late(c, 1000), U64_MAX);
	fired = wait_for_completion_timeout(&w->done, msecs_to_jiffies(1000));
	KUNIT_ASSERT_TRUE_MSG(test, fired,
			      "CPU %d's wheel stopped while its runners sleep",
			      cpu);
	late = w->fired_ns - deadline;
	ctrl = c->fired_ns - deadline;
	/* Fired after the control: not in its own tick's interrupt. */
	kunit_info(test, "timer %llu us late, control %llu us, tick %llu us: %s the control\n",
		   div_u64(late, NSEC_PER_USEC), div_u64(ctrl, NSEC_PER_USEC),
		   div_u64(twheel_tick_ns(), NSEC_PER_USEC),
		   w->fired_ns <= c->fired_ns ? "before" : "after");
	KUNIT_EXPECT_GE(test, w->fired_ns, deadline);
	KUNIT_EXPECT_LE(test, late, twheel_tick_ns() + ctrl);
	for (i = 0; i < n; i++)
		if (atomic_read(&k[i].fired))
			last = max(last, k[i].fired_ns);
	kunit_info(test, "burst done %lld us after its deadline\n",
		   div_s64((s64)(last - b.deadline), NSEC_PER_USEC));
	KUNIT_EXPECT_EQ(test, atomic_read(&b.left), 0);
	twk_sleepers_release(s);
	twk_burst_check(test, &b, k, n);
}

/*
 * The clock is never read with interrupts off under the base lock: an arm
 * on an empty wheel (whose clock is moved forward) and a query, with the
 * clock_read hook making each driver clock read take 20 ms, do not hold
 * back a hard-interrupt control hrtimer on their CPU, due 2 ms into them,
 * by as much as half a read.
 */
void twk_clock_not_under_lock(struct kunit *test)
{
	const unsigned int slow_us = 20000;
	struct twheel_timer_info info;
	struct twheel_base_snapshot snap;
	struct twk_ctrl *c;
	struct twk_one *o;
	u64 late;
	int cpu;

	if (!TWK_HOOKS)
		kunit_skip(test, "no test hooks in this build");
	o = twk_one_alloc(test);
	migrate_disable();
	cpu = smp_processor_id();
	if (twheel_base_snapshot(cpu, &snap) || snap.pending) {
		migrate_enable();
		KUNIT_FAIL(test, "CPU %d's wheel is not empty", cpu);
		return;
	}
	c = twk_ctrl_start(test, cpu, ktime_get_ns() + 2 * TWK_MS, true);
	twk_hook(test, TWHEEL_HOOK_clock_read, slow_us);
	KUNIT_EXPECT_EQ(test, twk_one_arm(o, ktime_get_ns() + 10000 * TWK_MS,
					  cpu), 0);
	KUNIT_EXPECT_EQ(test, twheel_timer_query(&o->timer, &info), 0);
	twheel_hook_set(TWHEEL_HOOK_clock_read, 0);
	migrate_enable();
	KUNIT_EXPECT_EQ(test, info.state, (u32)TWHEEL_PENDING);
	late = twk_ctrl_late(c, 1000);
	KUNIT_ASSERT_NE(test, late, U64_MAX);
	kunit_info(test, "hard control hrtimer %llu us late\n",
		   div_u64(late, NSEC_PER_USEC));
	KUNIT_EXPECT_LT(test, late, (u64)slow_us * NSEC_PER_USEC / 2);
	KUNIT_EXPECT_EQ(test, twheel_timer_cancel(&o->timer), 1);
}
