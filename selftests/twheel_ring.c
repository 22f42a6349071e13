// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_ring - the ring ABI of /dev/twheel (uapi/linux/twheel.h, "The ring
 * ABI"): INFO's features and size versioning, set-up rules, mmap rules,
 * submission results and partial failure, records (never early, exactly
 * once, generations), a full ring that loses nothing (backlog, coalesced
 * overruns, flush by ioctl and read), a consumer thread racing producers on
 * every CPU, fork, close and munmap with records in the ring, modify racing
 * expiry, and a burst of 100 000 timers with one deadline, whose drain time
 * (deadline to last record readable) is printed.
 *
 * Raw ioctls and its own mapping (twheel_ring.h), not libtwheel: this is
 * the ring ABI's test (structure sizes, offsets, mmap rules, bad
 * submissions), the layer the library's ring helpers are built on; the
 * library's ring path is tested by libtwheel_ring_test.c.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>

#include "twheel_hard.h"
#include "twheel_ring.h"

#include "kselftest_harness.h"

#define MS		1000000ULL
#define SEC		1000000000ULL
#define PAGE		4096UL

/* Wait up to @ms for at least @n records (poll, which also flushes). */
static uint32_t wait_records(int fd, struct tw_uring *r, uint32_t n,
			     unsigned int ms)
{
	uint64_t end = tw_now() + ms * MS;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	while (tw_ring_count(r) < n && tw_now() < end) {
		if (poll(&p, 1, 10) > 0)
			tw_sleep_ms(1);
	}
	return tw_ring_count(r);
}

TEST(info_features)
{
	struct twheel_info info;
	struct {
		struct twheel_info i;
		unsigned char guard[16];
	} old;
	unsigned int k;
	int fd;

	fd = tw_open(0);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_info(fd, &info));
	EXPECT_EQ(2U, info.abi_version);
	EXPECT_EQ((uint64_t)TWHEEL_FEAT_RING, info.features & TWHEEL_FEAT_RING);
	/* An ABI 1 caller: accepted, and nothing past its size is written. */
	memset(&old, 0xA5, sizeof(old));
	old.i.size = TWHEEL_INFO_SIZE_VER0;
	ASSERT_EQ(0, tw_ioctl(fd, TWHEEL_IOC_INFO, &old));
	EXPECT_EQ((unsigned int)TWHEEL_ABI_VERSION, old.i.abi_version);
	EXPECT_EQ(0ULL, old.i.__reserved);
	for (k = TWHEEL_INFO_SIZE_VER0; k < sizeof(old); k++)
		ASSERT_EQ(0xA5, ((unsigned char *)&old)[k]) TH_LOG("byte %u", k);
	old.i.size = TWHEEL_INFO_SIZE_VER0 - 8;
	EXPECT_EQ(-EINVAL, tw_ioctl(fd, TWHEEL_IOC_INFO, &old));
	close(fd);
}

struct setup_race {
	int fd;
	long ret;
};

static void *setup_thread(void *arg)
{
	struct setup_race *s = arg;
	struct twheel_ring_params p;

	s->ret = tw_ring_setup_only(s->fd, 64, 64, &p);
	return NULL;
}

TEST(setup_params)
{
	struct twheel_ring_params p;
	struct {
		struct twheel_ring_params p;
		uint64_t tail;
	} big;
	struct setup_race race[4];
	pthread_t th[4];
	struct twheel_info info;
	int fd, i, ok = 0;

	fd = tw_open(0);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_info(fd, &info));
	EXPECT_EQ(-EINVAL, tw_ring_setup_only(fd, 0, 64, &p));
	EXPECT_EQ(-EINVAL, tw_ring_setup_only(fd, 8, 0, &p));
	EXPECT_EQ(-EINVAL, tw_ring_setup_only(fd, 8, 3, &p));
	EXPECT_EQ(-EINVAL, tw_ring_setup_only(fd, 8, 96, &p));
	EXPECT_EQ(-EINVAL, tw_ring_setup_only(fd, 8, TWHEEL_RING_MAX_ENTRIES * 2,
					      &p));
	EXPECT_EQ(-EINVAL, tw_ring_setup_only(fd, TWHEEL_TABLE_MAX_SLOTS + 1, 8,
					      &p));
	if (info.max_per_file < TWHEEL_TABLE_MAX_SLOTS)
		EXPECT_EQ(-ENOSPC, tw_ring_setup_only(fd, info.max_per_file + 1,
						      8, &p));
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.slots = 8;
	p.ring_entries = 8;
	p.flags = 1;
	EXPECT_EQ(-EINVAL, tw_ioctl(fd, TWHEEL_IOC_RING_SETUP, &p));
	p.flags = 0;
	p.__reserved = 1;
	EXPECT_EQ(-EINVAL, tw_ioctl(fd, TWHEEL_IOC_RING_SETUP, &p));
	p.__reserved = 0;
	p.size = 8;
	EXPECT_EQ(-EINVAL, tw_ioctl(fd, TWHEEL_IOC_RING_SETUP, &p));
	memset(&big, 0, sizeof(big));
	big.p.size = sizeof(big);
	big.p.slots = 8;
	big.p.ring_entries = 8;
	big.tail = 1;
	EXPECT_EQ(-E2BIG, tw_ioctl(fd, TWHEEL_IOC_RING_SETUP, &big));
	EXPECT_EQ(-EFAULT, tw_ioctl(fd, TWHEEL_IOC_RING_SETUP, NULL));

	/* None of that set anything up. */
	ASSERT_EQ(0, tw_ring_setup_only(fd, 1000, 1024, &p));
	EXPECT_EQ(TWHEEL_RING_MMAP_OFF, p.mmap_offset);
	EXPECT_EQ(sizeof(struct twheel_cqe), p.cqe_size);
	EXPECT_EQ(sizeof(struct twheel_sqe), p.sqe_size);
	EXPECT_LE(p.off.records + 1024 * sizeof(struct twheel_cqe), p.mmap_size);
	EXPECT_EQ(0U, p.mmap_size % PAGE);
	EXPECT_EQ(-EBUSY, tw_ring_setup_only(fd, 1000, 1024, &p));
	EXPECT_EQ(-EBUSY, tw_ring_setup_only(fd, 1, 1, &p));
	/* The ABI 1 ioctls still work on a file with a ring. */
	EXPECT_EQ(0, tw_arm(fd, 0, 10 * SEC, 0, 0, 0, NULL));
	EXPECT_EQ(1, tw_pending(fd));
	close(fd);

	/* Racing set-ups of one file: exactly one wins. */
	fd = tw_open(0);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	for (i = 0; i < 4; i++) {
		race[i].fd = fd;
		pthread_create(&th[i], NULL, setup_thread, &race[i]);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		if (!race[i].ret)
			ok++;
		else
			EXPECT_EQ(-EBUSY, race[i].ret);
	}
	EXPECT_EQ(1, ok);
	close(fd);
}

TEST(no_ring)
{
	struct twheel_sqe q = tw_sqe(TWHEEL_OP_ARM, 0, 0, SEC, 0, 0);
	char buf[sizeof(struct twheel_event)];
	void *m;
	int fd;

	fd = tw_open(O_NONBLOCK);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	EXPECT_EQ(-ENODEV, tw_submit(fd, &q, 1, NULL));
	EXPECT_EQ(-ENODEV, tw_flush(fd, NULL, NULL));
	m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(-1, read(fd, buf, sizeof(buf)));
	EXPECT_EQ(EAGAIN, errno);
	close(fd);
}

TEST(mmap_rules)
{
	struct tw_uring r;
	size_t size;
	char *m, *m2;
	int fd;

	fd = tw_open(0);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_ring_setup_only(fd, 1024, 1024, &r.p));
	size = r.p.mmap_size;
	ASSERT_LT(PAGE, size);

	m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, PAGE);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(EINVAL, errno);
	m = mmap(NULL, size + PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(EINVAL, errno);
	m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(EINVAL, errno);
	m = mmap(NULL, size, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(EPERM, errno);

	/* Right: the whole ring, a prefix, read-only. */
	m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, m);
	tw_ring_attach(&r, m);
	EXPECT_EQ(1024U, r.entries);
	EXPECT_EQ(1023U, r.mask);
	EXPECT_EQ(0U, *r.flags);
	/* Never executable, never larger. */
	EXPECT_EQ(-1, mprotect(m, size, PROT_READ | PROT_EXEC));
	/* VM_DONTEXPAND: growing is EFAULT, in place or moved. */
	EXPECT_EQ(MAP_FAILED, mremap(m, size, size + PAGE, 0));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(MAP_FAILED, mremap(m, size, size + PAGE, MREMAP_MAYMOVE));
	EXPECT_EQ(EFAULT, errno);
	m2 = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, m2);
	EXPECT_EQ(1024U, *(uint32_t *)(m2 + r.p.off.ring_entries));
	munmap(m2, PAGE);
	munmap(m, size);
	close(fd);
}

