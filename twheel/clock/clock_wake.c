// SPDX-License-Identifier: GPL-2.0
/*
 * twheel clocks: waking the system from suspend for alarm timers (on
 * CLOCK_REALTIME_ALARM or CLOCK_BOOTTIME_ALARM; today only /dev/twheel has
 * them, dev_file.h "Alarms" says how it keeps them; clock.h for the layer).
 *
 * An alarm timer is an ordinary clock-bound timer of the wheel. What makes it
 * an alarm is that suspend must end by its deadline: for that there is one
 * struct alarm per alarm clock, for the whole module, kept no later than the
 * earliest armed alarm timer of that clock that is not due yet. The
 * alarmtimer core programs the RTC for the earliest struct alarm of the
 * system when it suspends (and refuses to suspend, -EBUSY, when that is
 * less than 2 s away). After a wake, the resume is a clock step
 * (clock_step.c), which re-arms the clock-bound timers and fires the due ones
 * at once.
 *
 * The struct alarm is never armed for a deadline that has passed: its expiry
 * would come before the suspend and take it off the alarmtimer queue, and
 * nothing would then wake the system for the next alarm timer. An alarm
 * timer that is already due is the wheel's to deliver, within a tick (the
 * walk before suspend delivers it itself). Outside a suspend the struct
 * alarm's expiry does nothing. Between PM_SUSPEND_PREPARE and
 * PM_POST_SUSPEND, and before the system slept (CLOCK_BOOTTIME's offset
 * has not moved), it means that an alarm timer came due before the sleep:
 * twheel_wake_fired() (hrtimer context: hard interrupt, a softirq
 * thread on PREEMPT_RT; it takes no lock) aborts the suspend with
 * pm_system_wakeup(), as a wake-up event would, and queues a new walk (in
 * case the abort came before the freezer, which clears it), which delivers
 * that timer and moves the struct alarm to the next one.
 *
 * Arming an alarm timer calls twheel_wake_note(): O(1), it moves the struct
 * alarm only when the new deadline is earlier than the one it holds, or when
 * that one has passed. A cancel, modify to later, or expiry leaves it
 * alone: it may be early, never late. Before every suspend, at
 * PM_SUSPEND_PREPARE, clock_step.c has the owners walk their armed alarm
 * timers (struct twheel_step_client.alarm_min) and
 * twheel_wake_set() puts it back at the exact earliest one (or cancels it).
 * Arms that race with the walk are folded in by twheel_wake_walk_begin(),
 * so none is lost. A stale, early wake can thus only come from an alarm
 * timer cancelled between that walk and the suspend: it costs one aborted
 * suspend or a spurious resume.
 *
 * Locking: twheel_wake_lock, a spinlock_t, is taken in process context only
 * (under an owner's lock by twheel_wake_note(): owner's lock -> wake lock ->
 * the alarmtimer base lock inside alarm_start()).
 */
#include <linux/alarmtimer.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/spinlock.h>
#include <linux/suspend.h>
#include <linux/workqueue.h>

#include "clock.h"
#include "compat.h"

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
/* Between PM_SUSPEND_PREPARE and PM_POST_SUSPEND. */
static bool twheel_wake_in_suspend;
/*
 * CLOCK_BOOTTIME's offset at PM_SUSPEND_PREPARE: resume moves it by the
 * time asleep, so an expiry that finds it moved comes after the sleep.
 */
static s64 twheel_wake_boot_offs;
/* Module exit began: nothing arms the alarms or queues a walk any more. */
static bool twheel_wake_dead;
/* clock_step.c's walk of the alarm timers, queued from twheel_wake_fired(). */
static struct work_struct *twheel_wake_rewalk;

/*
 * An alarm timer came due (the struct alarm expired, or was to be armed in
 * the past): if a suspend is under way and the system has not slept yet,
 * abort it and walk again. The expiry that follows a wake by the alarm,
 * during resume, is not one: the resume's clock step fires what is due.
 */
static void twheel_wake_due(void)
{
	if (!READ_ONCE(twheel_wake_in_suspend) || READ_ONCE(twheel_wake_dead))
		return;
	if (twheel_uclock_offs(TWHEEL_UCLK_BOOT) !=
	    READ_ONCE(twheel_wake_boot_offs))
		return;
	pm_system_wakeup();
	queue_work(system_unbound_wq, twheel_wake_rewalk);
}

#ifdef TWHEEL_HAVE_ALARM_RESTART
static enum alarmtimer_restart twheel_wake_fired(struct alarm *alarm,
						 ktime_t now)
{
	twheel_wake_due();
	return ALARMTIMER_NORESTART;
}
#else
static void twheel_wake_fired(struct alarm *alarm, ktime_t now)
{
	twheel_wake_due();
}
#endif

