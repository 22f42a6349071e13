// SPDX-License-Identifier: GPL-2.0
/*
 * Host model test of the twheel core (twheel/wheel.c built natively).
 *
 * Random operations (arm, modify, cancel, advance by one tick or by huge
 * jumps) are applied both to the wheel and to a trivially correct reference,
 * an array of (armed, effective deadline) per timer. After every advance the
 * set of expired timers must be exactly the reference's set of timers due by
 * then; tw_wheel_next() must never be later than the reference's earliest
 * deadline nor before the clock; armed == expired + cancelled + pending. A
 * white-box check of the wheel's structure runs every few hundred ops.
 *
 *   model [-n OPS_PER_RUN] [-t TIMERS] [-s FIRST_SEED] [-r SEEDS] [-v]
 *
 * Every geometry of a built-in list is run with every seed. Exit status 0
 * when all runs pass; the first failure prints its seed, geometry and op.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/bitops.h>

#include "wheel.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

struct geom {
	unsigned int bits, levels;
};

static const struct geom geoms[] = {
	{ 6, 5 },	/* the module's default */
	{ 2, 2 },	/* horizon 16: overflow all the time */
	{ 3, 3 },
	{ 2, 8 },
	{ 4, 1 },	/* a single level */
	{ 6, 8 },	/* widest: horizon 2^48 */
	{ 5, 4 },
};

struct tmr {
	struct tw_node node;
	bool armed;		/* reference: pending in the wheel */
	u64 eff;		/* reference: effective deadline */
};

struct run {
	struct tw_wheel w;
	struct tmr *t;
	unsigned int nt;
	u64 rng;
	u64 seed;
	u64 op;
	u64 armed, expired, cancelled, pending;
	u64 advances, max_batch;
};

static int verbose;

#define FAIL(r, fmt, ...) do {						\
	fprintf(stderr, "FAIL seed=%" PRIu64 " bits=%u levels=%u op=%"	\
		PRIu64 " clk=%" PRIu64 ": " fmt "\n", (r)->seed,	\
		(r)->w.bits, (r)->w.levels, (r)->op, (r)->w.clk,	\
		##__VA_ARGS__);						\
	exit(1);							\
} while (0)

static u64 rnd(struct run *r)
{
	/* xorshift64* */
	r->rng ^= r->rng >> 12;
	r->rng ^= r->rng << 25;
	r->rng ^= r->rng >> 27;
	return r->rng * 0x2545F4914F6CDD1DULL;
}

static u64 below(struct run *r, u64 n)
{
	return n ? rnd(r) % n : 0;
}

static u64 sat_add(u64 a, u64 b)
{
	return a + b < a ? U64_MAX : a + b;
}

static u64 clamp_deadline(const struct run *r, u64 e)
{
	if (e > TW_MAX_TICK)
		e = TW_MAX_TICK;
	return e < r->w.clk ? r->w.clk : e;
}

/* A deadline of one of several kinds, relative to the clock. */
static u64 gen_deadline(struct run *r)
{
	u64 clk = r->w.clk, s = 1ULL << r->w.bits, h = tw_wheel_horizon(&r->w);
	u64 span, e;
	unsigned int k;

	switch (below(r, 12)) {
	case 0:		/* in the past (or the clock) */
		return clk - (clk < 1000 ? clk : below(r, 1000));
	case 1:
		return clk + below(r, 2);
	case 2:
		return clk + below(r, s);
	case 3:
		return clk + below(r, s * s);
	case 4:
		return sat_add(clk, below(r, h));
	case 5:		/* overflow */
		return sat_add(clk, h + below(r, 4 * h));
	case 6:		/* next edge of some level, -1, +0 or +1 */
		k = below(r, r->w.levels + 1);
		span = 1ULL << (k * r->w.bits);
		e = (clk | (span - 1)) + 1;
		return e + below(r, 3) - 1;
	case 7:		/* the edges of the tick range */
		switch (below(r, 4)) {
		case 0:
			return TW_MAX_TICK;
		case 1:
			return TW_MAX_TICK - 1;
		case 2:
			return TW_MAX_TICK + 1;
		default:
			return U64_MAX;
		}
	case 8:		/* far */
		return sat_add(clk, below(r, 64 * h));
	default:	/* anywhere up to a random level */
		k = below(r, r->w.levels) + 1;
		return sat_add(clk, below(r, 1ULL << (k * r->w.bits)));
	}
}

