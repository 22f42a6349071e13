// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_isolated - TWHEEL_ARM_CPU and CPU isolation: a CPU isolated from
 * kernel timers (nohz_full=, the housekeeping mask HK_TYPE_TIMER) is refused
 * to an unprivileged caller with EPERM even when its affinity allows that
 * CPU, on every path that names a CPU (ARM, ARM_BATCH, ring SUBMIT), while a
 * housekeeping CPU is not; root (CAP_SYS_NICE) may use the isolated CPU and
 * its timer fires there.
 *
 * It needs a boot with an isolated CPU: `make check` boots stock-6.1 a
 * second time with nohz_full=<last CPU> to run this test alone
 * (tools/vm/check.sh); on every other boot it skips.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <sched.h>

#include "twheel_hard.h"
#include "twheel_ring.h"
#include "kselftest_harness.h"

#define MS		1000000ULL
#define HOUR_NS		(3600ULL * 1000000000ULL)
#define NOHZ_FULL	"/sys/devices/system/cpu/nohz_full"

static cpu_set_t isolated;	/* nohz_full CPUs */
static int iso_cpu, hk_cpu;	/* one isolated and one housekeeping CPU */

/* Find an isolated and a housekeeping CPU, both online; false if none. */
static bool find_cpus(void)
{
	char buf[256];
	int cpu;

	if (tw_read_file(NOHZ_FULL, buf, sizeof(buf)) ||
	    !twl_cpulist(buf, &isolated))
		return false;
	iso_cpu = -1;
	hk_cpu = -1;
	for (cpu = 0; cpu < sysconf(_SC_NPROCESSORS_CONF); cpu++) {
		if (CPU_ISSET(cpu, &isolated))
			iso_cpu = iso_cpu < 0 ? cpu : iso_cpu;
		else
			hk_cpu = hk_cpu < 0 ? cpu : hk_cpu;
	}
	return iso_cpu >= 0 && hk_cpu >= 0;
}

/* Wait for one event on @fd; its cookie, or 0. */
static uint64_t wait_event(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct twheel_event ev;

	if (poll(&p, 1, 5000) != 1 || read(fd, &ev, sizeof(ev)) != sizeof(ev))
		return 0;
	return ev.cookie;
}

/* One ring SUBMIT of an ARM on @cpu: the entry's result. */
static long ring_arm_on(int fd, int cpu)
{
	struct twheel_sqe q = tw_sqe(TWHEEL_OP_ARM, 0, TWHEEL_ARM_CPU, HOUR_NS,
				     0, 1);
	long r;

	q.cpu = cpu;
	r = tw_submit(fd, &q, 1, NULL);
	return r < 0 ? r : q.result;
}

/*
 * As uid 1000, allowed to run everywhere: the isolated CPU is EPERM on
 * ARM, ARM_BATCH and SUBMIT, the housekeeping CPU is not and its timer
 * fires. Exit status 0 or the failed step.
 */
static int user_isolated_cpu(void)
{
	struct twheel_arm e = { .size = sizeof(e), .flags = TWHEEL_ARM_CPU,
				.cpu = iso_cpu, .expires = HOUR_NS };
	struct twheel_batch b = { .size = sizeof(b), .count = 1,
				  .entry_size = sizeof(e),
				  .entries = (uintptr_t)&e };
	struct tw_uring r = { 0 };
	cpu_set_t set;
	int fd = tw_open(0), rfd = tw_open(0);

	if (fd < 0 || rfd < 0)
		return 10;
	/* Not refused for want of affinity: the caller may run there. */
	if (sched_getaffinity(0, sizeof(set), &set) ||
	    !CPU_ISSET(iso_cpu, &set) || !CPU_ISSET(hk_cpu, &set))
		return 11;
	if (tw_arm(fd, TWHEEL_ARM_CPU, HOUR_NS, 0, 1, iso_cpu, NULL) != -EPERM)
		return 12;
	if (tw_ioctl(fd, TWHEEL_IOC_ARM_BATCH, &b) || b.done != 1 ||
	    e.result != -EPERM)
		return 13;
	if (tw_pending(fd) != 0)
		return 14;
	if (tw_arm(fd, TWHEEL_ARM_CPU, MS, 0, 77, hk_cpu, NULL))
		return 15;
	if (wait_event(fd) != 77)
		return 16;
	if (tw_ring_setup(rfd, 4, 8, &r))
		return 17;
	if (ring_arm_on(rfd, iso_cpu) != -EPERM)
		return 18;
	if (ring_arm_on(rfd, hk_cpu) != 0)
		return 19;
	tw_ring_unmap(&r);
	close(rfd);
	close(fd);
	return 0;
}

