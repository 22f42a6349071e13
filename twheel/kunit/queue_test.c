// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the queues of expired timers (base.h, "Fairness"), as
 * the tick fills them: a pass hands each run of consecutive timers of one
 * queue over whole (tw_expire() splices the chain onto the queue's tail
 * without an unlink and relink of each timer), so the queue's links, its
 * last timer, its place on the round-robin list and the base's count of
 * expired timers must come out as if each timer had been appended alone.
 *
 * The test holds every runner of a CPU in a callback, so that what a tick
 * expires stays queued, then expires on that CPU, in one tick, runs of
 * timers of group 0, of group 3 and of group 64 (which shares group 0's
 * queue), with a TWHEEL_TIMER_TICK timer among them (it ends a run: its
 * callback runs in the pass). The queues are checked under the base lock
 * (twheel_base_check_queues()) once the tick has expired them, and after
 * each cancel of queued timers (from whole runs, and single ones from
 * their middle); once the runners are let go, every timer not cancelled
 * fires exactly once and never early, a cancelled one never, and the
 * queues end empty.
 *
 * Two more cases hold a group's queue with one of its callbacks blocked:
 * the tick splices onto it while it is off the round-robin list, and its
 * timers run oldest first once it is let go (twq_held_queue_fifo), or go
 * with its CPU when the CPU goes down (twq_held_queue_hotplug).
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/twheel.h>

#include "base/base.h"
#include "compat.h"
#include "testhooks.h"

TWHEEL_IMPORT_KUNIT_NS();

#define TWQ_TIMEOUT_MS		10000
#define TWQ_AHEAD_MS		50

/* The runs, in the order they are armed: group of each, and its length. */
static const struct {
	u32		group;
	unsigned int	n;
} twq_runs[] = {
	{ 0, 5 }, { 3, 4 }, { 0, 3 }, { 64, 2 }, { 3, 3 }, { 0, 4 },
};

#define TWQ_N			21	/* the sum of the runs' lengths */

struct twq_timer {
	struct twheel_timer	timer;
	struct twq		*q;
	atomic_t		fired;
	bool			cancelled;
};

struct twq {
	struct twq_timer	t[TWQ_N];
	struct twq_timer	tick;		/* a TWHEEL_TIMER_TICK one */
	struct twheel_timer	block[TW_RUNNERS];
	struct completion	gate;
	struct completion	done;
	atomic_t		blocked;
	atomic_t		left;
	atomic_t		early;
	u64			deadline;
};

static struct twq *twq_of;

/* Holds a runner until the test opens the gate. */
static void twq_block_fn(struct twheel_timer *timer)
{
	atomic_inc(&twq_of->blocked);
	wait_for_completion(&twq_of->gate);
}

/* Also the TWHEEL_TIMER_TICK timer's (hard irq): atomics and the clock. */
static void twq_fn(struct twheel_timer *timer)
{
	struct twq_timer *qt = container_of(timer, struct twq_timer, timer);
	struct twq *q = qt->q;

	if (ktime_get_ns() < q->deadline)
		atomic_inc(&q->early);
	atomic_inc(&qt->fired);
	if (atomic_dec_and_test(&q->left))
		complete(&q->done);
}

static void twq_stop(void *data)
{
	struct twq *q = data;
	unsigned int i;

	complete_all(&q->gate);
	for (i = 0; i < TW_RUNNERS; i++)
		twheel_timer_cancel_sync(&q->block[i]);
	for (i = 0; i < TWQ_N; i++)
		twheel_timer_cancel_sync(&q->t[i].timer);
	twheel_timer_cancel_sync(&q->tick.timer);
}

/* Wait until @v is @want or TWQ_TIMEOUT_MS passed; return whether it is. */
static bool twq_poll(atomic_t *v, int want)
{
	unsigned long end = jiffies + msecs_to_jiffies(TWQ_TIMEOUT_MS);

	while (atomic_read(v) != want && time_before(jiffies, end))
		usleep_range(500, 1000);
	return atomic_read(v) == want;
}

static void twq_cancel(struct kunit *test, struct twq *q, int cpu,
		       unsigned int i, int *queued)
{
	KUNIT_EXPECT_EQ_MSG(test, twheel_timer_cancel(&q->t[i].timer), 1,
			    "timer %u was not queued", i);
	q->t[i].cancelled = true;
	(*queued)--;
	atomic_dec(&q->left);
	KUNIT_EXPECT_EQ_MSG(test, twheel_base_check_queues(cpu),
			    *queued, "after the cancel of timer %u", i);
}

