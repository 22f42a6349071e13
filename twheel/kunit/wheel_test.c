// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the pure twheel core (wheel.c) driven by a fake clock.
 *
 * twheel-wheel-geometry: slot and level placement at every boundary of
 *	several geometries, exact expiry tick by tick and by jumps, the clamp
 *	at TW_MAX_TICK, past deadlines, del/drain/forward/next corner cases.
 * (twheel-wheel-model is wheel_model_test.c.)
 *
 * The wheel (about 4.3 KB) is always allocated with kunit_kzalloc().
 */
#include <kunit/test.h>
#include <linux/bitops.h>
#include <linux/module.h>
#include <linux/sort.h>

#include "wheel_test.h"

/* The default geometry, tiny ones that overflow constantly, the extremes. */
static const struct tw_geom tw_geoms[] = {
	{ 6, 5 }, { 2, 2 }, { 2, 1 }, { 3, 3 }, { 2, 8 }, { 4, 2 },
	{ 5, 4 }, { 6, 8 }, { 6, 1 },
};

static bool tw_geom_ok(const struct tw_geom *g)
{
	return g->bits <= TW_MAX_BITS;
}

/*
 * Reference placement, written independently of wheel.c: the lowest level
 * whose turn (the bits above it) the deadline shares with the clock.
 * Returns the bucket index, or TW_BUCKET_OVERFLOW.
 */
static unsigned int tw_ref_bucket(unsigned int bits, unsigned int levels,
				  u64 clk, u64 e)
{
	unsigned int lvl;

	for (lvl = 0; lvl < levels; lvl++) {
		unsigned int top = (lvl + 1) * bits;

		if ((e >> top) == (clk >> top))
			return (lvl << bits) +
			       ((e >> (lvl * bits)) & ((1U << bits) - 1));
	}
	return TW_BUCKET_OVERFLOW;
}

