// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the pure twheel core (wheel.c) driven by a fake clock.
 *
 * twheel-wheel-geometry: slot and level placement at every boundary of
 *	several geometries, exact expiry tick by tick and by jumps, the clamp
 *	at TW_MAX_TICK, past deadlines, del/drain/forward/next corner cases.
 * twheel-wheel-model: random operations against a trivially correct
 *	reference model (an array of armed flags and effective deadlines).
 *
 * The wheel (about 4.3 KB) is always allocated with kunit_kzalloc().
 */
#include <kunit/test.h>
#include <linux/bitops.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "../wheel.h"

struct tw_geom {
	unsigned int bits;
	unsigned int levels;
};

/* The default geometry, tiny ones that overflow constantly, the extremes. */
static const struct tw_geom tw_geoms[] = {
	{ 6, 5 }, { 2, 2 }, { 2, 1 }, { 3, 3 }, { 2, 8 }, { 4, 2 },
	{ 5, 4 }, { 6, 8 }, { 6, 1 },
};

struct tw_tmr {
	struct tw_node	node;
	bool		armed;	/* reference: in the wheel */
	u64		eff;	/* reference: effective deadline */
};

static struct tw_wheel *tw_new(struct kunit *test, unsigned int bits,
			       unsigned int levels, u64 now)
{
	struct tw_wheel *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_EQ(test, tw_wheel_init(w, bits, levels, now), 0);
	return w;
}

static struct tw_tmr *tw_new_timers(struct kunit *test, unsigned int nr)
{
	struct tw_tmr *t = kunit_kcalloc(test, nr, sizeof(*t), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, t);
	for (i = 0; i < nr; i++)
		tw_node_init(&t[i].node);
	return t;
}

static bool tw_geom_ok(const struct tw_geom *g)
{
	return g->bits <= TW_MAX_BITS;
}

/* Deadline after clamping, as tw_wheel_add() must store it. */
static u64 tw_eff(u64 clk, u64 expires)
{
	return max(min_t(u64, expires, TW_MAX_TICK), clk);
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

/* Take every node off @list, check its deadline, return how many. */
static unsigned int tw_take(struct kunit *test, struct hlist_head *list,
			    u64 want_expires)
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

/* ------------------------------------------------------------------------
 * Model test
 */

struct tw_model_param {
	struct tw_geom	geom;
	u64		seed;
	u64		ops;
};

/* 300000 operations in all: 4 geometries x 3 seeds x 25000 ops. */
#define TW_MODEL_OPS	25000
#define TW_MODEL_TIMERS	96

static const struct tw_model_param tw_model_params[] = {
	{ { 6, 5 }, 1, TW_MODEL_OPS }, { { 6, 5 }, 2, TW_MODEL_OPS },
	{ { 6, 5 }, 3, TW_MODEL_OPS },
	{ { 2, 2 }, 1, TW_MODEL_OPS }, { { 2, 2 }, 2, TW_MODEL_OPS },
	{ { 2, 2 }, 3, TW_MODEL_OPS },
	{ { 3, 3 }, 1, TW_MODEL_OPS }, { { 3, 3 }, 2, TW_MODEL_OPS },
	{ { 3, 3 }, 3, TW_MODEL_OPS },
	{ { 2, 8 }, 1, TW_MODEL_OPS }, { { 2, 8 }, 2, TW_MODEL_OPS },
	{ { 2, 8 }, 3, TW_MODEL_OPS },
};

static void tw_model_desc(const struct tw_model_param *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "B=%u L=%u seed=%llu ops=%llu",
		 p->geom.bits, p->geom.levels, p->seed, p->ops);
}

KUNIT_ARRAY_PARAM(tw_model, tw_model_params, tw_model_desc);

struct tw_model {
	struct kunit	*test;
	struct tw_wheel	*w;
	struct tw_tmr	*t;
	unsigned int	nt;
	u64		rng;
	u64		op;
	u64		armed, expired, cancelled, pending;
};

static u64 tw_rnd(struct tw_model *m)
{
	/* xorshift64*: the same sequence on every kernel and on the host. */
	m->rng ^= m->rng >> 12;
	m->rng ^= m->rng << 25;
	m->rng ^= m->rng >> 27;
	return m->rng * 0x2545F4914F6CDD1DULL;
}

static u64 tw_below(struct tw_model *m, u64 n)
{
	return n ? tw_rnd(m) % n : 0;
}

