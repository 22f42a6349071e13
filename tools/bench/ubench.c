// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-ubench: per-timer cost of arm, cancel and delivery, and kernel
 * memory per pending timer, for /dev/twheel (one ioctl per timer, or batch
 * ioctls), timerfd (+ epoll) and POSIX timers (+ signalfd).
 *
 *   twheel-ubench ops IMPL N SEED	IMPL: twheel_single twheel_batch
 *					      timerfd posix
 *   twheel-ubench accuracy N SEED	twheel vs timerfd lateness
 *   twheel-ubench idle SECONDS		twheel tick wake-ups per second
 *
 * What one "timer" costs, per implementation (Documentation/bench.rst):
 *   arm     twheel: TWHEEL_IOC_ARM, or its share of TWHEEL_IOC_ARM_BATCH;
 *           timerfd: timerfd_create + epoll_ctl(ADD) + timerfd_settime;
 *           posix: timer_create(SIGEV_SIGNAL) + timer_settime
 *   cancel  twheel: TWHEEL_IOC_CANCEL or its share of a batch;
 *           timerfd: close(); posix: timer_delete()
 *   deliver N timers armed for one absolute deadline D: (all N expirations
 *           consumed - D) / N; twheel: read() of many events, timerfd:
 *           epoll_wait + read per timer, posix: read() of a signalfd.
 *           first_us: D to the first expiration consumed (wake-up latency)
 *   kmem    (Slab + VmallocUsed) of /proc/meminfo after arming N, minus
 *           before, divided by N
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <linux/twheel.h>

#include "ubench.h"

#define UB_CHUNK	TWHEEL_BATCH_MAX
#define UB_READ_EVENTS	4096
#define UB_DELIVER_TAG	0x4000000000000000ULL

enum ub_impl { UB_TW_SINGLE, UB_TW_BATCH, UB_TIMERFD, UB_POSIX, UB_NR };

static const char * const ub_names[UB_NR] = {
	"twheel_single", "twheel_batch", "timerfd", "posix",
};

struct ub_ctx {
	enum ub_impl	impl;
	unsigned long	n;
	uint64_t	*deadline;	/* relative ns */
	int		twfd;		/* /dev/twheel */
	int		epfd;		/* timerfd: epoll */
	int		sigfd;		/* posix: signalfd */
	uint64_t	*id;		/* twheel ids */
	int		*fd;		/* timerfds */
	timer_t		*tid;		/* POSIX timers */
	struct twheel_arm *arm;		/* twheel arm entries */
	struct twheel_cancel *cancel;	/* twheel cancel entries */
};

void ub_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "twheel-ubench: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, ": %s\n", strerror(errno));
	va_end(ap);
	exit(2);
}

void ub_raise_limits(unsigned long n)
{
	struct rlimit rl = { .rlim_cur = n + 256, .rlim_max = n + 256 };

	if (setrlimit(RLIMIT_NOFILE, &rl))
		ub_die("RLIMIT_NOFILE %lu", n + 256);
	if (setrlimit(RLIMIT_SIGPENDING, &rl))
		ub_die("RLIMIT_SIGPENDING %lu", n + 256);
}

/* Slab + VmallocUsed of /proc/meminfo, in bytes. */
static long long ub_kmem(void)
{
	char line[256];
	long long kb, sum = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		ub_die("/proc/meminfo");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Slab: %lld kB", &kb) == 1 ||
		    sscanf(line, "VmallocUsed: %lld kB", &kb) == 1)
			sum += kb;
	}
	fclose(f);
	return sum * 1024;
}

static void ub_tw_fill(struct ub_ctx *c, unsigned long i, uint64_t expires,
		       unsigned int flags, uint64_t cookie)
{
	struct twheel_arm *a = &c->arm[i];

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->flags = flags;
	a->clockid = CLOCK_MONOTONIC;
	a->expires = expires;
	a->cookie = cookie;
}

