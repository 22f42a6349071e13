/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the KUnit tests of the twheel per-CPU driver
 * (driver_test.c, driver_sync_test.c), defined in driver_helpers.c: bounds,
 * waits, a timer cancelled when the test ends, and sets of one-shot timers
 * checked for exact, on-time, on-CPU expiry.
 */
#ifndef _TWHEEL_KUNIT_DRIVER_TEST_H
#define _TWHEEL_KUNIT_DRIVER_TEST_H

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/hrtimer.h>
#include <linux/twheel.h>
#include <linux/types.h>
#include <linux/workqueue.h>
/* Upper bound on any wait for a callback. */
#define TWT_TIMEOUT_MS		10000
/* u64: ten seconds in ns does not fit a 32-bit long. */
#define TWT_MS			((u64)NSEC_PER_MSEC)

struct twt_set;

/*
 * A control: an hrtimer on a CPU that queues a work item on that CPU's
 * high-priority workqueue, the path of a twheel callback without the
 * wheel. Its lateness (work start - deadline) is what the system added in
 * that window; a twheel callback due then may be one tick later.
 */
struct twt_ctrl {
	struct hrtimer		hrt;
	struct work_struct	work;
	u64			deadline;
	u64			late;		/* set when the work ran */
	int			cpu;
	bool			armed;
	struct completion	done;
};

struct twt_one {
	struct twheel_timer	timer;
	struct twt_set		*set;
	u64			deadline;	/* absolute, ns */
	u64			fired_ns;	/* ktime at callback start */
	u64			late_from;	/* lateness from here, if after @deadline */
	int			cpu;		/* CPU armed on, or -1 */
	int			fired_cpu;
	bool			armed;
	bool			in_task;
	atomic_t		fired;
	struct twt_ctrl		ctrl;		/* due with it, on its CPU */
};

struct twt_set {
	struct twt_one		*t;
	unsigned int		n;
	atomic_t		left;		/* callbacks expected, + 1 */
	atomic_t		calls;		/* callbacks run */
	struct completion	done;		/* left reached 0 */
};

void twt_ctrl_init(struct twt_ctrl *c);
void twt_ctrl_arm(struct twt_ctrl *c, u64 deadline, int cpu);
void twt_ctrl_stop(struct twt_ctrl *c);
u64 twt_ctrl_late(struct kunit *test, struct twt_ctrl *c);
int twt_case_init(struct kunit *test);
u64 twt_late_max(u64 ctrl_late);
bool twt_wait(struct completion *c);
void twt_cancel_at_end(struct kunit *test, struct twheel_timer *t);
void twt_noop_fn(struct twheel_timer *timer);
struct twheel_timer *twt_timer_alloc(struct kunit *test, twheel_func_t fn);
struct twt_set *twt_set_alloc(struct kunit *test, unsigned int n);
int twt_one_arm(struct twt_one *t, u64 delta, int cpu);
void twt_set_check(struct kunit *test, struct twt_set *set,
		   unsigned int armed, bool any_cpu);
/* Runs of a case whose lateness may be judged in any one of them. */
#define TWT_WINDOWS	3
bool twt_set_check_window(struct kunit *test, struct twt_set *set,
			  unsigned int armed, bool any_cpu, bool last);
struct twheel_base_snapshot;
void twt_snapshot(struct kunit *test, int cpu,
		  struct twheel_base_snapshot *snap);
void twt_wait_idle(struct kunit *test, int cpu,
		   struct twheel_base_snapshot *snap);

#endif /* _TWHEEL_KUNIT_DRIVER_TEST_H */