TEST(arm_and_read)
{
	static const uint32_t slot[3] = { 0, 5, 63 };
	static const uint64_t rel[3] = { 50 * MS, 20 * MS, 80 * MS };
	struct twheel_cqe c[8];
	struct twheel_sqe q[3];
	struct pollfd p;
	struct tw_uring r;
	uint64_t t0, t1, seen;
	uint32_t done, gen;
	unsigned int i, n;
	int fd;

	fd = tw_open(0);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_ring_setup(fd, 64, 64, &r));
	for (i = 0; i < 3; i++)
		q[i] = tw_sqe(TWHEEL_OP_ARM, slot[i], 0, rel[i], 0,
			      100 + slot[i]);
	t0 = tw_now();
	ASSERT_EQ(3, tw_submit(fd, q, 3, &done));
	t1 = tw_now();
	EXPECT_EQ(3U, done);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(0, q[i].result);
		EXPECT_EQ(1U, q[i].gen);
	}
	p.fd = fd;
	p.events = POLLIN;
	EXPECT_EQ(1, poll(&p, 1, 5000));
	ASSERT_EQ(3U, wait_records(fd, &r, 3, 5000));
	seen = tw_now();
	n = tw_ring_reap(&r, c, 8);
	ASSERT_EQ(3U, n);
	for (n = 0; n < 3; n++) {
		for (i = 0; i < 3 && slot[i] != c[n].slot; i++)
			;
		ASSERT_LT(i, 3U);
		EXPECT_EQ(100 + slot[i], c[n].cookie);
		EXPECT_EQ(1U, c[n].gen);
		EXPECT_EQ(0U, c[n].overruns);
		EXPECT_EQ(0U, c[n].flags);
		/* One clock read per batch: the deadline is that read + rel. */
		EXPECT_LE(t0 + rel[i], c[n].deadline);
		EXPECT_GE(t1 + rel[i], c[n].deadline);
		EXPECT_LE(c[n].deadline, seen);
	}
	/* In deadline order: one CPU, increasing deadlines. */
	EXPECT_EQ(5U, c[0].slot);
	EXPECT_EQ(0, poll(&p, 1, 100));
	EXPECT_EQ(0U, tw_ring_count(&r));
	/* A fired one-shot slot is idle: cancel 0, re-arm 0 with gen 2. */
	EXPECT_EQ(0, tw_submit1(fd, TWHEEL_OP_CANCEL, 5, 0, 0, 0, 0, &gen));
	EXPECT_EQ(1U, gen);
	EXPECT_EQ(0, tw_submit1(fd, TWHEEL_OP_ARM, 5, 0, SEC * 100, 0, 0, &gen));
	EXPECT_EQ(2U, gen);
	EXPECT_EQ(1, tw_submit1(fd, TWHEEL_OP_MODIFY, 5, 0, SEC * 200, 0, 0,
				&gen));
	EXPECT_EQ(3U, gen);
	EXPECT_EQ(1, tw_submit1(fd, TWHEEL_OP_CANCEL, 5, 0, 0, 0, 0, &gen));
	EXPECT_EQ(3U, gen);
	tw_ring_unmap(&r);
	close(fd);
}

TEST(bad_entries)
{
	struct twheel_ring_params p;
	struct twheel_batch b;
	struct twheel_sqe q[16];
	unsigned int i;
	uint32_t done;
	int fd;

	fd = tw_open(0);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_ring_setup_only(fd, 10, 16, &p));
	for (i = 0; i < 16; i++)
		q[i] = tw_sqe(TWHEEL_OP_ARM, 1, 0, 10 * SEC, 0, i);
	q[0].slot = 10;				/* EBADSLT */
	q[1].slot = UINT32_MAX;			/* EBADSLT */
	q[2].op = 0;				/* EINVAL */
	q[3].op = 4;				/* EINVAL */
	q[4] = tw_sqe(TWHEEL_OP_CANCEL, 1, TWHEEL_ARM_ABS, 0, 0, 0);
	q[5].op = TWHEEL_OP_MODIFY;
	q[5].flags = TWHEEL_ARM_CPU;		/* EINVAL */
	q[6].__pad = 1;				/* EINVAL */
	q[7].clockid = 99;			/* EINVAL */
	q[8].period = (uint64_t)INT64_MAX + 1;	/* EINVAL */
	q[9].flags = TWHEEL_ARM_CPU;
	q[9].cpu = 1000000;			/* ERANGE */
	q[10].slot = 3;				/* 0 */
	q[11].flags = TWHEEL_ARM_FIXED_DELAY;	/* EINVAL: no period */
	q[12] = tw_sqe(TWHEEL_OP_CANCEL, 9, 0, 0, 0, 0);	/* 0 */
	q[13] = tw_sqe(TWHEEL_OP_CANCEL, 3, 0, 0, 0, 0);	/* 1 */
	/* EINVAL: cancel-on-set is for TWHEEL_IOC_ARM / MODIFY timers only. */
	q[14].flags = TWHEEL_ARM_ABS | TWHEEL_ARM_CANCEL_ON_SET;
	q[14].clockid = CLOCK_REALTIME;
	/* EINVAL: the alarm clocks, likewise (even with CAP_WAKE_ALARM). */
	q[15].clockid = 9;			/* CLOCK_BOOTTIME_ALARM */
	EXPECT_EQ(3, tw_submit(fd, q, 16, &done));
	EXPECT_EQ(16U, done);
	EXPECT_EQ(-EBADSLT, q[0].result);
	EXPECT_EQ(-EBADSLT, q[1].result);
	for (i = 2; i <= 8; i++)
		EXPECT_EQ(-EINVAL, q[i].result) TH_LOG("entry %u", i);
	EXPECT_EQ(-ERANGE, q[9].result);
	EXPECT_EQ(0, q[10].result);
	EXPECT_EQ(1U, q[10].gen);
	EXPECT_EQ(-EINVAL, q[11].result);
	EXPECT_EQ(0, q[12].result);
	EXPECT_EQ(1, q[13].result);
	EXPECT_EQ(-EINVAL, q[14].result);
	EXPECT_EQ(-EINVAL, q[15].result);
	/* Slot 1 was never armed: every entry for it failed. */
	EXPECT_EQ(0, tw_submit1(fd, TWHEEL_OP_CANCEL, 1, 0, 0, 0, 0, NULL));

	/* The header. */
	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	b.count = 1;
	b.entries = (uintptr_t)q;
	b.entry_size = sizeof(q[0]) - 8;
	EXPECT_EQ(-EINVAL, tw_ioctl(fd, TWHEEL_IOC_SUBMIT, &b));
	b.entry_size = sizeof(q[0]) + 8;
	EXPECT_EQ(-EINVAL, tw_ioctl(fd, TWHEEL_IOC_SUBMIT, &b));
	b.entry_size = sizeof(q[0]);
	b.count = TWHEEL_BATCH_MAX + 1;
	EXPECT_EQ(-E2BIG, tw_ioctl(fd, TWHEEL_IOC_SUBMIT, &b));
	b.count = 1;
	b.flags = 1;
	EXPECT_EQ(-EINVAL, tw_ioctl(fd, TWHEEL_IOC_SUBMIT, &b));
	b.flags = 0;
	b.entries = 0;
	EXPECT_EQ(-EFAULT, tw_ioctl(fd, TWHEEL_IOC_SUBMIT, &b));
	b.count = 0;
	EXPECT_EQ(0, tw_ioctl(fd, TWHEEL_IOC_SUBMIT, &b));
	EXPECT_EQ(0U, b.done);
	EXPECT_EQ(-EFAULT, tw_ioctl(fd, TWHEEL_IOC_SUBMIT, NULL));
	close(fd);
}

TEST(submit_efault)
{
	const unsigned int n = 80;
	struct twheel_ring_params p;
	struct twheel_sqe *q;
	unsigned int i;
	uint32_t done;
	char *m;
	int fd;

	fd = tw_open(0);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_ring_setup_only(fd, 256, 256, &p));
	m = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, m);
	/* Entries 70.. are in the second page, which goes away. */
	q = (struct twheel_sqe *)(m + PAGE - 70 * sizeof(*q));
	for (i = 0; i < 70; i++)
		q[i] = tw_sqe(TWHEEL_OP_ARM, i, 0, 100 * SEC, 0, i);
	ASSERT_EQ(0, mprotect(m + PAGE, PAGE, PROT_NONE));
	/* The first chunk (64) is done; the second cannot be read. */
	EXPECT_EQ(64, tw_submit(fd, q, n, &done));
	EXPECT_EQ(64U, done);
	for (i = 0; i < 70; i++)
		EXPECT_EQ(i < 64 ? 1 : 0,
			  tw_submit1(fd, TWHEEL_OP_CANCEL, i, 0, 0, 0, 0, NULL))
			TH_LOG("slot %u", i);
	/* Readable, not writable: nothing is done. */
	ASSERT_EQ(0, mprotect(m, PAGE, PROT_READ));
	EXPECT_EQ(-EFAULT, tw_submit(fd, q, 10, &done));
	EXPECT_EQ(0U, done);
	for (i = 0; i < 10; i++)
		EXPECT_EQ(0, tw_submit1(fd, TWHEEL_OP_CANCEL, i, 0, 0, 0, 0,
					NULL));
	munmap(m, 2 * PAGE);
	close(fd);
}