static void tw_test_init(struct kunit *test)
{
	struct tw_wheel *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct hlist_head out = HLIST_HEAD_INIT;

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_EQ(test, tw_wheel_init(w, TW_MIN_BITS - 1, 5, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, tw_wheel_init(w, TW_MAX_BITS + 1, 5, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, tw_wheel_init(w, 6, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, tw_wheel_init(w, 6, TW_MAX_LEVELS + 1, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, tw_wheel_init(w, TW_MIN_BITS, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, tw_wheel_horizon(w), 1ULL << TW_MIN_BITS);
	KUNIT_EXPECT_EQ(test, tw_wheel_init(w, TW_MAX_BITS, TW_MAX_LEVELS, 0),
			0);
	KUNIT_EXPECT_EQ(test, tw_wheel_horizon(w),
			1ULL << (TW_MAX_BITS * TW_MAX_LEVELS));

	/* The clock starts at (clamped) now; an empty wheel has no next. */
	KUNIT_ASSERT_EQ(test, tw_wheel_init(w, 6, 5, U64_MAX), 0);
	KUNIT_EXPECT_EQ(test, w->clk, TW_MAX_TICK);
	KUNIT_ASSERT_EQ(test, tw_wheel_init(w, 6, 5, 12345), 0);
	KUNIT_EXPECT_EQ(test, w->clk, 12345ULL);
	KUNIT_EXPECT_EQ(test, tw_wheel_next(w), TW_NO_TICK);
	KUNIT_EXPECT_EQ(test, w->pending, 0UL);
	KUNIT_EXPECT_EQ(test, tw_wheel_drain(w, &out, ULONG_MAX), 0UL);
	KUNIT_EXPECT_TRUE(test, hlist_empty(&out));
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, 1ULL << 40, &out), 0UL);
	KUNIT_EXPECT_EQ(test, w->clk, (1ULL << 40) + 1);
	KUNIT_EXPECT_EQ(test, tw_wheel_next(w), TW_NO_TICK);
}

/*
 * Interesting deadlines around @clk: the clock and the tick after it, one
 * before/at/after each level span S^k from the clock and each next level
 * boundary, the horizon, far, the clamp, the past. Returns how many.
 */
static unsigned int tw_edge_deadlines(const struct tw_geom *g, u64 clk,
				      u64 *d)
{
	unsigned int k, nr = 0;
	u64 span, edge;

	d[nr++] = clk;
	d[nr++] = clk + 1;
	d[nr++] = clk ? clk - 1 : 0;
	for (k = 1; k <= g->levels; k++) {
		span = 1ULL << (k * g->bits);
		d[nr++] = clk + span - 1;
		d[nr++] = clk + span;
		d[nr++] = clk + span + 1;
		edge = (clk | (span - 1)) + 1;
		d[nr++] = edge - 1;
		d[nr++] = edge;
		d[nr++] = edge + 1;
	}
	d[nr++] = clk + 5 * (1ULL << (g->levels * g->bits)) + 3;
	d[nr++] = TW_MAX_TICK - 1;
	d[nr++] = TW_MAX_TICK;
	d[nr++] = TW_MAX_TICK + 1;
	d[nr++] = U64_MAX;
	return nr;
}

#define TW_MAX_EDGES	(3 + 6 * TW_MAX_LEVELS + 5)

/* Clocks: level edges -1/+0/+1, just before/after turn boundaries. */
static unsigned int tw_edge_clocks(const struct tw_geom *g, u64 *c)
{
	unsigned int k, nr = 0;
	u64 span;

	c[nr++] = 0;
	c[nr++] = 1;
	for (k = 1; k <= g->levels; k++) {
		span = 1ULL << (k * g->bits);
		c[nr++] = span - 1;
		c[nr++] = span;
		c[nr++] = 3 * span + 1;
	}
	c[nr++] = 0x123456789abULL;
	c[nr++] = (1ULL << 48) - 2;
	return nr;
}

#define TW_MAX_CLOCKS	(4 + 3 * TW_MAX_LEVELS)

/*
 * One deadline @d alone in a wheel of geometry @g whose clock is @clk: it
 * goes to the bucket of the reference placement and fires exactly at its
 * tick: not at e - 1, at e.
 */
static void tw_check_placement(struct kunit *test, struct tw_wheel *w,
			       struct tw_node *n, const struct tw_geom *g,
			       u64 clk, u64 d)
{
	struct hlist_head out = HLIST_HEAD_INIT;
	u64 e = tw_eff(clk, d);

	tw_wheel_init(w, g->bits, g->levels, clk);
	tw_wheel_add(w, n, d);
	KUNIT_ASSERT_EQ_MSG(test, n->expires, e, "B=%u L=%u clk=%llu e=%llu",
			    g->bits, g->levels, clk, d);
	KUNIT_ASSERT_EQ_MSG(test, n->bucket,
			    tw_ref_bucket(g->bits, g->levels, clk, e),
			    "B=%u L=%u clk=%llu e=%llu",
			    g->bits, g->levels, clk, d);
	KUNIT_ASSERT_LE(test, tw_wheel_next(w), e);
	KUNIT_ASSERT_GE(test, tw_wheel_next(w), clk);
	if (e > clk)
		KUNIT_ASSERT_EQ(test, tw_wheel_advance(w, e - 1, &out), 0UL);
	KUNIT_ASSERT_EQ_MSG(test, tw_wheel_advance(w, e, &out), 1UL,
			    "B=%u L=%u clk=%llu e=%llu",
			    g->bits, g->levels, clk, d);
	KUNIT_ASSERT_EQ(test, tw_take(test, &out, e), 1U);
	KUNIT_ASSERT_EQ(test, w->clk, min_t(u64, e + 1, TW_MAX_TICK));
	KUNIT_ASSERT_LE(test, n->cascades, g->levels - 1);
	KUNIT_ASSERT_EQ(test, tw_wheel_next(w), TW_NO_TICK);
}

static void tw_test_placement(struct kunit *test)
{
	struct tw_wheel *w = tw_new(test, 2, 1, 0);
	struct tw_tmr *t = tw_new_timers(test, 1);
	u64 *d = kunit_kcalloc(test, TW_MAX_EDGES, sizeof(*d), GFP_KERNEL);
	u64 *c = kunit_kcalloc(test, TW_MAX_CLOCKS, sizeof(*c), GFP_KERNEL);
	unsigned int gi, ci, di, nc, nd, checked = 0;

	KUNIT_ASSERT_NOT_NULL(test, d);
	KUNIT_ASSERT_NOT_NULL(test, c);
	for (gi = 0; gi < ARRAY_SIZE(tw_geoms); gi++) {
		if (!tw_geom_ok(&tw_geoms[gi]))
			continue;
		nc = tw_edge_clocks(&tw_geoms[gi], c);
		for (ci = 0; ci < nc; ci++) {
			nd = tw_edge_deadlines(&tw_geoms[gi], c[ci], d);
			for (di = 0; di < nd; di++)
				tw_check_placement(test, w, &t->node,
						   &tw_geoms[gi], c[ci], d[di]);
			checked += nd;
		}
	}
	kunit_info(test, "%u (geometry, clock, deadline) placements\n",
		   checked);
}

/* Small geometries: a timer on every tick of two horizons, tick by tick. */
static void tw_test_tick_by_tick(struct kunit *test)
{
	static const struct tw_geom g[] = {
		{ 2, 1 }, { 2, 2 }, { 2, 3 }, { 3, 3 }, { 4, 2 }, { 2, 5 },
	};
	static const u64 start[] = { 0, 13, 0xffff, 0x10000 - 3, 1ULL << 40 };
	struct hlist_head out = HLIST_HEAD_INIT;
	unsigned int gi, si, i, nr;
	struct tw_wheel *w;
	struct tw_tmr *t;
	u64 clk, now;

	w = tw_new(test, 2, 1, 0);
	for (gi = 0; gi < ARRAY_SIZE(g); gi++) {
		nr = 2 * (1U << (g[gi].bits * g[gi].levels)) + 5;
		t = tw_new_timers(test, nr);
		for (si = 0; si < ARRAY_SIZE(start); si++) {
			clk = start[si];
			tw_wheel_init(w, g[gi].bits, g[gi].levels, clk);
			for (i = 0; i < nr; i++)
				tw_wheel_add(w, &t[i].node, clk + i);
			for (now = clk; now < clk + nr + 2; now++) {
				unsigned int want = now < clk + nr;

				KUNIT_ASSERT_EQ_MSG(test,
						    tw_wheel_advance(w, now, &out),
						    (unsigned long)want,
						    "B=%u L=%u start=%llu now=%llu",
						    g[gi].bits, g[gi].levels,
						    clk, now);
				KUNIT_ASSERT_EQ(test, tw_take(test, &out, now),
						want);
			}
			KUNIT_EXPECT_EQ(test, w->pending, 0UL);
			KUNIT_EXPECT_LE(test, w->max_cascades,
					g[gi].levels - 1);
		}
	}
}

static int tw_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * All edge deadlines of clock @clk in one wheel, reached by jumps: advancing
 * to e - 1 fires nothing due at e, advancing to e fires exactly those.
 */
static void tw_check_jumps(struct kunit *test, struct tw_wheel *w,
			   struct tw_tmr *t, u64 *d, const struct tw_geom *g,
			   u64 clk)
{
	struct hlist_head out = HLIST_HEAD_INIT;
	unsigned int i, j, nd;
	u64 e;

	tw_wheel_init(w, g->bits, g->levels, clk);
	nd = tw_edge_deadlines(g, clk, d);
	for (i = 0; i < nd; i++) {
		d[i] = tw_eff(clk, d[i]);
		tw_wheel_add(w, &t[i].node, d[i]);
	}
	sort(d, nd, sizeof(*d), tw_cmp_u64, NULL);
	for (i = 0; i < nd; i = j) {
		e = d[i];
		for (j = i; j < nd && d[j] == e; j++)
			;
		if (e > w->clk)
			KUNIT_ASSERT_EQ_MSG(test, tw_wheel_advance(w, e - 1, &out),
					    0UL, "B=%u L=%u clk=%llu e=%llu",
					    g->bits, g->levels, clk, e);
		KUNIT_ASSERT_GE(test, tw_wheel_next(w), w->clk);
		KUNIT_ASSERT_LE(test, tw_wheel_next(w), e);
		KUNIT_ASSERT_EQ_MSG(test, tw_wheel_advance(w, e, &out),
				    (unsigned long)(j - i),
				    "B=%u L=%u clk=%llu e=%llu",
				    g->bits, g->levels, clk, e);
		KUNIT_ASSERT_EQ(test, tw_take(test, &out, e), j - i);
	}
	KUNIT_EXPECT_EQ(test, w->pending, 0UL);
	KUNIT_EXPECT_LE(test, w->max_cascades, g->levels - 1);
}

static void tw_test_jumps(struct kunit *test)
{
	struct tw_tmr *t = tw_new_timers(test, TW_MAX_EDGES);
	u64 *d = kunit_kcalloc(test, TW_MAX_EDGES, sizeof(*d), GFP_KERNEL);
	u64 *c = kunit_kcalloc(test, TW_MAX_CLOCKS, sizeof(*c), GFP_KERNEL);
	struct tw_wheel *w = tw_new(test, 2, 1, 0);
	struct hlist_head out = HLIST_HEAD_INIT;
	unsigned int gi, ci, i, nc, nd;
	u64 e;

	KUNIT_ASSERT_NOT_NULL(test, d);
	KUNIT_ASSERT_NOT_NULL(test, c);
	for (gi = 0; gi < ARRAY_SIZE(tw_geoms); gi++) {
		if (!tw_geom_ok(&tw_geoms[gi]))
			continue;
		nc = tw_edge_clocks(&tw_geoms[gi], c);
		for (ci = 0; ci < nc; ci++)
			tw_check_jumps(test, w, t, d, &tw_geoms[gi], c[ci]);
	}

	/* Default geometry, tick by tick across two level-1 turns. */
	tw_wheel_init(w, 6, 5, (1ULL << 24) - 70);
	nd = tw_edge_deadlines(&tw_geoms[0], w->clk, d);
	for (i = 0; i < nd; i++)
		tw_wheel_add(w, &t[i].node, d[i]);
	for (e = w->clk; e < (1ULL << 24) + 4096 + 2; e++) {
		tw_wheel_advance(w, e, &out);
		tw_take(test, &out, e);
	}
}

/* Deadlines at and beyond TW_MAX_TICK, and the clock saturating there. */
static void tw_test_max_tick(struct kunit *test)
{
	struct tw_wheel *w = tw_new(test, 6, 5, TW_MAX_TICK - 100);
	struct tw_tmr *t = tw_new_timers(test, 4);
	struct hlist_head out = HLIST_HEAD_INIT;

	tw_wheel_add(w, &t[0].node, TW_MAX_TICK);
	tw_wheel_add(w, &t[1].node, TW_MAX_TICK + 1);
	tw_wheel_add(w, &t[2].node, U64_MAX);
	tw_wheel_add(w, &t[3].node, TW_MAX_TICK - 1);
	KUNIT_EXPECT_EQ(test, t[0].node.expires, TW_MAX_TICK);
	KUNIT_EXPECT_EQ(test, t[1].node.expires, TW_MAX_TICK);
	KUNIT_EXPECT_EQ(test, t[2].node.expires, TW_MAX_TICK);
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, TW_MAX_TICK - 2, &out), 0UL);
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, TW_MAX_TICK - 1, &out), 1UL);
	KUNIT_EXPECT_EQ(test, tw_take(test, &out, TW_MAX_TICK - 1), 1U);
	/* U64_MAX is clamped: it does not wrap the clock into the past. */
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, U64_MAX, &out), 3UL);
	KUNIT_EXPECT_EQ(test, tw_take(test, &out, TW_MAX_TICK), 3U);
	KUNIT_EXPECT_EQ(test, w->clk, TW_MAX_TICK);

	/* The clock saturates: later timers are clamped and still fire. */
	tw_wheel_add(w, &t[0].node, 5);
	tw_wheel_add(w, &t[1].node, U64_MAX);
	KUNIT_EXPECT_EQ(test, t[0].node.expires, TW_MAX_TICK);
	KUNIT_EXPECT_EQ(test, tw_wheel_next(w), TW_MAX_TICK);
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, TW_MAX_TICK - 1, &out), 0UL);
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, U64_MAX, &out), 2UL);
	KUNIT_EXPECT_EQ(test, tw_take(test, &out, TW_MAX_TICK), 2U);
	KUNIT_EXPECT_EQ(test, w->clk, TW_MAX_TICK);
	KUNIT_EXPECT_EQ(test, tw_wheel_next(w), TW_NO_TICK);

	/* From a clock of 0: the clamped deadline sits on the overflow list. */
	tw_wheel_init(w, 2, 2, 0);
	tw_wheel_add(w, &t[0].node, U64_MAX);
	KUNIT_EXPECT_EQ(test, t[0].node.bucket, TW_BUCKET_OVERFLOW);
	KUNIT_EXPECT_EQ(test, tw_wheel_next(w), TW_MAX_TICK);
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, TW_MAX_TICK - 1, &out), 0UL);
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, TW_MAX_TICK, &out), 1UL);
	KUNIT_EXPECT_EQ(test, tw_take(test, &out, TW_MAX_TICK), 1U);
}

