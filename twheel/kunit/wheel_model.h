/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reference model of the pure twheel core (wheel.c), written once for
 * both of its harnesses: the KUnit suite twheel-wheel-model
 * (wheel_model_test.c, in the kernel) and the host model test
 * (tools/testing/twheel/model.c, wheel.c built natively against a shim of
 * the kernel headers). Only the common subset of kernel and userspace C is
 * used here; the includer provides the one thing that differs:
 *
 *	static bool tw_model_fail(const struct tw_model *m, const char *fmt, ...)
 *
 * which reports a failure (KUNIT_FAIL() in the kernel, stderr and exit on
 * the host) and returns false.
 *
 * Random operations (arm, modify, cancel, advance by one tick, by bounded
 * passes or by huge jumps, the take of a bucket ahead of its tick, the
 * cascades of a tick ahead of it) are applied both to the wheel and to a
 * trivially correct reference, an array of (armed, effective deadline).
 * After every advance the set of expired timers must be exactly the
 * reference's set of timers due by then; tw_wheel_next() must equal its
 * definition (the minimum over levels and overflow), never be later than
 * the reference's earliest deadline nor before the clock; armed == expired
 * + cancelled + pending. A white-box check of the wheel's structure runs
 * every TW_MODEL_STRUCT_EVERY operations.
 *
 * The generator is xorshift64*, seeded from the run's seed: the same seed
 * gives the same operations on every kernel and on the host.
 */
#ifndef _TWHEEL_KUNIT_WHEEL_MODEL_H
#define _TWHEEL_KUNIT_WHEEL_MODEL_H

#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/types.h>

#include "../wheel.h"

#define TW_MODEL_CYCLE	"more nodes than timers: a list has a cycle"

/* Operations between two white-box checks of the wheel's structure. */
#define TW_MODEL_STRUCT_EVERY	128

/**
 * struct tw_model_timer - a timer of the model
 * @node:	its node in the wheel under test
 * @armed:	reference: pending in the wheel
 * @eff:	reference: effective deadline (clamped as tw_wheel_add() must)
 */
struct tw_model_timer {
	struct tw_node	node;
	bool		armed;
	u64		eff;
};

/**
 * struct tw_model - one run of the model
 * @w:		the wheel under test (initialised by the caller)
 * @t:		@nt timers, their nodes initialised by the caller
 * @nt:		number of timers
 * @rng:	generator state (tw_model_seed())
 * @op:		operations done
 * @armed:	arms, re-arms included
 * @expired:	timers the wheel handed out
 * @cancelled:	arms ended by a cancel or a re-arm
 * @pending:	timers the reference holds armed
 * @advances:	advances done
 * @max_batch:	most timers one advance expired
 * @ctx:	the harness' own (the KUnit test)
 */
struct tw_model {
	struct tw_wheel		*w;
	struct tw_model_timer	*t;
	unsigned int		nt;
	u64			rng;
	u64			op;
	u64			armed, expired, cancelled, pending;
	u64			advances, max_batch;
	void			*ctx;
};

static __printf(2, 3) bool tw_model_fail(const struct tw_model *m,
					 const char *fmt, ...);

static inline void tw_model_seed(struct tw_model *m, u64 seed)
{
	m->rng = seed * 0x9E3779B97F4A7C15ULL + 1;
}

static inline u64 tw_model_rnd(struct tw_model *m)
{
	/* xorshift64* */
	m->rng ^= m->rng >> 12;
	m->rng ^= m->rng << 25;
	m->rng ^= m->rng >> 27;
	return m->rng * 0x2545F4914F6CDD1DULL;
}

static inline u64 tw_model_below(struct tw_model *m, u64 n)
{
	return n ? tw_model_rnd(m) % n : 0;
}

static inline u64 tw_model_sat_add(u64 a, u64 b)
{
	return a + b < a ? U64_MAX : a + b;
}

/* Deadline after clamping, as tw_wheel_add() must store it. */
static inline u64 tw_model_eff(u64 clk, u64 expires)
{
	return max(min_t(u64, expires, TW_MAX_TICK), clk);
}

