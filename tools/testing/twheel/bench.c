// SPDX-License-Identifier: GPL-2.0
/*
 * Host benchmark: the pure twheel core against a binary min-heap, the
 * structure of java.util.Timer, ScheduledThreadPoolExecutor and libevent
 * (an array heap whose entries know their index, so cancel is O(log n)).
 *
 *   bench -i wheel|heap -n PENDING [-k OPS] [-s SEED]
 *
 * PENDING timers with random deadlines over 1 ms .. 1 h (1 ms ticks) are
 * armed first (not measured). Then three phases, each measured:
 *   arm     OPS more timers with random deadlines (1 ms .. 1 h)
 *   cancel  those OPS timers, in random order
 *   expire  event loop, tickless: jump to the next event and collect the
 *           expired timers until OPS of them expired (the wheel's cascades
 *           in that window are part of the cost)
 * Prints one line "impl n ops arm_ns cancel_ns expire_ns expired=N" (ns per
 * op, wall clock; expire is per expired timer, N of them). Under
 * valgrind --tool=callgrind --collect-atstart=no each phase is
 * collected alone and dumped with CALLGRIND_DUMP_STATS_AT(phase), so the
 * instruction count per op is the dump's total / OPS (bench-core.sh).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

#include "wheel.h"

#define HOUR_TICKS	3600000ULL	/* 1 h of 1 ms ticks */

struct hnode {
	u64 expires;
	u32 idx;
};

struct heap {
	struct hnode **a;
	u32 n;
};

/* ------------------------------------------------------------ the heap */

static inline void heap_set(struct heap *h, u32 i, struct hnode *x)
{
	h->a[i] = x;
	x->idx = i;
}

static void heap_up(struct heap *h, u32 i, struct hnode *x)
{
	while (i) {
		u32 p = (i - 1) / 2;

		if (h->a[p]->expires <= x->expires)
			break;
		heap_set(h, i, h->a[p]);
		i = p;
	}
	heap_set(h, i, x);
}

static void heap_down(struct heap *h, u32 i, struct hnode *x)
{
	for (;;) {
		u32 c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->a[c + 1]->expires < h->a[c]->expires)
			c++;
		if (x->expires <= h->a[c]->expires)
			break;
		heap_set(h, i, h->a[c]);
		i = c;
	}
	heap_set(h, i, x);
}

static noinline void heap_add(struct heap *h, struct hnode *x, u64 expires)
{
	x->expires = expires;
	heap_up(h, h->n++, x);
}

static noinline void heap_del(struct heap *h, struct hnode *x)
{
	u32 i = x->idx;
	struct hnode *last = h->a[--h->n];

	if (last == x)
		return;
	if (i && last->expires < h->a[(i - 1) / 2]->expires)
		heap_up(h, i, last);
	else
		heap_down(h, i, last);
}

/* ------------------------------------------------------------ harness */

static u64 rng = 88172645463325252ULL;

static u64 rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1DULL;
}

static u64 deadline(u64 now)
{
	return now + 1 + rnd() % HOUR_TICKS;
}

static double ns_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void print_usage(const char *prog)
{
	fprintf(stderr, "Usage: %s -i wheel|heap -n pending [-k ops] [-s seed]\n",
		prog);
	exit(2);
}

#define PHASE_BEGIN()				\
	do {					\
		CALLGRIND_ZERO_STATS;		\
		CALLGRIND_TOGGLE_COLLECT;	\
		t0 = ns_now();			\
	} while (0)
#define PHASE_END(name, res, nr)				\
	do {							\
		t1 = ns_now();					\
		CALLGRIND_TOGGLE_COLLECT;			\
		CALLGRIND_DUMP_STATS_AT(name);			\
		res = (t1 - t0) / ((nr) ? (nr) : 1);		\
	} while (0)

