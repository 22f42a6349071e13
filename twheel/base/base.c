// SPDX-License-Identifier: GPL-2.0
/*
 * twheel per-CPU driver: the bases' storage and geometry, and the locking of
 * two bases. The design is described in base.h, the files
 * of the driver in base_int.h, the wheel itself in wheel.h.
 */
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/sched/isolation.h>
#include <linux/spinlock.h>

#include "base.h"
#include "base_int.h"
#include "compat.h"
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
