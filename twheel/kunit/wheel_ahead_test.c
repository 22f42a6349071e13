// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the pure twheel core's work ahead of its clock, driven by
 * a fake clock: tw_wheel_bucket() and tw_wheel_take() (a tick's level-0
 * bucket handed out before the tick), tw_wheel_cascade() (a tick's
 * cascades done before it), which the driver uses to fire a tick's timers
 * at their deadlines ("Exact buckets" in base/base.h).
 */
#include <kunit/test.h>
#include <linux/bitops.h>

#include "wheel_test.h"

/*
 * tw_wheel_bucket() finds a tick's level-0 bucket only while it holds that
 * tick's nodes alone, and tw_wheel_take() hands it out without moving the
 * clock: a node added later for the tick comes out when the clock gets
 * there, and nodes of the tick still in a higher level stay put.
 */
static void tw_test_take(struct kunit *test)
{
	/* Clock 1 tick before a level-1 boundary: 128 is level 1's bucket 2. */
	struct tw_wheel *w = tw_new(test, 6, 5, 127);
	struct tw_tmr *t = tw_new_timers(test, 5);
	struct hlist_head out = HLIST_HEAD_INIT;
	unsigned long budget;

	tw_wheel_add(w, &t[0].node, 127);
	tw_wheel_add(w, &t[1].node, 127);
	tw_wheel_add(w, &t[2].node, 128);	/* level 1 */
	KUNIT_EXPECT_NULL(test, tw_wheel_bucket(w, 126));	/* past */
	KUNIT_EXPECT_NULL(test, tw_wheel_bucket(w, 128));	/* next turn */
	KUNIT_EXPECT_NULL(test, tw_wheel_bucket(w, 127 + 64));	/* same index */
	KUNIT_ASSERT_NOT_NULL(test, tw_wheel_bucket(w, 127));
	KUNIT_EXPECT_PTR_EQ(test, tw_wheel_bucket(w, 127), &w->buckets[63]);

	/* A budget of one: the rest stays found. */
	budget = 1;
	KUNIT_EXPECT_EQ(test, tw_wheel_take(w, 127, &out, &budget), 1UL);
	KUNIT_EXPECT_EQ(test, budget, 0UL);
	KUNIT_EXPECT_NOT_NULL(test, tw_wheel_bucket(w, 127));
	budget = 8;
	KUNIT_EXPECT_EQ(test, tw_wheel_take(w, 127, &out, &budget), 1UL);
	KUNIT_EXPECT_EQ(test, budget, 7UL);
	KUNIT_EXPECT_EQ(test, tw_take(test, &out, 127), 2U);
	KUNIT_EXPECT_NULL(test, tw_wheel_bucket(w, 127));
	KUNIT_EXPECT_EQ(test, w->clk, 127ULL);
	KUNIT_EXPECT_EQ(test, w->pending, 1UL);
	KUNIT_EXPECT_EQ(test, w->bitmap[0], 0UL);
	KUNIT_EXPECT_EQ(test, tw_wheel_next(w), 128ULL);

	/* The clock on the boundary: its level-0 bucket takes new nodes. */
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, 127, &out), 0UL);
	KUNIT_EXPECT_EQ(test, w->clk, 128ULL);
	tw_wheel_add(w, &t[3].node, 128);
	tw_wheel_add(w, &t[4].node, 130);
	KUNIT_EXPECT_EQ(test, t[3].node.bucket, 0);
	KUNIT_EXPECT_NOT_NULL(test, tw_wheel_bucket(w, 130));
	budget = 8;
	KUNIT_EXPECT_EQ(test, tw_wheel_take(w, 128, &out, &budget), 1UL);
	KUNIT_EXPECT_EQ(test, tw_take(test, &out, 128), 1U);
	/* t[2] still waits in level 1 and comes out at 128. */
	KUNIT_EXPECT_TRUE(test, tw_node_in_wheel(&t[2].node));
	KUNIT_EXPECT_EQ(test, tw_wheel_next(w), 128ULL);
	tw_wheel_add(w, &t[3].node, 128);
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, 128, &out), 2UL);
	KUNIT_EXPECT_EQ(test, tw_take(test, &out, 128), 2U);
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, 130, &out), 1UL);
	KUNIT_EXPECT_EQ(test, tw_take(test, &out, 130), 1U);
	KUNIT_EXPECT_EQ(test, w->pending, 0UL);
}

