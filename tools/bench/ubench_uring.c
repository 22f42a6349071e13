// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-ubench peer io_uring: IORING_OP_TIMEOUT through liburing, one ring
 * per run, as liburing documents it for many timers:
 *
 *   ring   UR_BATCH SQ entries; CQ sized for the pending timers
 *          (IORING_SETUP_CQSIZE, N rounded up, at least 2 x UR_BATCH, at
 *          most the kernel's 65536: above, completions take its overflow
 *          list); IORING_SETUP_SINGLE_ISSUER |
 *          IORING_SETUP_DEFER_TASKRUN (6.1 has both), else
 *          IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG, else none:
 *          the flags the kernel took are printed (uring_flags=)
 *   arm    one SQE per timer (io_uring_prep_timeout, count 0: a pure timer,
 *          relative or IORING_TIMEOUT_ABS; its __kernel_timespec is one of
 *          UR_BATCH, one per SQ entry, rewritten per arm, whose pages were
 *          written once at set-up), io_uring_submit() once per UR_BATCH
 *          SQEs
 *   cancel one IORING_OP_TIMEOUT_REMOVE SQE per timer, submitted
 *          UR_BATCH at a time with io_uring_submit_and_wait(); the remove's
 *          CQE and the timeout's -ECANCELED CQE are reaped from the CQ ring
 *          with io_uring_peek_batch_cqe() + io_uring_cq_advance()
 *   deliver io_uring_wait_cqe() when the CQ ring is empty, else
 *          io_uring_peek_batch_cqe() of up to UB_EVENTS and one
 *          io_uring_cq_advance() per batch
 */
#define _GNU_SOURCE
#include <errno.h>
#include <liburing.h>
#include <string.h>

#include "ubench.h"

#define UR_BATCH	4096U
#define UR_CQ_MAX	65536U
#define UR_REMOVE	(1ULL << 63)	/* user_data of a TIMEOUT_REMOVE */

struct ur_state {
	struct io_uring			ring;
	/*
	 * Read by the kernel at submit: one per SQ entry, reused (SQE i's is
	 * ts[i % UR_BATCH], free again once the full SQ ring was submitted).
	 */
	struct __kernel_timespec	*ts;
	unsigned int			flags;
	char				desc[64];
};

static const unsigned int ur_flag_sets[] = {
	IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
	IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG,
	0,
};

static void ur_setup(struct ub_run *r)
{
	struct ur_state *s = ub_alloc(1, sizeof(*s));
	unsigned int cq = 2 * UR_BATCH, i;
	int ret = -EINVAL;

	while (cq < r->n && cq < UR_CQ_MAX)
		cq *= 2;
	s->ts = ub_alloc_warm(UR_BATCH, sizeof(*s->ts));
	for (i = 0; i < ARRAY_SIZE(ur_flag_sets); i++) {
		struct io_uring_params p;

		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_CQSIZE | ur_flag_sets[i];
		p.cq_entries = cq;
		ret = io_uring_queue_init_params(UR_BATCH, &s->ring, &p);
		if (!ret) {
			s->flags = p.flags;
			snprintf(s->desc, sizeof(s->desc),
				 "uring_flags=0x%x uring_sq=%u uring_cq=%u",
				 p.flags, p.sq_entries, p.cq_entries);
			break;
		}
	}
	if (ret) {
		errno = -ret;
		ub_die("io_uring_queue_init_params");
	}
	/* ts[] has one entry per SQ entry (ur_arm()) */
	if (s->ring.sq.ring_entries > UR_BATCH)
		ub_die("io_uring SQ of %u entries", s->ring.sq.ring_entries);
	r->priv = s;
}

/* Submit what the SQ ring holds, waiting for @wait CQEs; all or die. */
static void ur_submit(struct ur_state *s, unsigned int wait)
{
	unsigned int queued = io_uring_sq_ready(&s->ring);
	int ret = wait ? io_uring_submit_and_wait(&s->ring, wait) :
			 io_uring_submit(&s->ring);

	if (ret != (int)queued) {
		errno = ret < 0 ? -ret : EAGAIN;
		ub_die("io_uring submit: %d of %u", ret, queued);
	}
}

