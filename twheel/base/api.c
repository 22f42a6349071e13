// SPDX-License-Identifier: GPL-2.0
/*
 * twheel in-kernel API: setting up a timer. The entry points that arm,
 * modify and cancel are in base_arm.c, where the work is done: an arm is
 * one call and one lock (design in base.h, "Cost").
 */
#include <linux/bug.h>
#include <linux/export.h>
#include <linux/smp.h>
#include <linux/twheel.h>

#include "base.h"

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
