// SPDX-License-Identifier: GPL-2.0
/*
 * twheel per-CPU driver: set-up of every possible CPU's base at module load
 * and tear-down at unload, and CPU hotplug in between: a CPU going down
 * hands its timers to an online one in bounded chunks. Design in base.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "base.h"
#include "base_int.h"
#include "compat.h"
#include "stats.h"

/*
 * Move at most @budget expired timers of @old to @new's queues, each to its
 * group's (the order in which @old would run them). Return: how many moved.
 */
static unsigned long tw_move_expired(struct twheel_base *old,
				     struct twheel_base *new,
				     unsigned long budget)
{
	struct twheel_timer *t;
	unsigned long n = 0;

	while (n < budget && (t = tw_fq_take_any(old))) {
		tw_fq_add(new, t);
		WRITE_ONCE(t->cpu, new->cpu);
		n++;
	}
	return n;
}

/*
 * Move at most TW_PASS_BUDGET timers of @old, pending or expired, to @new.
 * Both locked. Return: true if @old has none left.
 */
static bool tw_migrate_some(struct twheel_base *old, struct twheel_base *new)
{
	unsigned long budget = TW_PASS_BUDGET, n;
	struct twheel_timer *t;
	struct hlist_node *tmp;
	HLIST_HEAD(list);

	n = tw_wheel_drain(&old->wheel, &list, budget);
	budget -= n;
	/* No clock read here: both locks are held, interrupts off. */
	if (n && !new->wheel.pending)
		tw_wheel_forward(&new->wheel, tw_coarse_tick());
	hlist_for_each_entry_safe(t, tmp, &list, node.entry) {
		hlist_del_init(&t->node.entry);
		tw_wheel_add(&new->wheel, &t->node, t->node.expires);
		WRITE_ONCE(t->cpu, new->cpu);
	}
	n += tw_move_expired(old, new, budget);
	if (new->nr_expired)
		tw_kick(new, new->cpu);
	twheel_stat_add(migrated, n);
	tw_reprogram_next(new);
	if (old->wheel.pending || old->nr_expired)
		return false;
	tw_maybe_idle(old);
	return true;
}

/*
 * Move every timer of @old, pending or expired, to @new (both online or @old
 * going down), keeping each deadline tick: none fires early, none is lost
 * or doubled. None of them is running: a timer whose callback @old's runner
 * is running is in no list, and its runner enqueues it on an online base
 * when the callback returns. In bounded chunks,
 * with the locks dropped in between. Process context.
 */
static void tw_migrate(struct twheel_base *old, struct twheel_base *new)
{
	unsigned long flags;
	bool done;

	do {
		local_irq_save(flags);
		tw_lock_two_irqoff(old, new);
		done = tw_migrate_some(old, new);
		tw_unlock_two_irqoff(old, new);
		local_irq_restore(flags);
		cond_resched();
	} while (!done);
}

/*
 * CPU hotplug.
 *
 * twheel:online startup, on the CPU coming up: the base takes timers.
 *
 * twheel:online teardown, on the CPU going down, early: the base stops
 * taking timers and hands its own to another online CPU right away, so they
 * do not wait (late) for the rest of the CPU's teardown.
 *
 * twheel:prepare teardown, on a control CPU once the CPU is dead: moves
 * whatever is left (nothing, normally) to the local base and stops the dead
 * base's hrtimer, like timers_dead_cpu() does for timer_list.
 */
static int tw_cpu_online(unsigned int cpu)
{
	struct twheel_base *base = tw_base(cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&base->lock, flags);
	base->online = true;
	tw_reprogram_next(base);
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return 0;
}

static int tw_cpu_offline(unsigned int cpu)
{
	struct twheel_base *base = tw_base(cpu);
	unsigned long flags;
	int target;

	raw_spin_lock_irqsave(&base->lock, flags);
	base->online = false;
	raw_spin_unlock_irqrestore(&base->lock, flags);

	/* Hotplug is serialised: the target stays online meanwhile. */
	target = tw_fallback_cpu(cpu);
	if (target >= 0)
		tw_migrate(base, tw_base(target));
	return 0;
}