static u64 tw_sat_add(u64 a, u64 b)
{
	return a + b < a ? U64_MAX : a + b;
}

static u64 tw_model_deadline(struct tw_model *m)
{
	u64 clk = m->w->clk, s = 1ULL << m->w->bits;
	u64 h = tw_wheel_horizon(m->w), span;
	unsigned int k;

	switch (tw_below(m, 12)) {
	case 0:		/* in the past, or the clock */
		return clk - min_t(u64, clk, tw_below(m, 1000));
	case 1:
		return clk + tw_below(m, 2);
	case 2:
		return clk + tw_below(m, s);
	case 3:
		return clk + tw_below(m, s * s);
	case 4:
		return tw_sat_add(clk, tw_below(m, h));
	case 5:		/* overflow */
		return tw_sat_add(clk, h + tw_below(m, 4 * h));
	case 6:		/* next boundary of some level, -1, +0, +1 */
		k = tw_below(m, m->w->levels + 1);
		span = 1ULL << (k * m->w->bits);
		return (clk | (span - 1)) + tw_below(m, 3);
	case 7:		/* the end of the tick range */
		return TW_MAX_TICK - 1 + tw_below(m, 3) +
		       (tw_below(m, 2) ? 0 : U64_MAX - TW_MAX_TICK - 1);
	case 8:
		return tw_sat_add(clk, tw_below(m, 64 * h));
	default:
		k = tw_below(m, m->w->levels) + 1;
		return tw_sat_add(clk, tw_below(m, 1ULL << (k * m->w->bits)));
	}
}

static u64 tw_model_earliest(const struct tw_model *m)
{
	u64 e = TW_NO_TICK;
	unsigned int i;

	for (i = 0; i < m->nt; i++)
		if (m->t[i].armed)
			e = min(e, m->t[i].eff);
	return e;
}

static u64 tw_model_now(struct tw_model *m)
{
	u64 clk = m->w->clk, s = 1ULL << m->w->bits;
	u64 h = tw_wheel_horizon(m->w), e;

	switch (tw_below(m, 12)) {
	case 0: case 1: case 2: case 3:
		return clk;			/* one tick */
	case 4:
		return clk - min_t(u64, clk, 1);	/* none (past) */
	case 5:
		return clk + tw_below(m, s);
	case 6:
		return clk + tw_below(m, s * s);
	case 7:
		return tw_sat_add(clk, tw_below(m, h));
	case 8:			/* big jump */
		return tw_sat_add(clk, h * tw_below(m, 8) + tw_below(m, h));
	case 9:			/* to, or just before, the earliest deadline */
		e = tw_model_earliest(m);
		if (e == TW_NO_TICK || e - clk > 64 * h)
			return clk;
		return e - tw_below(m, 2);
	case 10:
		e = tw_wheel_next(m->w);
		return e == TW_NO_TICK || e - clk > 64 * h ? clk : e;
	default:		/* rarely the end of time: the clock saturates */
		if (!tw_below(m, 20000))
			return U64_MAX;
		return tw_sat_add(clk, tw_below(m, 1ULL << (m->w->bits *
					(1 + tw_below(m, m->w->levels)))));
	}
}

#define TW_MODEL_FAIL(m, fmt, ...) ({					\
	const struct tw_model *__m = (m);				\
									\
	KUNIT_FAIL(__m->test, "op %llu clk %llu: " fmt, __m->op,	\
		   __m->w->clk, ##__VA_ARGS__);				\
	false;								\
})

static bool tw_model_arm(struct tw_model *m, struct tw_tmr *t)
{
	u64 e = tw_model_deadline(m);

	if (t->armed) {			/* modify = del + add */
		tw_wheel_del(m->w, &t->node);
		m->cancelled++;
		m->pending--;
	}
	tw_wheel_add(m->w, &t->node, e);
	t->armed = true;
	t->eff = tw_eff(m->w->clk, e);
	m->armed++;
	m->pending++;
	if (t->node.expires != t->eff)
		return TW_MODEL_FAIL(m, "add(%llu) stored %llu, want %llu", e,
				     t->node.expires, t->eff);
	return true;
}

