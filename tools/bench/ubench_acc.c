// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-ubench accuracy and idle modes.
 *
 * accuracy N SEED: N /dev/twheel timers and N timerfds get the same absolute
 * CLOCK_MONOTONIC deadlines (a common start + 1..500 ms), armed and consumed
 * by one thread per implementation in the same run. Lateness is the time a
 * blocked reader got the expiration (clock_gettime after read() or
 * epoll_wait() returned) minus the deadline; an early expiration is one seen
 * before its deadline. Output: early count, p50/p99/max and the percentiles
 * 0..100 (for the plot).
 *
 * idle SECONDS: the sum of twheel's per-CPU tick hrtimer wake-ups (debugfs
 * "wakeups") over SECONDS with nothing pending, then with one timer 1 h away;
 * and the idle guest's busy CPU time per second (the background that the
 * ops mode's CPU figures include).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/timerfd.h>
#include <linux/twheel.h>

#include "ubench.h"

#define ACC_SPAN_NS	499000000ULL	/* deadlines 1..500 ms after start */
#define ACC_START_NS	1000000000ULL	/* arming must end before the start */

struct acc_run {
	const char	*name;
	unsigned long	n;
	const uint64_t	*dl;		/* absolute deadlines */
	int64_t		*late;		/* lateness per timer, ns */
	uint64_t	armed_at;
	unsigned long	got;
	unsigned long	kernel_early;	/* twheel: expired < deadline */
	int64_t		kernel_max;	/* twheel: max of expired - deadline */
};

static void *acc_twheel(void *arg)
{
	static struct twheel_event ev[1024];
	struct acc_run *r = arg;
	struct twheel_arm a;
	unsigned long i;
	uint64_t now;
	ssize_t k;
	int fd = open(UB_DEV, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		ub_die(UB_DEV);
	for (i = 0; i < r->n; i++) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.flags = TWHEEL_ARM_ABS;
		a.clockid = CLOCK_MONOTONIC;
		a.expires = r->dl[i];
		a.cookie = i;
		if (ioctl(fd, TWHEEL_IOC_ARM, &a))
			ub_die("TWHEEL_IOC_ARM");
	}
	r->armed_at = ub_now();
	while (r->got < r->n) {
		k = read(fd, ev, sizeof(ev));
		if (k < 0)
			ub_die("read " UB_DEV);
		now = ub_now();
		for (i = 0; i < k / sizeof(ev[0]); i++, r->got++) {
			int64_t kl = (int64_t)(ev[i].expired - ev[i].deadline);

			r->late[ev[i].cookie] = (int64_t)(now - r->dl[ev[i].cookie]);
			r->kernel_early += ev[i].expired < ev[i].deadline ||
					   ev[i].deadline != r->dl[ev[i].cookie];
			if (kl > r->kernel_max)
				r->kernel_max = kl;
		}
	}
	close(fd);
	return NULL;
}

static void *acc_timerfd(void *arg)
{
	static struct epoll_event ev[1024];
	struct acc_run *r = arg;
	struct itimerspec its = { };
	unsigned long i;
	uint64_t now, v;
	int *fds = ub_alloc(r->n, sizeof(*fds));
	int ep = epoll_create1(EPOLL_CLOEXEC);
	int k;

	for (i = 0; i < r->n; i++) {
		struct epoll_event e = { .events = EPOLLIN, .data.u64 = i };

		fds[i] = timerfd_create(CLOCK_MONOTONIC,
					TFD_NONBLOCK | TFD_CLOEXEC);
		its.it_value = ub_ts(r->dl[i]);
		if (fds[i] < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &e) ||
		    timerfd_settime(fds[i], TFD_TIMER_ABSTIME, &its, NULL))
			ub_die("timerfd %lu", i);
	}
	r->armed_at = ub_now();
	while (r->got < r->n) {
		k = epoll_wait(ep, ev, 1024, -1);
		now = ub_now();
		for (i = 0; i < (unsigned long)(k > 0 ? k : 0); i++) {
			uint64_t j = ev[i].data.u64;

			if (read(fds[j], &v, sizeof(v)) != sizeof(v))
				continue;
			r->late[j] = (int64_t)(now - r->dl[j]);
			r->got++;
		}
	}
	for (i = 0; i < r->n; i++)
		close(fds[i]);
	close(ep);
	free(fds);
	return NULL;
}

