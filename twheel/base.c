// SPDX-License-Identifier: GPL-2.0
/*
 * twheel per-CPU driver: the bases, their tick hrtimer, the work item that
 * runs callbacks, and CPU hotplug. The design is described in base.h, the
 * wheel itself in wheel.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "base.h"
#include "compat.h"
#include "stats.h"
#include "testhooks.h"
#include "trace.h"

static DEFINE_PER_CPU(struct twheel_base *, twheel_base_ptr);
static struct workqueue_struct *twheel_wq;
static u32 tw_tick_ns;
static u64 tw_tick_recip;	/* U64_MAX / tw_tick_ns, see tw_div_tick() */
static unsigned int tw_slot_bits;
static unsigned int tw_nr_levels;
/* Largest tick whose start fits in a ktime_t. */
static u64 tw_max_ktime_tick;
static int tw_hp_prepare;
static int tw_hp_online;

#ifdef CONFIG_LOCKDEP
/*
 * Held (for lockdep only) around every callback, and taken and released by
 * twheel_cancel_sync(): lockdep then reports a cancel_sync() from a callback
 * and a cancel_sync() under a lock that a callback takes.
 */
static struct lock_class_key twheel_callback_key;
static struct lockdep_map twheel_callback_map =
	STATIC_LOCKDEP_MAP_INIT("twheel_callback", &twheel_callback_key);
#endif

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

/**
 * twheel_now_ns() - the twheel clock
 *
 * Return: CLOCK_MONOTONIC in ns (ktime_get()).
 */