TEST(ring_full_overflow)
{
	struct twheel_cqe c[32];
	struct twheel_sqe q[26];
	unsigned char got[26] = { 0 };
	uint32_t flushed, backlog, total = 0, from_backlog = 0;
	char ev[sizeof(struct twheel_event)];
	struct pollfd p;
	struct tw_uring r;
	unsigned int i, n;
	uint64_t end;
	int fd;

	fd = tw_open(O_NONBLOCK);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_ring_setup(fd, 32, 4, &r));
	for (i = 0; i < 20; i++)
		q[i] = tw_sqe(TWHEEL_OP_ARM, i, 0, 30 * MS, 0, 1000 + i);
	ASSERT_EQ(20, tw_submit(fd, q, 20, NULL));
	tw_sleep_ms(400);
	EXPECT_EQ(4U, tw_ring_count(&r));
	EXPECT_TRUE(tw_ring_overflowed(&r));
	EXPECT_EQ(16U, *r.overflow);
	p.fd = fd;
	p.events = POLLIN;
	EXPECT_EQ(1, poll(&p, 1, 0));
	/* Consume, flush, until every record came exactly once. */
	end = tw_now() + 5 * SEC;
	while (total < 20 && tw_now() < end) {
		n = tw_ring_reap(&r, c, 32);
		for (i = 0; i < n; i++) {
			ASSERT_LT(c[i].slot, 20U);
			EXPECT_EQ(1000 + c[i].slot, c[i].cookie);
			EXPECT_EQ(0U, c[i].overruns);
			EXPECT_EQ(1U, c[i].gen);
			got[c[i].slot]++;
			from_backlog += !!(c[i].flags & TWHEEL_CQE_BACKLOG);
		}
		total += n;
		ASSERT_EQ(0, tw_flush(fd, &flushed, &backlog));
		EXPECT_EQ(total < 20 ? 20 - total - flushed : 0, backlog);
	}
	EXPECT_EQ(20U, total);
	for (i = 0; i < 20; i++)
		EXPECT_EQ(1, got[i]) TH_LOG("slot %u", i);
	EXPECT_EQ(16U, from_backlog);
	EXPECT_FALSE(tw_ring_overflowed(&r));
	EXPECT_EQ(16U, *r.overflow);
	EXPECT_EQ(0, tw_flush(fd, &flushed, &backlog));
	EXPECT_EQ(0U, flushed);
	EXPECT_EQ(0U, backlog);
	EXPECT_EQ(0, poll(&p, 1, 0));

	/* read() flushes too. */
	for (i = 20; i < 26; i++)
		q[i] = tw_sqe(TWHEEL_OP_ARM, i, 0, 10 * MS, 0, 1000 + i);
	ASSERT_EQ(6, tw_submit(fd, q + 20, 6, NULL));
	tw_sleep_ms(300);
	EXPECT_EQ(4U, tw_ring_count(&r));
	EXPECT_EQ(4U, tw_ring_reap(&r, c, 32));
	EXPECT_EQ(0U, tw_ring_count(&r));
	EXPECT_EQ(-1, read(fd, ev, sizeof(ev)));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(2U, tw_ring_count(&r));
	EXPECT_EQ(2U, tw_ring_reap(&r, c, 32));
	EXPECT_FALSE(tw_ring_overflowed(&r));
	tw_ring_unmap(&r);
	close(fd);
}

/* Consecutive records of one periodic timer account for every period. */
TEST(periodic_overruns_exact)
{
	const uint64_t period = 20 * MS;
	struct twheel_cqe c[4], prev = { 0 };
	uint64_t periods = 0, first = 0;
	unsigned int round, n, i, records = 0;
	uint32_t flushed, gen;
	struct tw_uring r;
	bool have = false;
	int fd;

	fd = tw_open(0);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_ring_setup(fd, 4, 1, &r));
	ASSERT_EQ(0, tw_submit1(fd, TWHEEL_OP_ARM, 2, 0, period, period, 7,
				&gen));
	for (round = 0; round < 6; round++) {
		/* Nobody reads for a while: the ring (1 record) is full. */
		tw_sleep_ms(150);
		for (i = 0; i < 3; i++) {
			n = tw_ring_reap(&r, c, 4);
			if (n) {
				ASSERT_EQ(1U, n);
				ASSERT_EQ(2U, c[0].slot);
				EXPECT_EQ(7U, c[0].cookie);
				EXPECT_EQ(gen, c[0].gen);
				EXPECT_TRUE(c[0].flags & TWHEEL_CQE_PERIODIC);
				if (have) {
					ASSERT_LT(prev.deadline, c[0].deadline);
					EXPECT_EQ(0U, (c[0].deadline -
						       prev.deadline) % period);
					EXPECT_EQ((c[0].deadline -
						   prev.deadline) / period,
						  (uint64_t)c[0].overruns + 1);
				} else {
					first = c[0].deadline -
						(uint64_t)c[0].overruns * period;
				}
				periods += (uint64_t)c[0].overruns + 1;
				prev = c[0];
				have = true;
				records++;
			}
			ASSERT_EQ(0, tw_flush(fd, &flushed, NULL));
		}
	}
	EXPECT_EQ(1, tw_submit1(fd, TWHEEL_OP_CANCEL, 2, 0, 0, 0, 0, NULL));
	/* Every period up to the last record is in exactly one record. */
	ASSERT_TRUE(have);
	EXPECT_EQ((prev.deadline - first) / period + 1, periods);
	EXPECT_LT(records, periods);
	TH_LOG("%u records for %llu periods", records,
	       (unsigned long long)periods);
	/* Cancelled with its backlog: nothing more. */
	n = tw_ring_reap(&r, c, 4);
	EXPECT_EQ(0, tw_flush(fd, &flushed, NULL));
	tw_sleep_ms(100);
	EXPECT_EQ(0U, tw_ring_count(&r));
	EXPECT_FALSE(tw_ring_overflowed(&r));
	tw_ring_unmap(&r);
	close(fd);
}

TEST(slot_reuse_generation)
{
	struct twheel_cqe c[4];
	uint32_t gen, flushed;
	struct tw_uring r;
	int fd;

	fd = tw_open(0);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_ring_setup(fd, 8, 1, &r));
	ASSERT_EQ(0, tw_submit1(fd, TWHEEL_OP_ARM, 0, 0, 10 * MS, 0, 1, &gen));
	EXPECT_EQ(1U, gen);
	ASSERT_EQ(1U, wait_records(fd, &r, 1, 5000));
	/* Fired, record unread: the slot is idle and is reused. */
	EXPECT_EQ(0, tw_submit1(fd, TWHEEL_OP_ARM, 0, 0, 100 * SEC, 0, 2,
				&gen));
	EXPECT_EQ(2U, gen);
	/* Slot 1 fires into a full ring: its record waits in the backlog. */
	ASSERT_EQ(0, tw_submit1(fd, TWHEEL_OP_ARM, 1, 0, 10 * MS, 0, 3, &gen));
	tw_sleep_ms(200);
	EXPECT_TRUE(tw_ring_overflowed(&r));
	/* Reusing slot 1 drops that record: result 1, flag cleared. */
	EXPECT_EQ(1, tw_submit1(fd, TWHEEL_OP_ARM, 1, 0, 100 * SEC, 0, 4,
				&gen));
	EXPECT_EQ(2U, gen);
	EXPECT_FALSE(tw_ring_overflowed(&r));
	/* The record in the ring is the old arming's, told by its gen. */
	ASSERT_EQ(1U, tw_ring_reap(&r, c, 4));
	EXPECT_EQ(0U, c[0].slot);
	EXPECT_EQ(1U, c[0].gen);
	EXPECT_EQ(1U, c[0].cookie);
	EXPECT_EQ(0, tw_flush(fd, &flushed, NULL));
	EXPECT_EQ(0U, flushed);
	EXPECT_EQ(1, tw_submit1(fd, TWHEEL_OP_CANCEL, 0, 0, 0, 0, 0, NULL));
	EXPECT_EQ(1, tw_submit1(fd, TWHEEL_OP_CANCEL, 1, 0, 0, 0, 0, NULL));
	tw_sleep_ms(50);
	EXPECT_EQ(0U, tw_ring_count(&r));
	tw_ring_unmap(&r);
	close(fd);
}

/*
 * Modify racing expiry: a modify that returns 1 ended the arming before
 * it fired (no record of it ever); one that returns 0 came after the
 * expiry, whose record is then already in the ring.
 */
TEST(modify_racing_expiry)
{
	enum { SLOTS = 8, ROUNDS = 200 };
	struct twheel_sqe q[SLOTS];
	struct twheel_cqe c[64];
	uint32_t armgen[SLOTS], modgen[SLOTS], flushed;
	unsigned int round, s, i, n, fired = 0, early = 0;
	uint64_t seed = 42;
	struct tw_uring r;
	int res[SLOTS], got[SLOTS];
	int fd;

	fd = tw_open(0);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_ring_setup(fd, SLOTS, 64, &r));
	for (round = 0; round < ROUNDS; round++) {
		for (s = 0; s < SLOTS; s++)
			q[s] = tw_sqe(TWHEEL_OP_ARM, s, 0,
				      tw_rand_below(&seed, 3 * MS), 0, round);
		ASSERT_EQ(SLOTS, tw_submit(fd, q, SLOTS, NULL));
		for (s = 0; s < SLOTS; s++)
			armgen[s] = q[s].gen;
		if (tw_rand_below(&seed, 2))
			tw_sleep_ms(tw_rand_below(&seed, 4));
		for (s = 0; s < SLOTS; s++)
			q[s] = tw_sqe(TWHEEL_OP_MODIFY, s, 0, 3600 * SEC, 0, 0);
		ASSERT_EQ(SLOTS, tw_submit(fd, q, SLOTS, NULL));
		for (s = 0; s < SLOTS; s++) {
			res[s] = q[s].result;
			modgen[s] = q[s].gen;
			got[s] = 0;
			EXPECT_EQ(armgen[s] + 1, modgen[s]);
		}
		/* Everything the arming produced is in the ring by now. */
		ASSERT_EQ(0, tw_flush(fd, &flushed, NULL));
		n = tw_ring_reap(&r, c, 64);
		for (i = 0; i < n; i++) {
			ASSERT_LT(c[i].slot, SLOTS);
			ASSERT_EQ(armgen[c[i].slot], c[i].gen);
			EXPECT_EQ(round, c[i].cookie);
			got[c[i].slot]++;
		}
		for (s = 0; s < SLOTS; s++) {
			ASSERT_EQ(res[s] ? 0 : 1, got[s])
				TH_LOG("round %u slot %u result %d", round, s,
				       res[s]);
			fired += !res[s];
			early += res[s];
		}
	}
	for (s = 0; s < SLOTS; s++)
		EXPECT_EQ(1, tw_submit1(fd, TWHEEL_OP_CANCEL, s, 0, 0, 0, 0,
					NULL));
	TH_LOG("%u armings fired before their modify, %u did not", fired,
	       early);
	tw_ring_unmap(&r);
	close(fd);
}

struct consumer {
	int		fd;
	struct tw_uring	*r;
	uint32_t	want;
	uint8_t		*got;
	uint64_t	*deadline;
	atomic_uint	early;
	atomic_uint	bad;
	uint32_t	total;
};

