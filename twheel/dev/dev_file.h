/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel char device internals: the per-open timer set behind /dev/twheel.
 *
 * dev.c is the misc device (open, release, read, poll, mmap), dev_ioctl.c
 * the ioctl ABI (copying and checking the uapi structures, batches),
 * dev_step.c the reaction to clock steps (see "Clocks"), dev_read.c QUERY
 * and read() of the timer set of ABI 1, dev_timer.c that timer set (arm,
 * modify, cancel, the expiry callback and the ready list; helpers shared
 * with dev_read.c in dev_utimer.h), dev_idtable.c the table its timers live
 * in (see "Table"), dev_steplist.c the files with clock-bound timers that
 * dev_step.c walks, dev_ring_table.c the timer table and bulk
 * submission of the ring ABI, dev_ring.c its completion ring (design in
 * dev_ring.h), dev_req.c the checks shared by arms and modifies, dev_caps.c
 * the caps on timers and their module parameters, dev_clock.c the time
 * namespaces. Each file uses only those after it in this list, and the
 * clocks layer under the in-kernel API (clock.h).
 *
 * Locking
 * -------
 * twheel_file.lock (a spinlock, never taken in hard or soft interrupt
 * context) protects the table (its directory, free list and the ids of its
 * slots), the ready list and every mutable field of the file's timers. It
 * is taken by ioctls, read(), poll() and by the expiry callbacks, which run
 * in process context (the twheel workqueue). Lock order:
 * twheel_callback_map (lockdep) -> file lock -> twheel base lock (inside
 * twheel_timer_arm_on()/twheel_timer_modify()/...) and file lock -> wait queue
 * lock. No allocation happens under it. twheel_timer_cancel_sync() may sleep
 * and waits for callbacks, which take the file lock: it is never called with
 * the file lock held.
 *
 * Table
 * -----
 * A file's timers are the slots of its table (dev_idtable.c): chunks of
 * TWHEEL_UCHUNK timers (a page on 64-bit) allocated, and charged to the
 * memory cgroup, only when no slot is free, and kept until the last close.
 * An arm takes a free slot and a cancel or the read of a one-shot event
 * gives it back: O(1), no allocation, no tree. An id is the slot number
 * plus one in its low TWHEEL_USLOT_BITS bits, the slot's generation above:
 * a lookup is an index and a compare. A slot whose generations run out is
 * retired, so ids are never reused while the file lives (uapi), and a file
 * holds at most TWHEEL_USLOT_MAX timers.
 *
 * Lifetime
 * --------
 * A timer lives while @dead is clear. Releasing the id (cancel, read of a
 * one-shot event, last close) happens under the file lock together with
 * setting @dead and unlinking the queued event, so a callback that gets the
 * lock afterwards does nothing. Before the slot is freed (or reused) the
 * timer is stopped with twheel_timer_cancel_sync() (cancel, close) or, for a
 * one-shot timer whose event was read, its callback has already queued that
 * event and never touches the timer after dropping the file lock. Its runner
 * may still hold the timer as running then, so a slot's kernel timer is set
 * up once, with its chunk, and never again: an arm of the reused slot finds
 * it running and takes effect when the callback returns.
 *
 * Clocks
 * ------
 * Every timer sits in the CLOCK_MONOTONIC wheel. A timer on CLOCK_REALTIME
 * or CLOCK_BOOTTIME ("clock-bound", enum twheel_uclock of clock.h) is a
 * clock-bound timer of the clocks layer's core (@cb, struct twheel_cbound,
 * clock_timer.c: the logic is there, once, for the in-kernel clock timers
 * too), with the file lock as its owner's lock: its deadline on its own
 * clock is @cb.deadline, it is armed in the wheel at that deadline minus
 * the clock's current offset from CLOCK_MONOTONIC, read under the file
 * lock, and its expiry callback has the core re-check its clock: if the
 * clock was set back meanwhile it is not due, and it is re-armed at the new
 * conversion instead of queuing an event (O(1); never early). While armed
 * and not queued it is linked on @file->clocked (by @cb.link, which is on
 * @file->ready while queued), one list per clock. A clock step (noticed by
 * clock_step.c, which calls dev_step.c's client from its work item) has the
 * core walk the timers on the lists of the clocks whose offset moved, in
 * the files that have clock-bound timers (a file goes on dev_steplist.c's
 * list when it binds one, and a walk takes it off when it has none left),
 * TWHEEL_LOCK_BUDGET timers per hold of the file lock: O(timers on the
 * clocks that moved), nothing for the others (a CLOCK_REALTIME step leaves
 * the CLOCK_BOOTTIME timers alone), nothing for idle files. What the device
 * adds to the core's walk (its ->walked): a timer the step made due is
 * delivered by the walk itself, its event queued as its expiry would,
 * rather than re-armed for the wheel's next tick and a runner; and
 * cancel-on-set. Cancel-on-set timers keep the
 * CLOCK_REALTIME offset they were armed with in @real_offs and end with
 * a canceled event when it changed. Lock order: twheel_step_clients_lock ->
 * twheel_step_mutex -> file lock -> base lock, and file lock ->
 * twheel_step_lock.
 *
 * Alarms
 * ------
 * A timer armed on CLOCK_REALTIME_ALARM (relative or absolute, as for
 * timerfd) is a CLOCK_REALTIME timer, one on CLOCK_BOOTTIME_ALARM a
 * CLOCK_BOOTTIME one, with @alarm set: everything above applies, and while
 * armed and not queued it is linked on @file->alarms instead of
 * @file->clocked (again one list per clock). A clock step walks both kinds
 * of list. In addition, suspend must end by its deadline: clock_wake.c keeps
 * one struct alarm per alarm clock for the module (two in all, whatever the
 * number of timers), never later than the earliest armed alarm timer not due
 * yet, and never armed for a time that has passed. An arm updates it in
 * O(1), and only if it makes it earlier; cancels, modifies and expiries do
 * not touch it (it may be early: a spurious wake, harmless). At
 * PM_SUSPEND_PREPARE dev_step.c (called by clock_step.c) walks the @alarms
 * lists of the files (O(armed alarm timers), each file's under its lock in
 * one hold), delivers the alarm timers already due whose expiry has not run
 * and sets the struct alarms exactly at the earliest other one; if one
 * expires before the system sleeps, the suspend is aborted
 * (pm_system_wakeup()) and the walk runs again. After the wake, resume is a
 * step of CLOCK_BOOTTIME and CLOCK_REALTIME, which fires what is due. Lock
 * order: twheel_step_clients_lock -> twheel_step_mutex -> file lock ->
 * twheel_wake_lock -> alarmtimer base lock. Alarm clocks need
 * CAP_WAKE_ALARM, as for timerfd.
 */
#ifndef _TWHEEL_DEV_FILE_H
#define _TWHEEL_DEV_FILE_H

#include <linux/atomic.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/spinlock.h>
#include <linux/twheel.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "clock/clock.h"

struct file;
struct twheel_query;
struct twheel_table;
struct twheel_user;

/* Ids are stored in 55 bits of struct twheel_utimer ("Table"). */
#define TWHEEL_ID_BITS		55
#define TWHEEL_ID_MAX		((1ULL << TWHEEL_ID_BITS) - 1)
/* The slot number plus one, in the low bits of an id. */
#define TWHEEL_USLOT_BITS	24
/* Timers per chunk of the table, and the most slots and chunks of a file. */
#define TWHEEL_UCHUNK		(PAGE_SIZE / sizeof(struct twheel_utimer))
#define TWHEEL_USLOT_MAX	((1U << TWHEEL_USLOT_BITS) - 1)
#define TWHEEL_UCHUNKS_MAX	((u32)(TWHEEL_USLOT_MAX / TWHEEL_UCHUNK))

/*
 * struct twheel_utimer.mode is the enum twheel_mode of the in-kernel API,
 * with the event's read in the place of the callback's return: a fixed-delay
 * timer is re-armed one period after the read, a fixed-rate one on the grid
 * of deadlines, a one-shot one is freed once its event is read. The kernel
 * timer of every mode is one-shot: a periodic timer is re-armed when its
 * event is read, as timerfd forwards its hrtimer at read(). A reader that
 * falls behind thus costs one expiry per read, not one per period, and the
 * overruns of a fixed-rate timer are counted from the clock when its event
 * is read.
 */

/**
 * struct twheel_file - the timer set of one open file
 * @lock:	protects everything below but @nr (see above)
 * @uchunks:	the table's directory: @uchunks_cap chunk pointers, the
 *		first @nr_uchunks set ("Table")
 * @ufree:	its free slots (by their @link)
 * @nr_uchunks:	chunks of the table
 * @uchunks_cap: size of @uchunks
 * @ready:	timers with a queued event, oldest first
 * @wq:		readers and pollers wait here for @ready to become non-empty
 * @nr:		timers alive in this file (charged against the caps)
 * @table:	the timer table and completion ring, NULL until
 *		TWHEEL_IOC_RING_SETUP (set once, then constant)
 * @user:	the opener's count against max_timers_per_user (dev_caps.c);
 *		constant
 * @clocked:	clock-bound timers armed and not queued (see "Clocks"),
 *		but alarm timers; per clock (twheel_utimer_list())
 * @alarms:	alarm timers armed and not queued (see "Alarms"), per clock
 * @step_link:	link in dev_steplist.c's list of files with clock-bound
 *		timers, or in a walk's (dev_step.c)
 * @stepped:	on one of those (changes under the file lock and
 *		twheel_step_lock)
 * @woken:	an expiry woke @wq and no reader or poller has looked at
 *		@ready since (twheel_file_ready(), twheel_file_read()): the
 *		expiries meanwhile need not wake it again while @ready is
 *		not empty, unless @excl
 * @excl:	an exclusive waiter (EPOLLEXCLUSIVE) registered on @wq once:
 *		a wake-up wakes one of those only, which may never look
 *		(its epoll was closed, or its task killed, before it
 *		collected), so every expiry wakes @wq from then on
 */
struct twheel_file {
	spinlock_t		lock;	/* see "Locking" above */
	struct twheel_utimer	**uchunks;
	struct list_head	ufree;
	u32			nr_uchunks;
	u32			uchunks_cap;
	struct list_head	ready;
	wait_queue_head_t	wq;
	atomic_long_t		nr;
	struct twheel_table	*table;
	struct twheel_user	*user;
	struct list_head	clocked[TWHEEL_UCLK_BOUND];
	struct list_head	alarms[TWHEEL_UCLK_BOUND];
	struct list_head	step_link;
	bool			stepped;
	bool			woken;
	bool			excl;
};

/**
 * struct twheel_utimer - one userspace timer (128 bytes on 64-bit)
 * @cb:		the clock-bound timer of the core (clock.h) on @clock, on
 *		CLOCK_MONOTONIC too: @cb.timer, the in-kernel timer (always
 *		one-shot, see @mode); @cb.link, in @file->ready while
 *		@queued, else in @file->clocked (@file->alarms if @alarm)
 *		while a clock-bound timer is armed, in @file->ufree while the
 *		slot is free; @cb.deadline, the deadline the kernel timer is
 *		(or was last) armed for, ns on @clock (host time), the
 *		deadline of the queued event, which a fixed-rate timer moves
 *		forward on its grid when it is read
 * @file:	the file holding it
 * @cookie:	user cookie, echoed in events
 * @expired:	when the queued event fired, ns on @clock
 * @real_offs:	while armed with @cos (and no event queued), the
 *		CLOCK_REALTIME offset at arm time; shares @expired's storage
 * @period:	period in ns, 0 for one-shot
 * @id:		the id; while @dead, the slot's next id (changes under
 *		@file->lock)
 * @mode:	enum twheel_mode
 * @queued:	an event is on @file->ready
 * @dead:	the id was released, or the slot is free: callbacks and
 *		lookups ignore the timer
 * @clock:	enum twheel_uclock
 * @cos:	TWHEEL_ARM_CANCEL_ON_SET
 * @canceled:	the queued event is a TWHEEL_EVENT_CANCELED one; once
 *		@dead, an expiry in flight was discarded by the cancel
 * @alarm:	armed on an alarm clock: wakes the system (see "Alarms")
 *
 * All but @cb.timer and @file (constant) change under @file->lock only.
 */
struct twheel_utimer {
	struct twheel_cbound	cb;
	struct twheel_file	*file;
	u64			cookie;
	union {
		u64		expired;
		s64		real_offs;
	};
	u64			period;
	u64			id:TWHEEL_ID_BITS;
	u64			mode:2;
	u64			queued:1;
	u64			dead:1;
	u64			clock:2;
	u64			cos:1;
	u64			canceled:1;
	u64			alarm:1;
};

/* The checked, kernel-side form of an arm or modify request. */
struct twheel_req {
	u64		deadline;	/* absolute, CLOCK_MONOTONIC ns */
	u64		own;		/* absolute, on @clock (host) */
	u64		period;
	u64		cookie;
	enum twheel_mode mode;
	int		cpu;		/* TWHEEL_CPU_ANY or a CPU */
	u8		clock;		/* enum twheel_uclock */
	bool		cos;		/* TWHEEL_ARM_CANCEL_ON_SET */
	bool		alarm;		/* CLOCK_*_ALARM */
};

/* dev_step.c */
void twheel_step_init(void);
void twheel_step_exit(void);

/* dev_steplist.c */
void twheel_step_add_file(struct twheel_file *f);
void twheel_step_note(struct twheel_file *f);
void twheel_step_del_file(struct twheel_file *f);
void twheel_step_take(struct list_head *walk);
void twheel_step_put_back(struct twheel_file *f);
void twheel_step_done(void);

/* dev_read.c */
int twheel_file_query(struct twheel_file *f, struct twheel_query *q);
bool twheel_file_ready(struct twheel_file *f, bool excl);
ssize_t twheel_file_read(struct twheel_file *f, char __user *buf,
			 size_t count);

/* dev_timer.c */
unsigned long twheel_file_clock_step(struct twheel_file *f,
				     unsigned int clocks);
unsigned long twheel_file_alarm_min(struct twheel_file *f, u64 *min);
void twheel_file_init(struct twheel_file *f);
unsigned long twheel_file_release_timers(struct twheel_file *f);
int twheel_file_arm(struct twheel_file *f, const struct twheel_req *req,
		    u64 *id);
int twheel_file_cancel(struct twheel_file *f, u64 id);
int twheel_file_modify(struct twheel_file *f, u64 id,
		       const struct twheel_req *req);

/* dev_idtable.c */
struct twheel_utimer *twheel_utable_pop(struct twheel_file *f);
void twheel_utable_push(struct twheel_file *f, struct twheel_utimer *ut);
struct twheel_utimer *twheel_utable_lookup(struct twheel_file *f, u64 id);
int twheel_utable_grow(struct twheel_file *f, twheel_func_t fire);
struct twheel_utimer *twheel_utable_at(struct twheel_file *f, u32 slot);
void twheel_utable_free(struct twheel_file *f);

/* dev_req.c */
int twheel_make_req(u32 flags, s32 clockid, u64 expires, u64 period,
		    u64 *now, struct twheel_req *req, bool alarm_ok);
int twheel_check_cpu(u32 cpu);

/* dev_clock.c */
u64 twheel_timens_to_host(s32 clockid, u64 t);
u64 twheel_uclock_to_user(unsigned int clock, u64 t);

/* dev_caps.c */
int twheel_dev_caps_init(void);
void twheel_dev_caps_exit(void);
unsigned long twheel_dev_max_per_file(void);
unsigned long twheel_dev_max_total(void);
int twheel_charge(struct twheel_file *f);
void twheel_uncharge(struct twheel_file *f, unsigned long n);
unsigned long twheel_dev_max_per_user(void);
struct twheel_user *twheel_user_get(void);
void twheel_user_put(struct twheel_user *u);
u32 twheel_user_group(const struct twheel_user *u);
int twheel_dev_reserve(struct twheel_file *f, unsigned long n);
void twheel_dev_unreserve(struct twheel_file *f, unsigned long n);

/* dev_ioctl.c */
long twheel_dev_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

#endif /* _TWHEEL_DEV_FILE_H */
