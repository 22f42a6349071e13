// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_bench measurement: arm, network-timeout pattern, cancel and expiry
 * of N timers of each implementation asked for, interleaved round by round
 * (kb_run()), on the CPU of the calling thread.
 *
 * Every implementation gets the same work: the same pseudo-random deadlines
 * (seeded), the same loop shape, the same callback. Timers are pinned to the
 * CPU (TIMER_PINNED, HRTIMER_MODE_*_PINNED, twheel's local CPU,
 * mod_delayed_work_on() and queue_work_on() this CPU) so that the expiry work
 * of the pattern phase lands on the measured CPU.
 *
 * The workqueue peers run their callbacks where twheel runs its own: in a
 * work item of a per-CPU WQ_HIGHPRI workqueue (kb_wq, like twheel's). Their
 * callback is the work function, so expiry is measured to its start.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kernel_stat.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/sort.h>
#include <linux/tick.h>
#include <linux/timer.h>
#include <linux/twheel.h>
#include <linux/workqueue.h>

#include "../../twheel/compat.h"
#include "kbench.h"

#define KB_MIN_US	1000U			/* 1 ms */
#define KB_SPAN_US	3600000000U		/* 1 h */
#define KB_PAT_SPAN_US	99000U			/* pattern: 1..100 ms */
#define KB_CANCEL_FLAG	BIT(31)
#define KB_RESCHED_MASK	1023UL
#define KB_WARM_UP	4096UL
/*
 * Rounds per run: arm and cancel are timed in KB_ROUND_OPS / N rounds, at
 * least KB_MIN_ROUNDS and at most KB_MAX_ROUNDS, expiry in at most
 * KB_MAX_EXPIRE_ROUNDS; the run reports the median round. A round of 1e3
 * timers lasts a fraction of a millisecond, so one host interrupt in it
 * would move that round's figure by tens of percent.
 */
#define KB_ROUND_OPS		1000000UL
#define KB_MIN_ROUNDS		3U
#define KB_MAX_ROUNDS		32U
#define KB_MAX_EXPIRE_ROUNDS	8U

const char * const kb_impl_names[KB_NR_IMPLS] = {
	[KB_TWHEEL]	= "twheel",
	[KB_TIMER_LIST]	= "timer_list",
	[KB_HRTIMER]	= "hrtimer",
	[KB_DELAYED_WORK]	= "delayed_work",
	[KB_TIMER_LIST_WORK]	= "timer_list_work",
};

/* A timer_list whose callback queues a work item: delayed_work by hand. */
struct kb_tlw {
	struct timer_list	timer;
	struct work_struct	work;
};

/* The workqueue of the two workqueue peers. */
static struct workqueue_struct *kb_wq;

/* A set of timers of one implementation. */
struct kb_set {
	enum kb_impl		impl;
	unsigned long		n;
	union {
		struct twheel_timer	*tw;
		struct timer_list	*tl;
		struct hrtimer		*hr;
		struct delayed_work	*dw;
		struct kb_tlw		*tlw;
		void			*mem;
	};
};

/* Expiry accounting, shared by every callback. */
static atomic_long_t kb_fired;
static long kb_target = LONG_MAX;
static u64 kb_clock_sink;
static u64 kb_first_ns;
static u64 kb_last_ns;
static DECLARE_COMPLETION(kb_done);

static void kb_expired(void)
{
	long n = atomic_long_inc_return(&kb_fired);

	if (n == 1)
		WRITE_ONCE(kb_first_ns, ktime_get_ns());
	if (n == READ_ONCE(kb_target)) {
		WRITE_ONCE(kb_last_ns, ktime_get_ns());
		complete(&kb_done);
	}
}

static void kb_tw_fn(struct twheel_timer *timer)
{
	kb_expired();
}

static void kb_tl_fn(struct timer_list *timer)
{
	kb_expired();
}

static enum hrtimer_restart kb_hr_fn(struct hrtimer *timer)
{
	kb_expired();
	return HRTIMER_NORESTART;
}

static void kb_work_fn(struct work_struct *work)
{
	kb_expired();
}

static void kb_tlw_timer_fn(struct timer_list *timer)
{
	struct kb_tlw *t = timer_container_of(t, timer, timer);

	queue_work_on(smp_processor_id(), kb_wq, &t->work);
}

size_t kb_timer_size(enum kb_impl impl)
{
	switch (impl) {
	case KB_TWHEEL:
		return sizeof(struct twheel_timer);
	case KB_TIMER_LIST:
		return sizeof(struct timer_list);
	case KB_HRTIMER:
		return sizeof(struct hrtimer);
	case KB_DELAYED_WORK:
		return sizeof(struct delayed_work);
	case KB_TIMER_LIST_WORK:
		return sizeof(struct kb_tlw);
	default:
		return 0;
	}
}

static int kb_set_alloc(struct kb_set *s, enum kb_impl impl, unsigned long n)
{
	unsigned long i;

	s->impl = impl;
	s->n = n;
	s->mem = kvcalloc(n, kb_timer_size(impl), GFP_KERNEL);
	if (!s->mem)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		switch (impl) {
		case KB_TWHEEL:
			twheel_timer_init(&s->tw[i], kb_tw_fn);
			break;
		case KB_TIMER_LIST:
			timer_setup(&s->tl[i], kb_tl_fn, TIMER_PINNED);
			break;
		case KB_HRTIMER:
			twheel_hrtimer_setup(&s->hr[i], kb_hr_fn,
					     CLOCK_MONOTONIC,
					     HRTIMER_MODE_REL_PINNED);
			break;
		case KB_DELAYED_WORK:
			INIT_DELAYED_WORK(&s->dw[i], kb_work_fn);
			break;
		case KB_TIMER_LIST_WORK:
			timer_setup(&s->tlw[i].timer, kb_tlw_timer_fn,
				    TIMER_PINNED);
			INIT_WORK(&s->tlw[i].work, kb_work_fn);
			break;
		default:
			break;
		}
		if (!(i & KB_RESCHED_MASK))
			cond_resched();
	}
	return 0;
}

