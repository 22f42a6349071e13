/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel - in-kernel API of the per-CPU hierarchical timing wheel.
 *
 * A struct twheel_timer is embedded by the user, set up once with
 * twheel_timer_init() (or twheel_timer_setup()) and then armed, modified,
 * queried and cancelled any number of times. Deadlines are nanoseconds on
 * CLOCK_MONOTONIC (ktime_get()), relative to now or absolute (TWHEEL_ABS). A
 * timer fires in the wheel tick of its deadline: never early, at most one tick
 * (module parameter tick_us) late, plus scheduling latency of the workqueue
 * that runs the callback.
 *
 * Callbacks run in process context, in a runner (a work item of the per-CPU
 * twheel workqueue; up to four of a CPU run or sleep at once, so a callback
 * that sleeps holds back only itself) on the CPU the timer was armed on,
 * without any twheel lock held: they may sleep, and may arm, modify or
 * cancel any timer, including their own. They must not call
 * twheel_timer_cancel_sync() (lockdep reports it); use twheel_timer_cancel()
 * there. Callbacks of one timer never overlap, on any CPU: a timer stays on its
 * CPU while its callback runs, and an arming made meanwhile (even one naming
 * another CPU, or after the CPU went down) takes effect when the callback
 * returns, so twheel_timer_cancel_sync() waits on one CPU. A timer set up with
 * TWHEEL_TIMER_TICK is the exception: its callback runs in the tick's pass,
 * under the CPU's base lock, and is held to the rules given at
 * twheel_timer_setup().
 *
 * Fairness: a CPU's expired timers wait for a runner in one queue per
 * group (twheel_timer_set_group(); group 0 unless set), and the runners serve
 * the queues round robin, one callback per turn. A timer thus waits behind
 * at most one callback of each other group with expired timers on its CPU,
 * however many timers another group made expire there: /dev/twheel puts
 * each user's timers in a group of their own.
 *
 * Periodic timers come in two modes: fixed rate (deadline n = first deadline
 * + n * period; periods that passed while the system or the callback was late
 * are counted in overruns and never replayed as a burst) and fixed delay
 * (the next deadline is the moment the callback returned + period).
 *
 * Other clocks: a struct twheel_clock_timer (twheel_clock_timer_setup()) is
 * a timer on CLOCK_MONOTONIC, CLOCK_BOOTTIME or (absolute deadlines)
 * CLOCK_REALTIME that follows its clock: it counts suspend (BOOTTIME) and
 * follows clock_settime() and other steps (REALTIME), never firing early on
 * its own clock; design at the head of twheel/clock/api_clock.c.
 *
 * Memory: sizeof(struct twheel_timer) is 64 bytes on 64-bit (asserted at build
 * time). The memory of a timer must stay valid until twheel_timer_cancel_sync()
 * has returned, or until a one-shot timer's callback has started (a one-shot
 * callback may free its own timer; a periodic callback may do so only after
 * twheel_timer_cancel() of that timer).
 */
#ifndef _LINUX_TWHEEL_H
#define _LINUX_TWHEEL_H

#include <linux/bits.h>
#include <linux/types.h>
#include <linux/list.h>

/**
 * struct tw_node - a timer's link in one wheel (private to twheel)
 * @entry:	link in a bucket, the overflow list or the expired list
 * @expires:	absolute deadline in wheel ticks
 * @bucket:	bucket index, or one of the TW_BUCKET_* markers
 * @cascades:	times this node moved down a level since it was armed
 * @flags:	TW_NODE_* state bits owned by the per-CPU driver
 * @group:	the timer's fairness group, see twheel_timer_set_group()
 *
 * 32 bytes on 64-bit: @group fills what was padding.
 */
struct tw_node {
	struct hlist_node	entry;
	u64			expires;
	u16			bucket;
	u8			cascades;
	u8			flags;
	u32			group;
};

struct twheel_timer;
typedef void (*twheel_func_t)(struct twheel_timer *timer);

/**
 * struct twheel_timer - a twheel timer (fields are private to twheel)
 * @node:	link in the per-CPU wheel
 * @func:	callback, run in process context
 * @deadline:	current nominal deadline, CLOCK_MONOTONIC ns
 * @period:	period in ns, 0 for a one-shot timer
 * @overruns:	periods skipped since the timer was armed (saturates)
 * @cpu:	CPU whose wheel holds (or last held) the timer
 * @mode:	enum twheel_mode
 * @state:	enum twheel_state (see twheel_timer_query())
 *
 * 64 bytes on 64-bit architectures: a tw_node (32), the callback, deadline
 * and period (24), overruns (4), cpu, mode and state (4).
 */