static int tw_cpu_dead(unsigned int cpu)
{
	struct twheel_base *old = tw_base(cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&old->lock, flags);
	old->online = false;
	raw_spin_unlock_irqrestore(&old->lock, flags);

	tw_migrate(old, tw_base(raw_smp_processor_id()));
	hrtimer_cancel(&old->tick);
	return 0;
}

static int tw_hp_prepare;
static int tw_hp_online;

/*
 * Register the hotplug callbacks of the bases; brings every online CPU's
 * base online. Return: 0 or a negative errno.
 */
static int tw_hotplug_init(void)
{
	int ret;

	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "twheel:prepare",
					NULL, tw_cpu_dead);
	if (ret < 0)
		return ret;
	tw_hp_prepare = ret;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "twheel:online",
				tw_cpu_online, tw_cpu_offline);
	if (ret < 0) {
		cpuhp_remove_state_nocalls(tw_hp_prepare);
		return ret;
	}
	tw_hp_online = ret;
	return 0;
}

/* Unregister the hotplug callbacks (without calling them). */
static void tw_hotplug_exit(void)
{
	cpuhp_remove_state_nocalls(tw_hp_online);
	cpuhp_remove_state_nocalls(tw_hp_prepare);
}

static void tw_free_bases(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		kfree(tw_base(cpu));
		per_cpu(twheel_base_ptr, cpu) = NULL;
	}
}

/*
 * The runners' workqueue: per-CPU, high priority, and on PREEMPT_RT CPU
 * intensive. There a spinlock_t is a sleeping lock whose waits the
 * workqueue's concurrency management does not see (they do not go through
 * schedule()'s wq_worker_sleeping()), so a callback blocked on one (a
 * /dev/twheel expiry waiting for its file's lock, held by the file's own
 * reader) would hold back every other runner of its CPU, and with them the
 * other users' timers that their turns would run (see "Runners" and
 * "Fairness" in base.h). CPU-intensive work items take no part in that
 * management: each queued runner starts at once in a worker of its own.
 */
#define TW_WQ_FLAGS	(WQ_HIGHPRI | TWHEEL_WQ_PERCPU |		\
			 (IS_ENABLED(CONFIG_PREEMPT_RT) ? WQ_CPU_INTENSIVE : 0))

/**
 * twheel_bases_init() - set up every possible CPU's base
 * @tick_us:	tick length in us (validated by the caller)
 * @bucket_bits:	log2 of the slots per level
 * @levels:	levels per wheel
 *
 * Return: 0 or a negative errno.
 */
int twheel_bases_init(unsigned int tick_us, unsigned int bucket_bits,
		      unsigned int levels)
{
	struct twheel_base *base;
	u64 now;
	unsigned int i;
	int cpu, ret;

	BUILD_BUG_ON(CONFIG_NR_CPUS - 1 > U16_MAX);
	tw_tick_ns = tick_us * NSEC_PER_USEC;
	tw_tick_recip = div_u64(U64_MAX, tw_tick_ns);
	tw_bucket_bits = bucket_bits;
	tw_nr_levels = levels;
	tw_max_ktime_tick = div_u64(KTIME_MAX, tw_tick_ns);

	twheel_wq = alloc_workqueue("twheel", TW_WQ_FLAGS, 0);
	if (!twheel_wq)
		return -ENOMEM;

	now = tw_ns_to_tick_floor(ktime_get_ns());
	for_each_possible_cpu(cpu) {
		base = kzalloc_node(sizeof(*base), GFP_KERNEL, cpu_to_node(cpu));
		if (!base) {
			ret = -ENOMEM;
			goto err_free;
		}
		ret = tw_wheel_init(&base->wheel, bucket_bits, levels, now);
		if (ret) {
			kfree(base);
			goto err_free;
		}
		raw_spin_lock_init(&base->lock);
		base->next_tick = TW_NO_TICK;
		INIT_LIST_HEAD(&base->fq_active);
		INIT_LIST_HEAD(&base->fq_held);
		for (i = 0; i < TW_FAIR_QUEUES; i++) {
			INIT_HLIST_HEAD(&base->fq[i].head);
			INIT_LIST_HEAD(&base->fq[i].link);
		}
		base->cpu = cpu;
		twheel_hrtimer_setup(&base->tick, tw_tick_fn, CLOCK_MONOTONIC,
				     HRTIMER_MODE_ABS_PINNED);
		for (i = 0; i < TW_RUNNERS; i++) {
			INIT_WORK(&base->runner[i].work, tw_work_fn);
			base->runner[i].base = base;
			base->runner[i].move_to = -1;
		}
		init_waitqueue_head(&base->waitq);
		INIT_CSD(&base->csd, tw_csd_fn, base);
		per_cpu(twheel_base_ptr, cpu) = base;
	}

	ret = tw_hotplug_init();
	if (ret < 0)
		goto err_free;
	return 0;

err_free:
	tw_free_bases();
	destroy_workqueue(twheel_wq);
	return ret;
}