static void *consumer_fn(void *arg)
{
	struct consumer *k = arg;
	struct epoll_event ev = { .events = EPOLLIN };
	uint64_t end = tw_now() + 60 * SEC, now;
	struct twheel_cqe c[128];
	unsigned int i, n;
	int ep = epoll_create1(EPOLL_CLOEXEC);

	epoll_ctl(ep, EPOLL_CTL_ADD, k->fd, &ev);
	while (k->total < k->want && tw_now() < end) {
		n = tw_ring_reap(k->r, c, 128);
		now = tw_now();
		for (i = 0; i < n; i++) {
			if (c[i].slot >= k->want ||
			    c[i].deadline != k->deadline[c[i].slot] ||
			    c[i].cookie != c[i].slot) {
				atomic_fetch_add(&k->bad, 1);
				continue;
			}
			if (now < c[i].deadline)
				atomic_fetch_add(&k->early, 1);
			k->got[c[i].slot]++;
		}
		k->total += n;
		if (!n) {
			if (tw_ring_overflowed(k->r))
				tw_flush(k->fd, NULL, NULL);
			else
				epoll_wait(ep, &ev, 1, 100);
		}
	}
	close(ep);
	return NULL;
}

/* Tests that take longer than the harness' 30 s on a debug kernel. */
FIXTURE(slow) {
};

FIXTURE_SETUP(slow)
{
}

FIXTURE_TEARDOWN(slow)
{
}

TEST_F_TIMEOUT(slow, concurrent_producer_consumer, 180)
{
	enum { N = 20000, BATCH = 1000 };
	int cpus[CPU_SETSIZE], ncpu = 0, fd, cpu;
	cpu_set_t set;
	struct twheel_sqe *q = calloc(N, sizeof(*q));
	struct consumer k = { .want = N };
	unsigned int i, ones = 0;
	struct tw_uring r;
	pthread_t th;
	uint64_t t0;

	ASSERT_NE(NULL, q);
	/* The online CPUs: one may be missing (a failed resume under TCG). */
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(set), &set));
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			cpus[ncpu++] = cpu;
	fd = tw_open(0);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_ring_setup(fd, N, 512, &r));
	k.fd = fd;
	k.r = &r;
	k.got = calloc(N, 1);
	k.deadline = calloc(N, sizeof(uint64_t));
	ASSERT_NE(NULL, k.got);
	ASSERT_NE(NULL, k.deadline);
	t0 = tw_now() + 300 * MS;
	for (i = 0; i < N; i++) {
		cpu = cpus[i % ncpu];
		k.deadline[i] = t0 + (i % 500) * MS + i;
		q[i] = tw_sqe(TWHEEL_OP_ARM, i, TWHEEL_ARM_ABS | TWHEEL_ARM_CPU,
			      k.deadline[i], 0, i);
		q[i].cpu = cpu;
	}
	ASSERT_EQ(0, pthread_create(&th, NULL, consumer_fn, &k));
	for (i = 0; i < N; i += BATCH)
		EXPECT_EQ(BATCH, tw_submit(fd, q + i, BATCH, NULL));
	pthread_join(th, NULL);
	for (i = 0; i < N; i++)
		ones += k.got[i] == 1;
	EXPECT_EQ(N, k.total);
	EXPECT_EQ((unsigned int)N, ones);
	EXPECT_EQ(0U, atomic_load(&k.early));
	EXPECT_EQ(0U, atomic_load(&k.bad));
	TH_LOG("%u records on %d CPUs through a 512-record ring, overflow %u",
	       k.total, ncpu, *r.overflow);
	tw_ring_unmap(&r);
	close(fd);
	free(k.got);
	free(k.deadline);
	free(q);
}

TEST(fork_shares_ring)
{
	struct twheel_cqe c[4];
	struct tw_uring r;
	int fd, status;
	pid_t pid;

	fd = tw_open(0);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_ring_setup(fd, 8, 16, &r));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* The child uses the inherited file and mapping. */
		if (tw_submit1(fd, TWHEEL_OP_ARM, 1, 0, 20 * MS, 0, 77, NULL))
			_exit(1);
		if (wait_records(fd, &r, 1, 5000) != 1)
			_exit(2);
		if (tw_ring_reap(&r, c, 4) != 1 || c[0].cookie != 77 ||
		    c[0].slot != 1)
			_exit(3);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* Same ring: the child's consumption is the parent's. */
	EXPECT_EQ(1U, *r.head);
	EXPECT_EQ(1U, *r.tail);
	/* The parent's arms reach a mapping the child shares after exit. */
	ASSERT_EQ(0, tw_submit1(fd, TWHEEL_OP_ARM, 2, 0, 10 * MS, 0, 78, NULL));
	ASSERT_EQ(1U, wait_records(fd, &r, 1, 5000));
	ASSERT_EQ(1U, tw_ring_reap(&r, c, 4));
	EXPECT_EQ(78U, c[0].cookie);
	tw_ring_unmap(&r);
	close(fd);
}

TEST(close_with_records)
{
	enum { FAST = 1000, SLOW = 500 };
	struct twheel_sqe *q = calloc(FAST + SLOW, sizeof(*q));
	struct tw_stats a, b;
	struct tw_uring r;
	unsigned int i;
	int fd;

	ASSERT_NE(NULL, q);
	tw_settle(60000);
	tw_stats_read(&a);
	fd = tw_open(0);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_ring_setup(fd, FAST + SLOW, 256, &r));
	for (i = 0; i < FAST + SLOW; i++)
		q[i] = tw_sqe(TWHEEL_OP_ARM, i, 0,
			      i < FAST ? 5 * MS : 3600 * SEC, 0, i);
	ASSERT_EQ(FAST + SLOW, tw_submit(fd, q, FAST + SLOW, NULL));
	tw_sleep_ms(500);
	EXPECT_EQ(256U, tw_ring_count(&r));
	EXPECT_TRUE(tw_ring_overflowed(&r));
	/* The mapping keeps the file: records stay readable after close. */
	close(fd);
	EXPECT_EQ(256U, tw_ring_count(&r));
	EXPECT_LT(r.cqes[0].slot, (uint32_t)FAST);
	tw_ring_unmap(&r);
	/* And a file with a ring that was never mapped. */
	fd = tw_open(0);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_ring_setup_only(fd, 100, 4, &r.p));
	for (i = 0; i < 100; i++)
		q[i] = tw_sqe(TWHEEL_OP_ARM, i, 0, i % 2 ? MS : 3600 * SEC, 0, i);
	ASSERT_EQ(100, tw_submit(fd, q, 100, NULL));
	tw_sleep_ms(100);
	close(fd);
	if (a.ok) {
		tw_stats_wait_pending(&b, tw_stats_v(&a, TWS_PENDING), 10000);
		EXPECT_EQ(tw_stats_v(&a, TWS_PENDING), tw_stats_v(&b, TWS_PENDING));
	}
	free(q);
}

TEST(use_after_munmap)
{
	struct twheel_cqe c[2];
	struct tw_uring r;
	char *old;
	int fd, status;
	pid_t pid;

	fd = tw_open(0);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_ring_setup(fd, 4, 8, &r));
	old = r.map;
	tw_ring_unmap(&r);
	/* The ring works unmapped: readiness needs no mapping. */
	ASSERT_EQ(0, tw_submit1(fd, TWHEEL_OP_ARM, 3, 0, 10 * MS, 0, 9, NULL));
	{
		struct pollfd p = { .fd = fd, .events = POLLIN };

		EXPECT_EQ(1, poll(&p, 1, 5000));
	}
	/* The old address faults. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(*(volatile uint32_t *)(old + r.p.off.tail) == 1 ? 0 : 9);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGSEGV, WTERMSIG(status));
	/* Mapped again: the same ring, the record is there. */
	old = mmap(NULL, r.p.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   fd, 0);
	ASSERT_NE(MAP_FAILED, old);
	tw_ring_attach(&r, old);
	ASSERT_EQ(1U, tw_ring_reap(&r, c, 2));
	EXPECT_EQ(3U, c[0].slot);
	EXPECT_EQ(9U, c[0].cookie);
	tw_ring_unmap(&r);
	close(fd);
}

/*
 * 100 000 timers, one deadline, armed through the ring; read without a
 * system call. Every record exactly once, none before the deadline. The
 * drain time is from the deadline to the last record being readable.
 */
TEST_F_TIMEOUT(slow, burst_100k, 180)
{
	enum { N = 100000 };
	struct twheel_sqe *q = calloc(N, sizeof(*q));
	uint8_t *got = calloc(N, 1);
	struct twheel_cqe c[256];
	uint64_t deadline, t0, t1, now, last = 0, end;
	unsigned int i, n, total = 0, ones = 0, early = 0, bad = 0;
	struct tw_uring r;
	int fd;

	ASSERT_NE(NULL, q);
	ASSERT_NE(NULL, got);
	fd = tw_open(0);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_ring_setup(fd, N, 1U << 17, &r));
	t0 = tw_now();
	deadline = t0 + 3 * SEC;
	for (i = 0; i < N; i++)
		q[i] = tw_sqe(TWHEEL_OP_ARM, i, TWHEEL_ARM_ABS, deadline, 0, i);
	for (i = 0; i < N; i += TWHEEL_BATCH_MAX / 2) {
		n = N - i < TWHEEL_BATCH_MAX / 2 ? N - i : TWHEEL_BATCH_MAX / 2;
		ASSERT_EQ((long)n, tw_submit(fd, q + i, n, NULL));
	}
	t1 = tw_now();
	printf("# burst: armed %u timers through the ring in %.1f ms (%.0f ns each)\n",
	       N, (t1 - t0) / 1e6, (double)(t1 - t0) / N);
	if (t1 >= deadline)
		printf("# burst: arming took past the deadline; drain time not meaningful\n");
	end = deadline + 30 * SEC;
	while (total < N && (now = tw_now()) < end) {
		n = tw_ring_reap(&r, c, 256);
		if (!n) {
			if (tw_ring_overflowed(&r))
				tw_flush(fd, NULL, NULL);
			else if (now + 2 * MS < deadline)
				tw_sleep_ms(1);
			else
				sched_yield();
			continue;
		}
		/* Records are readable from here on: read the clock after. */
		now = tw_now();
		for (i = 0; i < n; i++) {
			if (c[i].slot >= N || c[i].deadline != deadline ||
			    c[i].cookie != c[i].slot) {
				bad++;
				continue;
			}
			got[c[i].slot]++;
		}
		if (now < deadline)
			early += n;
		total += n;
		last = now;
	}
	for (i = 0; i < N; i++)
		ones += got[i] == 1;
	EXPECT_EQ((unsigned int)N, total);
	EXPECT_EQ((unsigned int)N, ones);
	EXPECT_EQ(0U, early);
	EXPECT_EQ(0U, bad);
	printf("# burst_drain_ms: %.1f (deadline to last of %u records readable)\n",
	       last > deadline ? (last - deadline) / 1e6 : 0.0, total);
	tw_ring_unmap(&r);
	close(fd);
	free(q);
	free(got);
}

