// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-ubench exact K HMAX_MS SPREAD_MS: how late each userspace peer
 * delivers a timer against the horizon it was armed for.
 *
 * Every peer runs in its own thread, all at once, on the same schedule: K
 * steps spread over SPREAD_MS with seeded random gaps (so the arms land at
 * every phase of the tick); at each step the thread arms one timer at each
 * horizon (10 ms, 100 ms, 1 s, 10 s, 60 s, up to HMAX_MS), and between
 * steps it waits for and consumes expirations as that peer's documentation
 * says a program should. Lateness = CLOCK_MONOTONIC read right after the
 * wait that returned the expiration, and after the expirations it
 * consumes were read from the peer's queue (what the program sees; a
 * clock read before would stamp one that arrived in between as early) -
 * deadline.
 *
 * Each arm is read against the peer's own clock:
 *
 *   twheel_ring  CLOCK_MONOTONIC: deadline = ub_now() before the arm +
 *                horizon, one TWHEEL_OP_ARM sqe per timer with
 *                TWHEEL_ARM_ABS, one twheel_submit() per step; delivery:
 *                passes over the mapped ring, twheel_wait() when empty
 *   twheel_abi1  the same deadline through TWHEEL_IOC_ARM (TWHEEL_ARM_ABS),
 *                one ioctl per timer; delivery: poll() + read()
 *   timerfd      one timerfd per timer, created and added to epoll up
 *                front, timerfd_settime(TFD_TIMER_ABSTIME); delivery:
 *                epoll_wait() + read() of each ready fd
 *   io_uring     IORING_OP_TIMEOUT with IORING_TIMEOUT_ABS, one submit per
 *                step (SINGLE_ISSUER | DEFER_TASKRUN when the kernel has
 *                them); delivery: io_uring_wait_cqe_timeout() + peek batch
 *   libuv        its own clock is the loop's millisecond time: after
 *                uv_update_time(), uv_timer_start(horizon in ms); deadline
 *                = (uv_now() + ms) ms, "late_ns" against it; "req_ns"
 *                against ub_now() before the arm + horizon (libuv's loop
 *                time is truncated to the millisecond, so it can fire up to
 *                1 ms before what was asked)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/timerfd.h>
#include <linux/twheel.h>
#include <twheel.h>
#include <uv.h>

#include "ubench.h"

static const unsigned int ux_horizons_ms[] = { 10, 100, 1000, 10000, 60000 };

#define UX_NR_H		ARRAY_SIZE(ux_horizons_ms)
#define UX_LEAD_NS	200000000ULL	/* the schedule starts 200 ms ahead */

struct ux_run;

/*
 * One peer: @setup in the peer's thread, @arm timer @i for @h_ns from now
 * (sets @due[i], and @req[i] when its clock is not CLOCK_MONOTONIC ns),
 * @flush after the arms of a step, @wait up to @timeout_ns (-1: until one
 * expiration) and consume what is ready with ux_fired().
 */
struct ux_peer {
	const char	*name;
	const char	*clock;
	void		(*setup)(struct ux_run *x);
	void		(*arm)(struct ux_run *x, unsigned long i, uint64_t h_ns);
	void		(*flush)(struct ux_run *x);
	void		(*wait)(struct ux_run *x, int64_t timeout_ns);
};

struct ux_run {
	const struct ux_peer	*p;
	unsigned long		n;	/* K * nr_h timers */
	unsigned int		nr_h;
	const uint64_t		*off;	/* step times after start */
	uint64_t		start;
	uint64_t		*due;	/* deadline on the peer's own clock */
	uint64_t		*req;	/* ub_now() at the arm + horizon */
	int64_t			*late;
	int64_t			*late_req;
	unsigned long		got;
	void			*priv;
};

/* Expiration of timer @i seen at @now. */
static void ux_fired(struct ux_run *x, unsigned long i, uint64_t now)
{
	if (i >= x->n || x->late[i] != INT64_MIN)
		return;
	x->late[i] = (int64_t)(now - x->due[i]);
	x->late_req[i] = (int64_t)(now - x->req[i]);
	x->got++;
}

static int ux_ms(int64_t timeout_ns)
{
	return timeout_ns < 0 ? -1 : (int)((timeout_ns + 999999) / 1000000);
}

/* ------------------------------------------------------------ twheel_ring */

struct ux_ring {
	struct twheel		*tw;
	struct twheel_ring	ring;
	struct twheel_sqe	sqe[UX_NR_H];
	unsigned int		queued;
};

static void ux_ring_setup(struct ux_run *x)
{
	struct ux_ring *s = ub_alloc(1, sizeof(*s));
	unsigned int e = 64;

	while (e < x->n)
		e *= 2;
	if (twheel_open(NULL, 0, &s->tw) ||
	    twheel_ring_setup(s->tw, x->n, e, &s->ring))
		ub_die("twheel_ring_setup");
	x->priv = s;
}

