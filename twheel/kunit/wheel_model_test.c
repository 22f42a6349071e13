// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit test of the pure twheel core (wheel.c) driven by a fake clock:
 *
 * twheel-wheel-model: random operations against a trivially correct
 *	reference model (an array of armed flags and effective deadlines).
 *
 * The model and its generator are wheel_model.h, which the host model test
 * (tools/testing/twheel/model.c) runs too: this file is its KUnit harness.
 * The wheel (about 4.3 KB) is always allocated with kunit_kzalloc().
 */
#include <kunit/test.h>
#include <linux/printk.h>
#include <linux/stdarg.h>

#include "wheel_test.h"
#include "wheel_model.h"

struct tw_model_param {
	struct tw_geom	geom;
	u64		seed;
	u64		ops;
};

/*
 * 300000 operations in all: 4 geometries x 5 seeds x 15000 ops. Seed n
 * starts the clock in the model's variant n: at 0, before a top-level
 * turn, anywhere, before 2^k, near the end of the tick range.
 */
#define TW_MODEL_OPS	15000
#define TW_MODEL_TIMERS	96

static const struct tw_model_param tw_model_params[] = {
	{ { 6, 5 }, 0, TW_MODEL_OPS }, { { 6, 5 }, 1, TW_MODEL_OPS },
	{ { 6, 5 }, 2, TW_MODEL_OPS }, { { 6, 5 }, 3, TW_MODEL_OPS },
	{ { 6, 5 }, 4, TW_MODEL_OPS },
	{ { 2, 2 }, 0, TW_MODEL_OPS }, { { 2, 2 }, 1, TW_MODEL_OPS },
	{ { 2, 2 }, 2, TW_MODEL_OPS }, { { 2, 2 }, 3, TW_MODEL_OPS },
	{ { 2, 2 }, 4, TW_MODEL_OPS },
	{ { 3, 3 }, 0, TW_MODEL_OPS }, { { 3, 3 }, 1, TW_MODEL_OPS },
	{ { 3, 3 }, 2, TW_MODEL_OPS }, { { 3, 3 }, 3, TW_MODEL_OPS },
	{ { 3, 3 }, 4, TW_MODEL_OPS },
	{ { 2, 8 }, 0, TW_MODEL_OPS }, { { 2, 8 }, 1, TW_MODEL_OPS },
	{ { 2, 8 }, 2, TW_MODEL_OPS }, { { 2, 8 }, 3, TW_MODEL_OPS },
	{ { 2, 8 }, 4, TW_MODEL_OPS },
};

static void tw_model_desc(const struct tw_model_param *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "B=%u L=%u seed=%llu ops=%llu",
		 p->geom.bits, p->geom.levels, p->seed, p->ops);
}

KUNIT_ARRAY_PARAM(tw_model, tw_model_params, tw_model_desc);

/* The model's failure hook: a KUnit failure naming the operation. */
static bool tw_model_fail(const struct tw_model *m, const char *fmt, ...)
{
	struct kunit *test = m->ctx;
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	KUNIT_FAIL(test, "op %llu clk %llu: %pV", m->op, m->w->clk, &vaf);
	va_end(args);
	return false;
}

static void tw_test_model(struct kunit *test)
{
	const struct tw_model_param *p = test->param_value;
	struct tw_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	unsigned int i;
	u64 start;
	bool ok;

	KUNIT_ASSERT_NOT_NULL(test, m);
	m->ctx = test;
	m->nt = TW_MODEL_TIMERS;
	m->t = kunit_kcalloc(test, m->nt, sizeof(*m->t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->t);
	for (i = 0; i < m->nt; i++)
		tw_node_init(&m->t[i].node);
	tw_model_seed(m, p->seed);
	m->w = tw_new(test, p->geom.bits, p->geom.levels, 0);
	start = tw_model_start(m, p->seed);
	tw_wheel_init(m->w, p->geom.bits, p->geom.levels, start);
	kunit_info(test, "B=%u L=%u seed=%llu start=%llu ops=%llu timers=%u\n",
		   p->geom.bits, p->geom.levels, p->seed, start, p->ops, m->nt);

	ok = tw_model_run(m, p->ops);
	kunit_info(test, "armed %llu expired %llu cancelled %llu pending %llu advances %llu (largest %llu) cascades %llu (max %u) clk %llu\n",
		   m->armed, m->expired, m->cancelled, m->pending, m->advances,
		   m->max_batch, m->w->cascaded, m->w->max_cascades, m->w->clk);
	KUNIT_EXPECT_TRUE(test, ok);
}

static struct kunit_case tw_model_cases[] = {
	KUNIT_CASE_PARAM(tw_test_model, tw_model_gen_params),
	{}
};

static struct kunit_suite tw_model_suite = {
	.name = "twheel-wheel-model",
	.test_cases = tw_model_cases,
};

kunit_test_suites(&tw_model_suite);