/* ------------------------------------------------ limits and hostile users */

static uint64_t tick_ns_of(int fd)
{
	struct twheel_info info;

	return tw_info(fd, &info) ? 0 : info.tick_ns;
}

/* A period below one tick is EINVAL, in both ABIs; one tick is accepted. */
TEST(period_floor)
{
	struct tw_uring r;
	uint64_t tick, id;
	int fd;

	fd = tw_open(0);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	tick = tick_ns_of(fd);
	ASSERT_LT(1ULL, tick);
	ASSERT_EQ(0, tw_ring_setup(fd, 4, 4, &r));
	EXPECT_EQ(-EINVAL, tw_submit1(fd, TWHEEL_OP_ARM, 0, 0, SEC, 1, 0,
				      NULL));
	EXPECT_EQ(-EINVAL, tw_submit1(fd, TWHEEL_OP_ARM, 0,
				      TWHEEL_ARM_FIXED_DELAY, SEC, tick - 1, 0,
				      NULL));
	EXPECT_EQ(0, tw_submit1(fd, TWHEEL_OP_ARM, 0, 0, SEC, tick, 0, NULL));
	EXPECT_EQ(-EINVAL, tw_submit1(fd, TWHEEL_OP_MODIFY, 0, 0, SEC, 1, 0,
				      NULL));
	EXPECT_EQ(1, tw_submit1(fd, TWHEEL_OP_CANCEL, 0, 0, 0, 0, 0, NULL));
	/* ABI 1. */
	EXPECT_EQ(-EINVAL, tw_arm(fd, 0, SEC, 1, 0, 0, &id));
	EXPECT_EQ(-EINVAL, tw_arm(fd, TWHEEL_ARM_FIXED_DELAY, SEC, tick - 1, 0,
				  0, &id));
	ASSERT_EQ(0, tw_arm(fd, 0, SEC, tick, 0, 0, &id));
	EXPECT_EQ(-EINVAL, tw_modify(fd, id, 0, SEC, 1));
	EXPECT_EQ(1, tw_cancel(fd, id));
	tw_ring_unmap(&r);
	close(fd);
}

/*
 * 64 periodic slots of one tick into a ring of one record: every slot's
 * record soon waits in the backlog, and a slot whose record waits is
 * parked: no callback runs at all (debugfs callbacks, exactly 0) until the
 * backlog is flushed. Then the slots run again, and their records account
 * for every period of the grid since the first deadline, periods spent
 * parked included (counted from the clock at the flush).
 */
TEST(periodic_parks_in_backlog)
{
	enum { SLOTS = 64 };
	struct twheel_sqe q[SLOTS];
	struct twheel_cqe c[8];
	uint64_t tick, d0, sum[SLOTS] = { 0 }, last[SLOTS] = { 0 }, end;
	unsigned int i, n, recs[SLOTS] = { 0 }, bad = 0, early = 0;
	struct tw_stats a, b;
	struct tw_uring r;
	int64_t cbs;
	int fd;

	fd = tw_open(O_NONBLOCK);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	tw_stats_read(&a);
	if (!a.ok)
		SKIP(return, "no debugfs stats");
	tick = tick_ns_of(fd);
	ASSERT_EQ(0, tw_ring_setup(fd, SLOTS, 1, &r));
	d0 = tw_now() + 20 * MS;
	for (i = 0; i < SLOTS; i++)
		q[i] = tw_sqe(TWHEEL_OP_ARM, i, TWHEEL_ARM_ABS, d0, tick, i);
	ASSERT_EQ(SLOTS, tw_submit(fd, q, SLOTS, NULL));
	/* Nothing consumes, nothing flushes: every slot ends up parked. */
	tw_sleep_ms(200);
	tw_stats_read(&a);
	tw_sleep_ms(300);
	tw_stats_read(&b);
	cbs = tw_stats_delta(&a, &b, TWS_CALLBACKS);
	TH_LOG("callbacks in 300 ms with %d one-tick slots waiting: %lld",
	       SLOTS, (long long)cbs);
	EXPECT_EQ(0, cbs);
	EXPECT_TRUE(tw_ring_overflowed(&r));
	/* Consume and flush for a while: every slot runs again. */
	end = tw_now() + 1000 * MS;
	while (tw_now() < end) {
		n = tw_ring_reap(&r, c, 8);
		for (i = 0; i < n; i++) {
			uint32_t s = c[i].slot;

			if (s >= SLOTS || c[i].cookie != s ||
			    c[i].deadline < d0 || (c[i].deadline - d0) % tick ||
			    (last[s] && c[i].deadline <= last[s])) {
				bad++;
				continue;
			}
			if (c[i].deadline > tw_now())
				early++;
			sum[s] += c[i].overruns + 1ULL;
			last[s] = c[i].deadline;
			recs[s]++;
		}
		tw_flush(fd, NULL, NULL);
	}
	for (i = 0; i < SLOTS; i++)
		EXPECT_EQ(1, tw_submit1(fd, TWHEEL_OP_CANCEL, i, 0, 0, 0, 0,
					NULL));
	EXPECT_EQ(0U, bad);
	EXPECT_EQ(0U, early);
	for (i = 0; i < SLOTS; i++) {
		/* Ran again after the first flush of its record. */
		EXPECT_LE(2U, recs[i]) TH_LOG("slot %u", i);
		/* Every period of the grid up to the last record, once. */
		EXPECT_EQ((last[i] - d0) / tick + 1, sum[i]) TH_LOG("slot %u", i);
	}
	tw_ring_unmap(&r);
	close(fd);
}

/*
 * A parked fixed-rate slot's record keeps the periods it counted before it
 * was parked, however many flushes meet a full ring first. The hook
 * clock_read makes the driver read its clock 3 ticks late while a one-tick
 * slot fires its first record into a ring of one: its re-arm counts the
 * periods that passed, and its next expiry finds the ring full, so it
 * parks with them. Flushes with the ring still full (a poll() before the
 * reap does the same) must not touch them: the slot's records then account
 * for every period of the grid.
 */
TEST(parked_overruns_survive_full_flushes)
{
	struct twheel_cqe c[4];
	struct twheel_sqe q;
	uint64_t tick, d0, sum = 0, last = 0, end;
	unsigned int i, n, recs = 0, bad = 0;
	long long hits;
	struct tw_uring r;
	int fd, ret;

	fd = tw_open(O_NONBLOCK);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	if (tw_hook_set("clock_read", 0))
		SKIP(close(fd); return, "no test hooks");
	tick = tick_ns_of(fd);
	ASSERT_LT(1ULL, tick);
	/* Its windows (a 3-tick hold within 120 ms) need a short tick. */
	if (tick > 4 * MS)
		SKIP(close(fd); return, "tick %llu ns", (unsigned long long)tick);
	ASSERT_EQ(0, tw_ring_setup(fd, 1, 1, &r));
	hits = tw_hook_hits("clock_read");
	d0 = tw_now() + 20 * MS;
	q = tw_sqe(TWHEEL_OP_ARM, 0, TWHEEL_ARM_ABS, d0, tick, 0);
	ASSERT_EQ(0, tw_hook_set("clock_read", 3 * tick / 1000));
	ret = tw_submit(fd, &q, 1, NULL);
	/* The first record, then the expiry that parks. */
	if (ret == 1)
		tw_sleep_ms(120);
	/* Off before any assertion can end the test. */
	tw_hook_set("clock_read", 0);
	ASSERT_EQ(1, ret);
	TH_LOG("tick %llu ns, hook hits %lld", (unsigned long long)tick,
	       tw_hook_hits("clock_read") - hits);
	EXPECT_LT(hits, tw_hook_hits("clock_read"));
	EXPECT_TRUE(tw_ring_overflowed(&r));
	for (i = 0; i < 8; i++)
		tw_flush(fd, NULL, NULL);
	end = tw_now() + 300 * MS;
	while (tw_now() < end) {
		n = tw_ring_reap(&r, c, 4);
		for (i = 0; i < n; i++) {
			if (c[i].slot || c[i].deadline < d0 ||
			    (c[i].deadline - d0) % tick ||
			    (recs && c[i].deadline <= last)) {
				bad++;
				continue;
			}
			if (recs < 3)
				TH_LOG("record %u: tick %llu, %u overruns",
				       recs,
				       (unsigned long long)((c[i].deadline - d0) / tick),
				       c[i].overruns);
			sum += c[i].overruns + 1ULL;
			last = c[i].deadline;
			recs++;
		}
		tw_flush(fd, NULL, NULL);
	}
	EXPECT_EQ(1, tw_submit1(fd, TWHEEL_OP_CANCEL, 0, 0, 0, 0, 0, NULL));
	EXPECT_EQ(0U, bad);
	EXPECT_LE(2U, recs);
	/* Every period of the grid up to the last record, once. */
	EXPECT_EQ((last - d0) / tick + 1, sum);
	tw_ring_unmap(&r);
	close(fd);
}

