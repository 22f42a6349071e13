// SPDX-License-Identifier: GPL-2.0
/*
 * libtwheel_test - libtwheel (tools/lib/twheel) against the loaded module,
 * through <twheel.h> only: open and feature discovery, every call's success
 * path and errors, the size rules (callers built with smaller or larger
 * structures than the library's), batches above TWHEEL_BATCH_MAX, events,
 * wait and non-blocking reads. Needs twheel.ko loaded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <twheel.h>

#include "kselftest_harness.h"
#include "twheel_late.h"

#define MS		1000000ULL
#define SEC		1000000000ULL
/*
 * Lateness: a tick plus what a timerfd control armed for the same deadline
 * measured (twheel_late.h), in one of LATE_TRIES windows.
 */
#define LATE_TRIES	3

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

/* One event within @ms; 1 if one was read into @ev. */
static int read_one(struct twheel *tw, struct twheel_event *ev, int ms)
{
	int ret = twheel_wait(tw, ms);

	if (ret != 1)
		return ret;
	return twheel_read(tw, ev, 1);
}

FIXTURE(lib) {
	struct twheel *tw;
};

FIXTURE_SETUP(lib)
{
	int ret = twheel_open(NULL, 0, &self->tw);

	if (ret == -ENOENT)
		SKIP(return, TWHEEL_DEVICE " missing (module not loaded)");
	ASSERT_EQ(0, ret);
}

FIXTURE_TEARDOWN(lib)
{
	twheel_close(self->tw);
}

TEST_F(lib, info_and_features)
{
	struct twheel_info info;
	struct {
		struct twheel_info info;
		unsigned char more[64];		/* a newer program's fields */
	} big;
	unsigned int bit;

	EXPECT_STREQ("1.0", twheel_version());
	ASSERT_EQ(0, twheel_get_info(self->tw, &info));
	EXPECT_EQ(sizeof(info), info.size);
	EXPECT_EQ(twheel_abi_version(self->tw), info.abi_version);
	EXPECT_GE(info.abi_version, 1);
	EXPECT_EQ(sizeof(struct twheel_event), info.event_size);
	EXPECT_GT(info.tick_ns, 0);
	EXPECT_GT(info.levels, 0);
	EXPECT_GT(info.nr_cpus, 0);
	EXPECT_EQ(0, info.pending);

	/* Features: none on ABI 1; has_feature agrees with features(). */
	if (info.abi_version < 2)
		EXPECT_EQ(0, twheel_features(self->tw));
	EXPECT_EQ(0, twheel_has_feature(self->tw, 0));
	for (bit = 0; bit < 64; bit++)
		EXPECT_EQ(!!(twheel_features(self->tw) & (1ULL << bit)),
			  twheel_has_feature(self->tw, 1ULL << bit));

	/* A larger structure: what the module does not know reads zero. */
	memset(&big, 0xa5, sizeof(big));
	ASSERT_EQ(0, twheel_get_info_sized(self->tw, &big.info, sizeof(big)));
	EXPECT_EQ(sizeof(big), big.info.size);
	EXPECT_EQ(info.tick_ns, big.info.tick_ns);
	if (info.abi_version < 2)
		for (bit = 0; bit < sizeof(big.more); bit++)
			ASSERT_EQ(0, big.more[bit]);
	/* A smaller one (an older program): nothing written past it. */
	memset(&big, 0xa5, sizeof(big));
	ASSERT_EQ(0, twheel_get_info_sized(self->tw, &big.info, 8));
	EXPECT_EQ(8, big.info.size);
	EXPECT_EQ(info.abi_version, big.info.abi_version);
	EXPECT_EQ(0xa5a5a5a5a5a5a5a5ULL, big.info.tick_ns);
	EXPECT_EQ(-EINVAL, twheel_get_info_sized(self->tw, &big.info, 2));
}

TEST(open_errors)
{
	struct twheel *tw = NULL;
	int fd;

	EXPECT_EQ(-ENOENT, twheel_open("/nonexistent/twheel", 0, &tw));
	EXPECT_EQ(-EINVAL, twheel_open(NULL, O_APPEND, &tw));
	EXPECT_EQ(NULL, tw);
	fd = open("/dev/null", O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENOTTY, twheel_open_fd(fd, &tw));
	EXPECT_EQ(0, close(fd));	/* left open on failure */
	twheel_close(NULL);
}

