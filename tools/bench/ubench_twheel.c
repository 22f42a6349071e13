// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-ubench peers twheel_single and twheel_batch: /dev/twheel with one
 * ioctl per timer, or TWHEEL_IOC_ARM_BATCH / TWHEEL_IOC_CANCEL_BATCH with up
 * to TWHEEL_BATCH_MAX entries per ioctl; delivery by read() of up to
 * UB_EVENTS events; and the twheel_batch burst.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/twheel.h>

#include "ubench.h"

struct tw_state {
	int			fd;
	int			batch;
	uint64_t		*id;
	struct twheel_arm	*arm;
	struct twheel_cancel	*cancel;
};

static void tw_setup(struct ub_run *r, int batch)
{
	struct tw_state *s = ub_alloc(1, sizeof(*s));

	s->batch = batch;
	s->id = ub_alloc(r->n, sizeof(*s->id));
	s->arm = ub_alloc(r->n, sizeof(*s->arm));
	s->cancel = ub_alloc(r->n, sizeof(*s->cancel));
	s->fd = open(UB_DEV, O_RDWR | O_CLOEXEC);
	if (s->fd < 0)
		ub_die(UB_DEV);
	r->priv = s;
}

static void tw_setup_single(struct ub_run *r)
{
	tw_setup(r, 0);
}

static void tw_setup_batch(struct ub_run *r)
{
	tw_setup(r, 1);
}

/* Submit @count entries of @entry_size at @entries, in TWHEEL_BATCH_MAX chunks. */
static void tw_batch(int fd, unsigned long req, void *entries,
		     size_t entry_size, unsigned long count, int want_all)
{
	unsigned long i, k;

	for (i = 0; i < count; i += k) {
		struct twheel_batch b = {
			.size = sizeof(b),
			.entry_size = entry_size,
			.entries = (uintptr_t)((char *)entries + i * entry_size),
		};
		int ret;

		k = count - i < TWHEEL_BATCH_MAX ? count - i : TWHEEL_BATCH_MAX;
		b.count = k;
		ret = ioctl(fd, req, &b);
		if (ret < 0 || (want_all && ret != (int)k))
			ub_die("twheel batch ioctl at %lu", i);
	}
}

static void tw_arm(struct ub_run *r)
{
	struct tw_state *s = r->priv;
	unsigned long i;

	for (i = 0; i < r->n; i++) {
		struct twheel_arm *a = &s->arm[i];

		memset(a, 0, sizeof(*a));
		a->size = sizeof(*a);
		a->flags = r->abs ? TWHEEL_ARM_ABS : 0;
		a->clockid = CLOCK_MONOTONIC;
		a->expires = r->dl[i];
		a->cookie = (uint64_t)r->gen << 32 | i;
	}
	if (s->batch) {
		tw_batch(s->fd, TWHEEL_IOC_ARM_BATCH, s->arm, sizeof(*s->arm),
			 r->n, 1);
	} else {
		for (i = 0; i < r->n; i++)
			if (ioctl(s->fd, TWHEEL_IOC_ARM, &s->arm[i]))
				ub_die("TWHEEL_IOC_ARM %lu", i);
	}
	for (i = 0; i < r->n; i++)
		s->id[i] = s->arm[i].id;
}

static void tw_cancel(struct ub_run *r)
{
	struct tw_state *s = r->priv;
	unsigned long i;

	for (i = 0; i < r->n; i++) {
		memset(&s->cancel[i], 0, sizeof(s->cancel[i]));
		s->cancel[i].size = sizeof(s->cancel[i]);
		s->cancel[i].id = s->id[r->order[i]];
	}
	if (s->batch) {
		tw_batch(s->fd, TWHEEL_IOC_CANCEL_BATCH, s->cancel,
			 sizeof(*s->cancel), r->n, 0);
		return;
	}
	for (i = 0; i < r->n; i++)
		ioctl(s->fd, TWHEEL_IOC_CANCEL, &s->cancel[i]);
}

static void tw_consume(struct ub_run *r)
{
	static struct twheel_event ev[UB_EVENTS];
	struct tw_state *s = r->priv;
	unsigned long k;
	ssize_t i, got;

	while (r->got < r->n) {
		got = read(s->fd, ev, sizeof(ev));
		if (got < 0)
			ub_die("read " UB_DEV);
		for (i = 0, k = 0; i < got / (ssize_t)sizeof(ev[0]); i++)
			k += ev[i].cookie >> 32 == r->gen;
		ub_got(r, k);
	}
}

static void tw_teardown(struct ub_run *r)
{
	struct tw_state *s = r->priv;

	close(s->fd);
	free(s->id);
	free(s->arm);
	free(s->cancel);
	free(s);
}

const struct ub_peer ub_peer_twheel_single = {
	.name		= "twheel_single",
	.setup		= tw_setup_single,
	.arm		= tw_arm,
	.cancel		= tw_cancel,
	.consume	= tw_consume,
	.teardown	= tw_teardown,
};

const struct ub_peer ub_peer_twheel_batch = {
	.name		= "twheel_batch",
	.setup		= tw_setup_batch,
	.arm		= tw_arm,
	.cancel		= tw_cancel,
	.consume	= tw_consume,
	.teardown	= tw_teardown,
};

/*
 * The twheel_batch burst (ubench_burst.c): b->n ABI 1 timers armed for
 * b->deadline (absolute, CLOCK_MONOTONIC, cookie i) with
 * TWHEEL_IOC_ARM_BATCH, consumed by read() of up to UB_EVENTS events, as
 * the twheel_batch peer does; poll() only when no event is ready.
 */
void ub_burst_abi1(struct ub_burst *b)
{
	static struct twheel_event ev[UB_EVENTS];
	struct ub_run r = { .n = b->n, .abs = 1 };
	struct pollfd pfd = { .events = POLLIN };
	unsigned long i, before;
	struct tw_state *s;
	uint64_t t0, now;
	ssize_t got, j;

	r.dl = ub_alloc(b->n, sizeof(*r.dl));
	tw_setup(&r, 1);
	s = r.priv;
	if (fcntl(s->fd, F_SETFL, O_NONBLOCK))
		ub_die("O_NONBLOCK");
	t0 = ub_now();
	b->deadline = t0 + UB_BURST_LEAD;
	for (i = 0; i < b->n; i++)
		r.dl[i] = b->deadline;
	tw_arm(&r);
	now = ub_now();
	b->arm_ns = now - t0;
	b->late_arm = now > b->deadline;
	pfd.fd = s->fd;
	for (;;) {
		before = b->distinct + b->dup + b->bad;
		got = read(s->fd, ev, sizeof(ev));
		now = ub_now();
		for (j = 0; j < got / (ssize_t)sizeof(ev[0]); j++)
			ub_burst_saw(b, ev[j].cookie, ev[j].cookie,
				     ev[j].deadline);
		if (got > 0) {
			ub_burst_pass(b, before, now);
			continue;
		}
		if (got < 0 && errno != EAGAIN)
			ub_die("read " UB_DEV);
		if (b->distinct >= b->n && b->last + 50000000ULL <= now)
			break;
		if (now > b->deadline + UB_BURST_WAIT)
			break;
		if (b->distinct < b->n)
			b->sleeps++;
		/* until readiness; after the last record, 50 ms for a dup */
		poll(&pfd, 1, b->distinct < b->n ?
		     (b->deadline + UB_BURST_WAIT - now) / 1000000 + 1 : 50);
	}
	snprintf(b->desc, sizeof(b->desc), "abi=1 read_events=%u", UB_EVENTS);
	tw_teardown(&r);
	free(r.dl);
}
