// SPDX-License-Identifier: GPL-2.0
/*
 * twheel clocks: the conversions between a timer's own clock and
 * CLOCK_MONOTONIC, the wheel's time (twheel_uclock_*(): any context, a
 * timekeeping read each, O(1)), and the clock-bound timer core (struct
 * twheel_cbound) on them, the one implementation behind the in-kernel
 * clock timers (api_clock.c) and the /dev/twheel timers (dev/dev_timer.c,
 * dev/dev_read.c). Layer in clock.h.
 *
 * A clock-bound timer keeps its deadline on its own clock (CLOCK_BOOTTIME
 * or CLOCK_REALTIME, enum twheel_uclock) in @deadline, and its wheel timer
 * is armed, always one-shot, at the conversion of that deadline to
 * CLOCK_MONOTONIC with the clock's offset of the moment
 * (twheel_cbound_mono()). Invariants, whatever the owner:
 * - never early on the own clock: the expiry re-reads the own clock
 *   (twheel_cbound_due()) and re-arms at the new conversion when the clock
 *   was set back since the arm; an expiry before the deadline on a clock
 *   that did not move is the wheel's fault and counted (debugfs
 *   utimer_early, must stay 0);
 * - followed steps: while armed, the timer is on its owner's list of its
 *   clock, and when the clock's offset moves, clock_step.c's work item has
 *   the owner walk those lists (twheel_cbound_step()), which re-arms each
 *   timer at its new conversion, or hands it to the owner (->walked) to
 *   end or deliver;
 * - fixed-rate periods are on the own clock's grid (twheel_grid(),
 *   twheel_grid_passed() in clock.h), wherever the owner advances them.
 * A CLOCK_MONOTONIC timer may use the same functions: its conversion is
 * the identity and it is on no list.
 *
 * The test-only knob utimer_early (testhooks.h) arms every timer that many
 * microseconds before its conversion: a planted early expiry that
 * twheel_cbound_due() must count.
 *
 * Locking: the owner's lock protects @link, @deadline and the arming of
 * @timer; every function here is called with it held (it is the owner's
 * business which lock: a global spinlock with bottom halves off for the
 * in-kernel API, the file lock for the device). twheel_cbound_step() drops
 * and retakes it, through the owner's ->lock and ->unlock, every
 * TWHEEL_LOCK_BUDGET timers. Lock order: owner's lock -> base lock.
 *
 * Context: any context but hard interrupt for the arms, the re-check and
 * the conversion (O(1): a timekeeping read and an arm); the step walk in
 * process context (it may sleep between chunks), O(timers on the lists it
 * is given).
 */
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/time64.h>
#include <linux/timekeeping.h>
#include <linux/twheel.h>

#include "clock.h"
#include "stats.h"
#include "testhooks.h"

/**
 * twheel_uclock_now() - the current time on a timer's clock
 * @clock:	enum twheel_uclock
 *
 * Return: ns on @clock (host time).
 */
u64 twheel_uclock_now(unsigned int clock)
{
	switch (clock) {
	case TWHEEL_UCLK_BOOT:
		return ktime_get_boottime_ns();
	case TWHEEL_UCLK_REAL:
		return ktime_get_real_ns();
	default:
		return ktime_get_ns();
	}
}

/**
 * twheel_uclock_offs() - @clock minus CLOCK_MONOTONIC, now
 * @clock:	enum twheel_uclock
 *
 * Changes only when the clock is set or the system resumes from suspend.
 *
 * Return: the offset in ns (0 for CLOCK_MONOTONIC).
 */
s64 twheel_uclock_offs(unsigned int clock)
{
	switch (clock) {
	case TWHEEL_UCLK_BOOT:
		return ktime_to_ns(ktime_mono_to_any(0, TK_OFFS_BOOT));
	case TWHEEL_UCLK_REAL:
		return ktime_to_ns(ktime_mono_to_any(0, TK_OFFS_REAL));
	default:
		return 0;
	}
}

/**
 * twheel_uclock_to_mono() - convert a deadline on @clock to the wheel's time
 * @clock:	enum twheel_uclock
 * @own:	deadline on @clock, 0 .. KTIME_MAX
 *
 * With the clock's offset of now: a later step of the clock changes the
 * result. A deadline before CLOCK_MONOTONIC's zero gives 0 (long past).
 *
 * Return: the CLOCK_MONOTONIC deadline, 0 .. KTIME_MAX.
 */
u64 twheel_uclock_to_mono(unsigned int clock, u64 own)
{
	if (clock == TWHEEL_UCLK_MONO)
		return own;
	return twheel_clamp_add(own, -twheel_uclock_offs(clock));
}

/* @own on @clock converted to the wheel's time now, less the test knob. */
static u64 twheel_cbound_to_mono(unsigned int clock, u64 own)
{
	u64 mono = twheel_uclock_to_mono(clock, own);
	u64 early = twheel_hook_knob(TWHEEL_HOOK_utimer_early);

	return mono - min_t(u64, mono, early * NSEC_PER_USEC);
}

/**
 * twheel_cbound_mono() - where a clock-bound timer is armed in the wheel
 * @cb:		the timer
 * @clock:	its clock, enum twheel_uclock
 *
 * Context: owner's lock held.
 * Return: @cb->deadline converted to CLOCK_MONOTONIC with @clock's offset
 * of now.
 */
u64 twheel_cbound_mono(const struct twheel_cbound *cb, unsigned int clock)
{
	return twheel_cbound_to_mono(clock, cb->deadline);
}

