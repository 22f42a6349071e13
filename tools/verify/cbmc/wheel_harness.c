// SPDX-License-Identifier: GPL-2.0
/*
 * CBMC harness of the twheel core: twheel/wheel.c, unchanged, built against
 * the host shim of tools/testing/twheel (with include/linux/bitops.h of this
 * directory in front of it: builtins instead of x86 asm) and the proof's
 * copy of wheel.h (tools/verify/cbmc.sh: the geometry's capacity, the list
 * heads in objects of their own).
 *
 * The wheel is driven by the operations of SCRIPT (below) on NODES nodes:
 *   arm      a node not in the wheel, at any deadline below 2^TICK_BITS
 *            (with TICK_HIGH also near, at and beyond TW_MAX_TICK, clamped;
 *            any 64-bit one without TICK_BITS): in the past, now, within a
 *            level, beyond the horizon (overflow list)
 *   cancel   a node in the wheel (tw_wheel_del())
 *   advance  to any tick (tw_wheel_advance(), or tw_wheel_advance_budget()
 *            with any budget): backwards, to the clock, by one, by any
 *            number of ticks
 *   forward  tw_wheel_forward() to any tick
 *   take     tw_wheel_take() of the bucket tw_wheel_bucket() finds for any
 *            tick, with any budget (the driver's take of a bucket whose
 *            deadlines a finer clock says are all due)
 *   cascade  tw_wheel_cascade() with any budget: the cascades due at the
 *            clock, ahead of its tick (nothing handed out, the clock
 *            stays; a later advance finds them done or resumes them)
 *   end      tw_wheel_advance() to the last tick: the wheel must be empty
 * from a clock starting at any tick, on a BITS x LEVELS geometry (the
 * arguments of tw_wheel_init(), checked against TW_MIN_BITS etc.).
 *
 * A reference model keeps, per node, whether it is armed and its effective
 * deadline (the deadline clamped to [clock, TW_MAX_TICK] when armed), and
 * the clock (first tick not processed). After every operation:
 *   - never early: every node handed out by an advance to @now was armed
 *     and has its effective deadline <= @now, and n->expires is that
 *     deadline;
 *   - in order: the nodes of one advance come out in the order of their
 *     ticks (so the driver runs callbacks it caught up on oldest first);
 *   - exactly once: a node is handed out at most once per arming (it is
 *     disarmed by it, appears once on the list, and is out of the wheel);
 *   - on time: an unbudgeted advance to @now hands out every armed node
 *     whose deadline is <= @now, so a node is never later than the first
 *     advance that reaches its deadline (one tick when the driver advances
 *     every tick); a budgeted one hands out the rest in later passes;
 *   - the next tick with work, tw_wheel_next(), is >= the clock and <= every
 *     armed deadline (the driver sleeping until then is never late), and
 *     TW_NO_TICK exactly when nothing is armed;
 *   - cancel removes: a cancelled node is out of the wheel and never comes
 *     out of a later advance (it is not armed in the model);
 *   - pending counts the armed nodes; the clock follows the model's.
 * After a take: the bucket is found exactly when the tick is in the
 * clock's level-0 turn, at or after the clock, and a node is in it; only
 * armed nodes due at that tick come out, each once and out of the wheel,
 * no more than the budget; the clock stays; the checks above still hold.
 * Far deadlines (overflow list) are covered by the same assertions: a node
 * armed beyond the horizon must come out exactly at its deadline.
 * CBMC's default checks (array bounds, pointers, shifts) hold throughout.
 */
#include <linux/bitops.h>

#include "wheel.h"

#ifndef NODES
#define NODES	3
#endif
#ifndef BITS
#define BITS	2
#endif
#ifndef LEVELS
#define LEVELS	2
#endif
#if NODES > 4
#error "at most 4 nodes"
#endif

#include "nondet.h"

enum { OP_ARM, OP_CANCEL, OP_ADVANCE, OP_FORWARD, OP_NR };

