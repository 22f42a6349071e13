// SPDX-License-Identifier: GPL-2.0
/*
 * twheel in-kernel API: timers on CLOCK_BOOTTIME and CLOCK_REALTIME
 * (struct twheel_clock_timer), kept on their own clock as the /dev/twheel
 * timers are (clock.h).
 *
 * Design. A clock timer embeds a struct twheel_timer, which sits in the
 * CLOCK_MONOTONIC wheel like any other. A CLOCK_MONOTONIC clock timer is
 * only that timer with a wrapped callback: arms, modifies, cancels and
 * queries go straight to base_arm.c, periodic modes included. A
 * clock-bound one (CLOCK_BOOTTIME, or CLOCK_REALTIME with an absolute
 * deadline) keeps its deadline on its own clock in @deadline and arms its
 * wheel timer, always one-shot, at that deadline minus the clock's current
 * offset from CLOCK_MONOTONIC (clock.c). The wrapped callback reads the
 * own clock again: if it was set back and the deadline is not reached, the
 * timer is re-armed at the new conversion instead of calling the user's
 * callback (never early on the own clock, O(1)). While armed, a clock-bound
 * timer is on its clock's twheel_clock_list; when an offset changes
 * (clock_settime(), adjtimex() steps, resume from suspend) clock_step.c's
 * work item calls twheel_clock_step(), which re-arms every timer on the
 * lists of the clocks that moved: a forward step fires the timers now
 * due at the next tick.
 * Cost: O(armed timers on those clocks) per step, TWHEEL_CLOCK_STEP_CHUNK
 * per hold of the lock, nothing for the others.
 *
 * Periodic clock-bound timers are fixed rate on their own clock: deadline
 * n = first deadline + n * period on that clock. The callback wrapper puts
 * the timer on its next deadline after now before it calls the user's
 * callback, counting the periods that passed in @overruns (a step forward
 * by many periods is one call and many overruns, not a burst). Fixed delay
 * (TWHEEL_FIXED_DELAY) is CLOCK_MONOTONIC only; a relative CLOCK_REALTIME
 * deadline is refused (it would be a CLOCK_MONOTONIC one, as for hrtimers:
 * use CLOCK_MONOTONIC).
 *
 * Locking: twheel_clock_lock (spinlock_t, taken with bottom halves off as
 * the API may be called from softirq context) protects the list and every
 * clock-bound timer's private fields. Lock order: twheel_step_clients_lock ->
 * twheel_clock_lock -> base lock. The user's callback runs without it.
 *
 * Files: clock_step.c calls twheel_clock_step(); this file uses clock.c
 * and the API (base_arm.c), never the other way round.
 */
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/time.h>
#include <linux/twheel.h>

#include "api_clock.h"
#include "clock.h"

/* Clock-bound timers re-armed per hold of twheel_clock_lock by a step. */
#define TWHEEL_CLOCK_STEP_CHUNK	TWHEEL_LOCK_BUDGET

static DEFINE_SPINLOCK(twheel_clock_lock);
/* Armed clock-bound timers, per clock (index clock - TWHEEL_UCLK_BOOT). */
static struct list_head twheel_clock_list[TWHEEL_UCLK_BOUND] = {
	LIST_HEAD_INIT(twheel_clock_list[0]),
	LIST_HEAD_INIT(twheel_clock_list[1]),
};

/* The enum twheel_uclock of @ct's clock. */
static unsigned int twheel_clock_of(const struct twheel_clock_timer *ct)
{
	switch (ct->clockid) {
	case CLOCK_BOOTTIME:
		return TWHEEL_UCLK_BOOT;
	case CLOCK_REALTIME:
		return TWHEEL_UCLK_REAL;
	default:
		return TWHEEL_UCLK_MONO;
	}
}

/* The list of armed timers of @ct's clock. */
static struct list_head *twheel_clock_list_of(const struct twheel_clock_timer *ct)
{
	return &twheel_clock_list[twheel_clock_of(ct) - TWHEEL_UCLK_BOOT];
}