/*
 * A fixed-delay slot parked in the backlog is re-armed one period after its
 * record leaves the backlog, and never less than a period after the
 * deadline that record reports. The flush reads its clock before it takes
 * the ring lock; the hook ring_flush holds it there while the slot fires
 * into the backlog, so the clock the flush holds is older than that record.
 */
TEST(fixed_delay_flush_after_record)
{
	enum { P_MS = 50 };
	struct twheel_sqe q[3];
	struct twheel_cqe c[4];
	uint64_t t0, tf, end, last = 0, now;
	unsigned int i, n, recs = 0, short_gap = 0, early = 0;
	long long hits;
	struct tw_uring r;
	int fd;

	fd = tw_open(O_NONBLOCK);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	if (tw_hook_set("ring_flush", 0))
		SKIP(close(fd); return, "no test hooks");
	/* A one-record ring: slot 0's record fills it, slot 2's waits. */
	ASSERT_EQ(0, tw_ring_setup(fd, 3, 1, &r));
	t0 = tw_now();
	q[0] = tw_sqe(TWHEEL_OP_ARM, 0, TWHEEL_ARM_ABS, t0 + 5 * MS, 0, 0);
	q[1] = tw_sqe(TWHEEL_OP_ARM, 1, TWHEEL_ARM_ABS | TWHEEL_ARM_FIXED_DELAY,
		      t0 + 100 * MS, P_MS * MS, 1);
	q[2] = tw_sqe(TWHEEL_OP_ARM, 2, TWHEEL_ARM_ABS, t0 + 25 * MS, 0, 2);
	ASSERT_EQ(3, tw_submit(fd, q, 3, NULL));
	/* Slot 2's record waits in the backlog: a slow tick only delays it. */
	while (!tw_ring_overflowed(&r) && tw_now() < t0 + 2 * SEC)
		tw_sleep_ms(2);
	ASSERT_EQ(1U, tw_ring_reap(&r, c, 1));
	ASSERT_EQ(0U, c[0].slot);
	ASSERT_TRUE(tw_ring_overflowed(&r));
	/* The flush's clock says about t0 + 40 ms; slot 1 fires at t0 + 100 ms. */
	hits = tw_hook_hits("ring_flush");
	ASSERT_EQ(0, tw_hook_set("ring_flush", 200000));
	tf = tw_now();
	tw_flush(fd, NULL, NULL);
	tw_hook_set("ring_flush", 0);
	EXPECT_LT(hits, tw_hook_hits("ring_flush"));
	end = tw_now() + 400 * MS;
	while (tw_now() < end) {
		n = tw_ring_reap(&r, c, 4);
		now = tw_now();
		for (i = 0; i < n; i++) {
			if (c[i].slot != 1)
				continue;
			if (c[i].deadline > now)
				early++;
			if (!recs)
				EXPECT_EQ(t0 + 100 * MS, c[i].deadline);
			/*
			 * Its first record left the backlog after the held
			 * flush's hold (200 ms after tf at least): the timer
			 * goes on one period after that, not from the flush's
			 * clock read before the hold.
			 */
			if (recs == 1 && c[i].deadline < tf + 200 * MS + P_MS * MS) {
				short_gap++;
				TH_LOG("record 1: deadline %lld us after the first moved, period %u ms",
				       ((long long)c[i].deadline -
					(long long)(tf + 200 * MS)) / 1000, P_MS);
			}
			if (last && c[i].deadline < last + P_MS * MS) {
				short_gap++;
				TH_LOG("record %u: deadline %llu us after the last, period %u ms",
				       recs, (unsigned long long)
				       (c[i].deadline - last) / 1000, P_MS);
			}
			last = c[i].deadline;
			recs++;
		}
		tw_flush(fd, NULL, NULL);
		tw_sleep_ms(2);
	}
	EXPECT_EQ(1, tw_submit1(fd, TWHEEL_OP_CANCEL, 1, 0, 0, 0, 0, NULL));
	EXPECT_LE(3U, recs);
	EXPECT_EQ(0U, early);
	EXPECT_EQ(0U, short_gap);
	tw_ring_unmap(&r);
	close(fd);
}

/*
 * An expiry that goes to the backlog is new data: an edge-triggered epoll
 * consumer is woken for it, as for a record written into the ring.
 */
TEST(backlog_expiry_wakes)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
	struct tw_uring r;
	uint64_t t0;
	int fd, ep;

	fd = tw_open(O_NONBLOCK);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_ring_setup(fd, 4, 1, &r));
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
	t0 = tw_now();
	ASSERT_EQ(0, tw_submit1(fd, TWHEEL_OP_ARM, 0, TWHEEL_ARM_ABS,
				t0 + 20 * MS, 0, 0, NULL));
	ASSERT_EQ(0, tw_submit1(fd, TWHEEL_OP_ARM, 1, TWHEEL_ARM_ABS,
				t0 + 150 * MS, 0, 1, NULL));
	ASSERT_EQ(1, epoll_wait(ep, &ev, 1, 5000));
	EXPECT_EQ(1U, tw_ring_count(&r));
	EXPECT_LT(tw_now(), t0 + 150 * MS);
	/* Slot 1 expires into the full ring: its record waits, and wakes. */
	EXPECT_EQ(1, epoll_wait(ep, &ev, 1, 2000));
	EXPECT_LE(t0 + 150 * MS, tw_now());
	EXPECT_TRUE(tw_ring_overflowed(&r));
	close(ep);
	tw_ring_unmap(&r);
	close(fd);
}

/*
 * While records wait in the backlog, new expiries wait behind them even if
 * the ring has room: nothing overtakes the backlog.
 */
TEST(backlog_keeps_order)
{
	struct twheel_sqe q[5];
	struct twheel_cqe c[8], all[8];
	unsigned int i, n, total = 0;
	uint64_t t0, end;
	struct tw_uring r;
	int fd;

	fd = tw_open(O_NONBLOCK);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_ring_setup(fd, 8, 2, &r));
	t0 = tw_now() + 30 * MS;
	for (i = 0; i < 4; i++)
		q[i] = tw_sqe(TWHEEL_OP_ARM, i, TWHEEL_ARM_ABS, t0, 0, i);
	q[4] = tw_sqe(TWHEEL_OP_ARM, 4, TWHEEL_ARM_ABS, t0 + 100 * MS, 0, 4);
	ASSERT_EQ(5, tw_submit(fd, q, 5, NULL));
	/* Two records in the ring, two in the backlog. No system call. */
	while (tw_now() < t0 + 50 * MS)
		tw_sleep_ms(5);
	ASSERT_EQ(2U, tw_ring_count(&r));
	ASSERT_TRUE(tw_ring_overflowed(&r));
	ASSERT_EQ(2U, tw_ring_reap(&r, all, 2));
	total = 2;
	/* Slot 4 expires with room in the ring and a backlog. */
	while (tw_now() < t0 + 200 * MS)
		tw_sleep_ms(5);
	end = tw_now() + 2 * SEC;
	while (total < 5 && tw_now() < end) {
		n = tw_ring_reap(&r, c, 8);
		for (i = 0; i < n && total < 8; i++)
			all[total++] = c[i];
		if (!n)
			tw_flush(fd, NULL, NULL);
	}
	ASSERT_EQ(5U, total);
	for (i = 0; i < 4; i++)
		EXPECT_GT(4U, all[i].slot) TH_LOG("record %u: slot %u", i,
						  all[i].slot);
	EXPECT_EQ(4U, all[4].slot);
	EXPECT_TRUE(all[4].flags & TWHEEL_CQE_BACKLOG);
	tw_ring_unmap(&r);
	close(fd);
}

/* Limit the child to 12 pages of locked memory, then be an unprivileged user. */
#define MEMLOCK_PAGES	12

static int memlock_child(void)
{
	struct twheel_ring_params p;
	int fd1, fd2, fd3;

	fd1 = tw_open(0);
	fd2 = tw_open(0);
	fd3 = tw_open(0);
	if (fd1 < 0 || fd2 < 0 || fd3 < 0)
		return 1;
	/* A ring larger than its slots can need. */
	if (tw_ring_setup_only(fd1, 8, 1024, &p) != -EINVAL)
		return 2;
	if (tw_ring_setup_only(fd1, 100, 256, &p) != -EINVAL)
		return 3;
	/* 1024 records: 9 pages. */
	if (tw_ring_setup_only(fd1, 1024, 1024, &p))
		return 4;
	if (p.mmap_size > 9 * PAGE)
		return 5;
	/*
	 * Another 9 pages: above the limit, on a kernel whose users count
	 * locked memory (struct user_struct.locked_vm: one with networking,
	 * io_uring, ...; /proc/net tells networking).
	 */
	if (tw_ring_setup_only(fd2, 1024, 1024, &p) != -ENOMEM)
		return access("/proc/net", F_OK) ? 30 : 6;
	/* One page fits; small rings up to 64 records for any slots. */
	if (tw_ring_setup_only(fd3, 1, 64, &p))
		return 7;
	close(fd1);
	/* Closing gave the pages back. */
	if (tw_ring_setup_only(fd2, 1024, 1024, &p))
		return 8;
	close(fd2);
	close(fd3);
	return 0;
}

static int memlock_limited(void)
{
	struct rlimit rl = { MEMLOCK_PAGES * PAGE, MEMLOCK_PAGES * PAGE };

	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		return 20;
	return memlock_child();
}

/*
 * Ring pages count against RLIMIT_MEMLOCK of the user (all its files), and
 * a ring is at most what its slots can need.
 */
