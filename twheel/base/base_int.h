/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel per-CPU driver internals, shared by its files (design in base.h):
 *
 *   base.c          the bases' storage and geometry, locking two bases,
 *                   the kick of a runner, a timer's set-up and group
 *   base_tick.c     programming the tick hrtimer: when and where
 *   base_expire.c   the tick hrtimer's callback, expiry, the work item
 *   base_arm.c      the in-kernel API: arm, cancel, cancel_sync, query;
 *                   batches
 *   base_init.c     set-up and tear-down of every base, CPU hotplug
 *
 * Each file uses only those above it in this list (make lint checks it on
 * the built objects: tools/vm/calls.py).
 */
#ifndef _TWHEEL_BASE_INT_H
#define _TWHEEL_BASE_INT_H

#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/workqueue.h>

#include "base.h"
#include "testhooks.h"

/* base.c */
DECLARE_PER_CPU(struct twheel_base *, twheel_base_ptr);
extern struct workqueue_struct *twheel_wq;
extern u32 tw_tick_ns;
extern u64 tw_tick_recip;	/* U64_MAX / tw_tick_ns, see tw_div_tick() */
extern unsigned int tw_bucket_bits;
extern unsigned int tw_nr_levels;
extern u64 tw_max_ktime_tick;	/* largest tick whose start fits a ktime_t */

void tw_lock_two_irqoff(struct twheel_base *a, struct twheel_base *b)
	__acquires(&a->lock) __acquires(&b->lock);
void tw_unlock_two_irqoff(struct twheel_base *a, struct twheel_base *b)
	__releases(&a->lock) __releases(&b->lock);
int tw_fallback_cpu(unsigned int from);
struct tw_runner *tw_kick(struct twheel_base *base, int cpu);

/* base_tick.c */
bool tw_bucket_span(const struct twheel_base *base, u64 tick, u64 *first,
		    u64 *last);
ktime_t tw_fire_time(struct twheel_base *base, u64 tick);
void __tw_reprogram(struct twheel_base *base, u64 next);
void __tw_reprogram_within(struct twheel_base *base, u64 next);
void tw_reprogram_next(struct twheel_base *base);
void tw_csd_fn(void *info);
void tw_wait_csd(struct twheel_base *base);
void __tw_maybe_idle(struct twheel_base *base);

/* base_expire.c */
#ifdef CONFIG_LOCKDEP
extern struct lockdep_map twheel_callback_map;
#endif
void __tw_enqueue(struct twheel_base *base, struct twheel_timer *t,
		  u64 deadline);
void tw_defer(struct tw_runner *r, struct twheel_timer *t, u64 deadline,
	      int move_to);
void tw_enqueue(struct twheel_base *base, struct twheel_timer *t,
		u64 deadline);
u64 tw_next_deadline(struct twheel_timer *t, u64 deadline, u64 end);
enum hrtimer_restart tw_tick_fn(struct hrtimer *hrt);
void tw_work_fn(struct work_struct *work);

static inline struct twheel_base *tw_base(unsigned int cpu)
{
	return per_cpu(twheel_base_ptr, cpu);
}

static inline u64 tw_add_sat(u64 a, u64 b)
{
	u64 r;

	return check_add_overflow(a, b, &r) ? U64_MAX : r;
}

static inline u64 tw_mul_sat(u64 a, u64 b)
{
	u64 r;

	return check_mul_overflow(a, b, &r) ? U64_MAX : r;
}

/*
 * @ns / tw_tick_ns, with the remainder, by a multiplication: with
 * m = floor((2^64 - 1) / d), q = floor(n * m / 2^64) is floor(n / d) or one
 * less, for every 64-bit n. A division is the dearer part of an arm.
 */
static inline u64 tw_div_tick(u64 ns, u64 *rem)
{
	u64 q = mul_u64_u64_shr(ns, tw_tick_recip, 64);
	u64 r = ns - q * tw_tick_ns;

	if (r >= tw_tick_ns) {
		q++;
		r -= tw_tick_ns;
	}
	*rem = r;
	return q;
}

/* The tick in progress at @ns. */
static inline u64 tw_ns_to_tick_floor(u64 ns)
{
	u64 rem;

	return tw_div_tick(ns, &rem);
}

/* The first tick starting at or after @ns: a deadline fires in that tick. */
static inline u64 tw_ns_to_tick(u64 ns)
{
	u64 rem;
	u64 tick = tw_div_tick(ns, &rem);

	return tick + (rem ? 1 : 0);
}

/*
 * CLOCK_MONOTONIC now, for deadlines and expiry: never under a base lock
 * (see "Bounded work" in base.h). The clock_read hook makes it slow, as an
 * emulated HPET is.
 */
