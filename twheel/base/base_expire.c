// SPDX-License-Identifier: GPL-2.0
/*
 * twheel per-CPU driver: the tick hrtimer's callback, bounded expiry
 * passes, TWHEEL_TIMER_TICK callbacks, and the work item that runs the
 * other callbacks and finishes a pass that ran out of budget (the tick's
 * programming is base_tick.c). Design in base.h.
 */
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/prefetch.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "base.h"
#include "base_int.h"
#include "stats.h"
#include "trace.h"

#ifdef CONFIG_LOCKDEP
/*
 * Held (for lockdep only) around every callback, and taken and released by
 * twheel_timer_cancel_sync(): lockdep then reports a cancel_sync() from a
 * callback and a cancel_sync() under a lock that a callback takes.
 */
static struct lock_class_key twheel_callback_key;
struct lockdep_map twheel_callback_map =
	STATIC_LOCKDEP_MAP_INIT("twheel_callback", &twheel_callback_key);
#endif

/*
 * Put @t into @base's wheel at @deadline (ns), PENDING: the part of an arm
 * that is not counted or traced (a deferred arming was, when it was made).
 * Base lock held, base online.
 */
static __always_inline void tw_place(struct twheel_base *base,
				     struct twheel_timer *t, u64 deadline)
{
	struct tw_wheel *w = &base->wheel;

	/*
	 * An empty wheel's clock is stale: new deadlines belong low. The
	 * coarse clock, as the lock is held with interrupts off.
	 */
	if (!w->pending)
		tw_wheel_forward(w, tw_coarse_tick());
	t->deadline = deadline;
	WRITE_ONCE(t->cpu, base->cpu);
	tw_wheel_add(w, &t->node, tw_ns_to_tick(deadline));
	WRITE_ONCE(t->state, TWHEEL_PENDING);
}

/*
 * Queue idle timer @t on @base at @deadline (ns) without looking at the tick
 * hrtimer: the caller programs it, once for several timers (tw_reprogram()
 * with the smallest t->node.expires). Base lock held, base online.
 */
void __tw_enqueue(struct twheel_base *base, struct twheel_timer *t,
		  u64 deadline)
{
	tw_place(base, t, deadline);
	twheel_stat_inc(armed);
	trace_twheel_arm(t, base->cpu, deadline, t->period);
}

/*
 * Queue idle timer @t on @base at @deadline (ns) and make sure the tick
 * hrtimer fires in time. Base lock held, base online.
 */
void tw_enqueue(struct twheel_base *base, struct twheel_timer *t, u64 deadline)
{
	__tw_enqueue(base, t, deadline);
	tw_reprogram(base, t->node.expires, deadline);
}

/*
 * Arm @t, whose callback runs on runner @r, for @deadline (ns) once the
 * callback returns, on CPU @move_to (-1: its own base): PENDING now,
 * enqueued by the runner then (tw_settle()). Base lock held.
 */
void tw_defer(struct tw_runner *r, struct twheel_timer *t, u64 deadline,
	      int move_to)
{
	t->deadline = deadline;
	r->deferred = true;
	r->move_to = move_to;
	WRITE_ONCE(t->state, TWHEEL_PENDING);
	twheel_stat_inc(armed);
	trace_twheel_arm(t, t->cpu, deadline, t->period);
}

/*
 * Next deadline of periodic timer @t whose callback for @deadline returned
 * at @end. Fixed rate skips (and counts) the periods already past.
 */
u64 tw_next_deadline(struct twheel_timer *t, u64 deadline, u64 end)
{
	u64 next, missed;

	/*
	 * The callback returned at or after its deadline: a clock read that
	 * says otherwise is stale (a catch-up pass after hotplug reads the
	 * coarse clock), and a period counted from it would come early.
	 */
	if (t->mode == TWHEEL_MODE_FIXED_DELAY)
		return tw_add_sat(max(end, deadline), t->period);
	next = tw_add_sat(deadline, t->period);
	if (next > end || next == U64_MAX)
		return next;
	missed = div64_u64(end - next, t->period) + 1;
	next = tw_add_sat(next, tw_mul_sat(missed, t->period));
	t->overruns = min_t(u64, (u64)t->overruns + missed, U32_MAX);
	twheel_stat_add(overruns, missed);
	return next;
}

/* Where @base's runners go: its CPU, or this one once it went down. */
static int tw_runner_cpu(struct twheel_base *base)
{
	return base->online ? base->cpu : raw_smp_processor_id();
}