u64 twheel_now_ns(void)
{
	return ktime_get_ns();
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

static inline u64 tw_now_tick(void)
{
	return tw_ns_to_tick_floor(ktime_get_ns());
}

static inline ktime_t tw_tick_to_ktime(u64 tick)
{
	if (tick > tw_max_ktime_tick)
		return KTIME_MAX;
	return ns_to_ktime(tick * tw_tick_ns);
}

/*
 * Make the tick hrtimer fire no later than tick @next. Directly on the owning
 * CPU; from another CPU through an IPI whose handler does the same on the
 * owner (-EBUSY: one is already queued and will see this change). The tick
 * handler catches up over every event up to its own tick, in order, so an
 * arm only needs the hrtimer by the new timer's own tick: O(1), no look at
 * the bitmaps. Base lock held.
 */
static void tw_reprogram(struct twheel_base *base, u64 next)
{
	if (next >= base->next_tick)
		return;
	if (base->cpu == smp_processor_id()) {
		base->next_tick = next;
		hrtimer_start(&base->tick, tw_tick_to_ktime(next),
			      HRTIMER_MODE_ABS_PINNED);
	} else if (!smp_call_function_single_async(base->cpu, &base->csd)) {
		base->csd_pending = true;
	}
}

/* Make the tick hrtimer fire no later than the wheel's next work. */
static void tw_reprogram_next(struct twheel_base *base)
{
	tw_reprogram(base, tw_wheel_next(&base->wheel));
}

/* The remote half of tw_reprogram(), on the base's CPU. */
static void tw_csd_fn(void *info)
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
static void tw_wait_csd(struct twheel_base *base)
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

/* Stop the tick hrtimer if the wheel became empty. Base lock held. */
static void tw_maybe_idle(struct twheel_base *base)
{
	if (base->wheel.pending || base->next_tick == TW_NO_TICK)
		return;
	/* Never hrtimer_cancel() here: the handler takes the base lock. */
	hrtimer_try_to_cancel(&base->tick);
	base->next_tick = TW_NO_TICK;
}

/*
 * Queue idle timer @t on @base at @deadline (ns) and make sure the tick
 * hrtimer fires in time. Base lock held, base online.
 */
static void tw_enqueue(struct twheel_base *base, struct twheel_timer *t,
		       u64 deadline)
{
	struct tw_wheel *w = &base->wheel;

	/* An empty wheel's clock is stale: new deadlines belong low. */
	if (!w->pending)
		tw_wheel_forward(w, tw_now_tick());
	t->deadline = deadline;
	WRITE_ONCE(t->cpu, base->cpu);
	tw_wheel_add(w, &t->node, tw_ns_to_tick(deadline));
	WRITE_ONCE(t->state, TWHEEL_STATE_PENDING);
	twheel_stat_inc(armed);
	trace_twheel_arm(t, base->cpu, deadline, t->period);
	tw_reprogram(base, t->node.expires);
}

/*
 * Next deadline of periodic timer @t whose callback for @deadline returned
 * at @end. Fixed rate skips (and counts) the periods already past.
 */
static u64 tw_next_deadline(struct twheel_timer *t, u64 deadline, u64 end)
{
	u64 next, missed;

	if (t->mode == TWHEEL_FIXED_DELAY_MODE)
		return tw_add_sat(end, t->period);
	next = tw_add_sat(deadline, t->period);
	if (next > end || next == U64_MAX)
		return next;
	missed = div64_u64(end - next, t->period) + 1;
	next = tw_add_sat(next, tw_mul_sat(missed, t->period));
	t->overruns = min_t(u64, (u64)t->overruns + missed, U32_MAX);
	twheel_stat_add(overruns, missed);
	return next;
}

/*
 * Expire @batch, taken off @base's wheel at tick-clock time @now (ns): call
 * the callbacks of TWHEEL_TIMER_TICK timers here, under the base lock (and
 * re-arm the periodic ones), hand the others to @base's work item. Base lock
 * held, interrupts off; O(nodes on @batch), which the caller bounds.
 */
static void tw_expire(struct twheel_base *base, struct hlist_head *batch,
		      unsigned long n, u64 now)
{
	struct twheel_timer *t;
	struct hlist_node *tmp;
	unsigned long queued = 0;
	u64 deadline;

	twheel_stat_add(expired, n);
	hlist_for_each_entry_safe(t, tmp, batch, node.entry) {
		hlist_del(&t->node.entry);
		if (!(t->node.flags & TW_NODE_TICK)) {
			WRITE_ONCE(t->state, TWHEEL_STATE_EXPIRED);
			hlist_add_head(&t->node.entry, &base->expired);
			queued++;
			continue;
		}
		deadline = t->deadline;
		WRITE_ONCE(t->state, TWHEEL_STATE_IDLE);
		trace_twheel_expire(t, base->cpu, deadline, now);
		twheel_stat_inc(callbacks);
		twheel_stat_latency(now > deadline ? now - deadline : 0);
		t->func(t);
		if (t->mode != TWHEEL_ONESHOT)
			tw_enqueue(base, t, tw_next_deadline(t, deadline, now));
	}
	if (!queued)
		return;
	base->nr_expired += queued;
	/*
	 * Between its CPU going down and the migration of its timers, a base's
	 * hrtimer runs elsewhere: so does its work then.
	 */
	if (queue_work_on(base->online ? base->cpu : smp_processor_id(),
			  twheel_wq, &base->work))
		twheel_stat_inc(batches);
}

/*
 * One bounded pass over @base's wheel up to the current tick: at most
 * TW_PASS_BUDGET timers cascaded or expired. Return: true if work is left
 * for that tick (the budget ran out). Base lock held, interrupts off.
 */
static bool tw_run_pass(struct twheel_base *base)
{
	unsigned long budget = TW_PASS_BUDGET, n;
	u64 now_ns = ktime_get_ns(), now, clk, cascaded;
	HLIST_HEAD(batch);

	now = tw_ns_to_tick_floor(now_ns);
	clk = base->wheel.clk;
	cascaded = base->wheel.cascaded;
	n = tw_wheel_advance_budget(&base->wheel, now, &batch, &budget);
	cascaded = base->wheel.cascaded - cascaded;
	if (n || cascaded)
		twheel_stat_inc(ticks_run);
	if (now >= clk && base->wheel.clk > clk)
		twheel_stat_add(ticks_idle, base->wheel.clk - clk -
					    (n || cascaded));
	if (cascaded) {
		twheel_stat_add(cascaded, cascaded);
		trace_twheel_cascade(base->cpu, base->wheel.clk, cascaded);
	}
	if (n)
		tw_expire(base, &batch, n, now_ns);
	twheel_stat_max(this_cpu_ptr(&twheel_stats.pass_max_ns),
			ktime_get_ns() - now_ns);
	return tw_wheel_next(&base->wheel) <= now;
}

/*
 * The tick hrtimer: one bounded pass. If the budget ran out, the rest of
 * the tick's work goes to the base's work item, which continues in bounded
 * passes with the lock dropped in between and programs the tick when done.
 */
static enum hrtimer_restart tw_tick_fn(struct hrtimer *hrt)
{
	struct twheel_base *base = container_of(hrt, struct twheel_base, tick);
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	unsigned long flags;
	u64 next;

	raw_spin_lock_irqsave(&base->lock, flags);
	base->wakeups++;
	twheel_stat_inc(wakeups);
	/* Re-arms in this pass must not restart the running hrtimer. */
	base->next_tick = 0;
	if (tw_run_pass(base)) {
		/* next_tick 0: no arm programs the tick until the work has. */
		base->behind = true;
		twheel_stat_inc(deferred);
		if (queue_work_on(base->online ? base->cpu : smp_processor_id(),
				  twheel_wq, &base->work))
			twheel_stat_inc(batches);
		goto out;
	}
	next = tw_wheel_next(&base->wheel);
	base->next_tick = next;
	if (next != TW_NO_TICK) {
		hrtimer_set_expires(hrt, tw_tick_to_ktime(next));
		ret = HRTIMER_RESTART;
	}
out:
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return ret;
}

/*
 * Take @t off @base (locked, t->cpu == base->cpu): out of the wheel or the
 * expired batch. A timer whose callback runs is marked touched, so that its
 * periodic re-arm does not undo what the caller does.
 * Return: 1 if @t was pending or expired, else 0.
 */
static int tw_detach(struct twheel_base *base, struct twheel_timer *t)
{
	int ret = 0;

	if (base->running == t)
		base->running_touched = true;
	switch (t->state) {
	case TWHEEL_STATE_PENDING:
		tw_wheel_del(&base->wheel, &t->node);
		/* Cancel, re-arm or modify: this arming ends here. */
		twheel_stat_inc(cancelled);
		ret = 1;
		break;
	case TWHEEL_STATE_EXPIRED:
		/* This arming was counted as expired already. */
		hlist_del_init(&t->node.entry);
		base->nr_expired--;
		ret = 1;
		break;
	default:
		break;
	}
	WRITE_ONCE(t->state, TWHEEL_STATE_IDLE);
	return ret;
}

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

/* Lock @a and @b (maybe the same), in CPU order. Interrupts are off. */
static void tw_lock_two_irqoff(struct twheel_base *a, struct twheel_base *b)
	__acquires(&a->lock) __acquires(&b->lock)
{
	if (a == b) {
		raw_spin_lock(&a->lock);
		__acquire(&b->lock);
		return;
	}
	if (a->cpu > b->cpu)
		swap(a, b);
	raw_spin_lock(&a->lock);
	raw_spin_lock_nested(&b->lock, SINGLE_DEPTH_NESTING);
}

static void tw_unlock_two_irqoff(struct twheel_base *a, struct twheel_base *b)
	__releases(&a->lock) __releases(&b->lock)
{
	if (a != b)
		raw_spin_unlock(&b->lock);
	else
		__release(&b->lock);
	raw_spin_unlock(&a->lock);
}

/*
 * The first online CPU after @from (wrapping) whose base takes timers, or
 * -1. Starting after the caller's CPU spreads the timers of a CPU going
 * down instead of piling them all on the first CPU.
 */
static int tw_fallback_cpu(unsigned int from)
{
	unsigned int cpu = from, i;

	for (i = 0; i < nr_cpu_ids; i++) {
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			break;
		if (READ_ONCE(tw_base(cpu)->online))
			return cpu;
	}
	return -1;
}

/*
 * @t leaves @old (locked, with the base it goes to). If its callback is
 * running on @old, twheel_cancel_sync() must look beyond @t's new base.
 */
static void tw_note_move(struct twheel_base *old, struct twheel_timer *t)
{
	if (old->running == t)
		t->node.flags |= TW_NODE_MOVED;
}

/**
 * twheel_arm_timer() - (re-)arm a timer
 * @t:		the timer
 * @deadline:	absolute deadline, CLOCK_MONOTONIC ns
 * @period:	period in ns, 0 for one-shot
 * @mode:	enum twheel_mode matching @period
 * @cpu:	target CPU or TWHEEL_CPU_ANY (local); ignored with @keep_cpu
 * @keep_cpu:	stay on the timer's current CPU (modify)
 *
 * Without a named CPU, a target whose base is offline is replaced by an
 * online one. Moving a pending timer holds both bases' locks.
 *
 * Return: 1 if @t was pending, 0 if not, -ENXIO if @cpu is offline.
 */
int twheel_arm_timer(struct twheel_timer *t, u64 deadline, u64 period,
		     u8 mode, int cpu, bool keep_cpu)
{
	bool named = !keep_cpu && cpu != TWHEEL_CPU_ANY;
	struct twheel_base *old, *new;
	unsigned long flags;
	int want, ret;
	unsigned int tcpu;

	want = keep_cpu ? -1 : (named ? cpu : (int)raw_smp_processor_id());
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
		if (likely(new->online))
			break;
		tw_unlock_two_irqoff(old, new);
		local_irq_restore(flags);
		if (named)
			return -ENXIO;
		want = tw_fallback_cpu(new->cpu);
		if (want < 0)
			return -ENXIO;
	}

	ret = tw_detach(old, t);
	if (old != new)
		tw_note_move(old, t);
	t->period = period;
	t->mode = mode;
	if (!keep_cpu)
		t->overruns = 0;
	tw_enqueue(new, t, deadline);
	if (old != new)
		tw_maybe_idle(old);
	tw_unlock_two_irqoff(old, new);
	local_irq_restore(flags);
	return ret;
}