static struct tw_wheel w;
/*
 * The list heads of the wheel, in objects of their own (see cbmc.sh: the
 * proof's copy of wheel.h declares them as pointers, w.buckets[b],
 * w.overflow and w.scanned reach them unchanged). The buckets are an array
 * of their one member, so that a load or store of a head's first pointer
 * at a symbolic bucket is one of an array element of the same type.
 */
#ifndef TW_HEADS_APART
#error "the proof's copy of wheel.h (tools/verify/cbmc.sh) is not first on the include path"
#endif
static struct hlist_node *bucket_array[TW_MAX_BUCKETS];
static struct hlist_head overflow_obj, scanned_obj;
/*
 * Separate objects, each reached through a constant pointer (node_at()): a
 * symbolic index into an array of nodes would make CBMC model every
 * store through a node pointer as a byte-level update of the whole array.
 * Only NODES of them exist, so that no pointer may point at another.
 */
static struct tw_node node0;
#if NODES > 1
static struct tw_node node1;
#endif
#if NODES > 2
static struct tw_node node2;
#endif
#if NODES > 3
static struct tw_node node3;
#endif

/* The node of index @i < NODES, one of the separate objects. */
static struct tw_node *node_at(unsigned int i)
{
#if NODES > 3
	if (i == 3)
		return &node3;
#endif
#if NODES > 2
	if (i == 2)
		return &node2;
#endif
#if NODES > 1
	if (i == 1)
		return &node1;
#endif
	return &node0;
}

/* The index of node @t, NODES if it is none of them. */
static unsigned int node_index(const struct tw_node *t)
{
	unsigned int i;

	for (i = 0; i < NODES; i++)
		if (t == node_at(i))
			return i;
	return NODES;
}

static bool armed[NODES];
static u64 due[NODES];
static u64 clk;		/* the model's clock: first tick not processed */

/*
 * TICK_BITS: every tick the harness passes (start, deadlines, advance and
 * forward targets) is below 2^TICK_BITS; with TICK_HIGH as well, or in the
 * last 2^TICK_BITS ticks before TW_MAX_TICK, or anywhere above it (up to
 * U64_MAX: clamped, the clock saturates there). Without TICK_BITS, any
 * 64-bit tick.
 */
#ifdef TICK_BITS
#define TICK_END	BIT_ULL(TICK_BITS)
#ifdef TICK_HIGH
#define TICK_LAST	U64_MAX
#else
#define TICK_LAST	(TICK_END - 1)
#endif
#else
#define TICK_LAST	U64_MAX
#endif

static u64 any_tick(void)
{
	u64 t = nondet_u64();

#ifdef TICK_BITS
#ifdef TICK_HIGH
	__CPROVER_assume(t < TICK_END || t >= TW_MAX_TICK - TICK_END);
#else
	__CPROVER_assume(t < TICK_END);
#endif
#endif
	return t;
}

static u64 clamp_tick(u64 t)
{
	return t > TW_MAX_TICK ? TW_MAX_TICK : t;
}

static unsigned int nr_armed(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < NODES; i++)
		n += armed[i];
	return n;
}

/* The structure-independent invariants, after every operation. */
static void check_state(void)
{
	u64 next = tw_wheel_next(&w);
	unsigned int i;

	__CPROVER_assert(w.clk == clk, "clock follows the model");
	__CPROVER_assert(w.pending == nr_armed(), "pending counts armed nodes");
	__CPROVER_assert((next == TW_NO_TICK) == (nr_armed() == 0),
			 "next is TW_NO_TICK exactly when nothing is armed");
	__CPROVER_assert(next == TW_NO_TICK || next >= w.clk,
			 "next is not before the clock");
	for (i = 0; i < NODES; i++) {
		__CPROVER_assert(tw_node_in_wheel(node_at(i)) == armed[i],
				 "a node is in the wheel exactly when armed");
		__CPROVER_assert(!armed[i] || next <= due[i],
				 "next is not after an armed deadline");
	}
}

/*
 * Check the list an advance to @now produced and disarm what it holds.
 * @complete: the advance was not cut short by a budget.
 */