struct twheel_timer {
	struct tw_node		node;
	twheel_func_t		func;
	u64			deadline;
	u64			period;
	u32			overruns;
	u16			cpu;
	u8			mode;
	u8			state;
};

/* twheel_timer_setup() flags. */
#define TWHEEL_TIMER_TICK	BIT(0)		/* callback runs in the tick */

/*
 * The most items twheel handles per hold of one of its locks; the rest of
 * the work goes on after the lock was dropped (and, for the tick, in a
 * worker). A pass of the tick cascades or expires at most this many timers
 * with the base lock held and interrupts off, so at most this many
 * TWHEEL_TIMER_TICK callbacks run in one pass. The clock-bound timers and
 * /dev/twheel hold their locks as briefly: timers re-armed by a clock step,
 * events copied by read(), submission entries and ring records moved.
 */
#define TWHEEL_LOCK_BUDGET	64

/* Arm and modify flags. */
#define TWHEEL_ABS		BIT(0)		/* deadline is absolute */
#define TWHEEL_FIXED_DELAY	BIT(1)		/* periodic: fixed delay */
#define TWHEEL_FLAGS_ALL	(TWHEEL_ABS | TWHEEL_FIXED_DELAY)

/* Let twheel pick the CPU: the local one. */
#define TWHEEL_CPU_ANY		(-1)

/*
 * A timer's mode, as twheel_timer_query() reports it: set by the arm, from its
 * period and the flag TWHEEL_FIXED_DELAY.
 */
enum twheel_mode {
	TWHEEL_MODE_ONESHOT		= 0,
	TWHEEL_MODE_FIXED_RATE		= 1,
	TWHEEL_MODE_FIXED_DELAY		= 2,
};

/*
 * Where a timer is, as twheel_timer_query() reports it. Not the TWHEEL_STATE_*
 * bits of the uapi (armed, event queued), which describe a /dev/twheel
 * timer and are made from this state and the file's own queue.
 */
enum twheel_state {
	TWHEEL_IDLE		= 0,	/* not armed, or fired (one-shot) */
	TWHEEL_PENDING		= 1,	/* in a wheel */
	TWHEEL_EXPIRED		= 2,	/* on the expired list, for a runner */
	TWHEEL_RUNNING		= 3,	/* callback running (periodic) */
};

/**
 * struct twheel_timer_info - snapshot returned by twheel_timer_query()
 * @state:	enum twheel_state
 * @cpu:	CPU of the wheel holding the timer; for an arming made while
 *		the timer's callback runs, the CPU it goes to when the
 *		callback returns (the one it named, or an online one if that
 *		one went down)
 * @mode:	enum twheel_mode
 * @deadline:	next nominal deadline, CLOCK_MONOTONIC ns (0 if idle)
 * @remaining:	ns until @deadline, 0 if due or idle
 * @period:	period in ns, 0 for one-shot
 * @overruns:	periods skipped so far
 */
struct twheel_timer_info {
	u32	state;
	u32	cpu;
	u32	mode;
	u32	overruns;
	u64	deadline;
	u64	remaining;
	u64	period;
};

/**
 * struct twheel_cbound - a timer kept on its own clock (fields private)
 * @timer:	the CLOCK_MONOTONIC timer in the wheel, armed one-shot at
 *		@deadline's conversion
 * @link:	on its owner's list of armed timers of its clock
 * @deadline:	the deadline on its own clock, ns (host time)
 *
 * The clock-bound timer core that struct twheel_clock_timer and the
 * /dev/twheel timers embed; design at the head of
 * twheel/clock/clock_timer.c.
 */
struct twheel_cbound {
	struct twheel_timer	timer;
	struct list_head	link;
	u64			deadline;
};

struct twheel_clock_timer;
typedef void (*twheel_clock_func_t)(struct twheel_clock_timer *ct);

