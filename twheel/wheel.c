// SPDX-License-Identifier: GPL-2.0
/*
 * twheel core: hierarchical timing wheel with exact cascade.
 * The design, geometry and costs are described at the head of wheel.h.
 */
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include "wheel.h"

static inline unsigned int tw_shift(const struct tw_wheel *w, unsigned int lvl)
{
	return lvl * w->bits;
}

static inline unsigned int tw_mask(const struct tw_wheel *w)
{
	return (1U << w->bits) - 1;
}

static inline unsigned int tw_total_shift(const struct tw_wheel *w)
{
	return w->bits * w->levels;
}

/**
 * tw_wheel_init() - set up an empty wheel
 * @w:		the wheel
 * @bits:	log2 of the slots per level, TW_MIN_BITS..TW_MAX_BITS
 * @levels:	number of levels, 1..TW_MAX_LEVELS
 * @now:	current tick; the clock starts there
 *
 * Return: 0, or -EINVAL for a geometry out of range.
 */
int tw_wheel_init(struct tw_wheel *w, unsigned int bits, unsigned int levels,
		  u64 now)
{
	unsigned int i;

	if (bits < TW_MIN_BITS || bits > TW_MAX_BITS ||
	    levels < 1 || levels > TW_MAX_LEVELS)
		return -EINVAL;

	w->clk = min_t(u64, now, TW_MAX_TICK);
	w->bits = bits;
	w->levels = levels;
	w->pending = 0;
	w->ovf_min = TW_NO_TICK;
	w->scan_min = TW_NO_TICK;
	w->cascaded = 0;
	w->max_cascades = 0;
	INIT_HLIST_HEAD(&w->overflow);
	INIT_HLIST_HEAD(&w->scanned);
	for (i = 0; i < TW_MAX_LEVELS; i++)
		w->bitmap[i] = 0;
	for (i = 0; i < TW_MAX_BUCKETS; i++)
		INIT_HLIST_HEAD(&w->buckets[i]);
	return 0;
}

/**
 * tw_node_init() - set up a node that is in no wheel
 * @n:	the node
 */
void tw_node_init(struct tw_node *n)
{
	INIT_HLIST_NODE(&n->entry);
	n->expires = 0;
	n->bucket = TW_BUCKET_NONE;
	n->cascades = 0;
	n->flags = 0;
}

/*
 * Hash @n into the wheel relative to the current clock. n->expires >= clk.
 * The level is the one holding the highest bit in which the deadline and
 * the clock differ; see "Placement" in wheel.h.
 */
static void tw_enqueue(struct tw_wheel *w, struct tw_node *n)
{
	u64 diff = n->expires ^ w->clk;
	unsigned int lvl = diff ? (fls64(diff) - 1) / w->bits : 0;
	unsigned int idx, b;

	if (lvl >= w->levels) {
		hlist_add_head(&n->entry, &w->overflow);
		n->bucket = TW_BUCKET_OVERFLOW;
		w->ovf_min = min(w->ovf_min, n->expires);
		return;
	}
	idx = (n->expires >> tw_shift(w, lvl)) & tw_mask(w);
	b = (lvl << w->bits) + idx;
	hlist_add_head(&n->entry, &w->buckets[b]);
	__set_bit(idx, &w->bitmap[lvl]);
	n->bucket = b;
}

/**
 * tw_wheel_add() - arm a node
 * @w:		the wheel
 * @n:		a node in no wheel
 * @expires:	absolute deadline in ticks; past deadlines expire at the next
 *		tw_wheel_advance(), deadlines beyond TW_MAX_TICK are clamped
 *
 * O(1).
 */
void tw_wheel_add(struct tw_wheel *w, struct tw_node *n, u64 expires)
{
	n->expires = max(min_t(u64, expires, TW_MAX_TICK), w->clk);
	n->cascades = 0;
	tw_enqueue(w, n);
	w->pending++;
}

/**
 * tw_wheel_del() - disarm a node
 * @w:	the wheel holding @n
 * @n:	a node for which tw_node_in_wheel() is true
 *
 * O(1).
 */
