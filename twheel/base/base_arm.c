// SPDX-License-Identifier: GPL-2.0
/*
 * twheel per-CPU driver: the in-kernel API (<linux/twheel.h>): arm,
 * modify, cancel, cancel and wait and query, where the work is done (an
 * arm is one call and one lock: "Cost" in base.h; a timer's set-up is in
 * base.c); and batches of arms and cancels. Design in base.h.
 */
#include <linux/cpumask.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/twheel.h>
#include <linux/wait.h>

#include "base.h"
#include "base_int.h"
#include "compat.h"
#include "stats.h"
#include "trace.h"

/* Lock the base holding @t; it may change until its lock is held. */
static struct twheel_base *tw_lock_base(struct twheel_timer *t,
					unsigned long *flags)
	__acquires(&base->lock)
{
	struct twheel_base *base;
	unsigned int cpu;

	for (;;) {
		cpu = READ_ONCE(t->cpu);
		base = tw_base(cpu);
		raw_spin_lock_irqsave(&base->lock, *flags);
		if (likely(READ_ONCE(t->cpu) == cpu))
			return base;
		raw_spin_unlock_irqrestore(&base->lock, *flags);
	}
}

/*
 * Take @t off @base (locked, t->cpu == base->cpu): out of the wheel or the
 * expired batch, or its deferred arming. @r is the runner of @base running
 * @t's callback (tw_runner_of()), or NULL; it is marked touched, so that
 * its periodic re-arm does not undo what the caller does.
 *
 * @end: the arming ends (a cancel), so @t becomes IDLE. An arm or modify
 * passes false and makes @t PENDING itself under the same hold of the
 * lock: @t never shows IDLE in between to twheel_timer_cancel()'s lockless
 * look, which would then return without cancelling the new arming (timer_list's
 * detach_timer() keeps the timer pending across a re-arm likewise).
 * Return: 1 if @t was pending or expired, else 0.
 */
static __always_inline int tw_detach(struct twheel_base *base,
				     struct twheel_timer *t,
				     struct tw_runner *r, bool end)
{
	int ret = 0;

	if (r)
		r->touched = true;
	switch (t->state) {
	case TWHEEL_PENDING:
		/* Pending while running: a deferred arming, in no wheel. */
		if (r)
			r->deferred = false;
		else
			tw_wheel_del(&base->wheel, &t->node);
		/* Cancel, re-arm or modify: this arming ends here. */
		twheel_stat_inc(cancelled);
		ret = 1;
		break;
	case TWHEEL_EXPIRED:
		/* This arming was counted as expired already. */
		tw_fq_del(base, t);
		ret = 1;
		break;
	default:
		break;
	}
	if (end)
		WRITE_ONCE(t->state, TWHEEL_IDLE);
	return ret;
}

/*
 * Put detached @t on @new (locked; online unless @t's callback runs) per @e,
 * without reprogramming. If @t's callback runs on runner @r of its base,
 * the arming is deferred until it returns and @t stays on its base
 * meanwhile ("Running timers stay put" in base.h); a modify keeps the move
 * an arming it replaces had named (@moving, from tw_deferred_move()).
 * Return: true if @t went into @new's wheel.
 */
static bool tw_batch_enqueue(struct tw_runner *r, struct twheel_base *new,
			     struct twheel_timer *t,
			     const struct twheel_batch_ent *e, int moving)
{
	int to;

	t->period = e->period;
	t->mode = e->mode;
	if (e->op == TW_BATCH_ARM)
		t->overruns = 0;
	if (r) {
		to = new->cpu != t->cpu ? (int)new->cpu : -1;
		if (e->op == TW_BATCH_MODIFY && to < 0)
			to = moving;
		tw_defer(r, t, e->deadline, to);
		return false;
	}
	__tw_enqueue(new, t, e->deadline);
	return true;
}

/**
 * twheel_batch_one() - arm, modify or cancel one timer, wherever it is
 * @e:		the entry; @e->ret is set
 * @prep:	called with the timer detached, under the lock of its base
 *		(may be NULL)
 *
 * Holds the locks of the timer's base and of the target base. A target
 * that is offline is replaced by an online CPU unless @e names it
 * (-ENXIO); a cancel works on any base. A timer whose callback runs stays
 * on its base until that returns: an arm naming another CPU then takes
 * effect when the callback returns.
 *
 * Context: any context but hard interrupt; does not sleep.
 */