static bool tw_model_cancel(struct tw_model *m, struct tw_tmr *t)
{
	if (!t->armed)
		return true;
	tw_wheel_del(m->w, &t->node);
	t->armed = false;
	m->cancelled++;
	m->pending--;
	if (tw_node_in_wheel(&t->node))
		return TW_MODEL_FAIL(m, "deleted node still in the wheel");
	return true;
}

static bool tw_model_advance(struct tw_model *m, u64 now)
{
	u64 nowc = min_t(u64, now, TW_MAX_TICK), old = m->w->clk, want = 0;
	struct hlist_head out = HLIST_HEAD_INIT;
	unsigned long got, listed = 0;
	struct hlist_node *tmp;
	struct tw_node *n;
	unsigned int i;
	bool ok = true;

	for (i = 0; i < m->nt; i++)
		if (m->t[i].armed && m->t[i].eff <= nowc)
			want++;
	if (tw_below(m, 2)) {
		got = tw_wheel_advance(m->w, now, &out);
	} else {
		/* Bounded passes, as the driver's tick makes them. */
		unsigned long budget;
		u64 next;

		got = 0;
		do {
			budget = 1 + tw_below(m, 8);
			got += tw_wheel_advance_budget(m->w, now, &out, &budget,
						       &next);
			if (next != tw_wheel_next(m->w))
				ok = TW_MODEL_FAIL(m, "advance: next %llu, wheel %llu",
						   next, tw_wheel_next(m->w));
		} while (!budget && next <= nowc);
		if (tw_wheel_next(m->w) <= nowc)
			ok = TW_MODEL_FAIL(m, "bounded pass left work at %llu",
					   tw_wheel_next(m->w));
	}
	hlist_for_each_entry_safe(n, tmp, &out, entry) {
		struct tw_tmr *t = container_of(n, struct tw_tmr, node);

		hlist_del_init(&n->entry);
		listed++;
		if (!t->armed)
			ok = TW_MODEL_FAIL(m, "expired a timer not armed");
		else if (t->eff > nowc)
			ok = TW_MODEL_FAIL(m, "early: due %llu, now %llu",
					   t->eff, now);
		else if (t->eff < old)
			ok = TW_MODEL_FAIL(m, "late: due %llu, clock was %llu",
					   t->eff, old);
		if (tw_node_in_wheel(n))
			ok = TW_MODEL_FAIL(m, "expired node still in wheel");
		if (n->cascades > m->w->levels - 1)
			ok = TW_MODEL_FAIL(m, "%u cascades", n->cascades);
		t->armed = false;
	}
	if (got != listed || got != want)
		ok = TW_MODEL_FAIL(m, "advance(%llu): %lu returned, %lu listed, reference %llu",
				   now, got, listed, want);
	m->expired += got;
	m->pending -= got;
	if (nowc >= old && m->w->clk != min_t(u64, nowc + 1, TW_MAX_TICK))
		ok = TW_MODEL_FAIL(m, "advance(%llu) left clock at %llu",
				   now, m->w->clk);
	if (nowc < old && m->w->clk != old)
		ok = TW_MODEL_FAIL(m, "advance into the past moved the clock");
	return ok;
}

static bool tw_model_check(struct tw_model *m)
{
	u64 next = tw_wheel_next(m->w), e = tw_model_earliest(m);

	if (m->armed != m->expired + m->cancelled + m->pending ||
	    m->pending != m->w->pending)
		return TW_MODEL_FAIL(m, "armed %llu != %llu + %llu + %llu (wheel %lu)",
				     m->armed, m->expired, m->cancelled,
				     m->pending, m->w->pending);
	if (e == TW_NO_TICK && next != TW_NO_TICK)
		return TW_MODEL_FAIL(m, "empty wheel: next %llu", next);
	if (e != TW_NO_TICK && (next > e || next < m->w->clk))
		return TW_MODEL_FAIL(m, "next %llu outside [clock, %llu]",
				     next, e);
	return true;
}

