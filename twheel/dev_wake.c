// SPDX-License-Identifier: GPL-2.0
/*
 * twheel char device: waking the system from suspend for alarm timers
 * (CLOCK_REALTIME_ALARM, CLOCK_BOOTTIME_ALARM; design in dev_file.h,
 * "Alarms").
 *
 * An alarm timer is an ordinary clock-bound timer of the wheel. What makes it
 * an alarm is that suspend must end by its deadline: for that there is one
 * struct alarm per alarm clock, for the whole module, kept no later than the
 * earliest armed alarm timer of that clock. The alarmtimer core programs the
 * RTC for the earliest struct alarm of the system when it suspends. The
 * struct alarm's own expiry does nothing (twheel_alarm_nop(), run in hrtimer
 * context: hard interrupt, a softirq thread on PREEMPT_RT; it takes no
 * lock): after a wake, the resume is a clock step (dev_step.c), which
 * re-arms the clock-bound timers and fires the due ones at once.
 *
 * Arming an alarm timer calls twheel_wake_note(): O(1), it moves the struct
 * alarm only when the new deadline is earlier than the one it holds, or when
 * that one has passed. A cancel, modify to later, or expiry leaves it
 * alone: it may be early, never late. Before every suspend, at
 * PM_SUSPEND_PREPARE, dev_step.c walks the armed alarm timers and
 * twheel_wake_set() puts it back at the exact earliest one (or cancels it).
 * Arms that race with the walk are folded in by twheel_wake_walk_begin(),
 * so none is lost. A stale, early wake can thus only come from an alarm
 * timer cancelled between that walk and the suspend: it costs one spurious
 * resume, which is harmless.
 *
 * Locking: twheel_wake_lock, a spinlock_t, is taken in process context only
 * (under a file lock by twheel_wake_note(): file lock -> wake lock -> the
 * alarmtimer base lock inside alarm_start()).
 */
#include <linux/alarmtimer.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/spinlock.h>

#include "compat.h"
#include "dev_file.h"

/*
 * struct twheel_wake - the wake-up of one alarm clock
 * @alarm:	on ALARM_REALTIME or ALARM_BOOTTIME
 * @at:		what @alarm is armed for, ns on its clock; KTIME_MAX: not armed
 * @seen:	while a walk runs, the earliest deadline noted since it began
 */
struct twheel_wake {
	struct alarm	alarm;
	u64		at;
	u64		seen;
};

/* Protects twheel_wakes[].at, .seen and twheel_wake_walking. */
static DEFINE_SPINLOCK(twheel_wake_lock);
static struct twheel_wake twheel_wakes[TWHEEL_WAKE_CLOCKS];
static bool twheel_wake_walking;

/* Wake lock held: arm @w's alarm for @at, or stop it for KTIME_MAX. */
static void twheel_wake_arm(struct twheel_wake *w, u64 at)
{
	w->at = at;
	if (at == KTIME_MAX)
		/* -1 only if the callback runs: it does nothing. */
		alarm_try_to_cancel(&w->alarm);
	else
		twheel_alarm_start(&w->alarm, ns_to_ktime(at));
}

/**
 * twheel_wake_note() - an alarm timer was armed: wake for it
 * @clock:	its clock, TWHEEL_UCLK_REAL or TWHEEL_UCLK_BOOT
 * @own:	its deadline, host ns on @clock
 *
 * O(1): moves the clock's struct alarm only if @own is earlier than it, or
 * if it has passed.
 *
 * Context: process context; the timer's file lock may be held.
 */
void twheel_wake_note(unsigned int clock, u64 own)
{
	struct twheel_wake *w = &twheel_wakes[twheel_wake_index(clock)];

	spin_lock(&twheel_wake_lock);
	if (twheel_wake_walking)
		w->seen = min(w->seen, own);
	if (own < w->at || w->at <= twheel_uclock_now(clock))
		twheel_wake_arm(w, own);
	spin_unlock(&twheel_wake_lock);
}

/**
 * twheel_wake_walk_begin() - a walk of the alarm timers starts
 *
 * Arms from now on until twheel_wake_set() are remembered, so that the walk
 * may miss them.
 *
 * Context: process context, under twheel_step_mutex (one walk at a time).
 */
void twheel_wake_walk_begin(void)
{
	unsigned int i;

	spin_lock(&twheel_wake_lock);
	for (i = 0; i < TWHEEL_WAKE_CLOCKS; i++)
		twheel_wakes[i].seen = KTIME_MAX;
	twheel_wake_walking = true;
	spin_unlock(&twheel_wake_lock);
}

/**
 * twheel_wake_set() - end a walk: wake exactly at the earliest alarm timers
 * @min:	per alarm clock (twheel_wake_index()), the earliest deadline
 *		of an armed alarm timer the walk found, KTIME_MAX if none
 *
 * Context: process context, under twheel_step_mutex.
 */
void twheel_wake_set(const u64 *min)
{
	struct twheel_wake *w;
	unsigned int i;

	spin_lock(&twheel_wake_lock);
	for (i = 0; i < TWHEEL_WAKE_CLOCKS; i++) {
		w = &twheel_wakes[i];
		twheel_wake_arm(w, min_t(u64, min[i], w->seen));
	}
	twheel_wake_walking = false;
	spin_unlock(&twheel_wake_lock);
}

/**
 * twheel_wake_init() - set up the alarms (not armed)
 */
void twheel_wake_init(void)
{
	unsigned int i;

	for (i = 0; i < TWHEEL_WAKE_CLOCKS; i++) {
		alarm_init(&twheel_wakes[i].alarm,
			   i == twheel_wake_index(TWHEEL_UCLK_REAL) ?
			   ALARM_REALTIME : ALARM_BOOTTIME,
			   twheel_alarm_nop);
		twheel_wakes[i].at = KTIME_MAX;
	}
}

/**
 * twheel_wake_exit() - stop the alarms
 *
 * Context: process context, may sleep; no file is open.
 */
void twheel_wake_exit(void)
{
	unsigned int i;

	for (i = 0; i < TWHEEL_WAKE_CLOCKS; i++)
		alarm_cancel(&twheel_wakes[i].alarm);
}