/**
 * twheel_cbound_set() - arm or modify a clock-bound timer on its clock
 * @cb:		the timer, its wheel timer set up by its owner
 * @clock:	its clock, enum twheel_uclock
 * @own:	the deadline on @clock, 0 .. KTIME_MAX
 * @cpu:	as for twheel_timer_arm_on(); ignored with @modify
 * @modify:	twheel_timer_modify() (stays on its CPU) rather than
 *		twheel_timer_arm_on()
 *
 * Arms the wheel timer one-shot at @own's conversion and, if that worked,
 * keeps @own as the deadline. Binding on the owner's list of @clock is the
 * caller's.
 *
 * Context: owner's lock held; not hard interrupt.
 * Return: as twheel_timer_arm_on() or twheel_timer_modify().
 */
int twheel_cbound_set(struct twheel_cbound *cb, unsigned int clock, u64 own,
		      int cpu, bool modify)
{
	u64 mono = twheel_cbound_to_mono(clock, own);
	int ret;

	if (modify)
		ret = twheel_timer_modify(&cb->timer, mono, 0, TWHEEL_ABS);
	else
		ret = twheel_timer_arm_on(&cb->timer, mono, 0, TWHEEL_ABS, cpu);
	if (ret >= 0)
		cb->deadline = own;
	return ret;
}

/**
 * twheel_cbound_rearm() - put a timer's wheel timer at its deadline's
 *			   conversion
 * @cb:		the timer
 * @clock:	its clock, enum twheel_uclock
 *
 * One-shot, on its CPU; if that CPU went away meanwhile, on the local one.
 *
 * Context: owner's lock held; not hard interrupt.
 */
void twheel_cbound_rearm(struct twheel_cbound *cb, unsigned int clock)
{
	twheel_rearm_mono(&cb->timer, twheel_cbound_mono(cb, clock));
}

/**
 * twheel_cbound_due() - the expiry's re-check on the own clock
 * @cb:		the timer, whose wheel timer just expired and was not
 *		re-armed since (the caller checked twheel_timer_pending())
 * @clock:	its clock, enum twheel_uclock
 * @now:	out: @clock's time, read here
 *
 * If @clock has not reached the deadline, the clock was set back since the
 * arm (the timer is re-armed at the new conversion: never early), or the
 * wheel fired early, which must never happen: that is told apart by the
 * conversion, which still gives the wheel timer's deadline when the clock
 * did not move, and counted (utimer_early).
 *
 * Context: the wheel timer's callback, owner's lock held.
 * Return: true if the timer is due: the owner delivers it, at @now.
 */
bool twheel_cbound_due(struct twheel_cbound *cb, unsigned int clock, u64 *now)
{
	u64 mono;

	*now = twheel_uclock_now(clock);
	if (*now >= cb->deadline)
		return true;
	mono = twheel_cbound_mono(cb, clock);
	if (clock == TWHEEL_UCLK_MONO || mono == cb->timer.deadline)
		twheel_stat_inc(utimer_early);
	twheel_rearm_mono(&cb->timer, mono);
	return false;
}

/**
 * twheel_cbound_step() - follow a step of clocks over a list of timers
 * @ops:	the owner's lock, the clock and list of a timer, and what
 *		to do with one the walk hands it (->walked, may be NULL)
 * @owner:	passed to @ops
 * @todo:	the owner's timers of the clocks that moved, taken off their
 *		lists (twheel_cbound_take()); empty on return
 * @clocks:	the clocks that moved, bits BIT(enum twheel_uclock)
 *
 * Each timer of @todo is offered to ->walked, with the time of each clock
 * of @clocks read before its chunk (never later than the timer's look, so
 * a delivery at that time is not early); if ->walked takes it (true: it
 * moved it off @todo), that is all; otherwise the timer goes back on its
 * list and is re-armed at its deadline converted with the new offsets (a
 * timer now due fires at the next tick). The owner's lock is dropped every
 * TWHEEL_LOCK_BUDGET timers: timers armed meanwhile use the new offsets
 * already, timers that fire or are cancelled meanwhile leave @todo (their
 * owner unlinks them).
 *
 * Context: process context, owner's lock held (and held on return), may
 * sleep with it dropped.
 * Return: the number of timers walked.
 */
unsigned long twheel_cbound_step(const struct twheel_cbound_ops *ops,
				 void *owner, struct list_head *todo,
				 unsigned int clocks)
{
	u64 now[TWHEEL_UCLK_BOUND] = {};
	struct twheel_cbound *cb;
	unsigned long done = 0;
	unsigned int n;

	while (!list_empty(todo)) {
		for (n = 0; ops->walked && n < TWHEEL_UCLK_BOUND; n++)
			if (clocks & BIT(TWHEEL_UCLK_BOOT + n))
				now[n] = twheel_uclock_now(TWHEEL_UCLK_BOOT + n);
		for (n = 0; n < TWHEEL_LOCK_BUDGET && !list_empty(todo); n++) {
			cb = list_first_entry(todo, struct twheel_cbound, link);
			done++;
			if (ops->walked && ops->walked(owner, cb, now))
				continue;
			list_move_tail(&cb->link, ops->list(owner, cb));
			twheel_cbound_rearm(cb, ops->clock(cb));
		}
		ops->unlock(owner);
		cond_resched();
		ops->lock(owner);
	}
	return done;
}