TEST(user_refused_isolated_cpu)
{
	if (!find_cpus())
		SKIP(return, "no nohz_full CPU and housekeeping CPU (%s)",
		     NOHZ_FULL);
	if (getuid() != 0)
		SKIP(return, "needs root to switch to uid 1000");
	printf("# isolated CPU %d, housekeeping CPU %d\n", iso_cpu, hk_cpu);
	EXPECT_EQ(0, tw_as_uid(1000, user_isolated_cpu))
		TH_LOG("uid 1000 and CPU %d of %s", iso_cpu, NOHZ_FULL);
}

/* Root (CAP_SYS_NICE) may arm on the isolated CPU, and it fires there. */
TEST(root_may_use_isolated_cpu)
{
	struct twheel_query q;
	uint64_t id;
	int fd;

	if (!find_cpus())
		SKIP(return, "no nohz_full CPU and housekeeping CPU (%s)",
		     NOHZ_FULL);
	if (getuid() != 0)
		SKIP(return, "not root");
	fd = tw_open(0);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_arm(fd, TWHEEL_ARM_CPU, HOUR_NS, 0, 5, iso_cpu, &id));
	ASSERT_EQ(0, tw_query(fd, id, &q));
	EXPECT_EQ((uint32_t)iso_cpu, q.cpu);
	EXPECT_EQ(1, tw_cancel(fd, id));
	ASSERT_EQ(0, tw_arm(fd, TWHEEL_ARM_CPU, MS, 0, 6, iso_cpu, NULL));
	EXPECT_EQ(6ULL, wait_event(fd));
	close(fd);
}

/*
 * A timer whose CPU goes down moves to a housekeeping CPU, never to the
 * isolated one that an unprivileged arm could not name, even when that is
 * the next online CPU after the one going down.
 */
TEST(hotplug_moves_to_housekeeping)
{
	int ncpu = sysconf(_SC_NPROCESSORS_CONF), from = -1, cpu, next;
	struct twheel_query q;
	uint64_t id;
	int fd;

	if (!find_cpus())
		SKIP(return, "no nohz_full CPU and housekeeping CPU (%s)",
		     NOHZ_FULL);
	if (getuid() != 0)
		SKIP(return, "not root");
	/* A housekeeping CPU but the first whose next CPU is isolated. */
	for (cpu = 1; cpu < ncpu && from < 0; cpu++) {
		next = (cpu + 1) % ncpu;
		if (!CPU_ISSET(cpu, &isolated) && CPU_ISSET(next, &isolated))
			from = cpu;
	}
	if (from < 0)
		SKIP(return, "no housekeeping CPU but the first before an isolated one");
	fd = tw_open(0);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_arm(fd, TWHEEL_ARM_CPU, HOUR_NS, 0, 7, from, &id));
	ASSERT_EQ(0, tw_cpu_set_online(from, 0));
	ASSERT_EQ(0, tw_query(fd, id, &q));
	EXPECT_EQ(0, tw_cpu_set_online(from, 1));
	printf("# CPU %d went down: its timer moved to CPU %u\n", from, q.cpu);
	EXPECT_FALSE(CPU_ISSET(q.cpu, &isolated))
		TH_LOG("moved to isolated CPU %u", q.cpu);
	EXPECT_NE((uint32_t)from, q.cpu);
	EXPECT_EQ(1, tw_cancel(fd, id));
	close(fd);
}

TEST_HARNESS_MAIN
