// SPDX-License-Identifier: GPL-2.0
/*
 * twheel char device: the files that clock steps and suspend walk, those
 * with clock-bound timers (design in dev_file.h, "Clocks" and "Alarms";
 * the walks are dev_step.c's).
 *
 * A file goes on twheel_step_files when it binds a clock-bound timer
 * (twheel_step_note(), under its lock) and a walk takes it off when it has
 * none left, so that a walk visits the files that have clock-bound timers
 * (each charged against the caps), not every file that ever had one
 * (debugfs step_files). A walk moves the list aside under twheel_step_lock
 * (twheel_step_take()) and puts back each file that still has some
 * (twheel_step_put_back()); files bound meanwhile go on the list again and
 * wait for the next walk, which the change that bound them does not need
 * (they use the new offsets already). A walk holds twheel_step_mutex, from
 * twheel_step_take() to twheel_step_done(), which release also takes, so
 * the file a walk holds stays.
 */
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>

#include "dev_file.h"

/*
 * Release waits for a walk that holds its file (walks themselves are
 * serialised by clock_step.c's twheel_step_clients_lock).
 */
static DEFINE_MUTEX(twheel_step_mutex);
/* twheel_step_files, and twheel_file.stepped with the file lock. */
static DEFINE_SPINLOCK(twheel_step_lock);
static LIST_HEAD(twheel_step_files);

/**
 * twheel_step_take() - begin a walk of the files with clock-bound timers
 * @walk:	an empty list, which the files are moved onto
 *
 * Takes the step mutex, held until twheel_step_done().
 *
 * Context: process context, may sleep.
 */
void twheel_step_take(struct list_head *walk)
{
	mutex_lock(&twheel_step_mutex);
	spin_lock(&twheel_step_lock);
	list_splice_init(&twheel_step_files, walk);
	spin_unlock(&twheel_step_lock);
}

/**
 * twheel_step_put_back() - @f was walked: keep it if it still needs walks
 * @f:	a file of the walk, off its list
 *
 * Back on the list if it has clock-bound timers left.
 *
 * Context: the step mutex held (twheel_step_take()); file lock not held.
 */
void twheel_step_put_back(struct twheel_file *f)
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

/**
 * twheel_step_done() - end a walk: release may go on with its file
 *
 * Drops the step mutex twheel_step_take() took.
 */
void twheel_step_done(void)
{
	mutex_unlock(&twheel_step_mutex);
}

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