/**
 * twheel_cancel_timer() - disarm a timer
 * @t:	the timer
 *
 * Return: 1 if @t was pending or expired and will not run, else 0.
 */
int twheel_cancel_timer(struct twheel_timer *t)
{
	struct twheel_base *base;
	unsigned long flags;
	int ret;

	base = tw_lock_base(t, &flags);
	ret = tw_detach(base, t);
	if (ret)
		tw_maybe_idle(base);
	raw_spin_unlock_irqrestore(&base->lock, flags);
	trace_twheel_cancel(t, ret);
	return ret;
}

static bool tw_not_running(struct twheel_base *base, struct twheel_timer *t)
{
	return READ_ONCE(base->running) != t;
}

/**
 * twheel_cancel_timer_sync() - wait for the callback, then disarm the timer
 * @t:	the timer
 *
 * Like hrtimer_cancel() and timer_delete_sync(): while the callback runs,
 * the timer is not disarmed but only kept from its periodic re-arm; once no
 * callback runs anywhere, the pending arming (if any) is removed, in the
 * same locked section that saw nothing running. So at most one arming is
 * cancelled and the result counts it exactly, also when the callback re-arms
 * its own timer meanwhile; an arming made while the callback ran may still
 * fire before this returns.
 *
 * Context: process context, no lock a callback might take held.
 * Return: 1 if @t was pending or expired, else 0.
 */