static void ux_ring_arm(struct ux_run *x, unsigned long i, uint64_t h)
{
	struct ux_ring *s = x->priv;
	struct twheel_sqe *q = &s->sqe[s->queued++];

	x->due[i] = ub_now() + h;
	x->req[i] = x->due[i];
	twheel_sqe_arm(q, i, x->due[i], 0, i);
	q->flags = TWHEEL_ARM_ABS;
	q->clockid = CLOCK_MONOTONIC;
}

static void ux_ring_flush(struct ux_run *x)
{
	struct ux_ring *s = x->priv;
	unsigned int done = 0;

	if (twheel_submit(s->tw, s->sqe, s->queued, &done) != (int)s->queued)
		ub_die("TWHEEL_IOC_SUBMIT");
	s->queued = 0;
}

static void ux_ring_wait(struct ux_run *x, int64_t timeout_ns)
{
	struct ux_ring *s = x->priv;
	unsigned int head, k, ready;
	uint64_t now;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		/*
		 * The tail, then the clock: every record consumed here was
		 * written before @now. A clock read before the tail would
		 * stamp a record the tick wrote in between as early.
		 */
		ready = twheel_ring_ready(&s->ring);
		now = ub_now();
		head = *s->ring.khead;
		for (k = 0; k < ready; k++)
			ux_fired(x, twheel_ring_cqe(&s->ring, head + k)->cookie,
				 now);
		if (k) {
			twheel_ring_advance(&s->ring, k);
			return;
		}
		if (twheel_ring_overflowed(&s->ring)) {
			twheel_ring_flush(s->tw, NULL);
			continue;
		}
		if (pass == 0)
			twheel_wait(s->tw, ux_ms(timeout_ns));
	}
}

/* ------------------------------------------------------------ twheel_abi1 */

static void ux_abi1_setup(struct ux_run *x)
{
	int *fd = ub_alloc(1, sizeof(*fd));

	*fd = open(UB_DEV, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (*fd < 0)
		ub_die(UB_DEV);
	x->priv = fd;
}

static void ux_abi1_arm(struct ux_run *x, unsigned long i, uint64_t h)
{
	struct twheel_arm a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.flags = TWHEEL_ARM_ABS;
	a.clockid = CLOCK_MONOTONIC;
	a.cookie = i;
	x->due[i] = ub_now() + h;
	x->req[i] = x->due[i];
	a.expires = x->due[i];
	if (ioctl(*(int *)x->priv, TWHEEL_IOC_ARM, &a))
		ub_die("TWHEEL_IOC_ARM");
}

static void ux_abi1_wait(struct ux_run *x, int64_t timeout_ns)
{
	static __thread struct twheel_event ev[256];
	struct pollfd pfd = { .fd = *(int *)x->priv, .events = POLLIN };
	ssize_t k, i;
	uint64_t now;

	if (poll(&pfd, 1, ux_ms(timeout_ns)) <= 0)
		return;
	k = read(pfd.fd, ev, sizeof(ev));
	now = ub_now();
	for (i = 0; i < k / (ssize_t)sizeof(ev[0]); i++)
		ux_fired(x, ev[i].cookie, now);
}

/* ------------------------------------------------------------ timerfd */

struct ux_tfd {
	int	ep;
	int	*fd;
};

static void ux_tfd_setup(struct ux_run *x)
{
	struct ux_tfd *s = ub_alloc(1, sizeof(*s));
	unsigned long i;

	s->fd = ub_alloc(x->n, sizeof(*s->fd));
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	for (i = 0; i < x->n; i++) {
		struct epoll_event e = { .events = EPOLLIN, .data.u64 = i };

		s->fd[i] = timerfd_create(CLOCK_MONOTONIC,
					  TFD_NONBLOCK | TFD_CLOEXEC);
		if (s->fd[i] < 0 || epoll_ctl(s->ep, EPOLL_CTL_ADD, s->fd[i], &e))
			ub_die("timerfd %lu", i);
	}
	x->priv = s;
}

static void ux_tfd_arm(struct ux_run *x, unsigned long i, uint64_t h)
{
	struct ux_tfd *s = x->priv;
	struct itimerspec its = { };

	x->due[i] = ub_now() + h;
	x->req[i] = x->due[i];
	its.it_value = ub_ts(x->due[i]);
	if (timerfd_settime(s->fd[i], TFD_TIMER_ABSTIME, &its, NULL))
		ub_die("timerfd_settime");
}

static void ux_tfd_wait(struct ux_run *x, int64_t timeout_ns)
{
	static __thread struct epoll_event ev[256];
	struct ux_tfd *s = x->priv;
	uint64_t now, v;
	int k, i;

	k = epoll_wait(s->ep, ev, 256, ux_ms(timeout_ns));
	now = ub_now();
	for (i = 0; i < k; i++)
		if (read(s->fd[ev[i].data.u64], &v, sizeof(v)) == sizeof(v))
			ux_fired(x, ev[i].data.u64, now);
}

/* ------------------------------------------------------------ io_uring */

struct ux_ur {
	struct io_uring			ring;
	struct __kernel_timespec	*ts;
};

static void ux_ur_setup(struct ux_run *x)
{
	static const unsigned int flags[] = {
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG, 0,
	};
	struct ux_ur *s = ub_alloc(1, sizeof(*s));
	unsigned int cq = 64, i;
	int ret = -EINVAL;

	while (cq < x->n && cq < 65536)
		cq *= 2;
	s->ts = ub_alloc(x->n, sizeof(*s->ts));
	for (i = 0; i < ARRAY_SIZE(flags) && ret; i++) {
		struct io_uring_params p;

		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_CQSIZE | flags[i];
		p.cq_entries = cq;
		ret = io_uring_queue_init_params(64, &s->ring, &p);
	}
	if (ret) {
		errno = -ret;
		ub_die("io_uring_queue_init_params");
	}
	x->priv = s;
}

static void ux_ur_arm(struct ux_run *x, unsigned long i, uint64_t h)
{
	struct ux_ur *s = x->priv;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ring);

	if (!sqe)
		ub_die("io_uring_get_sqe");
	x->due[i] = ub_now() + h;
	x->req[i] = x->due[i];
	s->ts[i].tv_sec = x->due[i] / 1000000000ULL;
	s->ts[i].tv_nsec = x->due[i] % 1000000000ULL;
	io_uring_prep_timeout(sqe, &s->ts[i], 0, IORING_TIMEOUT_ABS);
	io_uring_sqe_set_data64(sqe, i);
}