/* Put @ct's wheel timer at its own deadline's conversion (lock held). */
static void twheel_clock_rearm(struct twheel_clock_timer *ct)
{
	lockdep_assert_held(&twheel_clock_lock);
	twheel_rearm_mono(&ct->timer,
			  twheel_uclock_to_mono(twheel_clock_of(ct),
						ct->deadline));
}

/* @ct is no longer armed (lock held). */
static void twheel_clock_unbind(struct twheel_clock_timer *ct)
{
	ct->armed = false;
	list_del_init(&ct->link);
}

static void twheel_clock_fire(struct twheel_timer *t)
{
	struct twheel_clock_timer *ct =
		container_of(t, struct twheel_clock_timer, timer);
	unsigned int clock = twheel_clock_of(ct);
	u64 now, n;

	if (clock == TWHEEL_UCLK_MONO) {
		ct->func(ct);
		return;
	}
	spin_lock_bh(&twheel_clock_lock);
	/* Cancelled, or re-armed (by its user or a step) since it expired. */
	if (!ct->armed || twheel_timer_pending(t))
		goto unlock;
	now = twheel_uclock_now(clock);
	/* Its clock was set back since it was armed: not due yet. */
	if (now < ct->deadline) {
		twheel_clock_rearm(ct);
		goto unlock;
	}
	if (ct->period) {
		n = div64_u64(now - ct->deadline, ct->period);
		ct->overruns = n >= U32_MAX - ct->overruns ? U32_MAX :
							     ct->overruns + n;
		ct->deadline = twheel_grid(ct->deadline, n + 1, ct->period);
		twheel_clock_rearm(ct);
	} else {
		twheel_clock_unbind(ct);
	}
	spin_unlock_bh(&twheel_clock_lock);
	/* A one-shot @ct may be freed by its callback: not touched after. */
	ct->func(ct);
	return;
unlock:
	spin_unlock_bh(&twheel_clock_lock);
}

/**
 * twheel_clock_timer_setup() - set up a timer on a clock before its first use
 * @ct:		the timer
 * @clockid:	CLOCK_MONOTONIC, CLOCK_BOOTTIME or CLOCK_REALTIME
 * @func:	callback, run in process context when the timer expires, with
 *		the rules of twheel_timer_setup() without flags
 *
 * The timer is idle. Deadlines of CLOCK_BOOTTIME timers count time spent in
 * suspend; absolute CLOCK_REALTIME deadlines follow every change of the
 * wall clock. Either fires when its own clock reaches the deadline, never
 * before, at most a wheel tick plus the time the clock-step work needs
 * after it (a forward step of the clock fires the timers it made due at
 * the next tick after that work). The clock is fixed until the next setup,
 * which is allowed while the timer is idle and its callback not running.
 *
 * Context: any.
 * Return: 0, or -EINVAL for another clock (alarm clocks, CPU-time clocks,
 * CLOCK_TAI...).
 */
int twheel_clock_timer_setup(struct twheel_clock_timer *ct, clockid_t clockid,
			     twheel_clock_func_t func)
{
	if (clockid != CLOCK_MONOTONIC && clockid != CLOCK_BOOTTIME &&
	    clockid != CLOCK_REALTIME)
		return -EINVAL;
	twheel_timer_setup(&ct->timer, twheel_clock_fire, 0);
	ct->func = func;
	INIT_LIST_HEAD(&ct->link);
	ct->deadline = 0;
	ct->period = 0;
	ct->overruns = 0;
	ct->clockid = clockid;
	ct->armed = false;
	return 0;
}
EXPORT_SYMBOL_GPL(twheel_clock_timer_setup);

