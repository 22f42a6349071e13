// SPDX-License-Identifier: GPL-2.0
/*
 * twheel char device: the caps on timers (module parameters
 * max_timers_per_fd and max_timers) and the count of timers of all files
 * they are checked against, for the timers of ABI 1 (one at a time) and the
 * slots of ring tables (a table at a time).
 */
#include <linux/atomic.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/percpu_counter.h>

#include "dev_file.h"
#include "stats.h"

static unsigned long max_timers_per_fd = 1048576;
module_param(max_timers_per_fd, ulong, 0644);
MODULE_PARM_DESC(max_timers_per_fd,
		 "Cap on the timers of one open file of /dev/twheel (ENOSPC)");

static unsigned long max_timers = 4194304;
module_param(max_timers, ulong, 0644);
MODULE_PARM_DESC(max_timers,
		 "Cap on the timers of all open files of /dev/twheel (ENOSPC)");

/**
 * twheel_dev_max_per_file() - current value of max_timers_per_fd
 *
 * Return: the cap on timers of one file.
 */
unsigned long twheel_dev_max_per_file(void)
{
	return READ_ONCE(max_timers_per_fd);
}

/**
 * twheel_dev_max_total() - current value of max_timers
 *
 * Return: the cap on timers of all files.
 */
unsigned long twheel_dev_max_total(void)
{
	return READ_ONCE(max_timers);
}

/*
 * Timers of all files, against max_timers. A percpu_counter: an arm or a
 * cancel only touches this CPU's delta until it reaches percpu_counter_batch,
 * and the exact (locked) sum is computed only when the approximate value is
 * within batch * online CPUs of the cap. Far from the cap an arm therefore
 * writes no shared cache line; near it the cap may be exceeded by at most the
 * number of arms racing on other CPUs at that instant, never durably.
 */
static struct percpu_counter twheel_dev_nr;

/**
 * twheel_charge() - count one more timer of @f against both caps
 * @f:	the file
 *
 * Return: 0 or -ENOSPC.
 */
int twheel_charge(struct twheel_file *f)
{
	s64 max_total = min_t(u64, twheel_dev_max_total(), S64_MAX);

	if (atomic_long_inc_return(&f->nr) > twheel_dev_max_per_file())
		goto reject_file;
	percpu_counter_inc(&twheel_dev_nr);
	if (__percpu_counter_compare(&twheel_dev_nr, max_total,
				     percpu_counter_batch) > 0)
		goto reject_total;
	return 0;

reject_total:
	percpu_counter_dec(&twheel_dev_nr);
reject_file:
	atomic_long_dec(&f->nr);
	twheel_stat_inc(rejected);
	return -ENOSPC;
}

/**
 * twheel_uncharge() - undo twheel_charge() for @n timers
 * @f:	the file
 * @n:	timers
 */
void twheel_uncharge(struct twheel_file *f, unsigned long n)
{
	atomic_long_sub(n, &f->nr);
	percpu_counter_sub(&twheel_dev_nr, n);
}

/**
 * twheel_dev_reserve() - count timers of a file's table against max_timers
 * @n:	the table's slots
 *
 * Return: 0 or -ENOSPC.
 */
int twheel_dev_reserve(unsigned long n)
{
	s64 max_total = min_t(u64, twheel_dev_max_total(), S64_MAX);

	percpu_counter_add(&twheel_dev_nr, n);
	if (percpu_counter_compare(&twheel_dev_nr, max_total) > 0) {
		percpu_counter_sub(&twheel_dev_nr, n);
		twheel_stat_inc(rejected);
		return -ENOSPC;
	}
	return 0;
}

/**
 * twheel_dev_unreserve() - undo twheel_dev_reserve()
 * @n:	the table's slots
 */
void twheel_dev_unreserve(unsigned long n)
{
	percpu_counter_sub(&twheel_dev_nr, n);
}

/**
 * twheel_dev_caps_init() - set up the count of timers of all files
 *
 * Return: 0 or -ENOMEM.
 */
int twheel_dev_caps_init(void)
{
	return percpu_counter_init(&twheel_dev_nr, 0, GFP_KERNEL);
}

/**
 * twheel_dev_caps_exit() - free the count; every file is closed
 */
void twheel_dev_caps_exit(void)
{
	percpu_counter_destroy(&twheel_dev_nr);
}
