// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-ubench peer posix: arm: timer_create(SIGEV_SIGNAL, SIGRTMIN) +
 * timer_settime; cancel: timer_delete; delivery: read() of a signalfd,
 * up to 1024 siginfos per call.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <unistd.h>
#include <sys/signalfd.h>

#include "ubench.h"

/*
 * A signal's value: the phase's generation (six bits) above the timer's
 * index, so that a signal of an earlier phase (of a timer that fired before
 * its phase ended) is never counted for this one.
 */
#define PX_IDX_BITS	24
#define PX_GEN(gen)	((int)((gen) & 0x3f))

struct px_state {
	int	sigfd;
	timer_t	*tid;
	char	*live;
};

static void px_setup(struct ub_run *r)
{
	struct px_state *s = ub_alloc(1, sizeof(*s));
	sigset_t set;

	s->tid = ub_alloc(r->n, sizeof(*s->tid));
	s->live = ub_alloc(r->n, 1);
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &set, NULL);
	s->sigfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (s->sigfd < 0)
		ub_die("signalfd");
	r->priv = s;
}

static void px_arm(struct ub_run *r)
{
	struct px_state *s = r->priv;
	struct itimerspec its = { };
	unsigned long i;

	if (r->n > 1UL << PX_IDX_BITS)
		ub_die("posix: at most %lu timers", 1UL << PX_IDX_BITS);
	for (i = 0; i < r->n; i++) {
		struct sigevent sev = {
			.sigev_notify = SIGEV_SIGNAL,
			.sigev_signo = SIGRTMIN,
			.sigev_value.sival_int = PX_GEN(r->gen) << PX_IDX_BITS |
						 (int)i,
		};

		if (timer_create(CLOCK_MONOTONIC, &sev, &s->tid[i]))
			ub_die("timer_create %lu", i);
		s->live[i] = 1;
		its.it_value = ub_ts(r->dl[i]);
		if (timer_settime(s->tid[i], r->abs ? TIMER_ABSTIME : 0,
				  &its, NULL))
			ub_die("timer_settime %lu", i);
	}
}

static void px_cancel(struct ub_run *r)
{
	struct px_state *s = r->priv;
	unsigned long i;

	for (i = 0; i < r->n; i++) {
		timer_delete(s->tid[r->order[i]]);
		s->live[r->order[i]] = 0;
	}
}

static void px_consume(struct ub_run *r)
{
	static struct signalfd_siginfo si[1024];
	struct px_state *s = r->priv;
	unsigned long k;
	ssize_t i, got;

	while (r->got < r->n) {
		got = read(s->sigfd, si, sizeof(si));
		if (got < 0)
			ub_die("read signalfd");
		for (i = 0, k = 0; i < got / (ssize_t)sizeof(si[0]); i++)
			k += si[i].ssi_int >> PX_IDX_BITS == PX_GEN(r->gen);
		ub_got(r, k);
	}
}

static void px_release(struct ub_run *r)
{
	struct px_state *s = r->priv;
	unsigned long i;

	for (i = 0; i < r->n; i++)
		if (s->live[i])
			timer_delete(s->tid[i]);
	for (i = 0; i < r->n; i++)
		s->live[i] = 0;
}

static void px_teardown(struct ub_run *r)
{
	struct px_state *s = r->priv;

	px_release(r);
	close(s->sigfd);
	free(s->tid);
	free(s->live);
	free(s);
}

const struct ub_peer ub_peer_posix = {
	.name		= "posix",
	.setup		= px_setup,
	.arm		= px_arm,
	.cancel		= px_cancel,
	.consume	= px_consume,
	.release	= px_release,
	.teardown	= px_teardown,
};
