// SPDX-License-Identifier: GPL-2.0
/*
 * twheel char device: the timer set of one open file of /dev/twheel.
 *
 * Each userspace timer is a struct twheel_utimer embedding an in-kernel
 * struct twheel_timer, armed one-shot. Its expiry callback queues the timer's
 * event on the file's ready list; read() consumes it and re-arms a periodic
 * timer (enum twheel_umode). So at most one event per timer is queued, and a
 * fixed-rate timer whose reader is late reports the periods that passed as
 * overruns of that one event. Locking and lifetime rules are in dev_file.h.
 */
#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <uapi/linux/twheel.h>
#include "dev_file.h"

/* Events copied per hold of the file lock by read(). */
#define TWHEEL_READ_CHUNK	64
/* Clock-bound timers re-armed per hold of the file lock by a clock step. */
#define TWHEEL_STEP_CHUNK	64
/* Attempts to fault in the buffer of read() before giving up with EFAULT. */
#define TWHEEL_READ_RETRIES	3

static struct kmem_cache *twheel_utimer_cache;

/*
 * Fixed rate: deadlines of @ut's grid after its queued event's that passed by
 * @now. The event reports the last of them, the count as its overruns.
 */
static u64 twheel_utimer_skipped(const struct twheel_utimer *ut, u64 now)
{
	if (ut->mode != TWHEEL_UMODE_RATE || now < ut->deadline)
		return 0;
	return div64_u64(now - ut->deadline, ut->period);
}

/* @deadline + @k * @period, saturated. */

static u64 twheel_grid(u64 deadline, u64 k, u64 period)
{
	u64 off;

	if (check_mul_overflow(k, period, &off))
		return KTIME_MAX;
	return twheel_deadline_after(deadline, off);
}

static struct twheel_utimer *twheel_file_lookup(struct twheel_file *f, u64 id)
{
	lockdep_assert_held(&f->lock);

	if (!id || id > TWHEEL_ID_MAX)
		return NULL;
	return xa_load(&f->timers, id);
}

/*
 * Release @ut's id and drop its queued event; callbacks ignore it from now
 * on. Returns 1 if an event was queued.
 */
static int twheel_utimer_kill(struct twheel_file *f, struct twheel_utimer *ut)
{
	int was_queued = ut->queued;

	lockdep_assert_held(&f->lock);

	xa_erase(&f->timers, ut->id);
	ut->dead = 1;
	/* Off the ready list, or the clocked list. */
	list_del_init(&ut->link);
	ut->queued = 0;
	return was_queued;
}

static void twheel_utimer_unqueue(struct twheel_utimer *ut)
{
	list_del_init(&ut->link);
	ut->queued = 0;
	ut->canceled = 0;
}

static void twheel_utimer_set_mode(struct twheel_utimer *ut,
				   const struct twheel_req *req)
{
	ut->deadline = req->own;
	ut->period = req->period;
	ut->mode = req->mode;
	ut->clock = req->clock;
	ut->cos = req->cos;
}

/* @ut's deadline converted to the wheel's clock, now ("Clocks"). */
static u64 twheel_utimer_mono(const struct twheel_utimer *ut)
{
	return twheel_uclock_to_mono(ut->clock, ut->deadline);
}

/*
 * @ut was just armed in the wheel (file lock held): a clock-bound timer goes
 * on the clocked list for clock steps to find.
 */
static void twheel_utimer_bind(struct twheel_file *f, struct twheel_utimer *ut)
{
	if (ut->clock == TWHEEL_UCLK_MONO)
		list_del_init(&ut->link);
	else
		list_move_tail(&ut->link, &f->clocked);
}

/* Re-arm @ut at @mono on its CPU; if it went away meanwhile, the local one. */
static void twheel_utimer_rearm(struct twheel_utimer *ut, u64 mono)
{
	if (twheel_modify(&ut->timer, mono, 0, TWHEEL_ABS) < 0)
		twheel_arm_on(&ut->timer, mono, 0, TWHEEL_ABS, TWHEEL_CPU_ANY);
}

/* Queue @ut's event (file lock held) and wake the readers. */
static void twheel_utimer_queue(struct twheel_file *f, struct twheel_utimer *ut,
				u64 expired)
{
	ut->expired = expired;
	ut->queued = 1;
	list_move_tail(&ut->link, &f->ready);
	/* Pairs with the barrier in prepare_to_wait() / poll. */
	if (wq_has_sleeper(&f->wq))
		wake_up(&f->wq);
}