/* Cancel timer @i; @sync also waits for a running callback (release). */
static __always_inline void kb_cancel(struct kb_set *s, unsigned long i,
				      bool sync)
{
	switch (s->impl) {
	case KB_TWHEEL:
		if (sync)
			twheel_timer_cancel_sync(&s->tw[i]);
		else
			twheel_timer_cancel(&s->tw[i]);
		break;
	case KB_TIMER_LIST:
		if (sync)
			timer_delete_sync(&s->tl[i]);
		else
			timer_delete(&s->tl[i]);
		break;
	case KB_HRTIMER:
		hrtimer_cancel(&s->hr[i]);
		break;
	case KB_DELAYED_WORK:
		if (sync)
			cancel_delayed_work_sync(&s->dw[i]);
		else
			cancel_delayed_work(&s->dw[i]);
		break;
	case KB_TIMER_LIST_WORK:
		/* the timer may have fired and queued the work already */
		if (sync) {
			timer_delete_sync(&s->tlw[i].timer);
			cancel_work_sync(&s->tlw[i].work);
		} else {
			timer_delete(&s->tlw[i].timer);
			cancel_work(&s->tlw[i].work);
		}
		break;
	default:
		break;
	}
}

/* Cancel synchronously (no callback running afterwards) and free. */
static void kb_set_free(struct kb_set *s)
{
	unsigned long i;

	if (!s->mem)
		return;
	for (i = 0; i < s->n; i++) {
		kb_cancel(s, i, true);
		if (!(i & KB_RESCHED_MASK))
			cond_resched();
	}
	kvfree(s->mem);
	s->mem = NULL;
}

/* Arm timer @i to expire @us microseconds from now. */
static __always_inline void kb_arm(struct kb_set *s, unsigned long i, u32 us)
{
	u64 ns = (u64)us * NSEC_PER_USEC;

	switch (s->impl) {
	case KB_TWHEEL:
		twheel_timer_arm(&s->tw[i], ns, 0);
		break;
	case KB_TIMER_LIST:
		mod_timer(&s->tl[i], jiffies + nsecs_to_jiffies(ns));
		break;
	case KB_HRTIMER:
		hrtimer_start(&s->hr[i], ns_to_ktime(ns),
			      HRTIMER_MODE_REL_PINNED);
		break;
	case KB_DELAYED_WORK:
		mod_delayed_work_on(smp_processor_id(), kb_wq, &s->dw[i],
				    nsecs_to_jiffies(ns));
		break;
	case KB_TIMER_LIST_WORK:
		mod_timer(&s->tlw[i].timer, jiffies + nsecs_to_jiffies(ns));
		break;
	default:
		break;
	}
}