/* Make the timers on @list idle; return how many. */
static unsigned long tw_idle_all(struct hlist_head *list, unsigned long max)
{
	struct twheel_timer *t;
	unsigned long n = 0;

	while (!hlist_empty(list) && n < max) {
		t = hlist_entry(list->first, struct twheel_timer, node.entry);
		hlist_del_init(&t->node.entry);
		WRITE_ONCE(t->state, TWHEEL_IDLE);
		n++;
	}
	return n;
}

/* Make at most @max expired timers of @base idle; return how many. */
static unsigned long tw_idle_expired(struct twheel_base *base,
				     unsigned long max)
{
	struct twheel_timer *t;
	unsigned long n = 0;

	while (n < max && (t = tw_fq_take_any(base))) {
		WRITE_ONCE(t->state, TWHEEL_IDLE);
		n++;
	}
	return n;
}

/*
 * Take every timer off @base at unload, in bounded chunks. Return how many
 * there were.
 */
static unsigned long tw_drain_base(struct twheel_base *base)
{
	unsigned long flags, n, left = 0;
	HLIST_HEAD(list);

	do {
		raw_spin_lock_irqsave(&base->lock, flags);
		n = tw_wheel_drain(&base->wheel, &list, TW_PASS_BUDGET);
		tw_idle_all(&list, n);
		if (!n)
			n = tw_idle_expired(base, TW_PASS_BUDGET);
		raw_spin_unlock_irqrestore(&base->lock, flags);
		left += n;
		cond_resched();
	} while (n);
	return left;
}

/**
 * twheel_bases_exit() - tear every base down at module unload
 *
 * No user can arm any more (users hold a module reference). Timers still
 * pending are cancelled, with a warning: an in-kernel user forgot them.
 */
void twheel_bases_exit(void)
{
	unsigned long flags, left = 0;
	int cpu;

	tw_hotplug_exit();

	for_each_possible_cpu(cpu) {
		struct twheel_base *base = tw_base(cpu);

		raw_spin_lock_irqsave(&base->lock, flags);
		base->online = false;
		raw_spin_unlock_irqrestore(&base->lock, flags);
	}
	/* Let any reprogram IPI in flight finish: it sees !online. */
	for_each_possible_cpu(cpu)
		tw_wait_csd(tw_base(cpu));
	/*
	 * Nothing starts the tick of an offline base again (__tw_reprogram()),
	 * so once cancelled it stays so, also while the runners below finish.
	 */
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&tw_base(cpu)->tick);
	/* Runs the batches already expired; periodic re-arms find no base. */
	destroy_workqueue(twheel_wq);

	for_each_possible_cpu(cpu)
		left += tw_drain_base(tw_base(cpu));
	if (left)
		pr_warn("%lu timers still armed at unload were cancelled\n",
			left);
	tw_free_bases();
}
