// SPDX-License-Identifier: GPL-2.0
/*
 * twheel in-kernel API: argument checking and the exported entry points.
 * The work is done by the per-CPU bases (base.c).
 */
#include <linux/bug.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/overflow.h>
#include <linux/smp.h>
#include <linux/twheel.h>

#include "base.h"

static u64 tw_deadline(u64 expires, unsigned int flags)
{
	u64 deadline;

	if (flags & TWHEEL_ABS)
		return expires;
	if (check_add_overflow(twheel_now_ns(), expires, &deadline))
		return U64_MAX;
	return deadline;
}

static int tw_check(u64 period, unsigned int flags, u8 *mode)
{
	if (flags & ~TWHEEL_FLAGS_ALL)
		return -EINVAL;
	if (!period) {
		if (flags & TWHEEL_FIXED_DELAY)
			return -EINVAL;
		*mode = TWHEEL_MODE_ONESHOT;
	} else {
		*mode = flags & TWHEEL_FIXED_DELAY ? TWHEEL_MODE_FIXED_DELAY :
						     TWHEEL_MODE_FIXED_RATE;
	}
	return 0;
}

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
 * callback runs under the base lock, once twheel_cancel() or
 * twheel_modify() has returned the old arming's callback neither runs nor
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
 * twheel_arm_on() - arm a timer on a CPU
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
int twheel_arm_on(struct twheel_timer *timer, u64 expires, u64 period,
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
	return twheel_arm_timer(timer, tw_deadline(expires, flags), period,
				mode, cpu, false);
}
EXPORT_SYMBOL_GPL(twheel_arm_on);

/**
 * twheel_modify() - change a timer's deadline and period
 * @timer:	timer set up with twheel_timer_init()
 * @expires:	new deadline in ns, relative or absolute (TWHEEL_ABS)
 * @period:	new period in ns, 0 makes the timer one-shot
 * @flags:	TWHEEL_ABS, TWHEEL_FIXED_DELAY
 *
 * Like twheel_arm_on() on the CPU the timer is on, in one step: the timer is
 * never seen idle in between. An idle timer is armed. The overrun count is
 * kept.
 *
 * Context: any context but hard interrupt; does not sleep.
 * Return: 1 if the timer was pending, 0 if not; -EINVAL as twheel_arm_on().
 */
int twheel_modify(struct twheel_timer *timer, u64 expires, u64 period,
		  unsigned int flags)
{
	u8 mode;
	int ret;

	ret = tw_check(period, flags, &mode);
	if (ret)
		return ret;
	return twheel_arm_timer(timer, tw_deadline(expires, flags), period,
				mode, TWHEEL_CPU_ANY, true);
}
EXPORT_SYMBOL_GPL(twheel_modify);
