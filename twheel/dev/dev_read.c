// SPDX-License-Identifier: GPL-2.0
/*
 * twheel char device: the read side of the timer set of ABI 1: QUERY, and
 * read() of the events the expiry callbacks (dev_timer.c) queue. Reading a
 * periodic timer's event re-arms it; reading a one-shot or canceled one
 * frees it. Locking and lifetime rules are in dev_file.h.
 */
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#include <uapi/linux/twheel.h>
#include "dev_file.h"
#include "dev_utimer.h"

/* Events copied per hold of the file lock by read(). */
#define TWHEEL_READ_CHUNK	TWHEEL_LOCK_BUDGET
/* Events built on the stack and copied out at once by read(). */
#define TWHEEL_READ_BATCH	8
/* Attempts to fault in the buffer of read() before giving up with EFAULT. */
#define TWHEEL_READ_RETRIES	3

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
	twheel_timer_query(&ut->cb.timer, &info);
	now = twheel_uclock_now(ut->clock);

	q->state = 0;
	q->overruns = 0;
	q->deadline = ut->cb.deadline;
	q->period = ut->period;
	q->cookie = ut->cookie;
	q->flags_out = ut->mode == TWHEEL_MODE_FIXED_DELAY ?
		       TWHEEL_ARM_FIXED_DELAY : 0;
	if (ut->cos)
		q->flags_out |= TWHEEL_ARM_CANCEL_ON_SET;
	q->cpu = info.cpu;
	if (info.state != TWHEEL_IDLE)
		q->state |= TWHEEL_STATE_ARMED;
	if (ut->queued) {
		q->state |= TWHEEL_STATE_QUEUED;
		/* A fixed-rate timer keeps running while its event waits. */
		if (ut->mode == TWHEEL_MODE_FIXED_RATE) {
			k = twheel_utimer_skipped(ut, now);
			q->state |= TWHEEL_STATE_ARMED;
			q->overruns = min_t(u64, k, U32_MAX);
			q->deadline = twheel_grid(ut->cb.deadline, k + 1,
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
 * @f:		the file
 * @excl:	the caller registered an exclusive waiter (sets @f->excl)
 *
 * For wait_event() and poll(), after the caller is on the file's wait
 * queue: it looks at the ready list, so the next expiry wakes the queue
 * again (@f->woken). Under the file lock, which orders the look after the
 * wait queue entry and against the expiry callbacks.
 *
 * Context: process context; takes the file lock.
 * Return: true if the ready list is not empty.
 */
bool twheel_file_ready(struct twheel_file *f, bool excl)
{
	bool ready;

	spin_lock(&f->lock);
	f->woken = false;
	if (excl)
		f->excl = true;
	ready = !list_empty(&f->ready);
	spin_unlock(&f->lock);
	return ready;
}

/*
 * Build the record of @ut's queued event and consume it. A one-shot timer is
 * killed and its slot freed; a canceled one is moved to @reap (freed by the
 * caller once its callback is done, after unlocking); a periodic
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
		ev->deadline = ut->cb.deadline;
		ev->expired = ut->expired;
		ev->flags = TWHEEL_EVENT_CANCELED;
		return;
	}
	ev->deadline = twheel_grid(ut->cb.deadline, k, ut->period);
	/*
	 * When the wheel fired it, as the callback read its clock: never
	 * clamped, so that an early expiry shows. A fixed-rate event that
	 * coalesced deadlines passed while it waited reports the last of
	 * them, seen passed now.
	 */
	ev->expired = k ? now : ut->expired;
	ev->overruns = min_t(u64, k, U32_MAX);
	if (ut->mode != TWHEEL_MODE_ONESHOT)
		ev->flags = TWHEEL_EVENT_PERIODIC;
}

/*
 * The time of @ut's clock for its event: only a periodic timer's needs it
 * (its overruns, its next deadline). A one-shot or canceled timer's record
 * is what its callback or cancel stored, so no clock is read for it (0).
 */
static u64 twheel_event_now(const struct twheel_utimer *ut)
{
	if (ut->canceled || ut->mode == TWHEEL_MODE_ONESHOT)
		return 0;
	return twheel_uclock_now(ut->clock);
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

/*
 * Consume @ut's queued event, whose record (for @deadline, built at @now) is
 * in the reader's buffer: see twheel_utimer_event().
 */
static void twheel_read_one(struct twheel_file *f, struct twheel_utimer *ut,
			    u64 deadline, u64 now, struct list_head *reap,
			    unsigned long *nr_freed)
{
	u64 next;

	if (ut->canceled) {
		twheel_utimer_kill(f, ut);
		list_add_tail(&ut->cb.link, reap);
		return;
	}
	if (ut->mode == TWHEEL_MODE_ONESHOT) {
		/* Its callback queued this event: it never touches @ut again. */
		twheel_utimer_kill(f, ut);
		twheel_utable_push(f, ut);
		(*nr_freed)++;
		return;
	}
	twheel_utimer_unqueue(ut);
	switch (ut->mode) {
	case TWHEEL_MODE_FIXED_RATE:
		next = twheel_grid(deadline, 1, ut->period);
		break;
	default:
		next = twheel_deadline_after(now, ut->period);
		break;
	}
	ut->cb.deadline = next;
	/* Keep the CPU; if it went away meanwhile, take the local one. */
	twheel_cbound_rearm(&ut->cb, ut->clock);
	twheel_utimer_bind(f, ut);
}

/*
 * Copy the records of the first @max (1..TWHEEL_READ_BATCH) queued events to
 * @ubuf in one copy (page faults disabled), then consume them: none is
 * consumed unless all of them are in @ubuf. File lock held.
 *
 * Return: the number of records copied (0 if none is queued), or -EFAULT.
 */
static int twheel_read_batch(struct twheel_file *f, char __user *ubuf,
			     unsigned int max, struct list_head *reap,
			     unsigned long *nr_freed)
{
	struct twheel_event uev[TWHEEL_READ_BATCH], ev;
	u64 deadline[TWHEEL_READ_BATCH], now[TWHEEL_READ_BATCH];
	struct twheel_utimer *ut;
	unsigned int n = 0, i;

	list_for_each_entry(ut, &f->ready, cb.link) {
		if (n == max)
			break;
		now[n] = twheel_event_now(ut);
		twheel_utimer_event(ut, now[n], &ev);
		deadline[n] = ev.deadline;
		twheel_event_to_user(ut, &ev, &uev[n]);
		n++;
	}
	if (!n)
		return 0;
	if (copy_to_user_nofault(ubuf, uev, n * sizeof(uev[0])))
		return -EFAULT;
	/* Each one consumed leaves the head of the ready list. */
	for (i = 0; i < n; i++) {
		ut = list_first_entry(&f->ready, struct twheel_utimer, cb.link);
		twheel_read_one(f, ut, deadline[i], now[i], reap, nr_freed);
	}
	return n;
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
	unsigned long nr_freed = 0;
	int retries = 0, n;
	size_t done = 0;
	LIST_HEAD(reap);
	bool fault = false;

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
		/* A read looks: the next expiry wakes (twheel_utimer_queue()). */
		f->woken = false;
		while (done - start < chunk) {
			n = min_t(size_t, (chunk - (done - start)) / rec,
				  TWHEEL_READ_BATCH);
			n = twheel_read_batch(f, buf + done, n, &reap,
					      &nr_freed);
			if (n < 0) {
				fault = true;
				break;
			}
			if (!n)
				break;
			done += n * rec;
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

	/* A canceled timer's callback may still be on its way. */
	list_for_each_entry(ut, &reap, cb.link)
		twheel_timer_cancel_sync(&ut->cb.timer);
	if (!list_empty(&reap)) {
		spin_lock(&f->lock);
		list_for_each_entry_safe(ut, tmp, &reap, cb.link) {
			list_del_init(&ut->cb.link);
			twheel_utable_push(f, ut);
			nr_freed++;
		}
		spin_unlock(&f->lock);
	}
	if (nr_freed)
		twheel_uncharge(f, nr_freed);
	if (!done && fault)
		return -EFAULT;
	return done;
}