/**
 * struct twheel_clock_timer - a timer on a chosen clock (fields private)
 * @cb:		the CLOCK_MONOTONIC timer in the wheel (@cb.timer) and,
 *		clock-bound, its deadline on @clockid and its link on the
 *		module's list of armed timers of @clockid (api_clock.c)
 * @func:	callback, run in process context as a twheel_timer's
 * @period:	clock-bound: the period in ns, 0 for one-shot
 * @overruns:	clock-bound: periods skipped since the timer was armed
 * @clockid:	CLOCK_MONOTONIC, CLOCK_BOOTTIME or CLOCK_REALTIME
 * @armed:	clock-bound: armed, callback not yet started (one-shot)
 *
 * The design is at the head of twheel/clock/api_clock.c. A CLOCK_MONOTONIC
 * one is a plain struct twheel_timer with a wrapped callback.
 */
struct twheel_clock_timer {
	struct twheel_cbound	cb;
	twheel_clock_func_t	func;
	u64			period;
	u32			overruns;
	s32			clockid;
	bool			armed;
};

void twheel_timer_setup(struct twheel_timer *timer, twheel_func_t func,
			unsigned int flags);
void twheel_timer_set_group(struct twheel_timer *timer, u32 group);
int twheel_timer_arm_on(struct twheel_timer *timer, u64 expires, u64 period,
			unsigned int flags, int cpu);
int twheel_timer_modify(struct twheel_timer *timer, u64 expires, u64 period,
			unsigned int flags);
int twheel_timer_cancel(struct twheel_timer *timer);
int twheel_timer_cancel_sync(struct twheel_timer *timer);
int twheel_timer_query(struct twheel_timer *timer,
		       struct twheel_timer_info *info);
u64 twheel_tick_ns(void);
int twheel_clock_timer_setup(struct twheel_clock_timer *ct, clockid_t clockid,
			     twheel_clock_func_t func);
int twheel_clock_arm_on(struct twheel_clock_timer *ct, u64 expires,
			u64 period, unsigned int flags, int cpu);
int twheel_clock_modify(struct twheel_clock_timer *ct, u64 expires,
			u64 period, unsigned int flags);
int twheel_clock_cancel(struct twheel_clock_timer *ct);
int twheel_clock_cancel_sync(struct twheel_clock_timer *ct);
int twheel_clock_query(struct twheel_clock_timer *ct,
		       struct twheel_timer_info *info);

/**
 * twheel_timer_init() - set up a timer whose callback runs in process context
 * @timer:	the timer
 * @func:	callback, run in the twheel workqueue when the timer expires
 *
 * twheel_timer_setup() without flags.
 *
 * Context: any.
 */
static inline void twheel_timer_init(struct twheel_timer *timer,
				     twheel_func_t func)
{
	twheel_timer_setup(timer, func, 0);
}

/**
 * twheel_timer_arm() - arm a one-shot timer on the local CPU
 * @timer:	timer set up with twheel_timer_init()
 * @expires:	deadline in ns, relative to now or absolute (TWHEEL_ABS)
 * @flags:	0 or TWHEEL_ABS
 *
 * Context: any context but hard interrupt; does not sleep.
 * Return: 1 if the timer was pending and was re-armed, 0 if it was idle,
 * -EINVAL for bad flags.
 */
static inline int twheel_timer_arm(struct twheel_timer *timer, u64 expires,
				   unsigned int flags)
{
	return twheel_timer_arm_on(timer, expires, 0, flags, TWHEEL_CPU_ANY);
}

/**
 * twheel_timer_arm_periodic() - arm a periodic timer on the local CPU
 * @timer:	timer set up with twheel_timer_init()
 * @expires:	first deadline in ns, relative or absolute (TWHEEL_ABS)
 * @period:	period in ns, not 0
 * @flags:	TWHEEL_ABS, TWHEEL_FIXED_DELAY (default: fixed rate)
 *
 * Context: any context but hard interrupt; does not sleep.
 * Return: as twheel_timer_arm_on().
 */
static inline int twheel_timer_arm_periodic(struct twheel_timer *timer,
					    u64 expires, u64 period,
					    unsigned int flags)
{
	return twheel_timer_arm_on(timer, expires, period, flags,
				   TWHEEL_CPU_ANY);
}

/**
 * twheel_timer_pending() - is the timer armed or waiting for its callback?
 * @timer:	the timer
 *
 * A lockless hint, like timer_pending(): the answer may be stale as soon as
 * it is returned unless the caller serialises against arm and expiry.
 *
 * Return: true if the timer is in a wheel or on the expired list.
 */
static inline bool twheel_timer_pending(const struct twheel_timer *timer)
{
	u8 state = READ_ONCE(timer->state);

	return state == TWHEEL_PENDING || state == TWHEEL_EXPIRED;
}

#endif /* _LINUX_TWHEEL_H */