/* White-box: each node where the placement rule puts it, bitmaps exact. */
static bool tw_model_check_struct(struct tw_model *m)
{
	const struct tw_wheel *w = m->w;
	unsigned int bits = w->bits, lvl, idx, b, top, cidx;
	unsigned int mask = (1U << bits) - 1;
	unsigned long nodes = 0;
	struct tw_node *n;

	for (lvl = 0; lvl < w->levels; lvl++) {
		top = (lvl + 1) * bits;
		cidx = (w->clk >> (lvl * bits)) & mask;
		for (idx = 0; idx <= mask; idx++) {
			b = (lvl << bits) + idx;
			if (hlist_empty(&w->buckets[b]) ==
			    test_bit(idx, &w->bitmap[lvl]))
				return TW_MODEL_FAIL(m, "bitmap bit %u/%u",
						     lvl, idx);
			hlist_for_each_entry(n, &w->buckets[b], entry) {
				nodes++;
				if (n->bucket != b ||
				    n->expires < w->clk ||
				    (n->expires >> top) != (w->clk >> top) ||
				    ((n->expires >> (lvl * bits)) & mask) != idx ||
				    idx < cidx ||
				    (lvl && idx == cidx &&
				     (w->clk & ((1ULL << (lvl * bits)) - 1))))
					return TW_MODEL_FAIL(m, "node %llu misplaced in %u/%u",
							     n->expires, lvl,
							     idx);
			}
		}
	}
	top = w->levels * bits;
	hlist_for_each_entry(n, &w->overflow, entry) {
		nodes++;
		if (n->bucket != TW_BUCKET_OVERFLOW || n->expires < w->ovf_min ||
		    (n->expires >> top) < (w->clk >> top))
			return TW_MODEL_FAIL(m, "overflow node %llu misplaced",
					     n->expires);
	}
	if (nodes != w->pending)
		return TW_MODEL_FAIL(m, "%lu nodes, pending %lu", nodes,
				     w->pending);
	if (w->max_cascades > w->levels - 1)
		return TW_MODEL_FAIL(m, "max_cascades %u", w->max_cascades);
	/* The cached next tick: a lower bound that never moves the clock back. */
	if (w->next < w->clk || w->next > tw_wheel_next(w))
		return TW_MODEL_FAIL(m, "cached next %llu, clock %llu, next %llu",
				     w->next, w->clk, tw_wheel_next(w));
	return true;
}

static void tw_test_model(struct kunit *test)
{
	const struct tw_model_param *p = test->param_value;
	struct tw_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	u64 h, start;
	bool ok = true;

	KUNIT_ASSERT_NOT_NULL(test, m);
	m->test = test;
	m->nt = TW_MODEL_TIMERS;
	m->rng = p->seed * 0x9E3779B97F4A7C15ULL + 1;
	m->t = tw_new_timers(test, m->nt);
	m->w = tw_new(test, p->geom.bits, p->geom.levels, 0);
	h = tw_wheel_horizon(m->w);
	/* Start at 0, just before a top-level turn, or anywhere. */
	switch (p->seed % 3) {
	case 0:
		start = 0;
		break;
	case 1:
		start = h * (1 + tw_below(m, 1000)) - 1 - tw_below(m, 4);
		break;
	default:
		start = tw_below(m, 1ULL << 40);
		break;
	}
	tw_wheel_init(m->w, p->geom.bits, p->geom.levels, start);
	kunit_info(test, "B=%u L=%u seed=%llu start=%llu ops=%llu timers=%u\n",
		   p->geom.bits, p->geom.levels, p->seed, start, p->ops, m->nt);

	for (m->op = 0; ok && m->op < p->ops; m->op++) {
		u64 k = tw_below(m, 100);
		struct tw_tmr *t = &m->t[tw_below(m, m->nt)];

		if (k < 45)
			ok = tw_model_arm(m, t);
		else if (k < 65)
			ok = tw_model_cancel(m, t);
		else
			ok = tw_model_advance(m, tw_model_now(m));
		ok = ok && tw_model_check(m);
		if (ok && !(m->op % 128))
			ok = tw_model_check_struct(m);
	}
	if (ok)
		ok = tw_model_check_struct(m);
	kunit_info(test, "armed %llu expired %llu cancelled %llu pending %llu cascades %llu (max %u) clk %llu\n",
		   m->armed, m->expired, m->cancelled, m->pending,
		   m->w->cascaded, m->w->max_cascades, m->w->clk);
	KUNIT_EXPECT_TRUE(test, ok);
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

static struct kunit_case tw_model_cases[] = {
	KUNIT_CASE_PARAM(tw_test_model, tw_model_gen_params),
	{}
};

static struct kunit_suite tw_model_suite = {
	.name = "twheel-wheel-model",
	.test_cases = tw_model_cases,
};

kunit_test_suites(&tw_geometry_suite, &tw_model_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for the twheel timing wheel");