void twheel_batch_one(struct twheel_batch_ent *e, twheel_prep_t prep)
{
	bool named = e->op == TW_BATCH_ARM && e->cpu != TWHEEL_CPU_ANY;
	struct twheel_timer *t = e->timer;
	struct twheel_base *old, *new;
	struct tw_runner *r;
	unsigned long flags;
	unsigned int tcpu;
	int want, moving;

	/* Lock the timer's base and the target (the same but for an arm). */
	want = e->op != TW_BATCH_ARM ? -1 :
	       (named ? e->cpu : (int)raw_smp_processor_id());
	for (;;) {
		tcpu = READ_ONCE(t->cpu);
		old = tw_base(tcpu);
		new = tw_base(want < 0 ? tcpu : want);
		local_irq_save(flags);
		tw_lock_two_irqoff(old, new);
		if (READ_ONCE(t->cpu) != tcpu) {
			tw_unlock_two_irqoff(old, new);
			local_irq_restore(flags);
			continue;
		}
		if (likely(new->online) || e->op == TW_BATCH_CANCEL)
			break;
		tw_unlock_two_irqoff(old, new);
		local_irq_restore(flags);
		want = named ? -1 : tw_fallback_cpu(new->cpu);
		if (want < 0) {
			e->ret = -ENXIO;
			return;
		}
	}

	r = tw_runner_of(old, t);
	moving = tw_deferred_move(r);
	e->ret = tw_detach(old, t, r, e->op == TW_BATCH_CANCEL);
	if (prep)
		prep(e);
	if (e->op != TW_BATCH_CANCEL && tw_batch_enqueue(r, new, t, e, moving))
		tw_reprogram(new, t->node.expires, t->deadline);
	if (old != new || (e->op == TW_BATCH_CANCEL && e->ret))
		tw_maybe_idle(old);
	tw_unlock_two_irqoff(old, new);
	local_irq_restore(flags);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_batch_one);

/**
 * twheel_batch_on() - arm, modify or cancel timers of one base at once
 * @cpu:	the base: where every timer is and TW_BATCH_ARM entries go
 * @ents:	the entries, done in order; each one's @ret is set
 * @n:		number of entries; the caller bounds it (the base lock is
 *		held with interrupts off for all of them)
 * @prep:	called for each entry with its timer detached, under the base
 *		lock, before it is enqueued again (may be NULL)
 *
 * One hold of the base lock for the entries done, and one reprogram of the
 * tick at most, for the earliest new deadline (for the wheel's next work,
 * O(levels), when a later entry took back the timer of that deadline's
 * tick). The batch stops at the first entry that cannot be done here: its
 * timer is on another base (a stale @cpu), an arm names another CPU, or the
 * base is offline. The caller does that one with twheel_batch_one() and
 * goes on with the rest.
 *
 * Context: any context but hard interrupt; does not sleep.
 * Return: the number of leading entries done.
 */
unsigned int twheel_batch_on(int cpu, struct twheel_batch_ent *ents,
			     unsigned int n, twheel_prep_t prep)
{
	struct twheel_base *base = tw_base(cpu);
	struct tw_runner *r;
	u64 first = TW_NO_TICK, first_ns = U64_MAX, was;
	bool detached = false, stale = false;
	unsigned long flags;
	unsigned int i;
	int moving;

	raw_spin_lock_irqsave(&base->lock, flags);
	for (i = 0; i < n; i++) {
		struct twheel_batch_ent *e = &ents[i];
		struct twheel_timer *t = e->timer;

		if (READ_ONCE(t->cpu) != cpu)
			break;
		if (e->op != TW_BATCH_CANCEL && !base->online)
			break;
		if (e->op == TW_BATCH_ARM && e->cpu != TWHEEL_CPU_ANY &&
		    e->cpu != cpu)
			break;
		r = tw_runner_of(base, t);
		moving = tw_deferred_move(r);
		was = t->node.expires;
		e->ret = tw_detach(base, t, r, e->op == TW_BATCH_CANCEL);
		detached |= e->ret;
		/* It may be what an earlier entry set @first for. */
		stale |= e->ret && was == first;
		if (prep)
			prep(e);
		if (e->op == TW_BATCH_CANCEL)
			continue;
		if (!tw_batch_enqueue(r, base, t, e, moving))
			continue;
		/* The earliest tick, and the earliest deadline in it. */
		if (t->node.expires < first) {
			first = t->node.expires;
			first_ns = t->deadline;
		} else if (t->node.expires == first) {
			first_ns = min(first_ns, t->deadline);
		}
	}
	/*
	 * An entry may take back a timer that an earlier one armed: the tick
	 * then goes by the wheel's next work, not by @first, and a wheel the
	 * batch left empty needs none.
	 */
	if (stale)
		tw_reprogram_next(base);
	else if (first != TW_NO_TICK && base->wheel.pending)
		tw_reprogram(base, first, first_ns);
	if (detached)
		tw_maybe_idle(base);
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return i;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_batch_on);

