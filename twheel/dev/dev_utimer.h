/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel char device: helpers on one userspace timer shared by the timer set
 * (dev_timer.c) and its read side (dev_read.c); the clock-bound part is the
 * core's (clock.h, clock_timer.c). File lock held by callers.
 */
#ifndef _TWHEEL_DEV_UTIMER_H
#define _TWHEEL_DEV_UTIMER_H

#include <linux/list.h>
#include <linux/lockdep.h>

#include "dev_file.h"

/*
 * Fixed rate: deadlines of @ut's grid after its queued event's that passed by
 * @now. The event reports the last of them, the count as its overruns.
 */
static inline u64 twheel_utimer_skipped(const struct twheel_utimer *ut,
					u64 now)
{
	if (ut->mode != TWHEEL_MODE_FIXED_RATE)
		return 0;
	return twheel_grid_passed(ut->cb.deadline, ut->period, now);
}

static inline struct twheel_utimer *
twheel_file_lookup(struct twheel_file *f, u64 id)
{
	return twheel_utable_lookup(f, id);
}

/*
 * Release @ut's id and drop its queued event; callbacks and lookups ignore
 * it from now on (its slot is freed by twheel_utable_push() once its
 * callback cannot run). Returns 1 if an event was queued.
 */
static inline int twheel_utimer_kill(struct twheel_file *f,
				     struct twheel_utimer *ut)
{
	int was_queued = ut->queued;

	lockdep_assert_held(&f->lock);

	ut->dead = 1;
	/* Off the ready list, or the clocked list. */
	list_del_init(&ut->cb.link);
	ut->queued = 0;
	return was_queued;
}

static inline void twheel_utimer_unqueue(struct twheel_utimer *ut)
{
	list_del_init(&ut->cb.link);
	ut->queued = 0;
	ut->canceled = 0;
}

static inline void twheel_utimer_set_mode(struct twheel_utimer *ut,
					  const struct twheel_req *req)
{
	ut->period = req->period;
	ut->mode = req->mode;
	ut->clock = req->clock;
	ut->cos = req->cos;
	ut->alarm = req->alarm;
}

/*
 * The list a clock-bound @ut goes on while armed: its clock's, of alarm
 * timers or not ("Clocks", "Alarms").
 */
static inline struct list_head *twheel_utimer_list(struct twheel_file *f,
						   const struct twheel_utimer *ut)
{
	unsigned int i = ut->clock - TWHEEL_UCLK_BOOT;

	return ut->alarm ? &f->alarms[i] : &f->clocked[i];
}

/*
 * @ut was just armed in the wheel (file lock held): a clock-bound timer goes
 * on the clocked list for clock steps to find, an alarm timer on the alarm
 * list and it moves the wake-up from suspend earlier if it needs to.
 */
static inline void twheel_utimer_bind(struct twheel_file *f,
				      struct twheel_utimer *ut)
{
	if (ut->clock == TWHEEL_UCLK_MONO) {
		list_del_init(&ut->cb.link);
		return;
	}
	list_move_tail(&ut->cb.link, twheel_utimer_list(f, ut));
	twheel_step_note(f);
	if (ut->alarm)
		twheel_wake_note(ut->clock, ut->cb.deadline);
}

#endif /* _TWHEEL_DEV_UTIMER_H */
