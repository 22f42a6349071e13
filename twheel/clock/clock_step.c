// SPDX-License-Identifier: GPL-2.0
/*
 * twheel clocks: following clock steps (design in clock.h). Clock-bound
 * timers are armed in the CLOCK_MONOTONIC wheel with their clocks' offsets
 * of their arm time; when an offset changes (clock_settime(), an adjtimex()
 * step, a leap second, resume from suspend) they are re-armed with the new
 * one: the in-kernel clock timers by twheel_clock_step(), those of every
 * struct twheel_step_client by its ->step().
 *
 * The timekeeping core calls its pvclock_gtod notifiers at every update,
 * with the timekeeper lock held and interrupts off; only updates that set
 * the clock pass was_set. The notifier then counts the set and queues an
 * irq_work, whose function queues twheel_step_work: nothing else runs under
 * that lock. The irq_work is a hard one (IRQ_WORK_INIT_HARD): it runs in
 * hard interrupt context on PREEMPT_RT too, not in the irq_work thread, and
 * only queues the work (raw locks, O(1)). The work goes on twheel_step_wq,
 * high priority, per CPU and CPU intensive: it runs on the CPU that set the
 * clock (a housekeeping one if that CPU is isolated), in a worker at nice
 * -20, rather than in one of the unbound pool that the scheduler may wake
 * on an idle CPU, so that the timers a step
 * made due follow it by about what a timerfd's hrtimer does (the clients
 * deliver those in the walk: dev_timer.c); CPU intensive, a long walk does
 * not hold back the other high-priority work items of that CPU. The work
 * compares the offsets with the last ones it saw and re-arms the timers of
 * the clocks whose offset moved. When none moved but
 * a set came since its last walk (two steps that cancel out before the work
 * runs: the timers armed between them have an offset that is neither), it
 * walks the timers of both clocks. A set that changed nothing (the
 * notifier's registration) costs such a walk too.
 *
 * Suspend: at PM_SUSPEND_PREPARE the clients walk their alarm timers
 * (->alarm_min()), deliver the due ones and report the earliest of the
 * others, at which clock_wake.c then sets the wake-ups (design there);
 * before tasks are frozen, so in process context, and cost O(armed alarm
 * timers) once per suspend (debugfs wake_walk_max_us). The walk runs
 * again, from a work item, if a wake-up expires before the system sleeps.
 *
 * Cost: O(armed clock-bound timers on the clocks that moved) per step, in
 * process context; nothing per arm or expiry. Walks are serialised by
 * twheel_step_clients_lock, which also guards the list of clients, so a
 * client that is removed is not being walked.
 */
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/pvclock_gtod.h>
#include <linux/sched/isolation.h>
#include <linux/suspend.h>
#include <linux/workqueue.h>

#include "clock.h"
#include "compat.h"
#include "stats.h"

/* The clients, one walk at a time, and the offsets seen last. */
static DEFINE_MUTEX(twheel_step_clients_lock);
static LIST_HEAD(twheel_step_clients);
static s64 twheel_step_real;
static s64 twheel_step_boot;
static unsigned int twheel_step_seen;	/* twheel_step_sets at the last walk */
static atomic_t twheel_step_sets;	/* clock sets notified */
static struct workqueue_struct *twheel_step_wq;

static void twheel_step_work_fn(struct work_struct *work)
{
	/* The count before the offsets: a later set queues the work again. */
	unsigned int sets = atomic_read_acquire(&twheel_step_sets);
	s64 real = twheel_uclock_offs(TWHEEL_UCLK_REAL);
	s64 boot = twheel_uclock_offs(TWHEEL_UCLK_BOOT);
	struct twheel_step_client *c;
	unsigned int clocks = 0;
	unsigned long n = 0;
	u64 t0;

	mutex_lock(&twheel_step_clients_lock);
	if (real != twheel_step_real)
		clocks |= BIT(TWHEEL_UCLK_REAL);
	if (boot != twheel_step_boot)
		clocks |= BIT(TWHEEL_UCLK_BOOT);
	if (!clocks && sets != twheel_step_seen)
		clocks = BIT(TWHEEL_UCLK_REAL) | BIT(TWHEEL_UCLK_BOOT);
	if (clocks) {
		t0 = ktime_get_ns();
		twheel_step_real = real;
		twheel_step_boot = boot;
		twheel_step_seen = sets;
		list_for_each_entry(c, &twheel_step_clients, link)
			n += c->step(c, clocks);
		n += twheel_clock_step(clocks);
		twheel_stat_max(raw_cpu_ptr(&twheel_stats.clock_step_max_ns),
				ktime_get_ns() - t0);
		twheel_stat_add(clock_rebound, n);
		twheel_stat_inc(clock_steps);
	}
	mutex_unlock(&twheel_step_clients_lock);
}

static DECLARE_WORK(twheel_step_work, twheel_step_work_fn);

/*
 * Hard interrupt context, PREEMPT_RT included: queue_work() takes raw locks.
 * On the CPU that set the clock, unless it is isolated from workqueues
 * (isolcpus, nohz_full): then on a housekeeping CPU, as an unbound work
 * item would be.
 */
