/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The KUnit suite twheel_tick of the bounded tick, in three files that
 * share it through here: tick_test.c (the tick's own cases, the bursts of
 * timers they arm, the suite), tick_system_test.c (the tick against the
 * rest of the system, with the test-only delay hooks) and
 * tick_exact_test.c (exact buckets).
 */
#ifndef _TWHEEL_KUNIT_TICK_TEST_H
#define _TWHEEL_KUNIT_TICK_TEST_H

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/twheel.h>
#include <linux/types.h>

#define TWK_TIMEOUT_MS		10000

struct twk_timer {
	struct twheel_timer	timer;
	struct twk_burst	*burst;
	u64			fired_ns;
	atomic_t		fired;
	bool			irqs_off;
	bool			in_task;
	bool			in_worker;
};

struct twk_burst {
	struct completion	done;
	atomic_t		left;
	u64			deadline;
	atomic_t		early;
};

struct twk_timer *twk_burst_arm(struct kunit *test, struct twk_burst *b,
				unsigned int n, bool tick, int cpu, u64 in_ns);
void twk_burst_check(struct kunit *test, struct twk_burst *b,
		     struct twk_timer *k, unsigned int n);

/* The cases of tick_system_test.c, in the suite of tick_test.c. */
void twk_tick_restarted(struct kunit *test);
void twk_behind_runners_asleep(struct kunit *test);
void twk_clock_not_under_lock(struct kunit *test);

/* The cases of tick_exact_test.c, in the suite of tick_test.c. */
void twk_exact_bucket(struct kunit *test);
void twk_exact_arm_order(struct kunit *test);
void twk_exact_remote(struct kunit *test);
void twk_exact_within(struct kunit *test);
void twk_exact_tries(struct kunit *test);
void twk_exact_cascade(struct kunit *test);

#endif /* _TWHEEL_KUNIT_TICK_TEST_H */
