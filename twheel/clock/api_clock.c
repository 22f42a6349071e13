// SPDX-License-Identifier: GPL-2.0
/*
 * twheel in-kernel API: timers on CLOCK_BOOTTIME and CLOCK_REALTIME
 * (struct twheel_clock_timer), an owner of clock-bound timers on the core
 * of clock_timer.c, as the /dev/twheel timers are (layer in clock.h).
 *
 * Design. A clock timer embeds a struct twheel_cbound, whose wheel timer
 * sits in the CLOCK_MONOTONIC wheel like any other. A CLOCK_MONOTONIC
 * clock timer is only that wheel timer with a wrapped callback: arms,
 * modifies, cancels and queries go straight to base_arm.c, periodic
 * modes included. A clock-bound one (CLOCK_BOOTTIME, or CLOCK_REALTIME
 * with an absolute deadline) is the core's: armed one-shot at its own
 * deadline's conversion (twheel_cbound_set()), re-checked on its own clock
 * by the wrapped callback before the user's callback (twheel_cbound_due():
 * never early, O(1)), and, while armed, on its clock's twheel_clock_list,
 * which clock_step.c's work item has twheel_clock_step() walk
 * (twheel_cbound_step()) when the clock's offset moves: a forward step
 * fires the timers now due at the next tick. What this file adds to the
 * core: the user's callback, the period and overruns, and @armed (a
 * one-shot timer's callback has started, or the timer was cancelled).
 * Cost: O(armed timers on the clocks that moved) per step,
 * TWHEEL_LOCK_BUDGET per hold of the lock, nothing for the others.
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
 * the API may be called from softirq context) is the owner's lock of the
 * core: it protects the lists and every clock-bound timer's private
 * fields. Lock order: twheel_step_clients_lock -> twheel_clock_lock ->
 * base lock. The user's callback runs without it.
 *
 * Files: clock_step.c calls twheel_clock_step(); this file uses
 * clock_timer.c, clock.c and the API (base_arm.c), never the other
 * way round.
 */
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/time.h>
#include <linux/twheel.h>

#include "clock.h"
#include "testhooks.h"

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

/* @ct is no longer armed (lock held). */
static void twheel_clock_unbind(struct twheel_clock_timer *ct)
{
	ct->armed = false;
	list_del_init(&ct->cb.link);
}