int main(int argc, char **argv)
{
	u64 n = 0, ops = 10000, i, *dl, now = 0, got = 0;
	double t0, t1, arm_ns, cancel_ns, expire_ns;
	const char *impl = NULL;
	u32 *perm;
	int c, wheel;

	while ((c = getopt(argc, argv, "i:n:k:s:")) != -1) {
		switch (c) {
		case 'i':
			impl = optarg;
			break;
		case 'n':
			n = strtoull(optarg, NULL, 0);
			break;
		case 'k':
			ops = strtoull(optarg, NULL, 0);
			break;
		case 's':
			rng = strtoull(optarg, NULL, 0) * 0x9E3779B97F4A7C15ULL + 1;
			break;
		default:
			print_usage(argv[0]);
		}
	}
	if (!impl || !ops || (strcmp(impl, "wheel") && strcmp(impl, "heap")))
		print_usage(argv[0]);
	wheel = !strcmp(impl, "wheel");

	/* Inputs drawn up front, so the measured loops only run the timers. */
	dl = malloc(ops * sizeof(*dl));
	perm = malloc(ops * sizeof(*perm));
	if (!dl || !perm)
		return 2;
	for (i = 0; i < ops; i++) {
		dl[i] = deadline(0);
		perm[i] = i;
	}
	for (i = ops - 1; i > 0; i--) {
		u64 j = rnd() % (i + 1);
		u32 tmp = perm[i];

		perm[i] = perm[j];
		perm[j] = tmp;
	}

	if (wheel) {
		struct tw_wheel *w = malloc(sizeof(*w));
		struct tw_node *pre = calloc(n ? n : 1, sizeof(*pre));
		struct tw_node *x = calloc(ops, sizeof(*x));
		struct hlist_head out = HLIST_HEAD_INIT;
		struct hlist_node *tmp;
		unsigned long budget;
		struct tw_node *e;

		if (!w || !pre || !x)
			return 2;
		tw_wheel_init(w, 6, 5, 0);
		for (i = 0; i < n; i++) {
			tw_node_init(&pre[i]);
			tw_wheel_add(w, &pre[i], deadline(0));
		}
		for (i = 0; i < ops; i++)
			tw_node_init(&x[i]);

		PHASE_BEGIN();
		for (i = 0; i < ops; i++)
			tw_wheel_add(w, &x[i], dl[i]);
		PHASE_END("arm", arm_ns, ops);

		PHASE_BEGIN();
		for (i = 0; i < ops; i++)
			tw_wheel_del(w, &x[perm[i]]);
		PHASE_END("cancel", cancel_ns, ops);

		PHASE_BEGIN();
		/*
		 * As the driver does: each advance hands back the next tick
		 * with work, so an event costs one tw_wheel_next().
		 */
		now = tw_wheel_next(w);
		while (got < ops && w->pending) {
			budget = ULONG_MAX;
			tw_wheel_advance_budget(w, now, &out, &budget, &now);
			hlist_for_each_entry_safe(e, tmp, &out, entry) {
				hlist_del(&e->entry);
				got++;
			}
		}
		PHASE_END("expire", expire_ns, got);
	} else {
		struct heap h = { .a = malloc((n + ops + 1) * sizeof(*h.a)) };
		struct hnode *pre = calloc(n ? n : 1, sizeof(*pre));
		struct hnode *x = calloc(ops, sizeof(*x));

		if (!h.a || !pre || !x)
			return 2;
		for (i = 0; i < n; i++)
			heap_add(&h, &pre[i], deadline(0));

		PHASE_BEGIN();
		for (i = 0; i < ops; i++)
			heap_add(&h, &x[i], dl[i]);
		PHASE_END("arm", arm_ns, ops);

		PHASE_BEGIN();
		for (i = 0; i < ops; i++)
			heap_del(&h, &x[perm[i]]);
		PHASE_END("cancel", cancel_ns, ops);

		PHASE_BEGIN();
		while (got < ops && h.n) {
			now = h.a[0]->expires;
			while (h.n && h.a[0]->expires <= now) {
				heap_del(&h, h.a[0]);
				got++;
			}
		}
		PHASE_END("expire", expire_ns, got);
	}
	printf("%s %llu %llu %.1f %.1f %.1f expired=%llu\n",
	       impl, n, ops, arm_ns, cancel_ns, expire_ns, got);
	return 0;
}
