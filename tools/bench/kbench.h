/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_bench: in-kernel benchmark of twheel against timer_list, hrtimer
 * and the two ways the kernel runs a timer's callback in a workqueue:
 * delayed_work, and a timer_list whose callback queues a work item.
 *
 * kbench_run.c holds the measurement (one population size per run, of one
 * implementation or of all of them interleaved); kbench.c the debugfs
 * control file and the bound kthread that runs it. The method is described
 * in Documentation/bench.rst.
 */
#ifndef _TWHEEL_KBENCH_H
#define _TWHEEL_KBENCH_H

#include <linux/types.h>

enum kb_impl {
	KB_TWHEEL,
	KB_TIMER_LIST,
	KB_HRTIMER,
	KB_DELAYED_WORK,	/* mod_delayed_work_on(), per-CPU workqueue */
	KB_TIMER_LIST_WORK,	/* timer_list + queue_work_on(), same wq */
	KB_NR_IMPLS,
};

/* Network-timeout pattern: at most this many operations per run. */
#define KB_PATTERN_MAX		100000UL
/* ... with this many connections in flight (cancel lag in operations). */
#define KB_PATTERN_WINDOW	64UL
/* ... and this share of timers cancelled before they expire, in percent. */
#define KB_PATTERN_CANCEL_PCT	95

/**
 * struct kb_result - outcome of one run; per-operation costs in 1/100 ns
 * @impl:	implementation measured
 * @n:		pending timers (population)
 * @seed:	seed of the deadline generator (same seed, same deadlines)
 * @arm_cns:	arm of one timer with a random 1 ms..1 h deadline
 * @cancel_cns:	cancel of one pending timer
 * @pattern_cns: one arm plus a 95 % chance of a cancel, on top of @n pending
 * @pattern_ops: operations in the pattern phase
 * @expire_cns:	expiry of one timer: CPU busy time from the end of arming to
 *		the last callback of one batch, / @n (for the workqueue peers
 *		up to the start of the last work function, as twheel's)
 * @batch_cns:	expiry of one timer: first to last callback, / (@n - 1)
 * @rest_cns:	expiry of one timer: the busy time of @expire_cns outside
 *		the first to last callback span (before the first callback,
 *		and from the last one's start to the bench thread's wake-up),
 *		/ @n; negative if the CPU idled in the span. Computed per
 *		round, so that its median is one round's
 * @fire_delay_ns: first callback of the batch minus its nominal deadline
 * @late_arm:	the batch was still being armed at its deadline
 * @arm_abs_cns: twheel only: arm with an absolute deadline (TWHEEL_ABS, so
 *		no clock read), same deadlines as @arm_cns
 * @clock_cns:	one ktime_get_ns() in the same run, what a relative arm of
 *		twheel or hrtimer pays on top
 * @rounds:	rounds of arm and cancel whose median round is reported
 * @expire_rounds: the same for the expiry figures
 */
struct kb_result {
	enum kb_impl	impl;
	unsigned long	n;
	u32		seed;
	u64		arm_cns;
	u64		cancel_cns;
	u64		pattern_cns;
	unsigned long	pattern_ops;
	u64		expire_cns;
	u64		batch_cns;
	s64		rest_cns;
	s64		fire_delay_ns;
	bool		late_arm;
	u64		arm_abs_cns;
	u64		clock_cns;
	unsigned int	rounds;
	unsigned int	expire_rounds;
};

extern const char * const kb_impl_names[KB_NR_IMPLS];

int kb_run_init(void);
void kb_run_exit(void);
int kb_run(struct kb_result *res, unsigned int nr);
int kb_scale_arm(unsigned long n, u32 seed, struct kb_result *res);
void kb_scale_release(struct kb_result *res);
size_t kb_timer_size(enum kb_impl impl);
u64 kb_busy_us(int cpu);
struct workqueue_struct *kb_workqueue(void);

struct seq_file;
int kb_exact(unsigned int k, u32 seed, unsigned int hmax_ms,
	     unsigned int spread_ms, struct workqueue_struct *wq);
int kb_exact_show(struct seq_file *m, void *v);
void kb_exact_exit(void);

#endif /* _TWHEEL_KBENCH_H */