static u64 ref_earliest(const struct run *r)
{
	u64 m = TW_NO_TICK;
	unsigned int i;

	for (i = 0; i < r->nt; i++)
		if (r->t[i].armed && r->t[i].eff < m)
			m = r->t[i].eff;
	return m;
}

static void do_arm(struct run *r, struct tmr *t)
{
	u64 e = gen_deadline(r);

	if (t->armed) {		/* modify = del + add */
		tw_wheel_del(&r->w, &t->node);
		r->cancelled++;
		r->pending--;
	}
	tw_wheel_add(&r->w, &t->node, e);
	t->armed = true;
	t->eff = clamp_deadline(r, e);
	r->armed++;
	r->pending++;
	if (t->node.expires != t->eff)
		FAIL(r, "add(%" PRIu64 "): expires %" PRIu64 ", want %" PRIu64,
		     e, t->node.expires, t->eff);
	if (!tw_node_in_wheel(&t->node))
		FAIL(r, "added node not in wheel");
}

static void do_cancel(struct run *r, struct tmr *t)
{
	if (!t->armed)
		return;
	tw_wheel_del(&r->w, &t->node);
	if (tw_node_in_wheel(&t->node))
		FAIL(r, "deleted node still in wheel");
	t->armed = false;
	r->cancelled++;
	r->pending--;
}

static u64 gen_now(struct run *r)
{
	u64 clk = r->w.clk, s = 1ULL << r->w.bits, h = tw_wheel_horizon(&r->w);
	u64 e;

	switch (below(r, 12)) {
	case 0: case 1: case 2: case 3:
		return clk;		/* one tick */
	case 4:
		return clk - (clk ? 1 : 0);	/* nothing (or one tick at 0) */
	case 5:
		return clk + below(r, s);
	case 6:
		return clk + below(r, s * s);
	case 7:
		return sat_add(clk, below(r, h));
	case 8:			/* big jump */
		return sat_add(clk, h * below(r, 8) + below(r, h));
	case 9:			/* exactly to, or just before, the earliest */
		e = ref_earliest(r);
		if (e == TW_NO_TICK || e - clk > 64 * h)
			return clk;
		return e - below(r, 2);
	case 10:
		e = tw_wheel_next(&r->w);
		return e == TW_NO_TICK || e - clk > 64 * h ? clk : e;
	default:		/* rarely: the end of time (the clock saturates) */
		if (!below(r, 20000))
			return U64_MAX;
		return sat_add(clk, below(r, 1ULL << (r->w.bits *
						      (1 + below(r, r->w.levels)))));
	}
}