static int twheel_clock_set(struct twheel_clock_timer *ct, u64 expires,
			    u64 period, unsigned int flags, int cpu,
			    bool modify)
{
	unsigned int clock = twheel_clock_of(ct);
	u64 own;
	int ret;

	if (clock == TWHEEL_UCLK_MONO)
		return modify ? twheel_timer_modify(&ct->timer, expires, period,
						    flags) :
				twheel_timer_arm_on(&ct->timer, expires, period,
						    flags, cpu);
	if (flags & ~TWHEEL_ABS)
		return -EINVAL;
	if (clock == TWHEEL_UCLK_REAL && !(flags & TWHEEL_ABS))
		return -EINVAL;

	spin_lock_bh(&twheel_clock_lock);
	if (flags & TWHEEL_ABS)
		own = min_t(u64, expires, KTIME_MAX);
	else
		own = twheel_deadline_after(twheel_uclock_now(clock), expires);
	if (modify)
		ret = twheel_timer_modify(&ct->timer,
					  twheel_uclock_to_mono(clock, own), 0,
					  TWHEEL_ABS);
	else
		ret = twheel_timer_arm_on(&ct->timer,
					  twheel_uclock_to_mono(clock, own), 0,
					  TWHEEL_ABS, cpu);
	if (ret >= 0) {
		ct->deadline = own;
		ct->period = period;
		if (!modify)
			ct->overruns = 0;
		ct->armed = true;
		list_move_tail(&ct->link, twheel_clock_list_of(ct));
	} else if (!twheel_timer_pending(&ct->timer)) {
		twheel_clock_unbind(ct);
	}
	spin_unlock_bh(&twheel_clock_lock);
	return ret;
}

/**
 * twheel_clock_arm_on() - arm a timer on its clock
 * @ct:		timer set up with twheel_clock_timer_setup()
 * @expires:	(first) deadline in ns on the timer's clock (host time),
 *		relative to now or absolute with TWHEEL_ABS (CLOCK_REALTIME:
 *		absolute only); a deadline in the past fires at the next tick
 * @period:	period in ns, 0 for a one-shot timer; fixed rate on the
 *		timer's clock
 * @flags:	TWHEEL_ABS; TWHEEL_FIXED_DELAY on CLOCK_MONOTONIC only
 * @cpu:	as for twheel_timer_arm_on()
 *
 * As twheel_timer_arm_on(), on the timer's clock. The overrun count restarts at
 * 0.
 *
 * Context: any context but hard interrupt; does not sleep.
 * Return: 1 if the timer was pending and was re-armed, 0 if it was idle;
 * -EINVAL for unknown flags, TWHEEL_FIXED_DELAY without a period or on
 * another clock than CLOCK_MONOTONIC, a relative CLOCK_REALTIME deadline;
 * -ERANGE or -ENXIO for @cpu as twheel_timer_arm_on().
 */
int twheel_clock_arm_on(struct twheel_clock_timer *ct, u64 expires,
			u64 period, unsigned int flags, int cpu)
{
	return twheel_clock_set(ct, expires, period, flags, cpu, false);
}
EXPORT_SYMBOL_GPL(twheel_clock_arm_on);

/**
 * twheel_clock_modify() - change a clock timer's deadline and period
 * @ct:		timer set up with twheel_clock_timer_setup()
 * @expires:	new deadline in ns on the timer's clock, as for
 *		twheel_clock_arm_on()
 * @period:	new period in ns, 0 makes the timer one-shot
 * @flags:	as for twheel_clock_arm_on()
 *
 * As twheel_timer_modify(): on the CPU the timer is on, never seen idle in
 * between, an idle timer is armed, the overrun count is kept.
 *
 * Context: any context but hard interrupt; does not sleep.
 * Return: 1 if the timer was pending, 0 if not; -EINVAL as
 * twheel_clock_arm_on().
 */
int twheel_clock_modify(struct twheel_clock_timer *ct, u64 expires,
			u64 period, unsigned int flags)
{
	return twheel_clock_set(ct, expires, period, flags, TWHEEL_CPU_ANY,
				true);
}
EXPORT_SYMBOL_GPL(twheel_clock_modify);

/* Disarm @ct's clock-bound part: steps and its callback leave it alone. */
static void twheel_clock_disarm(struct twheel_clock_timer *ct)
{
	spin_lock_bh(&twheel_clock_lock);
	twheel_clock_unbind(ct);
	spin_unlock_bh(&twheel_clock_lock);
}

/**
 * twheel_clock_cancel() - disarm a clock timer
 * @ct:		timer set up with twheel_clock_timer_setup()
 *
 * As twheel_timer_cancel(): a callback already running goes on running.
 *
 * Context: any context but hard interrupt; does not sleep.
 * Return: as twheel_timer_cancel().
 */
