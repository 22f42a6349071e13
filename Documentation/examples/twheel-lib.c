// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-lib: the libtwheel example. Arms a one-shot and a fixed-rate timer
 * and 1000 one-hour timers in one batch, reads expirations, cancels what is
 * left. Prints TAP; exits 0 only if every step did what it should.
 *
 * Build: cc -O2 -Wall twheel-lib.c $(pkg-config --cflags --libs libtwheel)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <twheel.h>

#define MS	1000000ULL
#define N	1000

static int failed;
static int step;

static void tap(int ok, const char *what, int ret)
{
	printf("%sok %d %s", ok ? "" : "not ", ++step, what);
	if (!ok)
		printf(" (%s)", ret < 0 ? strerror(-ret) : "unexpected");
	printf("\n");
	failed |= !ok;
}

int main(void)
{
	static struct twheel_arm arms[N];
	struct twheel_event ev[8];
	uint64_t oneshot, rate;
	unsigned int i, done;
	int ret, n, got_oneshot = 0, got_rate = 0;
	struct twheel *tw;

	printf("1..6\n");
	ret = twheel_open(NULL, 0, &tw);
	if (ret) {
		printf("1..0 # SKIP open %s: %s\n", TWHEEL_DEVICE, strerror(-ret));
		return 4;
	}
	printf("# libtwheel %s, module ABI %u, features 0x%llx\n",
	       twheel_version(), twheel_abi_version(tw),
	       (unsigned long long)twheel_features(tw));

	ret = twheel_arm(tw, 50 * MS, 0, 1, &oneshot);
	tap(ret == 0, "arm a one-shot timer, 50 ms", ret);
	ret = twheel_arm(tw, 20 * MS, 20 * MS, 2, &rate);
	tap(ret == 0, "arm a fixed-rate timer, every 20 ms", ret);

	for (i = 0; i < N; i++)
		twheel_arm_init(&arms[i], 3600000 * MS, 0, 100 + i);
	ret = twheel_arm_batch(tw, arms, N, &done);
	tap(ret == N && done == N, "arm 1000 one-hour timers in one batch", ret);

	while (!got_oneshot || got_rate < 3) {
		ret = twheel_wait(tw, 5000);
		if (ret != 1)
			break;
		n = twheel_read(tw, ev, 8);
		for (i = 0; n > 0 && i < (unsigned int)n; i++) {
			printf("# id %llu cookie %llu late %llu us\n",
			       (unsigned long long)ev[i].id,
			       (unsigned long long)ev[i].cookie,
			       (unsigned long long)(ev[i].expired - ev[i].deadline) / 1000);
			got_oneshot += ev[i].id == oneshot;
			got_rate += ev[i].id == rate;
		}
	}
	tap(got_oneshot == 1 && got_rate >= 3,
	    "read the one-shot's event and three of the fixed-rate's", ret);

	ret = twheel_cancel(tw, rate);
	tap(ret == 1, "cancel the fixed-rate timer", ret);
	n = 0;
	for (i = 0; i < N; i++)
		n += twheel_cancel(tw, arms[i].id) == 1;
	tap(n == N, "cancel the 1000 one-hour timers", n);

	twheel_close(tw);
	return failed;
}
