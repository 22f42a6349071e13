// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-ubench timerfd peers, all consumed through one epoll instance:
 *
 *   timerfd          arm: timerfd_create + epoll_ctl(ADD, EPOLLIN) +
 *                    timerfd_settime; cancel: close; delivery: epoll_wait +
 *                    read() of each ready fd
 *   timerfd_rearm    fds created and added (EPOLLIN) at setup; arm:
 *                    timerfd_settime; cancel: timerfd_settime(0); delivery
 *                    as timerfd
 *   timerfd_epollet  as timerfd_rearm, added with EPOLLIN | EPOLLET;
 *                    delivery: epoll_wait alone, no read()
 */
#define _GNU_SOURCE
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>

#include "ubench.h"

enum tfd_mode { TFD_CREATE, TFD_REARM, TFD_EPOLLET };

struct tfd_state {
	enum tfd_mode	mode;
	int		ep;
	int		*fd;
};

static void tfd_add(struct tfd_state *s, unsigned long i, uint64_t data)
{
	struct epoll_event ev = {
		.events = EPOLLIN | (s->mode == TFD_EPOLLET ? EPOLLET : 0),
		.data.u64 = data,
	};

	s->fd[i] = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (s->fd[i] < 0 || epoll_ctl(s->ep, EPOLL_CTL_ADD, s->fd[i], &ev))
		ub_die("timerfd %lu", i);
}

static void tfd_setup(struct ub_run *r, enum tfd_mode mode)
{
	struct tfd_state *s = ub_alloc(1, sizeof(*s));
	unsigned long i;

	s->mode = mode;
	s->fd = ub_alloc(r->n, sizeof(*s->fd));
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	if (s->ep < 0)
		ub_die("epoll_create1");
	for (i = 0; i < r->n; i++)
		s->fd[i] = -1;
	if (mode != TFD_CREATE)
		for (i = 0; i < r->n; i++)
			tfd_add(s, i, i);
	r->priv = s;
}

static void tfd_setup_create(struct ub_run *r)
{
	tfd_setup(r, TFD_CREATE);
}

static void tfd_setup_rearm(struct ub_run *r)
{
	tfd_setup(r, TFD_REARM);
}

static void tfd_setup_epollet(struct ub_run *r)
{
	tfd_setup(r, TFD_EPOLLET);
}

static void tfd_arm(struct ub_run *r)
{
	struct tfd_state *s = r->priv;
	struct itimerspec its = { };
	int flags = r->abs ? TFD_TIMER_ABSTIME : 0;
	unsigned long i;

	for (i = 0; i < r->n; i++) {
		if (s->mode == TFD_CREATE)
			tfd_add(s, i, (uint64_t)r->gen << 32 | i);
		its.it_value = ub_ts(r->dl[i]);
		if (timerfd_settime(s->fd[i], flags, &its, NULL))
			ub_die("timerfd_settime %lu", i);
	}
}

static void tfd_close_all(struct tfd_state *s, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		if (s->fd[i] >= 0)
			close(s->fd[i]);
		s->fd[i] = -1;
	}
}

static void tfd_cancel(struct ub_run *r)
{
	struct tfd_state *s = r->priv;
	struct itimerspec zero = { };
	unsigned long i, j;

	for (i = 0; i < r->n; i++) {
		j = r->order[i];
		if (s->mode == TFD_CREATE) {
			close(s->fd[j]);
			s->fd[j] = -1;
		} else if (timerfd_settime(s->fd[j], 0, &zero, NULL)) {
			ub_die("timerfd_settime(0) %lu", j);
		}
	}
}

static void tfd_consume(struct ub_run *r)
{
	static struct epoll_event ev[UB_EVENTS];
	struct tfd_state *s = r->priv;
	unsigned long k;
	uint64_t v;
	int i, got;

	while (r->got < r->n) {
		got = epoll_wait(s->ep, ev, UB_EVENTS, -1);
		if (got < 0)
			ub_die("epoll_wait");
		k = 0;
		for (i = 0; i < got; i++) {
			uint64_t d = ev[i].data.u64;

			if (s->mode == TFD_EPOLLET)
				k++;
			else if (read(s->fd[(uint32_t)d], &v, sizeof(v)) == sizeof(v))
				k += s->mode == TFD_REARM || d >> 32 == r->gen;
		}
		ub_got(r, k);
	}
}

static void tfd_release(struct ub_run *r)
{
	struct tfd_state *s = r->priv;

	if (s->mode == TFD_CREATE)
		tfd_close_all(s, r->n);
}

static void tfd_teardown(struct ub_run *r)
{
	struct tfd_state *s = r->priv;

	tfd_close_all(s, r->n);
	close(s->ep);
	free(s->fd);
	free(s);
}

const struct ub_peer ub_peer_timerfd = {
	.name		= "timerfd",
	.setup		= tfd_setup_create,
	.arm		= tfd_arm,
	.cancel		= tfd_cancel,
	.consume	= tfd_consume,
	.release	= tfd_release,
	.teardown	= tfd_teardown,
};

const struct ub_peer ub_peer_timerfd_rearm = {
	.name		= "timerfd_rearm",
	.setup		= tfd_setup_rearm,
	.arm		= tfd_arm,
	.cancel		= tfd_cancel,
	.consume	= tfd_consume,
	.teardown	= tfd_teardown,
};

const struct ub_peer ub_peer_timerfd_epollet = {
	.name		= "timerfd_epollet",
	.setup		= tfd_setup_epollet,
	.arm		= tfd_arm,
	.cancel		= tfd_cancel,
	.consume	= tfd_consume,
	.teardown	= tfd_teardown,
};
