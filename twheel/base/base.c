// SPDX-License-Identifier: GPL-2.0
/*
 * twheel per-CPU driver: the bases' storage and geometry, the locking of
 * two bases, the kick of a runner, and a timer's set-up (before it
 * belongs to any base). The
 * design is described in base.h, the files of the driver in base_int.h,
 * the wheel itself in wheel.h.
 */
#include <linux/bug.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/sched/isolation.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/twheel.h>

#include "base.h"
#include "base_int.h"
#include "compat.h"
#include "stats.h"
#include "testhooks.h"

DEFINE_PER_CPU(struct twheel_base *, twheel_base_ptr);
struct workqueue_struct *twheel_wq;
u32 tw_tick_ns;
u64 tw_tick_recip;
unsigned int tw_bucket_bits;
unsigned int tw_nr_levels;
u64 tw_max_ktime_tick;

/* Lock @a and @b (maybe the same), in CPU order. Interrupts are off. */
void tw_lock_two_irqoff(struct twheel_base *a, struct twheel_base *b)
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

void tw_unlock_two_irqoff(struct twheel_base *a, struct twheel_base *b)
	__releases(&a->lock) __releases(&b->lock)
{
	if (a != b)
		raw_spin_unlock(&b->lock);
	else
		__release(&b->lock);
	raw_spin_unlock(&a->lock);
}

