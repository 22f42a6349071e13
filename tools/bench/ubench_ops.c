// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-ubench ops IMPL N SEED: the cost per timer of one peer (struct
 * ub_peer, one per ubench_<peer>.c), every peer timed by the same driver:
 *
 *   warm-up  a throw-away run of min(N, 1000) timers through every phase
 *            (QEMU TCG translates a code path the first time it runs),
 *            then UB_SETTLE_MS for deferred frees (RCU, io_uring's exit
 *            work) to land before the memory is read
 *   kmem     (Slab + VmallocUsed + kernel pages mapped: ub_kmem()) after
 *            setup and arming N timers minus before setup, / N
 *   arm      N timers, relative deadlines uniform in 1 ms .. 1 h: wall time
 *            of the peer's arm call / N
 *   cancel   the N pending timers, in a seeded random order: wall time of
 *            the peer's cancel call / N
 *            Arm and cancel are timed in ub_rounds() rounds; arm_ns is the
 *            first round (which also pays what a peer allocates when a
 *            timer is first armed), arm_rounds_ns the median round when
 *            there are several, cancel_ns the median round
 *   equal    N timers armed for one absolute deadline D, consumed: deliver
 *            = (last consumed - D) / N; first_us = first consumed - D;
 *            cpu_equal = guest busy CPU time from before arming to the last
 *            consumed / N; deliver_cpu = the part after arming / N
 *   spread   the same with N deadlines uniform over [D, D + 1 s): cpu_ns
 *            (whole lifecycle, arm + delivery) and deliver_spread_cpu
 *
 * Guest busy CPU time (ub_busy_ns()) is summed over all CPUs: user, system,
 * interrupts and kernel threads (a workqueue or task_work that delivers
 * timers), less the cost of reading it, measured at start.
 */
#define _GNU_SOURCE
#include <string.h>
#include <unistd.h>

#include "ubench.h"

#define UB_WARM_N	1000UL
#define UB_LEAD_NS	20000000ULL	/* at least 20 ms from arm to deadline */
#define UB_SPREAD_NS	1000000000ULL	/* spread deadlines over 1 s */
#define UB_SETTLE_MS	200
/*
 * Rounds of arm and cancel: until about UB_ROUND_OPS timers were armed, at
 * most UB_MAX_ROUNDS; one round at large N, where a round lasts long
 * enough for host noise to average out (and io_uring's cancel, linear in
 * the timers pending, would take minutes).
 */
#define UB_ROUND_OPS	100000UL
#define UB_MAX_ROUNDS	16UL

/* Every peer; one more is one more line (and its ubench_<peer>.c). */
static const struct ub_peer *const ub_peers[] = {
	&ub_peer_twheel_single,
	&ub_peer_twheel_batch,
	&ub_peer_twheel_ring,
	&ub_peer_timerfd,
	&ub_peer_timerfd_rearm,
	&ub_peer_timerfd_epollet,
	&ub_peer_posix,
	&ub_peer_io_uring,
	&ub_peer_libuv,
};

#define UB_NR_PEERS	ARRAY_SIZE(ub_peers)

/* One delivery lifecycle: arm for absolute deadlines, consume them all. */
struct ub_life {
	uint64_t	deadline;	/* D */
	uint64_t	first;		/* first consumed */
	uint64_t	done;		/* last consumed */
	int		late;		/* arming ended after D */
	long long	busy_arm;	/* busy ns while arming */
	long long	busy_all;	/* busy ns, arm to last consumed */
};

static long long ub_busy_cal = -1;	/* busy ns of a ub_busy_ns() pair */

static void ub_calibrate(void)
{
	long long a, b, best = -1;
	int i;

	for (i = 0; i < 5; i++) {
		a = ub_busy_ns();
		b = ub_busy_ns();
		if (a < 0 || b < 0)
			return;
		if (best < 0 || b - a < best)
			best = b - a;
	}
	ub_busy_cal = best;
}

static long long ub_busy_delta(long long a, long long b)
{
	if (a < 0 || b < 0)
		return -1;
	if (ub_busy_cal > 0)
		b -= ub_busy_cal;
	return b > a ? b - a : 0;
}

static void ub_phase(struct ub_run *r, int abs)
{
	r->abs = abs;
	r->gen++;
	r->got = 0;
	r->first = 0;
}

static void ub_life(const struct ub_peer *p, struct ub_run *r, uint64_t lead,
		    uint64_t spread, uint64_t *seed, struct ub_life *l)
{
	long long b0, b1, b2;
	unsigned long i;

	ub_phase(r, 1);
	l->deadline = ub_now() + lead;
	for (i = 0; i < r->n; i++)
		r->dl[i] = l->deadline + (spread ? ub_rand(seed) % spread : 0);
	b0 = ub_busy_ns();
	p->arm(r);
	b1 = ub_busy_ns();
	l->late = ub_now() > l->deadline;
	p->consume(r);
	l->done = ub_now();
	l->first = r->first;
	b2 = ub_busy_ns();
	l->busy_arm = ub_busy_delta(b0, b1);
	l->busy_all = ub_busy_delta(b0, b2);
	if (p->release)
		p->release(r);
}

static unsigned long ub_rounds(unsigned long n)
{
	unsigned long k = UB_ROUND_OPS / n;

	return k < 1 ? 1 : k > UB_MAX_ROUNDS ? UB_MAX_ROUNDS : k;
}

