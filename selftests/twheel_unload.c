// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_unload - unload with reprogram IPIs in flight.
 *
 * An arm from one CPU that makes another CPU's next tick earlier sends that
 * CPU an IPI (base.h, "Tickless"); module unload must wait for such IPIs
 * before it frees the bases. Each cycle loads twheel.ko, arms timers on
 * every online CPU with ever earlier deadlines (from another CPU, an IPI
 * each, or a coalesced one), closes the file and removes the module at
 * once, in the same thread: the last IPIs are then still queued or running
 * when delete_module(2) starts. (The program is not pinned to one CPU:
 * TWHEEL_ARM_CPU accepts only CPUs the caller may run on.) A use after
 * free there shows as a KASAN report or an oops in the kernel log (make
 * check fails on either).
 *
 * unload_with_runner_catching_up: the last close and the unload come while
 * a runner is catching up on a burst of timers due in one tick (8 passes'
 * worth), held between two passes by the runner_pass hook (test builds):
 * the unload must wait for it, and nothing it does then may start the
 * tick hrtimer of a base about to be freed. The burst is armed in one
 * batch, well before it is due (armed one at a time on a slow guest, it
 * came due while being armed and no pass ran out of budget: the runner
 * was never held), and each cycle fails unless the runner was held, and
 * still had passes to do, when the file was closed.
 *
 * unload_with_every_kind_armed: each cycle arms on several files timers of
 * every kind (ABI 1 one-shot and periodic on every CPU, CLOCK_REALTIME and
 * CLOCK_BOOTTIME, cancel-on-set, both alarm clocks, a ring table whose
 * periodic slots overflow its ring into the backlog), lets them fire for a
 * few ticks, steps CLOCK_REALTIME (a clock step's irq_work and work item
 * then run), closes the files and removes the module at once: what close
 * leaves running (callbacks, runners catching up, the step work, the
 * wake-up alarms, which an alarm timer due right then has just fired) must
 * be gone before the module's memory is.
 *
 * It needs the module file (TW_KO, default /lib/modules/twheel/twheel.ko)
 * and the module not in use by another module (twheel_kunit holds it: the
 * guest then runs this program again after unloading the modules). The
 * module is left loaded or not, as it was found.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/syscall.h>

#include "twheel_hard.h"
#include "twheel_ring.h"
#include "kselftest_harness.h"

#ifndef CLOCK_REALTIME_ALARM
#define CLOCK_REALTIME_ALARM	8
#define CLOCK_BOOTTIME_ALARM	9
#endif

#define TW_KO_DEFAULT	"/lib/modules/twheel/twheel.ko"
#define CYCLES		10
#define ARMS_PER_CPU	64
#define MS		1000000ULL

static bool module_loaded(void)
{
	return access("/sys/module/twheel", F_OK) == 0;
}

static int load(int kofd)
{
	return syscall(SYS_finit_module, kofd, "", 0) ? -errno : 0;
}

static int unload(void)
{
	return syscall(SYS_delete_module, "twheel", O_NONBLOCK) ? -errno : 0;
}

/* /dev/twheel appears with the module (devtmpfs): wait a little for it. */
static int open_dev(void)
{
	int i, fd = -1;

	for (i = 0; i < 100 && fd < 0; i++) {
		fd = tw_open(0);
		if (fd < 0)
			tw_sleep_ms(10);
	}
	return fd;
}

/* insmod of a KASAN build under TCG takes seconds: more than 30 s. */
FIXTURE(slow) {
};

FIXTURE_SETUP(slow)
{
}

FIXTURE_TEARDOWN(slow)
{
}