/*
 * Wake lock held: arm @w's alarm for @at, or stop it for KTIME_MAX. Never
 * for a time that has passed (see above): an alarm timer due by then is
 * the wheel's to deliver, or the walk's.
 */
static void twheel_wake_arm(struct twheel_wake *w, unsigned int clock, u64 at)
{
	w->at = at;
	if (twheel_wake_dead)
		return;
	if (at == KTIME_MAX || at <= twheel_uclock_now(clock)) {
		/* -1 only if the callback runs: it does no harm. */
		alarm_try_to_cancel(&w->alarm);
		if (at != KTIME_MAX)
			twheel_wake_due();
		return;
	}
	twheel_alarm_start(&w->alarm, ns_to_ktime(at));
}

/**
 * twheel_wake_note() - an alarm timer was armed: wake for it
 * @clock:	its clock, TWHEEL_UCLK_REAL or TWHEEL_UCLK_BOOT
 * @own:	its deadline, host ns on @clock
 *
 * O(1): moves the clock's struct alarm only if @own is earlier than it, or
 * if it has passed; not if @own has passed (the timer is due: the wheel
 * delivers it within a tick, and the struct alarm stays for the next one).
 *
 * Context: process context; the timer owner's lock may be held.
 */
void twheel_wake_note(unsigned int clock, u64 own)
{
	struct twheel_wake *w = &twheel_wakes[twheel_wake_index(clock)];
	u64 now = twheel_uclock_now(clock);

	if (own <= now)
		return;
	spin_lock(&twheel_wake_lock);
	if (twheel_wake_walking)
		w->seen = min(w->seen, own);
	if (own < w->at || w->at <= now)
		twheel_wake_arm(w, clock, own);
	spin_unlock(&twheel_wake_lock);
}

/**
 * twheel_wake_walk_begin() - a walk of the alarm timers starts
 *
 * Arms from now on until twheel_wake_set() are remembered, so that the walk
 * may miss them.
 *
 * Context: process context, under twheel_step_clients_lock (one walk at a
 * time).
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
 *		of an armed alarm timer not due yet the walk found, KTIME_MAX
 *		if none
 *
 * Context: process context, under twheel_step_clients_lock.
 */
void twheel_wake_set(const u64 *min)
{
	struct twheel_wake *w;
	unsigned int i;

	spin_lock(&twheel_wake_lock);
	for (i = 0; i < TWHEEL_WAKE_CLOCKS; i++) {
		w = &twheel_wakes[i];
		twheel_wake_arm(w, i == twheel_wake_index(TWHEEL_UCLK_REAL) ?
				TWHEEL_UCLK_REAL : TWHEEL_UCLK_BOOT,
				min_t(u64, min[i], w->seen));
	}
	twheel_wake_walking = false;
	spin_unlock(&twheel_wake_lock);
}

/**
 * twheel_wake_suspending() - a suspend begins or has ended
 * @on:	true at PM_SUSPEND_PREPARE, before the walk; false after resume
 *	or a failed suspend
 *
 * Context: process context (the PM notifier).
 */
void twheel_wake_suspending(bool on)
{
	WRITE_ONCE(twheel_wake_boot_offs, twheel_uclock_offs(TWHEEL_UCLK_BOOT));
	WRITE_ONCE(twheel_wake_in_suspend, on);
}

/**
 * twheel_wake_init() - set up the alarms (not armed)
 * @rewalk:	the walk of the alarm timers, queued when one came due
 *		during a suspend
 */
void twheel_wake_init(struct work_struct *rewalk)
{
	unsigned int i;

	twheel_wake_rewalk = rewalk;
	for (i = 0; i < TWHEEL_WAKE_CLOCKS; i++) {
		alarm_init(&twheel_wakes[i].alarm,
			   i == twheel_wake_index(TWHEEL_UCLK_REAL) ?
			   ALARM_REALTIME : ALARM_BOOTTIME,
			   twheel_wake_fired);
		twheel_wakes[i].at = KTIME_MAX;
	}
}

/**
 * twheel_wake_exit() - stop the alarms
 *
 * Context: process context, may sleep; no alarm timer is armed, the PM
 * notifier is unregistered. The caller then cancels the rewalk work, which
 * an expiry may have queued: once this returns, that walk arms nothing.
 */
void twheel_wake_exit(void)
{
	unsigned int i;

	spin_lock(&twheel_wake_lock);
	WRITE_ONCE(twheel_wake_dead, true);
	spin_unlock(&twheel_wake_lock);
	for (i = 0; i < TWHEEL_WAKE_CLOCKS; i++)
		alarm_cancel(&twheel_wakes[i].alarm);
}