int twheel_cancel_timer_sync(struct twheel_timer *t)
{
	struct twheel_base *base;
	unsigned long flags;
	bool running, moved = false;
	int ret = 0;
	int cpu;

	might_sleep();
	lock_map_acquire(&twheel_callback_map);
	lock_map_release(&twheel_callback_map);

	/*
	 * "moved" is sticky until every base has been looked at: the callback
	 * may run on an old base and, after a re-arm, on the new one at the
	 * same time.
	 */
	for (;;) {
		base = tw_lock_base(t, &flags);
		running = base->running == t;
		if (t->node.flags & TW_NODE_MOVED)
			moved = true;
		t->node.flags &= ~TW_NODE_MOVED;
		if (!running && !moved) {
			ret = tw_detach(base, t);
			if (ret)
				tw_maybe_idle(base);
			raw_spin_unlock_irqrestore(&base->lock, flags);
			break;
		}
		/* A periodic timer that runs: no re-arm after this callback. */
		if (running && t->state == TWHEEL_STATE_RUNNING)
			tw_detach(base, t);
		raw_spin_unlock_irqrestore(&base->lock, flags);

		if (running) {
			wait_event(base->waitq, tw_not_running(base, t));
			continue;
		}
		/* Moved while running: the callback may run on any base. */
		moved = false;
		for_each_possible_cpu(cpu)
			wait_event(tw_base(cpu)->waitq,
				   tw_not_running(tw_base(cpu), t));
	}
	trace_twheel_cancel(t, ret);
	return ret;
}