static void ux_ur_flush(struct ux_run *x)
{
	struct ux_ur *s = x->priv;

	if (io_uring_submit(&s->ring) < 0)
		ub_die("io_uring_submit");
}

static void ux_ur_wait(struct ux_run *x, int64_t timeout_ns)
{
	static __thread struct io_uring_cqe *cqe[256];
	struct ux_ur *s = x->priv;
	struct __kernel_timespec ts;
	unsigned int k, i;
	uint64_t now;
	int ret;

	ts.tv_sec = timeout_ns < 0 ? 0 : timeout_ns / 1000000000LL;
	ts.tv_nsec = timeout_ns < 0 ? 0 : timeout_ns % 1000000000LL;
	ret = io_uring_wait_cqe_timeout(&s->ring, cqe,
					timeout_ns < 0 ? NULL : &ts);
	if (ret && ret != -ETIME && ret != -EINTR) {
		errno = -ret;
		ub_die("io_uring_wait_cqe_timeout");
	}
	/* The CQEs, then the clock: each was posted before @now. */
	k = io_uring_peek_batch_cqe(&s->ring, cqe, 256);
	now = ub_now();
	for (i = 0; i < k; i++)
		if (cqe[i]->res == -ETIME)
			ux_fired(x, cqe[i]->user_data, now);
	io_uring_cq_advance(&s->ring, k);
}

/* ------------------------------------------------------------ libuv */

struct ux_uv {
	uv_loop_t	loop;
	uv_timer_t	*t;
	uv_timer_t	wake;
	struct ux_run	*x;
};

static void ux_uv_setup(struct ux_run *x)
{
	struct ux_uv *s = ub_alloc(1, sizeof(*s));
	unsigned long i;

	s->t = ub_alloc(x->n, sizeof(*s->t));
	s->x = x;
	if (uv_loop_init(&s->loop))
		ub_die("uv_loop_init");
	for (i = 0; i < x->n; i++) {
		uv_timer_init(&s->loop, &s->t[i]);
		s->t[i].data = s;
	}
	uv_timer_init(&s->loop, &s->wake);
	x->priv = s;
}

static void ux_uv_fired(uv_timer_t *t)
{
	struct ux_uv *s = t->data;

	ux_fired(s->x, t - s->t, ub_now());
}

static void ux_uv_arm(struct ux_run *x, unsigned long i, uint64_t h)
{
	struct ux_uv *s = x->priv;
	uint64_t ms = (h + 999999) / 1000000;

	x->req[i] = ub_now() + h;
	uv_update_time(&s->loop);
	x->due[i] = (uv_now(&s->loop) + ms) * 1000000ULL;
	if (uv_timer_start(&s->t[i], ux_uv_fired, ms, 0))
		ub_die("uv_timer_start");
}

static void ux_uv_nop(uv_timer_t *t)
{
	(void)t;
}

