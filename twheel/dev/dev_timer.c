// SPDX-License-Identifier: GPL-2.0
/*
 * twheel char device: the timer set of one open file of /dev/twheel.
 *
 * Each userspace timer is a struct twheel_utimer embedding a clock-bound
 * timer of the clocks layer's core (struct twheel_cbound, clock_timer.c;
 * on CLOCK_MONOTONIC too), whose in-kernel timer is armed one-shot. The
 * core arms it at its deadline's conversion, re-checks its own clock when
 * it fires and walks it when its clock steps; this file adds the file's
 * side: its expiry callback queues the timer's event on the file's ready
 * list; read() (dev_read.c) consumes it and re-arms a periodic timer (enum
 * twheel_mode). So at most one event per timer is queued, and a fixed-rate
 * timer whose reader is late reports the periods that passed as overruns
 * of that one event. A step walk ends cancel-on-set timers and delivers
 * the timers it made due. Locking and lifetime rules are in dev_file.h
 * ("Clocks" for the clock-bound part).
 */
#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#include <uapi/linux/twheel.h>
#include "dev_file.h"
#include "dev_utimer.h"
#include "stats.h"
#include "testhooks.h"

/* Queue @ut's event (file lock held) and wake the readers. */
static void twheel_utimer_queue(struct twheel_file *f, struct twheel_utimer *ut,
				u64 expired)
{
	bool first = list_empty(&f->ready);

	ut->expired = expired;
	ut->queued = 1;
	/*
	 * An armed CLOCK_MONOTONIC timer is on no list (twheel_utimer_bind()):
	 * no unlink, whose checks a hardened kernel pays on every expiry.
	 */
	if (list_empty(&ut->cb.link))
		list_add_tail(&ut->cb.link, &f->ready);
	else
		list_move_tail(&ut->cb.link, &f->ready);
	/*
	 * Every waiter that was on @wq at the last wake-up was woken, and
	 * every one that came since looked at @ready and cleared @woken first
	 * (twheel_file_ready()): a burst of expiries that its reader has not
	 * got to yet wakes it once, not once each. An edge-triggered epoll
	 * still sees an edge for every expiry after it collected the last
	 * one, as collecting calls ->poll. A waiter need not look to get the
	 * next wake-up: one behind an epoll that only passes the wake-up on
	 * (io_uring's poll of that epoll) never calls our ->poll, so every
	 * event into an empty list wakes, and so does every one after a
	 * read() (which clears @woken). Not with exclusive waiters: a
	 * wake-up woke one of them only, which may never look.
	 */
	if (f->woken && !f->excl && !first)
		return;
	/* Pairs with the barrier in prepare_to_wait() / poll. */
	if (wq_has_sleeper(&f->wq)) {
		f->woken = true;
		wake_up(&f->wq);
	}
}

/*
 * Cancel-on-set: CLOCK_REALTIME was set since @ut was armed (its offset
 * then is in @real_offs). End the timer with a canceled event; read() waits
 * for a callback that may still run before it frees @ut.
 */
static bool twheel_utimer_was_set(struct twheel_file *f,
				  struct twheel_utimer *ut)
{
	if (!ut->cos || ut->real_offs == twheel_uclock_offs(TWHEEL_UCLK_REAL))
		return false;
	twheel_timer_cancel(&ut->cb.timer);
	ut->canceled = 1;
	twheel_utimer_queue(f, ut, twheel_uclock_now(TWHEEL_UCLK_REAL));
	return true;
}

/*
 * Expiry callback, in the twheel workqueue: queue the event. The file cannot
 * go away while this runs before the file lock is dropped: release
 * cancel_syncs every live timer and takes the lock once more before freeing
 * the table and the file, and a timer dies only under the lock. Nothing of
 * @ut or of the file is touched after the unlock (a read() may free, and an
 * arm reuse, the slot of a one-shot @ut then: the arm finds @ut still
 * running on its base and defers, as the timer is never set up again; see
 * twheel_file_arm()).
 */