static void do_advance(struct run *r, u64 now)
{
	struct hlist_head done = HLIST_HEAD_INIT;
	u64 nowc = now > TW_MAX_TICK ? TW_MAX_TICK : now;
	u64 old_clk = r->w.clk, want = 0, got, n;
	struct tw_node *node;
	struct hlist_node *tmp;
	unsigned int i;

	for (i = 0; i < r->nt; i++)
		if (r->t[i].armed && r->t[i].eff <= nowc)
			want++;
	if (below(r, 2)) {
		got = tw_wheel_advance(&r->w, now, &done);
	} else {
		/* Bounded passes, as the driver's tick makes them. */
		unsigned long budget;
		u64 next;

		got = 0;
		do {
			budget = 1 + below(r, 8);
			got += tw_wheel_advance_budget(&r->w, now, &done,
						       &budget, &next);
			if (next != tw_wheel_next(&r->w))
				FAIL(r, "advance said next %" PRIu64 ", wheel %"
				     PRIu64, next, tw_wheel_next(&r->w));
		} while (!budget && next <= nowc);
		if (tw_wheel_next(&r->w) <= nowc)
			FAIL(r, "bounded advance(%" PRIu64 ") left work at %"
			     PRIu64, now, tw_wheel_next(&r->w));
	}
	n = 0;
	hlist_for_each_entry_safe(node, tmp, &done, entry) {
		struct tmr *t = container_of(node, struct tmr, node);

		n++;
		hlist_del(&node->entry);
		if (!t->armed)
			FAIL(r, "timer %td expired but not armed", t - r->t);
		if (t->eff > nowc)
			FAIL(r, "timer %td early: due %" PRIu64 ", now %" PRIu64,
			     t - r->t, t->eff, now);
		if (old_clk <= nowc && t->eff < old_clk)
			FAIL(r, "timer %td late: due %" PRIu64 " < old clk %"
			     PRIu64, t - r->t, t->eff, old_clk);
		if (node->bucket != TW_BUCKET_NONE || tw_node_in_wheel(node))
			FAIL(r, "expired node still marked in wheel");
		if (node->cascades > r->w.levels - 1)
			FAIL(r, "node cascaded %u times", node->cascades);
		t->armed = false;
	}
	if (n != got || got != want)
		FAIL(r, "advance(%" PRIu64 ") from %" PRIu64 ": returned %" PRIu64
		     ", listed %" PRIu64 ", reference %" PRIu64, now, old_clk,
		     got, n, want);
	r->expired += got;
	r->pending -= got;
	r->advances++;
	if (got > r->max_batch)
		r->max_batch = got;
	if (nowc >= old_clk) {
		u64 clk = nowc + 1 > TW_MAX_TICK ? TW_MAX_TICK : nowc + 1;

		if (r->w.clk != clk)
			FAIL(r, "advance(%" PRIu64 "): clk %" PRIu64 ", want %"
			     PRIu64, now, r->w.clk, clk);
	} else if (r->w.clk != old_clk) {
		FAIL(r, "advance into the past moved the clock");
	}
}

/* tw_wheel_next() by definition: the minimum over levels and overflow. */
static u64 ref_next(const struct tw_wheel *w)
{
	unsigned int B = w->bits, lvl;
	u64 next = TW_NO_TICK, due, turn;

	for (lvl = 0; lvl < w->levels; lvl++) {
		unsigned int idx = (w->clk >> (lvl * B)) & ((1U << B) - 1);
		unsigned long pend = w->bitmap[lvl] >> idx;

		if (!pend)
			continue;
		idx += __builtin_ctzl(pend);
		turn = w->clk & ~((1ULL << (lvl * B + B)) - 1);
		due = turn | ((u64)idx << (lvl * B));
		if (due < w->clk)
			due = w->clk;
		if (due < next)
			next = due;
	}
	if (!hlist_empty(&w->overflow)) {
		due = w->ovf_min & ~(tw_wheel_horizon(w) - 1);
		if (due < w->clk)
			due = w->clk;
		if (due < next)
			next = due;
	}
	return next;
}

static void check_next(struct run *r)
{
	u64 next = tw_wheel_next(&r->w), e = ref_earliest(r);

	if (next != ref_next(&r->w))
		FAIL(r, "next %" PRIu64 ", by definition %" PRIu64, next,
		     ref_next(&r->w));

	if (e == TW_NO_TICK) {
		if (next != TW_NO_TICK)
			FAIL(r, "empty wheel: next %" PRIu64, next);
		return;
	}
	if (next > e)
		FAIL(r, "next %" PRIu64 " after earliest deadline %" PRIu64,
		     next, e);
	if (next < r->w.clk)
		FAIL(r, "next %" PRIu64 " before the clock", next);
}