void tw_wheel_del(struct tw_wheel *w, struct tw_node *n)
{
	unsigned int b = n->bucket;

	hlist_del_init(&n->entry);
	n->bucket = TW_BUCKET_NONE;
	w->pending--;
	if (b == TW_BUCKET_OVERFLOW) {
		if (hlist_empty(&w->overflow) && hlist_empty(&w->scanned))
			w->ovf_min = TW_NO_TICK;
		return;
	}
	if (hlist_empty(&w->buckets[b]))
		__clear_bit(b & tw_mask(w), &w->bitmap[b >> w->bits]);
}

/* Due tick of the first non-empty slot of @lvl at or after the clock's. */
static u64 tw_level_next(const struct tw_wheel *w, unsigned int lvl)
{
	unsigned int shift = tw_shift(w, lvl);
	unsigned int idx = (w->clk >> shift) & tw_mask(w);
	unsigned long pend = w->bitmap[lvl] >> idx;
	u64 turn, due;

	if (!pend)
		return TW_NO_TICK;
	idx += __ffs(pend);
	turn = w->clk & ~((1ULL << (shift + w->bits)) - 1);
	due = turn | ((u64)idx << shift);
	/* The clock's own slot above level 0 is due only at its first tick. */
	return max(due, w->clk);
}

/* Is the clock's own slot of @lvl (> 0) waiting to cascade at the clock? */
static bool tw_own_slot_due(const struct tw_wheel *w, unsigned int lvl)
{
	return test_bit((w->clk >> tw_shift(w, lvl)) & tw_mask(w),
			&w->bitmap[lvl]);
}

/*
 * Must the overflow list be pulled at the clock? Yes while a pull is under
 * way (@scanned holds the nodes it looked at) or once the clock is in the
 * top-level turn of the smallest overflow deadline.
 */
static bool tw_overflow_due(const struct tw_wheel *w, unsigned int total)
{
	if (!hlist_empty(&w->scanned))
		return true;
	return !hlist_empty(&w->overflow) &&
	       (w->ovf_min >> total) <= (w->clk >> total);
}

/**
 * tw_wheel_next() - next tick at which tw_wheel_advance() has work
 * @w:	the wheel
 *
 * That is the deadline of the earliest level-0 slot, or the first tick of a
 * higher slot that must cascade, or of the overflow list's turn. O(levels).
 *
 * Return: a tick >= the clock, or TW_NO_TICK if the wheel is empty.
 */
u64 tw_wheel_next(const struct tw_wheel *w)
{
	unsigned int total = tw_total_shift(w);
	unsigned int lvl, up;
	u64 next = TW_NO_TICK;

	/*
	 * The lowest level with work wins: its due tick lies in the clock's
	 * current turn of that level, and every later slot of a higher level
	 * starts after that turn. Only a higher level's own slot (due at the
	 * clock, waiting to cascade) or an overflow turn that has begun can
	 * come first, and then the answer is the clock itself.
	 */
	for (lvl = 0; lvl < w->levels; lvl++) {
		next = tw_level_next(w, lvl);
		if (next == TW_NO_TICK)
			continue;
		if (next == w->clk)
			return next;
		for (up = lvl + 1; up < w->levels; up++)
			if (tw_own_slot_due(w, up))
				return w->clk;
		break;
	}
	if (tw_overflow_due(w, total))
		return w->clk;
	if (lvl < w->levels)
		return next;
	if (!hlist_empty(&w->overflow))
		return max(w->ovf_min & ~(tw_wheel_horizon(w) - 1), w->clk);
	return TW_NO_TICK;
}

/*
 * Move every overflow node whose deadline is in the clock's top turn into
 * the wheel, at most *@budget of them looked at per call. Nodes that stay
 * park on @scanned until the whole list has been looked at, so that a pull
 * cut short by the budget resumes where it stopped.
 * Return: true when the pull is complete.
 */
static bool tw_pull_overflow(struct tw_wheel *w, unsigned long *budget)
{
	unsigned int total = tw_total_shift(w);
	struct tw_node *n;

	if (hlist_empty(&w->scanned))
		w->scan_min = TW_NO_TICK;
	while (!hlist_empty(&w->overflow)) {
		if (!*budget)
			return false;
		(*budget)--;
		n = hlist_entry(w->overflow.first, struct tw_node, entry);
		hlist_del(&n->entry);
		if ((n->expires >> total) == (w->clk >> total)) {
			tw_enqueue(w, n);
			continue;
		}
		hlist_add_head(&n->entry, &w->scanned);
		w->scan_min = min(w->scan_min, n->expires);
	}
	hlist_move_list(&w->scanned, &w->overflow);
	w->ovf_min = w->scan_min;
	return true;
}