static void twq_spliced_runs(struct kunit *test)
{
	int cpu = raw_smp_processor_id(), queued = TWQ_N;
	struct twheel_base_snapshot snap;
	unsigned int i, j, k = 0, first[ARRAY_SIZE(twq_runs)];
	struct twq *q;

	q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q);
	twq_of = q;
	init_completion(&q->gate);
	init_completion(&q->done);
	/* The timers below, and the TICK one. */
	atomic_set(&q->left, TWQ_N + 1);
	for (i = 0; i < TW_RUNNERS; i++)
		twheel_timer_init(&q->block[i], twq_block_fn);
	for (i = 0; i < ARRAY_SIZE(twq_runs); i++) {
		first[i] = k;
		for (j = 0; j < twq_runs[i].n; j++, k++) {
			twheel_timer_init(&q->t[k].timer, twq_fn);
			if (twq_runs[i].group)
				twheel_timer_set_group(&q->t[k].timer,
						       twq_runs[i].group);
			q->t[k].q = q;
		}
	}
	KUNIT_ASSERT_EQ(test, k, TWQ_N);
	twheel_timer_setup(&q->tick.timer, twq_fn, TWHEEL_TIMER_TICK);
	q->tick.q = q;
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, twq_stop, q));

	/* Every runner of @cpu in a callback that waits for the gate. */
	for (i = 0; i < TW_RUNNERS; i++)
		KUNIT_ASSERT_EQ(test, 0,
				twheel_timer_arm_on(&q->block[i], 0, 0, 0, cpu));
	KUNIT_ASSERT_TRUE_MSG(test,
			      twq_poll(&q->blocked, TW_RUNNERS),
			      "%d of %d runners blocked",
			      atomic_read(&q->blocked), TW_RUNNERS);

	/* The runs, with the TICK timer amid the third. */
	q->deadline = ktime_get_ns() + TWQ_AHEAD_MS * NSEC_PER_MSEC;
	for (i = 0; i < TWQ_N; i++) {
		if (i == first[2] + 1)
			KUNIT_ASSERT_EQ(test, 0,
					twheel_timer_arm_on(&q->tick.timer,
							    q->deadline, 0,
							    TWHEEL_ABS, cpu));
		KUNIT_ASSERT_EQ(test, 0,
				twheel_timer_arm_on(&q->t[i].timer,
						    q->deadline, 0, TWHEEL_ABS,
						    cpu));
	}
	KUNIT_ASSERT_LT_MSG(test, ktime_get_ns() + twheel_tick_ns(),
			    q->deadline, "arming took over %u ms",
			    TWQ_AHEAD_MS);

	/* Expired by the tick, taken by no runner. */
	KUNIT_ASSERT_TRUE(test, twq_poll(&q->tick.fired, 1));
	KUNIT_ASSERT_EQ(test, 0, twheel_base_snapshot(cpu, &snap));
	KUNIT_EXPECT_EQ(test, snap.pending, 0UL);
	KUNIT_EXPECT_EQ(test, snap.expired, (unsigned long)TWQ_N);
	KUNIT_EXPECT_EQ(test, twheel_base_check_queues(cpu), TWQ_N);

	/* A whole run of group 3's queue, and one of group 0's (group 64). */
	for (i = first[4]; i < first[4] + twq_runs[4].n; i++)
		twq_cancel(test, q, cpu, i, &queued);
	for (i = first[3]; i < first[3] + twq_runs[3].n; i++)
		twq_cancel(test, q, cpu, i, &queued);
	/* From the middle of runs. */
	twq_cancel(test, q, cpu, first[0] + 2, &queued);
	twq_cancel(test, q, cpu, first[1] + 1, &queued);
	twq_cancel(test, q, cpu, first[5] + 1, &queued);

	complete_all(&q->gate);
	KUNIT_ASSERT_TRUE(test,
			  wait_for_completion_timeout(&q->done,
						      msecs_to_jiffies(TWQ_TIMEOUT_MS)));
	/* Nothing fires twice: give a duplicate the time to show. */
	msleep(20);
	for (i = 0; i < TWQ_N; i++)
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&q->t[i].fired),
				    q->t[i].cancelled ? 0 : 1, "timer %u", i);
	KUNIT_EXPECT_EQ(test, atomic_read(&q->tick.fired), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&q->early), 0);
	KUNIT_EXPECT_EQ(test, twheel_base_check_queues(cpu), 0);
}

/*
 * A queue a runner holds (its group's callback runs, blocked) takes the
 * runs the tick splices onto it, the first one while it is empty, and stays
 * off the round-robin list: the other runners, free, run a timer of group
 * 0 due after them all, and none of the held group's. Let go, the held
 * group's timers run in the order of their deadlines, each once and never
 * early. The CPU's interrupts are held off across their deadlines, one
 * tick apart, so that one late pass of the tick expires them all, or at
 * least the last two (an emulated guest may start the hold late): the
 * order then comes from the pass (the wheel hands a pass's timers out in
 * the order of their ticks), not from one pass per deadline.
 */
