// SPDX-License-Identifier: GPL-2.0
/*
 * twheel per-CPU driver: programming the tick hrtimer, when (the start of
 * a tick, a tick early, or an exact bucket's deadline) and where (directly,
 * or through the reprogram IPI). Design in base.h ("Exact buckets",
 * "Tickless").
 */
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/smp.h>
#include <linux/spinlock.h>

#include "base.h"
#include "base_int.h"

/*
 * The earliest and the latest deadline (ns) of the timers in the level-0
 * bucket of @tick, into *@first and *@last, if that bucket holds only
 * @tick's timers and at most TW_EXACT_NODES of them ("Exact buckets" in
 * base.h). Base lock held.
 */
bool tw_bucket_span(const struct twheel_base *base, u64 tick, u64 *first,
		    u64 *last)
{
	const struct hlist_head *head = tw_wheel_bucket(&base->wheel, tick);
	const struct hlist_node *pos;
	unsigned int nr = 0;
	u64 min = U64_MAX, max = 0, d;

	if (!head)
		return false;
	for (pos = head->first; pos; pos = pos->next) {
		if (++nr > TW_EXACT_NODES)
			return false;
		d = hlist_entry(pos, struct twheel_timer, node.entry)->deadline;
		min = min(min, d);
		max = max(max, d);
	}
	*first = min;
	*last = max;
	return true;
}

/*
 * May the tick hrtimer be programmed at an exact deadline once more? Yes
 * while it was so fewer than TW_EXACT_TRIES times since the wheel's clock
 * reached its tick. Base lock held.
 */
static bool tw_exact_left(struct twheel_base *base)
{
	if (base->exact_clk != base->wheel.clk) {
		base->exact_clk = base->wheel.clk;
		base->exact_tries = 0;
	}
	return base->exact_tries < TW_EXACT_TRIES;
}

/*
 * When the tick hrtimer fires for the work of tick @tick: a tick early if
 * that work is above level 0 (beyond the clock's level-0 turn), so that
 * the pass then cascades it into level 0; at the earliest deadline of its
 * bucket if that is known and earlier, at most TW_EXACT_TRIES times while
 * the wheel's clock stays on one tick; else at the tick's start ("Exact
 * buckets" in base.h). Base lock held.
 */
ktime_t tw_fire_time(struct twheel_base *base, u64 tick)
{
	ktime_t at = tw_tick_to_ktime(tick);
	u64 first, last;

	if ((tick ^ base->wheel.clk) > base->wheel.mask &&
	    tick != TW_NO_TICK)
		return tw_tick_to_ktime(tick - 1);

	if (!tw_exact_left(base) ||
	    !tw_bucket_span(base, tick, &first, &last) ||
	    first >= (u64)ktime_to_ns(at))
		return at;
	base->exact_tries++;
	return ns_to_ktime(first);
}

/*
 * Ask @base's CPU, from another one, to reprogram its tick hrtimer
 * (tw_csd_fn()): none if one is queued already, it will see this change.
 * Base lock held.
 */
static void tw_reprogram_ipi(struct twheel_base *base)
{
	if (!base->csd_pending &&
	    !smp_call_function_single_async(base->cpu, &base->csd)) {
		/*
		 * Not while one is pending: its handler will see this change,
		 * and a csd is handed back (its lock flag cleared) before the
		 * handler runs, which clears @csd_pending under the base lock
		 * held here: smp_call_function_single_async()'s plain read of
		 * that flag never races its release.
		 */
		base->csd_pending = true;
	}
}

/*
 * Make the tick hrtimer fire no later than tick @next. Directly on the owning
 * CPU; from another CPU through an IPI whose handler does the same on the
 * owner (none if one is already queued: it will see this change). The tick
 * handler catches up over every event up to its own tick, in order, so an
 * arm only needs the hrtimer by the new timer's own tick: O(1), no look at
 * the bitmaps. Base lock held.
 */
void __tw_reprogram(struct twheel_base *base, u64 next)
{
	/*
	 * An offline base has no timers of its own left to fire (they moved,
	 * or unload drains them) and its hrtimer may be cancelled for good
	 * (unload, CPU dead): nothing may start it again.
	 */
	if (unlikely(!base->online))
		return;
	if (base->cpu == smp_processor_id()) {
		base->next_tick = next;
		hrtimer_start(&base->tick, tw_fire_time(base, next),
			      HRTIMER_MODE_ABS_PINNED);
	} else {
		tw_reprogram_ipi(base);
	}
}