static inline u64 tw_clock_ns(void)
{
	twheel_hook(TWHEEL_HOOK_clock_read);
	return ktime_get_ns();
}

/*
 * A tick at or before the current one, from the time of the last
 * timekeeping update: no clocksource read, so it may be taken under a base
 * lock. Good for moving an empty wheel's clock forward (a clock behind
 * the time costs a cascade at most), never for a deadline.
 */
static inline u64 tw_coarse_tick(void)
{
	return tw_ns_to_tick_floor(ktime_get_coarse_ns());
}

static inline ktime_t tw_tick_to_ktime(u64 tick)
{
	if (tick > tw_max_ktime_tick)
		return KTIME_MAX;
	return ns_to_ktime(tick * tw_tick_ns);
}

/*
 * Widen a window with preemption off, so that the hook spins (taking
 * interrupts) wherever it is: a test-only delay, nothing in normal builds.
 */
static inline void tw_hook_spin(enum twheel_hook h)
{
#ifdef TWHEEL_TESTHOOKS
	preempt_disable();
	twheel_hook(h);
	preempt_enable();
#endif
}

/*
 * Make the tick hrtimer fire no later than tick @next (see
 * __tw_reprogram()) and, when it is programmed for that very tick at an
 * exact deadline (before the tick's time), no later than @deadline (ns,
 * the deadline of a timer just put into that tick) while the tick has
 * exact programmings left (__tw_reprogram_within()): it would otherwise
 * keep a later deadline of the bucket ("Exact buckets" in base.h). An arm
 * into a later tick, or into the programmed tick when that is programmed
 * at its time (a bucket of more than TW_EXACT_NODES timers, say), costs
 * one or two comparisons and no reprogramming. Base lock held.
 */
static inline void tw_reprogram(struct twheel_base *base, u64 next,
				u64 deadline)
{
	s64 cur;

	if (next < base->next_tick) {
		__tw_reprogram(base, next);
	} else if (unlikely(next == base->next_tick)) {
		cur = ktime_to_ns(hrtimer_get_expires(&base->tick));
		if (deadline < (u64)cur &&
		    cur < ktime_to_ns(tw_tick_to_ktime(next)))
			__tw_reprogram_within(base, next);
	}
}

/* Stop the tick hrtimer if the wheel became empty. Base lock held. */
static inline void tw_maybe_idle(struct twheel_base *base)
{
	if (!base->wheel.pending && base->next_tick != TW_NO_TICK)
		__tw_maybe_idle(base);
}

/* The queue of @base that @t waits on while it is expired ("Fairness"). */
static inline struct tw_fq *tw_fq_of(struct twheel_base *base,
				     const struct twheel_timer *t)
{
	return &base->fq[t->node.group & (TW_FAIR_QUEUES - 1)];
}

/*
 * Append expired @t (in no list) to its queue on @base, which joins the
 * round-robin list if it was empty: O(1). Base lock held.
 */
static inline void tw_fq_add(struct twheel_base *base, struct twheel_timer *t)
{
	struct tw_fq *fq = tw_fq_of(base, t);

	if (fq->last) {
		hlist_add_behind(&t->node.entry, fq->last);
	} else {
		hlist_add_head(&t->node.entry, &fq->head);
		/* A held queue joins the list when its runner is done. */
		if (!fq->held)
			list_add_tail(&fq->link, &base->fq_active);
	}
	fq->last = &t->node.entry;
	base->nr_expired++;
}

/*
 * Append the chain @first .. @last of @nr expired timers (linked by
 * node.entry, @first's pprev and @last's next not yet set; all of them of
 * queue @fq) to @fq on @base, which joins the round-robin list if it was
 * empty: O(1) whatever @nr, as tw_fq_add() of each in turn leaves it.
 * Base lock held.
 */
static inline void tw_fq_splice(struct twheel_base *base, struct tw_fq *fq,
				struct hlist_node *first,
				struct hlist_node *last, unsigned long nr)
{
	last->next = NULL;
	if (fq->last) {
		fq->last->next = first;
		first->pprev = &fq->last->next;
	} else {
		fq->head.first = first;
		first->pprev = &fq->head.first;
		/* A held queue joins the list when its runner is done. */
		if (!fq->held)
			list_add_tail(&fq->link, &base->fq_active);
	}
	fq->last = last;
	base->nr_expired += nr;
}

/*
 * Take expired @t off its queue on @base, wherever it is in it: O(1) (the
 * node before @t, if any, is the one whose @next its @pprev points to).
 * Base lock held.
 */
