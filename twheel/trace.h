/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel tracepoints (trace system "twheel"): arm, cancel, expire, cascade.
 * Timers are identified by their address, printed hashed (%p). Instantiated
 * in stats.c (CREATE_TRACE_POINTS).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM twheel

#if !defined(_TWHEEL_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TWHEEL_TRACE_H

#include <linux/tracepoint.h>
#include <linux/twheel.h>

/* A timer was armed, or re-armed after its periodic callback. */
TRACE_EVENT(twheel_arm,
	    TP_PROTO(const struct twheel_timer *timer, int cpu, u64 deadline,
		     u64 period),
	    TP_ARGS(timer, cpu, deadline, period),
	    TP_STRUCT__entry(__field(const void *, timer)
			     __field(int, cpu)
			     __field(u64, deadline)
			     __field(u64, period)),
	    TP_fast_assign(__entry->timer = timer;
			   __entry->cpu = cpu;
			   __entry->deadline = deadline;
			   __entry->period = period;),
	    TP_printk("timer=%p cpu=%d deadline=%llu period=%llu",
		      __entry->timer, __entry->cpu,
		      (unsigned long long)__entry->deadline,
		      (unsigned long long)__entry->period)
);

/* A timer was cancelled; was_pending: it was in a wheel or a batch. */
TRACE_EVENT(twheel_cancel,
	    TP_PROTO(const struct twheel_timer *timer, int was_pending),
	    TP_ARGS(timer, was_pending),
	    TP_STRUCT__entry(__field(const void *, timer)
			     __field(int, was_pending)),
	    TP_fast_assign(__entry->timer = timer;
			   __entry->was_pending = was_pending;),
	    TP_printk("timer=%p was_pending=%d", __entry->timer,
		      __entry->was_pending)
);

/* A timer's callback is about to run; now and deadline in CLOCK_MONOTONIC. */
TRACE_EVENT(twheel_expire,
	    TP_PROTO(const struct twheel_timer *timer, int cpu, u64 deadline,
		     u64 now),
	    TP_ARGS(timer, cpu, deadline, now),
	    TP_STRUCT__entry(__field(const void *, timer)
			     __field(int, cpu)
			     __field(u64, deadline)
			     __field(u64, now)),
	    TP_fast_assign(__entry->timer = timer;
			   __entry->cpu = cpu;
			   __entry->deadline = deadline;
			   __entry->now = now;),
	    TP_printk("timer=%p cpu=%d deadline=%llu now=%llu late=%lld",
		      __entry->timer, __entry->cpu,
		      (unsigned long long)__entry->deadline,
		      (unsigned long long)__entry->now,
		      (long long)(__entry->now - __entry->deadline))
);

/* A tick moved count timers down the levels; clk is the clock after it. */
TRACE_EVENT(twheel_cascade,
	    TP_PROTO(int cpu, u64 clk, unsigned long count),
	    TP_ARGS(cpu, clk, count),
	    TP_STRUCT__entry(__field(int, cpu)
			     __field(u64, clk)
			     __field(unsigned long, count)),
	    TP_fast_assign(__entry->cpu = cpu;
			   __entry->clk = clk;
			   __entry->count = count;),
	    TP_printk("cpu=%d clk=%llu count=%lu", __entry->cpu,
		      (unsigned long long)__entry->clk, __entry->count)
);

#endif /* _TWHEEL_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
