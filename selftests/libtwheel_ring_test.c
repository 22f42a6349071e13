// SPDX-License-Identifier: GPL-2.0
/*
 * libtwheel_ring_test - libtwheel's ring helpers (twheel_ring_setup(),
 * twheel_submit(), twheel_ring_for_each(), twheel_ring_advance(),
 * twheel_ring_flush()) against the loaded module. On a module without
 * TWHEEL_FEAT_RING it checks that the library says so (-EOPNOTSUPP) and
 * skips the rest; built against a uapi header without the ring ABI, only
 * that check exists.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <twheel.h>

#include "kselftest_harness.h"

#define MS		1000000ULL

FIXTURE(ring) {
	struct twheel *tw;
	struct twheel_ring ring;
	int has_ring;
};

FIXTURE_SETUP(ring)
{
	int ret = twheel_open(NULL, 0, &self->tw);

	if (ret == -ENOENT)
		SKIP(return, TWHEEL_DEVICE " missing (module not loaded)");
	ASSERT_EQ(0, ret);
	memset(&self->ring, 0, sizeof(self->ring));
#ifdef TWHEEL_FEAT_RING
	self->has_ring = twheel_has_feature(self->tw, TWHEEL_FEAT_RING);
#endif
}

FIXTURE_TEARDOWN(ring)
{
	twheel_ring_unmap(&self->ring);
	twheel_close(self->tw);
}

/* An application built against a newer library on an older module. */
TEST_F(ring, missing_feature_is_reported)
{
	unsigned int done = 1;

	if (self->has_ring)
		SKIP(return, "the module has the ring ABI");
	EXPECT_EQ(-EOPNOTSUPP, twheel_ring_setup(self->tw, 16, 16, &self->ring));
	EXPECT_EQ(NULL, self->ring.map);
	EXPECT_GE(2U, twheel_abi_version(self->tw));
	EXPECT_NE(0, twheel_submit_sized(self->tw, NULL, 0, 48, &done));
	EXPECT_EQ(0, done);
}

#ifdef TWHEEL_IOC_RING_SETUP

/* Consume every ready record; returns how many, counts cookies seen. */
static unsigned int drain(struct twheel_ring *ring, unsigned char *seen,
			  unsigned int nseen)
{
	struct twheel_cqe *cqe;
	unsigned int head, n = 0;

	twheel_ring_for_each(ring, head, cqe) {
		if (cqe->cookie < nseen)
			seen[cqe->cookie]++;
		n++;
	}
	twheel_ring_advance(ring, n);
	return n;
}

static void wait_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

TEST_F(ring, setup_submit_consume)
{
	struct twheel_sqe sqe[10];
	unsigned char seen[10] = { 0 };
	unsigned int i, done = 0, got = 0, tries;

	if (!self->has_ring)
		SKIP(return, "no TWHEEL_FEAT_RING in this module");
	EXPECT_EQ(-ENODEV, twheel_submit(self->tw, sqe, 1, &done));
	ASSERT_EQ(0, twheel_ring_setup(self->tw, 64, 16, &self->ring));
	EXPECT_EQ(16, self->ring.ring_entries);
	EXPECT_EQ(15, self->ring.ring_mask);
	EXPECT_EQ(64, self->ring.slots);
	EXPECT_EQ(0, twheel_ring_ready(&self->ring));
	EXPECT_EQ(-EBUSY, twheel_ring_setup(self->tw, 64, 16, &self->ring));

	for (i = 0; i < 10; i++)
		twheel_sqe_arm(&sqe[i], i, (i + 1) * MS, 0, i);
	EXPECT_EQ(10, twheel_submit(self->tw, sqe, 10, &done));
	EXPECT_EQ(10, done);
	for (i = 0; i < 10; i++) {
		EXPECT_EQ(0, sqe[i].result);
		EXPECT_EQ(1, sqe[i].gen);
	}
	for (tries = 0; got < 10 && tries < 500; tries++) {
		got += drain(&self->ring, seen, 10);
		if (got < 10)
			wait_ms(10);
	}
	EXPECT_EQ(10, got);
	for (i = 0; i < 10; i++)
		EXPECT_EQ(1, seen[i]);
	EXPECT_EQ(0, twheel_ring_ready(&self->ring));

	/* Cancel a pending arming; a bad slot gets its own result. */
	twheel_sqe_arm(&sqe[0], 3, 3600000 * MS, 0, 3);
	twheel_sqe_cancel(&sqe[1], 3);
	twheel_sqe_modify(&sqe[2], 1000, MS, 0);
	EXPECT_EQ(2, twheel_submit(self->tw, sqe, 3, &done));
	EXPECT_EQ(3, done);
	EXPECT_EQ(1, sqe[1].result);
	EXPECT_EQ(-EBADSLT, sqe[2].result);
}