/*
 * Cancel-on-set: CLOCK_REALTIME was set since @ut was armed (its offset
 * then is in @expired). End the timer with a canceled event; read() waits
 * for a callback that may still run before it frees @ut.
 */
static bool twheel_utimer_was_set(struct twheel_file *f,
				  struct twheel_utimer *ut)
{
	if (!ut->cos || (s64)ut->expired == twheel_uclock_offs(TWHEEL_UCLK_REAL))
		return false;
	twheel_cancel(&ut->timer);
	ut->canceled = 1;
	twheel_utimer_queue(f, ut, twheel_uclock_now(TWHEEL_UCLK_REAL));
	return true;
}

/*
 * Expiry callback, in the twheel workqueue: queue the event. The file cannot
 * go away while this runs before the file lock is dropped: release
 * cancel_syncs every timer still in the xarray and takes the lock once more
 * before freeing the file, and a timer leaves the xarray only under the lock.
 * Nothing of @ut or of the file is touched after the unlock (a read() may
 * free a one-shot @ut then).
 */
static void twheel_utimer_fire(struct twheel_timer *t)
{
	struct twheel_utimer *ut = container_of(t, struct twheel_utimer, timer);
	struct twheel_file *f = ut->file;
	u64 now;

	spin_lock(&f->lock);
	/*
	 * Cancelled, or re-armed by MODIFY or a clock step after this expiry
	 * began (the state is stable: they set it under the file lock we now
	 * hold).
	 */
	if (ut->dead || ut->queued || twheel_pending(t))
		goto out;
	if (twheel_utimer_was_set(f, ut))
		goto out;
	now = twheel_uclock_now(ut->clock);
	/* Its clock was set back since it was armed: not due yet. */
	if (now < ut->deadline) {
		twheel_utimer_rearm(ut, twheel_utimer_mono(ut));
		goto out;
	}
	twheel_utimer_queue(f, ut, max(now, ut->deadline));
out:
	spin_unlock(&f->lock);
}

/**
 * twheel_file_init() - set up the timer set of a new open file
 * @f:	zeroed file state
 */
void twheel_file_init(struct twheel_file *f)
{
	spin_lock_init(&f->lock);
	xa_init_flags(&f->timers, XA_FLAGS_ACCOUNT);
	INIT_LIST_HEAD(&f->ready);
	init_waitqueue_head(&f->wq);
	INIT_LIST_HEAD(&f->clocked);
	INIT_LIST_HEAD(&f->step_link);
	atomic_long_set(&f->nr, 0);
	atomic64_set(&f->next_id, 0);
}

/**
 * twheel_file_arm() - create and arm a timer
 * @f:		the file
 * @req:	checked request
 * @idp:	out: the new id
 *
 * Context: process context, may sleep; file lock not held.
 * Return: 0, -ENOSPC (a cap), -ENOMEM, or an error of twheel_arm_on().
 */