/*
 * Call the callback of TWHEEL_TIMER_TICK timer @t, off the wheel at
 * tick-clock time @now (ns), and re-arm it if it is periodic, lowering
 * *@next to its tick. Base lock held, interrupts off.
 */
static void tw_expire_tick(struct twheel_base *base, struct twheel_timer *t,
			   u64 now, u64 *next)
{
	u64 deadline = t->deadline;

	WRITE_ONCE(t->state, TWHEEL_IDLE);
	trace_twheel_expire(t, base->cpu, deadline, now);
	twheel_stat_callbacks(1, now > deadline ? now - deadline : 0);
	t->func(t);
	if (t->mode == TWHEEL_MODE_ONESHOT)
		return;
	tw_enqueue(base, t, tw_next_deadline(t, deadline, now));
	*next = min(*next, t->node.expires);
}

/*
 * Expire @batch, @n timers taken off @base's wheel at tick-clock time @now
 * (ns): call the callbacks of TWHEEL_TIMER_TICK timers here, under the base
 * lock (and re-arm the periodic ones, lowering *@next to their tick), hand
 * the others to @base's runners, in order, each at the tail of its group's
 * queue (see "Fairness" in base.h). One walk: each timer's state is set
 * and its queue looked up, and each run of consecutive timers of one queue
 * (the whole batch when only group 0's timers expire, the common case) is
 * spliced onto that queue's tail as it is, with no unlink and relink of
 * each. Base lock held, interrupts off; O(@n), which the caller bounds.
 */
static void tw_expire(struct twheel_base *base, struct hlist_head *batch,
		      unsigned long n, u64 now, u64 *next)
{
	struct hlist_node *pos, *nxt, *first = NULL, *last = NULL;
	struct tw_fq *fq = NULL, *tfq;
	struct twheel_timer *t;
	unsigned long nr = 0;
	bool queued = false;

	twheel_stat_add(expired, n);
	/* @batch is used up: its head is not kept up to date. */
	for (pos = batch->first; pos; pos = nxt) {
		nxt = pos->next;
		t = hlist_entry(pos, struct twheel_timer, node.entry);
		if (unlikely(t->node.flags & TW_NODE_TICK)) {
			if (first)
				tw_fq_splice(base, fq, first, last, nr);
			first = NULL;
			fq = NULL;
			/*
			 * Its callback cannot touch the timers after it (they
			 * are this base's, whose lock is held).
			 */
			INIT_HLIST_NODE(pos);
			tw_expire_tick(base, t, now, next);
			continue;
		}
		WRITE_ONCE(t->state, TWHEEL_EXPIRED);
		tfq = tw_fq_of(base, t);
		if (likely(tfq == fq)) {
			last = pos;
			nr++;
			continue;
		}
		/* The first of a run. */
		if (first)
			tw_fq_splice(base, fq, first, last, nr);
		fq = tfq;
		first = pos;
		last = pos;
		nr = 1;
		queued = true;
	}
	if (first)
		tw_fq_splice(base, fq, first, last, nr);
	if (!queued)
		return;
	/*
	 * Between its CPU going down and the migration of its timers, a base's
	 * hrtimer runs elsewhere: so do its runners then.
	 */
	tw_kick(base, tw_runner_cpu(base));
}

/*
 * Move the timers of @tick's exact bucket (tw_bucket_span() is true) that
 * are due by @now_ns (ns) out of the wheel onto the end of @batch, leaving
 * the others: each is compared with the time, so none is early. At most
 * TW_EXACT_NODES, the bucket's size. Base lock held. Return: how many.
 */
static unsigned long tw_take_due(struct twheel_base *base, u64 tick,
				 u64 now_ns, struct hlist_head *batch)
{
	const struct hlist_head *head = tw_wheel_bucket(&base->wheel, tick);
	struct twheel_timer *due[TW_EXACT_NODES], *t;
	struct hlist_node **tail = &batch->first;
	const struct hlist_node *pos;
	unsigned int nr = 0, i;

	for (pos = head ? head->first : NULL; pos && nr < TW_EXACT_NODES;
	     pos = pos->next) {
		t = hlist_entry(pos, struct twheel_timer, node.entry);
		if (t->deadline <= now_ns)
			due[nr++] = t;
	}
	while (*tail)
		tail = &(*tail)->next;
	for (i = 0; i < nr; i++) {
		tw_wheel_del(&base->wheel, &due[i]->node);
		*tail = &due[i]->node.entry;
		due[i]->node.entry.pprev = tail;
		tail = &due[i]->node.entry.next;
	}
	return nr;
}