/* Per-operation cost in 1/100 ns. */
static u64 kb_per_op(u64 ns, unsigned long ops)
{
	return ops ? div64_u64(ns * 100, ops) : 0;
}

/* Rounds of a phase at population @n, at most @cap (see KB_ROUND_OPS). */
static unsigned int kb_rounds(unsigned long n, unsigned int cap)
{
	return clamp_t(unsigned long, KB_ROUND_OPS / max(n, 1UL),
		       KB_MIN_ROUNDS, cap);
}

static int kb_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static int kb_cmp_s64(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return x < y ? -1 : x > y;
}

/* Median of @v[0..@k - 1] (reordered); the upper one of an even count. */
static u64 kb_median(u64 *v, unsigned int k)
{
	sort(v, k, sizeof(*v), kb_cmp_u64, NULL);
	return v[k / 2];
}

/* Deadlines in us: uniform in [1 ms, 1 h], from @seed. */
static u32 *kb_deadlines(unsigned long n, u32 seed)
{
	struct rnd_state rnd;
	unsigned long i;
	u32 *d;

	d = kvmalloc_array(n, sizeof(*d), GFP_KERNEL);
	if (!d)
		return NULL;
	prandom_seed_state(&rnd, seed);
	for (i = 0; i < n; i++)
		d[i] = KB_MIN_US + prandom_u32_state(&rnd) % KB_SPAN_US;
	return d;
}

static u64 kb_arm_all(struct kb_set *s, const u32 *d)
{
	unsigned long i;
	u64 t0 = ktime_get_ns();

	for (i = 0; i < s->n; i++) {
		kb_arm(s, i, d[i]);
		if (!(i & KB_RESCHED_MASK))
			cond_resched();
	}
	return ktime_get_ns() - t0;
}

/* twheel: kb_arm_all() with the same deadlines, made absolute up front. */
static u64 kb_arm_abs_all(struct kb_set *s, const u32 *d)
{
	unsigned long i;
	u64 t0 = ktime_get_ns();

	for (i = 0; i < s->n; i++) {
		twheel_timer_arm(&s->tw[i], t0 + (u64)d[i] * NSEC_PER_USEC,
				 TWHEEL_ABS);
		if (!(i & KB_RESCHED_MASK))
			cond_resched();
	}
	return ktime_get_ns() - t0;
}

/* Cost of one ktime_get_ns(), over @n calls. */
static u64 kb_clock_cost(unsigned long n)
{
	unsigned long i;
	u64 t0 = ktime_get_ns(), sum = 0;

	for (i = 0; i < n; i++) {
		sum += ktime_get_ns();
		if (!(i & KB_RESCHED_MASK))
			cond_resched();
	}
	WRITE_ONCE(kb_clock_sink, sum);
	return kb_per_op(ktime_get_ns() - t0, n);
}

static u64 kb_cancel_all(struct kb_set *s)
{
	unsigned long i;
	u64 t0 = ktime_get_ns();

	for (i = 0; i < s->n; i++) {
		kb_cancel(s, i, false);
		if (!(i & KB_RESCHED_MASK))
			cond_resched();
	}
	return ktime_get_ns() - t0;
}

/*
 * Arm and cancel a few thousand timers before measuring, so that one-time
 * costs (QEMU TCG translating the code path, cold caches) are not charged to
 * the first measured operations of a small run.
 */
static void kb_warm_up(struct kb_set *s, const u32 *d)
{
	unsigned long n = s->n;
	int pass;

	s->n = min(n, KB_WARM_UP);
	for (pass = 0; pass < 2; pass++) {
		kb_arm_all(s, d);
		kb_cancel_all(s);
	}
	s->n = n;
}

/*
 * Network-timeout pattern on top of the pending population: each operation
 * arms a 1..100 ms timeout; KB_PATTERN_WINDOW operations later, 95 % of the
 * timeouts are cancelled (the reply came), the other 5 % are left to expire,
 * and their expiry runs on this CPU inside the measured interval.
 */
static int kb_pattern(enum kb_impl impl, unsigned long m, u32 seed,
		      struct kb_result *res)
{
	struct kb_set p = { };
	struct rnd_state rnd;
	unsigned long i;
	u32 *d;
	u64 t0;
	int ret;