static int ub_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Median of @v[0..@k - 1] (reordered); the upper one of an even count. */
static uint64_t ub_median(uint64_t *v, unsigned long k)
{
	qsort(v, k, sizeof(*v), ub_cmp_u64);
	return v[k / 2];
}

/* Per timer, or -1 when not measured. */
static double ub_per(long long v, unsigned long n)
{
	return v < 0 ? -1 : (double)v / n;
}

static void ub_print(const char *key, double v)
{
	if (v >= 0)
		printf(" %s=%.1f", key, v);
}

/* twheel-ubench peers: the peer names, one per line. */
int ub_peers_main(void)
{
	unsigned long i;

	for (i = 0; i < UB_NR_PEERS; i++)
		printf("%s\n", ub_peers[i]->name);
	return 0;
}

int ub_ops_main(int argc, char **argv)
{
	const struct ub_peer *p = NULL;
	struct ub_run r = { }, w = { };
	struct ub_life eq, sp;
	uint64_t t0, t_arm[UB_MAX_ROUNDS], t_cancel[UB_MAX_ROUNDS], t_first;
	uint64_t lead, seed, slowest;
	unsigned long i, n, k, rounds;
	long long k0, k1 = 0;
	const char *desc;

	if (argc != 5)
		return 1;
	for (i = 0; i < UB_NR_PEERS; i++)
		if (!strcmp(argv[2], ub_peers[i]->name))
			p = ub_peers[i];
	n = strtoul(argv[3], NULL, 0);
	seed = strtoull(argv[4], NULL, 0) * 0x9E3779B97F4A7C15ULL + 1;
	if (!p || !n || n > UINT32_MAX)
		return 1;
	ub_raise_limits(n);
	ub_calibrate();
	r.n = n;
	r.dl = ub_alloc(n, sizeof(*r.dl));
	r.order = ub_alloc(n, sizeof(*r.order));
	for (i = 0; i < n; i++)
		r.order[i] = i;
	for (i = n - 1; i > 0; i--) {
		unsigned long j = ub_rand(&seed) % (i + 1);
		uint32_t t = r.order[i];

		r.order[i] = r.order[j];
		r.order[j] = t;
	}

	/* warm-up, on its own instance */
	w.n = n < UB_WARM_N ? n : UB_WARM_N;
	w.dl = ub_alloc(w.n, sizeof(*w.dl));
	w.order = ub_alloc(w.n, sizeof(*w.order));
	for (i = 0; i < w.n; i++) {
		w.order[i] = w.n - 1 - i;
		w.dl[i] = UB_MIN_NS + ub_rand(&seed) % UB_SPAN_NS;
	}
	p->setup(&w);
	ub_phase(&w, 0);
	p->arm(&w);
	p->cancel(&w);
	ub_life(p, &w, UB_LEAD_NS, 0, &seed, &eq);
	p->teardown(&w);
	usleep(UB_SETTLE_MS * 1000);

	/* arm and cancel, N pending */
	ub_phase(&r, 0);
	for (i = 0; i < n; i++)
		r.dl[i] = UB_MIN_NS + ub_rand(&seed) % UB_SPAN_NS;
	k0 = ub_kmem();
	p->setup(&r);
	rounds = ub_rounds(n);
	for (k = 0; k < rounds; k++) {
		ub_phase(&r, 0);
		t0 = ub_now();
		p->arm(&r);
		t_arm[k] = ub_now() - t0;
		if (!k)
			k1 = ub_kmem();
		t0 = ub_now();
		p->cancel(&r);
		t_cancel[k] = ub_now() - t0;
	}
	t_first = t_arm[0];
	slowest = 0;
	for (k = 0; k < rounds; k++)
		slowest = t_arm[k] > slowest ? t_arm[k] : slowest;

	/* delivery: deadlines well after arming ends, equal then spread */
	lead = 3 * slowest > UB_LEAD_NS ? 3 * slowest : UB_LEAD_NS;
	ub_life(p, &r, lead, 0, &seed, &eq);
	ub_life(p, &r, lead, UB_SPREAD_NS, &seed, &sp);
	desc = p->describe ? p->describe(&r) : NULL;

	printf("RESULT user impl=%s n=%lu", p->name, n);
	printf(" arm_ns=%.1f cancel_ns=%.1f deliver_ns=%.1f",
	       (double)t_first / n, (double)ub_median(t_cancel, rounds) / n,
	       (double)(eq.done - eq.deadline) / n);
	if (rounds > 1)
		printf(" arm_rounds_ns=%.1f",
		       (double)ub_median(t_arm, rounds) / n);
	printf(" rounds=%lu", rounds);
	printf(" kmem_bytes_per_timer=%.1f late_arm=%d first_us=%.1f",
	       (double)(k1 - k0) / n, eq.late || sp.late,
	       ((double)eq.first - (double)eq.deadline) / 1e3);
	ub_print("cpu_ns", ub_per(sp.busy_all, n));
	ub_print("cpu_equal_ns", ub_per(eq.busy_all, n));
	ub_print("deliver_cpu_ns", eq.busy_all < 0 ? -1 :
		 (double)(eq.busy_all - eq.busy_arm) / n);
	ub_print("deliver_spread_cpu_ns", sp.busy_all < 0 ? -1 :
		 (double)(sp.busy_all - sp.busy_arm) / n);
	ub_print("busy_cal_ns", ub_busy_cal < 0 ? -1 : (double)ub_busy_cal);
	printf("%s%s\n", desc ? " " : "", desc ? desc : "");
	p->teardown(&r);
	return 0;
}