/*
 * One bounded pass over @base's wheel up to the tick of @now_ns: at most
 * TW_PASS_BUDGET timers cascaded or expired. *@next is set to the next tick
 * with work. Return: true if work is left for that tick (the budget ran
 * out). Base lock held, interrupts off.
 *
 * @now_ns is CLOCK_MONOTONIC read by the caller before it took the lock:
 * never later than the time of the pass, so nothing fires early, and the
 * clock read, whose cost the clocksource decides (an emulated HPET is
 * slow), is not done with interrupts off. The pass times itself with local_clock(),
 * the CPU's cheap sched_clock (the TSC on x86 whatever the clocksource).
 */
static bool tw_run_pass(struct twheel_base *base, u64 now_ns, u64 *next)
{
	unsigned long budget = TW_PASS_BUDGET, n, due;
	u64 t0 = local_clock(), now, clk, cascaded, first, last;
	struct tw_wheel *w = &base->wheel;
	bool left = false, worked;
	HLIST_HEAD(batch);

	now = tw_ns_to_tick_floor(now_ns);
	clk = base->wheel.clk;
	cascaded = base->wheel.cascaded;
	n = tw_wheel_advance_budget(&base->wheel, now, &batch, &budget, next);
	cascaded = base->wheel.cascaded - cascaded;
	worked = n || cascaded;
	if (now >= clk && base->wheel.clk > clk)
		twheel_stat_add(ticks_idle, base->wheel.clk - clk -
					    (n || cascaded));
	if (cascaded) {
		twheel_stat_add(cascaded, cascaded);
		trace_twheel_cascade(base->cpu, base->wheel.clk, cascaded);
	}
	/*
	 * The next tick (the pass left no work up to @now) begins a level-1
	 * bucket: its cascades now, before it begins, so that its timers are
	 * in its level-0 bucket ("Exact buckets" in base.h).
	 */
	if (*next > now && *next == w->clk && !(w->clk & w->mask)) {
		cascaded = w->cascaded;
		left = !tw_wheel_cascade(w, &budget);
		cascaded = w->cascaded - cascaded;
		if (cascaded) {
			worked = true;
			twheel_stat_add(cascaded, cascaded);
			trace_twheel_cascade(base->cpu, w->clk, cascaded);
		}
		*next = tw_wheel_next(w);
	}
	/*
	 * The next tick's exact bucket: its timers due by now, all of it at
	 * once if they all are ("Exact buckets" in base.h).
	 */
	if (!left && *next > now && budget >= TW_EXACT_NODES &&
	    tw_bucket_span(base, *next, &first, &last) && first <= now_ns) {
		if (last <= now_ns) {
			n += tw_wheel_take(w, *next, &batch, &budget);
		} else {
			due = tw_take_due(base, *next, now_ns, &batch);
			budget -= due;
			n += due;
		}
		twheel_stat_inc(ticks_exact);
		worked = true;
		*next = tw_wheel_next(w);
	}
	/* A tick's work done ahead of it counts here, not when it begins. */
	if (worked)
		twheel_stat_inc(ticks_run);
	if (n)
		tw_expire(base, &batch, n, now_ns, next);
	twheel_stat_max(this_cpu_ptr(&twheel_stats.pass_max_ns),
			local_clock() - t0);
	return left || *next <= now;
}

/*
 * Program the tick hrtimer @hrt of @base, whose callback runs, for tick
 * @next (TW_NO_TICK: not at all). Base lock held.
 *
 * The callback takes the base lock only after it has read the clock; on
 * PREEMPT_RT it runs in a thread and may be interrupted or preempted there,
 * and an arm for an earlier tick meanwhile (a reprogram IPI, or a local
 * arm) hrtimer_start()s it again: it is then queued, and its expiry is its
 * key in the hrtimer base's timerqueue, which must never change in place.
 * So a queued tick is moved with hrtimer_start() and the callback does not
 * restart it; only one that is not queued is restarted.
 */
static enum hrtimer_restart tw_tick_rearm(struct twheel_base *base,
					  struct hrtimer *hrt, u64 next)
{
	ktime_t at;

	base->next_tick = next;
	if (next == TW_NO_TICK)
		return HRTIMER_NORESTART;
	at = base->behind ? tw_tick_to_ktime(next) : tw_fire_time(base, next);
	if (unlikely(hrtimer_is_queued(hrt))) {
		hrtimer_start(hrt, at, HRTIMER_MODE_ABS_PINNED);
		return HRTIMER_NORESTART;
	}
	hrtimer_set_expires(hrt, at);
	return HRTIMER_RESTART;
}