static struct io_uring_sqe *ur_sqe(struct ur_state *s)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ring);

	if (!sqe) {
		ur_submit(s, 0);
		sqe = io_uring_get_sqe(&s->ring);
		if (!sqe)
			ub_die("io_uring_get_sqe");
	}
	return sqe;
}

static void ur_arm(struct ub_run *r)
{
	struct ur_state *s = r->priv;
	unsigned int flags = r->abs ? IORING_TIMEOUT_ABS : 0;
	unsigned long i;

	for (i = 0; i < r->n; i++) {
		struct __kernel_timespec *ts = &s->ts[i % UR_BATCH];
		struct io_uring_sqe *sqe = ur_sqe(s);

		ts->tv_sec = r->dl[i] / 1000000000ULL;
		ts->tv_nsec = r->dl[i] % 1000000000ULL;
		io_uring_prep_timeout(sqe, ts, 0, flags);
		io_uring_sqe_set_data64(sqe, (uint64_t)r->gen << 32 | i);
	}
	ur_submit(s, 0);
}

/*
 * Reap what the CQ ring holds, waiting when it is empty until @want_rm
 * removes and @want_tm timeouts of this phase completed.
 */
static void ur_reap(struct ub_run *r, unsigned long *rm, unsigned long want_rm,
		    unsigned long *tm, unsigned long want_tm)
{
	static struct io_uring_cqe *cqe[UB_EVENTS];
	struct ur_state *s = r->priv;
	unsigned int i, k;

	while (*rm < want_rm || *tm < want_tm) {
		k = io_uring_peek_batch_cqe(&s->ring, cqe, UB_EVENTS);
		if (!k) {
			int ret = io_uring_wait_cqe(&s->ring, cqe);

			if (ret && ret != -EINTR) {
				errno = -ret;
				ub_die("io_uring_wait_cqe");
			}
			continue;
		}
		for (i = 0; i < k; i++) {
			if (cqe[i]->user_data & UR_REMOVE)
				(*rm)++;
			else if (cqe[i]->user_data >> 32 == r->gen)
				(*tm)++;
		}
		io_uring_cq_advance(&s->ring, k);
	}
}

static void ur_cancel(struct ub_run *r)
{
	struct ur_state *s = r->priv;
	unsigned long i, j, rm = 0, tm = 0;

	for (i = 0; i < r->n; i += UR_BATCH) {
		unsigned long end = i + UR_BATCH < r->n ? i + UR_BATCH : r->n;

		for (j = i; j < end; j++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ring);

			if (!sqe)
				ub_die("io_uring_get_sqe");
			io_uring_prep_timeout_remove(sqe,
				(uint64_t)r->gen << 32 | r->order[j], 0);
			io_uring_sqe_set_data64(sqe, UR_REMOVE | r->order[j]);
		}
		ur_submit(s, end - i);
		ur_reap(r, &rm, end, &tm, 0);
	}
	/* the -ECANCELED (or earlier -ETIME) completion of every timeout */
	ur_reap(r, &rm, r->n, &tm, r->n);
}

static void ur_consume(struct ub_run *r)
{
	unsigned long rm = 0, tm;

	while (r->got < r->n) {
		tm = r->got;
		ur_reap(r, &rm, 0, &tm, r->got + 1);
		ub_got(r, tm - r->got);
	}
}

static void ur_teardown(struct ub_run *r)
{
	struct ur_state *s = r->priv;

	io_uring_queue_exit(&s->ring);
	free(s->ts);
	free(s);
}

static const char *ur_describe(struct ub_run *r)
{
	return ((struct ur_state *)r->priv)->desc;
}

const struct ub_peer ub_peer_io_uring = {
	.name		= "io_uring",
	.setup		= ur_setup,
	.arm		= ur_arm,
	.cancel		= ur_cancel,
	.consume	= ur_consume,
	.teardown	= ur_teardown,
	.describe	= ur_describe,
};