static void check_expired(struct hlist_head *expired, u64 now,
			  unsigned long count, bool complete)
{
	bool seen[NODES] = { false };
	struct hlist_node *pos = expired->first;
	unsigned long n = 0;
	unsigned int i;
	unsigned int idx;
	u64 prev = 0;

	now = clamp_tick(now);
	while (pos) {
		struct tw_node *t = hlist_entry(pos, struct tw_node, entry);

		idx = node_index(t);
		__CPROVER_assert(idx < NODES, "expired node is ours");
		__CPROVER_assert(!seen[idx], "exactly once: on the list once");
		seen[idx] = true;
		__CPROVER_assert(armed[idx], "exactly once, cancel removes: armed");
		__CPROVER_assert(due[idx] <= now, "never early");
		__CPROVER_assert(t->expires == due[idx],
				 "expires is the effective deadline");
		__CPROVER_assert(t->bucket == TW_BUCKET_NONE,
				 "expired node is out of the wheel");
		__CPROVER_assert(due[idx] >= prev,
				 "in order: no node before one of an earlier tick");
		prev = due[idx];
		n++;
		pos = pos->next;
	}
	__CPROVER_assert(n == count, "the count is the list's length");
	for (i = 0; i < NODES; i++) {
		if (complete)
			__CPROVER_assert(!armed[i] || due[i] > now || seen[i],
					 "on time: every due node comes out");
		armed[i] = armed[i] && !seen[i];
	}
}

static void op_arm(unsigned int i)
{
	u64 e = any_tick();

	__CPROVER_assume(!armed[i]);
	tw_wheel_add(&w, node_at(i), e);
	armed[i] = true;
	due[i] = e < clk ? clk : clamp_tick(e);
}

static void op_cancel(unsigned int i)
{
	__CPROVER_assume(armed[i]);
	tw_wheel_del(&w, node_at(i));
	__CPROVER_assert(!tw_node_in_wheel(node_at(i)), "cancel removes");
	armed[i] = false;
}

static void op_advance(u64 now, bool budgeted)
{
	struct hlist_head expired = { .first = NULL };
	unsigned long count, budget, left;
	u64 next, t;

	if (!budgeted) {
		count = tw_wheel_advance(&w, now, &expired);
		check_expired(&expired, now, count, true);
		t = clamp_tick(now);
		clk = t >= clk ? clamp_tick(t + 1) : clk;
		return;
	}
	budget = nondet_ulong();
	__CPROVER_assume(budget <= 2 * NODES * LEVELS + 1);
	left = budget;
	count = tw_wheel_advance_budget(&w, now, &expired, &left, &next);
	__CPROVER_assert(left <= budget, "budget only goes down");
	__CPROVER_assert(count <= budget, "no more expired than the budget");
	__CPROVER_assert(next == tw_wheel_next(&w), "*next is tw_wheel_next()");
	/* Budget left: the pass was not cut short, as tw_wheel_advance(). */
	check_expired(&expired, now, count, left > 0);
	t = clamp_tick(now);
	if (left) {
		clk = t >= clk ? clamp_tick(t + 1) : clk;
		return;
	}
	/* Maybe cut short: the clock stays on the tick whose work is left. */
	__CPROVER_assert(w.clk >= clk, "the clock never goes back");
	__CPROVER_assert(w.clk == clk || w.clk <= t + 1,
			 "the clock never passes now + 1");
	clk = w.clk;
}

