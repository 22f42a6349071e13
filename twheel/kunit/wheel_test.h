/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the KUnit tests of the pure twheel core (wheel_test.c,
 * wheel_ahead_test.c, wheel_model_test.c): a geometry, a wheel and timers
 * allocated with kunit_kzalloc(), the deadline as the wheel clamps it, a
 * check of the nodes a call handed out.
 */
#ifndef _TWHEEL_KUNIT_WHEEL_TEST_H
#define _TWHEEL_KUNIT_WHEEL_TEST_H

#include <kunit/test.h>
#include <linux/minmax.h>
#include <linux/slab.h>

#include "../wheel.h"

struct tw_geom {
	unsigned int bits;
	unsigned int levels;
};

struct tw_tmr {
	struct tw_node	node;
	bool		armed;	/* reference: in the wheel */
	u64		eff;	/* reference: effective deadline */
};

static inline struct tw_wheel *tw_new(struct kunit *test, unsigned int bits,
				      unsigned int levels, u64 now)
{
	struct tw_wheel *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_EQ(test, tw_wheel_init(w, bits, levels, now), 0);
	return w;
}

static inline struct tw_tmr *tw_new_timers(struct kunit *test, unsigned int nr)
{
	struct tw_tmr *t = kunit_kcalloc(test, nr, sizeof(*t), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, t);
	for (i = 0; i < nr; i++)
		tw_node_init(&t[i].node);
	return t;
}

/* Deadline after clamping, as tw_wheel_add() must store it. */
static inline u64 tw_eff(u64 clk, u64 expires)
{
	return max(min_t(u64, expires, TW_MAX_TICK), clk);
}

/* Take every node off @list, check its deadline, return how many. */
static inline unsigned int tw_take(struct kunit *test,
				   struct hlist_head *list, u64 want_expires)
{
	struct hlist_node *tmp;
	struct tw_node *n;
	unsigned int nr = 0;

	hlist_for_each_entry_safe(n, tmp, list, entry) {
		hlist_del_init(&n->entry);
		KUNIT_EXPECT_EQ(test, n->expires, want_expires);
		KUNIT_EXPECT_EQ(test, n->bucket, TW_BUCKET_NONE);
		nr++;
	}
	return nr;
}

#endif /* _TWHEEL_KUNIT_WHEEL_TEST_H */