/*
 * The tick hrtimer: one bounded pass. If the budget ran out, the base is
 * behind: a runner is queued to go on with the tick's work at once, in
 * bounded passes with the lock dropped in between, and the tick comes back
 * one tick later for another pass whatever the runners do (all of them may
 * be asleep in callbacks), so the wheel keeps moving.
 */
enum hrtimer_restart tw_tick_fn(struct hrtimer *hrt)
{
	struct twheel_base *base = container_of(hrt, struct twheel_base, tick);
	enum hrtimer_restart ret;
	/* Before the lock: see tw_run_pass(). */
	u64 now = tw_clock_ns(), next;
	unsigned long flags;

	tw_hook_spin(TWHEEL_HOOK_tick_clock);
	raw_spin_lock_irqsave(&base->lock, flags);
	base->wakeups++;
	twheel_stat_inc(wakeups);
	/* Re-arms in this pass must not restart the running hrtimer. */
	base->next_tick = 0;
	base->behind = tw_run_pass(base, now, &next);
	if (base->behind) {
		twheel_stat_inc(behind);
		tw_kick(base, tw_runner_cpu(base));
		next = tw_ns_to_tick_floor(now) + 1;
	}
	ret = tw_tick_rearm(base, hrt, next);
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return ret;
}

/* Enqueue @t, deferred on @r, on @target (locked, online). */
static void tw_settle_on(struct tw_runner *r, struct twheel_base *target,
			 struct twheel_timer *t)
{
	r->deferred = false;
	tw_place(target, t, t->deadline);
	tw_reprogram(target, t->node.expires, t->deadline);
}

/*
 * The callback of @t on runner @r of @base (locked, interrupts off,
 * r->running == t) returned and @t was armed meanwhile (r->deferred):
 * enqueue it, on @base or on the CPU the arm named (r->move_to), or on an
 * online CPU if that one is offline. For another base the base lock is
 * dropped; if anybody touched the timer meanwhile (r->deferred, r->move_to
 * changed), the choice is made again. @t stays "running" on @r until the
 * caller clears r->running, so twheel_timer_cancel_sync() waits for this.
 */
static void tw_settle(struct twheel_base *base, struct tw_runner *r,
		      struct twheel_timer *t)
{
	struct twheel_base *target;
	int want, cpu;

	while (r->deferred) {
		want = r->move_to;
		cpu = tw_settle_cpu(base, r);
		if (cpu < 0) {
			/* Module unload: nowhere to go. */
			r->deferred = false;
			WRITE_ONCE(t->state, TWHEEL_IDLE);
			return;
		}
		target = tw_base(cpu);
		/* Online: its lock is held, so nothing changed. */
		if (target == base) {
			tw_settle_on(r, base, t);
			return;
		}
		raw_spin_unlock(&base->lock);
		tw_lock_two_irqoff(base, target);
		if (target->online && r->deferred && r->move_to == want)
			tw_settle_on(r, target, t);
		raw_spin_unlock(&target->lock);
	}
}

/*
 * The next expired timer of @base, off its queue (round robin between the
 * groups, see "Fairness" in base.h), or NULL. None of them is running: a
 * running timer is in no list. Base lock held.
 */
static struct twheel_timer *tw_take(struct twheel_base *base)
{
	struct twheel_timer *t = tw_fq_take(base);
	struct tw_fq *fq;

	/* The runner writes the next one too, soon: one timer, one line. */
	fq = list_first_entry_or_null(&base->fq_active, struct tw_fq, link);
	if (fq)
		prefetchw(fq->head.first);
	return t;
}

/*
 * Count the @nr callbacks a runner ran since it last counted, all of timers
 * due at @deadline and started after the clock read @now (see tw_work_fn()).
 */
static inline void tw_count(unsigned long *nr, u64 deadline, u64 now)
{
	if (*nr) {
		twheel_stat_callbacks(*nr, now > deadline ? now - deadline : 0);
		*nr = 0;
	}
}

/*
 * A runner: finishes a pass that ran out of budget, then takes expired
 * timers one at a time and runs their callbacks with the base lock dropped,
 * until none is left. Before a callback it makes sure another runner is
 * queued if timers are left, so that a callback that sleeps holds back
 * only itself (see "Runners" in base.h).
 *
 * The clock is read once per group of up to TW_CLOCK_BATCH callbacks, not
 * once per callback: when the runner starts and whenever it got the CPU
 * back (after a reschedule, a wake-up or a pass), after a periodic callback
 * (whose next deadline needs the time it returned: never early) and after
 * TW_CLOCK_BATCH callbacks. The lateness of a callback is counted from that
 * read (so it is short by at most the group's earlier callbacks), and
 * cb_max_ns is the longest group. Callbacks are counted (callbacks, the
 * lateness histogram) once per run of one deadline within a group, the
 * common case being timers of one deadline: the counters lag by at most
 * TW_CLOCK_BATCH - 1 callbacks until the current callback returns (however
 * long it sleeps), and by none once the runner is done.
 */
