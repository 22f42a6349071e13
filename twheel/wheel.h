/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel core: a hashed, hierarchical timing wheel with exact cascade.
 *
 * This is the pure part of twheel: no locks, no clocks, no allocation. Time
 * is a 64-bit count of ticks passed in by the caller, so KUnit (and the host
 * build under tools/testing) can drive it with a fake clock. The per-CPU
 * driver (base*.c) adds the lock, the hrtimer and the workqueue.
 *
 * Geometry
 * --------
 * The wheel has L levels (1..8) of S = 2^B buckets (B = 2..6, 2..5 on 32-bit,
 * so a level's bitmap of non-empty buckets is one unsigned long). A bucket of
 * level n spans S^n ticks, so one turn of level n-1 is one bucket of level n:
 *
 *	level	bucket span	turn (horizon of the level)
 *	0	1 tick		S ticks
 *	1	S ticks		S^2 ticks
 *	n	S^n ticks	S^(n+1) ticks
 *
 * With the defaults (B = 6, L = 5, 1 ms ticks) that is 64 buckets of 1 ms,
 * 64 ms, 4.1 s, 4.4 min and 4.7 h: a horizon of 2^30 ms, about 12.4 days.
 *
 * Placement (the exact rule)
 * --------------------------
 * A timer expiring at tick e is placed relative to the wheel clock clk (the
 * first tick not yet processed) in the lowest level n at which e and clk agree
 * on every bit above level n, i.e. n = (fls64(e ^ clk) - 1) / B, in bucket
 * (e >> (n * B)) & (S - 1). Deadlines in the past are treated as clk. All
 * timers of a level therefore sit in buckets at or after the clock's bucket of
 * that level, within the clock's current turn: there is no wrap-around to
 * disambiguate and no rounding. A bucket of level n > 0 comes due at the first
 * tick of the span it covers; its timers are then re-hashed (cascaded) with
 * that tick as the clock, which puts each one strictly lower. A timer thus
 * cascades at most L - 1 times and fires in exactly the tick of its deadline:
 * never early, never later than that tick (timer_list instead rounds
 * deadlines up by up to 12.5 % so that it never cascades).
 *
 * The level is looked up, not computed: tw_wheel.lvl, .shift and .base are
 * indexed by the highest bit in which deadline and clock differ (one bsr),
 * so no division by B is done at run time.
 *
 * Far deadlines
 * -------------
 * A deadline beyond the clock's current top-level turn goes to an overflow
 * list, with the smallest deadline on it remembered. When the clock reaches
 * the turn of that deadline, the overflow list is walked once and every timer
 * of that turn enters the wheel (at most at the top level). Deadlines are
 * clamped to TW_MAX_TICK, so no tick arithmetic can wrap into the past.
 *
 * Finding work
 * ------------
 * Two consequences of the placement rule make the search short. No node sits
 * in a bucket before the clock's bucket of its level, so the first set bit of a
 * level's bitmap is that level's next bucket. And the clock's own bucket of a
 * level n > 0 holds nodes only while the clock is at its first tick (the
 * bucket's cascade is then due or under way), i.e. on a bucket boundary of
 * level n. So the next tick with work is that of the lowest level with a
 * non-empty bitmap (its bucket lies in the clock's turn of that level, and
 * every later bucket of a higher level starts after that turn), unless the
 * clock is on a level-1 bucket boundary, where a higher level's own bucket or
 * an overflow turn that has begun may be due at the clock itself.
 * tw_wheel_next() scans the bitmap words up to the first non-empty one
 * (bitmap[L] is all ones and ends the scan) and takes its first bit: O(L)
 * at worst, independent of the number of timers and of how long the wheel
 * was idle. tw_wheel_advance() jumps from event to event, so a catch-up
 * after a long gap costs O(L) per non-empty bucket, not per tick.
 *
 * tw_wheel.next caches a lower bound of tw_wheel_next(), never before the
 * clock: each advance leaves the exact value; an add lowers it to the due
 * tick of its bucket only when that bucket was empty (a bucket with nodes
 * is due no earlier than the next work already); a del leaves it, possibly
 * early. An advance starts from it without looking at the bitmaps, so each
 * tick with work costs one tw_wheel_next(), computed after the tick's work;
 * a stale value costs one tick processed as a no-op. When nothing is due,
 * the exact value is computed for the caller's *next.
 *
 * The work of a tick: off a level-1 bucket boundary only level 0 can have any,
 * its bucket at the clock, which holds exactly the nodes due then; they are
 * marked out of the wheel in one walk and the chain is spliced onto the end
 * of the expired list whole, so that a pass that catches up on several
 * ticks hands their nodes out in the order of the ticks. On a boundary of
 * level n (the tick's lowest set bit, through the same table), the overflow
 * list is pulled if n is the top turn and the own buckets of levels n..1
 * cascade, top down, before level 0.
 *
 * Cost
 * ----
 * Arm: O(1), one bsr, three table loads and an hlist insert; the bitmap
 * and the cached next tick are only written when the bucket was empty.
 * Cancel: O(1), an hlist delete; the bitmap bit goes with the bucket's last
 * node. Expiry: per tick with work, one tw_wheel_next(); per expired node,
 * one store (the splice); per node over its lifetime at most L - 1
 * cascades, each an O(1) re-hash. Overflow timers are also touched once
 * per top-level turn in which the overflow list comes due (documented cost
 * of far deadlines). tools/testing/twheel/bench-core.sh measures the host
 * build: instructions per arm, cancel and expired timer against a binary
 * heap, at 1e3..1e6 pending timers.
 *
 * Bounded passes
 * --------------
 * tw_wheel_advance_budget() moves at most a given number of nodes (cascaded,
 * expired, or looked at on the overflow list) and may stop in the middle of
 * a tick's work: the clock then stays on that tick and tw_wheel_next()
 * returns it, so the next call resumes there. This is safe because work
 * at one tick is ordered (overflow pull, then cascades top down, then level
 * 0) and every step is resumable: a half-cascaded bucket keeps its bit, a
 * half-pulled overflow list parks the nodes it kept on @scanned. Nodes
 * added meanwhile are placed relative to the unchanged clock, never into
 * a higher level's bucket at the clock. The caller (base/base_expire.c)
 * bounds the work done with interrupts off however many timers share a
 * tick.
 */
#ifndef _TWHEEL_WHEEL_H
#define _TWHEEL_WHEEL_H

#include <linux/bits.h>
#include <linux/limits.h>
#include <linux/types.h>
#include <linux/list.h>
#include <linux/twheel.h>

#define TW_MIN_BITS		2
/* A level's bitmap is one unsigned long: 64 buckets, or 32 on 32-bit. */
#define TW_MAX_BITS		(BITS_PER_LONG == 64 ? 6 : 5)
#define TW_MAX_LEVELS		8
#define TW_MAX_BUCKETS		(TW_MAX_LEVELS << TW_MAX_BITS)

/* Deadlines are clamped to this tick: 2^62 ticks is > 146 years at 1 ns. */
#define TW_MAX_TICK		BIT_ULL(62)
/* tw_wheel_next() of an empty wheel. */
#define TW_NO_TICK		U64_MAX

/* Markers in tw_node.bucket for nodes not in a wheel bucket. */
#define TW_BUCKET_NONE		0xffff
#define TW_BUCKET_OVERFLOW	0xfffe

/* Level of the bits above the top level in tw_wheel.lvl: overflow list. */
#define TW_LVL_OVERFLOW		TW_MAX_LEVELS
/* Placement entries: one per bit of a tick. */
#define TW_PLACES		64

/**
 * struct tw_wheel - one timing wheel
 * @clk:	first tick not yet processed; every node with expires < clk
 *		has been handed out by tw_wheel_advance(); saturates at
 *		TW_MAX_TICK
 * @next:	a lower bound of tw_wheel_next() (exact but after a del or
 *		a take),
 *		where tw_wheel_advance() starts without looking at bitmaps
 * @mask:	S - 1
 * @bits:	log2 of buckets per level (B)
 * @levels:	number of levels (L)
 * @pending:	nodes in the wheel, overflow included
 * @bitmap:	per level, bit i set when bucket i of that level is not empty;
 *		bitmap[levels] is all ones, the end of a scan for work
 * @lvl:	by bit number 0..63, where a deadline goes whose highest bit
 *		differing from the clock's is that bit: its level (bit / B,
 *		TW_LVL_OVERFLOW beyond the top level), so that no division
 *		by B is done at run time
 * @shift:	by bit number: @lvl * B, the shift of that level's bucket index
 * @base:	by bit number: @lvl << B, the index of the level's first bucket
 * @lvl_shift:	by level: level * B
 * @turn:	by level: mask of the tick bits above the level's turn
 * @ovf_min:	lower bound of the deadlines on @overflow and @scanned
 *		(TW_NO_TICK if both are empty)
 * @overflow:	nodes beyond the current top-level turn
 * @scanned:	overflow nodes already looked at by a pull that the budget
 *		of tw_wheel_advance_budget() cut short (empty otherwise)
 * @scan_min:	smallest deadline on @scanned
 * @cascaded:	total cascades performed (statistic)
 * @max_cascades: most cascades any node went through (statistic)
 * @buckets:	levels << bits bucket heads, level-major
 */
struct tw_wheel {
	u64			clk;
	u64			next;
	unsigned long		mask;
	unsigned int		bits;
	unsigned int		levels;
	unsigned long		pending;
	unsigned long		bitmap[TW_MAX_LEVELS + 1];
	u8			lvl[TW_PLACES];
	u8			shift[TW_PLACES];
	u16			base[TW_PLACES];
	u8			lvl_shift[TW_MAX_LEVELS];
	u64			turn[TW_MAX_LEVELS];
	u64			ovf_min;
	struct hlist_head	overflow;
	struct hlist_head	scanned;
	u64			scan_min;
	u64			cascaded;
	unsigned int		max_cascades;
	struct hlist_head	buckets[TW_MAX_BUCKETS];
};

int tw_wheel_init(struct tw_wheel *w, unsigned int bits, unsigned int levels,
		  u64 now);
void tw_node_init(struct tw_node *n);
void tw_wheel_add(struct tw_wheel *w, struct tw_node *n, u64 expires);
u64 tw_wheel_next(const struct tw_wheel *w);
unsigned long tw_wheel_advance(struct tw_wheel *w, u64 now,
			       struct hlist_head *expired);
unsigned long tw_wheel_advance_budget(struct tw_wheel *w, u64 now,
				      struct hlist_head *expired,
				      unsigned long *budget, u64 *next);
void tw_wheel_forward(struct tw_wheel *w, u64 now);
const struct hlist_head *tw_wheel_bucket(const struct tw_wheel *w, u64 tick);
unsigned long tw_wheel_take(struct tw_wheel *w, u64 tick,
			    struct hlist_head *expired, unsigned long *budget);
bool tw_wheel_cascade(struct tw_wheel *w, unsigned long *budget);
unsigned long tw_wheel_drain(struct tw_wheel *w, struct hlist_head *out,
			     unsigned long max);

/**
 * tw_node_in_wheel() - is the node in a bucket or on the overflow list?
 * @n:	the node
 *
 * Return: true if tw_wheel_del() may be called on @n.
 */
static inline bool tw_node_in_wheel(const struct tw_node *n)
{
	return n->bucket != TW_BUCKET_NONE;
}

/**
 * tw_wheel_del() - disarm a node
 * @w:	the wheel holding @n
 * @n:	a node for which tw_node_in_wheel() is true
 *
 * O(1), and inline: a cancel is little more than this and the base lock.
 * The cached lower bound of the next tick with work stays as it is.
 */
static inline void tw_wheel_del(struct tw_wheel *w, struct tw_node *n)
{
	unsigned int b = n->bucket;

	hlist_del_init(&n->entry);
	n->bucket = TW_BUCKET_NONE;
	w->pending--;
	if (unlikely(b == TW_BUCKET_OVERFLOW)) {
		if (hlist_empty(&w->overflow) && hlist_empty(&w->scanned))
			w->ovf_min = TW_NO_TICK;
		return;
	}
	if (hlist_empty(&w->buckets[b]))
		w->bitmap[b >> w->bits] &= ~BIT(b & w->mask);
}

/**
 * tw_wheel_horizon() - ticks covered by one turn of the top level
 * @w:	the wheel
 *
 * Return: S^L; deadlines further than this from the clock use the overflow
 * list.
 */
static inline u64 tw_wheel_horizon(const struct tw_wheel *w)
{
	return 1ULL << (w->bits * w->levels);
}

#endif /* _TWHEEL_WHEEL_H */