	d = kvmalloc_array(m, sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	prandom_seed_state(&rnd, seed ^ 0x5eed5eedU);
	for (i = 0; i < m; i++) {
		d[i] = KB_MIN_US + prandom_u32_state(&rnd) % KB_PAT_SPAN_US;
		if (prandom_u32_state(&rnd) % 100 < KB_PATTERN_CANCEL_PCT)
			d[i] |= KB_CANCEL_FLAG;
	}
	ret = kb_set_alloc(&p, impl, m);
	if (ret)
		goto out;

	t0 = ktime_get_ns();
	for (i = 0; i < m; i++) {
		kb_arm(&p, i, d[i] & ~KB_CANCEL_FLAG);
		if (i >= KB_PATTERN_WINDOW &&
		    (d[i - KB_PATTERN_WINDOW] & KB_CANCEL_FLAG))
			kb_cancel(&p, i - KB_PATTERN_WINDOW, false);
		if (!(i & KB_RESCHED_MASK))
			cond_resched();
	}
	for (i = m - min(m, KB_PATTERN_WINDOW); i < m; i++)
		if (d[i] & KB_CANCEL_FLAG)
			kb_cancel(&p, i, false);
	res->pattern_cns = kb_per_op(ktime_get_ns() - t0, m);
	res->pattern_ops = m;

	/* let the uncancelled 5 % expire before tearing down */
	msleep(KB_PAT_SPAN_US / USEC_PER_MSEC + 20);
out:
	kb_set_free(&p);
	kvfree(d);
	return ret;
}

/*
 * Busy time of @cpu so far, in us: neither idle nor in iowait (an idle CPU
 * is accounted as iowait while a task that sleeps on it waits for I/O, and
 * io_uring's waits count as I/O); U64_MAX if not tracked.
 */
u64 kb_busy_us(int cpu)
{
	u64 idle = get_cpu_idle_time_us(cpu, NULL);
	u64 iowait = get_cpu_iowait_time_us(cpu, NULL);

	if (idle == (u64)-1 || iowait == (u64)-1)
		return U64_MAX;
	return div_u64(ktime_get_ns(), NSEC_PER_USEC) - idle - iowait;
}

/*
 * Expiry: all N timers get one absolute deadline, far enough ahead that
 * arming ends before it. The cost per timer is the busy time of this CPU
 * from the end of arming to the last callback, divided by N: everything the
 * implementation does for these timers on the way (twheel's cascades, the
 * tick or softirq or hard interrupt, the worker, the callbacks) and nothing
 * else, since the guest is otherwise idle and this thread sleeps. The span
 * from the first to the last callback, divided by N - 1, is also reported,
 * and the busy time outside it, divided by N.
 */
static int kb_expire(struct kb_set *s, u64 arm_ns, struct kb_result *res)
{
	u64 margin = max_t(u64, 20 * NSEC_PER_MSEC, 3 * arm_ns);
	u64 timeout_ns = margin + 120 * NSEC_PER_SEC;
	int cpu = raw_smp_processor_id();
	unsigned long i, jdl;
	u64 now, dl, busy0, busy1;

	atomic_long_set(&kb_fired, 0);
	WRITE_ONCE(kb_target, s->n);
	reinit_completion(&kb_done);

	now = ktime_get_ns();
	dl = now + margin;
	jdl = jiffies + nsecs_to_jiffies(margin);
	for (i = 0; i < s->n; i++) {
		switch (s->impl) {
		case KB_TWHEEL:
			twheel_timer_arm(&s->tw[i], dl, TWHEEL_ABS);
			break;
		case KB_TIMER_LIST:
			mod_timer(&s->tl[i], jdl);
			break;
		case KB_HRTIMER:
			hrtimer_start(&s->hr[i], ns_to_ktime(dl),
				      HRTIMER_MODE_ABS_PINNED);
			break;
		case KB_DELAYED_WORK:
			/* relative in jiffies only: the same expiry jiffy */
			mod_delayed_work_on(cpu, kb_wq, &s->dw[i],
					    max_t(long, 0, jdl - jiffies));
			break;
		case KB_TIMER_LIST_WORK:
			mod_timer(&s->tlw[i].timer, jdl);
			break;
		default:
			break;
		}
		if (!(i & KB_RESCHED_MASK))
			cond_resched();
	}
	busy0 = kb_busy_us(cpu);
	res->late_arm = ktime_get_ns() > dl;

	/* short waits: not a hung task, however slow the guest */
	while (!wait_for_completion_timeout(&kb_done, HZ)) {
		if (ktime_get_ns() - now > timeout_ns) {
			WRITE_ONCE(kb_target, LONG_MAX);
			return -ETIMEDOUT;
		}
	}
	busy1 = kb_busy_us(cpu);
	WRITE_ONCE(kb_target, LONG_MAX);
	if (busy0 != U64_MAX && busy1 != U64_MAX) {
		res->expire_cns = kb_per_op((busy1 - busy0) * NSEC_PER_USEC,
					    s->n);
		res->rest_cns = div64_s64(((s64)(busy1 - busy0) * NSEC_PER_USEC -
					   (s64)(kb_last_ns - kb_first_ns)) * 100,
					  s->n);
	}
	res->batch_cns = kb_per_op(kb_last_ns - kb_first_ns,
				   max(s->n, 2UL) - 1);
	res->fire_delay_ns = (s64)(kb_first_ns - dl);
	return 0;
}

/* Round times of one implementation (ns per round, N timers). */
struct kb_times {
	u64	arm[KB_MAX_ROUNDS];
	u64	cancel[KB_MAX_ROUNDS];
	u64	arm_abs[KB_MAX_ROUNDS];
	u64	expire[KB_MAX_EXPIRE_ROUNDS];
	u64	batch[KB_MAX_EXPIRE_ROUNDS];
	s64	rest[KB_MAX_EXPIRE_ROUNDS];
	s64	delay[KB_MAX_EXPIRE_ROUNDS];
};

/* One arm round and one cancel round of @s (and twheel's absolute arm). */
static void kb_arm_round(struct kb_set *s, const u32 *d, struct kb_times *tm,
			 unsigned int k)
{
	tm->arm[k] = kb_arm_all(s, d);
	tm->cancel[k] = kb_cancel_all(s);
	if (s->impl == KB_TWHEEL) {
		tm->arm_abs[k] = kb_arm_abs_all(s, d);
		kb_cancel_all(s);
	}
}

/* The median round of each figure of @tm into @res. */
static void kb_fold(struct kb_result *res, struct kb_times *tm,
		    unsigned int rounds, unsigned int xrounds)
{
	unsigned long n = res->n;

	res->rounds = rounds;
	res->expire_rounds = xrounds;
	res->arm_cns = kb_per_op(kb_median(tm->arm, rounds), n);
	res->cancel_cns = kb_per_op(kb_median(tm->cancel, rounds), n);
	if (res->impl == KB_TWHEEL)
		res->arm_abs_cns = kb_per_op(kb_median(tm->arm_abs, rounds), n);
	res->expire_cns = kb_median(tm->expire, xrounds);
	res->batch_cns = kb_median(tm->batch, xrounds);
	sort(tm->rest, xrounds, sizeof(*tm->rest), kb_cmp_s64, NULL);
	res->rest_cns = tm->rest[xrounds / 2];
	sort(tm->delay, xrounds, sizeof(*tm->delay), kb_cmp_s64, NULL);
	res->fire_delay_ns = tm->delay[xrounds / 2];
}

/**
 * kb_run() - measure implementations at one population size, interleaved
 * @res:	@nr results; in: @impl of each, @n and @seed (the same in
 *		all); out: the costs
 * @nr:		1..KB_NR_IMPLS implementations
 *
 * Arm and cancel (and twheel's absolute arm) are timed in kb_rounds()
 * rounds, expiry in up to KB_MAX_EXPIRE_ROUNDS; within a round every
 * implementation runs once, in an order that rotates with the round (and
 * starts elsewhere for each seed, so that no implementation always runs
 * first), so that a slow spell of the host falls on all of them alike.
 * Each figure is the median round. The pattern runs once per
 * implementation, on its N timers armed again.
 *
 * Context: process context, bound to the measured CPU; sleeps.
 * Return: 0, -EINVAL, -ENOMEM, or -ETIMEDOUT if an expiry batch never
 * completed.
 */
int kb_run(struct kb_result *res, unsigned int nr)
{
	unsigned int rounds, xrounds, k, j, i, first;
	struct kb_set s[KB_NR_IMPLS] = { };
	unsigned long n = res[0].n;
	struct kb_times *tm;
	struct kb_result r;
	u64 arm_ns = 0;
	u32 *d;
	int ret = -ENOMEM;

	if (!nr || nr > KB_NR_IMPLS)
		return -EINVAL;
	d = kb_deadlines(n, res[0].seed);
	tm = kcalloc(nr, sizeof(*tm), GFP_KERNEL);
	if (!d || !tm)
		goto out;
	for (i = 0; i < nr; i++) {
		ret = kb_set_alloc(&s[i], res[i].impl, n);
		if (ret)
			goto out;
		kb_warm_up(&s[i], d);
	}

	first = res[0].seed % nr;
	rounds = kb_rounds(n, KB_MAX_ROUNDS);
	for (k = 0; k < rounds; k++) {
		for (j = 0; j < nr; j++) {
			i = (first + j + k) % nr;
			kb_arm_round(&s[i], d, &tm[i], k);
		}
	}
	for (i = 0; i < nr; i++) {
		arm_ns = max(arm_ns, kb_arm_all(&s[i], d));
		ret = kb_pattern(res[i].impl, min(n, KB_PATTERN_MAX),
				 res[i].seed, &res[i]);
		kb_cancel_all(&s[i]);
		if (ret)
			goto out;
		/* One expiry margin for all: the slowest arm round's. */
		for (k = 0; k < rounds; k++)
			arm_ns = max(arm_ns, tm[i].arm[k]);
		res[i].clock_cns = kb_clock_cost(max(n, KB_WARM_UP));
	}

	xrounds = kb_rounds(n, KB_MAX_EXPIRE_ROUNDS);
	for (k = 0; k < xrounds; k++) {
		for (j = 0; j < nr; j++) {
			i = (first + j + k) % nr;
			memset(&r, 0, sizeof(r));
			ret = kb_expire(&s[i], arm_ns, &r);
			if (ret)
				goto out;
			tm[i].expire[k] = r.expire_cns;
			tm[i].batch[k] = r.batch_cns;
			tm[i].rest[k] = r.rest_cns;
			tm[i].delay[k] = r.fire_delay_ns;
			res[i].late_arm |= r.late_arm;
		}
	}
	for (i = 0; i < nr; i++)
		kb_fold(&res[i], &tm[i], rounds, xrounds);
out:
	for (i = 0; i < nr; i++)
		kb_set_free(&s[i]);
	kfree(tm);
	kvfree(d);
	return ret;
}

/**
 * kb_run_init() - create the workqueue of the workqueue peers
 *
 * Per-CPU and WQ_HIGHPRI, as twheel's own.
 * Return: 0 or -ENOMEM.
 */
int kb_run_init(void)
{
	kb_wq = alloc_workqueue("twheel_bench", WQ_HIGHPRI | TWHEEL_WQ_PERCPU,
				0);
	return kb_wq ? 0 : -ENOMEM;
}

/**
 * kb_workqueue() - the workqueue of the workqueue peers
 *
 * Return: the workqueue kb_run_init() created.
 */
struct workqueue_struct *kb_workqueue(void)
{
	return kb_wq;
}

/**
 * kb_run_exit() - destroy the workqueue of kb_run_init()
 */
void kb_run_exit(void)
{
	destroy_workqueue(kb_wq);
}

/* Scale test: a population of twheel timers kept armed between commands. */
static struct kb_set kb_scale_set;

/**
 * kb_scale_arm() - arm and keep @n twheel timers with 1 ms..1 h deadlines
 * @n:		number of timers
 * @seed:	seed of the deadlines
 * @res:	out: @arm_cns
 *
 * Context: process context; sleeps.
 * Return: 0, -EBUSY if the scale timers are already armed, or -ENOMEM.
 */
int kb_scale_arm(unsigned long n, u32 seed, struct kb_result *res)
{
	u32 *d;
	int ret;

	if (kb_scale_set.mem)
		return -EBUSY;
	d = kb_deadlines(n, seed);
	if (!d)
		return -ENOMEM;
	ret = kb_set_alloc(&kb_scale_set, KB_TWHEEL, n);
	if (!ret)
		res->arm_cns = kb_per_op(kb_arm_all(&kb_scale_set, d), n);
	kvfree(d);
	return ret;
}

/**
 * kb_scale_release() - cancel and free the scale population
 * @res:	out: @cancel_cns
 *
 * Context: process context; sleeps.
 */
void kb_scale_release(struct kb_result *res)
{
	if (!kb_scale_set.mem)
		return;
	res->cancel_cns = kb_per_op(kb_cancel_all(&kb_scale_set),
				    kb_scale_set.n);
	kb_set_free(&kb_scale_set);
}