static void twheel_step_irq_work_fn(struct irq_work *iw)
{
	int cpu = smp_processor_id();

	if (!housekeeping_cpu(cpu, HK_TYPE_WQ))
		cpu = housekeeping_any_cpu(HK_TYPE_WQ);
	queue_work_on(cpu, twheel_step_wq, &twheel_step_work);
}

static struct irq_work twheel_step_irq_work =
	IRQ_WORK_INIT_HARD(twheel_step_irq_work_fn);

/* Timekeeper lock held, interrupts off: only queue. */
static int twheel_step_notify(struct notifier_block *nb, unsigned long was_set,
			      void *tk)
{
	if (was_set) {
		atomic_inc(&twheel_step_sets);
		irq_work_queue(&twheel_step_irq_work);
	}
	return NOTIFY_DONE;
}

static struct notifier_block twheel_step_nb = {
	.notifier_call = twheel_step_notify,
};

/*
 * Deliver the due alarm timers and put the wake-ups of the alarm clocks at
 * the earliest of the others.
 */
static void twheel_step_wake_walk(void)
{
	u64 min[TWHEEL_WAKE_CLOCKS] = { KTIME_MAX, KTIME_MAX };
	struct twheel_step_client *c;
	unsigned long n = 0;
	u64 t0;

	mutex_lock(&twheel_step_clients_lock);
	t0 = ktime_get_ns();
	twheel_wake_walk_begin();
	list_for_each_entry(c, &twheel_step_clients, link)
		if (c->alarm_min)
			n += c->alarm_min(c, min);
	twheel_wake_set(min);
	twheel_stat_max(raw_cpu_ptr(&twheel_stats.wake_walk_max_ns),
			ktime_get_ns() - t0);
	twheel_stat_add(wake_walked, n);
	twheel_stat_inc(wake_walks);
	mutex_unlock(&twheel_step_clients_lock);
}

static void twheel_step_rewalk_fn(struct work_struct *work)
{
	twheel_step_wake_walk();
}

static DECLARE_WORK(twheel_step_rewalk, twheel_step_rewalk_fn);

/* Process context, before the freezer and after the thaw. */
static int twheel_step_pm_notify(struct notifier_block *nb,
				 unsigned long action, void *data)
{
	switch (action) {
	case PM_SUSPEND_PREPARE:
		twheel_wake_suspending(true);
		twheel_step_wake_walk();
		break;
	case PM_POST_SUSPEND:
		twheel_wake_suspending(false);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block twheel_step_pm_nb = {
	.notifier_call = twheel_step_pm_notify,
};

/**
 * twheel_step_client_add() - let clock steps re-arm @c's timers
 * @c:	the client, ->step set
 *
 * Context: process context, may sleep (waits for a walk in progress).
 */
void twheel_step_client_add(struct twheel_step_client *c)
{
	mutex_lock(&twheel_step_clients_lock);
	list_add_tail(&c->link, &twheel_step_clients);
	mutex_unlock(&twheel_step_clients_lock);
}

/**
 * twheel_step_client_del() - stop calling @c
 * @c:	a client added before
 *
 * Returns once no walk calls @c.
 *
 * Context: process context, may sleep.
 */
void twheel_step_client_del(struct twheel_step_client *c)
{
	mutex_lock(&twheel_step_clients_lock);
	list_del_init(&c->link);
	mutex_unlock(&twheel_step_clients_lock);
}

/**
 * twheel_clock_steps_init() - start following clock steps and suspends
 *
 * Return: 0, -ENOMEM or a notifier registration's error.
 */
int twheel_clock_steps_init(void)
{
	int ret;

	twheel_step_real = twheel_uclock_offs(TWHEEL_UCLK_REAL);
	twheel_step_boot = twheel_uclock_offs(TWHEEL_UCLK_BOOT);
	twheel_step_seen = atomic_read(&twheel_step_sets);
	twheel_step_wq = alloc_workqueue("twheel_step", WQ_HIGHPRI |
					 WQ_CPU_INTENSIVE | TWHEEL_WQ_PERCPU, 1);
	if (!twheel_step_wq)
		return -ENOMEM;
	twheel_wake_init(&twheel_step_rewalk);
	ret = register_pm_notifier(&twheel_step_pm_nb);
	if (ret)
		goto err_wq;
	ret = pvclock_gtod_register_notifier(&twheel_step_nb);
	if (ret)
		goto err_pm;
	return 0;

err_pm:
	unregister_pm_notifier(&twheel_step_pm_nb);
err_wq:
	destroy_workqueue(twheel_step_wq);
	return ret;
}

/**
 * twheel_clock_steps_exit() - stop following clock steps and suspends
 *
 * No client may be left, no clock timer armed.
 */
void twheel_clock_steps_exit(void)
{
	WARN_ON(!list_empty(&twheel_step_clients));
	pvclock_gtod_unregister_notifier(&twheel_step_nb);
	irq_work_sync(&twheel_step_irq_work);
	cancel_work_sync(&twheel_step_work);
	destroy_workqueue(twheel_step_wq);
	unregister_pm_notifier(&twheel_step_pm_nb);
	twheel_wake_exit();
	/* Queued by a wake-up's expiry during a suspend. */
	cancel_work_sync(&twheel_step_rewalk);
}