/**
 * twheel_query_timer() - snapshot of a timer's state
 * @t:		the timer
 * @info:	filled in under the timer's base lock
 */
void twheel_query_timer(struct twheel_timer *t, struct twheel_timer_info *info)
{
	struct twheel_base *base;
	unsigned long flags;
	u64 now;

	base = tw_lock_base(t, &flags);
	info->state = t->state;
	info->cpu = t->cpu;
	info->mode = t->mode;
	info->overruns = t->overruns;
	info->period = t->period;
	if (t->state == TWHEEL_STATE_IDLE) {
		info->deadline = 0;
		info->remaining = 0;
	} else {
		now = ktime_get_ns();
		info->deadline = t->deadline;
		info->remaining = t->deadline > now ? t->deadline - now : 0;
	}
	raw_spin_unlock_irqrestore(&base->lock, flags);
}

/*
 * Re-arm periodic timer @t after its callback on @base (locked, interrupts
 * off, base->running == t). If the base went offline meanwhile, the timer
 * goes to an online base; the base lock is dropped for that, and anybody
 * touching the timer meanwhile sets running_touched, which wins.
 */
static void tw_rearm(struct twheel_base *base, struct twheel_timer *t, u64 next)
{
	struct twheel_base *target;
	int cpu;

	if (base->online) {
		tw_enqueue(base, t, next);
		return;
	}
	for (;;) {
		cpu = tw_fallback_cpu(base->cpu);
		if (cpu < 0) {
			/* Module unload: nowhere to go. */
			WRITE_ONCE(t->state, TWHEEL_STATE_IDLE);
			return;
		}
		target = tw_base(cpu);	/* not @base: it is offline */
		raw_spin_unlock(&base->lock);
		tw_lock_two_irqoff(base, target);
		if (base->running_touched) {
			raw_spin_unlock(&target->lock);
			return;
		}
		if (target->online)
			break;
		raw_spin_unlock(&target->lock);
	}
	tw_enqueue(target, t, next);
	raw_spin_unlock(&target->lock);
}

static void tw_work_fn(struct work_struct *work)
{
	struct twheel_base *base = container_of(work, struct twheel_base, work);
	struct twheel_timer *t;
	twheel_func_t func;
	u64 deadline, start, end;
	bool periodic, wake;

	/*
	 * One clock read per callback: the end of one callback is the start of
	 * the next (only the base lock lies between them), re-read after a
	 * reschedule.
	 */
	raw_spin_lock_irq(&base->lock);
	/*
	 * The tick's budget ran out: finish its work here, one bounded pass at
	 * a time with the lock dropped in between, then program the tick.
	 */
	while (base->behind) {
		base->next_tick = 0;
		if (!tw_run_pass(base)) {
			base->behind = false;
			base->next_tick = TW_NO_TICK;
			tw_reprogram_next(base);
			break;
		}
		raw_spin_unlock_irq(&base->lock);
		cond_resched();
		raw_spin_lock_irq(&base->lock);
	}
	end = ktime_get_ns();
	for (;;) {
		if (hlist_empty(&base->run))
			hlist_move_list(&base->expired, &base->run);
		if (hlist_empty(&base->run))
			break;
		t = hlist_entry(base->run.first, struct twheel_timer,
				node.entry);
		hlist_del_init(&t->node.entry);
		base->nr_expired--;
		periodic = t->mode != TWHEEL_ONESHOT;
		deadline = t->deadline;
		func = t->func;
		WRITE_ONCE(t->state, periodic ? TWHEEL_STATE_RUNNING :
						TWHEEL_STATE_IDLE);
		WRITE_ONCE(base->running, t);
		base->running_touched = false;
		raw_spin_unlock_irq(&base->lock);

		/* From here on, a one-shot @t may be freed by its callback. */
		start = end;
		trace_twheel_expire(t, base->cpu, deadline, start);
		lock_map_acquire(&twheel_callback_map);
		func(t);
		lock_map_release(&twheel_callback_map);
		end = ktime_get_ns();

		raw_spin_lock_irq(&base->lock);
		twheel_stat_inc(callbacks);
		twheel_stat_latency(start > deadline ? start - deadline : 0);
		twheel_stat_max(this_cpu_ptr(&twheel_stats.cb_max_ns),
				end - start);
		if (periodic && !base->running_touched)
			tw_rearm(base, t, tw_next_deadline(t, deadline, end));
		WRITE_ONCE(base->running, NULL);
		/* Wait queue locks sleep on PREEMPT_RT: wake outside ours. */
		wake = wq_has_sleeper(&base->waitq);
		if (wake || need_resched()) {
			raw_spin_unlock_irq(&base->lock);
			if (wake)
				wake_up(&base->waitq);
			cond_resched();
			end = ktime_get_ns();
			raw_spin_lock_irq(&base->lock);
		}
	}
	raw_spin_unlock_irq(&base->lock);
}

