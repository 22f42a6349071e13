// SPDX-License-Identifier: GPL-2.0
/*
 * twheel core: hierarchical timing wheel with exact cascade (its set-up is
 * wheel_init.c). The design, geometry and costs: the head of wheel.h.
 */
#include <linux/bitops.h>
#include <linux/minmax.h>
#include "wheel.h"

static inline unsigned int tw_total_shift(const struct tw_wheel *w)
{
	return w->bits * w->levels;
}

/* Highest set bit of @x != 0, numbered from 0. */
static inline unsigned long tw_top_bit(u64 x)
{
#if BITS_PER_LONG == 64
	return __fls(x);
#else
	return fls64(x) - 1;
#endif
}

/*
 * Level of deadline @e relative to clock @clk (e >= clk): by the highest
 * bit in which they differ, the index into tw_wheel.lvl, .shift and .base;
 * see "Placement" in wheel.h. e == clk is level 0.
 */
static inline unsigned long tw_level_of(u64 e, u64 clk)
{
	return tw_top_bit((e ^ clk) | 1);
}

/*
 * Put @n (deadline @e) into the bucket of level w->lvl[@f] < L that holds
 * @e, @f being tw_level_of() of @e. Only a bucket that was empty changes the
 * bitmap and, if @hint, lowers w->next to its due tick, its bucket's first
 * tick: a bucket with nodes is due at or after tw_wheel_next() already.
 */
static inline void tw_hash(struct tw_wheel *w, struct tw_node *n, u64 e,
			   unsigned long f, bool hint)
{
	unsigned int shift = w->shift[f];
	unsigned long idx = (e >> shift) & w->mask;
	unsigned int b = w->base[f] + idx;
	struct hlist_head *head = &w->buckets[b];

	if (hlist_empty(head)) {
		w->bitmap[w->lvl[f]] |= BIT(idx);
		if (hint)
			w->next = min(w->next, (e >> shift) << shift);
	}
	hlist_add_head(&n->entry, head);
	n->bucket = b;
}

/* tw_hash() of @n into bucket @idx of level 0, without a hint. */
static inline void tw_hash0(struct tw_wheel *w, struct tw_node *n,
			    unsigned long idx)
{
	struct hlist_head *head = &w->buckets[idx];

	if (hlist_empty(head))
		w->bitmap[0] |= BIT(idx);
	hlist_add_head(&n->entry, head);
	n->bucket = idx;
}

/*
 * Put @n on the overflow list, which comes due for it at the first tick of
 * its deadline's top-level turn.
 */
static void tw_add_overflow(struct tw_wheel *w, struct tw_node *n)
{
	hlist_add_head(&n->entry, &w->overflow);
	n->bucket = TW_BUCKET_OVERFLOW;
	w->ovf_min = min(w->ovf_min, n->expires);
	w->next = min(w->next, n->expires & ~(tw_wheel_horizon(w) - 1));
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
	u64 clk = w->clk;
	unsigned long f;

	if (unlikely(expires < clk || expires > TW_MAX_TICK))
		expires = expires < clk ? clk : TW_MAX_TICK;
	n->expires = expires;
	n->cascades = 0;
	w->pending++;
	f = tw_level_of(expires, clk);
	if (likely(w->lvl[f] != TW_LVL_OVERFLOW))
		tw_hash(w, n, expires, f, true);
	else
		tw_add_overflow(w, n);
}

/*
 * Must the overflow list be pulled at the clock? Yes while a pull is under
 * way (@scanned holds the nodes it looked at) or once the clock is in the
 * top-level turn of the smallest overflow deadline. Either way the clock is
 * on a top-level turn boundary.
 */
static bool tw_overflow_due(const struct tw_wheel *w)
{
	unsigned int total = tw_total_shift(w);

	if (!hlist_empty(&w->scanned))
		return true;
	return !hlist_empty(&w->overflow) &&
	       (w->ovf_min >> total) <= (w->clk >> total);
}

/* Next work of a wheel whose levels are all empty. */
static u64 tw_overflow_next(const struct tw_wheel *w)
{
	if (!hlist_empty(&w->scanned))
		return w->clk;
	if (!hlist_empty(&w->overflow))
		return max(w->ovf_min & ~(tw_wheel_horizon(w) - 1), w->clk);
	return TW_NO_TICK;
}

/*
 * The clock is on a bucket boundary of level 1 or above, and the lowest level
 * with work, @lvl, has it at @next: a higher level's own bucket (waiting to
 * cascade) or the overflow list may be due at the clock instead.
 */
