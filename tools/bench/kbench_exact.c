// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_bench exactness: how late each in-kernel timer fires against the
 * horizon it was armed for, every peer at every horizon in one concurrent
 * run, so the whole measurement costs about the longest horizon.
 *
 * For each of @k steps, spread over @spread_ms with random gaps (so that
 * the arms land at every phase of the tick), the bench thread arms one timer
 * of every peer at every horizon (10 ms, 100 ms, 1 s, 10 s, 60 s, up to
 * @hmax_ms), in an order that rotates with the step. Each timer records when
 * its callback ran; the bench waits for the last one.
 *
 * Each arm is read against the peer's own clock:
 *
 *	twheel, hrtimer, hrtimer_work
 *			CLOCK_MONOTONIC ns: deadline = ktime_get_ns() read
 *			just before the arm + horizon, armed absolute
 *			(TWHEEL_ABS, HRTIMER_MODE_ABS_PINNED), so the deadline
 *			is exactly what the peer was given; lateness = the
 *			ktime_get_ns() that the callback reads first - deadline.
 *	timer_list,	jiffies: armed as callers do, expires = jiffies +
 *	delayed_work	usecs_to_jiffies(horizon) (rounded up), read back from
 *			the timer after the arm. Its own deadline is the tick
 *			at which jiffies reaches expires; converted to ns on
 *			the tick's grid, T(j) = T(j0) + (j - j0) * TICK_NSEC,
 *			with T(j0) measured before the run as the earliest
 *			moment a jiffies change was seen. "late_ns" is
 *			lateness against that; "req_ns" is lateness against
 *			what the caller asked for (arm instant + horizon), which
 *			can be negative by up to one tick because the jiffy in
 *			progress at the arm counts as a whole one.
 *			"early_own" counts callbacks that saw jiffies <
 *			expires (never, by the API's promise).
 *
 * The delayed_work and hrtimer_work callbacks are work functions, on the
 * bench's per-CPU WQ_HIGHPRI workqueue, as twheel's callbacks run in its
 * workqueue. All timers are pinned to the bench CPU.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/timer.h>
#include <linux/twheel.h>
#include <linux/workqueue.h>

#include "../../twheel/compat.h"
#include "kbench.h"

static const unsigned int kx_horizons_ms[] = { 10, 100, 1000, 10000, 60000 };

#define KX_NR_H		ARRAY_SIZE(kx_horizons_ms)

/*
 * The peers: kbench.c's four, and hrtimer_work, an hrtimer whose callback
 * queues a work item on the delayed_work peer's workqueue: the earliest a
 * callback that runs in a worker, as twheel's do, can start after an exact
 * deadline (the control of twheel's dispatch).
 */
enum kx_impl {
	KX_TWHEEL, KX_TIMER_LIST, KX_HRTIMER, KX_DELAYED_WORK, KX_HRTIMER_WORK,
	KX_NR_I,
};

static const char * const kx_names[KX_NR_I] = {
	[KX_TWHEEL]		= "twheel",
	[KX_TIMER_LIST]		= "timer_list",
	[KX_HRTIMER]		= "hrtimer",
	[KX_DELAYED_WORK]	= "delayed_work",
	[KX_HRTIMER_WORK]	= "hrtimer_work",
};

struct kx_timer {
	union {
		struct twheel_timer	tw;
		struct timer_list	tl;
		struct hrtimer		hr;
		struct delayed_work	dw;
		struct {
			struct hrtimer		hrw;
			struct work_struct	work;
		};
	};
	u64		arm_ns;		/* ktime_get_ns() before the arm */
	u64		due_ns;		/* deadline on the peer's own clock */
	u64		fire_ns;	/* first clock read of the callback */
	unsigned long	expires;	/* jiffies peers: the timer's expires */
	unsigned long	fire_j;		/* jiffies peers: jiffies then */
	u8		ii;		/* enum kx_impl */
	u8		hi;		/* index in kx_horizons_ms */
};

static struct kx_timer *kx_t;
static struct workqueue_struct *kx_wq;
static unsigned long kx_n;		/* timers in kx_t */
static unsigned int kx_k, kx_nr_h;
static u64 kx_grid_ns;			/* T(kx_grid_j) */
static unsigned long kx_grid_j;
static atomic_long_t kx_left;
static DECLARE_COMPLETION(kx_done);

static void kx_fired(struct kx_timer *t)
{
	t->fire_ns = ktime_get_ns();
	t->fire_j = jiffies;
	if (atomic_long_dec_and_test(&kx_left))
		complete(&kx_done);
}

static void kx_tw_fn(struct twheel_timer *timer)
{
	kx_fired(container_of(timer, struct kx_timer, tw));
}

static void kx_tl_fn(struct timer_list *timer)
{
	kx_fired(container_of(timer, struct kx_timer, tl));
}

static enum hrtimer_restart kx_hr_fn(struct hrtimer *timer)
{
	kx_fired(container_of(timer, struct kx_timer, hr));
	return HRTIMER_NORESTART;
}

static void kx_dw_fn(struct work_struct *work)
{
	kx_fired(container_of(to_delayed_work(work), struct kx_timer, dw));
}

static enum hrtimer_restart kx_hrw_fn(struct hrtimer *timer)
{
	struct kx_timer *t = container_of(timer, struct kx_timer, hrw);

	queue_work_on(smp_processor_id(), kx_wq, &t->work);
	return HRTIMER_NORESTART;
}

static void kx_work_fn(struct work_struct *work)
{
	kx_fired(container_of(work, struct kx_timer, work));
}

/*
 * The tick's grid: the earliest moment, over a few jiffies changes, at which
 * jiffies was seen to change, projected back to one jiffy.
 */
static void kx_calibrate_grid(void)
{
	unsigned long j0 = jiffies, j;
	u64 t, best = U64_MAX;
	int seen = 0;

	while (seen < 8) {
		j = READ_ONCE(jiffies);
		t = ktime_get_ns();
		if (j == j0)
			continue;
		if (seen++ == 0) {
			kx_grid_j = j;
		} else {
			t -= (u64)(j - kx_grid_j) * TICK_NSEC;
			best = min(best, t);
		}
		j0 = j;
		cond_resched();
	}
	kx_grid_ns = best;
}

static u64 kx_jiffy_ns(unsigned long j)
{
	return kx_grid_ns + (s64)(long)(j - kx_grid_j) * (s64)TICK_NSEC;
}

static void kx_arm(struct kx_timer *t, int cpu)
{
	u64 h = (u64)kx_horizons_ms[t->hi] * NSEC_PER_MSEC;
	unsigned long dj = usecs_to_jiffies(kx_horizons_ms[t->hi] * 1000U);

	t->arm_ns = ktime_get_ns();
	switch (t->ii) {
	case KX_TWHEEL:
		t->due_ns = t->arm_ns + h;
		twheel_timer_arm(&t->tw, t->due_ns, TWHEEL_ABS);
		break;
	case KX_HRTIMER:
		t->due_ns = t->arm_ns + h;
		hrtimer_start(&t->hr, ns_to_ktime(t->due_ns),
			      HRTIMER_MODE_ABS_PINNED);
		break;
	case KX_HRTIMER_WORK:
		t->due_ns = t->arm_ns + h;
		hrtimer_start(&t->hrw, ns_to_ktime(t->due_ns),
			      HRTIMER_MODE_ABS_PINNED);
		break;
	case KX_TIMER_LIST:
		mod_timer(&t->tl, jiffies + dj);
		t->expires = READ_ONCE(t->tl.expires);
		t->due_ns = kx_jiffy_ns(t->expires);
		break;
	case KX_DELAYED_WORK:
		mod_delayed_work_on(cpu, kx_wq, &t->dw, dj);
		t->expires = READ_ONCE(t->dw.timer.expires);
		t->due_ns = kx_jiffy_ns(t->expires);
		break;
	default:
		break;
	}
}

static void kx_init_timer(struct kx_timer *t)
{
	switch (t->ii) {
	case KX_TWHEEL:
		twheel_timer_init(&t->tw, kx_tw_fn);
		break;
	case KX_TIMER_LIST:
		timer_setup(&t->tl, kx_tl_fn, TIMER_PINNED);
		break;
	case KX_HRTIMER:
		twheel_hrtimer_setup(&t->hr, kx_hr_fn, CLOCK_MONOTONIC,
				     HRTIMER_MODE_ABS_PINNED);
		break;
	case KX_DELAYED_WORK:
		INIT_DELAYED_WORK(&t->dw, kx_dw_fn);
		break;
	case KX_HRTIMER_WORK:
		twheel_hrtimer_setup(&t->hrw, kx_hrw_fn, CLOCK_MONOTONIC,
				     HRTIMER_MODE_ABS_PINNED);
		INIT_WORK(&t->work, kx_work_fn);
		break;
	default:
		break;
	}
}

static void kx_cancel_sync(struct kx_timer *t)
{
	switch (t->ii) {
	case KX_TWHEEL:
		twheel_timer_cancel_sync(&t->tw);
		break;
	case KX_TIMER_LIST:
		timer_delete_sync(&t->tl);
		break;
	case KX_HRTIMER:
		hrtimer_cancel(&t->hr);
		break;
	case KX_DELAYED_WORK:
		cancel_delayed_work_sync(&t->dw);
		break;
	case KX_HRTIMER_WORK:
		hrtimer_cancel(&t->hrw);
		cancel_work_sync(&t->work);
		break;
	default:
		break;
	}
}

static void kx_free(void)
{
	unsigned long i;

	if (!kx_t)
		return;
	for (i = 0; i < kx_n; i++) {
		kx_cancel_sync(&kx_t[i]);
		if (!(i & 1023))
			cond_resched();
	}
	kvfree(kx_t);
	kx_t = NULL;
	kx_n = 0;
}

/**
 * kb_exact() - arm every peer at every horizon, concurrently, and wait
 * @k:		timers per peer and horizon
 * @seed:	seed of the gaps between steps
 * @hmax_ms:	longest horizon (horizons of kx_horizons_ms[] up to it)
 * @spread_ms:	the steps are spread over this long
 * @wq:		workqueue of the delayed_work and hrtimer_work peers
 *		(per-CPU, WQ_HIGHPRI)
 *
 * Context: process context, bound to the measured CPU; sleeps for about
 * @spread_ms + @hmax_ms.
 * Return: 0, -EINVAL, -ENOMEM or -ETIMEDOUT.
 */
int kb_exact(unsigned int k, u32 seed, unsigned int hmax_ms,
	     unsigned int spread_ms, struct workqueue_struct *wq)
{
	unsigned int nr_h = 0, step, r, x, gap_us;
	int cpu = raw_smp_processor_id();
	struct rnd_state rnd;
	unsigned long i, n;
	u64 t0, limit;

	while (nr_h < KX_NR_H && kx_horizons_ms[nr_h] <= hmax_ms)
		nr_h++;
	if (!k || !nr_h || k > 100000 || spread_ms > 60000)
		return -EINVAL;
	kx_free();
	kx_wq = wq;
	n = (unsigned long)k * nr_h * KX_NR_I;
	kx_t = kvcalloc(n, sizeof(*kx_t), GFP_KERNEL);
	if (!kx_t)
		return -ENOMEM;
	kx_n = n;
	kx_k = k;
	kx_nr_h = nr_h;
	/* timer s * nr_h * KX_NR_I + h * KX_NR_I + i */
	for (i = 0; i < n; i++) {
		kx_t[i].ii = i % KX_NR_I;
		kx_t[i].hi = (i / KX_NR_I) % nr_h;
		kx_init_timer(&kx_t[i]);
	}
	prandom_seed_state(&rnd, seed);
	atomic_long_set(&kx_left, n);
	reinit_completion(&kx_done);
	kx_calibrate_grid();

	gap_us = div_u64((u64)spread_ms * USEC_PER_MSEC, k);
	for (step = 0; step < k; step++) {
		struct kx_timer *s = &kx_t[(unsigned long)step * nr_h * KX_NR_I];

		for (x = 0; x < nr_h * KX_NR_I; x++) {
			r = (x + step) % (nr_h * KX_NR_I);
			kx_arm(&s[r], cpu);
		}
		/* a random gap, mean gap_us: arms at every phase of a tick */
		if (gap_us) {
			r = prandom_u32_state(&rnd) % (2 * gap_us);
			usleep_range(r, r + 1);
		} else {
			cond_resched();
		}
	}

	t0 = ktime_get_ns();
	limit = (u64)hmax_ms * NSEC_PER_MSEC + 120 * NSEC_PER_SEC;
	while (!wait_for_completion_timeout(&kx_done, HZ))
		if (ktime_get_ns() - t0 > limit)
			return -ETIMEDOUT;
	return 0;
}

/* Timer of step @s, horizon @hi, peer @ii. */
static struct kx_timer *kx_at(unsigned int s, unsigned int hi, unsigned int ii)
{
	return &kx_t[((unsigned long)s * kx_nr_h + hi) * KX_NR_I + ii];
}

/* debugfs "exact": one line per peer and horizon, raw lateness in ns. */
int kb_exact_show(struct seq_file *m, void *v)
{
	unsigned int ii, hi, s;

	if (!kx_t || atomic_long_read(&kx_left))
		return 0;
	for (ii = 0; ii < KX_NR_I; ii++) {
		bool jif = ii == KX_TIMER_LIST || ii == KX_DELAYED_WORK;

		for (hi = 0; hi < kx_nr_h; hi++) {
			unsigned long early_own = 0;

			seq_printf(m, "RESULT exact tier=kernel impl=%s h_ms=%u n=%u clock=%s late_ns=",
				   kx_names[ii],
				   kx_horizons_ms[hi], kx_k,
				   jif ? "jiffies" : "monotonic");
			for (s = 0; s < kx_k; s++) {
				struct kx_timer *t = kx_at(s, hi, ii);

				seq_printf(m, "%s%lld", s ? "," : "",
					   (s64)(t->fire_ns - t->due_ns));
				if (jif && time_before(t->fire_j, t->expires))
					early_own++;
			}
			if (jif) {
				seq_puts(m, " req_ns=");
				for (s = 0; s < kx_k; s++) {
					struct kx_timer *t = kx_at(s, hi, ii);

					seq_printf(m, "%s%lld", s ? "," : "",
						   (s64)(t->fire_ns - t->arm_ns -
							 (u64)kx_horizons_ms[hi] *
							 NSEC_PER_MSEC));
				}
				seq_printf(m, " early_own=%lu", early_own);
			}
			seq_printf(m, " tick_ns=%llu jiffy_ns=%lu\n",
				   twheel_tick_ns(), (unsigned long)TICK_NSEC);
		}
	}
	return 0;
}

/**
 * kb_exact_exit() - cancel and free the timers of the last exactness run
 */
void kb_exact_exit(void)
{
	kx_free();
}
