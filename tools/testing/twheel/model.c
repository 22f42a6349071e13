// SPDX-License-Identifier: GPL-2.0
/*
 * Host model test of the twheel core (twheel/wheel.c built natively).
 *
 * The reference model and its generator are twheel/kunit/wheel_model.h,
 * which the KUnit suite twheel-wheel-model runs too (design there): this
 * file is its userspace harness, with more operations, timers, geometries
 * and seeds than a kernel test can afford.
 *
 *   model [-n OPS_PER_RUN] [-t TIMERS] [-s FIRST_SEED] [-r SEEDS] [-v]
 *
 * Every geometry of a built-in list is run with every seed. Exit status 0
 * when all runs pass; the first failure prints its seed, geometry and op.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kunit/wheel_model.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

struct geom {
	unsigned int bits, levels;
};

static const struct geom geoms[] = {
	{ 6, 5 },	/* the module's default */
	{ 2, 2 },	/* horizon 16: overflow all the time */
	{ 3, 3 },
	{ 2, 8 },
	{ 4, 1 },	/* a single level */
	{ 6, 8 },	/* widest: horizon 2^48 */
	{ 5, 4 },
};

static int verbose;
static unsigned long long cur_seed;

/* The model's failure hook: print the run and the operation, exit 1. */
static bool tw_model_fail(const struct tw_model *m, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "FAIL seed=%llu bits=%u levels=%u op=%llu clk=%llu: ",
		cur_seed, m->w->bits, m->w->levels, m->op, m->w->clk);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void run_one(const struct geom *g, u64 seed, u64 ops, unsigned int nt)
{
	struct tw_model *m = calloc(1, sizeof(*m));
	unsigned int i;

	if (!m)
		exit(2);
	m->w = calloc(1, sizeof(*m->w));
	m->t = calloc(nt, sizeof(*m->t));
	if (!m->w || !m->t)
		exit(2);
	cur_seed = seed;
	m->nt = nt;
	tw_model_seed(m, seed);
	if (tw_wheel_init(m->w, g->bits, g->levels, 0))
		tw_model_fail(m, "init");
	tw_wheel_init(m->w, g->bits, g->levels, tw_model_start(m, seed));
	for (i = 0; i < nt; i++)
		tw_node_init(&m->t[i].node);

	if (!tw_model_run(m, ops))
		exit(1);
	if (verbose)
		printf("  bits=%u levels=%u seed=%llu: %llu ops, armed %llu, expired %llu, cancelled %llu, advances %llu (largest %llu), cascades %llu (max %u), clk %llu\n",
		       g->bits, g->levels, seed, ops, m->armed, m->expired,
		       m->cancelled, m->advances, m->max_batch, m->w->cascaded,
		       m->w->max_cascades, m->w->clk);
	free(m->t);
	free(m->w);
	free(m);
}

int main(int argc, char **argv)
{
	u64 ops = 5000000, seed = 1, seeds = 4, total = 0;
	unsigned int nt = 256, gi;
	int c;

	while ((c = getopt(argc, argv, "n:t:s:r:v")) != -1) {
		switch (c) {
		case 'n':
			ops = strtoull(optarg, NULL, 0);
			break;
		case 't':
			nt = strtoul(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			seeds = strtoull(optarg, NULL, 0);
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-n ops] [-t timers] [-s seed] [-r seeds] [-v]\n",
				argv[0]);
			return 2;
		}
	}
	if (!nt)
		nt = 1;
	for (gi = 0; gi < ARRAY_SIZE(geoms); gi++) {
		u64 s;

		if (geoms[gi].bits > TW_MAX_BITS)
			continue;
		for (s = seed; s < seed + seeds; s++) {
			run_one(&geoms[gi], s, ops, nt);
			total += ops;
		}
	}
	printf("twheel model: %llu ops over %zu geometries x %llu seeds (%llu..%llu), %u timers: PASS\n",
	       total, ARRAY_SIZE(geoms), seeds, seed, seed + seeds - 1, nt);
	return 0;
}