/* A past deadline is due at the next advance, never before the clock. */
static void tw_test_past(struct kunit *test)
{
	struct tw_wheel *w = tw_new(test, 6, 5, 1000);
	struct tw_tmr *t = tw_new_timers(test, 3);
	struct hlist_head out = HLIST_HEAD_INIT;

	tw_wheel_add(w, &t[0].node, 0);
	tw_wheel_add(w, &t[1].node, 999);
	tw_wheel_add(w, &t[2].node, 1000);
	KUNIT_EXPECT_EQ(test, t[0].node.expires, 1000ULL);
	KUNIT_EXPECT_EQ(test, t[1].node.expires, 1000ULL);
	KUNIT_EXPECT_EQ(test, tw_wheel_next(w), 1000ULL);
	/* An advance into the past is a no-op. */
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, 999, &out), 0UL);
	KUNIT_EXPECT_EQ(test, w->clk, 1000ULL);
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, 1000, &out), 3UL);
	KUNIT_EXPECT_EQ(test, tw_take(test, &out, 1000), 3U);
	KUNIT_EXPECT_EQ(test, w->clk, 1001ULL);
}

/* del clears the bucket's bitmap bit with the bucket's last node only. */
static void tw_test_del(struct kunit *test)
{
	struct tw_wheel *w = tw_new(test, 6, 5, 0);
	struct tw_tmr *t = tw_new_timers(test, 4);
	unsigned int b;

	tw_wheel_add(w, &t[0].node, 100);
	tw_wheel_add(w, &t[1].node, 100);
	b = t[0].node.bucket;
	KUNIT_EXPECT_EQ(test, t[1].node.bucket, b);
	KUNIT_EXPECT_EQ(test, b, tw_ref_bucket(6, 5, 0, 100));
	KUNIT_EXPECT_TRUE(test, test_bit(b & 63, &w->bitmap[b >> 6]));
	tw_wheel_del(w, &t[0].node);
	KUNIT_EXPECT_FALSE(test, tw_node_in_wheel(&t[0].node));
	KUNIT_EXPECT_TRUE(test, test_bit(b & 63, &w->bitmap[b >> 6]));
	tw_wheel_del(w, &t[1].node);
	KUNIT_EXPECT_FALSE(test, test_bit(b & 63, &w->bitmap[b >> 6]));
	KUNIT_EXPECT_EQ(test, w->bitmap[b >> 6], 0UL);
	KUNIT_EXPECT_EQ(test, w->pending, 0UL);
	KUNIT_EXPECT_EQ(test, tw_wheel_next(w), TW_NO_TICK);

	/* Overflow: the bound is reset when the list empties. */
	tw_wheel_add(w, &t[2].node, 1ULL << 31);
	tw_wheel_add(w, &t[3].node, 1ULL << 32);
	KUNIT_EXPECT_EQ(test, w->ovf_min, 1ULL << 31);
	KUNIT_EXPECT_EQ(test, t[2].node.bucket, TW_BUCKET_OVERFLOW);
	KUNIT_EXPECT_EQ(test, tw_wheel_next(w), 1ULL << 31);
	tw_wheel_del(w, &t[2].node);
	/* A stale lower bound is allowed: never later than the truth. */
	KUNIT_EXPECT_LE(test, tw_wheel_next(w), 1ULL << 32);
	tw_wheel_del(w, &t[3].node);
	KUNIT_EXPECT_EQ(test, w->ovf_min, TW_NO_TICK);
	KUNIT_EXPECT_EQ(test, tw_wheel_next(w), TW_NO_TICK);
	KUNIT_EXPECT_EQ(test, w->pending, 0UL);
}