TEST_F(lib, arm_read_oneshot)
{
	long long e0 = twl_early();
	uint64_t id = 0, t0, late = 0, bound = 0, tick;
	struct twheel_info info;
	struct twheel_event ev;
	struct twl_ctl c;
	int try;

	ASSERT_EQ(0, twheel_get_info(self->tw, &info));
	tick = info.tick_ns;
	/* The timer, its control and this thread on one CPU. */
	ASSERT_LE(0, twl_pin_here());
	for (try = 0; try < LATE_TRIES; try++) {
		t0 = now_ns();
		ASSERT_EQ(0, twl_ctl_arm(&c, t0 + 20 * MS));
		ASSERT_EQ(0, twheel_arm(self->tw, 20 * MS, 0, 42, &id));
		EXPECT_NE(0, id);
		ASSERT_EQ(1, twl_poll(twheel_fd(self->tw), &c, 1, 5000));
		ASSERT_EQ(1, read_one(self->tw, &ev, 0));
		EXPECT_EQ(id, ev.id);
		EXPECT_EQ(42, ev.cookie);
		ASSERT_GE(ev.deadline, t0 + 20 * MS);
		ASSERT_GE(ev.expired, ev.deadline);
		EXPECT_GE(now_ns(), ev.deadline);
		EXPECT_EQ(0, ev.flags & TWHEEL_EVENT_PERIODIC);
		/* A delivered one-shot's id is gone. */
		EXPECT_EQ(-ENOENT, twheel_cancel(self->tw, id));
		EXPECT_EQ(0, twheel_wait(self->tw, 0));
		/* The control's lateness from its own deadline. */
		bound = twl_late_bound(&c, 1, tick);
		twl_ctl_close(&c);
		ASSERT_LT(0, bound);
		late = ev.expired - ev.deadline;
		TH_LOG("try %d: late %llu us, bound %llu us (tick + timerfd)",
		       try, (unsigned long long)late / 1000,
		       (unsigned long long)bound / 1000);
		if (late <= bound)
			break;
	}
	EXPECT_LE(late, bound);
	if (e0 >= 0)
		EXPECT_EQ(e0, twl_early());
}

TEST_F(lib, arm_ex_flags_and_errors)
{
	struct twheel_arm a;
	struct {
		struct twheel_arm a;
		uint64_t newer;		/* a field this library does not know */
	} big;
	struct twheel_event ev;
	struct timespec ts;

	/* Absolute on CLOCK_MONOTONIC, fixed delay. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	twheel_arm_init(&a, (uint64_t)ts.tv_sec * SEC + ts.tv_nsec + 10 * MS,
			30 * MS, 7);
	a.flags = TWHEEL_ARM_ABS | TWHEEL_ARM_FIXED_DELAY;
	a.clockid = CLOCK_MONOTONIC;
	ASSERT_EQ(0, twheel_arm_ex(self->tw, &a));
	EXPECT_NE(0, a.id);
	EXPECT_EQ(sizeof(a), a.size);
	ASSERT_EQ(1, read_one(self->tw, &ev, 5000));
	EXPECT_EQ(a.id, ev.id);
	EXPECT_EQ(TWHEEL_EVENT_PERIODIC, ev.flags & TWHEEL_EVENT_PERIODIC);
	EXPECT_EQ(1, twheel_cancel(self->tw, a.id));

	twheel_arm_init(&a, MS, 0, 0);
	a.flags = 0x80000000U;
	EXPECT_EQ(-EINVAL, twheel_arm_ex(self->tw, &a));
	twheel_arm_init(&a, MS, 0, 0);
	a.flags = TWHEEL_ARM_FIXED_DELAY;		/* without a period */
	EXPECT_EQ(-EINVAL, twheel_arm_ex(self->tw, &a));
	twheel_arm_init(&a, MS, 0, 0);
	a.flags = TWHEEL_ARM_CPU;
	a.cpu = 1U << 30;
	EXPECT_EQ(-ERANGE, twheel_arm_ex(self->tw, &a));

	/* A newer program's larger structure: zero tail works, else E2BIG. */
	memset(&big, 0, sizeof(big));
	twheel_arm_init(&big.a, SEC, 0, 9);
	ASSERT_EQ(0, twheel_arm_ex_sized(self->tw, &big.a, sizeof(big)));
	EXPECT_NE(0, big.a.id);
	EXPECT_EQ(sizeof(big), big.a.size);
	EXPECT_EQ(1, twheel_cancel(self->tw, big.a.id));
	big.newer = 1;
	EXPECT_EQ(-E2BIG, twheel_arm_ex_sized(self->tw, &big.a, sizeof(big)));
	EXPECT_EQ(-EINVAL, twheel_arm_ex_sized(self->tw, &big.a, 2));
}

TEST_F(lib, periodic_fixed_rate)
{
	struct twheel_event ev;
	uint64_t id, prev = 0;
	int i;

	ASSERT_EQ(0, twheel_arm(self->tw, 10 * MS, 10 * MS, 5, &id));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(1, read_one(self->tw, &ev, 5000));
		EXPECT_EQ(id, ev.id);
		EXPECT_EQ(5, ev.cookie);
		EXPECT_EQ(TWHEEL_EVENT_PERIODIC, ev.flags);
		EXPECT_GT(ev.deadline, prev);
		prev = ev.deadline;
	}
	EXPECT_EQ(1, twheel_cancel(self->tw, id));
	EXPECT_EQ(-ENOENT, twheel_cancel(self->tw, id));
}

