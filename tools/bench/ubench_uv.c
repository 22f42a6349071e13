// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-ubench peer libuv: uv_timer_t timers in one uv_loop_t, the
 * userspace heap plus one kernel timeout (the loop's epoll_wait) that event
 * loops use. The handles are initialised at setup (uv_timer_init touches
 * only the handle); arm: one uv_update_time() then uv_timer_start() per
 * timer (milliseconds, rounded up; absolute deadlines become the
 * milliseconds from the loop's time); cancel: uv_timer_stop(); delivery:
 * uv_run(UV_RUN_DEFAULT), which returns when the last callback has run.
 */
#define _GNU_SOURCE
#include <uv.h>

#include "ubench.h"

struct uv_state {
	uv_loop_t	loop;
	uv_timer_t	*t;
};

static void uv_ub_setup(struct ub_run *r)
{
	struct uv_state *s = ub_alloc(1, sizeof(*s));
	unsigned long i;

	s->t = ub_alloc(r->n, sizeof(*s->t));
	if (uv_loop_init(&s->loop))
		ub_die("uv_loop_init");
	for (i = 0; i < r->n; i++) {
		uv_timer_init(&s->loop, &s->t[i]);
		s->t[i].data = r;
	}
	r->priv = s;
}

static void uv_ub_fired(uv_timer_t *t)
{
	ub_got(t->data, 1);
}

static void uv_ub_arm(struct ub_run *r)
{
	struct uv_state *s = r->priv;
	uint64_t now, ms;
	unsigned long i;

	uv_update_time(&s->loop);
	now = uv_now(&s->loop);
	for (i = 0; i < r->n; i++) {
		ms = (r->dl[i] + 999999) / 1000000;
		if (r->abs)
			ms = ms > now ? ms - now : 0;
		if (uv_timer_start(&s->t[i], uv_ub_fired, ms, 0))
			ub_die("uv_timer_start %lu", i);
	}
}

static void uv_ub_cancel(struct ub_run *r)
{
	struct uv_state *s = r->priv;
	unsigned long i;

	for (i = 0; i < r->n; i++)
		uv_timer_stop(&s->t[r->order[i]]);
}

static void uv_ub_consume(struct ub_run *r)
{
	struct uv_state *s = r->priv;

	uv_run(&s->loop, UV_RUN_DEFAULT);
	if (r->got != r->n) {
		fprintf(stderr, "twheel-ubench: libuv: %lu of %lu fired\n",
			r->got, r->n);
		exit(2);
	}
}

static void uv_ub_teardown(struct ub_run *r)
{
	struct uv_state *s = r->priv;
	unsigned long i;

	for (i = 0; i < r->n; i++)
		uv_close((uv_handle_t *)&s->t[i], NULL);
	uv_run(&s->loop, UV_RUN_DEFAULT);
	if (uv_loop_close(&s->loop))
		ub_die("uv_loop_close");
	free(s->t);
	free(s);
}

const struct ub_peer ub_peer_libuv = {
	.name		= "libuv",
	.setup		= uv_ub_setup,
	.arm		= uv_ub_arm,
	.cancel		= uv_ub_cancel,
	.consume	= uv_ub_consume,
	.teardown	= uv_ub_teardown,
};