TEST(ring_memlock)
{
	struct twheel_ring_params p;
	int fd, fd2, pid, status;

	fd = tw_open(0);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	close(fd);
	if (geteuid())
		SKIP(return, "needs root to become another user");
	status = tw_as_uid(65534, memlock_limited);
	if (status == 30)
		SKIP(return, "kernel without user_struct.locked_vm (no networking)");
	EXPECT_EQ(0, status);
	/* CAP_IPC_LOCK is exempt. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct rlimit rl = { PAGE, PAGE };

		if (setrlimit(RLIMIT_MEMLOCK, &rl))
			_exit(1);
		fd = tw_open(0);
		fd2 = tw_open(0);
		if (tw_ring_setup_only(fd, 1024, 1024, &p) ||
		    tw_ring_setup_only(fd2, 1024, 1024, &p))
			_exit(2);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* The slots of a table and the timers of ABI 1 share max_per_file. */
TEST(table_slots_in_file_cap)
{
	struct twheel_ring_params p;
	long old = tw_param_get("max_timers_per_fd");
	unsigned int i;
	uint64_t id;
	int fd, fd2;

	fd = tw_open(0);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	if (old < 0 || tw_param_set("max_timers_per_fd", 100))
		SKIP(close(fd); return, "cannot set max_timers_per_fd");
	EXPECT_EQ(0, tw_ring_setup_only(fd, 100, 64, &p));
	EXPECT_EQ(-ENOSPC, tw_arm(fd, 0, 100 * SEC, 0, 0, 0, &id));
	EXPECT_EQ(0LL, tw_pending(fd));
	fd2 = tw_open(0);
	ASSERT_LE(0, fd2);
	for (i = 0; i < 50; i++)
		EXPECT_EQ(0, tw_arm(fd2, 0, 100 * SEC, 0, 0, 0, &id));
	EXPECT_EQ(-ENOSPC, tw_ring_setup_only(fd2, 51, 64, &p));
	EXPECT_EQ(0, tw_ring_setup_only(fd2, 50, 64, &p));
	EXPECT_EQ(-ENOSPC, tw_arm(fd2, 0, 100 * SEC, 0, 0, 0, &id));
	/* pending counts the timers of ABI 1 only. */
	EXPECT_EQ(50LL, tw_pending(fd2));
	close(fd);
	close(fd2);
	EXPECT_EQ(0, tw_param_set("max_timers_per_fd", old));
}

/*
 * A ring timer is converted to CLOCK_MONOTONIC once: an absolute
 * CLOCK_REALTIME deadline would fire early after a backward step of the
 * clock, so it is refused. Relative CLOCK_REALTIME is a CLOCK_MONOTONIC
 * deadline, and CLOCK_BOOTTIME can only be late (suspend), never early.
 */
TEST(realtime_abs_refused)
{
	struct twheel_sqe q;
	struct timespec ts;
	struct tw_uring r;
	uint64_t now;
	int fd;

	fd = tw_open(0);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_ring_setup(fd, 4, 4, &r));
	clock_gettime(CLOCK_REALTIME, &ts);
	now = ts.tv_sec * SEC + ts.tv_nsec;
	q = tw_sqe(TWHEEL_OP_ARM, 0, TWHEEL_ARM_ABS, now + 100 * SEC, 0, 0);
	q.clockid = CLOCK_REALTIME;
	EXPECT_EQ(0, tw_submit(fd, &q, 1, NULL));
	EXPECT_EQ(-EINVAL, q.result);
	EXPECT_EQ(0U, q.gen);
	q = tw_sqe(TWHEEL_OP_ARM, 0, 0, 100 * SEC, 0, 0);
	q.clockid = CLOCK_REALTIME;
	EXPECT_EQ(1, tw_submit(fd, &q, 1, NULL));
	EXPECT_EQ(0, q.result);
	q = tw_sqe(TWHEEL_OP_MODIFY, 0, TWHEEL_ARM_ABS, now + 100 * SEC, 0, 0);
	q.clockid = CLOCK_REALTIME;
	EXPECT_EQ(0, tw_submit(fd, &q, 1, NULL));
	EXPECT_EQ(-EINVAL, q.result);
	clock_gettime(CLOCK_BOOTTIME, &ts);
	q = tw_sqe(TWHEEL_OP_MODIFY, 0, TWHEEL_ARM_ABS,
		   ts.tv_sec * SEC + ts.tv_nsec + 100 * SEC, 0, 0);
	q.clockid = CLOCK_BOOTTIME;
	EXPECT_EQ(1, tw_submit(fd, &q, 1, NULL));
	EXPECT_EQ(1, q.result);
	tw_ring_unmap(&r);
	close(fd);
}

/*
 * A set-up whose parameters cannot be written back still set the ring up:
 * TWHEEL_RING_SETUP_QUERY reports it (and never sets anything up).
 */
TEST(setup_query)
{
	struct twheel_ring_params *ro, p, q;
	struct tw_uring r;
	char *m;
	int fd;

	fd = tw_open(0);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.flags = TWHEEL_RING_SETUP_QUERY;
	EXPECT_EQ(-ENODEV, tw_ioctl(fd, TWHEEL_IOC_RING_SETUP, &q));
	m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, m);
	ro = (struct twheel_ring_params *)m;
	ro->size = sizeof(*ro);
	ro->slots = 16;
	ro->ring_entries = 16;
	ASSERT_EQ(0, mprotect(m, PAGE, PROT_READ));
	EXPECT_EQ(-EFAULT, tw_ioctl(fd, TWHEEL_IOC_RING_SETUP, ro));
	EXPECT_EQ(-EBUSY, tw_ring_setup_only(fd, 16, 16, &p));
	q.slots = 1;
	EXPECT_EQ(-EINVAL, tw_ioctl(fd, TWHEEL_IOC_RING_SETUP, &q));
	q.slots = 0;
	q.flags |= 2;
	EXPECT_EQ(-EINVAL, tw_ioctl(fd, TWHEEL_IOC_RING_SETUP, &q));
	q.flags = TWHEEL_RING_SETUP_QUERY;
	ASSERT_EQ(0, tw_ioctl(fd, TWHEEL_IOC_RING_SETUP, &q));
	EXPECT_EQ(16U, q.slots);
	EXPECT_EQ(16U, q.ring_entries);
	EXPECT_EQ(TWHEEL_RING_SETUP_QUERY, q.flags);
	EXPECT_EQ(TWHEEL_RING_MMAP_OFF, q.mmap_offset);
	EXPECT_LT(0ULL, q.mmap_size);
	EXPECT_EQ(sizeof(struct twheel_cqe), q.cqe_size);
	EXPECT_EQ(sizeof(struct twheel_sqe), q.sqe_size);
	r.p = q;
	m = mmap(NULL, q.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 q.mmap_offset);
	ASSERT_NE(MAP_FAILED, m);
	tw_ring_attach(&r, m);
	EXPECT_EQ(16U, r.entries);
	ASSERT_EQ(0, tw_submit1(fd, TWHEEL_OP_ARM, 15, 0, MS, 0, 5, NULL));
	EXPECT_EQ(1U, wait_records(fd, &r, 1, 5000));
	EXPECT_EQ(15U, r.cqes[0].slot);
	tw_ring_unmap(&r);
	munmap(ro, PAGE);
	close(fd);
}

static int two_cpus(int *a, int *b)
{
	cpu_set_t set;
	int i, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (i = 0; i < CPU_SETSIZE && n < 2; i++) {
		if (!CPU_ISSET(i, &set))
			continue;
		if (!n++)
			*a = i;
		else
			*b = i;
	}
	return n == 2 ? 0 : -1;
}

/* MODIFY keeps the slot's CPU only if the caller may put a timer there. */
TEST(modify_checks_cpu)
{
	cpu_set_t old;
	struct tw_uring r;
	int fd, a, b;

	fd = tw_open(0);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(old), &old));
	if (two_cpus(&a, &b))
		SKIP(close(fd); return, "needs two CPUs");
	ASSERT_EQ(0, tw_ring_setup(fd, 4, 4, &r));
	ASSERT_EQ(0, tw_pin(a));
	ASSERT_EQ(0, tw_submit1(fd, TWHEEL_OP_ARM, 0, 0, 100 * SEC, 0, 1,
				NULL));
	ASSERT_EQ(0, tw_pin(b));
	EXPECT_EQ(-EPERM, tw_submit1(fd, TWHEEL_OP_MODIFY, 0, 0, 100 * SEC, 0,
				     0, NULL));
	/* Still armed on its CPU; cancel and arm here instead. */
	EXPECT_EQ(1, tw_submit1(fd, TWHEEL_OP_CANCEL, 0, 0, 0, 0, 0, NULL));
	EXPECT_EQ(0, tw_submit1(fd, TWHEEL_OP_ARM, 0, 0, 100 * SEC, 0, 1,
				NULL));
	EXPECT_EQ(1, tw_submit1(fd, TWHEEL_OP_MODIFY, 0, 0, 100 * SEC, 0, 0,
				NULL));
	EXPECT_EQ(1, tw_submit1(fd, TWHEEL_OP_CANCEL, 0, 0, 0, 0, 0, NULL));
	sched_setaffinity(0, sizeof(old), &old);
	tw_ring_unmap(&r);
	close(fd);
}

struct offliner {
	int	cpu;
	int	rc;
};

static void *offline_fn(void *arg)
{
	struct offliner *o = arg;

	tw_sleep_ms(50);
	o->rc = tw_cpu_set_online(o->cpu, 0);
	return NULL;
}

/*
 * An arm whose named CPU goes offline between the checks and the arm ends
 * with ENXIO and generation 0: no byte of kernel memory comes back. The
 * hook ring_submit holds the submission between the two while another
 * thread takes the CPU offline.
 */
