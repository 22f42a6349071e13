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
 * The files walked are those with clock-bound timers, which
 * dev_steplist.c keeps (twheel_step_take(), twheel_step_put_back()).
 */
#include <linux/list.h>
#include <linux/sched.h>

#include "dev_file.h"
#include "stats.h"

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
	twheel_step_done();
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