#define TWF_N		6
#define TWF_GROUP	3

struct twf {
	struct twheel_timer	holder;
	struct twheel_timer	probe;
	struct twheel_timer	t[TWF_N];
	u64			deadline[TWF_N];
	int			order[TWF_N];
	int			cpu[TWF_N];
	u64			stall[2];
	u64			stall_end;
	struct completion	gate;
	atomic_t		held;
	atomic_t		probed;
	atomic_t		seq;
	atomic_t		early;
};

static struct twf *twf_of;

static void twf_hold_fn(struct twheel_timer *timer)
{
	atomic_inc(&twf_of->held);
	wait_for_completion(&twf_of->gate);
}

static void twf_probe_fn(struct twheel_timer *timer)
{
	atomic_inc(&twf_of->probed);
}

static void twf_fn(struct twheel_timer *timer)
{
	struct twf *f = twf_of;
	unsigned int i = timer - f->t;

	if (ktime_get_ns() < f->deadline[i])
		atomic_inc(&f->early);
	f->cpu[i] = raw_smp_processor_id();
	f->order[i] = atomic_inc_return(&f->seq);
}

/* Holds interrupts off on its CPU until stall_end, noting when. */
static void twf_stall(void *data)
{
	u64 now = ktime_get_ns();

	twf_of->stall[0] = now;
	while (now < twf_of->stall_end) {
		cpu_relax();
		now = ktime_get_ns();
	}
	twf_of->stall[1] = now;
}

static void twf_stop(void *data)
{
	struct twf *f = data;
	unsigned int i;

	complete_all(&f->gate);
	twheel_timer_cancel_sync(&f->holder);
	twheel_timer_cancel_sync(&f->probe);
	for (i = 0; i < TWF_N; i++)
		twheel_timer_cancel_sync(&f->t[i]);
}

/*
 * Set up a struct twf for CPU @cpu, hold group TWF_GROUP's queue there (a
 * runner blocked in the holder's callback) and arm the group's timers at
 * deadlines a tick apart, last first, and the probe two ticks after them.
 */
static struct twf *twf_start(struct kunit *test, int cpu)
{
	u64 tick = twheel_tick_ns(), ahead, d;
	struct twf *f;
	unsigned int i;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	twf_of = f;
	init_completion(&f->gate);
	twheel_timer_init(&f->holder, twf_hold_fn);
	twheel_timer_set_group(&f->holder, TWF_GROUP);
	twheel_timer_init(&f->probe, twf_probe_fn);
	for (i = 0; i < TWF_N; i++) {
		twheel_timer_init(&f->t[i], twf_fn);
		twheel_timer_set_group(&f->t[i], TWF_GROUP);
	}
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, twf_stop, f));

	KUNIT_ASSERT_EQ(test, 0, twheel_timer_arm_on(&f->holder, 0, 0, 0, cpu));
	KUNIT_ASSERT_TRUE(test, twq_poll(&f->held, 1));

	ahead = max_t(u64, TWQ_AHEAD_MS * NSEC_PER_MSEC, 3 * tick);
	d = ktime_get_ns() + ahead;
	for (i = 0; i < TWF_N; i++)
		f->deadline[i] = d + i * tick;
	for (i = TWF_N; i-- > 0;)
		KUNIT_ASSERT_EQ(test, 0,
				twheel_timer_arm_on(&f->t[i], f->deadline[i],
						    0, TWHEEL_ABS, cpu));
	KUNIT_ASSERT_EQ(test, 0,
			twheel_timer_arm_on(&f->probe,
					    f->deadline[TWF_N - 1] + 2 * tick,
					    0, TWHEEL_ABS, cpu));
	KUNIT_ASSERT_LT_MSG(test, ktime_get_ns() + tick, d,
			    "arming took over %llu ms",
			    div_u64(ahead - tick, NSEC_PER_MSEC));
	return f;
}

/* The held group's timers ran once each, oldest first, never early. */
static void twf_check_ran(struct kunit *test, struct twf *f)
{
	unsigned int i;

	KUNIT_ASSERT_TRUE(test, twq_poll(&f->seq, TWF_N));
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->seq), TWF_N);
	for (i = 0; i < TWF_N; i++)
		KUNIT_EXPECT_EQ_MSG(test, f->order[i], (int)i + 1,
				    "timer %u ran out of its deadline order", i);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->early), 0);
}