/*
 * The cached next tick: lowered by an add into an empty bucket, left stale
 * by a del (that tick is then processed as a no-op), reset by forward. The
 * *next of an advance is exact all the same.
 */
static void tw_test_next_cache(struct kunit *test)
{
	struct tw_wheel *w = tw_new(test, 6, 5, 0);
	struct tw_tmr *t = tw_new_timers(test, 3);
	struct hlist_head out = HLIST_HEAD_INIT;
	unsigned long budget = ULONG_MAX;
	u64 next;

	/* Level 2, due for its cascade at 4096. */
	tw_wheel_add(w, &t[0].node, 5000);
	KUNIT_EXPECT_EQ(test, w->next, 4096ULL);
	tw_wheel_add(w, &t[1].node, 10);
	tw_wheel_add(w, &t[2].node, 10);
	KUNIT_EXPECT_EQ(test, w->next, 10ULL);
	tw_wheel_del(w, &t[1].node);
	tw_wheel_del(w, &t[2].node);
	KUNIT_EXPECT_EQ(test, w->next, 10ULL);
	KUNIT_EXPECT_EQ(test, tw_wheel_next(w), 4096ULL);
	/* Nothing due: *next is the exact tick, not the stale one. */
	KUNIT_EXPECT_EQ(test, tw_wheel_advance_budget(w, 5, &out, &budget,
						      &next), 0UL);
	KUNIT_EXPECT_EQ(test, next, 4096ULL);
	KUNIT_EXPECT_EQ(test, w->clk, 6ULL);
	/* Stale again; the no-op tick 10, then the cascade at 4096. */
	tw_wheel_add(w, &t[1].node, 10);
	tw_wheel_del(w, &t[1].node);
	KUNIT_EXPECT_EQ(test, tw_wheel_advance_budget(w, 4096, &out, &budget,
						      &next), 0UL);
	KUNIT_EXPECT_EQ(test, w->clk, 4097ULL);
	/* Now at level 1, due for its cascade at 4992. */
	KUNIT_EXPECT_EQ(test, next, 4992ULL);
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, 4999, &out), 0UL);
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, 5000, &out), 1UL);
	KUNIT_EXPECT_EQ(test, tw_take(test, &out, 5000), 1U);
	KUNIT_EXPECT_EQ(test, t[0].node.cascades, 2);
	KUNIT_EXPECT_EQ(test, tw_wheel_next(w), TW_NO_TICK);
	tw_wheel_add(w, &t[2].node, 6000);
	tw_wheel_del(w, &t[2].node);
	tw_wheel_forward(w, 1ULL << 20);
	KUNIT_EXPECT_EQ(test, w->next, TW_NO_TICK);
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, 1ULL << 21, &out), 0UL);
	KUNIT_EXPECT_EQ(test, w->clk, (1ULL << 21) + 1);
}

