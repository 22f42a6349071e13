// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-ubench peer twheel_ring: /dev/twheel's ring ABI through libtwheel
 * (tools/lib/twheel, built into the benchmark), as twheel_ring(3) documents
 * it for many timers:
 *
 *   setup   one file, one twheel_ring_setup() per run: a table of N slots
 *           and a completion ring of N records rounded up to a power of 2,
 *           at least RG_MIN_ENTRIES, at most RG_MAX_ENTRIES (records that
 *           do not fit wait in the kernel's backlog, in their slots, until
 *           twheel_ring_flush(): the timed delivery pays for that), mapped
 *           once; a batch of RG_BATCH struct twheel_sqe (user memory, each
 *           page written once here so that no timed phase faults it in),
 *           reused by every phase, as the io_uring peer reuses its SQ ring
 *   arm     per RG_BATCH timers: one struct twheel_sqe per timer
 *           (TWHEEL_OP_ARM, slot i, cookie phase << 32 | i; relative, or
 *           TWHEEL_ARM_ABS on CLOCK_MONOTONIC), then one twheel_submit()
 *           (one TWHEEL_IOC_SUBMIT)
 *   cancel  the same with one TWHEEL_OP_CANCEL sqe per timer in the run's
 *           order
 *   deliver the records are read from the mapped ring with no system call
 *           while any are ready (twheel_ring_for_each(), one
 *           twheel_ring_advance() per batch); poll() only when the ring is
 *           empty, and twheel_ring_flush() if TWHEEL_RING_OVERFLOW is raised
 *
 * Its burst (twheel-ubench burst N twheel_ring) uses the same consumer and a
 * ring with room for every record of the burst (up to the kernel's
 * TWHEEL_RING_MAX_ENTRIES).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <twheel.h>

#include "ubench.h"

#define RG_MIN_ENTRIES	64U
#define RG_MAX_ENTRIES	4096U
/* sqes per twheel_submit(): the io_uring peer's SQ ring (UR_BATCH) */
#define RG_BATCH	4096U

struct rg_state {
	struct twheel		*tw;
	struct twheel_ring	ring;
	struct twheel_sqe	*sqe;
	char			desc[96];
};

/* @n rounded up to a power of 2, at least RG_MIN_ENTRIES, at most @max. */
static unsigned int rg_entries(unsigned long n, unsigned int max)
{
	unsigned int e = RG_MIN_ENTRIES;

	while (e < n && e < max)
		e *= 2;
	return e;
}

static void rg_fail(int ret, const char *what)
{
	errno = ret < 0 ? -ret : EIO;
	ub_die("%s", what);
}

/* A table of @n slots and a ring of @entries records. */
static struct rg_state *rg_open(unsigned long n, unsigned int entries)
{
	struct rg_state *s = ub_alloc(1, sizeof(*s));
	int ret;

	s->sqe = ub_alloc_warm(RG_BATCH, sizeof(*s->sqe));
	ret = twheel_open(NULL, 0, &s->tw);
	if (ret)
		rg_fail(ret, UB_DEV);
	ret = twheel_ring_setup(s->tw, n, entries, &s->ring);
	if (ret)
		rg_fail(ret, "twheel_ring_setup");
	snprintf(s->desc, sizeof(s->desc), "ring_entries=%u ring_map_bytes=%zu",
		 s->ring.ring_entries, s->ring.map_size);
	return s;
}

static void rg_close(struct rg_state *s)
{
	twheel_ring_unmap(&s->ring);
	twheel_close(s->tw);
	free(s->sqe);
	free(s);
}

/* Submit the first @n sqes of the batch; every one must succeed. */
static void rg_submit(struct rg_state *s, unsigned long n, const char *what)
{
	unsigned int done = 0;
	int ret = twheel_submit(s->tw, s->sqe, n, &done);

	if (ret != (int)n)
		rg_fail(ret < 0 ? ret : -EIO, what);
}

/*
 * Arm slots 0 .. @n - 1, slot i for @dl[i] with cookie @tag << 32 | i, one
 * batch of RG_BATCH sqes per twheel_submit().
 */
static void rg_arm_all(struct rg_state *s, unsigned long n, const uint64_t *dl,
		       int abs, uint32_t tag)
{
	unsigned long i, k;

	for (i = 0; i < n; i += k) {
		for (k = 0; k < RG_BATCH && i + k < n; k++) {
			struct twheel_sqe *q = &s->sqe[k];

			twheel_sqe_arm(q, i + k, dl[i + k], 0,
				       (uint64_t)tag << 32 | (i + k));
			if (abs) {
				q->flags = TWHEEL_ARM_ABS;
				q->clockid = CLOCK_MONOTONIC;
			}
		}
		rg_submit(s, k, "TWHEEL_IOC_SUBMIT arm");
	}
}

/*
 * One pass over the records the ring holds, no system call: @visit is called
 * for each, then they are handed back with one twheel_ring_advance().
 * Returns the number of records seen, 0 after moving a backlog into the
 * ring (TWHEEL_RING_OVERFLOW), or -1 when the ring is empty.
 */
