// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-libevent: twheel timers driven from a libevent loop. The twheel
 * file descriptor is a persistent EV_READ event; its callback reads the ready
 * expirations. Three one-shots armed at absolute CLOCK_MONOTONIC deadlines
 * (30, 10 and 20 ms after a common base) must each arrive once, at their
 * deadline or later, and a fixed-delay timer (every 15 ms) five times; an
 * evtimer bounds the run. Prints TAP; exits 0 only if all arrived in time.
 *
 * Build: cc twheel-libevent.c $(pkg-config --cflags --libs libtwheel libevent_core)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <event2/event.h>

#include <twheel.h>

#define MS	1000000ULL

struct app {
	struct twheel *tw;
	struct event_base *base;
	uint64_t delay_id;
	uint64_t t0;		/* the one-shots' deadlines: t0 + cookie ms */
	int seen[31];		/* events per cookie */
	int bad;		/* events off their deadline */
	int oneshots;
	int ticks;
	int err;
};

/*
 * A one-shot's event: its deadline is the one it was armed with (rounded up
 * to the wheel's tick at most) and it did not fire before it.
 */
static int oneshot(struct app *app, const struct twheel_event *ev)
{
	uint64_t want = app->t0 + ev->cookie * MS;

	if (ev->cookie > 30 || ev->deadline < want ||
	    ev->deadline - want >= 5 * MS || ev->expired < ev->deadline) {
		app->bad++;
		return 0;
	}
	return ++app->seen[ev->cookie] == 1;
}

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
		else if (oneshot(app, &ev[i]))
			app->oneshots++;
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
	static const uint64_t delay[3] = { 30, 10, 20 };
	struct timespec now;
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
	clock_gettime(CLOCK_MONOTONIC, &now);
	app.t0 = (uint64_t)now.tv_sec * 1000000000ULL + now.tv_nsec + 20 * MS;
	for (i = 0; i < 3 && !ret; i++) {
		twheel_arm_init(&a, app.t0 + delay[i] * MS, 0, delay[i]);
		a.flags = TWHEEL_ARM_ABS;
		a.clockid = CLOCK_MONOTONIC;
		ret = twheel_arm_ex(app.tw, &a);
	}
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

	ok = !app.err && !app.bad && app.oneshots == 3 && app.ticks >= 5 &&
	     app.seen[10] == 1 && app.seen[20] == 1 && app.seen[30] == 1;
	printf("# %d one-shots at their deadlines, %d off, %d fixed-delay events, err %d\n",
	       app.oneshots, app.bad, app.ticks, app.err);
	printf("%sok 2 events delivered through a libevent EV_READ event, one-shots at their deadlines\n",
	       ok ? "" : "not ");
	event_free(rd);
	event_free(guard);
	event_base_free(app.base);
	twheel_close(app.tw);
	return ok ? 0 : 1;
}