void tw_work_fn(struct work_struct *work)
{
	struct tw_runner *r = container_of(work, struct tw_runner, work);
	struct twheel_base *base = r->base;
	struct tw_runner *other = NULL;
	unsigned long counted = 0;
	unsigned int group = 0;
	struct twheel_timer *t;
	twheel_func_t func;
	u64 deadline, now, end, next, cdl = 0;
	bool periodic, wake, read;

	now = tw_clock_ns();
	raw_spin_lock_irq(&base->lock);
	r->state = TW_RUNNER_LOOKING;
	for (;;) {
		/*
		 * The tick's budget ran out: finish its work here, one bounded
		 * pass at a time with the lock dropped in between, then
		 * program the tick.
		 */
		if (base->behind) {
			if (tw_run_pass(base, now, &next)) {
				raw_spin_unlock_irq(&base->lock);
				twheel_hook(TWHEEL_HOOK_runner_pass);
				tw_count(&counted, cdl, now);
				cond_resched();
				now = tw_clock_ns();
				group = 0;
				raw_spin_lock_irq(&base->lock);
				continue;
			}
			base->behind = false;
			/*
			 * Also for the tick the hrtimer is programmed for
			 * (the tick's start, while behind): its bucket may
			 * now be exact ("Exact buckets" in base.h).
			 */
			tw_reprogram_next(base);
		}
		t = tw_take(base);
		if (!t)
			break;
		twheel_hook_watch(TWHEEL_HOOK_runner_take, t);
		periodic = t->mode != TWHEEL_MODE_ONESHOT;
		deadline = t->deadline;
		func = t->func;
		WRITE_ONCE(t->state, periodic ? TWHEEL_RUNNING :
						TWHEEL_IDLE);
		WRITE_ONCE(r->running, t);
		tw_fq_hold(base, r, t);
		base->nr_running++;
		r->touched = false;
		r->deferred = false;
		r->state = TW_RUNNER_BUSY;
		/*
		 * Should this callback sleep, another runner takes over: if
		 * timers of a queue no runner holds are waiting. The one
		 * found before is still queued if it is still looking.
		 */
		if (!list_empty(&base->fq_active) &&
		    (!other || other->state != TW_RUNNER_LOOKING))
			other = tw_kick(base, tw_runner_cpu(base));
		raw_spin_unlock_irq(&base->lock);

		/* From here on, a one-shot @t may be freed by its callback. */
		trace_twheel_expire(t, base->cpu, deadline, now);
		lock_map_acquire(&twheel_callback_map);
		func(t);
		lock_map_release(&twheel_callback_map);
		read = periodic || ++group >= TW_CLOCK_BATCH;
		end = read ? tw_clock_ns() : now;
		/* @counted: callbacks of timers due at @cdl, since @now. */
		if (deadline != cdl) {
			tw_count(&counted, cdl, now);
			cdl = deadline;
		}
		counted++;
		if (read) {
			tw_count(&counted, cdl, now);
			twheel_stat_max(raw_cpu_ptr(&twheel_stats.cb_max_ns),
					end - now);
			now = end;
			group = 0;
		}

		raw_spin_lock_irq(&base->lock);
		if (periodic && !r->touched)
			tw_defer(r, t, tw_next_deadline(t, deadline, end), -1);
		/* Not r->touched alone: a one-shot @t may be freed by now. */
		if (r->deferred)
			tw_settle(base, r, t);
		WRITE_ONCE(r->running, NULL);
		tw_fq_release(base, r);
		base->nr_running--;
		r->state = TW_RUNNER_LOOKING;
		/* Wait queue locks sleep on PREEMPT_RT: wake outside ours. */
		wake = base->waiters;
		if (wake || need_resched()) {
			raw_spin_unlock_irq(&base->lock);
			if (wake)
				wake_up(&base->waitq);
			tw_count(&counted, cdl, now);
			cond_resched();
			now = tw_clock_ns();
			group = 0;
			raw_spin_lock_irq(&base->lock);
		}
	}
	tw_count(&counted, cdl, now);
	r->state = TW_RUNNER_IDLE;
	raw_spin_unlock_irq(&base->lock);
}