static void twheel_utimer_fire(struct twheel_timer *t)
{
	struct twheel_utimer *ut = container_of(t, struct twheel_utimer, cb.timer);
	struct twheel_file *f = ut->file;
	u64 now;

	/* Test-only: widen the window of an expiry in flight. */
	twheel_hook(TWHEEL_HOOK_utimer_fire);
	spin_lock(&f->lock);
	/*
	 * Cancelled after this expiry began: say so to the canceller, which
	 * waits for us (twheel_timer_cancel_sync()) before it reads it, so that a
	 * cancel that discarded an expiry in flight returns 1.
	 */
	if (ut->dead) {
		ut->canceled = 1;
		goto out;
	}
	/*
	 * Re-armed by MODIFY or a clock step after this expiry began (the
	 * state is stable: they set it under the file lock we now hold).
	 * MODIFY counted the expiry it discarded (twheel_file_modify()).
	 */
	if (ut->queued || twheel_timer_pending(t))
		goto out;
	if (twheel_utimer_was_set(f, ut))
		goto out;
	/*
	 * Not due on its own clock: it was set back since the timer was armed
	 * (re-armed at the new conversion, never early), or the wheel fired
	 * early, which must never happen and is counted for the tests.
	 */
	if (!twheel_cbound_due(&ut->cb, ut->clock, &now))
		goto out;
	/* When it really fired, on its clock (not before the deadline). */
	twheel_utimer_queue(f, ut, now);
out:
	spin_unlock(&f->lock);
	/* Test-only: a read() may free the slot, an arm reuse it, meanwhile. */
	twheel_hook(TWHEEL_HOOK_utimer_fired);
}

/**
 * twheel_file_init() - set up the timer set of a new open file
 * @f:	zeroed file state
 */
void twheel_file_init(struct twheel_file *f)
{
	unsigned int i;

	spin_lock_init(&f->lock);
	INIT_LIST_HEAD(&f->ufree);
	INIT_LIST_HEAD(&f->ready);
	init_waitqueue_head(&f->wq);
	for (i = 0; i < TWHEEL_UCLK_BOUND; i++) {
		INIT_LIST_HEAD(&f->clocked[i]);
		INIT_LIST_HEAD(&f->alarms[i]);
	}
	INIT_LIST_HEAD(&f->step_link);
	atomic_long_set(&f->nr, 0);
}

/**
 * twheel_file_arm() - create and arm a timer
 * @f:		the file
 * @req:	checked request
 * @idp:	out: the new id
 *
 * Takes a free slot of the file's table, adding a chunk first if none is
 * (the only allocation, once per TWHEEL_UCHUNK slots).
 *
 * Context: process context, may sleep; file lock not held.
 * Return: 0, -ENOSPC (a cap, or the table is full), -ENOMEM, or an error
 * of twheel_timer_arm_on().
 */
int twheel_file_arm(struct twheel_file *f, const struct twheel_req *req,
		    u64 *idp)
{
	struct twheel_utimer *ut;
	int ret;

	ret = twheel_charge(f);
	if (ret)
		return ret;
	spin_lock(&f->lock);
	while (!(ut = twheel_utable_pop(f))) {
		spin_unlock(&f->lock);
		ret = twheel_utable_grow(f, twheel_utimer_fire);
		if (ret)
			goto uncharge;
		spin_lock(&f->lock);
	}
	/*
	 * Set up under the lock: lookups read @id and @dead. Not the kernel
	 * timer: it was set up once with its chunk (twheel_utable_grow()) and
	 * never again, as the callback of the slot's last one-shot may still
	 * be running on a runner of its base (a read() freed the slot after
	 * the callback dropped the file lock): this arm then finds it there
	 * and takes effect when it returns ("Running timers stay put" in
	 * base.h), where a fresh set-up would forget it and the runner would
	 * settle an arming it did not defer.
	 */
	ut->cookie = req->cookie;
	ut->queued = 0;
	ut->canceled = 0;
	twheel_utimer_set_mode(ut, req);
	/*
	 * Cancel-on-set: the offset before the conversion, so that a step in
	 * between cancels. Only then: it is a clock read.
	 */
	if (ut->cos)
		ut->real_offs = twheel_uclock_offs(TWHEEL_UCLK_REAL);
	/*
	 * The opener's fairness group (dev_caps.c): its callbacks wait in
	 * their own queue, served in turn with other users' (base.h
	 * "Fairness"). The slot's timer is idle or runs its callback here,
	 * in no queue, and its group is the file's anyway.
	 */
	twheel_timer_set_group(&ut->cb.timer, twheel_user_group(f->user));
	ret = twheel_cbound_set(&ut->cb, ut->clock, req->own, req->cpu, false);
	if (ret < 0) {
		/* Never armed: the slot is free again, with the next id. */
		twheel_utable_push(f, ut);
	} else {
		ut->dead = 0;
		twheel_utimer_bind(f, ut);
		*idp = ut->id;
	}
	spin_unlock(&f->lock);
	if (ret < 0)
		goto uncharge;
	return 0;

uncharge:
	twheel_uncharge(f, 1);
	return ret;
}