static long rg_pass(struct rg_state *s,
		    void (*visit)(const struct twheel_cqe *c, void *arg),
		    void *arg)
{
	struct twheel_ring *ring = &s->ring;
	struct twheel_cqe *c;
	unsigned int head, k = 0;
	int ret;

	twheel_ring_for_each(ring, head, c) {
		visit(c, arg);
		k++;
	}
	if (k) {
		twheel_ring_advance(ring, k);
		return k;
	}
	if (!twheel_ring_overflowed(ring))
		return -1;
	ret = twheel_ring_flush(s->tw, NULL);
	if (ret < 0)
		rg_fail(ret, "twheel_ring_flush");
	return 0;
}

/* The ring is empty: sleep in poll() until a record is ready. */
static void rg_sleep(struct rg_state *s, int timeout_ms)
{
	int ret = twheel_wait(s->tw, timeout_ms);

	if (ret < 0 && ret != -EINTR)
		rg_fail(ret, "poll " UB_DEV);
}

static void rg_setup(struct ub_run *r)
{
	r->priv = rg_open(r->n, rg_entries(r->n, RG_MAX_ENTRIES));
}

static void rg_arm(struct ub_run *r)
{
	struct rg_state *s = r->priv;

	rg_arm_all(s, r->n, r->dl, r->abs, r->gen);
}

static void rg_cancel(struct ub_run *r)
{
	struct rg_state *s = r->priv;
	unsigned long i, k;

	for (i = 0; i < r->n; i += k) {
		for (k = 0; k < RG_BATCH && i + k < r->n; k++)
			twheel_sqe_cancel(&s->sqe[k], r->order[i + k]);
		rg_submit(s, k, "TWHEEL_IOC_SUBMIT cancel");
	}
}

/* The records of this phase, counted per pass. */
struct rg_count {
	uint32_t	gen;
	unsigned long	k;
};

static void rg_visit_run(const struct twheel_cqe *c, void *arg)
{
	struct rg_count *cnt = arg;

	cnt->k += c->cookie >> 32 == cnt->gen;
}

static void rg_consume(struct ub_run *r)
{
	struct rg_count cnt = { .gen = r->gen };

	while (r->got < r->n) {
		cnt.k = 0;
		if (rg_pass(r->priv, rg_visit_run, &cnt) < 0)
			rg_sleep(r->priv, -1);
		else
			ub_got(r, cnt.k);
	}
}

static void rg_teardown(struct ub_run *r)
{
	rg_close(r->priv);
}

static const char *rg_describe(struct ub_run *r)
{
	return ((struct rg_state *)r->priv)->desc;
}

const struct ub_peer ub_peer_twheel_ring = {
	.name		= "twheel_ring",
	.setup		= rg_setup,
	.arm		= rg_arm,
	.cancel		= rg_cancel,
	.consume	= rg_consume,
	.teardown	= rg_teardown,
	.describe	= rg_describe,
};

static void rg_visit_burst(const struct twheel_cqe *c, void *arg)
{
	ub_burst_saw(arg, c->slot, c->cookie, c->deadline);
}

/*
 * The twheel_ring burst (ubench_burst.c): one table of b->n slots and a ring
 * with room for all their records (all of them are in flight at once; up to
 * TWHEEL_RING_MAX_ENTRIES), slot
 * i armed for b->deadline with cookie i as the peer arms, consumed by the
 * twheel_ring peer's passes.
 */
void ub_burst_ring(struct ub_burst *b)
{
	struct rg_state *s;
	unsigned long i, before;
	uint64_t *dl, t0, now;
	long k;

	dl = ub_alloc(b->n, sizeof(*dl));
	/* every record of the burst is in flight at once: room for all */
	s = rg_open(b->n, rg_entries(b->n, TWHEEL_RING_MAX_ENTRIES));
	t0 = ub_now();
	b->deadline = t0 + UB_BURST_LEAD;
	for (i = 0; i < b->n; i++)
		dl[i] = b->deadline;
	rg_arm_all(s, b->n, dl, 1, 0);
	now = ub_now();
	b->arm_ns = now - t0;
	b->late_arm = now > b->deadline;
	while (b->distinct < b->n) {
		before = b->distinct + b->dup + b->bad;
		k = rg_pass(s, rg_visit_burst, b);
		now = ub_now();
		if (k > 0) {
			ub_burst_pass(b, before, now);
		} else if (now > b->deadline + UB_BURST_WAIT) {
			break;
		} else if (k < 0) {
			b->sleeps++;
			/* until readiness: a timeout would add its own delay */
			rg_sleep(s, (b->deadline + UB_BURST_WAIT - now) /
				 1000000 + 1);
		}
	}
	usleep(50000);
	while (rg_pass(s, rg_visit_burst, b) >= 0)
		;
	memcpy(b->desc, s->desc, sizeof(b->desc));
	rg_close(s);
	free(dl);
}