/* Arm every timer; @abs: one absolute deadline for all, else c->deadline. */
static void ub_arm_all(struct ub_ctx *c, uint64_t abs, int batch)
{
	struct itimerspec its = { };
	unsigned long i, k;
	int tflags = abs ? TFD_TIMER_ABSTIME : 0;
	uint64_t tag = abs ? UB_DELIVER_TAG : 0;

	switch (c->impl) {
	case UB_TW_SINGLE:
	case UB_TW_BATCH:
		for (i = 0; i < c->n; i++)
			ub_tw_fill(c, i, abs ? abs : c->deadline[i],
				   abs ? TWHEEL_ARM_ABS : 0, tag | i);
		if (!batch) {
			for (i = 0; i < c->n; i++) {
				if (ioctl(c->twfd, TWHEEL_IOC_ARM, &c->arm[i]))
					ub_die("TWHEEL_IOC_ARM %lu", i);
				c->id[i] = c->arm[i].id;
			}
			break;
		}
		for (i = 0; i < c->n; i += k) {
			struct twheel_batch b = {
				.size = sizeof(b),
				.entry_size = sizeof(struct twheel_arm),
				.entries = (uintptr_t)&c->arm[i],
			};

			k = c->n - i < UB_CHUNK ? c->n - i : UB_CHUNK;
			b.count = k;
			if (ioctl(c->twfd, TWHEEL_IOC_ARM_BATCH, &b) != (int)k)
				ub_die("TWHEEL_IOC_ARM_BATCH at %lu", i);
		}
		for (i = 0; i < c->n; i++)
			c->id[i] = c->arm[i].id;
		break;
	case UB_TIMERFD:
		for (i = 0; i < c->n; i++) {
			struct epoll_event ev = {
				.events = EPOLLIN,
				.data.u64 = tag | i,
			};
			int fd = timerfd_create(CLOCK_MONOTONIC,
						TFD_NONBLOCK | TFD_CLOEXEC);

			if (fd < 0 || epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev))
				ub_die("timerfd %lu", i);
			its.it_value = ub_ts(abs ? abs : c->deadline[i]);
			if (timerfd_settime(fd, tflags, &its, NULL))
				ub_die("timerfd_settime %lu", i);
			c->fd[i] = fd;
		}
		break;
	case UB_POSIX:
		for (i = 0; i < c->n; i++) {
			struct sigevent sev = {
				.sigev_notify = SIGEV_SIGNAL,
				.sigev_signo = SIGRTMIN,
				.sigev_value.sival_int = (int)((tag ? 1U << 30 : 0) | i),
			};

			if (timer_create(CLOCK_MONOTONIC, &sev, &c->tid[i]))
				ub_die("timer_create %lu", i);
			its.it_value = ub_ts(abs ? abs : c->deadline[i]);
			if (timer_settime(c->tid[i], abs ? TIMER_ABSTIME : 0,
					  &its, NULL))
				ub_die("timer_settime %lu", i);
		}
		break;
	default:
		break;
	}
}

static void ub_cancel_all(struct ub_ctx *c, int batch)
{
	unsigned long i, k;

	switch (c->impl) {
	case UB_TW_SINGLE:
	case UB_TW_BATCH:
		for (i = 0; i < c->n; i++) {
			memset(&c->cancel[i], 0, sizeof(c->cancel[i]));
			c->cancel[i].size = sizeof(c->cancel[i]);
			c->cancel[i].id = c->id[i];
		}
		if (!batch) {
			for (i = 0; i < c->n; i++)
				ioctl(c->twfd, TWHEEL_IOC_CANCEL, &c->cancel[i]);
			break;
		}
		for (i = 0; i < c->n; i += k) {
			struct twheel_batch b = {
				.size = sizeof(b),
				.entry_size = sizeof(struct twheel_cancel),
				.entries = (uintptr_t)&c->cancel[i],
			};

			k = c->n - i < UB_CHUNK ? c->n - i : UB_CHUNK;
			b.count = k;
			if (ioctl(c->twfd, TWHEEL_IOC_CANCEL_BATCH, &b) < 0)
				ub_die("TWHEEL_IOC_CANCEL_BATCH at %lu", i);
		}
		break;
	case UB_TIMERFD:
		for (i = 0; i < c->n; i++)
			close(c->fd[i]);
		break;
	case UB_POSIX:
		for (i = 0; i < c->n; i++)
			timer_delete(c->tid[i]);
		break;
	default:
		break;
	}
}

/*
 * Consume N tagged expirations; returns the time the last was consumed and
 * stores in @first the time the first one was.
 */
static uint64_t ub_consume(struct ub_ctx *c, uint64_t *first)
{
	static struct twheel_event tev[UB_READ_EVENTS];
	static struct epoll_event eev[UB_READ_EVENTS];
	static struct signalfd_siginfo sev[1024];
	unsigned long got = 0;
	uint64_t v;
	ssize_t r;
	int i, k;

	while (got < c->n) {
		switch (c->impl) {
		case UB_TW_SINGLE:
		case UB_TW_BATCH:
			r = read(c->twfd, tev, sizeof(tev));
			if (r < 0)
				ub_die("read /dev/twheel");
			for (i = 0; i < r / (ssize_t)sizeof(tev[0]); i++)
				got += !!(tev[i].cookie & UB_DELIVER_TAG);
			break;
		case UB_TIMERFD:
			k = epoll_wait(c->epfd, eev, UB_READ_EVENTS, -1);
			for (i = 0; i < k; i++) {
				if (read(c->fd[eev[i].data.u64 & ~UB_DELIVER_TAG],
					 &v, sizeof(v)) == sizeof(v))
					got += !!(eev[i].data.u64 & UB_DELIVER_TAG);
			}
			break;
		case UB_POSIX:
			r = read(c->sigfd, sev, sizeof(sev));
			if (r < 0)
				ub_die("read signalfd");
			for (i = 0; i < r / (ssize_t)sizeof(sev[0]); i++)
				got += !!(sev[i].ssi_int & (1U << 30));
			break;
		default:
			return 0;
		}
		if (got && !*first)
			*first = ub_now();
	}
	return ub_now();
}