/* A full ring loses nothing: the backlog is flushed after consuming. */
TEST_F(ring, overflow_and_flush)
{
	const unsigned int n = 40;
	struct twheel_sqe sqe[40];
	unsigned char seen[40] = { 0 };
	unsigned int i, done, got = 0, backlog = 0, tries;
	int flushed = 0;

	if (!self->has_ring)
		SKIP(return, "no TWHEEL_FEAT_RING in this module");
	ASSERT_EQ(0, twheel_ring_setup(self->tw, n, 16, &self->ring));
	for (i = 0; i < n; i++)
		twheel_sqe_arm(&sqe[i], i, MS, 0, i);
	ASSERT_EQ((int)n, twheel_submit(self->tw, sqe, n, &done));
	for (tries = 0; twheel_ring_ready(&self->ring) < 16 && tries < 500; tries++)
		wait_ms(10);
	wait_ms(50);
	EXPECT_EQ(16, twheel_ring_ready(&self->ring));
	EXPECT_TRUE(twheel_ring_overflowed(&self->ring));
	EXPECT_LT(0, *self->ring.koverflow);
	for (tries = 0; got < n && tries < 500; tries++) {
		got += drain(&self->ring, seen, n);
		if (twheel_ring_overflowed(&self->ring))
			flushed = twheel_ring_flush(self->tw, &backlog);
		else if (got < n)
			wait_ms(10);
		ASSERT_LE(0, flushed);
	}
	EXPECT_EQ(n, got);
	for (i = 0; i < n; i++)
		EXPECT_EQ(1, seen[i]);
	EXPECT_EQ(0, backlog);
	EXPECT_FALSE(twheel_ring_overflowed(&self->ring));
}

TEST_F(ring, periodic_and_sizes)
{
	struct twheel_sqe sqe;
	struct twheel_cqe *cqe;
	unsigned int head, done, n, periodic = 0, tries;

	if (!self->has_ring)
		SKIP(return, "no TWHEEL_FEAT_RING in this module");
	ASSERT_EQ(0, twheel_ring_setup(self->tw, 4, 8, &self->ring));
	EXPECT_EQ(-EINVAL, twheel_submit_sized(self->tw, &sqe, 1,
					       sizeof(sqe) + 8, &done));
	twheel_sqe_arm(&sqe, 2, 5 * MS, 5 * MS, 77);
	ASSERT_EQ(1, twheel_submit(self->tw, &sqe, 1, &done));
	for (tries = 0; periodic < 3 && tries < 500; tries++) {
		n = 0;
		twheel_ring_for_each(&self->ring, head, cqe) {
			EXPECT_EQ(77, cqe->cookie);
			EXPECT_EQ(2, cqe->slot);
			EXPECT_EQ(sqe.gen, cqe->gen);
			EXPECT_EQ(TWHEEL_CQE_PERIODIC,
				  cqe->flags & TWHEEL_CQE_PERIODIC);
			n++;
		}
		twheel_ring_advance(&self->ring, n);
		periodic += n;
		wait_ms(10);
	}
	EXPECT_LE(3, periodic);
	twheel_sqe_cancel(&sqe, 2);
	EXPECT_EQ(1, twheel_submit(self->tw, &sqe, 1, &done));
	EXPECT_EQ(1, sqe.result);
}

#endif /* TWHEEL_IOC_RING_SETUP */

TEST_HARNESS_MAIN
