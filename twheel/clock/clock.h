/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel clocks (twheel/clock/): the layer under every clock-bound timer,
 * the in-kernel ones (api_clock.c) and those of /dev/twheel
 * (dev/dev_timer.c) alike.
 *
 * The wheel knows only CLOCK_MONOTONIC. A timer on CLOCK_BOOTTIME or
 * CLOCK_REALTIME ("clock-bound") keeps its deadline on its own clock and is
 * armed in the wheel at that deadline minus the clock's offset of the
 * moment (twheel_uclock_to_mono()); it is re-armed when the offset changes
 * and re-checked on its own clock when it fires: never early. That logic
 * exists once, in clock_timer.c (struct twheel_cbound, which both owners
 * embed; invariants, locking and cost there): the conversions, the arm at
 * the conversion, the expiry's re-check and the step walk of a list of
 * timers. An owner adds its lock, its lists of armed timers per clock and
 * what its timers do when due. clock_step.c notices the changes
 * (a clock set, an adjtimex() step, a leap second, resume from suspend)
 * and tells the owners: the in-kernel clock timers (twheel_clock_step())
 * and every registered struct twheel_step_client (the char device), each
 * with the set of clocks whose offset moved; each walks its lists with
 * twheel_cbound_step(). clock_wake.c wakes the system from suspend for
 * alarm timers: owners note each armed alarm timer (twheel_wake_note()),
 * and before a suspend clock_step.c has them walk their alarm timers
 * (->alarm_min()) to set the wake-ups exactly.
 *
 * Context: the conversions may be called from any context, the core's
 * arms and re-checks from any but hard interrupt. Step clients are called
 * in process context and may sleep, one walk at a time, with
 * twheel_step_clients_lock held (lock order: that mutex -> whatever the
 * client takes): ->step() from clock_step.c's work item, ->alarm_min()
 * from its PM_SUSPEND_PREPARE notifier (in the suspending task) or from
 * its work item when the walk runs again.
 *
 * Layers and files: the clocks layer is built on the in-kernel API
 * (<linux/twheel.h>: twheel_rearm_mono() arms through it) and under every
 * owner of clock-bound timers. clock_timer.c (the conversions and the
 * core) uses nothing of the layer's; clock_wake.c uses its conversions;
 * api_clock.c (the in-kernel clock timers, an owner) uses the core;
 * clock_step.c, the top of the layer, uses them all and calls the other
 * owners through struct twheel_step_client; the char device uses them
 * all, never the other way round. This header is the layer's only one.
 */
#ifndef _TWHEEL_CLOCK_H
#define _TWHEEL_CLOCK_H

#include <linux/bits.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/twheel.h>
#include <linux/types.h>

/*
 * The clock of a clock timer or a /dev/twheel timer. The clock-bound ones
 * (all but MONO) are TWHEEL_UCLK_BOUND, indexed clock - TWHEEL_UCLK_BOOT in
 * per-clock arrays; BIT(clock) in the sets a step reports.
 */
enum twheel_uclock {
	TWHEEL_UCLK_MONO	= 0,
	TWHEEL_UCLK_BOOT	= 1,
	TWHEEL_UCLK_REAL	= 2,
};

#define TWHEEL_UCLK_BOUND	2

/* Saturating @now + @delta, capped at KTIME_MAX (a valid ktime). */
static inline u64 twheel_deadline_after(u64 now, u64 delta)
{
	u64 sum;

	if (check_add_overflow(now, delta, &sum) || sum > KTIME_MAX)
		return KTIME_MAX;
	return sum;
}

/* @t + @offs, kept within 0 .. KTIME_MAX. */
static inline u64 twheel_clamp_add(u64 t, s64 offs)
{
	s64 r;

	if (check_add_overflow((s64)t, offs, &r))
		return offs < 0 ? 0 : KTIME_MAX;
	return r < 0 ? 0 : r;
}

/* @deadline + @k * @period, saturated: the k-th deadline of a fixed rate. */
static inline u64 twheel_grid(u64 deadline, u64 k, u64 period)
{
	u64 off;

	if (check_mul_overflow(k, period, &off))
		return KTIME_MAX;
	return twheel_deadline_after(deadline, off);
}

/*
 * Re-arm @t one-shot at the CLOCK_MONOTONIC time @mono on its CPU; if that
 * CPU went away meanwhile, on the local one.
 */
static inline void twheel_rearm_mono(struct twheel_timer *t, u64 mono)
{
	if (twheel_timer_modify(t, mono, 0, TWHEEL_ABS) < 0)
		twheel_timer_arm_on(t, mono, 0, TWHEEL_ABS, TWHEEL_CPU_ANY);
}

