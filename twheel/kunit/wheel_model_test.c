// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit test of the pure twheel core (wheel.c) driven by a fake clock:
 *
 * twheel-wheel-model: random operations against a trivially correct
 *	reference model (an array of armed flags and effective deadlines).
 *
 * The wheel (about 4.3 KB) is always allocated with kunit_kzalloc().
 */
#include <kunit/test.h>

#include "wheel_test.h"

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

static struct kunit_case tw_model_cases[] = {
	KUNIT_CASE_PARAM(tw_test_model, tw_model_gen_params),
	{}
};

static struct kunit_suite tw_model_suite = {
	.name = "twheel-wheel-model",
	.test_cases = tw_model_cases,
};

kunit_test_suites(&tw_model_suite);
