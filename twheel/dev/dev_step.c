// SPDX-License-Identifier: GPL-2.0
/*
 * twheel char device: clock steps and suspend, for the files' clock-bound
 * timers (design in dev_file.h, "Clocks" and "Alarms"). The device is a
 * client of clock_step.c (clock.h): when the offsets of CLOCK_REALTIME or
 * CLOCK_BOOTTIME move, its ->step() walks, in the files that have
 * clock-bound timers, the timers of the clocks that moved
 * (twheel_file_clock_step()).
 *
 * Suspend: at PM_SUSPEND_PREPARE, its ->alarm_min() walks the same files'
 * alarm timers, delivers the due ones and reports the earliest of the
 * others, at which clock_wake.c sets the wake-ups (dev_file.h, "Alarms").
 *
 * The files: a file goes on twheel_step_files when it binds a clock-bound
 * timer (twheel_step_note(), under its lock) and a walk takes it off when
 * it has none left, so that a walk visits the files that have clock-bound
 * timers (each charged against the caps), not every file that ever had
 * one (debugfs step_files). A walk moves the list aside under
 * twheel_step_lock and puts back each file that still has some; files
 * bound meanwhile go on the list again and wait for the next walk, which
 * the change that bound them does not need (they use the new offsets
 * already). A walk holds twheel_step_mutex, which release also takes, so
 * the file a walk holds stays.
 */
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/spinlock.h>

#include "dev_file.h"
#include "stats.h"

/*
 * Release waits for a walk that holds its file (walks themselves are
 * serialised by clock_step.c's twheel_step_clients_lock).
 */
static DEFINE_MUTEX(twheel_step_mutex);
/* twheel_step_files, and twheel_file.stepped with the file lock. */
static DEFINE_SPINLOCK(twheel_step_lock);
static LIST_HEAD(twheel_step_files);

/*
 * Step mutex held: take the files with clock-bound timers off the list,
 * onto @walk, for one walk.
 */
static void twheel_step_take(struct list_head *walk)
{
	spin_lock(&twheel_step_lock);
	list_splice_init(&twheel_step_files, walk);
	spin_unlock(&twheel_step_lock);
}

/* @f was walked: back on the list if it has clock-bound timers left. */
static void twheel_step_put_back(struct twheel_file *f)
{
	unsigned int i;
	bool any = false;

	spin_lock(&f->lock);
	for (i = 0; i < TWHEEL_UCLK_BOUND; i++)
		any |= !list_empty(&f->clocked[i]) || !list_empty(&f->alarms[i]);
	spin_lock(&twheel_step_lock);
	if (any) {
		list_move_tail(&f->step_link, &twheel_step_files);
	} else {
		list_del_init(&f->step_link);
		WRITE_ONCE(f->stepped, false);
	}
	spin_unlock(&twheel_step_lock);
	spin_unlock(&f->lock);
}

/*
 * One walk: @clocks non-zero, re-arm the files' timers on those clocks
 * (they moved); 0, a suspend begins: walk their alarm timers, lowering
 * @min. Returns the timers re-armed, ended or walked.
 */
static unsigned long twheel_step_walk(unsigned int clocks, u64 *min)
{
	unsigned long files = 0;
	struct twheel_file *f;
	unsigned long n = 0;
	LIST_HEAD(walk);

	mutex_lock(&twheel_step_mutex);
	twheel_step_take(&walk);
	while (!list_empty(&walk)) {
		f = list_first_entry(&walk, struct twheel_file, step_link);
		n += clocks ? twheel_file_clock_step(f, clocks) :
			      twheel_file_alarm_min(f, min);
		twheel_step_put_back(f);
		files++;
		cond_resched();
	}
	twheel_stat_add(step_files, files);
	mutex_unlock(&twheel_step_mutex);
	return n;
}

static unsigned long twheel_step_files_fn(struct twheel_step_client *c,
					  unsigned int clocks)
{
	return twheel_step_walk(clocks, NULL);
}

static unsigned long twheel_step_alarms_fn(struct twheel_step_client *c,
					   u64 *min)
{
	return twheel_step_walk(0, min);
}

static struct twheel_step_client twheel_step_client = {
	.step		= twheel_step_files_fn,
	.alarm_min	= twheel_step_alarms_fn,
};

/**
 * twheel_step_note() - @f binds a clock-bound timer: let walks find it
 * @f:	the file, its lock held
 *
 * O(1); a walk takes @f off the list again once it has none.
 */
void twheel_step_note(struct twheel_file *f)
{
	lockdep_assert_held(&f->lock);
	if (f->stepped)
		return;
	spin_lock(&twheel_step_lock);
	list_add_tail(&f->step_link, &twheel_step_files);
	WRITE_ONCE(f->stepped, true);
	spin_unlock(&twheel_step_lock);
}

/**
 * twheel_step_add_file() - let clock steps find @f's clock-bound timers
 * @f:	a file about to arm a clock-bound timer
 *
 * Not needed (twheel_step_note() at bind does it), but harmless: a walk
 * takes the file off again if the arm fails.
 *
 * Context: process context; file lock not held.
 */
void twheel_step_add_file(struct twheel_file *f)
{
	if (READ_ONCE(f->stepped))
		return;
	spin_lock(&f->lock);
	twheel_step_note(f);
	spin_unlock(&f->lock);
}

/**
 * twheel_step_del_file() - forget @f, before its timers are released
 * @f:	a file being released
 *
 * Waits for a walk that holds @f.
 *
 * Context: process context, may sleep.
 */
void twheel_step_del_file(struct twheel_file *f)
{
	if (!READ_ONCE(f->stepped))
		return;
	mutex_lock(&twheel_step_mutex);
	spin_lock(&twheel_step_lock);
	list_del_init(&f->step_link);
	WRITE_ONCE(f->stepped, false);
	spin_unlock(&twheel_step_lock);
	mutex_unlock(&twheel_step_mutex);
}

/**
 * twheel_step_init() - let clock steps and suspends reach the files' timers
 */
void twheel_step_init(void)
{
	twheel_step_client_add(&twheel_step_client);
}

/**
 * twheel_step_exit() - stop following clock steps and suspends
 *
 * No file may be open.
 */
void twheel_step_exit(void)
{
	twheel_step_client_del(&twheel_step_client);
}
