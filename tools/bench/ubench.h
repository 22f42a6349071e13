/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel-ubench: userspace benchmark of /dev/twheel against the timers
 * programs use from userspace (timerfd, POSIX timers, io_uring timeouts,
 * libuv). Documentation/bench.rst says what each timed path includes.
 *
 * Files, each with one job, in one direction (no file calls back into one
 * that calls it):
 *
 *	ubench_main.c		main(): picks a mode
 *	ubench_ops.c		the ops mode: the peer table and the driver that
 *				times arm, cancel, delivery, memory and CPU
 *	ubench_<peer>.c		one struct ub_peer each: how that peer arms,
 *				cancels and consumes N timers, nothing timed
 *	ubench_acc.c		the accuracy and idle modes
 *	ubench_ring.c		the twheel_ring peer and its burst
 *	ubench_burst.c		the burst mode: one deadline for many timers,
 *				beside a timerfd control (ubench_sampler.c)
 *	ubench_exact.c		the exact mode: lateness against the horizon,
 *				every peer in its own thread
 *	ubench_common.c		helpers for all of the above
 *
 * A new peer is one more ubench_<peer>.c defining a struct ub_peer and one
 * more line in ub_peers[] (ubench_ops.c).
 *
 * Every result is printed as one line "RESULT kind key=value ..." on stdout;
 * tools/bench/report.py collects them.
 */
#ifndef TWHEEL_UBENCH_H
#define TWHEEL_UBENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define UB_MIN_NS	1000000ULL		/* 1 ms */
#define UB_SPAN_NS	3600000000000ULL	/* 1 h */
#define UB_DEV		"/dev/twheel"
#define UB_STATS	"/sys/kernel/debug/twheel/stats"
#define UB_BUSY		"/sys/kernel/debug/twheel_bench/busy"
#define UB_EVENTS	4096	/* events consumed per read/epoll_wait/peek */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * One run of one peer: N timers, their deadlines and the phase they belong
 * to. The driver fills @dl, @abs, @order and @gen before each phase; the
 * peer counts what it consumed with ub_got().
 *
 * @n:		timers
 * @dl:		deadlines, CLOCK_MONOTONIC ns: relative to the arm call, or
 *		absolute when @abs is set
 * @abs:	@dl is absolute
 * @order:	cancel order: a permutation of 0..@n-1
 * @gen:	phase number; peers that can tag an expiration with it count
 *		only those of the current phase
 * @got:	expirations of this phase consumed so far
 * @first:	ub_now() when the first of them was consumed
 * @priv:	the peer's own state (setup to teardown)
 */
struct ub_run {
	unsigned long	n;
	uint64_t	*dl;
	int		abs;
	uint32_t	*order;
	uint32_t	gen;
	unsigned long	got;
	uint64_t	first;
	void		*priv;
};

/*
 * How one peer arms, cancels and consumes timers. Nothing here reads the
 * clock for the measurement: ubench_ops.c times each call.
 *
 * @name:	the impl column of the results
 * @setup:	untimed: per-run state (files, rings, loops, fds to re-arm)
 * @arm:	arm timer i for @dl[i], for every i < @n
 * @cancel:	cancel every pending timer, in @order
 * @consume:	return once all @n timers of phase @gen expired and were
 *		consumed (ub_got())
 * @release:	optional, untimed: what the peer's pattern frees after the
 *		timers fired (timerfd and POSIX timers: the fd / timer)
 * @teardown:	untimed: undo @setup
 * @describe:	optional: extra "key=value" text for the result line
 */
struct ub_peer {
	const char	*name;
	void		(*setup)(struct ub_run *r);
	void		(*arm)(struct ub_run *r);
	void		(*cancel)(struct ub_run *r);
	void		(*consume)(struct ub_run *r);
	void		(*release)(struct ub_run *r);
	void		(*teardown)(struct ub_run *r);
	const char	*(*describe)(struct ub_run *r);
};