TEST_F_TIMEOUT(slow, unload_with_ipis_in_flight, 240)
{
	const char *ko = getenv("TW_KO") ?: TW_KO_DEFAULT;
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	bool was_loaded = module_loaded();
	unsigned long arms = 0;
	int kofd, cycle, cpu, i, fd;
	cpu_set_t set;
	long r;

	if (ncpu < 2 || sched_getaffinity(0, sizeof(set), &set) ||
	    CPU_COUNT(&set) < 2)
		SKIP(return, "needs two online CPUs to run on");
	kofd = open(ko, O_RDONLY | O_CLOEXEC);
	if (kofd < 0)
		SKIP(return, "%s: %s", ko, strerror(errno));
	if (was_loaded && tw_read_ll("/sys/module/twheel/refcnt") != 0)
		SKIP(close(kofd); return,
		     "twheel is in use (twheel_kunit holds it): run after unloading that");
	for (cycle = 0; cycle < CYCLES; cycle++) {
		if (cycle || !was_loaded)
			ASSERT_EQ(0, load(kofd)) TH_LOG("cycle %d: load", cycle);
		fd = open_dev();
		ASSERT_LE(0, fd) TH_LOG("cycle %d: %s: %s", cycle, TW_DEV,
					strerror(errno));
		/* Each arm lowers its CPU's next tick: a reprogram IPI. */
		for (i = 0; i < ARMS_PER_CPU; i++) {
			for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
				if (!CPU_ISSET(cpu, &set))
					continue;
				r = tw_arm(fd, TWHEEL_ARM_CPU,
					   (ARMS_PER_CPU - i) * 10 * MS, 0, 0,
					   cpu, NULL);
				if (r && errno == ENXIO)	/* offline */
					continue;
				ASSERT_EQ(0, r) TH_LOG("cycle %d cpu %d: %s",
						       cycle, cpu,
						       strerror(errno));
				arms++;
			}
		}
		close(fd);
		ASSERT_EQ(0, unload()) TH_LOG("cycle %d: unload", cycle);
	}
	if (was_loaded)
		EXPECT_EQ(0, load(kofd));
	close(kofd);
	ksft_print_msg("unload cycles: %d, arms on every CPU: %lu\n", CYCLES,
		       arms);
}

#define KIND_FILES	4
#define KIND_N		64
#define RING_SLOTS	128
#define RING_ENTRIES	16

/* Arm KIND_N timers of each ABI-1 kind on @fd: the count armed, or -errno. */
static long arm_every_kind(int fd, const cpu_set_t *set, uint64_t tick)
{
	static const int clocks[] = {
		CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_BOOTTIME,
		CLOCK_REALTIME_ALARM, CLOCK_BOOTTIME_ALARM,
	};
	struct twheel_batch b = { .size = sizeof(b) };
	unsigned int nc = TW_ARRAY_SIZE(clocks);
	struct twheel_arm *a = calloc(nc * KIND_N, sizeof(*a));
	unsigned int i, k;
	int cpu = 0;
	long r;

	if (!a)
		return -ENOMEM;
	for (i = 0; i < nc * KIND_N; i++) {
		k = i % KIND_N;
		a[i].size = sizeof(a[i]);
		a[i].clockid = clocks[i / KIND_N];
		/* Due over the next few ticks, some periodic, some far. */
		a[i].expires = (k % 4 == 3) ? 3600 * 1000 * MS :
			       (1 + k % 32) * tick;
		a[i].period = (k % 4 == 1) ? tick : 0;
		if (k % 8 == 2 && a[i].clockid == CLOCK_REALTIME)
			a[i].flags |= TWHEEL_ARM_CANCEL_ON_SET |
				      TWHEEL_ARM_ABS;
		if (a[i].flags & TWHEEL_ARM_ABS) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			a[i].expires += ts.tv_sec * 1000 * MS + ts.tv_nsec;
		}
		while (!CPU_ISSET(cpu, set))
			cpu = (cpu + 1) % CPU_SETSIZE;
		a[i].flags |= TWHEEL_ARM_CPU;
		a[i].cpu = cpu;
		cpu = (cpu + 1) % CPU_SETSIZE;
	}
	b.count = nc * KIND_N;
	b.entry_size = sizeof(a[0]);
	b.entries = (uintptr_t)a;
	r = tw_ioctl(fd, TWHEEL_IOC_ARM_BATCH, &b);
	free(a);
	return r;
}

/* Arm every slot of a small ring on @fd, periodic: 0 or -errno. */
static long arm_ring(int fd, struct tw_uring *ring, uint64_t tick)
{
	struct twheel_sqe q[RING_SLOTS];
	uint32_t i, done;
	long r;

	r = tw_ring_setup(fd, RING_SLOTS, RING_ENTRIES, ring);
	if (r)
		return r;
	for (i = 0; i < RING_SLOTS; i++)
		q[i] = tw_sqe(TWHEEL_OP_ARM, i, 0, (1 + i % 16) * tick,
			      i % 2 ? 8 * tick : 0, i);
	r = tw_submit(fd, q, RING_SLOTS, &done);
	return r < 0 ? r : 0;
}