static inline void tw_fq_del(struct twheel_base *base, struct twheel_timer *t)
{
	struct hlist_node *n = &t->node.entry;
	struct tw_fq *fq = tw_fq_of(base, t);

	if (fq->last == n)
		fq->last = n->pprev == &fq->head.first ? NULL :
			   container_of(n->pprev, struct hlist_node, next);
	hlist_del_init(n);
	if (!fq->last && !fq->held)
		list_del_init(&fq->link);
	base->nr_expired--;
}

/*
 * The next expired timer of @base to run, off its queue, or NULL: the
 * oldest of the queue at the head of the round-robin list, which then goes
 * to its tail (unless it is alone there). What tw_fq_del() does, for the
 * head of the queue. Base lock held.
 */
static inline struct twheel_timer *tw_fq_take(struct twheel_base *base)
{
	struct hlist_node *n, *next;
	struct tw_fq *fq;

	fq = list_first_entry_or_null(&base->fq_active, struct tw_fq, link);
	if (!fq)
		return NULL;
	n = fq->head.first;
	next = n->next;
	fq->head.first = next;
	n->next = NULL;
	n->pprev = NULL;
	base->nr_expired--;
	if (next) {
		next->pprev = &fq->head.first;
		/* Alone on the list (one group has expired timers): it stays. */
		if (!list_is_last(&fq->link, &base->fq_active))
			list_move_tail(&fq->link, &base->fq_active);
	} else {
		fq->last = NULL;
		/* On @fq_active: not held. */
		list_del_init(&fq->link);
	}
	return hlist_entry(n, struct twheel_timer, node.entry);
}

/*
 * The next expired timer of @base, held queues included (hotplug, unload),
 * or NULL. Base lock held.
 */
static inline struct twheel_timer *tw_fq_take_any(struct twheel_base *base)
{
	struct twheel_timer *t = tw_fq_take(base);
	struct tw_fq *fq;

	if (t)
		return t;
	/* At most TW_RUNNERS queues are held. */
	list_for_each_entry(fq, &base->fq_held, link) {
		if (!fq->last)
			continue;
		t = hlist_entry(fq->head.first, struct twheel_timer,
				node.entry);
		tw_fq_del(base, t);
		return t;
	}
	return NULL;
}

/*
 * Runner @r starts the callback of @t, just taken off its queue on @base:
 * hold that queue unless it is group 0's, which a group that shares it
 * (group % TW_FAIR_QUEUES == 0) does not hold either (see "Fairness" in
 * base.h). Base lock held.
 */
static inline void tw_fq_hold(struct twheel_base *base, struct tw_runner *r,
			      struct twheel_timer *t)
{
	struct tw_fq *fq;

	/* Queue 0: tw_fq_of() is &base->fq[0]. */
	if (!(t->node.group & (TW_FAIR_QUEUES - 1)))
		return;
	fq = tw_fq_of(base, t);
	fq->held = true;
	/* Off @fq_active if it has more timers, else off no list. */
	list_move_tail(&fq->link, &base->fq_held);
	r->held = fq;
}

/*
 * Runner @r is done with the callback it ran: the queue it held, if any,
 * goes back to the round-robin list if it has timers. Base lock held.
 */
static inline void tw_fq_release(struct twheel_base *base, struct tw_runner *r)
{
	struct tw_fq *fq = r->held;

	if (!fq)
		return;
	r->held = NULL;
	fq->held = false;
	list_del_init(&fq->link);
	if (fq->last)
		list_add_tail(&fq->link, &base->fq_active);
}

/* The runner of @base running @t's callback, or NULL. Base lock held. */
static inline struct tw_runner *tw_runner_of(struct twheel_base *base,
					     const struct twheel_timer *t)
{
	unsigned int i;

	if (likely(!base->nr_running))
		return NULL;
	for (i = 0; i < TW_RUNNERS; i++)
		if (base->runner[i].running == t)
			return &base->runner[i];
	return NULL;
}

/*
 * The CPU a deferred arming of runner @r of @base goes to when the
 * callback returns (tw_settle()): the one it named, else @base's, or an
 * online one if that one is offline; -1 if none is (module unload). Base
 * lock held, r->deferred set.
 */
static inline int tw_settle_cpu(struct twheel_base *base,
				const struct tw_runner *r)
{
	int cpu = r->move_to < 0 ? (int)base->cpu : r->move_to;

	if (!READ_ONCE(tw_base(cpu)->online))
		cpu = tw_fallback_cpu(cpu);
	return cpu;
}

/*
 * The CPU a deferred arming of @r was to move to, or -1: what a modify
 * (which keeps the timer's CPU) keeps. Base lock held; before tw_detach().
 */
static inline int tw_deferred_move(const struct tw_runner *r)
{
	return r && r->deferred ? r->move_to : -1;
}

#endif /* _TWHEEL_BASE_INT_H */