extern const struct ub_peer ub_peer_twheel_single, ub_peer_twheel_batch;
extern const struct ub_peer ub_peer_timerfd, ub_peer_timerfd_rearm;
extern const struct ub_peer ub_peer_timerfd_epollet, ub_peer_posix;
extern const struct ub_peer ub_peer_io_uring, ub_peer_libuv;
extern const struct ub_peer ub_peer_twheel_ring;

static inline uint64_t ub_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline struct timespec ub_ts(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = ns / 1000000000ULL,
		.tv_nsec = ns % 1000000000ULL,
	};

	return ts;
}

/* xorshift64*: the same sequence for every implementation. */
static inline uint64_t ub_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static inline void *ub_alloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		perror("calloc");
		exit(2);
	}
	return p;
}

/*
 * ub_alloc() of a staging buffer a peer reuses for every batch it hands to
 * the kernel, with each of its pages written once here, at set-up: no timed
 * phase then faults it in (liburing maps the SQ ring with MAP_POPULATE for
 * the same reason). Volatile stores: a memset() of calloc()'s memory is
 * left out by the compiler.
 */
static inline void *ub_alloc_warm(size_t n, size_t size)
{
	volatile char *p = ub_alloc(n, size);
	size_t off;

	for (off = 0; off < n * size; off += 4096)
		p[off] = 0;
	/* @p need not be page-aligned: the last page too */
	if (n && size)
		p[n * size - 1] = 0;
	return (void *)p;
}

/* @k more expirations of this phase consumed. */
static inline void ub_got(struct ub_run *r, unsigned long k)
{
	if (k && !r->got)
		r->first = ub_now();
	r->got += k;
}

/*
 * One burst (ubench_burst.c): @n timers of one peer, armed for one absolute
 * deadline @deadline (CLOCK_MONOTONIC ns), timer i with cookie i, consumed
 * as that peer consumes them. @first and @last: ub_now() right after the
 * pass that saw the first and the last record (0: none); @early: records
 * seen in a pass that ended before @deadline; @dup: records beyond the first
 * of a timer; @bad: records with an index, cookie or deadline never armed;
 * @passes: passes that found records; @sleeps: waits on an empty queue;
 * @arm_ns: how long arming took; @late_arm: it ended after @deadline.
 */
struct ub_burst {
	unsigned long	n;
	uint64_t	deadline;
	uint64_t	first;
	uint64_t	last;
	uint8_t		*seen;
	unsigned long	distinct;
	unsigned long	dup;
	unsigned long	bad;
	unsigned long	early;
	unsigned long	passes;
	unsigned long	sleeps;
	uint64_t	arm_ns;
	int		late_arm;
	char		desc[96];
};

#define UB_BURST_LEAD	2000000000ULL	/* arm 2 s before the deadline */
#define UB_BURST_WAIT	30000000000ULL	/* give up 30 s after it */

void ub_burst_saw(struct ub_burst *b, uint64_t i, uint64_t cookie,
		  uint64_t deadline);
void ub_burst_pass(struct ub_burst *b, unsigned long before, uint64_t now);
void ub_burst_ring(struct ub_burst *b);
void ub_burst_abi1(struct ub_burst *b);

struct ub_sampler;
struct ub_sampler *ub_sampler_start(int cpu);
uint64_t ub_sampler_stop(struct ub_sampler *s, uint64_t from, uint64_t to,
			 unsigned long *nr);

void ub_die(const char *fmt, ...);
void ub_raise_limits(unsigned long n);
long long ub_kmem(void);
long long ub_busy_ns(void);
int ub_ops_main(int argc, char **argv);
int ub_peers_main(void);
int ub_acc_main(int argc, char **argv);
int ub_idle_main(int argc, char **argv);
int ub_burst_main(int argc, char **argv);
int ub_exact_main(int argc, char **argv);

#endif /* TWHEEL_UBENCH_H */