/* CLOCK_REALTIME set to itself: a clock set for every notifier. */
static int step_realtime_nothing(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) ||
	    clock_settime(CLOCK_REALTIME, &ts))
		return -errno;
	return 0;
}

TEST_F_TIMEOUT(slow, unload_with_every_kind_armed, 300)
{
	const char *ko = getenv("TW_KO") ?: TW_KO_DEFAULT;
	bool was_loaded = module_loaded();
	struct twheel_info info = { .size = sizeof(info) };
	struct tw_uring ring[KIND_FILES];
	int kofd, cycle, i, fd[KIND_FILES];
	unsigned long armed = 0;
	bool have_ring = false;
	cpu_set_t set;
	long r;

	if (geteuid())
		SKIP(return, "needs root (alarm clocks, clock_settime)");
	if (sched_getaffinity(0, sizeof(set), &set))
		SKIP(return, "sched_getaffinity: %s", strerror(errno));
	kofd = open(ko, O_RDONLY | O_CLOEXEC);
	if (kofd < 0)
		SKIP(return, "%s: %s", ko, strerror(errno));
	if (was_loaded && tw_read_ll("/sys/module/twheel/refcnt") != 0)
		SKIP(close(kofd); return,
		     "twheel is in use (twheel_kunit holds it): run after unloading that");
	for (cycle = 0; cycle < CYCLES; cycle++) {
		if (cycle || !was_loaded)
			ASSERT_EQ(0, load(kofd)) TH_LOG("cycle %d: load", cycle);
		for (i = 0; i < KIND_FILES; i++) {
			fd[i] = i ? tw_open(0) : open_dev();
			ASSERT_LE(0, fd[i]) TH_LOG("cycle %d: %s: %s", cycle,
						   TW_DEV, strerror(errno));
		}
		ASSERT_EQ(0, tw_info(fd[0], &info));
		for (i = 0; i < KIND_FILES; i++) {
			memset(&ring[i], 0, sizeof(ring[i]));
			if (i % 2) {
				r = arm_ring(fd[i], &ring[i], info.tick_ns);
				/* A module without the ring ABI. */
				if (r == -ENOTTY || r == -EINVAL)
					continue;
				ASSERT_EQ(0, r) TH_LOG("cycle %d: ring: %s",
						       cycle, strerror(-r));
				have_ring = true;
				armed += RING_SLOTS;
				continue;
			}
			r = arm_every_kind(fd[i], &set, info.tick_ns);
			ASSERT_EQ(5 * KIND_N, r) TH_LOG("cycle %d: arm: %s",
							cycle, strerror(errno));
			armed += r;
		}
		/* Expiries, catch-up and periodic re-arms under way. */
		tw_sleep_ms(cycle % 4 * 5);
		ASSERT_EQ(0, step_realtime_nothing());
		for (i = 0; i < KIND_FILES; i++) {
			tw_ring_unmap(&ring[i]);
			close(fd[i]);
		}
		ASSERT_EQ(0, unload()) TH_LOG("cycle %d: unload", cycle);
	}
	if (was_loaded)
		EXPECT_EQ(0, load(kofd));
	close(kofd);
	ksft_print_msg("unload cycles with every kind armed: %d, timers %lu, ring %s\n",
		       CYCLES, armed, have_ring ? "yes" : "no");
}

#define PASS		64		/* TWHEEL_LOCK_BUDGET, <linux/twheel.h> */
#define BURST		(8 * PASS)	/* timers due in one tick: 8 passes */
#define RUNNER_CYCLES	3
#define RUNNER_HOLD_US	200000		/* per pass: 1.4 s to catch up */

/* Arm the burst, due at @due, and 64 far timers on @cpu in one batch. */
static long arm_burst(int fd, int cpu, uint64_t due)
{
	struct twheel_batch b = { .size = sizeof(b) };
	struct twheel_arm a[BURST + 64];
	int i;

	memset(a, 0, sizeof(a));
	for (i = 0; i < BURST + 64; i++) {
		a[i].size = sizeof(a[i]);
		a[i].clockid = CLOCK_MONOTONIC;
		a[i].flags = TWHEEL_ARM_CPU | TWHEEL_ARM_ABS;
		a[i].cpu = cpu;
		a[i].cookie = i;
		/* Pending ones too: the wheel is not empty when it is cut. */
		a[i].expires = i < BURST ? due : due + 3600000 * MS;
	}
	b.count = BURST + 64;
	b.entry_size = sizeof(a[0]);
	b.entries = (uintptr_t)a;
	return tw_ioctl(fd, TWHEEL_IOC_ARM_BATCH, &b);
}