/*
 * The deadline of an arm: relative deadlines read the clock here, once,
 * as late as possible and before the lock (see "Cost" in base.h for why it
 * is ktime_get_ns(), tw_clock_ns(), and not a cheaper, cached clock).
 */
static inline u64 tw_deadline(u64 expires, unsigned int flags)
{
	u64 deadline;

	if (flags & TWHEEL_ABS)
		return expires;
	if (check_add_overflow(tw_clock_ns(), expires, &deadline))
		return U64_MAX;
	return deadline;
}

static inline int tw_check(u64 period, unsigned int flags, u8 *mode)
{
	if (unlikely(flags & ~TWHEEL_FLAGS_ALL))
		return -EINVAL;
	if (likely(!period)) {
		if (flags & TWHEEL_FIXED_DELAY)
			return -EINVAL;
		*mode = TWHEEL_MODE_ONESHOT;
	} else {
		*mode = flags & TWHEEL_FIXED_DELAY ? TWHEEL_MODE_FIXED_DELAY :
						     TWHEEL_MODE_FIXED_RATE;
	}
	return 0;
}

/* tw_arm() for a timer that moves or a target that is offline. */
static noinline int tw_arm_slow(struct twheel_timer *t, u64 deadline,
				u64 period, u8 mode, int cpu, bool keep_cpu)
{
	struct twheel_batch_ent e = {
		.timer		= t,
		.deadline	= deadline,
		.period		= period,
		.mode		= mode,
		.op		= keep_cpu ? TW_BATCH_MODIFY : TW_BATCH_ARM,
		.cpu		= keep_cpu ? TWHEEL_CPU_ANY : cpu,
	};

	twheel_batch_one(&e, NULL);
	return e.ret;
}

/*
 * (Re-)arm @t for @deadline on CPU @cpu (TWHEEL_CPU_ANY: the local one),
 * or on its own CPU with @keep_cpu. The common case, a timer that stays on
 * its base (an online one), takes that base's lock once and nothing else:
 * no second lock, no batch entry. A timer that moves, or a target that is
 * offline, goes through twheel_batch_one().
 * Return: 1 if @t was pending, 0 if not, -ENXIO if @cpu is offline.
 */
static __always_inline int tw_arm(struct twheel_timer *t, u64 deadline,
				  u64 period, u8 mode, int cpu, bool keep_cpu)
{
	unsigned int tcpu = READ_ONCE(t->cpu);
	struct twheel_base *base;
	struct tw_runner *r;
	unsigned long flags;
	int ret, move;

	if (!keep_cpu && tcpu != (cpu == TWHEEL_CPU_ANY ?
				  raw_smp_processor_id() : (unsigned int)cpu))
		goto slow;
	base = tw_base(tcpu);
	raw_spin_lock_irqsave(&base->lock, flags);
	if (unlikely(READ_ONCE(t->cpu) != tcpu || !base->online)) {
		raw_spin_unlock_irqrestore(&base->lock, flags);
		goto slow;
	}
	r = tw_runner_of(base, t);
	/* A modify keeps a move a deferred arming named; an arm stays here. */
	move = keep_cpu ? tw_deferred_move(r) : -1;
	ret = tw_detach(base, t, r, false);
	t->period = period;
	t->mode = mode;
	if (!keep_cpu)
		t->overruns = 0;
	if (unlikely(r))
		tw_defer(r, t, deadline, move);
	else
		tw_enqueue(base, t, deadline);
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return ret;
slow:
	return tw_arm_slow(t, deadline, period, mode, cpu, keep_cpu);
}