static u64 tw_next_on_boundary(const struct tw_wheel *w, unsigned int lvl,
			       u64 next)
{
	u64 clk = w->clk;
	unsigned long idx;

	for (lvl++; lvl < w->levels; lvl++) {
		idx = (clk >> w->lvl_shift[lvl]) & w->mask;
		if (w->bitmap[lvl] & BIT(idx))
			return clk;
	}
	return tw_overflow_due(w) ? clk : next;
}

/*
 * tw_wheel_next(), inline for the loop of tw_wheel_advance_budget(): the
 * first bucket of the lowest level with work, unless the clock is on a level-1
 * bucket boundary (see "Finding work" in wheel.h).
 */
static inline u64 __tw_wheel_next(const struct tw_wheel *w)
{
	unsigned int lvl = 0, shift;
	u64 clk = w->clk, next;

	/* bitmap[levels] is never 0: the scan needs no other bound. */
	while (!w->bitmap[lvl])
		lvl++;
	if (lvl == w->levels)
		return tw_overflow_next(w);
	shift = w->lvl_shift[lvl];
	next = (clk & w->turn[lvl]) | ((u64)__ffs(w->bitmap[lvl]) << shift);
	if (likely(clk & w->mask) || next == clk)
		return next;
	return tw_next_on_boundary(w, lvl, next);
}

/**
 * tw_wheel_next() - next tick at which tw_wheel_advance() has work
 * @w:	the wheel
 *
 * That is the deadline of the earliest level-0 bucket, or the first tick of a
 * higher bucket that must cascade, or of the overflow list's turn. O(levels).
 *
 * Return: a tick >= the clock, or TW_NO_TICK if the wheel is empty.
 */