static void twq_held_queue_fifo(struct kunit *test)
{
	int cpu = raw_smp_processor_id();
	u64 tick = twheel_tick_ns();
	unsigned int i;
	struct twf *f;

	/* Interrupts off for TWF_N + 1.5 ticks: at most a few milliseconds. */
	if (tick > 2 * NSEC_PER_MSEC)
		kunit_skip(test, "a tick of %llu us is too long to hold",
			   div_u64(tick, NSEC_PER_USEC));
	/*
	 * The stall is a local call: an IPI to another vCPU may wait for the
	 * host to run that vCPU. The case's own thread stays on @cpu.
	 */
	KUNIT_ASSERT_EQ(test, 0, set_cpus_allowed_ptr(current, cpumask_of(cpu)));
	f = twf_start(test, cpu);
	/*
	 * From half a tick before the first deadline to a tick after the
	 * last. A sleep may end late on an emulated guest: sleep up to three
	 * ticks before, then spin without being preempted (interrupts on).
	 */
	while (ktime_get_ns() + 3 * tick < f->deadline[0])
		usleep_range(100, 200);
	f->stall_end = f->deadline[TWF_N - 1] + tick;
	preempt_disable();
	while (ktime_get_ns() + tick / 2 < f->deadline[0])
		cpu_relax();
	smp_call_function_single(cpu, twf_stall, NULL, 1);
	preempt_enable();
	/*
	 * The deadlines from the start of the stall on are expired by one
	 * pass after it; at least two of them are needed. Late (emulation):
	 * fewer.
	 */
	for (i = 0; i < TWF_N && f->deadline[i] < f->stall[0]; i++)
		;
	kunit_info(test, "the stall held %u of %u deadlines, %lld..%lld us from the first\n",
		   TWF_N - i, TWF_N,
		   div_s64(f->stall[0] - f->deadline[0], NSEC_PER_USEC),
		   div_s64(f->stall[1] - f->deadline[0], NSEC_PER_USEC));
	if (i > TWF_N - 2 || f->stall[1] <= f->deadline[TWF_N - 1])
		kunit_skip(test, "the stall missed the deadlines");

	/* Group 0 runs; the held group's timers wait, queued, in order. */
	KUNIT_ASSERT_TRUE(test, twq_poll(&f->probed, 1));
	KUNIT_EXPECT_EQ(test, atomic_read(&f->seq), 0);
	KUNIT_EXPECT_EQ(test, twheel_base_check_queues(cpu), TWF_N);

	complete_all(&f->gate);
	twf_check_ran(test, f);
	KUNIT_EXPECT_EQ(test, twheel_base_check_queues(cpu), 0);
}

#define TWQ_HOTPLUG_CPU		1

static void twq_cpu_up(void *data)
{
	add_cpu((long)data);
}

/*
 * The CPU of a held queue goes down while the holder's callback is still
 * blocked: the queue's timers go with the CPU's other timers to an online
 * CPU (hotplug takes held queues too), where no runner holds their group,
 * and run there, before the holder returns, once each and in order; the
 * CPU's base is left with no expired timer.
 */
static void twq_held_queue_hotplug(struct kunit *test)
{
	const int cpu = TWQ_HOTPLUG_CPU;
	struct twf *f;
	unsigned int i;

	if (num_online_cpus() < 2 || !cpu_online(cpu))
		kunit_skip(test, "needs CPU %d online and another CPU", cpu);
	f = twf_start(test, cpu);
	KUNIT_ASSERT_TRUE(test, twq_poll(&f->probed, 1));
	KUNIT_EXPECT_EQ(test, atomic_read(&f->seq), 0);
	KUNIT_EXPECT_EQ(test, twheel_base_check_queues(cpu), TWF_N);

	KUNIT_ASSERT_EQ_MSG(test, remove_cpu(cpu), 0, "remove_cpu(%d)", cpu);
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, twq_cpu_up,
						  (void *)(long)cpu));
	KUNIT_EXPECT_EQ(test, twheel_base_check_queues(cpu), 0);
	twf_check_ran(test, f);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->held), 1);
	for (i = 0; i < TWF_N; i++)
		KUNIT_EXPECT_NE_MSG(test, f->cpu[i], cpu,
				    "timer %u ran on the CPU that went down", i);
	complete_all(&f->gate);
}

static struct kunit_case twq_cases[] = {
	KUNIT_CASE(twq_spliced_runs),
	KUNIT_CASE(twq_held_queue_fifo),
	KUNIT_CASE(twq_held_queue_hotplug),
	{}
};

static struct kunit_suite twq_suite = {
	.name = "twheel_queues",
	.test_cases = twq_cases,
};

kunit_test_suites(&twq_suite);