static void op_take(u64 tick)
{
	struct hlist_head expired = { .first = NULL };
	const struct hlist_head *head = tw_wheel_bucket(&w, tick);
	bool seen[NODES] = { false };
	bool in_turn = tick >= clk && (tick ^ clk) <= w.mask, held = false;
	unsigned long budget, left, count, n = 0;
	struct hlist_node *pos;
	unsigned int i, idx;

	for (i = 0; i < NODES; i++)
		held |= armed[i] && node_at(i)->bucket == (tick & w.mask);
	__CPROVER_assert(!head == !(in_turn && held),
			 "take: the bucket is found exactly when it holds the tick's nodes");
	if (!head)
		return;
	budget = nondet_ulong();
	__CPROVER_assume(budget <= NODES + 1);
	left = budget;
	count = tw_wheel_take(&w, tick, &expired, &left);
	__CPROVER_assert(count + left == budget, "take: the budget counts the nodes");
	for (pos = expired.first; pos; pos = pos->next) {
		idx = node_index(hlist_entry(pos, struct tw_node, entry));
		__CPROVER_assert(idx < NODES, "take: node is ours");
		__CPROVER_assert(!seen[idx], "take: exactly once");
		seen[idx] = true;
		__CPROVER_assert(armed[idx] && due[idx] == tick,
				 "take: only armed nodes due at the tick");
		__CPROVER_assert(!tw_node_in_wheel(node_at(idx)),
				 "take: taken node is out of the wheel");
		n++;
	}
	__CPROVER_assert(n == count, "take: the count is the list's length");
	__CPROVER_assert(!left || !tw_wheel_bucket(&w, tick),
			 "take: the whole bucket within the budget");
	for (i = 0; i < NODES; i++)
		armed[i] = armed[i] && !seen[i];
}

static void op_cascade(void)
{
	unsigned long budget = nondet_ulong(), left;
	bool done;

	__CPROVER_assume(budget <= 2 * NODES * LEVELS + 1);
	left = budget;
	done = tw_wheel_cascade(&w, &left);
	__CPROVER_assert(left <= budget, "cascade: the budget only goes down");
	__CPROVER_assert(done || !left, "cascade: cut short only by the budget");
}

static void op_forward(u64 now)
{
	clk = !nr_armed() && now > clk ? clamp_tick(now) : clk;
	tw_wheel_forward(&w, now);
}

/*
 * SCRIPT: the operations, one letter each: A arm, C cancel, V advance, B
 * budgeted advance, F forward, T take, K cascade, E advance to the last
 * tick, ? any
 * of A C V F
 * (B instead of V with BUDGET); the node and every tick are
 * nondeterministic. A fixed letter costs less than ?, which is all four.
 */
#ifndef SCRIPT
#define SCRIPT	"?????"
#endif

static void run_op(char c)
{
	unsigned int i = nondet_uint(), op;

	__CPROVER_assume(i < NODES);
	switch (c) {
	case 'A':
		op = OP_ARM;
		break;
	case 'C':
		op = OP_CANCEL;
		break;
	case 'V':
	case 'B':
		op = OP_ADVANCE;
		break;
	case 'F':
		op = OP_FORWARD;
		break;
	case 'T':
		op_take(any_tick());
		check_state();
		return;
	case 'K':
		op_cascade();
		check_state();
		return;
	case 'E':
		/* To the last tick: whatever is armed comes out. */
		op_advance(TICK_LAST, false);
		__CPROVER_assert(nr_armed() == 0, "everything armed came out");
		check_state();
		return;
	default:
		op = nondet_uint();
		__CPROVER_assume(op < OP_NR);
		break;
	}
	switch (op) {
	case OP_ARM:
		op_arm(i);
		break;
	case OP_CANCEL:
		op_cancel(i);
		break;
	case OP_ADVANCE:
#ifdef BUDGET
		op_advance(any_tick(), true);
#else
		op_advance(any_tick(), c == 'B');
#endif
		break;
	default:
		op_forward(any_tick());
		break;
	}
	check_state();
}

int main(void)
{
	static const char script[] = SCRIPT;
	u64 start = any_tick();
	unsigned int step, i;

	w.buckets = (struct hlist_head *)bucket_array;
	w.overflow_head = &overflow_obj;
	w.scanned_head = &scanned_obj;
	__CPROVER_assert(tw_wheel_init(&w, BITS, LEVELS, start) == 0,
			 "geometry accepted");
	clk = clamp_tick(start);
	for (i = 0; i < NODES; i++)
		tw_node_init(node_at(i));
	check_state();

	for (step = 0; step < sizeof(script) - 1; step++)
		run_op(script[step]);

	return 0;
}
