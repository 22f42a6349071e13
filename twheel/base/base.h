/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel per-CPU driver: one wheel per possible CPU, its tick hrtimer and
 * the work items that run expired callbacks. Its files, in twheel/base/,
 * each using only the ones before it: base.c, base_tick.c, base_expire.c,
 * base_arm.c (the in-kernel API), base_init.c (see base_int.h).
 * This header is theirs alone (and their KUnit suites'): the other layers
 * use driver.h.
 *
 * Time: a wheel tick is twheel_tick_ns() long. The current tick is
 * ktime_get() / tick_ns; a deadline of D ns belongs to tick ceil(D / tick_ns),
 * and the tick hrtimer for tick T is programmed at T * tick_ns, so a timer
 * never fires before its deadline and at most one tick after it.
 *
 * Exact buckets: when the work of tick T is a level-0 bucket of at most
 * TW_EXACT_NODES timers (tw_wheel_bucket()), the hrtimer is programmed at
 * the earliest of their deadlines instead, and the pass it runs hands out,
 * ahead of the tick, the timers of the bucket that are due by the pass's
 * clock read (the whole bucket with tw_wheel_take() when all are, else
 * each with tw_wheel_del()), then programs the hrtimer at the earliest
 * deadline left: each timer fires with an hrtimer's lateness, not up to a
 * tick after its deadline, and not when the last of its bucket is due.
 * The wheel's clock does not move for it. A timer added to the bucket
 * meanwhile with an earlier deadline than the one programmed programs the
 * hrtimer again while the tick has exact programmings left
 * (tw_reprogram() compares its deadline with the hrtimer's expiry when
 * its tick is the one programmed at an exact deadline; the reprogram IPI
 * and a migration have the owner look at the bucket again); the hrtimer
 * never moves later within its tick. Never early: each
 * deadline is compared with the time; never later than T * tick_ns: the
 * hrtimer is never programmed after it. Timers above level 0 get there
 * first: when the work of tick T lies beyond the clock's level-0 turn, the
 * hrtimer is programmed a tick early, at (T - 1) * tick_ns, and a pass
 * whose next tick begins a level-1 bucket does that tick's cascades at
 * once (tw_wheel_cascade()), so that the timers due then are in its
 * level-0 bucket before it begins: a far timer costs one interrupt more.
 * A bigger bucket is handled by a pass at T * tick_ns as before, so the
 * walk under the lock is bounded. So is the number of interrupts: the
 * hrtimer is programmed at an exact deadline at most TW_EXACT_TRIES times
 * while the wheel's clock stays on one tick (it moves at most once a
 * tick), then at the tick's start, so a tick costs at most
 * TW_EXACT_TRIES + 1 interrupts however its timers are armed, spread
 * within it or pushed later and later (each push making the pass it
 * programmed find nothing due), as a tick-bound wheel costs one.
 *
 * Clocks: the bases know only CLOCK_MONOTONIC. Timers on CLOCK_REALTIME or
 * CLOCK_BOOTTIME (/dev/twheel, see dev_file.h "Clocks") are armed here at
 * their deadline converted with the clock's offset of the moment, and their
 * owner re-arms them when the clock is stepped or when one expires before
 * its own clock got there; nothing in the bases depends on it.
 *
 * Tickless: the hrtimer of a base is programmed only for the next tick at
 * which its wheel has work (tw_wheel_next()), and not at all while the wheel
 * is empty. An arm that makes the next tick earlier reprograms it: directly
 * on the owning CPU, through an IPI (base->csd) from another one.
 *
 * Expiry: the hrtimer callback (hard interrupt; a softirq thread on
 * PREEMPT_RT) advances the wheel to the current tick and moves the due
 * timers to the base's queues of expired timers (see "Fairness"), then
 * queues a runner (a work item)
 * on its CPU. A TWHEEL_TIMER_TICK timer is not handed to a runner: its
 * callback runs in the pass that expires it, under the base lock, and the
 * pass re-arms it if it is periodic.
 *
 * The tick hrtimer is never changed while it is queued: its expiry is its
 * key in the hrtimer base's timerqueue, and a key changed in place would
 * hold back every hrtimer behind it. On PREEMPT_RT the callback can take
 * interrupts and be preempted before it holds the base lock, and an arm
 * for an earlier tick meanwhile (the reprogram IPI, a local arm) starts the
 * hrtimer again; the callback then moves it with hrtimer_start() instead
 * of restarting it (tw_tick_rearm()). Only the callback restarts a tick
 * that is not queued.
 *
 * Runners: each base has TW_RUNNERS work items that take expired timers
 * one at a time and run their callbacks with the base lock dropped, and
 * re-arm periodic timers. One runs while the others wait; before it starts
 * a callback with more timers waiting, it makes sure another runner is
 * queued. The workqueue (per-CPU, concurrency managed) starts that one only
 * if the callback sleeps, so a sleeping callback delays only itself (and
 * the timers of its group, if not 0: see "Fairness"), up to
 * TW_RUNNERS sleeping at once, and callbacks that do not sleep run one
 * after the other as before (until the workqueue, since 6.5, counts a
 * runner that ran a while without sleeping as CPU intensive and starts the
 * queued one beside it). On PREEMPT_RT a callback may also block on a
 * spinlock_t, a sleeping lock there whose waits the workqueue does not see:
 * there the runners are CPU intensive (base_init.c), so a queued one
 * starts at once in a worker of its own, and a callback blocked on a lock
 * holds back only itself there too.
 *
 * Fairness: the expired timers of a base wait for a runner in
 * TW_FAIR_QUEUES FIFO queues (struct tw_fq), a timer in queue
 * group % TW_FAIR_QUEUES of its group (twheel_timer_set_group(), node.group;
 * /dev/twheel gives each user a group, in-kernel timers are group 0). The
 * queues with timers are on a round-robin list (@fq_active), and a runner
 * takes one timer from the queue at its head and moves that queue to its
 * tail, as a CPU scheduler shares a CPU between tasks (with a quantum of
 * one callback, not a time slice: the wait is bounded in callbacks). So a
 * timer that expires waits behind at most one callback of each other
 * group with expired timers on its CPU, whatever the number another group
 * made expire there: a user who expires thousands of timers per tick on a
 * CPU delays another user's timer by one of its callbacks, not by
 * thousands. Within a queue the order is FIFO, so a timer that keeps
 * expiring (a periodic one) cannot starve an older one of its group. All of
 * it is O(1) per timer: the queue is the group's low bits (no lookup, no
 * allocation under the raw lock), the appends and removals are hlist
 * operations with a tail pointer. Groups are small numbers (the device's
 * come from an IDA), so groups share a queue only when more than
 * TW_FAIR_QUEUES are in use on a CPU; those then share its turns.
 * The bound is on the order in which runners take timers. Where runners
 * run one after the other, callbacks start in that order; where they run
 * side by side (PREEMPT_RT, a runner counted CPU intensive; see "Runners"),
 * a runner that took a timer in its turn can lose the CPU (at a scheduler
 * tick, to a higher priority thread) before it calls it, and the others go
 * on with the flood meanwhile: that callback then waits for the scheduler
 * to give its runner the CPU back, a wait in time (its share among the
 * base's busy runners, a few scheduler slices) that does not grow with the
 * other group's backlog, but not in callbacks.
 *
 * A runner holds the queue of the timer whose callback it runs (struct
 * tw_fq.held) unless the timer's group is 0 (in-kernel timers, whose
 * sleeping callbacks keep running side by side): the queue leaves the
 * round-robin list for @fq_held and comes back, if it has timers, when the
 * callback returns. So at most one callback of a queue runs at a time, and
 * a group's blocked callback holds back that group alone. Without it a
 * user's callbacks blocked on its file lock (on PREEMPT_RT, where the task
 * of that user holding it can be preempted and cannot migrate) take every
 * runner of the CPU in turn, and another user's timer waits for them all.
 * A runner is kicked for more timers only when a queue on the list has
 * some; hotplug and unload take the held queues' timers too
 * (tw_fq_take_any()).
 *
 * Running timers stay put (timer_list's and hrtimer's invariant): while its
 * callback runs, a timer is in no wheel or list and its base does not
 * change. An arm, modify or periodic re-arm meanwhile is deferred
 * (struct tw_runner.deferred: state PENDING, deadline set, in no wheel) and
 * the runner enqueues it when the callback returns: on its base, on the CPU
 * an arm named (struct tw_runner.move_to), or, if the base went offline
 * meanwhile, on an online one. So a timer's callbacks never overlap, on any
 * CPU, and one that becomes due while its callback runs fires once that
 * returns (at most as late as the callback is long).

 * Bounded work: a pass of the tick cascades or expires at most
 * TW_PASS_BUDGET timers (tw_wheel_advance_budget()), so the time spent with
 * the base lock held and interrupts off is bounded by the budget times the
 * cost of one node (a cache miss or two, plus a TWHEEL_TIMER_TICK callback),
 * whatever the number of timers due: 1 000 000 timers due in one tick take
 * at least 15 625 passes, not one. The clock (tw_clock_ns()) is never read
 * under a base lock: a clocksource read may itself be slow (an emulated
 * HPET), and that time must not count as interrupts off. The tick, the
 * runners, a relative arm and a query read it before they take the lock;
 * under the lock only the coarse clock of the last timekeeping update is
 * read (tw_coarse_tick(), no clocksource access), to move an empty wheel's
 * clock forward, where a clock behind the time costs at most a cascade.
 *
 * If the budget runs out the base is marked behind, and the wheel goes on
 * two ways: a runner is queued to finish the tick's work at once, one pass
 * at a time with the lock dropped (and cond_resched()) in between, before
 * it runs the callbacks; and the tick comes back one tick later for
 * another pass, whatever the runners do. So the wheel keeps moving, one
 * pass per tick at least, also while every runner of the CPU sleeps in a
 * callback. Timers then fire late by that catch-up, never early. CPU
 * hotplug moves timers and unload drains them in chunks of the same size.
 *
 * Contexts: the tick (hard irq, or softirq on PREEMPT_RT, as its hrtimer
 * is not _HARD), the reprogram IPI (hard irq everywhere), arm/cancel
 * (process or softirq context and callbacks, never hard irq), the runners
 * and hotplug callbacks (process context). Every one takes only the raw
 * base lock, so the same code is correct on PREEMPT_RT; wake-ups of
 * twheel_timer_cancel_sync() waiters happen after the lock is dropped.
 *
 * CPU hotplug: a CPU going down stops taking new timers and hands its
 * pending timers and expired batch to an online CPU with unchanged deadlines
 * (twheel:online teardown); once it is dead, whatever is left moves too
 * (twheel:prepare teardown). A timer that has to leave its CPU (hotplug, a
 * re-arm for an offline CPU when its callback returns, an arm without a CPU
 * on one going down) goes to an online housekeeping CPU (tw_fallback_cpu():
 * not one isolated from kernel timers by nohz_full=, which /dev/twheel
 * refuses to unprivileged callers). None of them is running (see "Running timers
 * stay put"). A callback already running there finishes where it is, on
 * its runner (the workqueue runs it on another CPU once this one is down);
 * a re-arm it made then goes to an online CPU when it returns.
 *
 * Offline bases: nothing starts the tick hrtimer of an offline base
 * (__tw_reprogram() returns), so the hrtimer stays stopped once its CPU is
 * dead, and at unload once cancelled, while the runners finish: unload
 * marks every base offline, waits for reprogram IPIs in flight, cancels the
 * ticks, then drains the workqueue, and only then frees the bases.
 *
 * Batches: twheel_batch_on() arms, modifies or cancels the timers of one
 * base under one hold of its lock and programs its tick at most once, for
 * the earliest new deadline. The caller bounds the number of entries (the
 * lock is held with interrupts off). An entry whose timer sits on another
 * base ends the hold; twheel_batch_one() does it with both locks, like an
 * arm that moves a timer, so entries are done in order. A prep hook runs for
 * each timer while it is detached under its base lock: that is where the
 * /dev/twheel ring updates what a TWHEEL_TIMER_TICK callback reads.
 *
 * Cancel and wait: twheel_timer_cancel_sync() waits while the timer's callback
 * runs and disarms the timer once none runs, so it cancels at most one
 * arming. A running timer stays on its base, so it waits on that base only.
 *
 * Cost, per operation (what `make bench` times; Documentation/bench.rst):
 *
 *  - Arm (twheel_timer_arm_on(), twheel_timer_modify()) of a timer that
 *    stays on its base, the common case: one exported call doing the work
 *    (no forward through a batch entry), one lock with interrupts saved, an
 *    O(1) wheel insert (tw_wheel_add(), no division; into an empty wheel, a
 *    read of the coarse clock first), one comparison with next_tick
 *    (the hrtimer is reprogrammed only when the new tick is earlier, or
 *    is that tick, programmed at an exact deadline later than the new
 *    one: a load of the hrtimer's expiry and two more comparisons, made
 *    only for an arm into that tick),
 *    and no look at the runners while none of the base runs a callback
 *    (@nr_running). A timer that moves to another base, or an offline
 *    target, takes twheel_batch_one(): both locks.
 *  - A relative deadline adds one ktime_get_ns(), read before the lock. A
 *    cached clock would be cheaper and is not used: jiffies,
 *    ktime_get_coarse_ns() or the wheel's own clock lag the real time by
 *    up to a jiffy (more on a NOHZ CPU that did not tick), and a deadline
 *    computed from a time in the past fires early by that much;
 *    ktime_get_mono_fast_ns() may step back slightly around an update.
 *    "Never early" needs the real time, so a cheaper clock would need slack;
 *    none is offered.
 *  - Cancel (twheel_timer_cancel()): an idle timer returns without the lock
 *    (not a TWHEEL_TIMER_TICK one, whose callback runs under the lock after
 *    the timer went idle); otherwise one lock, an inline O(1) unlink, and the
 *    tick hrtimer is cancelled only when the wheel became empty.
 *  - Expiry, per timer: a cascade for each level above 0 it passes
 *    through (from level 1 without a level lookup); in the tick's pass a
 *    splice of its bucket into the batch, then one walk that sets its
 *    state, with each run of consecutive timers of one queue (the whole
 *    batch when only group 0's timers expire) spliced onto that queue's
 *    tail at once (tw_fq_splice(): the queue's link on the round-robin
 *    list if it was empty); in a runner the move of its queue to the tail
 *    of that list (none while the queue is alone there), one hold of the
 *    base lock (take the timer off its queue's head, mark it running, and
 *    after its callback clear that), no memory barrier (cancel_sync's
 *    waiters are counted under the lock), a look for another runner only
 *    once the one it queued before has stopped looking, a clock read and
 *    the callback counters (callbacks, lateness) per TW_CLOCK_BATCH
 *    callbacks (and after each periodic one; the counters per run of one
 *    lateness), and a prefetch of the next timer. Per pass of
 *    TW_PASS_BUDGET timers: one clock read, before the base lock is taken
 *    (so never with interrupts off on PREEMPT_RT, where the tick runs in a
 *    thread), and two local_clock() reads that time the pass for debugfs
 *    pass_max_us; a runner catching up also drops the lock between passes.
 */
#ifndef _TWHEEL_BASE_H
#define _TWHEEL_BASE_H

#include <linux/build_bug.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/twheel.h>

#include "driver.h"
#include "wheel.h"

/*
 * Timers a pass of the tick may cascade or expire (and so TWHEEL_TIMER_TICK
 * callbacks it may call) with the base lock held and interrupts off; the
 * rest of the tick's work goes to a runner of the base. See "Bounded work".
 */
#define TW_PASS_BUDGET		TWHEEL_LOCK_BUDGET

/*
 * Timers a tick's level-0 bucket may hold for the tick to fire at each of
 * their deadlines ("Exact buckets"): the bucket is walked with the base
 * lock held and interrupts off whenever the tick hrtimer is programmed.
 */
#define TW_EXACT_NODES		8
/*
 * Exact programmings of the tick hrtimer per tick of the wheel's clock: as
 * many as an exact bucket has timers, so that each can fire at its own
 * deadline, and what bounds the tick's interrupts (TW_EXACT_TRIES + 1).
 */
#define TW_EXACT_TRIES		TW_EXACT_NODES

/*
 * Callbacks a runner runs between two reads of the clock, at most (see
 * tw_work_fn()): the lateness it counts is short by at most the callbacks
 * before in the group, and cb_max_ns is the longest group.
 */
#define TW_CLOCK_BATCH		16

/* tw_node.flags */
/* TWHEEL_TIMER_TICK: the callback runs in the pass that expires it. */
#define TW_NODE_TICK		BIT(0)

/*
 * Runners per base: at most this many callbacks of one CPU's timers run (or
 * sleep) at once. See "Runners" above.
 */
#define TW_RUNNERS		4

/*
 * Queues of expired timers per base, served round robin (a power of 2: the
 * queue of a group is its low bits). See "Fairness" above.
 */
#define TW_FAIR_QUEUES		64

/**
 * struct tw_fq - the expired timers of one queue of a base, oldest first
 * @head:	the timers, by node.entry
 * @last:	the newest one's node.entry, NULL while @head is empty
 * @link:	on the base's @fq_active while @head is not empty and the
 *		queue is not @held; on its @fq_held while @held; else empty
 * @held:	a runner runs a callback of a timer of this queue whose group
 *		is not 0: no other runner takes one of its timers meanwhile
 *		(see "Fairness" in base.h)
 *
 * Under the base lock.
 */
struct tw_fq {
	struct hlist_head	head;
	struct hlist_node	*last;
	struct list_head	link;
	bool			held;
};

enum tw_runner_state {
	TW_RUNNER_IDLE,		/* not queued */
	TW_RUNNER_LOOKING,	/* queued, or looking for a timer to run */
	TW_RUNNER_BUSY,		/* running @running's callback */
};

struct twheel_base;

/**
 * struct tw_runner - a work item that runs the callbacks of a base
 * @work:	on the twheel workqueue, bound to the base's CPU
 * @base:	the base whose expired timers it runs
 * @running:	timer whose callback it runs, or NULL (a pointer only: a
 *		one-shot timer may be freed by its callback)
 * @held:	the queue of @running, held while its callback runs if its
 *		group is not 0 (struct tw_fq.held), else NULL
 * @touched:	@running was armed, modified or cancelled during its
 *		callback: the periodic re-arm is not done
 * @deferred:	@running was armed during its callback (or is periodic and
 *		re-armed after it): PENDING, @running->deadline set, in no
 *		wheel; enqueued when the callback returns
 * @move_to:	with @deferred: the CPU the deferred arming named, or -1 for
 *		@running's own base
 * @state:	enum tw_runner_state
 *
 * All but @work and @base under the base lock.
 */
struct tw_runner {
	struct work_struct	work;
	struct twheel_base	*base;
	struct twheel_timer	*running;
	struct tw_fq		*held;
	int			move_to;
	bool			touched;
	bool			deferred;
	u8			state;
};

/**
 * struct twheel_base - the timers of one CPU
 * @lock:	protects every field below except @cpu (constant), the
 *		runners' work items and @csd (which have their own
 *		synchronisation), and the twheel_timer fields (node, deadline,
 *		period, overruns, cpu, mode, state) of every timer in @wheel
 *		or a queue of @fq, or running on a runner.
 *		A raw spinlock: the remote-reprogram IPI takes it in hard
 *		interrupt context on every kernel, the tick hrtimer in hard
 *		interrupt context (softirq on PREEMPT_RT); so always with
 *		interrupts disabled, for bounded work (see "Bounded work").
 *		Lock order: a base lock nests inside a caller's locks (the
 *		/dev/twheel file lock) and outside the hrtimer base lock and
 *		the workqueue pool lock (both raw). No sleeping lock (a
 *		spinlock_t on PREEMPT_RT, the @waitq lock) is taken under it.
 *		Two base locks are only held together in ascending CPU order,
 *		the second with raw_spin_lock_nested().
 * @wheel:	the timing wheel
 * @next_tick:	tick the @tick hrtimer is programmed for (at its start,
 *		or at the earliest deadline of an exact bucket), TW_NO_TICK if
 *		it is not, 0 while the tick's pass runs (a stale value that
 *		is too large only causes a spurious reprogram; it is never
 *		smaller than the tick the hrtimer fires at)
 * @exact_clk:	the wheel clock at which @exact_tries were counted
 * @exact_tries: @tick programmed at an exact bucket's deadline while the
 *		wheel clock was @exact_clk (see "Exact buckets")
 * @fq_active:	the queues of @fq with timers, in the order the runners
 *		serve them: one timer from the first, which then goes last
 * @fq_held:	the queues of @fq a runner holds (struct tw_fq.held)
 * @nr_expired:	number of timers on @fq
 * @runner:	the work items that run callbacks, see struct tw_runner
 * @nr_running:	runners whose @running is set: while it is 0, the arm and
 *		cancel paths need not look for a runner of their timer
 * @behind:	a pass of the tick ran out of budget: a runner finishes the
 *		tick's work and then programs @tick; meanwhile @tick fires
 *		every tick for another pass (see "Bounded work")
 * @online:	the base accepts new timers (its CPU is online)
 * @cpu:	the CPU of this base
 * @wakeups:	tick hrtimer callbacks
 * @tick:	the tick hrtimer, pinned to @cpu
 * @waitq:	twheel_timer_cancel_sync() waits here for a runner's @running to
 *		change
 * @waiters:	twheel_timer_cancel_sync() callers sleeping on @waitq
 * @csd:	IPI asking @cpu to reprogram @tick
 * @csd_pending: @csd is queued and has not run yet (unload waits for it)
 * @fq:		timers expired by the tick, waiting for a runner, one FIFO
 *		queue per group's low bits (see "Fairness")
 */
struct twheel_base {
	raw_spinlock_t		lock;	/* see above */
	struct tw_wheel		wheel;
	u64			next_tick;
	u64			exact_clk;
	unsigned int		exact_tries;
	struct list_head	fq_active;
	struct list_head	fq_held;
	unsigned long		nr_expired;
	struct tw_runner	runner[TW_RUNNERS];
	unsigned int		nr_running;
	bool			behind;
	bool			online;
	int			cpu;
	u64			wakeups;
	struct hrtimer		tick;
	wait_queue_head_t	waitq;
	unsigned int		waiters;
	call_single_data_t	csd;
	bool			csd_pending;
	struct tw_fq		fq[TW_FAIR_QUEUES];
};

/* driver.h's geometry limits are the wheel's. */
static_assert(TWHEEL_BUCKET_BITS_MIN == TW_MIN_BITS);
static_assert(TWHEEL_BUCKET_BITS_MAX == TW_MAX_BITS);
static_assert(TWHEEL_LEVELS_MAX == TW_MAX_LEVELS);

#endif /* _TWHEEL_BASE_H */