static void ub_setup(struct ub_ctx *c)
{
	sigset_t set;

	c->id = ub_alloc(c->n, sizeof(*c->id));
	c->fd = ub_alloc(c->n, sizeof(*c->fd));
	c->tid = ub_alloc(c->n, sizeof(*c->tid));
	c->arm = ub_alloc(c->n, sizeof(*c->arm));
	c->cancel = ub_alloc(c->n, sizeof(*c->cancel));
	c->twfd = -1;
	c->epfd = -1;
	c->sigfd = -1;
	switch (c->impl) {
	case UB_TW_SINGLE:
	case UB_TW_BATCH:
		c->twfd = open(UB_DEV, O_RDWR | O_CLOEXEC);
		if (c->twfd < 0)
			ub_die(UB_DEV);
		break;
	case UB_TIMERFD:
		c->epfd = epoll_create1(EPOLL_CLOEXEC);
		break;
	case UB_POSIX:
		sigemptyset(&set);
		sigaddset(&set, SIGRTMIN);
		sigprocmask(SIG_BLOCK, &set, NULL);
		c->sigfd = signalfd(-1, &set, SFD_CLOEXEC);
		break;
	default:
		break;
	}
}

static int ub_ops_main(int argc, char **argv)
{
	struct ub_ctx c = { };
	uint64_t t0, t_arm, t_cancel, dl, done, first = 0, seed;
	long long k0, k1;
	unsigned long i;
	int batch, late;

	if (argc != 5)
		return 1;
	for (c.impl = 0; c.impl < UB_NR; c.impl++)
		if (!strcmp(argv[2], ub_names[c.impl]))
			break;
	c.n = strtoul(argv[3], NULL, 0);
	seed = strtoull(argv[4], NULL, 0) * 0x9E3779B97F4A7C15ULL + 1;
	if (c.impl == UB_NR || !c.n)
		return 1;
	batch = c.impl == UB_TW_BATCH;
	ub_raise_limits(c.n);
	ub_setup(&c);
	c.deadline = ub_alloc(c.n, sizeof(*c.deadline));
	for (i = 0; i < c.n; i++)
		c.deadline[i] = UB_MIN_NS + ub_rand(&seed) % UB_SPAN_NS;

	/* warm-up: one-time costs (TCG translation, first fd table growth) */
	i = c.n;
	c.n = i < 1000 ? i : 1000;
	ub_arm_all(&c, 0, batch);
	ub_cancel_all(&c, batch);
	c.n = i;

	k0 = ub_kmem();
	t0 = ub_now();
	ub_arm_all(&c, 0, batch);
	t_arm = ub_now() - t0;
	k1 = ub_kmem();
	t0 = ub_now();
	ub_cancel_all(&c, batch);
	t_cancel = ub_now() - t0;

	/* delivery: one absolute deadline, well after arming ends */
	dl = ub_now() + (3 * t_arm > 20000000 ? 3 * t_arm : 20000000);
	ub_arm_all(&c, dl, batch);
	late = ub_now() > dl;
	done = ub_consume(&c, &first);
	if (c.impl == UB_TIMERFD || c.impl == UB_POSIX)
		ub_cancel_all(&c, batch);	/* release fds and timers */

	printf("RESULT user impl=%s n=%lu", ub_names[c.impl], c.n);
	printf(" arm_ns=%.1f cancel_ns=%.1f deliver_ns=%.1f",
	       (double)t_arm / c.n, (double)t_cancel / c.n,
	       (double)(done - dl) / c.n);
	printf(" kmem_bytes_per_timer=%.1f late_arm=%d first_us=%.1f\n",
	       (double)(k1 - k0) / c.n, late, (double)(first - dl) / 1e3);
	return 0;
}

int main(int argc, char **argv)
{
	int ret = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "ops"))
		ret = ub_ops_main(argc, argv);
	else if (argc >= 2 && !strcmp(argv[1], "accuracy"))
		ret = ub_acc_main(argc, argv);
	else if (argc >= 2 && !strcmp(argv[1], "idle"))
		ret = ub_idle_main(argc, argv);
	if (ret == 1)
		fprintf(stderr,
			"usage: twheel-ubench ops IMPL N SEED | accuracy N SEED | idle SECONDS\n");
	return ret;
}