/**
 * twheel_timer_arm_on() - arm a timer on a CPU
 * @timer:	timer set up with twheel_timer_init()
 * @expires:	(first) deadline in ns on CLOCK_MONOTONIC, relative to now or
 *		absolute with TWHEEL_ABS; a deadline in the past fires at the
 *		next tick; deadlines beyond the clock's range saturate
 * @period:	period in ns, 0 for a one-shot timer
 * @flags:	TWHEEL_ABS, TWHEEL_FIXED_DELAY (periodic only; default: fixed
 *		rate)
 * @cpu:	CPU whose wheel holds the timer and runs its callback, or
 *		TWHEEL_CPU_ANY for the local one (another online CPU if the
 *		local one is going down)
 *
 * A pending timer is re-armed (moved, if @cpu differs). Arming a timer from
 * its own callback is allowed; the periodic re-arm of that callback is then
 * not done. The timer's overrun count restarts at 0.
 *
 * Context: any context but hard interrupt; does not sleep.
 * Return: 1 if the timer was pending (in a wheel or waiting for its
 * callback) and was re-armed, 0 if it was idle; -EINVAL for unknown flags or
 * TWHEEL_FIXED_DELAY without a period; -ERANGE if @cpu is not a possible
 * CPU; -ENXIO if @cpu is offline.
 */
int twheel_timer_arm_on(struct twheel_timer *timer, u64 expires, u64 period,
			unsigned int flags, int cpu)
{
	u8 mode;
	int ret;

	ret = tw_check(period, flags, &mode);
	if (ret)
		return ret;
	if (cpu != TWHEEL_CPU_ANY &&
	    (cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible(cpu)))
		return -ERANGE;
	return tw_arm(timer, tw_deadline(expires, flags), period, mode, cpu,
		      false);
}
EXPORT_SYMBOL_GPL(twheel_timer_arm_on);

/**
 * twheel_timer_modify() - change a timer's deadline and period
 * @timer:	timer set up with twheel_timer_init()
 * @expires:	new deadline in ns, relative or absolute (TWHEEL_ABS)
 * @period:	new period in ns, 0 makes the timer one-shot
 * @flags:	TWHEEL_ABS, TWHEEL_FIXED_DELAY
 *
 * Like twheel_timer_arm_on() on the CPU the timer is on, in one step: the timer
 * is never seen idle in between. An idle timer is armed. The overrun count is
 * kept.
 *
 * Context: any context but hard interrupt; does not sleep.
 * Return: 1 if the timer was pending, 0 if not; -EINVAL as
 * twheel_timer_arm_on().
 */
int twheel_timer_modify(struct twheel_timer *timer, u64 expires, u64 period,
			unsigned int flags)
{
	u8 mode;
	int ret;

	ret = tw_check(period, flags, &mode);
	if (ret)
		return ret;
	return tw_arm(timer, tw_deadline(expires, flags), period, mode,
		      TWHEEL_CPU_ANY, true);
}
EXPORT_SYMBOL_GPL(twheel_timer_modify);

/**
 * twheel_timer_cancel() - disarm a timer
 * @t:		the timer
 *
 * After this returns, the timer will not expire again until re-armed. Its
 * callback may still be running (or, called from it, is running): use
 * twheel_timer_cancel_sync() to wait for it.
 *
 * Context: any context but hard interrupt; does not sleep.
 * Return: 1 if the timer was pending (in a wheel or waiting for its
 * callback), 0 if it was idle or only running its callback.
 */
int twheel_timer_cancel(struct twheel_timer *t)
{
	struct twheel_base *base;
	unsigned long flags;
	int ret;

	/*
	 * An idle timer stays idle until it is armed, which the caller orders
	 * against this call (as for del_timer()): nothing to do, and no lock
	 * to take, as long as the lock was not what made it idle. It is for
	 * a TWHEEL_TIMER_TICK timer: its callback runs under the base lock
	 * after the timer went idle, and a cancel that returns must not see
	 * it still running. A running periodic timer is RUNNING, not idle: its
	 * re-arm is cancelled under the lock.
	 */
	if (READ_ONCE(t->state) == TWHEEL_IDLE &&
	    !(READ_ONCE(t->node.flags) & TW_NODE_TICK)) {
		trace_twheel_cancel(t, 0);
		return 0;
	}
	base = tw_lock_base(t, &flags);
	ret = tw_detach(base, t, tw_runner_of(base, t), true);
	if (ret)
		tw_maybe_idle(base);
	raw_spin_unlock_irqrestore(&base->lock, flags);
	trace_twheel_cancel(t, ret);
	return ret;
}
EXPORT_SYMBOL_GPL(twheel_timer_cancel);