/*
 * Move at most *@budget expired timers on @from (a batch of @old) to @new's
 * batch. Return: how many moved.
 */
static unsigned long tw_move_expired(struct twheel_base *old,
				     struct twheel_base *new,
				     struct hlist_head *from,
				     unsigned long *budget)
{
	struct twheel_timer *t;
	unsigned long n = 0;

	while (!hlist_empty(from) && *budget) {
		(*budget)--;
		t = hlist_entry(from->first, struct twheel_timer, node.entry);
		hlist_del(&t->node.entry);
		hlist_add_head(&t->node.entry, &new->expired);
		tw_note_move(old, t);
		WRITE_ONCE(t->cpu, new->cpu);
		n++;
	}
	old->nr_expired -= n;
	new->nr_expired += n;
	return n;
}

/*
 * Move at most TW_PASS_BUDGET timers of @old, pending or expired, to @new.
 * Both locked. Return: true if @old has none left.
 */
static bool tw_migrate_some(struct twheel_base *old, struct twheel_base *new)
{
	unsigned long budget = TW_PASS_BUDGET, n;
	struct twheel_timer *t;
	struct hlist_node *tmp;
	HLIST_HEAD(list);

	n = tw_wheel_drain(&old->wheel, &list, budget);
	budget -= n;
	if (n && !new->wheel.pending)
		tw_wheel_forward(&new->wheel, tw_now_tick());
	hlist_for_each_entry_safe(t, tmp, &list, node.entry) {
		hlist_del_init(&t->node.entry);
		tw_wheel_add(&new->wheel, &t->node, t->node.expires);
		tw_note_move(old, t);
		WRITE_ONCE(t->cpu, new->cpu);
	}
	n += tw_move_expired(old, new, &old->run, &budget);
	n += tw_move_expired(old, new, &old->expired, &budget);
	if (!hlist_empty(&new->expired) &&
	    queue_work_on(new->cpu, twheel_wq, &new->work))
		twheel_stat_inc(batches);
	twheel_stat_add(migrated, n);
	tw_reprogram_next(new);
	if (old->wheel.pending || old->nr_expired)
		return false;
	tw_maybe_idle(old);
	return true;
}

/*
 * Move every timer of @old, pending or expired, to @new (both online or @old
 * going down), keeping each deadline tick: none fires early, none is lost
 * or doubled. A callback @old's work is running stays there; its periodic
 * re-arm finds @old offline and goes to an online base. In bounded chunks,
 * with the locks dropped in between. Process context.
 */
static void tw_migrate(struct twheel_base *old, struct twheel_base *new)
{
	unsigned long flags;
	bool done;

	do {
		local_irq_save(flags);
		tw_lock_two_irqoff(old, new);
		done = tw_migrate_some(old, new);
		tw_unlock_two_irqoff(old, new);
		local_irq_restore(flags);
		cond_resched();
	} while (!done);
}

/*
 * CPU hotplug.
 *
 * twheel:online startup, on the CPU coming up: the base takes timers.
 *
 * twheel:online teardown, on the CPU going down, early: the base stops
 * taking timers and hands its own to another online CPU right away, so they
 * do not wait (late) for the rest of the CPU's teardown.
 *
 * twheel:prepare teardown, on a control CPU once the CPU is dead: moves
 * whatever is left (nothing, normally) to the local base and stops the dead
 * base's hrtimer, like timers_dead_cpu() does for timer_list.
 */