/**
 * twheel_file_cancel() - cancel a timer and release its id
 * @f:	the file
 * @id:	the timer
 *
 * No event of the timer is delivered once this returns.
 *
 * Context: process context, sleeps (twheel_timer_cancel_sync()).
 * Return: 1 if the timer was armed or had an unread event, 0 if not, -ENOENT.
 */
int twheel_file_cancel(struct twheel_file *f, u64 id)
{
	struct twheel_utimer *ut;
	int ret;

	spin_lock(&f->lock);
	ut = twheel_file_lookup(f, id);
	if (!ut) {
		spin_unlock(&f->lock);
		return -ENOENT;
	}
	ret = twheel_utimer_kill(f, ut);
	ut->canceled = 0;
	spin_unlock(&f->lock);

	/* Pending, or its expiry in flight was discarded (canceled set). */
	if (twheel_timer_cancel_sync(&ut->cb.timer) > 0)
		ret = 1;
	spin_lock(&f->lock);
	if (ut->canceled)
		ret = 1;
	twheel_utable_push(f, ut);
	spin_unlock(&f->lock);
	twheel_uncharge(f, 1);
	return ret;
}

/**
 * twheel_file_modify() - give a timer a new deadline, period and mode
 * @f:		the file
 * @id:		the timer
 * @req:	checked request (cookie and cpu are ignored)
 *
 * The timer stays on its CPU. An unread event is discarded; a callback that
 * is already running for the old deadline finds the timer re-armed and drops
 * its event (twheel_utimer_fire()), and that expiry counts as discarded.
 *
 * Return: 1 if the timer was armed, had an unread event or an expiry in
 * flight (each discarded), -ENOENT, or an error of twheel_timer_modify(). A live
 * timer is always one of the three, so it is 1 on success, as for
 * twheel_file_cancel().
 */
int twheel_file_modify(struct twheel_file *f, u64 id,
		       const struct twheel_req *req)
{
	struct twheel_utimer *ut;
	s64 real = 0;
	int ret;

	spin_lock(&f->lock);
	ut = twheel_file_lookup(f, id);
	if (!ut) {
		ret = -ENOENT;
		goto unlock;
	}
	/* Cancel-on-set: the offset before the conversion, as at arm. */
	if (req->cos)
		real = twheel_uclock_offs(TWHEEL_UCLK_REAL);
	ret = twheel_cbound_set(&ut->cb, req->clock, req->own, TWHEEL_CPU_ANY,
				true);
	if (ret < 0)
		goto unlock;
	/*
	 * A live timer with no event queued that was not pending in the wheel
	 * has its expiry in flight: its callback has yet to take the file
	 * lock, will find the timer re-armed and drop that expiry. This
	 * modify consumed it: 1, as for an unread event, and as a cancel
	 * says of an expiry in flight it discarded.
	 */
	if (ut->queued) {
		twheel_utimer_unqueue(ut);
		ret = 1;
	} else if (!ret) {
		ret = 1;
	}
	if (req->cos)
		ut->real_offs = real;
	twheel_utimer_set_mode(ut, req);
	twheel_utimer_bind(f, ut);
unlock:
	spin_unlock(&f->lock);
	return ret;
}