TEST_F_TIMEOUT(slow, unload_with_runner_catching_up, 240)
{
	const char *ko = getenv("TW_KO") ?: TW_KO_DEFAULT;
	bool was_loaded = module_loaded();
	int kofd, cycle, cpu, fd, w;
	long long hits, base, held[RUNNER_CYCLES];
	int reached = 0;
	uint64_t due, margin;
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		SKIP(return, "sched_getaffinity: %s", strerror(errno));
	for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &set); cpu++)
		;
	kofd = open(ko, O_RDONLY | O_CLOEXEC);
	if (kofd < 0)
		SKIP(return, "%s: %s", ko, strerror(errno));
	if (was_loaded && tw_read_ll("/sys/module/twheel/refcnt") != 0)
		SKIP(close(kofd); return,
		     "twheel is in use (twheel_kunit holds it): run after unloading that");
	for (cycle = 0; cycle < RUNNER_CYCLES; cycle++) {
		if (cycle || !was_loaded)
			ASSERT_EQ(0, load(kofd)) TH_LOG("cycle %d: load", cycle);
		fd = open_dev();
		ASSERT_LE(0, fd) TH_LOG("cycle %d: %s: %s", cycle, TW_DEV,
					strerror(errno));
		/* Only a build without test hooks (a packaged one) skips. */
		if (tw_hook_hits("runner_pass") < 0) {
			close(fd);
			unload();
			if (was_loaded)
				load(kofd);
			close(kofd);
			SKIP(return, "no test hooks (a packaged build)");
		}
		/*
		 * A burst that came due while being armed (a loaded host, a
		 * debug kernel) is armed again on a new file with twice the
		 * margin; the hook is set once the burst is in, before it is
		 * due.
		 */
		for (margin = 200 * MS, w = 0; w < 4; w++, margin *= 2) {
			due = tw_now() + margin;
			ASSERT_EQ(BURST + 64, arm_burst(fd, cpu, due))
				TH_LOG("cycle %d: arm: %s", cycle, strerror(errno));
			ASSERT_EQ(0, tw_hook_set("runner_pass", RUNNER_HOLD_US));
			if (tw_now() < due)
				break;
			tw_hook_set("runner_pass", 0);
			TH_LOG("cycle %d: the burst came due while being armed (%llu ms margin)",
			       cycle, (unsigned long long)margin / MS);
			close(fd);
			fd = open_dev();
			ASSERT_LE(0, fd);
		}
		ASSERT_GT(4, w) TH_LOG("cycle %d: every burst came due while being armed",
				       cycle);
		/*
		 * Close as soon as a runner is held: it has passes to go. Hits
		 * from here: a burst armed again left its own.
		 */
		base = tw_hook_hits("runner_pass");
		hits = 0;
		for (w = 0; w < 400 && hits <= 0; w++) {
			tw_sleep_ms(5);
			hits = tw_hook_hits("runner_pass") - base;
		}
		held[cycle] = hits;
		close(fd);
		ASSERT_EQ(0, unload()) TH_LOG("cycle %d: unload", cycle);
		/*
		 * Held, and closed with passes left to do: the tick's pass and
		 * each of the runner's but the last run out of budget, so up
		 * to 6 holds; the 6th may be the runner's last.
		 */
		/*
		 * Not held at all: the tick's own passes (one per tick) caught
		 * up before a runner got the CPU (PREEMPT_RT with KCSAN): that
		 * cycle did not reach the case, every cycle may not.
		 */
		if (hits > 0)
			reached++;
		else
			TH_LOG("cycle %d: the runner was never held", cycle);
		EXPECT_GT(BURST / PASS - 2, hits)
			TH_LOG("cycle %d: the runner had caught up", cycle);
	}
	EXPECT_LT(0, reached)
		TH_LOG("no cycle closed the file with a runner catching up");
	if (was_loaded)
		EXPECT_EQ(0, load(kofd));
	close(kofd);
	ksft_print_msg("unload cycles with a runner catching up: %d, held %lld, %lld, %lld times at close\n",
		       RUNNER_CYCLES, held[0], held[1], held[2]);
}

TEST_HARNESS_MAIN
