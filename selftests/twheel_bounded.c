// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_bounded - the work a tick does with interrupts off is bounded,
 * however many timers share one tick.
 *
 * One file arms a burst of timers (1 000 000; 20 000 on a debug kernel)
 * on CPU 0, all with the same absolute deadline, and reads every event
 * back. The driver expires at most TWHEEL_LOCK_BUDGET timers per pass of the
 * tick with the base lock held and interrupts off and lets its work item
 * finish the rest, so debugfs must show passes that ran out of budget
 * ("behind" grew) and a longest pass ("pass_max_us", reset with
 * "reset_max" before the deadline) below a tick on a production kernel
 * (20 ms on a debug kernel: KASAN and lockdep make every node cost many
 * times more), plus what a control measured in the same window: how late
 * a SCHED_FIFO thread (priority 98, above the guest's own threads) on the
 * other online CPU woke from 500 us sleeps while the burst ran, which is
 * how long the host stalled a vCPU (under TCG a vCPU may be stalled by
 * the emulator or a loaded host for milliseconds with interrupts off,
 * which a bounded pass cannot prevent).
 * Before the bound, one pass over 1 000 000 timers took 190 ms natively,
 * over a second under QEMU TCG. The test measures up to three bursts and
 * keeps the best against its own control, and a burst whose deadline
 * passed while it was being armed is armed again with twice the margin
 * (not measured).
 *
 * The emulated guest shares two host cores among four vCPUs, so a vCPU
 * may be descheduled by the host in the middle of a pass: the test takes
 * all CPUs but two offline while it runs, and a burst whose longest pass is
 * over the bound is retried (three bursts at most), which a pass over all
 * the burst's timers would fail every time.
 *
 * A behaviour test, not an ABI one: it arms, waits and reads through
 * libtwheel (twheel_arm_batch() splits the burst into kernel batches).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <twheel.h>

#include "twheel_hard.h"
#include "kselftest_harness.h"

#define MS		1000000ULL
#define CHUNK		65536

static bool debug_kernel(void)
{
	return access("/proc/lockdep", F_OK) == 0;
}

/* Arm @n timers due at @deadline (CLOCK_MONOTONIC) on CPU 0. */
static long arm_burst(struct twheel *tw, unsigned int n, uint64_t deadline)
{
	struct twheel_arm *a = calloc(CHUNK, sizeof(*a));
	unsigned int i, done = 0, k;
	long armed = 0, ret;

	if (!a)
		return -ENOMEM;
	while (done < n) {
		k = n - done < CHUNK ? n - done : CHUNK;
		for (i = 0; i < k; i++) {
			twheel_arm_init(&a[i], deadline, 0, done + i);
			a[i].flags = TWHEEL_ARM_ABS | TWHEEL_ARM_CPU;
			a[i].clockid = CLOCK_MONOTONIC;
			a[i].cpu = 0;
		}
		ret = twheel_arm_batch(tw, a, k, NULL);
		if (ret < 0) {
			free(a);
			return ret;
		}
		armed += ret;
		done += k;
	}
	free(a);
	return armed;
}

/* Read @n events (each exactly once, none early); return how many. */
static long read_burst(struct twheel *tw, unsigned int n, uint64_t deadline,
		       unsigned char *seen, long *early)
{
	static struct twheel_event ev[4096];
	long got = 0, dup = 0;
	int i, r;

	while (got < n) {
		if (twheel_wait(tw, 120000) != 1)
			break;
		r = twheel_read(tw, ev, TW_ARRAY_SIZE(ev));
		if (r == -EAGAIN)
			continue;
		if (r <= 0)
			break;
		for (i = 0; i < r; i++) {
			if (ev[i].cookie >= n || seen[ev[i].cookie]++)
				dup++;
			if (ev[i].expired < deadline)
				(*early)++;
			got++;
		}
	}
	return dup ? -dup : got;
}

/*
 * The control: a SCHED_FIFO thread on @cpu wakes from STALL_SLEEP_NS
 * sleeps until told to stop, and keeps the worst lateness of a wake-up.
 */
#define STALL_SLEEP_NS	500000ULL

struct stall {
	pthread_t	th;
	int		cpu;
	bool		fifo;		/* got SCHED_FIFO */
	volatile bool	stop;
	uint64_t	worst_ns;
	unsigned long	wakes;
};

static void *stall_fn(void *arg)
{
	/* Above the guest's own threads (PREEMPT_RT's irq and timer ones). */
	struct sched_param sp = {
		.sched_priority = sched_get_priority_max(SCHED_FIFO) - 1,
	};
	struct stall *s = arg;
	struct timespec ts;
	uint64_t t, now;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	s->fifo = !sched_setscheduler(0, SCHED_FIFO, &sp);
	while (!s->stop) {
		t = tw_now() + STALL_SLEEP_NS;
		ts.tv_sec = t / 1000000000ULL;
		ts.tv_nsec = t % 1000000000ULL;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		now = tw_now();
		if (now > t && now - t > s->worst_ns)
			s->worst_ns = now - t;
		s->wakes++;
	}
	return NULL;
}

static int stall_start(struct stall *s, int cpu)
{
	memset(s, 0, sizeof(*s));
	s->cpu = cpu;
	return pthread_create(&s->th, NULL, stall_fn, s);
}

static void stall_stop(struct stall *s)
{
	s->stop = true;
	pthread_join(s->th, NULL);
}

/*
 * Two online CPUs: the host has two cores, so two vCPUs are not
 * descheduled by each other in the middle of a pass, as four busy ones are.
 * The burst needs CPU 0 and a reader elsewhere.
 */
#define BURST_CPUS	2

FIXTURE(burst) {
	bool offlined[64];
};

FIXTURE_SETUP(burst)
{
	long cpu, n = sysconf(_SC_NPROCESSORS_CONF);

	memset(self->offlined, 0, sizeof(self->offlined));
	for (cpu = BURST_CPUS; cpu < n && cpu < 64; cpu++)
		if (tw_cpu_hotpluggable(cpu) && !tw_cpu_set_online(cpu, 0))
			self->offlined[cpu] = true;
}

FIXTURE_TEARDOWN(burst)
{
	int cpu;

	for (cpu = 0; cpu < 64; cpu++)
		if (self->offlined[cpu])
			tw_cpu_set_online(cpu, 1);
}

/* Arming and reading a million timers take a while under emulation. */
TEST_F_TIMEOUT(burst, in_one_tick_is_bounded, 280)
{
	unsigned int n = debug_kernel() ? 20000 : 1000000;
	long long tick_us = tw_read_ll(TW_PARAMS "/tick_us");
	uint64_t base_us = debug_kernel() ? 20000 : tick_us, bound_us = 0;
	long long cap = tw_read_ll(TW_PARAMS "/max_timers_per_fd");
	struct tw_stats s0, s1, se;
	uint64_t best = UINT64_MAX, pass_us;
	struct stall ctl;
	unsigned char *seen;
	int ctl_cpu;
	uint64_t deadline, t0, margin_ms = debug_kernel() ? 12000 : 6000;
	long armed, got, early;
	struct twheel *tw;
	int attempt = 0, tries;

	if (cap > 0 && cap < n)
		n = cap;
	tw_stats_read(&s0);
	if (!s0.ok || !tw_stats_has(&s0, TWS_PASS_MAX_US))
		SKIP(return, "no debugfs stats with pass_max_us");
	ASSERT_LT(0, tick_us);
	/* The control's CPU: online, not CPU 0. */
	for (ctl_cpu = 1; ctl_cpu < 64 && twl_cpu_online(ctl_cpu) != 1; ctl_cpu++)
		;
	ASSERT_GT(64, ctl_cpu) TH_LOG("no online CPU but CPU 0");
	seen = calloc(n, 1);
	ASSERT_NE(NULL, seen);
	for (tries = 0; attempt < 3 && tries < 5; tries++) {
		memset(seen, 0, n);
		early = 0;
		ASSERT_EQ(0, twheel_open(TW_DEV, O_NONBLOCK, &tw));
		/*
		 * Arming a million timers takes seconds under emulation, and
		 * more on a loaded host: if the deadline passed while arming,
		 * the burst is tried again with twice the margin.
		 */
		tw_stats_read(&se);
		t0 = tw_now();
		deadline = t0 + margin_ms * MS;
		armed = arm_burst(tw, n, deadline);
		ASSERT_EQ((long)n, armed);
		printf("# armed %u timers in %llu ms\n", n,
		       (unsigned long long)((tw_now() - t0) / MS));
		if (tw_now() >= deadline) {
			twheel_close(tw);
			margin_ms *= 2;
			printf("# the deadline passed while arming; margin now %llu ms\n",
			       (unsigned long long)margin_ms);
			continue;
		}
		attempt++;
		ASSERT_EQ(0, stall_start(&ctl, ctl_cpu));
		tw_stats_read(&s0);
		ASSERT_EQ(0, tw_write_file(TW_DBG "/stats", "reset_max"));
		got = read_burst(tw, n, deadline, seen, &early);
		tw_stats_read(&s1);
		stall_stop(&ctl);
		twheel_close(tw);
		ASSERT_EQ((long)n, got);
		/* Events report when the wheel fired them, never clamped. */
		ASSERT_EQ(0, early);
		/* And none was re-armed for firing before its deadline. */
		if (tw_stats_has(&se, TWS_UTIMER_EARLY))
			ASSERT_EQ(0, tw_stats_delta(&se, &s1, TWS_UTIMER_EARLY));
		EXPECT_LT(0, tw_stats_delta(&s0, &s1, TWS_BEHIND))
			TH_LOG("no pass ran out of budget: nothing was bounded");
		EXPECT_LT(0, ctl.wakes);
		pass_us = tw_stats_v(&s1, TWS_PASS_MAX_US);
		printf("# burst %d: %u timers in one tick on CPU 0\n", attempt, n);
		printf("# passes behind %lld, longest pass %llu us (bound %llu us + control %llu us, CPU %d%s, %lu wakes)\n",
		       (long long)tw_stats_delta(&s0, &s1, TWS_BEHIND),
		       (unsigned long long)pass_us,
		       (unsigned long long)base_us,
		       (unsigned long long)ctl.worst_ns / 1000, ctl_cpu,
		       ctl.fifo ? ", SCHED_FIFO" : "", ctl.wakes);
		printf("# last event read %llu ms after the deadline\n",
		       (unsigned long long)((tw_now() - deadline) / MS));
		/* Each burst against its own window's control. */
		if (pass_us <= base_us + ctl.worst_ns / 1000 || pass_us < best) {
			best = pass_us;
			bound_us = base_us + ctl.worst_ns / 1000;
		}
		if (best <= bound_us)
			break;
	}
	free(seen);
	ASSERT_LT(0, attempt) TH_LOG("every burst's deadline passed while arming");
	printf("# longest pass of the burst kept %llu us (bound %llu us: %llu + its control)\n",
	       (unsigned long long)best, (unsigned long long)bound_us,
	       (unsigned long long)base_us);
	ASSERT_LE(best, bound_us);
}

TEST_HARNESS_MAIN