int twheel_clock_cancel(struct twheel_clock_timer *ct)
{
	twheel_clock_disarm(ct);
	return twheel_timer_cancel(&ct->timer);
}
EXPORT_SYMBOL_GPL(twheel_clock_cancel);

/**
 * twheel_clock_cancel_sync() - disarm a clock timer, wait for its callback
 * @ct:		timer set up with twheel_clock_timer_setup()
 *
 * As twheel_timer_cancel_sync(), whose rules it follows (not from a twheel
 * callback).
 *
 * Context: process context, may sleep.
 * Return: as twheel_timer_cancel_sync().
 */
int twheel_clock_cancel_sync(struct twheel_clock_timer *ct)
{
	twheel_clock_disarm(ct);
	return twheel_timer_cancel_sync(&ct->timer);
}
EXPORT_SYMBOL_GPL(twheel_clock_cancel_sync);

/**
 * twheel_clock_query() - snapshot of a clock timer's state
 * @ct:		timer set up with twheel_clock_timer_setup()
 * @info:	filled as by twheel_timer_query(), but @info->deadline and
 *		@info->remaining are on the timer's clock (host time), and a
 *		clock-bound timer reports its own period, mode and overruns
 *
 * Context: any context but hard interrupt; does not sleep.
 * Return: 0.
 */
int twheel_clock_query(struct twheel_clock_timer *ct,
		       struct twheel_timer_info *info)
{
	unsigned int clock = twheel_clock_of(ct);
	u64 now;

	if (clock == TWHEEL_UCLK_MONO)
		return twheel_timer_query(&ct->timer, info);
	spin_lock_bh(&twheel_clock_lock);
	twheel_timer_query(&ct->timer, info);
	now = twheel_uclock_now(clock);
	info->deadline = ct->armed ? ct->deadline : 0;
	info->remaining = info->deadline > now ? info->deadline - now : 0;
	info->period = ct->armed ? ct->period : 0;
	info->mode = info->period ? TWHEEL_MODE_FIXED_RATE :
				    TWHEEL_MODE_ONESHOT;
	info->overruns = ct->overruns;
	spin_unlock_bh(&twheel_clock_lock);
	return 0;
}
EXPORT_SYMBOL_GPL(twheel_clock_query);

/**
 * twheel_clock_step() - follow a step of CLOCK_REALTIME or CLOCK_BOOTTIME
 * @clocks:	the clocks that moved, bits BIT(enum twheel_uclock)
 *
 * Re-arms every armed timer on those clocks at its deadline converted with
 * the clocks' new offsets (a timer now due fires at the next tick). The lock is
 * dropped every TWHEEL_CLOCK_STEP_CHUNK timers; timers armed meanwhile use
 * the new offsets already, timers that fire or are cancelled meanwhile
 * leave @todo.
 *
 * Context: process context (clock_step.c's work item), may sleep.
 * Return: the number of timers re-armed.
 */
unsigned long twheel_clock_step(unsigned int clocks)
{
	struct twheel_clock_timer *ct;
	unsigned long done = 0;
	LIST_HEAD(todo);
	unsigned int n;

	spin_lock_bh(&twheel_clock_lock);
	for (n = 0; n < TWHEEL_UCLK_BOUND; n++)
		if (clocks & BIT(TWHEEL_UCLK_BOOT + n))
			list_splice_init(&twheel_clock_list[n], &todo);
	while (!list_empty(&todo)) {
		for (n = 0; n < TWHEEL_CLOCK_STEP_CHUNK && !list_empty(&todo);
		     n++) {
			ct = list_first_entry(&todo, struct twheel_clock_timer,
					      link);
			list_move_tail(&ct->link, twheel_clock_list_of(ct));
			twheel_clock_rearm(ct);
			done++;
		}
		spin_unlock_bh(&twheel_clock_lock);
		cond_resched();
		spin_lock_bh(&twheel_clock_lock);
	}
	spin_unlock_bh(&twheel_clock_lock);
	return done;
}