static void ux_uv_wait(struct ux_run *x, int64_t timeout_ns)
{
	struct ux_uv *s = x->priv;

	if (timeout_ns >= 0)
		uv_timer_start(&s->wake, ux_uv_nop, ux_ms(timeout_ns), 0);
	uv_run(&s->loop, UV_RUN_ONCE);
	uv_timer_stop(&s->wake);
}

static const struct ux_peer ux_peers[] = {
	{ "twheel_ring", "monotonic", ux_ring_setup, ux_ring_arm,
	  ux_ring_flush, ux_ring_wait },
	{ "twheel_abi1", "monotonic", ux_abi1_setup, ux_abi1_arm, NULL,
	  ux_abi1_wait },
	{ "timerfd", "monotonic", ux_tfd_setup, ux_tfd_arm, NULL,
	  ux_tfd_wait },
	{ "io_uring", "monotonic", ux_ur_setup, ux_ur_arm, ux_ur_flush,
	  ux_ur_wait },
	{ "libuv", "uv_ms", ux_uv_setup, ux_uv_arm, NULL, ux_uv_wait },
};

#define UX_NR_P		ARRAY_SIZE(ux_peers)

static void *ux_thread(void *arg)
{
	struct ux_run *x = arg;
	unsigned long k = x->n / x->nr_h, step = 0;
	unsigned int h;
	uint64_t now, last_arm = 0;

	x->p->setup(x);
	while (x->got < x->n) {
		now = ub_now();
		if (step < k && now >= x->start + x->off[step]) {
			for (h = 0; h < x->nr_h; h++)
				x->p->arm(x, step * x->nr_h + h,
					  ux_horizons_ms[h] * 1000000ULL);
			if (x->p->flush)
				x->p->flush(x);
			step++;
			last_arm = ub_now();
			continue;
		}
		/* 60 s past the last deadline: give up */
		if (step >= k && now - last_arm > ux_horizons_ms[x->nr_h - 1] *
		    1000000ULL + 60000000000ULL)
			break;
		x->p->wait(x, step < k ? (int64_t)(x->start + x->off[step] - now)
					: 1000000000LL);
	}
	return NULL;
}

static void ux_print(const char *key, const int64_t *v, unsigned long k,
		     unsigned int nr_h, unsigned int h)
{
	unsigned long s;

	printf(" %s=", key);
	for (s = 0; s < k; s++)
		printf("%s%lld", s ? "," : "", (long long)v[s * nr_h + h]);
}

int ub_exact_main(int argc, char **argv)
{
	struct ux_run x[UX_NR_P];
	pthread_t t[UX_NR_P];
	unsigned long k, i, n;
	unsigned int hmax, spread, nr_h = 0, h, p;
	uint64_t *off, seed = 0x5eedULL, acc = 0, start;

	if (argc != 5)
		return 1;
	k = strtoul(argv[2], NULL, 0);
	hmax = strtoul(argv[3], NULL, 0);
	spread = strtoul(argv[4], NULL, 0);
	while (nr_h < UX_NR_H && ux_horizons_ms[nr_h] <= hmax)
		nr_h++;
	if (!k || !nr_h)
		return 1;
	n = k * nr_h;
	ub_raise_limits(UX_NR_P * n);
	off = ub_alloc(k, sizeof(*off));
	for (i = 0; i < k; i++) {
		off[i] = acc;
		acc += ub_rand(&seed) % (2ULL * spread * 1000000ULL / k + 1);
	}
	start = ub_now() + UX_LEAD_NS;
	for (p = 0; p < UX_NR_P; p++) {
		memset(&x[p], 0, sizeof(x[p]));
		x[p].p = &ux_peers[p];
		x[p].n = n;
		x[p].nr_h = nr_h;
		x[p].off = off;
		x[p].start = start;
		x[p].due = ub_alloc(n, sizeof(uint64_t));
		x[p].req = ub_alloc(n, sizeof(uint64_t));
		x[p].late = ub_alloc(n, sizeof(int64_t));
		x[p].late_req = ub_alloc(n, sizeof(int64_t));
		for (i = 0; i < n; i++)
			x[p].late[i] = INT64_MIN;
		if (pthread_create(&t[p], NULL, ux_thread, &x[p]))
			ub_die("pthread_create");
	}
	for (p = 0; p < UX_NR_P; p++)
		pthread_join(t[p], NULL);
	for (p = 0; p < UX_NR_P; p++) {
		for (h = 0; h < nr_h; h++) {
			printf("RESULT exact tier=user impl=%s h_ms=%u n=%lu clock=%s missing=%lu",
			       x[p].p->name, ux_horizons_ms[h], k,
			       x[p].p->clock, n - x[p].got);
			ux_print("late_ns", x[p].late, k, nr_h, h);
			if (strcmp(x[p].p->clock, "monotonic"))
				ux_print("req_ns", x[p].late_req, k, nr_h, h);
			printf("\n");
		}
	}
	return 0;
}