/* The first CPU of @mask after @from (wrapping) whose base is online. */
static int tw_next_base(unsigned int from, const struct cpumask *mask)
{
	unsigned int cpu = from, i;

	for (i = 0; i < nr_cpu_ids; i++) {
		cpu = cpumask_next_and(cpu, cpu_online_mask, mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first_and(cpu_online_mask, mask);
		if (cpu >= nr_cpu_ids)
			break;
		if (READ_ONCE(tw_base(cpu)->online))
			return cpu;
	}
	return -1;
}

/*
 * Where a timer goes that its CPU cannot take (it went down, or an arm
 * without a CPU runs on one going down): the first online CPU after @from
 * (wrapping) whose base takes timers and that is not isolated from kernel
 * timers (HK_TYPE_TIMER: nohz_full=, isolcpus=nohz), or -1. A timer that
 * /dev/twheel would not put on an isolated CPU must not land there later.
 * Starting after the caller's CPU spreads the timers of a CPU going down
 * instead of piling them all on the first CPU. Only if no housekeeping CPU
 * takes timers (the kernel keeps one online; unload takes them all
 * offline) is any online CPU taken.
 */
int tw_fallback_cpu(unsigned int from)
{
	int cpu = tw_next_base(from, housekeeping_cpumask(HK_TYPE_TIMER));

	return cpu >= 0 ? cpu : tw_next_base(from, cpu_possible_mask);
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
	snap->next_work = tw_wheel_next(&base->wheel);
	snap->pending = base->wheel.pending;
	snap->expired = base->nr_expired;
	snap->tick_armed = hrtimer_is_queued(&base->tick);
	snap->fire_ns = ktime_to_ns(hrtimer_get_expires(&base->tick));
	snap->bits = base->wheel.bits;
	snap->online = base->online;
	snap->max_cascades = base->wheel.max_cascades;
	snap->cascaded = base->wheel.cascaded;
	snap->wakeups = base->wakeups;
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_base_snapshot);

/**
 * tw_kick() - make sure a runner will look at @base's expired timers
 * @base:	the base, locked
 * @cpu:	where to queue a runner (the base's CPU while it is online)
 *
 * Nothing to do if a runner is queued or looking already. Otherwise an
 * idle runner is queued; if every runner is busy in a callback, the first
 * to return looks.
 *
 * Return: the runner that is queued or looking now, or NULL if every
 * runner is busy. Until that one runs, it stays so (TW_RUNNER_LOOKING):
 * a caller that keeps it need not call again while it is.
 */
struct tw_runner *tw_kick(struct twheel_base *base, int cpu)
{
	struct tw_runner *idle = NULL;
	unsigned int i;

	for (i = 0; i < TW_RUNNERS; i++) {
		if (base->runner[i].state == TW_RUNNER_LOOKING)
			return &base->runner[i];
		if (base->runner[i].state == TW_RUNNER_IDLE && !idle)
			idle = &base->runner[i];
	}
	if (!idle)
		return NULL;
	idle->state = TW_RUNNER_LOOKING;
	queue_work_on(cpu, twheel_wq, &idle->work);
	twheel_stat_inc(runner_kicks);
	return idle;
}

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * For the tests alone, which is why it is not built without KUnit: it
 * walks every expired timer of a base with interrupts off.
 *
 * The problems of queue @fq of @base (locked): a timer not expired or of
 * another queue, a link that does not point back, @last not the last
 * timer, the round-robin list or @held disagreeing with it. Adds its
 * timers to *@nr.
 */
static int tw_check_fq(struct twheel_base *base, struct tw_fq *fq,
		       unsigned long *nr)
{
	struct hlist_node **prev = &fq->head.first, *pos, *last = NULL;
	unsigned long n = 0;
	int bad = 0;

	for (pos = fq->head.first; pos; pos = pos->next) {
		struct twheel_timer *t = hlist_entry(pos, struct twheel_timer,
						     node.entry);

		bad += pos->pprev != prev;
		bad += t->state != TWHEEL_EXPIRED;
		bad += tw_fq_of(base, t) != fq;
		prev = &pos->next;
		last = pos;
		/* A cycle: stop. */
		if (++n > base->nr_expired) {
			bad++;
			break;
		}
	}
	bad += fq->last != last;
	/* Listed on @fq_held while held, on @fq_active while it has timers. */
	if (fq->held)
		bad += list_empty(&fq->link);
	else
		bad += !!last == list_empty(&fq->link);
	*nr += n;
	return bad;
}

/**
 * twheel_base_check_queues() - check the expired timers of one CPU's base
 * @cpu:	a possible CPU
 *
 * Walks every queue of expired timers (struct tw_fq) under the base lock
 * and checks what the runners and a cancel rely on: each timer is EXPIRED
 * and on its own group's queue, each link points back to the one before,
 * a queue's @last is its last timer, a queue is on the round-robin list
 * exactly when it has timers and no runner holds it, and the timers add up
 * to the base's count of expired timers.
 *
 * Return: the number of expired timers, -ERANGE if @cpu is not a possible
 * CPU, -EUCLEAN if anything is wrong.
 */
int twheel_base_check_queues(int cpu)
{
	struct twheel_base *base;
	unsigned long flags, nr = 0;
	unsigned int i, active = 0, want = 0;
	struct tw_fq *fq;
	int bad = 0;

	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return -ERANGE;
	base = tw_base(cpu);
	raw_spin_lock_irqsave(&base->lock, flags);
	for (i = 0; i < TW_FAIR_QUEUES; i++) {
		bad += tw_check_fq(base, &base->fq[i], &nr);
		want += base->fq[i].last && !base->fq[i].held;
	}
	list_for_each_entry(fq, &base->fq_active, link) {
		bad += !fq->last || fq->held;
		if (++active > TW_FAIR_QUEUES)
			break;
	}
	bad += active != want || nr != base->nr_expired;
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return bad ? -EUCLEAN : (int)min_t(unsigned long, nr, INT_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_base_check_queues);
#endif

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
 * twheel_buckets() - buckets per level of every wheel
 *
 * Return: 2^bucket_bits.
 */
unsigned int twheel_buckets(void)
{
	return 1U << tw_bucket_bits;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_buckets);

/**
 * twheel_horizon_ns() - span of a wheel before the overflow list
 *
 * Timers further away than this are kept on a list and enter the wheel
 * when it comes within reach; they still fire on time.
 *
 * Return: buckets^levels ticks in ns, saturated at U64_MAX.
 */
u64 twheel_horizon_ns(void)
{
	return tw_mul_sat(1ULL << (tw_bucket_bits * tw_nr_levels), tw_tick_ns);
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

/**
 * twheel_timer_setup() - set up a timer before its first use
 * @timer:	the timer
 * @func:	callback, run when the timer expires
 * @flags:	0, or TWHEEL_TIMER_TICK to run @func in the tick itself
 *
 * The timer is idle. It may be armed and cancelled any number of times
 * afterwards; it need not be set up again (but may be, while idle and not
 * running).
 *
 * Without flags @func runs in process context, see the header. With
 * TWHEEL_TIMER_TICK @func runs in the pass of the tick that expires the
 * timer, with the CPU's twheel base lock (a raw spinlock) held and
 * interrupts disabled: in hard interrupt context, in a softirq thread on
 * PREEMPT_RT, or in the base's worker when the tick ran out of budget. It
 * must do O(1) work, must not sleep, must not take a spinlock_t (a sleeping
 * lock on PREEMPT_RT) and must not call any twheel function; it may take
 * raw spinlocks and queue an irq_work. The tick re-arms a periodic timer
 * after the callback (missed periods of a fixed-rate timer add to
 * @timer->overruns, which the callback may read and reset). Because the
 * callback runs under the base lock, once twheel_timer_cancel() or
 * twheel_timer_modify() has returned the old arming's callback neither runs nor
 * will run.
 *
 * Context: any.
 */
void twheel_timer_setup(struct twheel_timer *timer, twheel_func_t func,
			unsigned int flags)
{
	BUILD_BUG_ON(IS_ENABLED(CONFIG_64BIT) &&
		     sizeof(struct twheel_timer) > 64);

	WARN_ON_ONCE(flags & ~TWHEEL_TIMER_TICK);
	tw_node_init(&timer->node);
	if (flags & TWHEEL_TIMER_TICK)
		timer->node.flags = TW_NODE_TICK;
	timer->node.group = 0;
	timer->func = func;
	timer->deadline = 0;
	timer->period = 0;
	timer->overruns = 0;
	timer->cpu = raw_smp_processor_id();
	timer->mode = TWHEEL_MODE_ONESHOT;
	timer->state = TWHEEL_IDLE;
}
EXPORT_SYMBOL_GPL(twheel_timer_setup);

/**
 * twheel_timer_set_group() - put a timer's callbacks in a fairness group
 * @timer:	timer set up with twheel_timer_setup()
 * @group:	the group; 0, every timer's after set-up, is the in-kernel one
 *
 * The expired timers of a CPU wait for their callbacks in one queue per
 * group, served round robin one callback at a time (see "Fairness" in
 * twheel/base/base.h): a group's timers wait behind at most one callback
 * of each other group. The callbacks of one queue other than group 0's run
 * one at a time on a CPU: a callback that sleeps holds back its own
 * group's timers there, not the others' (so a callback must not wait for
 * another callback of its group). A CPU has TW_FAIR_QUEUES queues, group g
 * takes queue g % TW_FAIR_QUEUES: give small numbers (an IDA), so that
 * groups share a queue only when more than that many are in use.
 * TWHEEL_TIMER_TICK timers run in the tick and are in no queue.
 *
 * Context: any. The timer must be neither pending nor waiting for its
 * callback (idle, or running its callback): the group says which queue it
 * is on while it waits.
 */
void twheel_timer_set_group(struct twheel_timer *timer, u32 group)
{
	WARN_ON_ONCE(twheel_timer_pending(timer));
	WRITE_ONCE(timer->node.group, group);
}
EXPORT_SYMBOL_GPL(twheel_timer_set_group);