u64 tw_wheel_next(const struct tw_wheel *w)
{
	return __tw_wheel_next(w);
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
	u64 clk = w->clk;
	struct tw_node *n;

	if (hlist_empty(&w->scanned))
		w->scan_min = TW_NO_TICK;
	while (!hlist_empty(&w->overflow)) {
		if (!*budget)
			return false;
		(*budget)--;
		n = hlist_entry(w->overflow.first, struct tw_node, entry);
		hlist_del(&n->entry);
		if ((n->expires >> total) == (clk >> total)) {
			tw_hash(w, n, n->expires, tw_level_of(n->expires, clk), false);
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
 * Re-hash the nodes of bucket @idx of level @lvl (the clock's) relative to the
 * clock: each goes lower. At most *@budget nodes. Return: true when the
 * bucket is empty.
 */
static bool tw_cascade(struct tw_wheel *w, unsigned int lvl, unsigned int idx,
		       unsigned long *budget)
{
	struct hlist_head *head = &w->buckets[(lvl << w->bits) + idx];
	struct hlist_node *pos = head->first, *next;
	unsigned int most = w->max_cascades;
	unsigned long left = *budget;
	u64 clk = w->clk;
	struct tw_node *n;

	/*
	 * Unlink from the head without pprev fix-ups: no node goes back to
	 * this bucket (each goes strictly lower, never to the overflow list),
	 * and the rest is relinked at the end if the budget ran out.
	 */
	if (lvl == 1) {
		/*
		 * A level-1 bucket spans one turn of level 0, which starts at
		 * the clock: each node goes to level 0's bucket of its tick,
		 * with no level to look up (and no next tick to lower).
		 */
		for (; pos && left; left--) {
			next = pos->next;
			n = hlist_entry(pos, struct tw_node, entry);
			most = max_t(unsigned int, most, ++n->cascades);
			tw_hash0(w, n, n->expires & w->mask);
			pos = next;
		}
	}
	for (; pos && left; left--) {
		next = pos->next;
		n = hlist_entry(pos, struct tw_node, entry);
		most = max_t(unsigned int, most, ++n->cascades);
		tw_hash(w, n, n->expires, tw_level_of(n->expires, clk), false);
		pos = next;
	}
	w->max_cascades = most;
	w->cascaded += *budget - left;
	*budget = left;
	head->first = pos;
	if (pos) {
		pos->pprev = &head->first;
		return false;
	}
	w->bitmap[lvl] &= ~BIT(idx);
	return true;
}

/*
 * Cut at most *@budget nodes off the head of @from, marking them out of
 * the wheel: one walk to mark them. The chain runs from @from's old first
 * node to *@last; the caller links it in, setting the first node's pprev
 * and *@last's next (*@last is set only if a node was cut).
 * Return: the number cut.
 */
static inline unsigned long tw_cut_some(struct hlist_head *from,
					struct hlist_node **last,
					unsigned long *budget)
{
	struct hlist_node *pos = from->first;
	unsigned long count = 0, max = *budget;

	while (pos && count < max) {
		hlist_entry(pos, struct tw_node, entry)->bucket =
			TW_BUCKET_NONE;
		*last = pos;
		pos = pos->next;
		count++;
	}
	if (!count)
		return 0;
	from->first = pos;
	if (pos)
		pos->pprev = &from->first;
	*budget = max - count;
	return count;
}

/*
 * Move at most *@budget nodes from the head of @from to the head of @to,
 * marking them out of the wheel, the chain spliced over as it is.
 * Return: the number moved.
 */
static inline unsigned long tw_splice_some(struct hlist_head *from,
					   struct hlist_head *to,
					   unsigned long *budget)
{
	struct hlist_node *first = from->first, *last;
	unsigned long count = tw_cut_some(from, &last, budget);

	if (!count)
		return 0;
	last->next = to->first;
	if (last->next)
		last->next->pprev = &last->next;
	to->first = first;
	first->pprev = &to->first;
	return count;
}

/*
 * The same onto the end of a list whose last next pointer is *@tail
 * (advanced to the new end): a pass's expired nodes stay in the order of
 * their ticks.
 */
static inline unsigned long tw_append_some(struct hlist_head *from,
					   struct hlist_node ***tail,
					   unsigned long *budget)
{
	struct hlist_node *first = from->first, *last;
	unsigned long count = tw_cut_some(from, &last, budget);

	if (!count)
		return 0;
	**tail = first;
	first->pprev = *tail;
	last->next = NULL;
	*tail = &last->next;
	return count;
}

/*
 * The cascades (and the overflow pull) due at a clock on a bucket boundary
 * of level 1 or above, top down so that a cascade may feed the levels below
 * it; only the levels whose boundary it is can have their own bucket due.
 * Return: true when they are complete.
 */
static noinline bool tw_process_upper(struct tw_wheel *w,
				      unsigned long *budget)
{
	u64 clk = w->clk;
	unsigned int lvl = w->lvl[__ffs64(clk | TW_MAX_TICK)];
	unsigned long idx;

	if (lvl == TW_LVL_OVERFLOW) {
		if (tw_overflow_due(w) && !tw_pull_overflow(w, budget))
			return false;
		lvl = w->levels - 1;
	}
	for (; lvl > 0; lvl--) {
		idx = (clk >> w->lvl_shift[lvl]) & w->mask;
		if ((w->bitmap[lvl] & BIT(idx)) &&
		    !tw_cascade(w, lvl, idx, budget))
			return false;
	}
	return true;
}

/**
 * tw_wheel_advance_budget() - run the wheel towards tick @now, bounded
 * @w:		the wheel
 * @now:	current tick
 * @expired:	nodes whose deadline is <= @now are appended to this list,
 *		in the order of their ticks (within a tick, unspecified);
 *		O(1) when it is empty, as the driver passes it, else its end
 *		is looked for first
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
	struct hlist_node **tail = &expired->first;
	unsigned long count = 0, idx;
	u64 tick;

	while (*tail)
		tail = &(*tail)->next;
	now = min_t(u64, now, TW_MAX_TICK);
	/*
	 * Start from the cached lower bound: processing a tick without work
	 * (its last node was deleted) is harmless. Only when nothing is due
	 * is the exact answer needed, for *@next.
	 */
	tick = w->next;
	if (tick > now)
		tick = __tw_wheel_next(w);
	/* One tw_wheel_next() per tick with work. */
	for (; tick <= now; tick = __tw_wheel_next(w)) {
		w->clk = tick;
		idx = tick & w->mask;
		if (unlikely(!idx) && !tw_process_upper(w, budget))
			goto out;
		/* The level-0 bucket at the clock holds the nodes due now. */
		if (w->bitmap[0] & BIT(idx)) {
			count += tw_append_some(&w->buckets[idx], &tail,
						budget);
			if (!hlist_empty(&w->buckets[idx]))
				goto out;
			w->bitmap[0] &= ~BIT(idx);
		}
		w->clk = tick + 1;
	}
	/* No work up to @now: the clock may jump there (not backwards). */
	if (w->clk <= now)
		w->clk = now + 1;
	w->clk = min_t(u64, w->clk, TW_MAX_TICK);
out:
	w->pending -= count;
	w->next = tick;
	*next = tick;
	return count;
}

/**
 * tw_wheel_bucket() - the level-0 bucket of a tick, if it holds that tick only
 * @w:		the wheel
 * @tick:	a tick at or after the clock
 *
 * A level-0 bucket in the clock's level-0 turn, at or after the clock's own,
 * holds exactly the nodes due at its tick (see "Placement" in wheel.h). Nodes
 * due then may also wait in a higher level, to cascade at @tick, or on the
 * overflow list; they are not on it. O(1).
 *
 * Return: that bucket, or NULL if it is empty or @tick is before the clock
 * or beyond its level-0 turn.
 */
const struct hlist_head *tw_wheel_bucket(const struct tw_wheel *w, u64 tick)
{
	unsigned long idx = tick & w->mask;

	/* Before the clock: empty anyway (its turn's buckets before it are). */
	if (tick < w->clk || !(w->bitmap[0] & BIT(idx)))
		return NULL;
	/* The bucket of that index holds the clock's turn's tick. */
	if ((tick ^ w->clk) > w->mask)
		return NULL;
	return &w->buckets[idx];
}

/**
 * tw_wheel_take() - hand out a tick's level-0 bucket before the clock gets there
 * @w:		the wheel
 * @tick:	a tick for which tw_wheel_bucket() is not NULL
 * @expired:	the bucket's nodes are appended to this list (O(1) when it is
 *		empty, else its end is looked for first)
 * @budget:	at most this many nodes are moved; decremented by them
 *
 * For a caller that knows, by a finer clock than the wheel's, that every
 * node of the bucket is due although its tick has not begun. The clock does
 * not move: a node added later for @tick goes into the same bucket and
 * comes out when the clock reaches @tick (or by another take). Nodes due at
 * @tick elsewhere in the wheel stay there. O(nodes moved).
 *
 * Return: number of nodes moved to @expired.
 */
unsigned long tw_wheel_take(struct tw_wheel *w, u64 tick,
			    struct hlist_head *expired, unsigned long *budget)
{
	struct hlist_node **tail = &expired->first;
	unsigned long idx = tick & w->mask, count;

	while (*tail)
		tail = &(*tail)->next;
	count = tw_append_some(&w->buckets[idx], &tail, budget);
	if (hlist_empty(&w->buckets[idx]))
		w->bitmap[0] &= ~BIT(idx);
	w->pending -= count;
	return count;
}

/**
 * tw_wheel_cascade() - do the cascades due at the clock ahead of its tick
 * @w:		the wheel
 * @budget:	at most this many nodes are moved (cascaded, or looked at on
 *		the overflow list); decremented by the work done
 *
 * On a level-1 bucket boundary, the clock's own buckets of the levels
 * above 0 (and the overflow list, on a top-level turn boundary) come due
 * at the clock: their nodes due at the clock's tick are in no level-0
 * bucket until they cascade. For a caller that wants them there before the
 * tick begins (to fire them at their deadlines, with tw_wheel_take()), this
 * does that work of the clock's tick alone: nothing is handed out and the
 * clock does not move, so tw_wheel_advance() finds it done when the clock's
 * tick comes. Off a level-1 boundary there is none. Cut short by the budget,
 * it resumes at the next call (or advance) like a bounded pass.
 *
 * Return: true when the work is complete (or there was none).
 */
bool tw_wheel_cascade(struct tw_wheel *w, unsigned long *budget)
{
	if (w->clk & w->mask)
		return true;
	return tw_process_upper(w, budget);
}

/**
 * tw_wheel_advance() - run the wheel up to and including tick @now
 * @w:		the wheel
 * @now:	current tick
 * @expired:	every node whose deadline is <= @now is appended to this
 *		list, in the order of their ticks (as tw_wheel_advance_budget())
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
	if (!w->pending && now > w->clk) {
		w->clk = min_t(u64, now, TW_MAX_TICK);
		w->next = TW_NO_TICK;
	}
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
			count += tw_splice_some(head, out, &budget);
			if (hlist_empty(head))
				w->bitmap[lvl] &= ~BIT(idx);
		}
	}
	count += tw_splice_some(&w->overflow, out, &budget);
	count += tw_splice_some(&w->scanned, out, &budget);
	if (hlist_empty(&w->overflow) && hlist_empty(&w->scanned))
		w->ovf_min = TW_NO_TICK;
	w->pending -= count;
	return count;
}
