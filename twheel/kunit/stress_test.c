// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit stress of the twheel in-kernel API, with a ledger.
 *
 * One kthread per online CPU owns a slice of a pool of timers and, for
 * stress_ms milliseconds, arms (local or a chosen CPU), modifies, cancels and
 * cancel_syncs them at random, with deadlines from 0 to 20 ms, while another
 * kthread takes the last CPU offline and back. Some callbacks sleep (so that
 * cancel_sync meets a running callback), some re-arm their own timer, some
 * timers are periodic (fixed rate and fixed delay).
 *
 * The ledger of each timer counts armings (A: arm or modify calls that
 * succeeded, from the owner or from the callback), armings superseded by a
 * later arm or modify (R: calls that returned 1), cancels that found the
 * timer pending (C) and callbacks (F). Once everything is cancel_synced,
 * every one-shot timer must satisfy A = F + C + R (delivered exactly once or
 * cancelled), no callback may start before the earliest deadline it could
 * belong to, none may begin after cancel_sync returned (a count of callbacks
 * begun, compared after a pause), cancel_sync must never return while its
 * callback runs, and every base must be empty.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/twheel.h>

#include "compat.h"
#include "testhooks.h"

TWHEEL_IMPORT_KUNIT_NS();

static unsigned int stress_ms = 4000;
module_param(stress_ms, uint, 0644);
MODULE_PARM_DESC(stress_ms, "duration of each twheel KUnit stress case (ms)");

#define TWS_PER_THREAD	48
#define TWS_MAX_THREADS	8
#define TWS_MAX_DL_NS	(20 * NSEC_PER_MSEC)
#define TWS_SELF_REARMS	3

enum tws_kind { TWS_ONESHOT, TWS_SLEEPY, TWS_SELF, TWS_RATE, TWS_DELAY };

struct tws_timer {
	struct twheel_timer	t;
	enum tws_kind		kind;
	atomic_t		armed;		/* A */
	atomic_t		superseded;	/* R */
	atomic_t		cancelled;	/* C */
	atomic_t		fired;		/* F */
	atomic_t		started;	/* callbacks begun */
	int			started_at_sync;
	atomic_t		self_left;
	atomic64_t		min_deadline;
	bool			dead;		/* cancel_synced, not re-armed */
	struct tws_ctx		*ctx;
};

struct tws_ctx {
	struct tws_timer	*timers;
	unsigned int		nr;
	atomic_t		early;
	atomic_t		after_sync;
	atomic_t		sync_while_running;
	atomic_t		bad_ret;
	atomic64_t		ops;
	atomic_t		enxio;
	atomic_t		hotplug_cycles;
	atomic_t		stop;
};