/* A starting clock of one of five kinds (@variant modulo 5). */
static inline u64 tw_model_start(struct tw_model *m, unsigned int variant)
{
	u64 h = tw_wheel_horizon(m->w);

	switch (variant % 5) {
	case 0:
		return 0;
	case 1:		/* just before a top-level turn */
		return h * (1 + tw_model_below(m, 1000)) - 1 -
		       tw_model_below(m, 4);
	case 2:
		return tw_model_below(m, 1ULL << 40);
	case 3:		/* just before 2^48 and friends */
		return (1ULL << (32 + tw_model_below(m, 16))) - 1 -
		       tw_model_below(m, 2);
	default:	/* close to the end of the tick range */
		return TW_MAX_TICK - 100 * h - tw_model_below(m, h);
	}
}

/* A deadline of one of several kinds, relative to the clock. */
static inline u64 tw_model_deadline(struct tw_model *m)
{
	u64 clk = m->w->clk, s = 1ULL << m->w->bits;
	u64 h = tw_wheel_horizon(m->w), span;
	unsigned int k;

	switch (tw_model_below(m, 12)) {
	case 0:		/* in the past, or the clock */
		return clk - min_t(u64, clk, tw_model_below(m, 1000));
	case 1:
		return clk + tw_model_below(m, 2);
	case 2:
		return clk + tw_model_below(m, s);
	case 3:
		return clk + tw_model_below(m, s * s);
	case 4:
		return tw_model_sat_add(clk, tw_model_below(m, h));
	case 5:		/* overflow */
		return tw_model_sat_add(clk, h + tw_model_below(m, 4 * h));
	case 6:		/* next boundary of some level, -1, +0 or +1 */
		k = tw_model_below(m, m->w->levels + 1);
		span = 1ULL << (k * m->w->bits);
		return (clk | (span - 1)) + tw_model_below(m, 3);
	case 7:		/* the edges of the tick range */
		switch (tw_model_below(m, 4)) {
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
		return tw_model_sat_add(clk, tw_model_below(m, 64 * h));
	default:	/* anywhere up to a random level */
		k = tw_model_below(m, m->w->levels) + 1;
		return tw_model_sat_add(clk, tw_model_below(m, 1ULL <<
							     (k * m->w->bits)));
	}
}

static inline u64 tw_model_earliest(const struct tw_model *m)
{
	u64 e = TW_NO_TICK;
	unsigned int i;

	for (i = 0; i < m->nt; i++)
		if (m->t[i].armed)
			e = min(e, m->t[i].eff);
	return e;
}

/* The "now" of an advance: one tick, none, a jump, or to the next work. */
static inline u64 tw_model_now(struct tw_model *m)
{
	u64 clk = m->w->clk, s = 1ULL << m->w->bits;
	u64 h = tw_wheel_horizon(m->w), e;

	switch (tw_model_below(m, 12)) {
	case 0: case 1: case 2: case 3:
		return clk;			/* one tick */
	case 4:
		return clk - min_t(u64, clk, 1);	/* none (the past) */
	case 5:
		return clk + tw_model_below(m, s);
	case 6:
		return clk + tw_model_below(m, s * s);
	case 7:
		return tw_model_sat_add(clk, tw_model_below(m, h));
	case 8:			/* big jump */
		return tw_model_sat_add(clk, h * tw_model_below(m, 8) +
					tw_model_below(m, h));
	case 9:			/* to, or just before, the earliest deadline */
		e = tw_model_earliest(m);
		if (e == TW_NO_TICK || e - clk > 64 * h)
			return clk;
		return e - tw_model_below(m, 2);
	case 10:
		e = tw_wheel_next(m->w);
		return e == TW_NO_TICK || e - clk > 64 * h ? clk : e;
	default:		/* rarely the end of time: the clock saturates */
		if (!tw_model_below(m, 20000))
			return U64_MAX;
		return tw_model_sat_add(clk, tw_model_below(m, 1ULL <<
				(m->w->bits * (1 + tw_model_below(m, m->w->levels)))));
	}
}

static inline bool tw_model_arm(struct tw_model *m, struct tw_model_timer *t)
{
	u64 e = tw_model_deadline(m);

	if (t->armed) {			/* modify = del + add */
		tw_wheel_del(m->w, &t->node);
		m->cancelled++;
		m->pending--;
	}
	tw_wheel_add(m->w, &t->node, e);
	t->armed = true;
	t->eff = tw_model_eff(m->w->clk, e);
	m->armed++;
	m->pending++;
	if (t->node.expires != t->eff)
		return tw_model_fail(m, "add(%llu) stored %llu, want %llu", e,
				     t->node.expires, t->eff);
	if (!tw_node_in_wheel(&t->node))
		return tw_model_fail(m, "added node not in the wheel");
	return true;
}

static inline bool tw_model_cancel(struct tw_model *m, struct tw_model_timer *t)
{
	if (!t->armed)
		return true;
	tw_wheel_del(m->w, &t->node);
	t->armed = false;
	m->cancelled++;
	m->pending--;
	if (tw_node_in_wheel(&t->node))
		return tw_model_fail(m, "deleted node still in the wheel");
	return true;
}

static inline bool tw_model_advance(struct tw_model *m, u64 now)
{
	u64 nowc = min_t(u64, now, TW_MAX_TICK), old = m->w->clk, want = 0;
	struct hlist_head out = HLIST_HEAD_INIT;
	struct tw_node *prev = NULL;
	u64 prev_eff = 0;
	unsigned long got, listed = 0;
	struct hlist_node *tmp;
	struct tw_node *n;
	unsigned int i;
	bool ok = true;

	for (i = 0; i < m->nt; i++)
		if (m->t[i].armed && m->t[i].eff <= nowc)
			want++;
	if (tw_model_below(m, 2)) {
		got = tw_wheel_advance(m->w, now, &out);
	} else {
		/* Bounded passes, as the driver's tick makes them. */
		unsigned long budget;
		u64 next;

		got = 0;
		do {
			budget = 1 + tw_model_below(m, 8);
			got += tw_wheel_advance_budget(m->w, now, &out, &budget,
						       &next);
			if (next != tw_wheel_next(m->w))
				ok = tw_model_fail(m, "advance said next %llu, wheel %llu",
						   next, tw_wheel_next(m->w));
		} while (!budget && next <= nowc);
		if (tw_wheel_next(m->w) <= nowc)
			ok = tw_model_fail(m, "bounded advance(%llu) left work at %llu",
					   now, tw_wheel_next(m->w));
	}
	/* Links that point back; the order of the ticks (deadlines). */
	hlist_for_each_entry(n, &out, entry) {
		struct tw_model_timer *t = container_of(n, struct tw_model_timer,
							node);

		if (n->entry.pprev != (prev ? &prev->entry.next : &out.first))
			ok = tw_model_fail(m, "expired list: a bad pprev");
		if (prev && t->eff < prev_eff)
			ok = tw_model_fail(m, "timer %td (due %llu) after one due %llu",
					   t - m->t, t->eff, prev_eff);
		prev = n;
		prev_eff = t->eff;
	}
	hlist_for_each_entry_safe(n, tmp, &out, entry) {
		struct tw_model_timer *t = container_of(n, struct tw_model_timer,
							node);

		hlist_del_init(&n->entry);
		listed++;
		if (!t->armed)
			ok = tw_model_fail(m, "timer %td expired but not armed",
					   t - m->t);
		else if (t->eff > nowc)
			ok = tw_model_fail(m, "timer %td early: due %llu, now %llu",
					   t - m->t, t->eff, now);
		else if (old <= nowc && t->eff < old)
			ok = tw_model_fail(m, "timer %td late: due %llu, clock was %llu",
					   t - m->t, t->eff, old);
		if (n->bucket != TW_BUCKET_NONE || tw_node_in_wheel(n))
			ok = tw_model_fail(m, "expired node still in the wheel");
		if (n->cascades > m->w->levels - 1)
			ok = tw_model_fail(m, "node cascaded %u times",
					   n->cascades);
		t->armed = false;
	}
	if (got != listed || got != want)
		ok = tw_model_fail(m, "advance(%llu) from %llu: got %lu, listed %lu, want %llu",
				   now, old, got, listed, want);
	m->expired += got;
	m->pending -= got;
	m->advances++;
	m->max_batch = max_t(u64, m->max_batch, got);
	if (nowc >= old && m->w->clk != min_t(u64, nowc + 1, TW_MAX_TICK))
		ok = tw_model_fail(m, "advance(%llu) left the clock at %llu",
				   now, m->w->clk);
	if (nowc < old && m->w->clk != old)
		ok = tw_model_fail(m, "advance into the past moved the clock");
	return ok;
}

/*
 * tw_wheel_take() of a tick's level-0 bucket, as the driver takes the next
 * tick's bucket once a finer clock says all of it is due (or of any tick
 * near the clock): tw_wheel_bucket() finds it exactly when it holds nodes
 * and the tick is in the clock's level-0 turn, at or after the clock; only
 * nodes due at that tick come out, at most the budget, and the clock stays.
 */
static inline bool tw_model_take(struct tw_model *m)
{
	u64 clk = m->w->clk, tick = tw_wheel_next(m->w);
	unsigned long mask = m->w->mask, budget, left, got, listed = 0;
	struct hlist_head out = HLIST_HEAD_INIT;
	const struct hlist_head *head;
	struct hlist_node *tmp;
	struct tw_node *n;
	bool ok = true, held = false;
	unsigned int i;

	if (tw_model_below(m, 2))
		tick = clk - 1 + tw_model_below(m, 2 * (mask + 2));
	head = tw_wheel_bucket(m->w, tick);
	if (tick >= clk && (tick ^ clk) <= mask)
		for (i = 0; i < m->nt; i++)
			held |= m->t[i].armed &&
				m->t[i].node.bucket == (tick & mask);
	if (!head != !held)
		return tw_model_fail(m, "bucket(%llu) at clock %llu: %s, want %s",
				     tick, clk, head ? "found" : "none",
				     held ? "found" : "none");
	if (!head)
		return true;
	budget = 1 + tw_model_below(m, 8);
	left = budget;
	got = tw_wheel_take(m->w, tick, &out, &left);
	hlist_for_each_entry_safe(n, tmp, &out, entry) {
		struct tw_model_timer *t = container_of(n, struct tw_model_timer,
							node);

		hlist_del_init(&n->entry);
		listed++;
		if (!t->armed || t->eff != tick)
			ok = tw_model_fail(m, "take(%llu) gave timer %td (armed %d, due %llu)",
					   tick, t - m->t, t->armed, t->eff);
		if (tw_node_in_wheel(n))
			ok = tw_model_fail(m, "taken node still in the wheel");
		t->armed = false;
	}
	if (got != listed || got + left != budget || !got)
		ok = tw_model_fail(m, "take(%llu): got %lu, listed %lu, budget %lu left %lu",
				   tick, got, listed, budget, left);
	if (left && tw_wheel_bucket(m->w, tick))
		ok = tw_model_fail(m, "take(%llu) left the bucket with budget left",
				   tick);
	if (m->w->clk != clk)
		ok = tw_model_fail(m, "take(%llu) moved the clock", tick);
	m->expired += got;
	m->pending -= got;
	return ok;
}

/*
 * tw_wheel_cascade(), as the driver calls it when the next tick begins a
 * level-1 bucket (and, harmlessly, anywhere else): nothing is handed out,
 * the clock stays. One call with a small budget: a cascade cut short is
 * left half done for the next operations (arms, cancels, takes, an
 * advance), as the driver's arms meet it before its runner resumes.
 */
static inline bool tw_model_cascade(struct tw_model *m)
{
	u64 clk = m->w->clk, cascaded = m->w->cascaded;
	unsigned long pending = m->w->pending, budget, left;
	bool done;

	budget = 1 + tw_model_below(m, 8);
	left = budget;
	done = tw_wheel_cascade(m->w, &left);
	if (m->w->clk != clk || m->w->pending != pending)
		return tw_model_fail(m, "cascade moved the clock or the count");
	if (left > budget ||
	    ((clk & m->w->mask) && (!done || left != budget)))
		return tw_model_fail(m, "cascade off a boundary did work");
	if (!done && left)
		return tw_model_fail(m, "cascade cut short with budget left");
	if (m->w->cascaded - cascaded > budget - left)
		return tw_model_fail(m, "cascade moved more than its budget");
	return true;
}

/* tw_wheel_next() by definition: the minimum over levels and overflow. */
static inline u64 tw_model_ref_next(const struct tw_wheel *w)
{
	unsigned int bits = w->bits, lvl, idx;
	u64 next = TW_NO_TICK, due, turn;
	unsigned long pend;

	for (lvl = 0; lvl < w->levels; lvl++) {
		idx = (w->clk >> (lvl * bits)) & ((1U << bits) - 1);
		pend = w->bitmap[lvl] >> idx;
		if (!pend)
			continue;
		idx += __ffs(pend);
		turn = w->clk & ~((1ULL << (lvl * bits + bits)) - 1);
		due = max(turn | ((u64)idx << (lvl * bits)), w->clk);
		next = min(next, due);
	}
	if (!hlist_empty(&w->overflow)) {
		due = w->ovf_min & ~(tw_wheel_horizon(w) - 1);
		next = min(next, max(due, w->clk));
	}
	/* A pull cut short goes on at the clock, whatever is left. */
	if (!hlist_empty(&w->scanned))
		next = min(next, w->clk);
	return next;
}

/* Conservation and the next tick, after every operation. */
static inline bool tw_model_check(struct tw_model *m)
{
	u64 next = tw_wheel_next(m->w), e = tw_model_earliest(m);

	if (m->armed != m->expired + m->cancelled + m->pending ||
	    m->pending != m->w->pending)
		return tw_model_fail(m, "armed %llu != %llu + %llu + %llu (wheel %lu)",
				     m->armed, m->expired, m->cancelled,
				     m->pending, m->w->pending);
	if (next != tw_model_ref_next(m->w))
		return tw_model_fail(m, "next %llu, by definition %llu", next,
				     tw_model_ref_next(m->w));
	if (e == TW_NO_TICK && next != TW_NO_TICK)
		return tw_model_fail(m, "empty wheel: next %llu", next);
	if (e != TW_NO_TICK && (next > e || next < m->w->clk))
		return tw_model_fail(m, "next %llu outside [clock, %llu]",
				     next, e);
	return true;
}

/* White-box: each node where the placement rule puts it, bitmaps exact. */
static inline bool tw_model_check_struct(struct tw_model *m)
{
	const struct tw_wheel *w = m->w;
	unsigned int bits = w->bits, lvl, idx, b, top, cidx;
	unsigned int mask = (1U << bits) - 1;
	u64 ovf_min = TW_NO_TICK;
	unsigned long nodes = 0;
	struct tw_node *n;

	for (lvl = 0; lvl < w->levels; lvl++) {
		top = (lvl + 1) * bits;
		cidx = (w->clk >> (lvl * bits)) & mask;
		if ((1U << bits) < BITS_PER_LONG && w->bitmap[lvl] >> (1U << bits))
			return tw_model_fail(m, "bitmap %u has bits beyond the slots",
					     lvl);
		for (idx = 0; idx <= mask; idx++) {
			b = (lvl << bits) + idx;
			if (hlist_empty(&w->buckets[b]) ==
			    test_bit(idx, &w->bitmap[lvl]))
				return tw_model_fail(m, "bitmap bit %u/%u",
						     lvl, idx);
			hlist_for_each_entry(n, &w->buckets[b], entry) {
				if (++nodes > m->nt)
					return tw_model_fail(m, TW_MODEL_CYCLE);
				if (n->bucket != b ||
				    n->expires < w->clk ||
				    (n->expires >> top) != (w->clk >> top) ||
				    ((n->expires >> (lvl * bits)) & mask) != idx ||
				    idx < cidx ||
				    (lvl && idx == cidx &&
				     (w->clk & ((1ULL << (lvl * bits)) - 1))))
					return tw_model_fail(m, "node %llu misplaced in %u/%u",
							     n->expires, lvl,
							     idx);
			}
		}
	}
	for (b = w->levels << bits; b < TW_MAX_BUCKETS; b++)
		if (!hlist_empty(&w->buckets[b]))
			return tw_model_fail(m, "bucket %u beyond the geometry", b);
	top = w->levels * bits;
	hlist_for_each_entry(n, &w->overflow, entry) {
		if (++nodes > m->nt)
			return tw_model_fail(m, TW_MODEL_CYCLE);
		/* Its turn may have just begun, not yet processed. */
		if (n->bucket != TW_BUCKET_OVERFLOW ||
		    (n->expires >> top) < (w->clk >> top) ||
		    ((n->expires >> top) == (w->clk >> top) &&
		     (w->clk & (tw_wheel_horizon(w) - 1))))
			return tw_model_fail(m, "overflow node %llu misplaced",
					     n->expires);
		ovf_min = min(ovf_min, n->expires);
	}
	/* Looked at by a pull cut short: each stays beyond the clock's turn. */
	hlist_for_each_entry(n, &w->scanned, entry) {
		if (++nodes > m->nt)
			return tw_model_fail(m, TW_MODEL_CYCLE);
		if (n->bucket != TW_BUCKET_OVERFLOW ||
		    (n->expires >> top) <= (w->clk >> top))
			return tw_model_fail(m, "scanned node %llu misplaced",
					     n->expires);
		ovf_min = min(ovf_min, n->expires);
	}
	if (w->ovf_min > ovf_min)
		return tw_model_fail(m, "ovf_min %llu above %llu", w->ovf_min,
				     ovf_min);
	if (nodes != w->pending || nodes != m->pending)
		return tw_model_fail(m, "%lu nodes, pending %lu, reference %llu",
				     nodes, w->pending, m->pending);
	if (w->max_cascades > w->levels - 1)
		return tw_model_fail(m, "max_cascades %u", w->max_cascades);
	if (w->bitmap[w->levels] != ~0UL)
		return tw_model_fail(m, "bitmap[levels] is not the scan's end");
	/* The cached next tick: a lower bound that never moves the clock back. */
	if (w->next < w->clk || w->next > tw_wheel_next(w))
		return tw_model_fail(m, "cached next %llu, clock %llu, next %llu",
				     w->next, w->clk, tw_wheel_next(w));
	return true;
}

/* One random operation and the checks after it. */
static inline bool tw_model_step(struct tw_model *m)
{
	u64 k = tw_model_below(m, 100);
	struct tw_model_timer *t = &m->t[tw_model_below(m, m->nt)];
	bool ok;

	if (k < 45)
		ok = tw_model_arm(m, t);
	else if (k < 65)
		ok = tw_model_cancel(m, t);
	else if (k < 90)
		ok = tw_model_advance(m, tw_model_now(m));
	else if (k < 95)
		ok = tw_model_cascade(m);
	else
		ok = tw_model_take(m);
	ok = ok && tw_model_check(m);
	if (ok && !(m->op % TW_MODEL_STRUCT_EVERY))
		ok = tw_model_check_struct(m);
	m->op++;
	return ok;
}

/* @ops operations, then a last structure check; false at the first failure. */
static inline bool tw_model_run(struct tw_model *m, u64 ops)
{
	for (m->op = 0; m->op < ops;)
		if (!tw_model_step(m))
			return false;
	return tw_model_check_struct(m);
}

#endif /* _TWHEEL_KUNIT_WHEEL_MODEL_H */