TEST_F(lib, modify_and_query)
{
	struct twheel_query q;
	struct twheel_event ev;
	uint64_t id;

	ASSERT_EQ(0, twheel_arm(self->tw, 3600 * SEC, 0, 11, &id));
	ASSERT_EQ(0, twheel_query(self->tw, id, &q));
	EXPECT_EQ(sizeof(q), q.size);
	EXPECT_EQ(TWHEEL_STATE_ARMED, q.state);
	EXPECT_EQ(11, q.cookie);
	EXPECT_EQ(0, q.period);
	EXPECT_GT(q.remaining, 3500 * SEC);

	EXPECT_EQ(1, twheel_modify(self->tw, id, 0, 0, 10 * MS, 0));
	ASSERT_EQ(1, read_one(self->tw, &ev, 5000));
	EXPECT_EQ(id, ev.id);
	EXPECT_EQ(-ENOENT, twheel_query(self->tw, id, &q));
	EXPECT_EQ(-ENOENT, twheel_modify(self->tw, id, 0, 0, MS, 0));
	EXPECT_EQ(-ENOENT, twheel_query(self->tw, 987654321, &q));

	ASSERT_EQ(0, twheel_arm(self->tw, 3600 * SEC, 0, 12, &id));
	EXPECT_EQ(-EINVAL, twheel_modify(self->tw, id, 0x80, 0, MS, 0));
	EXPECT_EQ(1, twheel_modify(self->tw, id, TWHEEL_ARM_FIXED_DELAY, 0,
				   3600 * SEC, SEC));
	ASSERT_EQ(0, twheel_query(self->tw, id, &q));
	EXPECT_EQ(SEC, q.period);
	EXPECT_EQ(TWHEEL_ARM_FIXED_DELAY, q.flags_out);
}

TEST_F(lib, read_sizes_and_nonblocking)
{
	struct twheel *nb;
	struct twheel_event ev[4];
	/* An older program's record (no flags) and a newer one's. */
	struct small {
		uint64_t id, cookie, deadline, expired;
		uint32_t overruns;
	} sm[2];
	struct large {
		struct twheel_event ev;
		uint64_t more[3];
	} lg;
	uint64_t id1, id2;
	int got, ret;

	ASSERT_EQ(0, twheel_open(NULL, O_NONBLOCK, &nb));
	EXPECT_EQ(-EAGAIN, twheel_read(nb, ev, 4));
	EXPECT_EQ(-EINVAL, twheel_read(nb, ev, 0));
	ASSERT_EQ(0, twheel_arm(nb, MS, 0, 1, &id1));
	ASSERT_EQ(0, twheel_arm(nb, MS, 0, 2, &id2));
	for (got = 0; got < 2; got += ret) {
		ASSERT_EQ(1, twheel_wait(nb, 5000));
		ret = twheel_read_sized(nb, (struct twheel_event *)&sm[got],
					2 - got, sizeof(sm[0]));
		ASSERT_LT(0, ret);
	}
	EXPECT_EQ(id1 + id2, sm[0].id + sm[1].id);
	EXPECT_EQ(3, sm[0].cookie + sm[1].cookie);
	EXPECT_GE(sm[0].expired, sm[0].deadline);

	memset(&lg, 0xa5, sizeof(lg));
	ASSERT_EQ(0, twheel_arm(nb, MS, 0, 3, &id1));
	ASSERT_EQ(1, twheel_wait(nb, 5000));
	ASSERT_EQ(1, twheel_read_sized(nb, &lg.ev, 1, sizeof(lg)));
	EXPECT_EQ(id1, lg.ev.id);
	EXPECT_EQ(3, lg.ev.cookie);
	EXPECT_EQ(0, lg.more[0] | lg.more[1] | lg.more[2]);
	EXPECT_EQ(-EAGAIN, twheel_read(nb, ev, 4));
	twheel_close(nb);
}