/* drain takes everything, keeps the deadlines, leaves an empty wheel. */
static void tw_test_drain(struct kunit *test)
{
	struct tw_wheel *w = tw_new(test, 3, 3, 7);
	struct tw_tmr *t = tw_new_timers(test, 40);
	struct hlist_head out = HLIST_HEAD_INIT;
	unsigned long sum = 0, want = 0;
	struct tw_node *n;
	unsigned int i;

	for (i = 0; i < 40; i++) {
		tw_wheel_add(w, &t[i].node, 7 + (1ULL << (i / 4)) + i);
		want += t[i].node.expires;
	}
	KUNIT_EXPECT_FALSE(test, hlist_empty(&w->overflow));
	KUNIT_EXPECT_EQ(test, tw_wheel_drain(w, &out, ULONG_MAX), 40UL);
	KUNIT_EXPECT_EQ(test, w->pending, 0UL);
	KUNIT_EXPECT_TRUE(test, hlist_empty(&w->overflow));
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, w->bitmap[i], 0UL);
	for (i = 0; i < TW_MAX_BUCKETS; i++)
		KUNIT_EXPECT_TRUE(test, hlist_empty(&w->buckets[i]));
	KUNIT_EXPECT_EQ(test, tw_wheel_next(w), TW_NO_TICK);
	hlist_for_each_entry(n, &out, entry) {
		KUNIT_EXPECT_FALSE(test, tw_node_in_wheel(n));
		sum += n->expires;
	}
	KUNIT_EXPECT_EQ(test, sum, want);
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, U64_MAX, &out), 0UL);
}

