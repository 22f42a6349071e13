// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-example: arm a one-shot, a fixed-rate and a fixed-delay timer on one
 * /dev/twheel file with libtwheel, wait for their expirations with epoll on
 * twheel_fd() and read them.
 *
 * Build: cc -O2 -Wall twheel-example.c $(pkg-config --cflags --libs libtwheel)
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>

#include <twheel.h>

#define MS	1000000ULL

/* Arm a relative timer; TWHEEL_ARM_FIXED_DELAY in @flags for fixed delay. */
static int arm(struct twheel *tw, uint64_t expires, uint64_t period,
	       uint32_t flags, uint64_t cookie, uint64_t *id)
{
	struct twheel_arm a;
	int ret;

	twheel_arm_init(&a, expires, period, cookie);
	a.flags = flags;
	ret = twheel_arm_ex(tw, &a);
	if (!ret)
		*id = a.id;
	return ret;
}

int main(void)
{
	struct twheel_event ev[16];
	struct epoll_event ee = { .events = EPOLLIN };
	uint64_t oneshot, rate, delay;
	struct twheel *tw;
	int ep, got = 0, n, ret;

	ret = twheel_open(NULL, O_NONBLOCK, &tw);
	if (ret) {
		fprintf(stderr, "open %s: %s\n", TWHEEL_DEVICE, strerror(-ret));
		return 1;
	}
	ret = arm(tw, 250 * MS, 0, 0, 1, &oneshot);
	if (!ret)
		ret = arm(tw, 100 * MS, 100 * MS, 0, 2, &rate);
	if (!ret)
		ret = arm(tw, 100 * MS, 150 * MS, TWHEEL_ARM_FIXED_DELAY, 3,
			  &delay);
	if (ret) {
		fprintf(stderr, "arm failed: %s\n", strerror(-ret));
		return 1;
	}

	ep = epoll_create1(EPOLL_CLOEXEC);
	ee.data.fd = twheel_fd(tw);
	epoll_ctl(ep, EPOLL_CTL_ADD, twheel_fd(tw), &ee);
	while (got < 10 && epoll_wait(ep, &ee, 1, 2000) == 1) {
		n = twheel_read(tw, ev, 16);
		for (int i = 0; i < n; i++, got++)
			printf("id %llu cookie %llu late %llu us overruns %u\n",
			       (unsigned long long)ev[i].id,
			       (unsigned long long)ev[i].cookie,
			       (unsigned long long)(ev[i].expired -
						    ev[i].deadline) / 1000,
			       ev[i].overruns);
	}

	printf("cancel fixed-rate timer: %d\n", twheel_cancel(tw, rate));
	close(ep);
	twheel_close(tw);	/* cancels the fixed-delay timer too */
	return 0;
}