TEST_F(lib, batches)
{
	const unsigned int n = 1000;
	struct twheel_arm *arms = calloc(n, sizeof(*arms));
	struct twheel_cancel *cs = calloc(n, sizeof(*cs));
	struct twheel_info info;
	unsigned int i, done = 0;

	ASSERT_NE(NULL, arms);
	ASSERT_NE(NULL, cs);
	for (i = 0; i < n; i++)
		twheel_arm_init(&arms[i], 3600 * SEC + i * MS, 0, i);
	arms[17].flags = 0x80000000U;		/* one bad entry */
	EXPECT_EQ(n - 1, twheel_arm_batch(self->tw, arms, n, &done));
	EXPECT_EQ(n, done);
	EXPECT_EQ(-EINVAL, arms[17].result);
	ASSERT_EQ(0, twheel_get_info(self->tw, &info));
	EXPECT_EQ(n - 1, info.pending);
	for (i = 0; i < n; i++) {
		if (i != 17)
			ASSERT_EQ(0, arms[i].result);
		twheel_cancel_init(&cs[i], arms[i].id);
	}
	EXPECT_EQ(n - 1, twheel_cancel_batch(self->tw, cs, n, &done));
	EXPECT_EQ(n, done);
	EXPECT_EQ(1, cs[0].result);
	EXPECT_EQ(-ENOENT, cs[17].result);
	ASSERT_EQ(0, twheel_get_info(self->tw, &info));
	EXPECT_EQ(0, info.pending);
	EXPECT_EQ(0, twheel_arm_batch(self->tw, arms, 0, &done));
	EXPECT_EQ(0, done);
	free(arms);
	free(cs);
}

/* Entries of an older program (no __reserved): the library widens them. */
TEST_F(lib, batch_of_smaller_entries)
{
	const size_t es = offsetof(struct twheel_arm, __reserved);
	const unsigned int n = 100;	/* more than one widened chunk */
	unsigned char *raw = calloc(n, es);
	struct twheel_arm a;
	struct twheel_info info;
	unsigned int i, done = 0;

	ASSERT_NE(NULL, raw);
	for (i = 0; i < n; i++) {
		twheel_arm_init(&a, 3600 * SEC, 0, i);
		a.size = es;
		memcpy(raw + i * es, &a, es);
	}
	EXPECT_EQ(n, twheel_arm_batch_sized(self->tw, (struct twheel_arm *)raw,
					    n, es, &done));
	EXPECT_EQ(n, done);
	for (i = 0; i < n; i++) {
		memcpy(&a, raw + i * es, es);
		EXPECT_EQ(es, a.size);
		EXPECT_NE(0, a.id);
		EXPECT_EQ(0, a.result);
		EXPECT_EQ(i, a.cookie);
	}
	ASSERT_EQ(0, twheel_get_info(self->tw, &info));
	EXPECT_EQ(n, info.pending);
	EXPECT_EQ(-EINVAL, twheel_arm_batch_sized(self->tw,
						  (struct twheel_arm *)raw, n,
						  2, &done));
	free(raw);
}

/*
 * More entries than one ioctl takes: the library splits the batch. Arms
 * and cancels share the splitting (tw_batch()); cancels of ids that were
 * never armed exercise it without arming 65 636 timers, which takes minutes
 * on an emulated debug kernel. The last entries, in the second ioctl, are
 * the armed ones: each must be found and cancelled.
 */
TEST_F(lib, batch_above_kernel_max)
{
	const unsigned int n = TWHEEL_BATCH_MAX + 100, armed = 3;
	struct twheel_cancel *cs = calloc(n, sizeof(*cs));
	struct twheel_info info;
	unsigned int i, done = 0;
	uint64_t id;

	ASSERT_NE(NULL, cs);
	/* Ids are never reused: UINT64_MAX - i was never handed out. */
	for (i = 0; i < n - armed; i++)
		twheel_cancel_init(&cs[i], UINT64_MAX - i);
	for (; i < n; i++) {
		ASSERT_EQ(0, twheel_arm(self->tw, 3600 * SEC, 0, i, &id));
		twheel_cancel_init(&cs[i], id);
	}
	EXPECT_EQ(armed, twheel_cancel_batch(self->tw, cs, n, &done));
	EXPECT_EQ(n, done);
	EXPECT_EQ(-ENOENT, cs[0].result);
	EXPECT_EQ(-ENOENT, cs[TWHEEL_BATCH_MAX - 1].result);
	EXPECT_EQ(-ENOENT, cs[TWHEEL_BATCH_MAX].result);
	for (i = n - armed; i < n; i++)
		EXPECT_EQ(1, cs[i].result);
	ASSERT_EQ(0, twheel_get_info(self->tw, &info));
	EXPECT_EQ(0, info.pending);
	free(cs);
}

TEST_F(lib, fd_is_pollable_and_private)
{
	struct twheel *other;
	uint64_t id;

	EXPECT_LE(0, twheel_fd(self->tw));
	EXPECT_EQ(FD_CLOEXEC, fcntl(twheel_fd(self->tw), F_GETFD) & FD_CLOEXEC);
	ASSERT_EQ(0, twheel_open(NULL, 0, &other));
	ASSERT_EQ(0, twheel_arm(other, 3600 * SEC, 0, 0, &id));
	EXPECT_EQ(-ENOENT, twheel_cancel(self->tw, id));
	EXPECT_EQ(1, twheel_cancel(other, id));
	twheel_close(other);
}

TEST_HARNESS_MAIN
