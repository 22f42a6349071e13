// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-ubench burst N [IMPL]: N timers armed for one absolute deadline D
 * (UB_BURST_LEAD ahead) through twheel_ring (the default) or twheel_batch
 * (ABI 1: TWHEEL_IOC_ARM_BATCH, read()), consumed as that peer consumes
 * them, beside two timerfd controls (ubench_sampler.c): one on another
 * CPU, one on the burst's.
 *
 * drain_ms = (clock read right after the pass that saw the last record) - D,
 * first_ms the same for the first record; missing = timers never seen
 * within UB_BURST_WAIT; early, dup, bad: struct ub_burst (dup and bad also
 * counted for 50 ms after the last record). ctrl_ms = the worst lateness of
 * the control on another CPU over its samples due from 100 ms before D to
 * the last record, ctrl_same_ms the same for the control on the burst's
 * CPU; bound_ms = tick + 3 x ctrl_ms, the drain the burst is held to: what
 * the wheel adds (one tick) beside three times what the guest made any
 * timer wait in the same window. The bound takes the other CPU's control:
 * the burst's own CPU is busy with the burst, and a burst that starved its
 * neighbour there would widen its own bound.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <string.h>
#include <unistd.h>
#include <linux/twheel.h>
#include <twheel.h>

#include "ubench.h"

#define UB_CTRL_BEFORE	100000000ULL	/* control window: from D - 100 ms */

/* Record of timer @i (cookie @cookie, deadline @deadline) seen. */
void ub_burst_saw(struct ub_burst *b, uint64_t i, uint64_t cookie,
		  uint64_t deadline)
{
	if (i >= b->n || cookie != i || deadline != b->deadline) {
		b->bad++;
		return;
	}
	if (!b->seen[i])
		b->distinct++;
	else
		b->dup++;
	if (b->seen[i] < UINT8_MAX)
		b->seen[i]++;
}

/*
 * A pass over the peer's queue ended at @now; @before: distinct + dup + bad
 * before it.
 */
void ub_burst_pass(struct ub_burst *b, unsigned long before, uint64_t now)
{
	unsigned long k = b->distinct + b->dup + b->bad - before;

	if (!k)
		return;
	if (now < b->deadline)
		b->early += k;
	if (!b->first)
		b->first = now;
	b->last = now;
	b->passes++;
}

static uint64_t ub_tick_ns(void)
{
	struct twheel_info info;
	struct twheel *tw;
	uint64_t tick = 0;

	if (twheel_open(NULL, 0, &tw))
		ub_die(UB_DEV);
	if (!twheel_get_info(tw, &info))
		tick = info.tick_ns;
	twheel_close(tw);
	if (!tick)
		ub_die("TWHEEL_IOC_INFO");
	return tick;
}

static double ub_ms_after(uint64_t t, uint64_t d)
{
	return t > d ? (double)(t - d) / 1e6 : 0.0;
}

int ub_burst_main(int argc, char **argv)
{
	const char *impl = argc > 3 ? argv[3] : "twheel_ring";
	struct ub_burst b = { };
	struct ub_sampler *ctrl, *same;
	unsigned long samples, same_samples;
	uint64_t tick, worst, worst_same, to;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int cpu = sched_getcpu();

	if (argc < 3 || argc > 4)
		return 1;
	b.n = strtoul(argv[2], NULL, 0);
	if (!b.n || b.n > TWHEEL_TABLE_MAX_SLOTS)
		return 1;
	ub_raise_limits(b.n);
	tick = ub_tick_ns();
	b.seen = ub_alloc(b.n, 1);
	if (cpu < 0 || ncpu < 2)
		ub_die("burst: needs two online CPUs");
	ctrl = ub_sampler_start((cpu + 1) % ncpu);
	same = ub_sampler_start(cpu);
	if (!strcmp(impl, "twheel_ring"))
		ub_burst_ring(&b);
	else if (!strcmp(impl, "twheel_batch"))
		ub_burst_abi1(&b);
	else
		ub_die("burst: no peer %s (twheel_ring, twheel_batch)", impl);
	to = b.last > b.deadline ? b.last : b.deadline;
	worst = ub_sampler_stop(ctrl, b.deadline - UB_CTRL_BEFORE, to,
				&samples);
	worst_same = ub_sampler_stop(same, b.deadline - UB_CTRL_BEFORE, to,
				     &same_samples);

	printf("RESULT burst impl=%s n=%lu drain_ms=%.3f", impl, b.n,
	       ub_ms_after(b.last, b.deadline));
	printf(" first_ms=%.3f early=%lu missing=%lu dup=%lu bad=%lu",
	       ub_ms_after(b.first, b.deadline), b.early, b.n - b.distinct,
	       b.dup, b.bad);
	printf(" tick_ms=%.3f ctrl_ms=%.3f ctrl_samples=%lu bound_ms=%.3f",
	       tick / 1e6, worst / 1e6, samples, (tick + 3 * worst) / 1e6);
	printf(" ctrl_same_ms=%.3f ctrl_same_samples=%lu", worst_same / 1e6,
	       same_samples);
	printf(" passes=%lu sleeps=%lu arm_ms=%.1f late_arm=%d %s\n",
	       b.passes, b.sleeps, b.arm_ns / 1e6, b.late_arm, b.desc);
	free(b.seen);
	return b.distinct == b.n && !b.early && !b.dup && !b.bad ? 0 : 3;
}