static int acc_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static void acc_report(struct acc_run *r, uint64_t start)
{
	unsigned long i, early = 0;
	int q;

	qsort(r->late, r->n, sizeof(*r->late), acc_cmp);
	for (i = 0; i < r->n; i++)
		early += r->late[i] < 0;
	printf("RESULT accuracy impl=%s n=%lu early=%lu", r->name, r->n, early);
	printf(" p50_us=%.1f p99_us=%.1f max_us=%.1f late_arm=%d",
	       r->late[r->n / 2] / 1e3, r->late[(r->n * 99) / 100] / 1e3,
	       r->late[r->n - 1] / 1e3, r->armed_at > start);
	if (!strcmp(r->name, "twheel"))
		printf(" kernel_early=%lu kernel_max_us=%.1f", r->kernel_early,
		       r->kernel_max / 1e3);
	printf("\n");
	printf("RESULT lateness impl=%s q_us=", r->name);
	for (q = 0; q <= 100; q++)
		printf("%s%.1f", q ? "," : "",
		       r->late[q == 100 ? r->n - 1 : (r->n * q) / 100] / 1e3);
	printf("\n");
}

int ub_acc_main(int argc, char **argv)
{
	struct acc_run tw = { .name = "twheel" }, tf = { .name = "timerfd" };
	pthread_t t1, t2;
	uint64_t seed, start, *dl;
	unsigned long i, n;

	if (argc != 4)
		return 1;
	n = strtoul(argv[2], NULL, 0);
	seed = strtoull(argv[3], NULL, 0) * 0x9E3779B97F4A7C15ULL + 7;
	if (!n)
		return 1;
	ub_raise_limits(n);
	dl = ub_alloc(n, sizeof(*dl));
	start = ub_now() + ACC_START_NS;
	for (i = 0; i < n; i++)
		dl[i] = start + UB_MIN_NS + ub_rand(&seed) % ACC_SPAN_NS;
	tw.n = n;
	tf.n = n;
	tw.dl = dl;
	tf.dl = dl;
	tw.late = ub_alloc(n, sizeof(*tw.late));
	tf.late = ub_alloc(n, sizeof(*tf.late));
	if (pthread_create(&t1, NULL, acc_twheel, &tw) ||
	    pthread_create(&t2, NULL, acc_timerfd, &tf))
		ub_die("pthread_create");
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	acc_report(&tw, start);
	acc_report(&tf, start);
	return 0;
}

/* Sum of the "wakeups" line of twheel's debugfs stats, or -1. */
static long long idle_wakeups(void)
{
	char line[256], key[64];
	long long v, sum = -1;
	FILE *f = fopen(UB_STATS, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p;

		for (p = line; *p; p++)
			if (*p == ':' || *p == '=' || *p == '\t')
				*p = ' ';
		if (sscanf(line, "%63s %lld", key, &v) == 2 &&
		    !strcmp(key, "wakeups"))
			sum = (sum < 0 ? 0 : sum) + v;
	}
	fclose(f);
	return sum;
}

/* twheel tick wake-ups per second over @secs; @busy: guest busy ns per s. */
static double idle_rate(unsigned int secs, double *busy)
{
	long long a, b, c0, c1;
	uint64_t t0, t1;

	c0 = ub_busy_ns();
	a = idle_wakeups();
	t0 = ub_now();
	sleep(secs);
	b = idle_wakeups();
	t1 = ub_now();
	c1 = ub_busy_ns();
	*busy = c0 < 0 || c1 < 0 ? -1 : (double)(c1 - c0) * 1e9 / (t1 - t0);
	if (a < 0 || b < 0)
		return -1;
	return (double)(b - a) * 1e9 / (double)(t1 - t0);
}

int ub_idle_main(int argc, char **argv)
{
	struct twheel_arm a = {
		.size = sizeof(a),
		.expires = 3600ULL * 1000000000ULL,
	};
	unsigned int secs;
	double none, one, busy, busy1;
	int fd;

	if (argc != 3)
		return 1;
	secs = strtoul(argv[2], NULL, 0);
	if (!secs)
		return 1;
	none = idle_rate(secs, &busy);
	fd = open(UB_DEV, O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, TWHEEL_IOC_ARM, &a))
		ub_die("arm a timer 1 h away");
	one = idle_rate(secs, &busy1);
	close(fd);
	printf("RESULT idle seconds=%u wakeups_per_s_none=%.2f", secs, none);
	printf(" wakeups_per_s_one_1h=%.2f", one);
	if (busy >= 0)
		printf(" busy_ns_per_s=%.0f", busy);
	printf("\n");
	return 0;
}
