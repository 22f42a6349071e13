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
	w->cascaded = 0;
	w->max_cascades = 0;
	INIT_HLIST_HEAD(&w->overflow);
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
		if (hlist_empty(&w->overflow))
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
	if (!hlist_empty(&w->overflow) &&
	    (w->ovf_min >> total) <= (w->clk >> total))
		return w->clk;
	if (lvl < w->levels)
		return next;
	if (!hlist_empty(&w->overflow))
		return max(w->ovf_min & ~(tw_wheel_horizon(w) - 1), w->clk);
	return TW_NO_TICK;
}

/* Move every overflow node whose deadline is in the clock's top turn in. */
static void tw_pull_overflow(struct tw_wheel *w)
{
	unsigned int total = tw_total_shift(w);
	struct hlist_node *tmp;
	struct tw_node *n;
	u64 ovf_min = TW_NO_TICK;

	hlist_for_each_entry_safe(n, tmp, &w->overflow, entry) {
		if ((n->expires >> total) != (w->clk >> total)) {
			ovf_min = min(ovf_min, n->expires);
			continue;
		}
		hlist_del(&n->entry);
		tw_enqueue(w, n);
	}
	w->ovf_min = ovf_min;
}

/* Re-hash the nodes of bucket @b relative to the clock: each goes lower. */
static void tw_cascade(struct tw_wheel *w, unsigned int lvl, unsigned int idx)
{
	struct hlist_head head;
	struct hlist_node *tmp;
	struct tw_node *n;

	hlist_move_list(&w->buckets[(lvl << w->bits) + idx], &head);
	__clear_bit(idx, &w->bitmap[lvl]);
	hlist_for_each_entry_safe(n, tmp, &head, entry) {
		hlist_del(&n->entry);
		n->cascades++;
		w->cascaded++;
		w->max_cascades = max_t(unsigned int, w->max_cascades,
					n->cascades);
		tw_enqueue(w, n);
	}
}

/* Move every node of @from onto @to, marking it out of the wheel. */
static unsigned long tw_move_all(struct hlist_head *from, struct hlist_head *to)
{
	unsigned long count = 0;
	struct hlist_node *tmp;
	struct tw_node *n;

	hlist_for_each_entry_safe(n, tmp, from, entry) {
		hlist_del(&n->entry);
		n->bucket = TW_BUCKET_NONE;
		hlist_add_head(&n->entry, to);
		count++;
	}
	return count;
}

/* Do the work due at the clock's tick; return the nodes expired. */
static unsigned long tw_process(struct tw_wheel *w, struct hlist_head *expired)
{
	unsigned int total = tw_total_shift(w);
	unsigned int lvl, idx;
	unsigned long count;

	if (!hlist_empty(&w->overflow) &&
	    (w->ovf_min >> total) <= (w->clk >> total))
		tw_pull_overflow(w);

	/* Top down, so that a cascade may feed the levels below it. */
	for (lvl = w->levels - 1; lvl > 0; lvl--) {
		idx = (w->clk >> tw_shift(w, lvl)) & tw_mask(w);
		if (test_bit(idx, &w->bitmap[lvl]))
			tw_cascade(w, lvl, idx);
	}

	idx = w->clk & tw_mask(w);
	if (!test_bit(idx, &w->bitmap[0]))
		return 0;
	count = tw_move_all(&w->buckets[idx], expired);
	__clear_bit(idx, &w->bitmap[0]);
	w->pending -= count;
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
	unsigned long count = 0;
	u64 next;

	now = min_t(u64, now, TW_MAX_TICK);
	while (w->clk <= now) {
		next = tw_wheel_next(w);
		if (next > now) {
			w->clk = now + 1;
			break;
		}
		w->clk = next;
		count += tw_process(w, expired);
		w->clk = next + 1;
	}
	w->clk = min_t(u64, w->clk, TW_MAX_TICK);
	return count;
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
 * tw_wheel_drain() - take every node out of the wheel
 * @w:		the wheel
 * @out:	nodes are moved onto this list, keeping n->expires
 *
 * Used to migrate the timers of a dead CPU and at teardown. O(nodes + buckets).
 *
 * Return: number of nodes moved.
 */
unsigned long tw_wheel_drain(struct tw_wheel *w, struct hlist_head *out)
{
	unsigned int lvl, idx;
	unsigned long count = 0;

	for (lvl = 0; lvl < w->levels; lvl++) {
		while (w->bitmap[lvl]) {
			idx = __ffs(w->bitmap[lvl]);
			__clear_bit(idx, &w->bitmap[lvl]);
			count += tw_move_all(&w->buckets[(lvl << w->bits) + idx],
					    out);
		}
	}
	count += tw_move_all(&w->overflow, out);
	w->ovf_min = TW_NO_TICK;
	w->pending -= count;
	return count;
}