int twheel_file_arm(struct twheel_file *f, const struct twheel_req *req,
		    u64 *idp)
{
	struct twheel_utimer *ut;
	u64 id;
	int ret;

	ret = twheel_charge(f);
	if (ret)
		return ret;
	id = atomic64_inc_return(&f->next_id);
	ret = -ENOSPC;
	if (id > TWHEEL_ID_MAX)
		goto uncharge;
	ret = -ENOMEM;
	ut = kmem_cache_alloc(twheel_utimer_cache, GFP_KERNEL);
	if (!ut)
		goto uncharge;
	/* Reserve the slot now: storing into it under the lock allocates nothing. */
	ret = xa_reserve(&f->timers, id, GFP_KERNEL);
	if (ret)
		goto free;

	twheel_timer_init(&ut->timer, twheel_utimer_fire);
	ut->file = f;
	INIT_LIST_HEAD(&ut->link);
	ut->cookie = req->cookie;
	ut->id = id;
	ut->queued = 0;
	ut->dead = 0;
	ut->canceled = 0;
	twheel_utimer_set_mode(ut, req);

	spin_lock(&f->lock);
	ret = xa_err(xa_store(&f->timers, id, ut, GFP_NOWAIT));
	if (!ret) {
		/* The offset before the conversion: a step in between cancels. */
		ut->expired = twheel_uclock_offs(TWHEEL_UCLK_REAL);
		ret = twheel_arm_on(&ut->timer, twheel_utimer_mono(ut), 0,
				    TWHEEL_ABS, req->cpu);
		if (ret < 0)
			xa_erase(&f->timers, id);
		else
			twheel_utimer_bind(f, ut);
	}
	spin_unlock(&f->lock);
	if (ret < 0) {
		xa_release(&f->timers, id);
		goto free;
	}
	*idp = id;
	return 0;

free:
	kmem_cache_free(twheel_utimer_cache, ut);
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
 * Context: process context, sleeps (twheel_cancel_sync()).
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
	spin_unlock(&f->lock);

	if (twheel_cancel_sync(&ut->timer) > 0)
		ret = 1;
	kmem_cache_free(twheel_utimer_cache, ut);
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
 * its event (twheel_utimer_fire()).
 *
 * Return: 1 if the timer was armed or had an unread event, 0 if not,
 * -ENOENT, or an error of twheel_modify().
 */
int twheel_file_modify(struct twheel_file *f, u64 id,
		       const struct twheel_req *req)
{
	struct twheel_utimer *ut;
	int ret;

	spin_lock(&f->lock);
	ut = twheel_file_lookup(f, id);
	if (!ut) {
		ret = -ENOENT;
		goto unlock;
	}
	ret = twheel_modify(&ut->timer,
			    twheel_uclock_to_mono(req->clock, req->own), 0,
			    TWHEEL_ABS);
	if (ret < 0)
		goto unlock;
	if (ut->queued) {
		twheel_utimer_unqueue(ut);
		ret = 1;
	}
	ut->expired = twheel_uclock_offs(TWHEEL_UCLK_REAL);
	twheel_utimer_set_mode(ut, req);
	twheel_utimer_bind(f, ut);
unlock:
	spin_unlock(&f->lock);
	return ret;
}

/**
 * twheel_file_query() - fill the output fields of a query
 * @f:	the file
 * @q:	query, @q->id set
 *
 * @q->state has TWHEEL_STATE_ARMED if the kernel timer is armed (or its
 * periodic callback is running and will re-arm it), and TWHEEL_STATE_QUEUED
 * if an event is unread: a fixed-rate timer can be both.
 *
 * Return: 0 or -ENOENT.
 */
int twheel_file_query(struct twheel_file *f, struct twheel_query *q)
{
	struct twheel_timer_info info;
	struct twheel_utimer *ut;
	u64 now, k;

	spin_lock(&f->lock);
	ut = twheel_file_lookup(f, q->id);
	if (!ut) {
		spin_unlock(&f->lock);
		return -ENOENT;
	}
	twheel_query(&ut->timer, &info);
	now = twheel_uclock_now(ut->clock);

	q->state = 0;
	q->overruns = 0;
	q->deadline = ut->deadline;
	q->period = ut->period;
	q->cookie = ut->cookie;
	q->flags_out = ut->mode == TWHEEL_UMODE_DELAY ?
		       TWHEEL_ARM_FIXED_DELAY : 0;
	if (ut->cos)
		q->flags_out |= TWHEEL_ARM_CANCEL_ON_SET;
	q->cpu = info.cpu;
	if (info.state != TWHEEL_STATE_IDLE)
		q->state |= TWHEEL_STATE_ARMED;
	if (ut->queued) {
		q->state |= TWHEEL_STATE_QUEUED;
		/* A fixed-rate timer keeps running while its event waits. */
		if (ut->mode == TWHEEL_UMODE_RATE) {
			k = twheel_utimer_skipped(ut, now);
			q->state |= TWHEEL_STATE_ARMED;
			q->overruns = min_t(u64, k, U32_MAX);
			q->deadline = twheel_grid(ut->deadline, k + 1,
						  ut->period);
		}
	}
	q->remaining = q->deadline > now ? q->deadline - now : 0;
	q->deadline = twheel_uclock_to_user(ut->clock, q->deadline);
	spin_unlock(&f->lock);
	return 0;
}

/**
 * twheel_file_ready() - does the file have an unread event?
 * @f:	the file
 *
 * Lockless, for wait_event() and poll(); the callback's wq_has_sleeper()
 * barrier pairs with the waiter's.
 *
 * Return: true if the ready list is not empty.
 */
bool twheel_file_ready(struct twheel_file *f)
{
	return !list_empty_careful(&f->ready);
}

/*
 * Build the record of @ut's queued event and consume it. A one-shot timer is
 * killed and moved to @reap (freed by the caller after unlocking); a periodic
 * one is re-armed on its CPU: fixed rate at the next deadline of its grid
 * after @now (the deadlines passed meanwhile are the event's overruns), fixed
 * delay one period after @now.
 */
static void twheel_utimer_event(const struct twheel_utimer *ut, u64 now,
				struct twheel_event *ev)
{
	u64 k = twheel_utimer_skipped(ut, now);

	memset(ev, 0, sizeof(*ev));
	ev->id = ut->id;
	ev->cookie = ut->cookie;
	if (ut->canceled) {
		ev->deadline = ut->deadline;
		ev->expired = ut->expired;
		ev->flags = TWHEEL_EVENT_CANCELED;
		return;
	}
	ev->deadline = twheel_grid(ut->deadline, k, ut->period);
	ev->expired = max(ut->expired, ev->deadline);
	ev->overruns = min_t(u64, k, U32_MAX);
	if (ut->mode != TWHEEL_UMODE_ONESHOT)
		ev->flags = TWHEEL_EVENT_PERIODIC;
}

/* @ev with its times as the reader's time namespace sees them. */
static void twheel_event_to_user(const struct twheel_utimer *ut,
				 const struct twheel_event *ev,
				 struct twheel_event *uev)
{
	*uev = *ev;
	uev->deadline = twheel_uclock_to_user(ut->clock, ev->deadline);
	uev->expired = twheel_uclock_to_user(ut->clock, ev->expired);
}

static void twheel_read_one(struct twheel_file *f, struct twheel_utimer *ut,
			    const struct twheel_event *ev, u64 now,
			    struct list_head *reap)
{
	u64 next;

	if (ut->canceled || ut->mode == TWHEEL_UMODE_ONESHOT) {
		twheel_utimer_kill(f, ut);
		list_add_tail(&ut->link, reap);
		return;
	}
	twheel_utimer_unqueue(ut);
	switch (ut->mode) {
	case TWHEEL_UMODE_RATE:
		next = twheel_grid(ev->deadline, 1, ut->period);
		break;
	default:
		next = twheel_deadline_after(now, ut->period);
		break;
	}
	ut->deadline = next;
	/* Keep the CPU; if it went away meanwhile, take the local one. */
	twheel_utimer_rearm(ut, twheel_utimer_mono(ut));
	twheel_utimer_bind(f, ut);
}

/**
 * twheel_file_read() - copy and consume queued events, without blocking
 * @f:		the file
 * @buf:	user buffer
 * @count:	its size, at least one record
 *
 * Events are copied with page faults disabled under the file lock, after
 * faulting the buffer in, so an event is consumed only once it is in the
 * user's buffer: a bad buffer loses no event.
 *
 * Return: bytes copied (whole records), 0 if no event is queued, or -EFAULT
 * if none could be copied because of @buf.
 */
ssize_t twheel_file_read(struct twheel_file *f, char __user *buf,
			 size_t count)
{
	const size_t rec = sizeof(struct twheel_event);
	struct twheel_utimer *ut, *tmp;
	struct twheel_event ev, uev;
	unsigned long nr_reap = 0;
	int retries = 0;
	size_t done = 0;
	LIST_HEAD(reap);
	bool fault = false;
	u64 now;

	while (count - done >= rec) {
		size_t chunk = min(count - done, TWHEEL_READ_CHUNK * rec);
		size_t start = done;
		bool empty;

		/* Only what could be faulted in: the copies below cannot sleep. */
		chunk -= fault_in_writeable(buf + done, chunk);
		chunk -= chunk % rec;
		if (!chunk) {
			fault = true;
			break;
		}
		spin_lock(&f->lock);
		while (done - start < chunk) {
			ut = list_first_entry_or_null(&f->ready,
						      struct twheel_utimer,
						      link);
			if (!ut)
				break;
			now = twheel_uclock_now(ut->clock);
			twheel_utimer_event(ut, now, &ev);
			twheel_event_to_user(ut, &ev, &uev);
			if (copy_to_user_nofault(buf + done, &uev, rec)) {
				fault = true;
				break;
			}
			done += rec;
			twheel_read_one(f, ut, &ev, now, &reap);
		}
		empty = list_empty(&f->ready);
		spin_unlock(&f->lock);

		if (empty || count - done < rec)
			break;
		if (fault) {
			if (done == start && ++retries > TWHEEL_READ_RETRIES)
				break;
			fault = false;
		}
		cond_resched();
	}

	list_for_each_entry_safe(ut, tmp, &reap, link) {
		/* A canceled timer's callback may still be on its way. */
		if (ut->canceled)
			twheel_cancel_sync(&ut->timer);
		kmem_cache_free(twheel_utimer_cache, ut);
		nr_reap++;
	}
	if (nr_reap)
		twheel_uncharge(f, nr_reap);
	if (!done && fault)
		return -EFAULT;
	return done;
}

/**
 * twheel_file_clock_step() - follow a step of CLOCK_REALTIME or BOOTTIME
 * @f:	a file that had clock-bound timers
 *
 * Re-arms each clock-bound timer of @f at its deadline converted with the
 * clocks' new offsets (a timer now due fires at the next tick), and ends
 * the cancel-on-set ones armed before a CLOCK_REALTIME step. The file lock
 * is dropped every TWHEEL_STEP_CHUNK timers; timers armed meanwhile use
 * the new offsets already, timers that fire or go meanwhile leave @todo.
 *
 * Context: process context (dev_step.c's work item), may sleep.
 * Return: the number of timers re-armed or canceled.
 */
unsigned long twheel_file_clock_step(struct twheel_file *f)
{
	struct twheel_utimer *ut;
	unsigned long done = 0;
	LIST_HEAD(todo);
	unsigned int n;

	spin_lock(&f->lock);
	list_splice_init(&f->clocked, &todo);
	while (!list_empty(&todo)) {
		for (n = 0; n < TWHEEL_STEP_CHUNK && !list_empty(&todo); n++) {
			ut = list_first_entry(&todo, struct twheel_utimer, link);
			done++;
			if (twheel_utimer_was_set(f, ut))
				continue;
			list_move_tail(&ut->link, &f->clocked);
			twheel_utimer_rearm(ut, twheel_utimer_mono(ut));
		}
		spin_unlock(&f->lock);
		cond_resched();
		spin_lock(&f->lock);
	}
	spin_unlock(&f->lock);
	return done;
}

/**
 * twheel_file_release_timers() - cancel and free every timer of a file
 * @f:	the file, no longer reachable from userspace
 *
 * Context: process context, sleeps.
 * Return: the number of timers the file still held.
 */
unsigned long twheel_file_release_timers(struct twheel_file *f)
{
	struct twheel_utimer *ut;
	unsigned long id, n = 0;

	/* No lookup can race any more: the ids go with xa_destroy() below. */
	xa_for_each(&f->timers, id, ut) {
		spin_lock(&f->lock);
		ut->dead = 1;
		twheel_utimer_unqueue(ut);
		spin_unlock(&f->lock);
		twheel_cancel_sync(&ut->timer);
		kmem_cache_free(twheel_utimer_cache, ut);
		n++;
		cond_resched();
	}
	/*
	 * The callback of a one-shot timer freed by read() may still be
	 * inside the file lock: wait for it to leave before @f is freed.
	 */
	spin_lock(&f->lock);
	spin_unlock(&f->lock);
	xa_destroy(&f->timers);
	twheel_uncharge(f, n);
	return n;
}

/**
 * twheel_dev_timers_init() - create the timer cache
 *
 * Return: 0 or -ENOMEM.
 */
int twheel_dev_timers_init(void)
{
	BUILD_BUG_ON(IS_ENABLED(CONFIG_64BIT) &&
		     sizeof(struct twheel_utimer) > 128);

	/* SLAB_ACCOUNT: timers are charged to the memcg of their creator. */
	twheel_utimer_cache = KMEM_CACHE(twheel_utimer, SLAB_ACCOUNT);
	return twheel_utimer_cache ? 0 : -ENOMEM;
}

/**
 * twheel_dev_timers_exit() - free what twheel_dev_timers_init() set up
 *
 * Every file must be closed (the module cannot be unloaded before).
 */
void twheel_dev_timers_exit(void)
{
	kmem_cache_destroy(twheel_utimer_cache);
}
