// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-example: arm a one-shot, a fixed-rate and a fixed-delay timer on one
 * /dev/twheel file, wait for their expirations with epoll and read them.
 *
 * Build: cc -O2 -Wall -I uapi -o twheel-example twheel-example.c
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <linux/twheel.h>

#define MS	1000000ULL

static int arm(int fd, __u64 expires, __u64 period, __u32 flags,
	       __u64 cookie, __u64 *id)
{
	struct twheel_arm a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.flags = flags;
	a.expires = expires;
	a.period = period;
	a.cookie = cookie;
	if (ioctl(fd, TWHEEL_IOC_ARM, &a) < 0)
		return -errno;
	*id = a.id;
	return 0;
}

int main(void)
{
	struct twheel_event ev[16];
	struct epoll_event ee = { .events = EPOLLIN };
	__u64 oneshot, rate, delay;
	struct twheel_cancel c;
	int fd, ep, got = 0;
	ssize_t n;

	fd = open("/dev/twheel", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		perror("open /dev/twheel");
		return 1;
	}
	if (arm(fd, 250 * MS, 0, 0, 1, &oneshot) ||
	    arm(fd, 100 * MS, 100 * MS, 0, 2, &rate) ||
	    arm(fd, 100 * MS, 150 * MS, TWHEEL_ARM_FIXED_DELAY, 3, &delay)) {
		fprintf(stderr, "arm failed\n");
		return 1;
	}

	ep = epoll_create1(EPOLL_CLOEXEC);
	ee.data.fd = fd;
	epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ee);
	while (got < 10 && epoll_wait(ep, &ee, 1, 2000) == 1) {
		n = read(fd, ev, sizeof(ev));
		for (int i = 0; i < n / (ssize_t)sizeof(ev[0]); i++, got++)
			printf("id %llu cookie %llu late %llu us overruns %u\n",
			       (unsigned long long)ev[i].id,
			       (unsigned long long)ev[i].cookie,
			       (unsigned long long)(ev[i].expired -
						    ev[i].deadline) / 1000,
			       ev[i].overruns);
	}

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.id = rate;
	printf("cancel fixed-rate timer: %d\n", ioctl(fd, TWHEEL_IOC_CANCEL, &c));
	close(ep);
	close(fd);	/* cancels the fixed-delay timer too */
	return 0;
}