/*
 * A clock step walks @ut (file lock held): if it is due on its clock at
 * @now (per clock, read before), take it out of the wheel, queue its event
 * and return true. False if it is not due, or if twheel_timer_cancel() found it
 * neither in a wheel nor waiting for its callback: its expiry is in flight
 * (the callback waits for the file lock), and the caller re-arms it as any
 * other, which defers behind that callback; the callback then drops its
 * expiry and the timer fires at the next tick. A callback may still be in
 * flight after a delivery here (an arming deferred behind it by an earlier
 * step is cancelled): it finds the event queued and drops out, and read(),
 * arm and release wait for it as after the walk before suspend. The wheel
 * counts the timer as cancelled; clock_delivered counts the delivery.
 */
static bool twheel_utimer_step_due(struct twheel_file *f,
				   struct twheel_utimer *ut, const u64 *now)
{
	u64 t = now[ut->clock - TWHEEL_UCLK_BOOT];

	if (t < ut->cb.deadline || !twheel_timer_cancel(&ut->cb.timer))
		return false;
	twheel_utimer_queue(f, ut, t);
	twheel_stat_inc(clock_delivered);
	return true;
}

static void twheel_file_step_lock(void *owner)
	__acquires(&((struct twheel_file *)owner)->lock)
{
	struct twheel_file *f = owner;

	spin_lock(&f->lock);
}

static void twheel_file_step_unlock(void *owner)
	__releases(&((struct twheel_file *)owner)->lock)
{
	struct twheel_file *f = owner;

	spin_unlock(&f->lock);
}

static unsigned int twheel_utimer_step_clock(const struct twheel_cbound *cb)
{
	return container_of(cb, struct twheel_utimer, cb)->clock;
}

static struct list_head *twheel_utimer_step_list(void *owner,
						 struct twheel_cbound *cb)
{
	return twheel_utimer_list(owner,
				  container_of(cb, struct twheel_utimer, cb));
}

/* A step walks @cb: end it (cancel-on-set) or deliver it if it is due. */
static bool twheel_utimer_step_walked(void *owner, struct twheel_cbound *cb,
				      const u64 *now)
{
	struct twheel_utimer *ut = container_of(cb, struct twheel_utimer, cb);

	return twheel_utimer_was_set(owner, ut) ||
	       twheel_utimer_step_due(owner, ut, now);
}

static const struct twheel_cbound_ops twheel_file_step_ops = {
	.lock	= twheel_file_step_lock,
	.unlock	= twheel_file_step_unlock,
	.clock	= twheel_utimer_step_clock,
	.list	= twheel_utimer_step_list,
	.walked	= twheel_utimer_step_walked,
};

/**
 * twheel_file_clock_step() - follow a step of CLOCK_REALTIME or BOOTTIME
 * @f:		a file that had clock-bound timers
 * @clocks:	the clocks that moved, bits BIT(enum twheel_uclock)
 *
 * Re-arms each timer of @f on those clocks at its deadline converted with
 * the clocks' new offsets, and ends the cancel-on-set ones armed before a
 * CLOCK_REALTIME step; the timers of other clocks are not looked at. A
 * timer that is due on its clock (the step made it due) is delivered here,
 * as its expiry would, not re-armed for the wheel's next tick and a runner:
 * it follows the step as a timerfd does (one whose expiry is in flight
 * already is re-armed, as before, and fires at the next tick). The walk is
 * the core's (twheel_cbound_step()): the file lock is dropped every
 * TWHEEL_LOCK_BUDGET timers, and the clocks are read once per chunk, before
 * its timers are looked at: never later than their delivery, so nothing is
 * delivered early.
 *
 * Context: process context (clock_step.c's work item, through dev_step.c),
 * may sleep.
 * Return: the number of timers re-armed, canceled or delivered.
 */
