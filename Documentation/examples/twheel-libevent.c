// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-libevent: twheel timers driven from a libevent loop. The twheel
 * file descriptor is a persistent EV_READ event; its callback reads the ready
 * expirations. Three one-shots (30, 10 and 20 ms) must arrive in deadline
 * order and a fixed-delay timer (every 15 ms) five times; an evtimer bounds
 * the run. Prints TAP; exits 0 only if all arrived in time.
 *
 * Build: cc twheel-libevent.c $(pkg-config --cflags --libs libtwheel libevent_core)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <event2/event.h>

#include <twheel.h>

#define MS	1000000ULL

struct app {
	struct twheel *tw;
	struct event_base *base;
	uint64_t delay_id;
	uint64_t order[3];	/* cookies of the one-shots, as read */
	int oneshots;
	int ticks;
	int err;
};

static void on_twheel(evutil_socket_t fd, short what, void *arg)
{
	struct app *app = arg;
	struct twheel_event ev[16];
	int i, n;

	(void)fd;
	(void)what;
	n = twheel_read(app->tw, ev, 16);	/* the fd is non-blocking */
	if (n == -EAGAIN)
		return;
	if (n < 0) {
		app->err = n;
		event_base_loopbreak(app->base);
		return;
	}
	for (i = 0; i < n; i++) {
		if (ev[i].id == app->delay_id)
			app->ticks++;
		else if (app->oneshots < 3)
			app->order[app->oneshots++] = ev[i].cookie;
	}
	if (app->oneshots == 3 && app->ticks >= 5) {
		twheel_cancel(app->tw, app->delay_id);
		event_base_loopbreak(app->base);
	}
}

static void on_guard(evutil_socket_t fd, short what, void *arg)
{
	struct app *app = arg;

	(void)fd;
	(void)what;
	app->err = -ETIMEDOUT;
	event_base_loopbreak(app->base);
}

int main(void)
{
	static const uint64_t delay[3] = { 30 * MS, 10 * MS, 20 * MS };
	struct timeval limit = { 10, 0 };
	struct event *rd, *guard;
	struct twheel_arm a;
	struct app app;
	int i, ret, ok;

	memset(&app, 0, sizeof(app));
	printf("1..2\n");
	ret = twheel_open(NULL, O_NONBLOCK, &app.tw);
	if (ret) {
		printf("1..0 # SKIP open: %s\n", strerror(-ret));
		return 4;
	}
	for (i = 0; i < 3 && !ret; i++)
		ret = twheel_arm(app.tw, delay[i], 0, (uint64_t)delay[i] / MS, NULL);
	twheel_arm_init(&a, 15 * MS, 15 * MS, 0);
	a.flags = TWHEEL_ARM_FIXED_DELAY;
	if (!ret)
		ret = twheel_arm_ex(app.tw, &a);
	app.delay_id = a.id;
	printf("%sok 1 arm three one-shots and a fixed-delay timer\n",
	       ret ? "not " : "");
	if (ret)
		return 1;

	app.base = event_base_new();
	if (!app.base)
		return 1;
	rd = event_new(app.base, twheel_fd(app.tw), EV_READ | EV_PERSIST,
		       on_twheel, &app);
	guard = evtimer_new(app.base, on_guard, &app);
	if (!rd || !guard)
		return 1;
	event_add(rd, NULL);
	evtimer_add(guard, &limit);
	event_base_dispatch(app.base);

	ok = !app.err && app.oneshots == 3 && app.ticks >= 5 &&
	     app.order[0] == 10 && app.order[1] == 20 && app.order[2] == 30;
	printf("# one-shots in order %llu %llu %llu, %d fixed-delay events, err %d\n",
	       (unsigned long long)app.order[0], (unsigned long long)app.order[1],
	       (unsigned long long)app.order[2], app.ticks, app.err);
	printf("%sok 2 events delivered through a libevent EV_READ event, one-shots in deadline order\n",
	       ok ? "" : "not ");
	event_free(rd);
	event_free(guard);
	event_base_free(app.base);
	twheel_close(app.tw);
	return ok ? 0 : 1;
}