static int tw_cpu_online(unsigned int cpu)
{
	struct twheel_base *base = tw_base(cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&base->lock, flags);
	base->online = true;
	tw_reprogram_next(base);
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return 0;
}

static int tw_cpu_offline(unsigned int cpu)
{
	struct twheel_base *base = tw_base(cpu);
	unsigned long flags;
	int target;

	raw_spin_lock_irqsave(&base->lock, flags);
	base->online = false;
	raw_spin_unlock_irqrestore(&base->lock, flags);

	/* Hotplug is serialised: the target stays online meanwhile. */
	target = tw_fallback_cpu(cpu);
	if (target >= 0)
		tw_migrate(base, tw_base(target));
	return 0;
}

static int tw_cpu_dead(unsigned int cpu)
{
	struct twheel_base *old = tw_base(cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&old->lock, flags);
	old->online = false;
	raw_spin_unlock_irqrestore(&old->lock, flags);

	tw_migrate(old, tw_base(raw_smp_processor_id()));
	hrtimer_cancel(&old->tick);
	return 0;
}

/**
 * twheel_base_snapshot() - state of one CPU's base, for tests and debugfs
 * @cpu:	a possible CPU
 * @snap:	filled in under the base lock
 *
 * Return: 0, or -ERANGE if @cpu is not a possible CPU.
 */
int twheel_base_snapshot(int cpu, struct twheel_base_snapshot *snap)
{
	struct twheel_base *base;
	unsigned long flags;

	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return -ERANGE;
	base = tw_base(cpu);
	raw_spin_lock_irqsave(&base->lock, flags);
	snap->clk = base->wheel.clk;
	snap->next_tick = base->next_tick;
	snap->pending = base->wheel.pending;
	snap->expired = base->nr_expired;
	snap->tick_armed = hrtimer_is_queued(&base->tick);
	snap->online = base->online;
	snap->max_cascades = base->wheel.max_cascades;
	snap->cascaded = base->wheel.cascaded;
	snap->wakeups = base->wakeups;
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_base_snapshot);

/**
 * twheel_levels() - number of levels of every wheel
 *
 * Return: the levels module parameter.
 */
unsigned int twheel_levels(void)
{
	return tw_nr_levels;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_levels);

/**
 * twheel_slots() - slots per level of every wheel
 *
 * Return: 2^slot_bits.
 */
unsigned int twheel_slots(void)
{
	return 1U << tw_slot_bits;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_slots);

/**
 * twheel_horizon_ns() - span of a wheel before the overflow list
 *
 * Timers further away than this are kept on a list and enter the wheel
 * when it comes within reach; they still fire on time.
 *
 * Return: slots^levels ticks in ns, saturated at U64_MAX.
 */
u64 twheel_horizon_ns(void)
{
	return tw_mul_sat(1ULL << (tw_slot_bits * tw_nr_levels), tw_tick_ns);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_horizon_ns);

/**
 * twheel_tick_ns() - length of a wheel tick
 *
 * Timers fire in the tick of their deadline: never early, at most this much
 * late (plus the scheduling latency of the callback's worker).
 *
 * Context: any.
 * Return: the tick in ns (module parameter tick_us).
 */
u64 twheel_tick_ns(void)
{
	return tw_tick_ns;
}
EXPORT_SYMBOL_GPL(twheel_tick_ns);

static void tw_free_bases(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		kfree(tw_base(cpu));
		per_cpu(twheel_base_ptr, cpu) = NULL;
	}
}

/**
 * twheel_bases_init() - set up every possible CPU's base
 * @tick_us:	tick length in us (validated by the caller)
 * @slot_bits:	log2 of the slots per level
 * @levels:	levels per wheel
 *
 * Return: 0 or a negative errno.
 */