unsigned long twheel_file_clock_step(struct twheel_file *f,
				     unsigned int clocks)
{
	unsigned long done;
	LIST_HEAD(todo);

	spin_lock(&f->lock);
	twheel_cbound_take(f->clocked, clocks, &todo);
	twheel_cbound_take(f->alarms, clocks, &todo);
	done = twheel_cbound_step(&twheel_file_step_ops, f, &todo, clocks);
	spin_unlock(&f->lock);
	return done;
}

/**
 * twheel_file_alarm_min() - the earliest armed alarm timers of a file
 * @f:		a file that had clock-bound timers
 * @min:	in/out, per alarm clock (twheel_wake_index()): lowered to the
 *		deadline of @f's earliest armed alarm timer on that clock that
 *		is not due yet
 *
 * An alarm timer already due whose expiry has not run yet (a tick or a
 * runner behind) is delivered here, as its callback would: the wake-up
 * from suspend must not be armed for a deadline that has passed
 * (clock_wake.c), and the event is readable before the system sleeps. One hold of the file
 * lock, O(armed alarm timers of @f).
 *
 * Context: process context (clock_step.c's PM notifier or its walk again,
 * through dev_step.c, before suspend).
 * Return: the number of alarm timers walked.
 */
unsigned long twheel_file_alarm_min(struct twheel_file *f, u64 *min)
{
	struct twheel_utimer *ut, *tmp;
	unsigned long n = 0;
	unsigned int c, i;
	u64 now;

	spin_lock(&f->lock);
	/* Test builds: let the alarm timers of @f come due, undelivered. */
	twheel_hook(TWHEEL_HOOK_wake_walk_file);
	for (c = 0; c < TWHEEL_UCLK_BOUND; c++) {
		if (list_empty(&f->alarms[c]))
			continue;
		now = twheel_uclock_now(TWHEEL_UCLK_BOOT + c);
		list_for_each_entry_safe(ut, tmp, &f->alarms[c], cb.link) {
			n++;
			if (ut->cb.deadline <= now) {
				/* Its callback, if running, finds it queued. */
				twheel_timer_cancel(&ut->cb.timer);
				if (!twheel_utimer_was_set(f, ut)) {
					twheel_utimer_queue(f, ut, now);
					twheel_stat_inc(clock_delivered);
				}
				continue;
			}
			i = twheel_wake_index(ut->clock);
			min[i] = min(min[i], ut->cb.deadline);
		}
	}
	spin_unlock(&f->lock);
	return n;
}

/**
 * twheel_file_release_timers() - cancel every timer of a file, free its table
 * @f:	the file, no longer reachable from userspace
 *
 * Context: process context, sleeps.
 * Return: the number of timers the file still held.
 */
unsigned long twheel_file_release_timers(struct twheel_file *f)
{
	struct twheel_utimer *ut;
	unsigned long n = 0;
	u32 slot;

	/* No lookup or grow can race any more: the file is unreachable. */
	for (slot = 0; (ut = twheel_utable_at(f, slot)); slot++) {
		spin_lock(&f->lock);
		if (!ut->dead) {
			twheel_utimer_kill(f, ut);
			n++;
		}
		spin_unlock(&f->lock);
		/*
		 * A dead slot's callback may still be on its way: a one-shot
		 * whose event read() took without waiting, because it was
		 * queued by another path (the walk before suspend) while the
		 * callback had started. Every slot's timer was set up with its
		 * chunk, so waiting on it is always valid, and cheap when idle.
		 */
		twheel_timer_cancel_sync(&ut->cb.timer);
		cond_resched();
	}
	/*
	 * The callback of a one-shot timer freed by read() may still be
	 * inside the file lock: wait for it to leave before the table goes.
	 */
	spin_lock(&f->lock);
	spin_unlock(&f->lock);
	twheel_utable_free(f);
	twheel_uncharge(f, n);
	return n;
}