static bool tw_not_running(struct twheel_base *base, struct twheel_timer *t)
{
	unsigned int i;

	for (i = 0; i < TW_RUNNERS; i++)
		if (READ_ONCE(base->runner[i].running) == t)
			return false;
	return true;
}

/*
 * Sleep until @t's callback does not run on @base. The waiter is counted
 * under the base lock, so the work item needs no barrier to know whether
 * to wake anybody: it clears @running and reads the count under the lock.
 */
static void tw_wait_not_running(struct twheel_base *base,
				struct twheel_timer *t)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&base->lock, flags);
	if (!tw_runner_of(base, t)) {
		raw_spin_unlock_irqrestore(&base->lock, flags);
		return;
	}
	base->waiters++;
	raw_spin_unlock_irqrestore(&base->lock, flags);
	wait_event(base->waitq, tw_not_running(base, t));
	raw_spin_lock_irqsave(&base->lock, flags);
	base->waiters--;
	raw_spin_unlock_irqrestore(&base->lock, flags);
}

/**
 * twheel_timer_cancel_sync() - disarm a timer and wait for its callback
 * @t:		the timer
 *
 * On return the timer is idle and its callback is not running anywhere, so
 * its memory may be freed. Must not be called from the timer's callback, nor
 * while holding a lock that any twheel callback takes (lockdep reports
 * both). The caller must keep others from re-arming the timer meanwhile; the
 * callback itself may re-arm it.
 *
 * As with hrtimer_cancel(), a running callback is waited for first and the
 * timer is disarmed once none runs: a periodic timer is not re-armed after
 * that callback, but an arming made while it ran may still fire meanwhile.
 * So every one-shot arming ends either in one callback or in a 1 returned
 * by the next arm, modify, cancel or cancel_sync of the timer, also when the
 * callback re-arms its own timer: a reference count per pending timer stays
 * exact.
 *
 * Context: process context; may sleep.
 * Return: 1 if the timer was pending (in a wheel or waiting for its
 * callback) when it was disarmed, 0 if it was idle.
 */
int twheel_timer_cancel_sync(struct twheel_timer *t)
{
	struct twheel_base *base;
	struct tw_runner *r;
	unsigned long flags;
	int ret;

	might_sleep();
	lock_map_acquire(&twheel_callback_map);
	lock_map_release(&twheel_callback_map);

	/* A running timer stays on its base: only that one is looked at. */
	for (;;) {
		base = tw_lock_base(t, &flags);
		r = tw_runner_of(base, t);
		if (!r) {
			ret = tw_detach(base, t, NULL, true);
			if (ret)
				tw_maybe_idle(base);
			raw_spin_unlock_irqrestore(&base->lock, flags);
			break;
		}
		/* A periodic timer that runs: no re-arm after this callback. */
		if (t->state == TWHEEL_RUNNING)
			tw_detach(base, t, r, true);
		raw_spin_unlock_irqrestore(&base->lock, flags);
		tw_wait_not_running(base, t);
	}
	trace_twheel_cancel(t, ret);
	return ret;
}
EXPORT_SYMBOL_GPL(twheel_timer_cancel_sync);

/**
 * twheel_timer_query() - read a timer's state
 * @t:		the timer
 * @info:	filled in with a consistent snapshot (see struct
 *		twheel_timer_info)
 *
 * Context: any context but hard interrupt; does not sleep.
 * Return: 0.
 */
int twheel_timer_query(struct twheel_timer *t, struct twheel_timer_info *info)
{
	/* Before the lock: see "Bounded work" in base.h. */
	u64 now = tw_clock_ns();
	struct twheel_base *base;
	struct tw_runner *r;
	unsigned long flags;

	base = tw_lock_base(t, &flags);
	info->state = t->state;
	info->cpu = t->cpu;
	/* Armed while its callback runs: where it goes when that returns. */
	r = tw_runner_of(base, t);
	if (r && r->deferred) {
		int cpu = tw_settle_cpu(base, r);

		if (cpu >= 0)
			info->cpu = cpu;
	}
	info->mode = t->mode;
	info->overruns = t->overruns;
	info->period = t->period;
	if (t->state == TWHEEL_IDLE) {
		info->deadline = 0;
		info->remaining = 0;
	} else {
		info->deadline = t->deadline;
		info->remaining = t->deadline > now ? t->deadline - now : 0;
	}
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return 0;
}
EXPORT_SYMBOL_GPL(twheel_timer_query);
