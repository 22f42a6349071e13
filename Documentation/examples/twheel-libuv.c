// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-libuv: twheel timers driven from a libuv loop. The twheel file
 * descriptor is watched with a uv_poll_t; its callback reads the ready
 * expirations. Three one-shots armed at absolute CLOCK_MONOTONIC deadlines
 * (30, 10 and 20 ms after a common base) must each arrive once, at their
 * deadline or later, and a fixed-rate timer (every 15 ms) five times; a
 * uv_timer_t bounds the run. Prints TAP; exits 0 only if all arrived in time.
 *
 * Build: cc twheel-libuv.c $(pkg-config --cflags --libs libtwheel libuv)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <uv.h>

#include <twheel.h>

#define MS	1000000ULL

struct app {
	struct twheel *tw;
	uv_poll_t poll;
	uv_timer_t guard;
	uint64_t rate;
	uint64_t t0;		/* the one-shots' deadlines: t0 + cookie ms */
	int seen[31];		/* events per cookie */
	int bad;		/* events off their deadline */
	int oneshots;
	int ticks;
	int err;
};

static void stop(struct app *app)
{
	uv_poll_stop(&app->poll);
	uv_timer_stop(&app->guard);
}

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

static void on_twheel(uv_poll_t *h, int status, int events)
{
	struct app *app = h->data;
	struct twheel_event ev[16];
	int i, n;

	if (status < 0 || !(events & UV_READABLE)) {
		app->err = status ? status : -1;
		stop(app);
		return;
	}
	n = twheel_read(app->tw, ev, 16);	/* the fd is non-blocking */
	if (n == -EAGAIN)
		return;
	if (n < 0) {
		app->err = n;
		stop(app);
		return;
	}
	for (i = 0; i < n; i++) {
		if (ev[i].id == app->rate)
			app->ticks++;
		else if (oneshot(app, &ev[i]))
			app->oneshots++;
	}
	if (app->oneshots == 3 && app->ticks >= 5) {
		twheel_cancel(app->tw, app->rate);
		stop(app);
	}
}

static void on_guard(uv_timer_t *t)
{
	struct app *app = t->data;

	app->err = -ETIMEDOUT;
	stop(app);
}

int main(void)
{
	static const uint64_t delay[3] = { 30, 10, 20 };
	struct timespec now;
	uv_loop_t *loop = uv_default_loop();
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
	if (!ret)
		ret = twheel_arm(app.tw, 15 * MS, 15 * MS, 0, &app.rate);
	printf("%sok 1 arm three one-shots and a fixed-rate timer\n",
	       ret ? "not " : "");
	if (ret)
		return 1;

	uv_poll_init(loop, &app.poll, twheel_fd(app.tw));
	app.poll.data = &app;
	uv_poll_start(&app.poll, UV_READABLE, on_twheel);
	uv_timer_init(loop, &app.guard);
	app.guard.data = &app;
	uv_timer_start(&app.guard, on_guard, 10000, 0);
	uv_run(loop, UV_RUN_DEFAULT);

	ok = !app.err && !app.bad && app.oneshots == 3 && app.ticks >= 5 &&
	     app.seen[10] == 1 && app.seen[20] == 1 && app.seen[30] == 1;
	printf("# %d one-shots at their deadlines, %d off, %d fixed-rate events, err %d\n",
	       app.oneshots, app.bad, app.ticks, app.err);
	printf("%sok 2 events delivered through uv_poll_t, one-shots at their deadlines\n",
	       ok ? "" : "not ");
	uv_close((uv_handle_t *)&app.poll, NULL);
	uv_close((uv_handle_t *)&app.guard, NULL);
	uv_run(loop, UV_RUN_DEFAULT);
	uv_loop_close(loop);
	twheel_close(app.tw);
	return ok ? 0 : 1;
}