static void twheel_clock_fire(struct twheel_timer *t)
{
	struct twheel_clock_timer *ct =
		container_of(t, struct twheel_clock_timer, cb.timer);
	unsigned int clock = twheel_clock_of(ct);
	u64 now, n;

	if (clock == TWHEEL_UCLK_MONO) {
		ct->func(ct);
		return;
	}
	twheel_hook(TWHEEL_HOOK_clock_fire);
	spin_lock_bh(&twheel_clock_lock);
	/* Cancelled, or re-armed (by its user or a step) since it expired. */
	if (!ct->armed || twheel_timer_pending(t))
		goto unlock;
	/* Not due on its own clock yet: re-armed. */
	if (!twheel_cbound_due(&ct->cb, clock, &now))
		goto unlock;
	if (ct->period) {
		n = twheel_grid_passed(ct->cb.deadline, ct->period, now);
		ct->overruns = n >= U32_MAX - ct->overruns ? U32_MAX :
							     ct->overruns + n;
		ct->cb.deadline = twheel_grid(ct->cb.deadline, n + 1,
					      ct->period);
		twheel_cbound_rearm(&ct->cb, clock);
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
	twheel_timer_setup(&ct->cb.timer, twheel_clock_fire, 0);
	ct->func = func;
	INIT_LIST_HEAD(&ct->cb.link);
	ct->cb.deadline = 0;
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

	if (clock == TWHEEL_UCLK_MONO && modify)
		return twheel_timer_modify(&ct->cb.timer, expires, period,
					   flags);
	if (clock == TWHEEL_UCLK_MONO)
		return twheel_timer_arm_on(&ct->cb.timer, expires, period,
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
	ret = twheel_cbound_set(&ct->cb, clock, own, cpu, modify);
	if (ret >= 0) {
		/*
		 * Armed on its clock is pending, also while its wheel timer,
		 * just expired, waits for this lock in twheel_clock_fire().
		 */
		if (ct->armed)
			ret = 1;
		ct->period = period;
		if (!modify)
			ct->overruns = 0;
		ct->armed = true;
		list_move_tail(&ct->cb.link, twheel_clock_list_of(ct));
	} else if (!twheel_timer_pending(&ct->cb.timer)) {
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

/*
 * Disarm @ct's clock-bound part: steps and its callback leave it alone.
 * Returns whether it was armed: a timer armed on its clock is pending to
 * its user even between its wheel timer's expiry and twheel_clock_fire()'s
 * look under the lock, where the wheel timer alone is not (it is running
 * its callback), and a periodic one is pending until it is cancelled.
 */
static bool twheel_clock_disarm(struct twheel_clock_timer *ct)
{
	bool armed;

	spin_lock_bh(&twheel_clock_lock);
	armed = ct->armed;
	twheel_clock_unbind(ct);
	spin_unlock_bh(&twheel_clock_lock);
	return armed;
}

/**
 * twheel_clock_cancel() - disarm a clock timer
 * @ct:		timer set up with twheel_clock_timer_setup()
 *
 * As twheel_timer_cancel(): a callback already running goes on running.
 *
 * Context: any context but hard interrupt; does not sleep.
 * Return: 1 if the timer was pending: armed on its clock, also while its
 * expiry waits to look at it (as twheel_timer_cancel()'s "waiting for its
 * callback"), or periodic and not cancelled before; 0 if it was idle or
 * only running its callback.
 */
int twheel_clock_cancel(struct twheel_clock_timer *ct)
{
	bool armed = twheel_clock_disarm(ct);

	return twheel_timer_cancel(&ct->cb.timer) || armed;
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
 * Return: as twheel_clock_cancel().
 */
int twheel_clock_cancel_sync(struct twheel_clock_timer *ct)
{
	bool armed = twheel_clock_disarm(ct);

	return twheel_timer_cancel_sync(&ct->cb.timer) || armed;
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
		return twheel_timer_query(&ct->cb.timer, info);
	spin_lock_bh(&twheel_clock_lock);
	twheel_timer_query(&ct->cb.timer, info);
	now = twheel_uclock_now(clock);
	info->deadline = ct->armed ? ct->cb.deadline : 0;
	info->remaining = info->deadline > now ? info->deadline - now : 0;
	info->period = ct->armed ? ct->period : 0;
	info->mode = info->period ? TWHEEL_MODE_FIXED_RATE :
				    TWHEEL_MODE_ONESHOT;
	info->overruns = ct->overruns;
	spin_unlock_bh(&twheel_clock_lock);
	return 0;
}
EXPORT_SYMBOL_GPL(twheel_clock_query);

static void twheel_clock_step_lock(void *owner)
	__acquires(&twheel_clock_lock)
{
	spin_lock_bh(&twheel_clock_lock);
}

static void twheel_clock_step_unlock(void *owner)
	__releases(&twheel_clock_lock)
{
	spin_unlock_bh(&twheel_clock_lock);
}

static unsigned int twheel_clock_step_clock(const struct twheel_cbound *cb)
{
	return twheel_clock_of(container_of(cb, struct twheel_clock_timer, cb));
}

static struct list_head *twheel_clock_step_list(void *owner,
						struct twheel_cbound *cb)
{
	return twheel_clock_list_of(container_of(cb, struct twheel_clock_timer,
						 cb));
}

static const struct twheel_cbound_ops twheel_clock_step_ops = {
	.lock	= twheel_clock_step_lock,
	.unlock	= twheel_clock_step_unlock,
	.clock	= twheel_clock_step_clock,
	.list	= twheel_clock_step_list,
};

/**
 * twheel_clock_step() - follow a step of CLOCK_REALTIME or CLOCK_BOOTTIME
 * @clocks:	the clocks that moved, bits BIT(enum twheel_uclock)
 *
 * Re-arms every armed timer on those clocks at its deadline converted with
 * the clocks' new offsets (a timer now due fires at the next tick), with
 * twheel_cbound_step(): the lock is dropped every TWHEEL_LOCK_BUDGET
 * timers.
 *
 * Context: process context (clock_step.c's work item), may sleep.
 * Return: the number of timers re-armed.
 */
unsigned long twheel_clock_step(unsigned int clocks)
{
	unsigned long done;
	LIST_HEAD(todo);

	spin_lock_bh(&twheel_clock_lock);
	twheel_cbound_take(twheel_clock_list, clocks, &todo);
	done = twheel_cbound_step(&twheel_clock_step_ops, NULL, &todo, clocks);
	spin_unlock_bh(&twheel_clock_lock);
	return done;
}
