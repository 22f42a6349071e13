// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-ubench peer twheel_ring: /dev/twheel's ring ABI through libtwheel
 * (tools/lib/twheel, built into the benchmark), as twheel_ring(3) documents
 * it for many timers:
 *
 *   setup   one file, one twheel_ring_setup() per run: a table of N slots
 *           and a completion ring of RG_ENTRIES(N) records (N rounded up to
 *           a power of 2, at least RG_MIN_ENTRIES), mapped once; an array of
 *           N struct twheel_sqe (user memory)
 *   arm     one struct twheel_sqe per timer (TWHEEL_OP_ARM, slot i, cookie
 *           phase << 32 | i; relative, or TWHEEL_ARM_ABS on
 *           CLOCK_MONOTONIC), then twheel_submit() of all N: one
 *           TWHEEL_IOC_SUBMIT per TWHEEL_BATCH_MAX entries
 *   cancel  one TWHEEL_OP_CANCEL sqe per timer in the run's order, then one
 *           twheel_submit() of all N
 *   deliver the records are read from the mapped ring with no system call
 *           while any are ready (twheel_ring_for_each(), one
 *           twheel_ring_advance() per batch); poll() only when the ring is
 *           empty, and twheel_ring_flush() if TWHEEL_RING_OVERFLOW is raised
 *
 * Its burst (twheel-ubench burst N twheel_ring) uses the same ring and
 * consumer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <twheel.h>

#include "ubench.h"

#define RG_MIN_ENTRIES	64U

struct rg_state {
	struct twheel		*tw;
	struct twheel_ring	ring;
	struct twheel_sqe	*sqe;
	char			desc[96];
};

static unsigned int rg_entries(unsigned long n)
{
	unsigned int e = RG_MIN_ENTRIES;

	while (e < n && e < TWHEEL_RING_MAX_ENTRIES)
		e *= 2;
	return e;
}

static void rg_fail(int ret, const char *what)
{
	errno = ret < 0 ? -ret : EIO;
	ub_die("%s", what);
}

static struct rg_state *rg_open(unsigned long n)
{
	struct rg_state *s = ub_alloc(1, sizeof(*s));
	int ret;

	s->sqe = ub_alloc(n, sizeof(*s->sqe));
	ret = twheel_open(NULL, 0, &s->tw);
	if (ret)
		rg_fail(ret, UB_DEV);
	ret = twheel_ring_setup(s->tw, n, rg_entries(n), &s->ring);
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

/* Submit @n filled sqes; every one must succeed. */
static void rg_submit(struct rg_state *s, unsigned long n, const char *what)
{
	unsigned int done = 0;
	int ret = twheel_submit(s->tw, s->sqe, n, &done);

	if (ret != (int)n)
		rg_fail(ret < 0 ? ret : -EIO, what);
}

/* Fill sqe i: arm slot i for @dl with cookie @tag << 32 | i. */
static void rg_fill_arm(struct rg_state *s, unsigned long n, const uint64_t *dl,
			int abs, uint32_t tag)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		struct twheel_sqe *q = &s->sqe[i];

		twheel_sqe_arm(q, i, dl[i], 0, (uint64_t)tag << 32 | i);
		if (abs) {
			q->flags = TWHEEL_ARM_ABS;
			q->clockid = CLOCK_MONOTONIC;
		}
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
	r->priv = rg_open(r->n);
}

static void rg_arm(struct ub_run *r)
{
	struct rg_state *s = r->priv;

	rg_fill_arm(s, r->n, r->dl, r->abs, r->gen);
	rg_submit(s, r->n, "TWHEEL_IOC_SUBMIT arm");
}

static void rg_cancel(struct ub_run *r)
{
	struct rg_state *s = r->priv;
	unsigned long i;

	for (i = 0; i < r->n; i++)
		twheel_sqe_cancel(&s->sqe[i], r->order[i]);
	rg_submit(s, r->n, "TWHEEL_IOC_SUBMIT cancel");
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
 * The twheel_ring burst (ubench_burst.c): one table of b->n slots, slot i
 * armed for b->deadline with cookie i, in one twheel_submit(), consumed by
 * the twheel_ring peer's passes.
 */
void ub_burst_ring(struct ub_burst *b)
{
	struct rg_state *s;
	unsigned long i, before;
	uint64_t *dl, t0, now;
	long k;

	dl = ub_alloc(b->n, sizeof(*dl));
	s = rg_open(b->n);
	t0 = ub_now();
	b->deadline = t0 + UB_BURST_LEAD;
	for (i = 0; i < b->n; i++)
		dl[i] = b->deadline;
	rg_fill_arm(s, b->n, dl, 1, 0);
	rg_submit(s, b->n, "TWHEEL_IOC_SUBMIT burst");
	now = ub_now();
	b->arm_ns = now - t0;
	b->late_arm = now > b->deadline;
	while (b->distinct < b->n) {
		before = b->distinct + b->dup + b->bad;
		k = rg_pass(s, rg_visit_burst, b);
		now = ub_now();
		if (k > 0) {
			ub_burst_pass(b, before, now);
		} else if (k < 0) {
			if (now > b->deadline + UB_BURST_WAIT)
				break;
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