/*
 * tw_wheel_cascade() on a level-1 boundary does the clock's cascades (and
 * its overflow pull) ahead of its tick and hands out nothing, so that the
 * tick's nodes are in its level-0 bucket; off a boundary it does nothing;
 * cut short by its budget it resumes; the advance then hands out each
 * node once, at its tick.
 */
static void tw_test_cascade(struct kunit *test)
{
	struct tw_wheel *w = tw_new(test, 6, 2, 100);
	struct tw_tmr *t = tw_new_timers(test, 4);
	struct hlist_head out = HLIST_HEAD_INIT;
	unsigned long budget;

	tw_wheel_add(w, &t[0].node, 128);	/* level 1, bucket 2 */
	tw_wheel_add(w, &t[1].node, 130);
	tw_wheel_add(w, &t[2].node, 131);
	tw_wheel_add(w, &t[3].node, 4096 + 5);	/* overflow */
	budget = 8;
	KUNIT_EXPECT_TRUE(test, tw_wheel_cascade(w, &budget));
	KUNIT_EXPECT_EQ(test, budget, 8UL);	/* off a boundary */
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, 127, &out), 0UL);
	KUNIT_EXPECT_EQ(test, w->clk, 128ULL);
	KUNIT_EXPECT_NULL(test, tw_wheel_bucket(w, 128));
	budget = 2;
	KUNIT_EXPECT_FALSE(test, tw_wheel_cascade(w, &budget));
	KUNIT_EXPECT_EQ(test, budget, 0UL);
	budget = 8;
	KUNIT_EXPECT_TRUE(test, tw_wheel_cascade(w, &budget));
	KUNIT_EXPECT_EQ(test, budget, 7UL);
	KUNIT_EXPECT_EQ(test, w->clk, 128ULL);
	KUNIT_EXPECT_EQ(test, w->cascaded, 3ULL);
	KUNIT_EXPECT_LT(test, t[1].node.bucket, 64);
	KUNIT_EXPECT_NOT_NULL(test, tw_wheel_bucket(w, 128));
	KUNIT_EXPECT_NOT_NULL(test, tw_wheel_bucket(w, 131));
	KUNIT_EXPECT_EQ(test, tw_wheel_next(w), 128ULL);
	KUNIT_EXPECT_EQ(test, w->pending, 4UL);
	/* Done: the advance finds no cascade left and hands out in order. */
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, 128, &out), 1UL);
	KUNIT_EXPECT_EQ(test, tw_take(test, &out, 128), 1U);
	KUNIT_EXPECT_EQ(test, w->cascaded, 3ULL);
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, 130, &out), 1UL);
	KUNIT_EXPECT_EQ(test, tw_take(test, &out, 130), 1U);
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, 131, &out), 1UL);
	KUNIT_EXPECT_EQ(test, tw_take(test, &out, 131), 1U);

	/* On the top turn's boundary: the overflow list is pulled. */
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, 4095, &out), 0UL);
	KUNIT_EXPECT_EQ(test, w->clk, 4096ULL);
	KUNIT_EXPECT_EQ(test, t[3].node.bucket, TW_BUCKET_OVERFLOW);
	budget = 8;
	KUNIT_EXPECT_TRUE(test, tw_wheel_cascade(w, &budget));
	KUNIT_EXPECT_NOT_NULL(test, tw_wheel_bucket(w, 4096 + 5));
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, 4096 + 5, &out), 1UL);
	KUNIT_EXPECT_EQ(test, tw_take(test, &out, 4096 + 5), 1U);
}

static struct kunit_case tw_ahead_cases[] = {
	KUNIT_CASE(tw_test_take),
	KUNIT_CASE(tw_test_cascade),
	{}
};

static struct kunit_suite tw_ahead_suite = {
	.name = "twheel-wheel-ahead",
	.test_cases = tw_ahead_cases,
};

kunit_test_suites(&tw_ahead_suite);