/*
 * The tick hrtimer is programmed for tick @next (base->next_tick): move it
 * to the earliest deadline of the tick's bucket when that is exact, earlier
 * than the hrtimer's expiry, and the tick has exact programmings left
 * ("Exact buckets" in base.h), or a tick early if the tick's work is above
 * level 0 and that is earlier (as tw_fire_time()). Never later: a bucket
 * grown past TW_EXACT_NODES, or a tick out of tries, keeps the expiry it
 * has (its timers fire then or at the tick's pass, within the tick), and
 * nothing is counted or reprogrammed when the expiry stays. From another CPU,
 * through the reprogram IPI, sent only when the move is due as the sender
 * sees it: at most TW_EXACT_TRIES IPIs a tick that move the hrtimer, and
 * one for each arm whose move was no longer due when its IPI ran (the
 * timer cancelled, modified or expired meanwhile), as one for each arm
 * into an earlier tick. Base lock held.
 */
void __tw_reprogram_within(struct twheel_base *base, u64 next)
{
	s64 cur = ktime_to_ns(hrtimer_get_expires(&base->tick)), at;
	bool above = (next ^ base->wheel.clk) > base->wheel.mask;
	u64 first, last;

	if (unlikely(!base->online))
		return;
	if (above) {
		/* Work above level 0: a tick early, as tw_fire_time(). */
		at = ktime_to_ns(tw_tick_to_ktime(next - 1));
		if (at >= cur)
			return;
	} else {
		if (!tw_exact_left(base) ||
		    !tw_bucket_span(base, next, &first, &last) ||
		    first >= (u64)cur)
			return;
		at = first;
	}
	/* Checked here too: an IPI is sent only for a move it will make. */
	if (base->cpu != smp_processor_id()) {
		tw_reprogram_ipi(base);
		return;
	}
	if (!above)
		base->exact_tries++;
	hrtimer_start(&base->tick, ns_to_ktime(at), HRTIMER_MODE_ABS_PINNED);
}

/*
 * Make the tick hrtimer fire no later than the wheel's next work, and, if
 * that is the tick it is programmed for, no later than the earliest
 * deadline of an exact bucket (__tw_reprogram_within()): timers put there
 * without a deadline at hand for tw_reprogram() (an arm on another CPU, a
 * migration) may have made it earlier. Base lock held.
 */
void tw_reprogram_next(struct twheel_base *base)
{
	u64 next = tw_wheel_next(&base->wheel);

	if (next < base->next_tick)
		__tw_reprogram(base, next);
	else if (next == base->next_tick && next != TW_NO_TICK)
		__tw_reprogram_within(base, next);
}

/* The remote half of tw_reprogram(), on the base's CPU. */
void tw_csd_fn(void *info)
{
	struct twheel_base *base = info;
	unsigned long flags;

	raw_spin_lock_irqsave(&base->lock, flags);
	base->csd_pending = false;
	if (base->online)
		tw_reprogram_next(base);
	/* The base may be freed once this unlock is done: see bases_exit. */
	raw_spin_unlock_irqrestore(&base->lock, flags);
}

/*
 * Wait for @base's reprogram IPI, if one is queued, to have run: it is
 * done with @base once it has dropped the lock after clearing the flag.
 * Nothing queues a new one once the base is offline.
 */
void tw_wait_csd(struct twheel_base *base)
{
	unsigned long flags;
	bool pending;

	for (;;) {
		raw_spin_lock_irqsave(&base->lock, flags);
		pending = base->csd_pending;
		raw_spin_unlock_irqrestore(&base->lock, flags);
		if (!pending)
			return;
		cpu_relax();
	}
}

/* The wheel is empty and the tick hrtimer programmed: stop it. */
void __tw_maybe_idle(struct twheel_base *base)
{
	/* Never hrtimer_cancel() here: the handler takes the base lock. */
	hrtimer_try_to_cancel(&base->tick);
	base->next_tick = TW_NO_TICK;
}