/* White-box: every node where the placement rule says, bitmaps exact. */
static void check_struct(struct run *r)
{
	struct tw_wheel *w = &r->w;
	unsigned int B = w->bits, L = w->levels, lvl, idx, b;
	unsigned long count = 0;
	u64 ovf_min = TW_NO_TICK;
	struct tw_node *n;

	for (lvl = 0; lvl < L; lvl++) {
		unsigned int cidx = (w->clk >> (lvl * B)) & ((1U << B) - 1);
		u64 top = lvl * B + B;

		if ((1U << B) < BITS_PER_LONG && w->bitmap[lvl] >> (1U << B))
			FAIL(r, "bitmap %u has bits beyond the slots", lvl);
		for (idx = 0; idx < (1U << B); idx++) {
			b = (lvl << B) + idx;
			if (hlist_empty(&w->buckets[b]) ==
			    test_bit(idx, &w->bitmap[lvl]))
				FAIL(r, "bitmap bit %u/%u wrong", lvl, idx);
			hlist_for_each_entry(n, &w->buckets[b], entry) {
				count++;
				if (n->bucket != b)
					FAIL(r, "node bucket %u in %u",
					     n->bucket, b);
				if (n->expires < w->clk)
					FAIL(r, "node in wheel is overdue");
				if ((n->expires >> top) != (w->clk >> top))
					FAIL(r, "node %u/%u not in clock's turn",
					     lvl, idx);
				if (((n->expires >> (lvl * B)) &
				     ((1U << B) - 1)) != idx)
					FAIL(r, "node in the wrong slot");
				if (idx < cidx)
					FAIL(r, "slot behind the clock");
				if (lvl && idx == cidx &&
				    (w->clk & ((1ULL << (lvl * B)) - 1)))
					FAIL(r, "clock inside its own slot");
			}
		}
	}
	for (idx = L << B; idx < TW_MAX_BUCKETS; idx++)
		if (!hlist_empty(&w->buckets[idx]))
			FAIL(r, "bucket beyond the geometry used");
	hlist_for_each_entry(n, &w->overflow, entry) {
		count++;
		if (n->bucket != TW_BUCKET_OVERFLOW)
			FAIL(r, "overflow node marked %u", n->bucket);
		/* Its turn may have just begun, not yet processed. */
		if ((n->expires >> (L * B)) < (w->clk >> (L * B)) ||
		    ((n->expires >> (L * B)) == (w->clk >> (L * B)) &&
		     (w->clk & (tw_wheel_horizon(w) - 1))))
			FAIL(r, "overflow node in the clock's turn: %" PRIu64
			     " ovf_min %" PRIu64 " next %" PRIu64, n->expires,
			     w->ovf_min, tw_wheel_next(w));
		if (n->expires < ovf_min)
			ovf_min = n->expires;
	}
	if (w->ovf_min > ovf_min)
		FAIL(r, "ovf_min %" PRIu64 " above %" PRIu64, w->ovf_min,
		     ovf_min);
	if (count != w->pending || count != r->pending)
		FAIL(r, "%lu nodes, pending %lu, reference %" PRIu64, count,
		     w->pending, r->pending);
	if (w->max_cascades > L - 1)
		FAIL(r, "max_cascades %u", w->max_cascades);
	if (w->bitmap[L] != ~0UL)
		FAIL(r, "bitmap[levels] is not the scan's end");
	/* The cached next tick: a lower bound that never moves the clock back. */
	if (w->next < w->clk || w->next > tw_wheel_next(w))
		FAIL(r, "cached next %" PRIu64 ", clock %" PRIu64 ", next %"
		     PRIu64, w->next, w->clk, tw_wheel_next(w));
}

