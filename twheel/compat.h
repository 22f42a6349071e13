/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel compatibility shims: the module builds against Debian's 6.1 and the
 * 6.12 test kernel. Each shim detects the feature, not a version number.
 */
#ifndef _TWHEEL_COMPAT_H
#define _TWHEEL_COMPAT_H

#include <linux/device.h>
#include <linux/module.h>

/*
 * EXPORT_SYMBOL_IF_KUNIT(): both supported kernels have it (Debian's 6.1
 * carries the backport); it exports nothing without CONFIG_KUNIT.
 */
#include <kunit/visibility.h>

/*
 * Import the namespace of EXPORT_SYMBOL_IF_KUNIT() symbols. MODULE_IMPORT_NS()
 * takes an identifier before 6.13 and a string literal since; both expand to
 * this MODULE_INFO().
 */
#define TWHEEL_IMPORT_KUNIT_NS() \
	MODULE_INFO(import_ns, "EXPORTED_FOR_KUNIT_TESTING")

/* class_create() was a macro taking the owning module until 6.4. */
#ifdef class_create
#define twheel_class_create(name)	class_create(THIS_MODULE, name)
#else
#define twheel_class_create(name)	class_create(name)
#endif

/*
 * hrtimer_setup() (6.13) sets the callback with the rest; hrtimer_init()
 * and writing ->function went away in 6.15. compat.mk probes for it.
 */
#include <linux/hrtimer.h>
static inline void twheel_hrtimer_setup(struct hrtimer *timer,
					enum hrtimer_restart (*fn)(struct hrtimer *),
					clockid_t clock, enum hrtimer_mode mode)
{
#ifdef TWHEEL_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/*
 * timer_delete() and timer_delete_sync() (6.2) replace del_timer() and
 * del_timer_sync(), which 6.15 removed; from_timer() became
 * timer_container_of() in 6.16. For the timer_list users (the bench).
 */
#include <linux/timer.h>
#ifndef TWHEEL_HAVE_TIMER_DELETE
#define timer_delete(t)		del_timer(t)
#define timer_delete_sync(t)	del_timer_sync(t)
#endif
#ifndef timer_container_of
#define timer_container_of(var, t, field)	from_timer(var, t, field)
#endif

/*
 * WQ_PERCPU (6.17) marks a per-CPU workqueue explicitly, ahead of unbound
 * becoming the default; newer kernels warn when neither it nor WQ_UNBOUND is
 * given. Before it, a workqueue without WQ_UNBOUND is per-CPU.
 */
#include <linux/workqueue.h>
#ifdef TWHEEL_HAVE_WQ_PERCPU
#define TWHEEL_WQ_PERCPU	WQ_PERCPU
#else
#define TWHEEL_WQ_PERCPU	0
#endif

/*
 * Alarm timers: a callback returns enum alarmtimer_restart before 6.13 and
 * nothing after; alarm_start_timer() (7.x) replaces alarm_start(). compat.mk
 * probes for each. twheel_alarm_nop(): a callback that does nothing and
 * does not restart.
 */
#include <linux/alarmtimer.h>
#ifdef TWHEEL_HAVE_ALARM_RESTART
static inline enum alarmtimer_restart
twheel_alarm_nop(struct alarm *alarm, ktime_t now)
{
	return ALARMTIMER_NORESTART;
}
#else
static inline void twheel_alarm_nop(struct alarm *alarm, ktime_t now)
{
}
#endif

static inline void twheel_alarm_start(struct alarm *alarm, ktime_t expires)
{
#ifdef TWHEEL_HAVE_ALARM_START_TIMER
	/* false if already expired: then it is not queued, nothing to do. */
	alarm_start_timer(alarm, expires, false);
#else
	alarm_start(alarm, expires);
#endif
}

#endif /* _TWHEEL_COMPAT_H */
