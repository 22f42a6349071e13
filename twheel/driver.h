/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel per-CPU driver: what the layers above it use beyond the in-kernel
 * API of <linux/twheel.h>. The module's init and exit (main.c), the
 * geometry a report shows (debugfs, the ioctl ABI's INFO) and batched
 * operations under one hold of a base lock (the char device's ring and
 * batch ioctls). The driver's own state (struct twheel_base, runners) is
 * in base/base.h, private to the driver's files in base/ (and its KUnit
 * suites; tools/vm/includes.py checks it).
 */
#ifndef _TWHEEL_DRIVER_H
#define _TWHEEL_DRIVER_H

#include <linux/bits.h>
#include <linux/twheel.h>
#include <linux/types.h>

/* Module parameter bounds and defaults (main.c validates against them). */
#define TWHEEL_TICK_US_MIN	100
#define TWHEEL_TICK_US_MAX	100000
#define TWHEEL_TICK_US_DEF	1000
#define TWHEEL_BUCKET_BITS_DEF	6
#define TWHEEL_LEVELS_DEF	5
#define TWHEEL_BUCKET_BITS_MIN	2
#define TWHEEL_BUCKET_BITS_MAX	(BITS_PER_LONG == 64 ? 6 : 5)
#define TWHEEL_LEVELS_MAX	8

/* struct twheel_batch_ent.op */
enum tw_batch_op {
	TW_BATCH_ARM,		/* (re-)arm on @cpu, overruns restart at 0 */
	TW_BATCH_MODIFY,	/* re-arm on the timer's own CPU */
	TW_BATCH_CANCEL,	/* disarm */
};

/**
 * struct twheel_batch_ent - one timer of twheel_batch_on()
 * @timer:	the timer
 * @deadline:	absolute deadline, CLOCK_MONOTONIC ns (not for cancel)
 * @period:	period in ns, 0 for one-shot (not for cancel)
 * @mode:	enum twheel_mode matching @period (not for cancel)
 * @op:		enum tw_batch_op
 * @cpu:	target CPU of TW_BATCH_ARM, or TWHEEL_CPU_ANY (local)
 * @ret:	out: 1 if the timer was pending, 0 if not, -ENXIO
 * @priv:	the caller's, for its prep hook
 */
struct twheel_batch_ent {
	struct twheel_timer	*timer;
	void			*priv;
	u64			deadline;
	u64			period;
	u8			mode;
	u8			op;
	int			cpu;
	int			ret;
};

/*
 * Called by twheel_batch_on() and twheel_batch_one() for each entry, under
 * the lock of the timer's base with the timer detached, before it is
 * enqueued again: no callback of the timer runs or can start meanwhile.
 */
typedef void (*twheel_prep_t)(struct twheel_batch_ent *e);

int twheel_bases_init(unsigned int tick_us, unsigned int bucket_bits,
		      unsigned int levels);
void twheel_bases_exit(void);

unsigned int twheel_batch_on(int cpu, struct twheel_batch_ent *ents,
			     unsigned int n, twheel_prep_t prep);
void twheel_batch_one(struct twheel_batch_ent *e, twheel_prep_t prep);

unsigned int twheel_levels(void);
unsigned int twheel_buckets(void);
u64 twheel_horizon_ns(void);

#endif /* _TWHEEL_DRIVER_H */