int twheel_bases_init(unsigned int tick_us, unsigned int slot_bits,
		      unsigned int levels)
{
	struct twheel_base *base;
	u64 now;
	int cpu, ret;

	BUILD_BUG_ON(CONFIG_NR_CPUS - 1 > U16_MAX);
	tw_tick_ns = tick_us * NSEC_PER_USEC;
	tw_tick_recip = div_u64(U64_MAX, tw_tick_ns);
	tw_slot_bits = slot_bits;
	tw_nr_levels = levels;
	tw_max_ktime_tick = div_u64(KTIME_MAX, tw_tick_ns);

	twheel_wq = alloc_workqueue("twheel", WQ_HIGHPRI, 0);
	if (!twheel_wq)
		return -ENOMEM;

	now = tw_now_tick();
	for_each_possible_cpu(cpu) {
		base = kzalloc_node(sizeof(*base), GFP_KERNEL, cpu_to_node(cpu));
		if (!base) {
			ret = -ENOMEM;
			goto err_free;
		}
		ret = tw_wheel_init(&base->wheel, slot_bits, levels, now);
		if (ret) {
			kfree(base);
			goto err_free;
		}
		raw_spin_lock_init(&base->lock);
		base->next_tick = TW_NO_TICK;
		INIT_HLIST_HEAD(&base->expired);
		INIT_HLIST_HEAD(&base->run);
		base->cpu = cpu;
		twheel_hrtimer_setup(&base->tick, tw_tick_fn, CLOCK_MONOTONIC,
				     HRTIMER_MODE_ABS_PINNED);
		INIT_WORK(&base->work, tw_work_fn);
		init_waitqueue_head(&base->waitq);
		INIT_CSD(&base->csd, tw_csd_fn, base);
		per_cpu(twheel_base_ptr, cpu) = base;
	}

	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "twheel:prepare",
					NULL, tw_cpu_dead);
	if (ret < 0)
		goto err_free;
	tw_hp_prepare = ret;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "twheel:online",
				tw_cpu_online, tw_cpu_offline);
	if (ret < 0)
		goto err_prepare;
	tw_hp_online = ret;
	return 0;

err_prepare:
	cpuhp_remove_state_nocalls(tw_hp_prepare);
err_free:
	tw_free_bases();
	destroy_workqueue(twheel_wq);
	return ret;
}

/* Make the timers on @list idle; return how many. */
static unsigned long tw_idle_all(struct hlist_head *list, unsigned long max)
{
	struct twheel_timer *t;
	unsigned long n = 0;

	while (!hlist_empty(list) && n < max) {
		t = hlist_entry(list->first, struct twheel_timer, node.entry);
		hlist_del_init(&t->node.entry);
		WRITE_ONCE(t->state, TWHEEL_STATE_IDLE);
		n++;
	}
	return n;
}

/*
 * Take every timer off @base at unload, in bounded chunks. Return how many
 * there were.
 */
static unsigned long tw_drain_base(struct twheel_base *base)
{
	unsigned long flags, n, left = 0;
	HLIST_HEAD(list);

	do {
		raw_spin_lock_irqsave(&base->lock, flags);
		n = tw_wheel_drain(&base->wheel, &list, TW_PASS_BUDGET);
		tw_idle_all(&list, n);
		if (!n) {
			n = tw_idle_all(&base->run, TW_PASS_BUDGET);
			n += tw_idle_all(&base->expired, TW_PASS_BUDGET - n);
			base->nr_expired -= n;
		}
		raw_spin_unlock_irqrestore(&base->lock, flags);
		left += n;
		cond_resched();
	} while (n);
	return left;
}

/**
 * twheel_bases_exit() - tear every base down at module unload
 *
 * No user can arm any more (users hold a module reference). Timers still
 * pending are cancelled, with a warning: an in-kernel user forgot them.
 */
void twheel_bases_exit(void)
{
	unsigned long flags, left = 0;
	int cpu;

	cpuhp_remove_state_nocalls(tw_hp_online);
	cpuhp_remove_state_nocalls(tw_hp_prepare);

	for_each_possible_cpu(cpu) {
		struct twheel_base *base = tw_base(cpu);

		raw_spin_lock_irqsave(&base->lock, flags);
		base->online = false;
		raw_spin_unlock_irqrestore(&base->lock, flags);
	}
	/* Let any reprogram IPI in flight finish: it sees !online. */
	for_each_possible_cpu(cpu)
		tw_wait_csd(tw_base(cpu));
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&tw_base(cpu)->tick);
	/* Runs the batches already expired; periodic re-arms find no base. */
	destroy_workqueue(twheel_wq);

	for_each_possible_cpu(cpu)
		left += tw_drain_base(tw_base(cpu));
	if (left)
		pr_warn("%lu timers still armed at unload were cancelled\n",
			left);
	tw_free_bases();
}