/*
 * Re-hash the nodes of bucket @b relative to the clock: each goes lower.
 * At most *@budget nodes. Return: true when the bucket is empty.
 */
static bool tw_cascade(struct tw_wheel *w, unsigned int lvl, unsigned int idx,
		       unsigned long *budget)
{
	struct hlist_head *head = &w->buckets[(lvl << w->bits) + idx];
	struct hlist_node *pos = head->first, *next;
	unsigned long left = *budget;
	struct tw_node *n;

	/*
	 * Unlink from the head without pprev fix-ups: no node goes back to
	 * this bucket (each goes strictly lower), and the rest is relinked at
	 * the end if the budget ran out.
	 */
	for (; pos && left; left--) {
		next = pos->next;
		n = hlist_entry(pos, struct tw_node, entry);
		n->cascades++;
		w->max_cascades = max_t(unsigned int, w->max_cascades,
					n->cascades);
		tw_enqueue(w, n);
		pos = next;
	}
	w->cascaded += *budget - left;
	*budget = left;
	head->first = pos;
	if (pos) {
		pos->pprev = &head->first;
		return false;
	}
	__clear_bit(idx, &w->bitmap[lvl]);
	return true;
}

/*
 * Move at most *@budget nodes of @from onto @to, marking them out of the
 * wheel. Return: the number moved.
 */
static unsigned long tw_move_some(struct hlist_head *from, struct hlist_head *to,
				  unsigned long *budget)
{
	unsigned long count = 0, max = *budget;
	struct hlist_node *pos = from->first, *next;
	struct tw_node *n;

	/* Unlinking from the head: no pprev fix-up until the end. */
	while (pos && count < max) {
		next = pos->next;
		n = hlist_entry(pos, struct tw_node, entry);
		n->bucket = TW_BUCKET_NONE;
		hlist_add_head(pos, to);
		pos = next;
		count++;
	}
	from->first = pos;
	if (pos)
		pos->pprev = &from->first;
	*budget = max - count;
	return count;
}

/*
 * Do the work due at the clock's tick, within *@budget nodes; return the
 * nodes expired. *@done tells whether the tick's work is complete; if not,
 * the same tick is processed again by the next call, from where it stopped.
 */
static unsigned long tw_process(struct tw_wheel *w, struct hlist_head *expired,
				unsigned long *budget, bool *done)
{
	unsigned int total = tw_total_shift(w);
	struct hlist_head *head;
	unsigned int lvl, idx;
	unsigned long count;

	*done = false;
	if (tw_overflow_due(w, total) && !tw_pull_overflow(w, budget))
		return 0;

	/* Top down, so that a cascade may feed the levels below it. */
	for (lvl = w->levels - 1; lvl > 0; lvl--) {
		idx = (w->clk >> tw_shift(w, lvl)) & tw_mask(w);
		if (test_bit(idx, &w->bitmap[lvl]) &&
		    !tw_cascade(w, lvl, idx, budget))
			return 0;
	}

	idx = w->clk & tw_mask(w);
	*done = true;
	if (!test_bit(idx, &w->bitmap[0]))
		return 0;
	head = &w->buckets[idx];
	count = tw_move_some(head, expired, budget);
	w->pending -= count;
	if (hlist_empty(head))
		__clear_bit(idx, &w->bitmap[0]);
	else
		*done = false;
	return count;
}

