// SPDX-License-Identifier: GPL-2.0
/*
 * twheel per-CPU driver: CPU hotplug. A CPU going down hands its timers to
 * an online one in bounded chunks. Design in base.h.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/hrtimer.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "base.h"
#include "base_int.h"
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

/**
 * tw_hotplug_init() - register the hotplug callbacks of the bases
 *
 * Brings every online CPU's base online.
 *
 * Return: 0 or a negative errno.
 */
int tw_hotplug_init(void)
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
void tw_hotplug_exit(void)
{
	cpuhp_remove_state_nocalls(tw_hp_online);
	cpuhp_remove_state_nocalls(tw_hp_prepare);
}