TEST(enxio_gen_is_zero)
{
	enum { N = 32 };
	struct twheel_sqe q[N];
	long long poisoned;
	struct offliner o;
	struct tw_uring r;
	pthread_t th;
	unsigned int i;
	cpu_set_t old;
	int fd, a, b;

	fd = tw_open(0);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(old), &old));
	if (two_cpus(&a, &b))
		SKIP(close(fd); return, "needs two CPUs");
	if (b == 0)
		SKIP(close(fd); return, "CPU 0 cannot go offline");
	if (tw_hook_set("ring_submit", 0))
		SKIP(close(fd); return, "no test hooks");
	ASSERT_EQ(0, tw_ring_setup(fd, N, N, &r));
	/* Leave generations in the submission's working memory first. */
	for (i = 0; i < N; i++)
		q[i] = tw_sqe(TWHEEL_OP_ARM, 0, 0, 100 * SEC, 0, i);
	ASSERT_EQ(N, tw_submit(fd, q, N, NULL));
	ASSERT_EQ(1, tw_submit1(fd, TWHEEL_OP_CANCEL, 0, 0, 0, 0, 0, NULL));
	for (i = 0; i < N; i++) {
		q[i] = tw_sqe(TWHEEL_OP_ARM, i, TWHEEL_ARM_CPU, 100 * SEC, 0,
			      i);
		q[i].cpu = b;
	}
	o.cpu = b;
	o.rc = -1;
	/*
	 * Whatever kmalloc() hands the submission back (stock kernels zero
	 * it, init_on_alloc), it is not zeroes: a byte that reaches the
	 * caller unwritten shows.
	 */
	poisoned = tw_hook_hits("poison_alloc");
	ASSERT_EQ(0, tw_hook_set("poison_alloc", 0xa5));
	ASSERT_EQ(0, tw_hook_set("ring_submit", 1000000));
	ASSERT_EQ(0, pthread_create(&th, NULL, offline_fn, &o));
	tw_submit(fd, q, N, NULL);
	pthread_join(th, NULL);
	tw_hook_set("ring_submit", 0);
	tw_hook_set("poison_alloc", 0);
	EXPECT_LT(poisoned, tw_hook_hits("poison_alloc"));
	if (o.rc) {
		sched_setaffinity(0, sizeof(old), &old);
		SKIP(close(fd); return, "cannot take CPU %d offline", b);
	}
	for (i = 0; i < N; i++) {
		EXPECT_EQ(-ENXIO, q[i].result) TH_LOG("entry %u", i);
		EXPECT_EQ(0U, q[i].gen) TH_LOG("entry %u: gen %#x", i,
					      q[i].gen);
	}
	EXPECT_EQ(0, tw_cpu_set_online(b, 1));
	sched_setaffinity(0, sizeof(old), &old);
	tw_ring_unmap(&r);
	close(fd);
}

struct hostile {
	struct tw_uring	*r;
	atomic_int	stop;
	uint64_t	seed;
	uint64_t	writes;
};

static void *hostile_fn(void *arg)
{
	struct hostile *h = arg;
	uint32_t tail, v;

	while (!atomic_load(&h->stop)) {
		tail = __atomic_load_n(h->r->tail, __ATOMIC_ACQUIRE);
		switch (tw_rand_below(&h->seed, 6)) {
		case 0:
			v = tail + 1 + tw_rand_below(&h->seed, 8);
			break;
		case 1:
			v = tail + (1U << 31);
			break;
		case 2:
			v = tail - h->r->entries - 1 -
			    tw_rand_below(&h->seed, 100);
			break;
		case 3:
			v = ~0U - tw_rand_below(&h->seed, 4);
			break;
		case 4:
			v = tw_rand_below(&h->seed, ~0U);
			break;
		default:
			v = tail + 0x10000;
			break;
		}
		/* Never a valid head: the kernel must see a full ring. */
		if (tail - v <= h->r->entries)
			v = tail + 1;
		__atomic_store_n(h->r->head, v, __ATOMIC_RELEASE);
		h->writes++;
	}
	return NULL;
}

/*
 * A hostile consumer writes anything to head (beyond the tail, far ahead,
 * far behind, wrapping values) while records arrive. The kernel writes a
 * record only where head says there is room, so nothing it wrote is lost
 * and no system call spins: once head is sane again, flushing brings every
 * expiry exactly once.
 */
TEST(hostile_head)
{
	enum { SLOTS = 512, ENTRIES = 64 };
	struct twheel_sqe *q = calloc(SLOTS, sizeof(*q));
	uint8_t got[SLOTS] = { 0 };
	struct twheel_cqe c[ENTRIES];
	struct hostile h = { .seed = 7 };
	unsigned int i, n, total = 0, bad = 0;
	uint64_t t0, end, slowest = 0, t;
	struct tw_uring r;
	pthread_t th;
	int fd;

	ASSERT_NE(NULL, q);
	fd = tw_open(O_NONBLOCK);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_ring_setup(fd, SLOTS, ENTRIES, &r));
	h.r = &r;
	t0 = tw_now();
	for (i = 0; i < SLOTS; i++)
		q[i] = tw_sqe(TWHEEL_OP_ARM, i, TWHEEL_ARM_ABS,
			      t0 + 20 * MS + (i % 100) * MS, 0, i);
	ASSERT_EQ(SLOTS, tw_submit(fd, q, SLOTS, NULL));
	ASSERT_EQ(0, pthread_create(&th, NULL, hostile_fn, &h));
	/* Flush and poll under fire: each call returns promptly. */
	end = t0 + 300 * MS;
	while (tw_now() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		t = tw_now();
		tw_flush(fd, NULL, NULL);
		poll(&p, 1, 0);
		t = tw_now() - t;
		slowest = t > slowest ? t : slowest;
	}
	atomic_store(&h.stop, 1);
	pthread_join(th, NULL);
	TH_LOG("%llu hostile head writes; slowest flush+poll %.1f ms",
	       (unsigned long long)h.writes, slowest / 1e6);
	EXPECT_GT(100 * MS, slowest);
	/* Sane again (where it was): every record, exactly once. */
	__atomic_store_n(r.head, 0, __ATOMIC_RELEASE);
	end = tw_now() + 5 * SEC;
	while (tw_now() < end) {
		n = tw_ring_reap(&r, c, ENTRIES);
		for (i = 0; i < n; i++) {
			if (c[i].slot >= SLOTS || c[i].cookie != c[i].slot ||
			    c[i].gen != 1) {
				bad++;
				continue;
			}
			got[c[i].slot]++;
		}
		total += n;
		if (!n && !tw_ring_overflowed(&r))
			break;
		tw_flush(fd, NULL, NULL);
	}
	for (i = 0; i < SLOTS; i++) {
		n = got[i];
		EXPECT_EQ(1U, n) TH_LOG("slot %u: %u records", i, n);
	}
	EXPECT_EQ((unsigned int)SLOTS, total);
	EXPECT_EQ(0U, bad);
	EXPECT_FALSE(tw_ring_overflowed(&r));
	tw_ring_unmap(&r);
	close(fd);
	free(q);
}

/*
 * Generations do not wrap: a slot whose generation reached 2^32 - 1 is
 * retired (EOVERFLOW for ARM and MODIFY, and nothing changes), CANCEL
 * still works. The test-only parameter test_ring_gen_base (test builds)
 * starts new slots near the end instead of 2^32 arms.
 */
TEST(gen_retires_slot)
{
	struct tw_uring r;
	uint32_t gen = 0;
	long old;
	int fd;

	fd = tw_open(0);
	if (fd < 0)
		SKIP(return, "%s: %s", TW_DEV, strerror(errno));
	old = tw_param_get("test_ring_gen_base");
	if (old < 0 || tw_param_set("test_ring_gen_base", 0xfffffffdL))
		SKIP(close(fd); return, "no test_ring_gen_base (not a debug build)");
	ASSERT_EQ(0, tw_ring_setup(fd, 4, 4, &r));
	EXPECT_EQ(0, tw_submit1(fd, TWHEEL_OP_ARM, 1, 0, 100 * SEC, 0, 1,
				&gen));
	tw_param_set("test_ring_gen_base", old);
	EXPECT_EQ(0xfffffffeU, gen);
	EXPECT_EQ(1, tw_submit1(fd, TWHEEL_OP_MODIFY, 1, 0, 20 * MS, 0, 0,
				&gen));
	EXPECT_EQ(0xffffffffU, gen);
	/* Retired: refused, and the arming in place stays as it is. */
	EXPECT_EQ(-EOVERFLOW, tw_submit1(fd, TWHEEL_OP_ARM, 1, 0, 100 * SEC,
					 0, 2, &gen));
	EXPECT_EQ(0U, gen);
	EXPECT_EQ(-EOVERFLOW, tw_submit1(fd, TWHEEL_OP_MODIFY, 1, 0,
					 100 * SEC, 0, 0, &gen));
	ASSERT_EQ(1U, wait_records(fd, &r, 1, 5000));
	EXPECT_EQ(1U, r.cqes[0].slot);
	EXPECT_EQ(0xffffffffU, r.cqes[0].gen);
	EXPECT_EQ(1U, r.cqes[0].cookie);
	EXPECT_EQ(0, tw_submit1(fd, TWHEEL_OP_CANCEL, 1, 0, 0, 0, 0, NULL));
	EXPECT_EQ(-EOVERFLOW, tw_submit1(fd, TWHEEL_OP_ARM, 1, 0, 100 * SEC,
					 0, 2, &gen));
	/* The other slots of the chunk are not affected by slot 1's end. */
	EXPECT_EQ(0, tw_submit1(fd, TWHEEL_OP_ARM, 2, 0, 100 * SEC, 0, 2,
				&gen));
	EXPECT_EQ(0xfffffffeU, gen);
	EXPECT_EQ(1, tw_submit1(fd, TWHEEL_OP_CANCEL, 2, 0, 0, 0, 0, NULL));
	tw_ring_unmap(&r);
	close(fd);
}

TEST_HARNESS_MAIN