/**
 * tw_wheel_advance_budget() - run the wheel towards tick @now, bounded
 * @w:		the wheel
 * @now:	current tick
 * @expired:	nodes whose deadline is <= @now are moved onto this list
 *		(order within the list is unspecified)
 * @budget:	at most this many nodes are moved (cascaded, expired or
 *		looked at on the overflow list); decremented by the work done
 * @next:	set to tw_wheel_next() as of the return, which the loop
 *		knows anyway: a caller programming its tick needs no second
 *		look at the bitmaps
 *
 * Like tw_wheel_advance(), but stops once *@budget nodes have been moved,
 * in the middle of a tick's work if need be: the clock then stays on that
 * tick, tw_wheel_next() returns it, and the next call resumes there. The
 * guarantees are unchanged: nodes come out in the tick of their deadline
 * or, when the budget cut a pass short, in a later pass for that tick.
 *
 * Return: number of nodes moved to @expired.
 */
unsigned long tw_wheel_advance_budget(struct tw_wheel *w, u64 now,
				      struct hlist_head *expired,
				      unsigned long *budget, u64 *next)
{
	unsigned long count = 0;
	bool done;
	u64 tick;

	now = min_t(u64, now, TW_MAX_TICK);
	/* One tw_wheel_next() per tick with work, plus the final one. */
	tick = tw_wheel_next(w);
	while (tick <= now) {
		w->clk = tick;
		count += tw_process(w, expired, budget, &done);
		if (!done) {
			*next = tick;
			return count;
		}
		w->clk = tick + 1;
		tick = tw_wheel_next(w);
	}
	/* No work up to @now: the clock may jump there (not backwards). */
	if (w->clk <= now)
		w->clk = now + 1;
	w->clk = min_t(u64, w->clk, TW_MAX_TICK);
	*next = tick;
	return count;
}

/**
 * tw_wheel_advance() - run the wheel up to and including tick @now
 * @w:		the wheel
 * @now:	current tick
 * @expired:	every node whose deadline is <= @now is moved onto this list
 *		(order within the list is unspecified)
 *
 * Jumps from one tick with work to the next, so the cost does not depend on
 * how many empty ticks passed. A @now before the clock is a no-op. The clock
 * saturates at TW_MAX_TICK: once there, each call processes that tick again,
 * so that nodes added later (clamped to it) still expire.
 *
 * Return: number of nodes moved to @expired.
 */
unsigned long tw_wheel_advance(struct tw_wheel *w, u64 now,
			       struct hlist_head *expired)
{
	unsigned long budget = ULONG_MAX;
	u64 next;

	return tw_wheel_advance_budget(w, now, expired, &budget, &next);
}

/**
 * tw_wheel_forward() - move the clock of an empty wheel to @now
 * @w:		the wheel
 * @now:	current tick
 *
 * An idle wheel's clock is not advanced by ticks; bringing it forward before
 * the next tw_wheel_add() keeps new deadlines in the lowest levels. Does
 * nothing if the wheel holds nodes or @now is not after the clock.
 */
void tw_wheel_forward(struct tw_wheel *w, u64 now)
{
	if (!w->pending && now > w->clk)
		w->clk = min_t(u64, now, TW_MAX_TICK);
}

/**
 * tw_wheel_drain() - take nodes out of the wheel
 * @w:		the wheel
 * @out:	nodes are moved onto this list, keeping n->expires
 * @max:	move at most this many (ULONG_MAX: all)
 *
 * Used to migrate the timers of a CPU going down and at teardown, in
 * chunks of @max so that a caller holding a lock can drop it in between.
 * O(nodes moved + buckets).
 *
 * Return: number of nodes moved; the wheel is empty once w->pending is 0.
 */
unsigned long tw_wheel_drain(struct tw_wheel *w, struct hlist_head *out,
			     unsigned long max)
{
	struct hlist_head *head;
	unsigned long budget = max;
	unsigned int lvl, idx;
	unsigned long count = 0;

	for (lvl = 0; lvl < w->levels && budget; lvl++) {
		while (w->bitmap[lvl] && budget) {
			idx = __ffs(w->bitmap[lvl]);
			head = &w->buckets[(lvl << w->bits) + idx];
			count += tw_move_some(head, out, &budget);
			if (hlist_empty(head))
				__clear_bit(idx, &w->bitmap[lvl]);
		}
	}
	count += tw_move_some(&w->overflow, out, &budget);
	count += tw_move_some(&w->scanned, out, &budget);
	if (hlist_empty(&w->overflow) && hlist_empty(&w->scanned))
		w->ovf_min = TW_NO_TICK;
	w->pending -= count;
	return count;
}