static u64 tws_rand(u64 *s)
{
	u64 x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static u64 tws_below(u64 *s, u64 n)
{
	return n ? tws_rand(s) % n : 0;
}

/* Lower the earliest legal deadline to @dl (an arming may be in flight). */
static void tws_lower_min(struct tws_timer *w, u64 dl)
{
	s64 old = atomic64_read(&w->min_deadline);

	while ((u64)old > dl &&
	       !atomic64_try_cmpxchg(&w->min_deadline, &old, dl))
		;
}

/* All armings of @w accounted for: nothing pending, no callback running. */
static bool tws_quiet(struct tws_timer *w)
{
	int fired = atomic_read(&w->fired);

	return atomic_read(&w->armed) == fired +
	       atomic_read(&w->cancelled) + atomic_read(&w->superseded) &&
	       atomic_read(&w->started) == fired;
}

static void tws_fn(struct twheel_timer *t)
{
	struct tws_timer *w = container_of(t, struct tws_timer, t);
	struct tws_ctx *ctx = w->ctx;
	u64 now = ktime_get_ns();
	int ret;

	atomic_inc(&w->started);
	if (READ_ONCE(w->dead))
		atomic_inc(&ctx->after_sync);
	if (now < (u64)atomic64_read(&w->min_deadline))
		atomic_inc(&ctx->early);
	if (w->kind == TWS_SLEEPY)
		usleep_range(200, 2000);
	if (w->kind == TWS_SELF && atomic_dec_if_positive(&w->self_left) >= 0) {
		atomic_inc(&w->armed);
		ret = twheel_timer_arm(t, (now & 0xffff) * 16, 0);
		if (ret < 0)
			atomic_inc(&ctx->bad_ret);
		else
			atomic_add(ret, &w->superseded);
	}
	/* Periodic callbacks are counted but not in the one-shot ledger. */
	atomic_inc(&w->fired);
}

static void tws_arm(struct tws_ctx *ctx, struct tws_timer *w, u64 *seed)
{
	u64 now = ktime_get_ns(), rel = tws_below(seed, TWS_MAX_DL_NS + 1);
	u64 period = 0;
	unsigned int flags = 0;
	int cpu = TWHEEL_CPU_ANY, ret;

	if (tws_below(seed, 4) == 0)
		cpu = tws_below(seed, nr_cpu_ids);
	if (w->kind == TWS_RATE || w->kind == TWS_DELAY)
		period = NSEC_PER_MSEC + tws_below(seed, 3 * NSEC_PER_MSEC);
	if (w->kind == TWS_DELAY)
		flags |= TWHEEL_FIXED_DELAY;
	/*
	 * Only a quiet one-shot may raise its lower bound: a periodic timer
	 * that looks quiet between two periods is re-armed by the worker
	 * right after its callback, and that period may fire before our arm.
	 */
	if (!period && w->kind != TWS_RATE && w->kind != TWS_DELAY &&
	    tws_quiet(w))
		atomic64_set(&w->min_deadline, now + rel);
	else
		tws_lower_min(w, now + rel);
	if (w->kind == TWS_SELF)
		atomic_set(&w->self_left, TWS_SELF_REARMS);
	WRITE_ONCE(w->dead, false);
	atomic_inc(&w->armed);
	ret = twheel_timer_arm_on(&w->t, rel, period, flags, cpu);
	if (ret < 0) {
		atomic_dec(&w->armed);
		if (ret == -ENXIO)
			atomic_inc(&ctx->enxio);	/* CPU going down */
		else
			atomic_inc(&ctx->bad_ret);
		return;
	}
	atomic_add(ret, &w->superseded);
}

static void tws_modify(struct tws_ctx *ctx, struct tws_timer *w, u64 *seed)
{
	u64 now = ktime_get_ns(), rel = tws_below(seed, TWS_MAX_DL_NS + 1);
	u64 period = 0;
	unsigned int flags = 0;
	int ret;

	if (w->kind == TWS_RATE || w->kind == TWS_DELAY)
		period = NSEC_PER_MSEC + tws_below(seed, 3 * NSEC_PER_MSEC);
	if (w->kind == TWS_DELAY)
		flags |= TWHEEL_FIXED_DELAY;
	tws_lower_min(w, now + rel);
	WRITE_ONCE(w->dead, false);
	atomic_inc(&w->armed);	/* modify arms an idle timer too */
	ret = twheel_timer_modify(&w->t, rel, period, flags);
	if (ret < 0) {
		atomic_dec(&w->armed);
		atomic_inc(&ctx->bad_ret);
		return;
	}
	atomic_add(ret, &w->superseded);
}

static void tws_cancel_sync(struct tws_ctx *ctx, struct tws_timer *w)
{
	int ret = twheel_timer_cancel_sync(&w->t);

	if (ret < 0 || ret > 1)
		atomic_inc(&ctx->bad_ret);
	else
		atomic_add(ret, &w->cancelled);
	/* Nothing may start from here on until the owner arms again. */
	w->started_at_sync = atomic_read(&w->started);
	if (w->started_at_sync != atomic_read(&w->fired))
		atomic_inc(&ctx->sync_while_running);
	WRITE_ONCE(w->dead, true);
}

struct tws_thread {
	struct tws_ctx		*ctx;
	unsigned int		first, nr;
	u64			seed;
	struct task_struct	*task;
	struct completion	done;
};

static int tws_thread_fn(void *arg)
{
	struct tws_thread *th = arg;
	struct tws_ctx *ctx = th->ctx;
	u64 ops = 0;

	while (!atomic_read(&ctx->stop)) {
		struct tws_timer *w = &ctx->timers[th->first +
						    tws_below(&th->seed, th->nr)];
		u64 op = tws_below(&th->seed, 100);
		int ret;

		if (op < 40) {
			tws_arm(ctx, w, &th->seed);
		} else if (op < 55) {
			tws_modify(ctx, w, &th->seed);
		} else if (op < 80) {
			ret = twheel_timer_cancel(&w->t);
			if (ret < 0 || ret > 1)
				atomic_inc(&ctx->bad_ret);
			else
				atomic_add(ret, &w->cancelled);
		} else if (op < 90) {
			tws_cancel_sync(ctx, w);
		} else {
			struct twheel_timer_info info;

			twheel_timer_query(&w->t, &info);
			if (info.state > TWHEEL_RUNNING)
				atomic_inc(&ctx->bad_ret);
		}
		ops++;
		/*
		 * Let the callbacks' worker in (one CPU guests), but rarely
		 * sleep: with a jiffies clocksource a short sleep is a tick.
		 */
		cond_resched();
		if (!(ops & 255))
			usleep_range(50, 200);
	}
	atomic64_add(ops, &ctx->ops);
	complete(&th->done);
	return 0;
}

static int tws_hotplug_fn(void *arg)
{
	struct tws_ctx *ctx = arg;
	unsigned int cpu = nr_cpu_ids - 1;

	while (!kthread_should_stop()) {
		if (num_online_cpus() > 1 && cpu_online(cpu) &&
		    !remove_cpu(cpu)) {
			msleep(50);
			while (add_cpu(cpu) && !kthread_should_stop())
				msleep(20);
			atomic_inc(&ctx->hotplug_cycles);
		}
		msleep(100);
	}
	return 0;
}

static void twheel_stress_api(struct kunit *test)
{
	struct tws_thread *th;
	struct task_struct *hp = NULL;
	struct tws_ctx *ctx;
	unsigned int nth = min_t(unsigned int, num_online_cpus(),
				 TWS_MAX_THREADS);
	unsigned int i, one_shot_bad = 0;
	u64 fired = 0, armed = 0;
	int cpu;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->nr = nth * TWS_PER_THREAD;
	ctx->timers = kunit_kcalloc(test, ctx->nr, sizeof(*ctx->timers),
				    GFP_KERNEL);
	th = kunit_kcalloc(test, nth, sizeof(*th), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->timers);
	KUNIT_ASSERT_NOT_NULL(test, th);
	for (i = 0; i < ctx->nr; i++) {
		struct tws_timer *w = &ctx->timers[i];

		twheel_timer_init(&w->t, tws_fn);
		w->ctx = ctx;
		w->kind = i % 8 < 4 ? TWS_ONESHOT : i % 8 == 4 ? TWS_SLEEPY :
			  i % 8 == 5 ? TWS_SELF : i % 8 == 6 ? TWS_RATE :
			  TWS_DELAY;
	}
	for (i = 0; i < nth; i++) {
		th[i].ctx = ctx;
		th[i].first = i * TWS_PER_THREAD;
		th[i].nr = TWS_PER_THREAD;
		th[i].seed = 0x9E3779B97F4A7C15ULL * (i + 1) ^ ktime_get_ns();
		init_completion(&th[i].done);
		th[i].task = kthread_run(tws_thread_fn, &th[i], "twstress/%u",
					 i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(th[i].task));
	}
	if (IS_ENABLED(CONFIG_HOTPLUG_CPU) && nr_cpu_ids > 1) {
		hp = kthread_run(tws_hotplug_fn, ctx, "twstress/hp");
		if (IS_ERR(hp))
			hp = NULL;
	}
	msleep(stress_ms);
	atomic_set(&ctx->stop, 1);
	for (i = 0; i < nth; i++)
		wait_for_completion(&th[i].done);
	if (hp)
		kthread_stop(hp);
	for_each_present_cpu(cpu)
		if (!cpu_online(cpu))
			add_cpu(cpu);

	/* Stop everything; self re-arms are undone by cancel_sync's loop. */
	for (i = 0; i < ctx->nr; i++)
		tws_cancel_sync(ctx, &ctx->timers[i]);
	msleep(50);	/* a late callback would show up in after_sync */

	for (i = 0; i < ctx->nr; i++) {
		struct tws_timer *w = &ctx->timers[i];
		int a = atomic_read(&w->armed), f = atomic_read(&w->fired);
		int c = atomic_read(&w->cancelled);
		int r = atomic_read(&w->superseded);

		armed += a;
		fired += f;
		/* Catches a callback that read "dead" before it was set. */
		if (atomic_read(&w->started) != w->started_at_sync) {
			atomic_inc(&ctx->after_sync);
			kunit_err(test, "timer %u (kind %d): %d callback(s) began after cancel_sync returned",
				  i, w->kind,
				  atomic_read(&w->started) - w->started_at_sync);
		}
		if (w->kind == TWS_RATE || w->kind == TWS_DELAY)
			continue;
		if (a != f + c + r) {
			if (one_shot_bad++ < 5)
				kunit_err(test, "timer %u (kind %d): armed %d != fired %d + cancelled %d + superseded %d",
					  i, w->kind, a, f, c, r);
		}
	}
	for_each_possible_cpu(cpu) {
		struct twheel_base_snapshot snap;

		if (twheel_base_snapshot(cpu, &snap))
			continue;
		KUNIT_EXPECT_EQ_MSG(test, snap.pending, 0UL, "cpu %d", cpu);
		KUNIT_EXPECT_EQ_MSG(test, snap.expired, 0UL, "cpu %d", cpu);
	}
	kunit_info(test, "%llu ops, %llu armings, %llu callbacks, %d hotplug cycles, %d ENXIO",
		   (unsigned long long)atomic64_read(&ctx->ops), armed, fired,
		   atomic_read(&ctx->hotplug_cycles), atomic_read(&ctx->enxio));
	KUNIT_EXPECT_EQ(test, one_shot_bad, 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->early), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->after_sync), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->sync_while_running), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->bad_ret), 0);
	KUNIT_EXPECT_GT(test, fired, 0ULL);
}

static struct kunit_case twheel_stress_cases[] = {
	KUNIT_CASE_SLOW(twheel_stress_api),
	{}
};

static struct kunit_suite twheel_stress_suite = {
	.name = "twheel_stress",
	.test_cases = twheel_stress_cases,
};

kunit_test_suites(&twheel_stress_suite);