static u64 start_clock(struct run *r, unsigned int variant)
{
	u64 h = tw_wheel_horizon(&r->w);

	switch (variant % 5) {
	case 0:
		return 0;
	case 1:		/* just before a top-level turn */
		return h * (1 + below(r, 1000)) - 1 - below(r, 4);
	case 2:
		return below(r, 1ULL << 40);
	case 3:		/* just before 2^48 and friends */
		return (1ULL << (32 + below(r, 16))) - 1 - below(r, 2);
	default:	/* close to the end of the tick range */
		return TW_MAX_TICK - 100 * h - below(r, h);
	}
}

static void run_one(const struct geom *g, u64 seed, u64 ops, unsigned int nt)
{
	struct run *r = calloc(1, sizeof(*r));
	unsigned int i;

	if (!r)
		exit(2);
	r->seed = seed;
	r->rng = seed * 0x9E3779B97F4A7C15ULL + 1;
	r->nt = nt;
	r->t = calloc(nt, sizeof(*r->t));
	if (!r->t)
		exit(2);
	if (tw_wheel_init(&r->w, g->bits, g->levels, 0))
		FAIL(r, "init");
	tw_wheel_init(&r->w, g->bits, g->levels, start_clock(r, seed));
	for (i = 0; i < nt; i++)
		tw_node_init(&r->t[i].node);

	for (r->op = 0; r->op < ops; r->op++) {
		u64 k = below(r, 100);
		struct tmr *t = &r->t[below(r, nt)];

		if (k < 45)
			do_arm(r, t);
		else if (k < 65)
			do_cancel(r, t);
		else
			do_advance(r, gen_now(r));
		check_next(r);
		if (r->armed != r->expired + r->cancelled + r->pending ||
		    r->pending != r->w.pending)
			FAIL(r, "conservation: armed %" PRIu64 " expired %"
			     PRIu64 " cancelled %" PRIu64 " pending %" PRIu64
			     " (wheel %lu)", r->armed, r->expired,
			     r->cancelled, r->pending, r->w.pending);
		if (!(r->op % 256))
			check_struct(r);
	}
	check_struct(r);
	if (verbose)
		printf("  bits=%u levels=%u seed=%" PRIu64 ": %" PRIu64
		       " ops, armed %" PRIu64 ", expired %" PRIu64
		       ", cancelled %" PRIu64 ", advances %" PRIu64
		       ", cascades %" PRIu64 " (max %u), clk %" PRIu64 "\n",
		       g->bits, g->levels, seed, ops, r->armed, r->expired,
		       r->cancelled, r->advances, r->w.cascaded,
		       r->w.max_cascades, r->w.clk);
	free(r->t);
	free(r);
}

int main(int argc, char **argv)
{
	u64 ops = 5000000, seed = 1, seeds = 4, total = 0;
	unsigned int nt = 256, gi;
	int c;

	while ((c = getopt(argc, argv, "n:t:s:r:v")) != -1) {
		switch (c) {
		case 'n':
			ops = strtoull(optarg, NULL, 0);
			break;
		case 't':
			nt = strtoul(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			seeds = strtoull(optarg, NULL, 0);
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-n ops] [-t timers] [-s seed] [-r seeds] [-v]\n",
				argv[0]);
			return 2;
		}
	}
	if (!nt)
		nt = 1;
	for (gi = 0; gi < ARRAY_SIZE(geoms); gi++) {
		u64 s;

		if (geoms[gi].bits > TW_MAX_BITS)
			continue;
		for (s = seed; s < seed + seeds; s++) {
			run_one(&geoms[gi], s, ops, nt);
			total += ops;
		}
	}
	printf("twheel model: %" PRIu64 " ops over %zu geometries x %" PRIu64
	       " seeds (%" PRIu64 "..%" PRIu64 "), %u timers: PASS\n", total,
	       ARRAY_SIZE(geoms), seeds, seed,
	       seed + seeds - 1, nt);
	return 0;
}