/* forward moves only an empty wheel's clock, only forward. */
static void tw_test_forward(struct kunit *test)
{
	struct tw_wheel *w = tw_new(test, 6, 5, 100);
	struct tw_tmr *t = tw_new_timers(test, 1);
	struct hlist_head out = HLIST_HEAD_INIT;

	tw_wheel_forward(w, 50);
	KUNIT_EXPECT_EQ(test, w->clk, 100ULL);
	tw_wheel_forward(w, 1ULL << 40);
	KUNIT_EXPECT_EQ(test, w->clk, 1ULL << 40);
	/* After forward, a near deadline lands at level 0. */
	tw_wheel_add(w, &t->node, (1ULL << 40) + 3);
	KUNIT_EXPECT_LT(test, t->node.bucket, 64);
	tw_wheel_forward(w, 1ULL << 41);
	KUNIT_EXPECT_EQ(test, w->clk, 1ULL << 40);
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, (1ULL << 40) + 3, &out), 1UL);
	tw_take(test, &out, (1ULL << 40) + 3);
	tw_wheel_forward(w, U64_MAX);
	KUNIT_EXPECT_EQ(test, w->clk, TW_MAX_TICK);
}

/*
 * A huge idle gap with few timers costs O(levels) per timer, not per tick:
 * each timer cascades at most L - 1 times, and the clock jumps.
 */