/*
 * Fixed rate: the deadlines of the grid of @deadline and @period that
 * passed by @now after @deadline (0 if @now is before it).
 */
static inline u64 twheel_grid_passed(u64 deadline, u64 period, u64 now)
{
	if (!period || now < deadline)
		return 0;
	return div64_u64(now - deadline, period);
}

/* clock_timer.c: the conversions */
u64 twheel_uclock_now(unsigned int clock);
s64 twheel_uclock_offs(unsigned int clock);
u64 twheel_uclock_to_mono(unsigned int clock, u64 own);

/**
 * struct twheel_cbound_ops - an owner of clock-bound timers, for a step walk
 * @lock:	take the owner's lock (as its arms do)
 * @unlock:	drop it
 * @clock:	the enum twheel_uclock of @cb
 * @list:	the owner's list @cb goes back on while armed
 * @walked:	offered each timer of the walk with the time of each clock
 *		that moved (index clock - TWHEEL_UCLK_BOOT): true if the
 *		owner took it (ended or delivered it, and moved it off the
 *		walk's list), false to have it re-armed. May be NULL.
 */
struct twheel_cbound_ops {
	void			(*lock)(void *owner);
	void			(*unlock)(void *owner);
	unsigned int		(*clock)(const struct twheel_cbound *cb);
	struct list_head	*(*list)(void *owner, struct twheel_cbound *cb);
	bool			(*walked)(void *owner, struct twheel_cbound *cb,
					  const u64 *now);
};

/*
 * Move the timers of the clocks in @clocks from the per-clock @lists
 * (index clock - TWHEEL_UCLK_BOOT) to @todo, for twheel_cbound_step().
 */
static inline void twheel_cbound_take(struct list_head *lists,
				      unsigned int clocks,
				      struct list_head *todo)
{
	unsigned int n;

	for (n = 0; n < TWHEEL_UCLK_BOUND; n++)
		if (clocks & BIT(TWHEEL_UCLK_BOOT + n))
			list_splice_init(&lists[n], todo);
}

/* clock_timer.c: the clock-bound timer core, owner's lock held */
u64 twheel_cbound_mono(const struct twheel_cbound *cb, unsigned int clock);
int twheel_cbound_set(struct twheel_cbound *cb, unsigned int clock, u64 own,
		      int cpu, bool modify);
void twheel_cbound_rearm(struct twheel_cbound *cb, unsigned int clock);
bool twheel_cbound_due(struct twheel_cbound *cb, unsigned int clock,
		       u64 *now);
unsigned long twheel_cbound_step(const struct twheel_cbound_ops *ops,
				 void *owner, struct list_head *todo,
				 unsigned int clocks);

/* clock_wake.c: one wake-up per alarm clock, CLOCK_BOOTTIME's and REALTIME's */
#define TWHEEL_WAKE_CLOCKS	2

static inline unsigned int twheel_wake_index(unsigned int clock)
{
	return clock == TWHEEL_UCLK_REAL;
}

void twheel_wake_note(unsigned int clock, u64 own);

/* clock_wake.c, what clock_step.c uses of it (owners use only the above) */
struct work_struct;

void twheel_wake_walk_begin(void);
void twheel_wake_set(const u64 *min);
void twheel_wake_suspending(bool on);
void twheel_wake_init(struct work_struct *rewalk);
void twheel_wake_exit(void);

/**
 * struct twheel_step_client - an owner of clock-bound timers
 * @link:	on clock_step.c's list of clients
 * @step:	re-arm the owner's timers on the clocks in @clocks
 *		(BIT(enum twheel_uclock)); returns how many it re-armed or
 *		cancelled (cancel-on-set)
 * @alarm_min:	at suspend: deliver the owner's alarm timers that are due,
 *		lower @min[twheel_wake_index(clock)] to the earliest deadline
 *		of the others; returns how many it visited. May be NULL.
 */
struct twheel_step_client {
	struct list_head	link;
	unsigned long		(*step)(struct twheel_step_client *c,
					unsigned int clocks);
	unsigned long		(*alarm_min)(struct twheel_step_client *c,
					     u64 *min);
};

/* api_clock.c: the in-kernel clock timers' step, called by clock_step.c */
unsigned long twheel_clock_step(unsigned int clocks);

/* clock_step.c */
void twheel_step_client_add(struct twheel_step_client *c);
void twheel_step_client_del(struct twheel_step_client *c);
int twheel_clock_steps_init(void);
void twheel_clock_steps_exit(void);

#endif /* _TWHEEL_CLOCK_H */