static void tw_test_big_gap(struct kunit *test)
{
	struct tw_wheel *w = tw_new(test, 6, 5, 42);
	struct tw_tmr *t = tw_new_timers(test, 4);
	struct hlist_head out = HLIST_HEAD_INIT;
	static const u64 e[] = {
		(1ULL << 29) + 5, (1ULL << 30) - 1, (1ULL << 36) + 77,
		(1ULL << 44) + 12345,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(e); i++)
		tw_wheel_add(w, &t[i].node, e[i]);
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, 1ULL << 50, &out), 4UL);
	KUNIT_EXPECT_EQ(test, w->clk, (1ULL << 50) + 1);
	KUNIT_EXPECT_LE(test, w->cascaded, 4ULL * (5 - 1));
	KUNIT_EXPECT_LE(test, w->max_cascades, 4U);
	for (i = 0; i < ARRAY_SIZE(e); i++) {
		KUNIT_EXPECT_LE(test, t[i].node.cascades, 4);
		KUNIT_EXPECT_EQ(test, t[i].node.expires, e[i]);
		KUNIT_EXPECT_FALSE(test, tw_node_in_wheel(&t[i].node));
	}
	/* An idle gap of 2^60 ticks is one step of the clock. */
	KUNIT_EXPECT_EQ(test, tw_wheel_advance(w, 1ULL << 60, &out), 0UL);
	KUNIT_EXPECT_EQ(test, w->clk, (1ULL << 60) + 1);
}

static struct kunit_case tw_geometry_cases[] = {
	KUNIT_CASE(tw_test_init),
	KUNIT_CASE(tw_test_placement),
	KUNIT_CASE(tw_test_tick_by_tick),
	KUNIT_CASE(tw_test_jumps),
	KUNIT_CASE(tw_test_max_tick),
	KUNIT_CASE(tw_test_past),
	KUNIT_CASE(tw_test_del),
	KUNIT_CASE(tw_test_next_cache),
	KUNIT_CASE(tw_test_drain),
	KUNIT_CASE(tw_test_forward),
	KUNIT_CASE(tw_test_big_gap),
	{}
};

static struct kunit_suite tw_geometry_suite = {
	.name = "twheel-wheel-geometry",
	.test_cases = tw_geometry_cases,
};

kunit_test_suites(&tw_geometry_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for the twheel timing wheel");
