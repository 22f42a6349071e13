// SPDX-License-Identifier: GPL-2.0
/*
 * twheelctl run: arm the timers (ring, batch or one by one), cancel and
 * query them.
 */
#include "run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Print one JSON or text line about timer i (1-based number n). */
void print_armed(size_t i, uint64_t t0)
{
	struct tmr *t = &timers[i];
	char b1[32], b2[32];

	if (json) {
		printf("{\"type\":\"armed\",\"timer\":%zu,\"id\":%llu,\"kind\":\"%s\","
		       "\"first_ns\":%llu,\"period_ns\":%llu,\"clock\":\"%s\","
		       "\"cookie\":%llu,\"cpu\":%d,\"result\":%d}\n",
		       i + 1, (unsigned long long)t->id, kind_names[t->kind],
		       (unsigned long long)t->first,
		       (unsigned long long)t->period, clock_name(t->clk),
		       (unsigned long long)t->cookie, t->cpu, -t->arm_err);
		return;
	}
	(void)t0;
	if (t->arm_err)
		return;
	printf("armed   #%zu id=%llu %s", i + 1, (unsigned long long)t->id,
	       kind_names[t->kind]);
	switch (t->kind) {
	case K_ONESHOT:
		printf(" in %s", fmt_dur(b1, sizeof(b1), t->first));
		break;
	case K_AT:
		if (t->at_rel)
			printf(" %s now+%s", clock_name(t->clk),
			       fmt_dur(b1, sizeof(b1), t->first));
		else
			printf(" %s %llu ns", clock_name(t->clk),
			       (unsigned long long)t->first);
		break;
	case K_EVERY:
	case K_DELAY:
		printf(" %s, first in %s", fmt_dur(b1, sizeof(b1), t->period),
		       fmt_dur(b2, sizeof(b2), t->first));
		break;
	}
	if (t->count)
		printf(", count %llu", (unsigned long long)t->count);
	if (t->cancel_after)
		printf(", cancel after %s", fmt_dur(b1, sizeof(b1), t->cancel_after));
	if (t->cpu >= 0)
		printf(", cpu %d", t->cpu);
	printf(", cookie %llu\n", (unsigned long long)t->cookie);
}

static void fill_arm(struct twheel_arm *a, const struct tmr *t)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->expires = t->first;
	a->period = t->period;
	a->cookie = t->cookie;
	if (t->kind == K_AT) {
		a->flags |= TWHEEL_ARM_ABS;
		a->clockid = t->clk;
		if (t->at_rel) {
			uint64_t now = clock_ns(t->clk);

			a->expires = t->first > UINT64_MAX - now ?
				     UINT64_MAX : now + t->first;
		}
	}
	if (t->kind == K_DELAY)
		a->flags |= TWHEEL_ARM_FIXED_DELAY;
	if (t->cpu >= 0) {
		a->flags |= TWHEEL_ARM_CPU;
		a->cpu = (uint32_t)t->cpu;
	}
}

/*
 * Set up a timer table with one slot per timer and map its completion ring,
 * if the kernel has the ring ABI. Return: true if run uses the ring.
 */
bool ring_setup(struct twheel *tw)
{
	unsigned int entries = 64;
	int ret;

	if (!twheel_has_feature(tw, TWHEEL_FEAT_RING))
		return false;
	while (entries < nr_timers && entries < 65536)
		entries <<= 1;
	ret = twheel_ring_setup(tw, (unsigned int)nr_timers, entries, &ring);
	if (ret < 0) {
		op_error(OP_RING, -ret, "TWHEEL_IOC_RING_SETUP (using read())");
		return false;
	}
	ring_on = true;
	return true;
}

/* Arm every timer through the ring, timer i in slot i. */
static int ring_arm(struct twheel *tw, const struct twheel_arm *arms)
{
	struct twheel_sqe *q = calloc(nr_timers, sizeof(*q));
	unsigned int done;
	size_t i;
	int ret;

	if (!q) {
		errmsg("out of memory");
		return -1;
	}
	for (i = 0; i < nr_timers; i++) {
		twheel_sqe_arm(&q[i], (uint32_t)i, arms[i].expires,
			       arms[i].period, arms[i].cookie);
		q[i].flags = (uint16_t)arms[i].flags;
		q[i].clockid = arms[i].clockid;
		q[i].cpu = arms[i].cpu;
	}
	ret = twheel_submit(tw, q, (unsigned int)nr_timers, &done);
	if (ret < 0) {
		op_error(OP_BATCH, -ret, "TWHEEL_IOC_SUBMIT of %zu timers",
			 nr_timers);
		free(q);
		return -1;
	}
	for (i = 0; i < nr_timers; i++) {
		if (i >= done) {
			timers[i].arm_err = EFAULT;
		} else if (q[i].result < 0) {
			timers[i].arm_err = -q[i].result;
		} else {
			timers[i].id = i + 1;
			timers[i].gen = q[i].gen;
		}
	}
	free(q);
	return 0;
}

int arm_all(struct twheel *tw, bool batch)
{
	struct twheel_arm *arms = calloc(nr_timers, sizeof(*arms));
	unsigned int done;
	int failed = 0, ret;
	size_t i;

	if (!arms) {
		errmsg("out of memory");
		return -1;
	}
	for (i = 0; i < nr_timers; i++)
		fill_arm(&arms[i], &timers[i]);

	if (ring_on) {
		if (ring_arm(tw, arms)) {
			free(arms);
			return -1;
		}
	} else if (batch && nr_timers > 1) {
		ret = twheel_arm_batch(tw, arms, (unsigned int)nr_timers, &done);
		if (ret < 0) {
			op_error(OP_BATCH, -ret, "TWHEEL_IOC_ARM_BATCH of %zu timers",
				 nr_timers);
			free(arms);
			return -1;
		}
		for (i = 0; i < nr_timers; i++) {
			if (i >= done)
				timers[i].arm_err = EFAULT;
			else if (arms[i].result)
				timers[i].arm_err = -arms[i].result;
			else
				timers[i].id = arms[i].id;
		}
	} else {
		for (i = 0; i < nr_timers; i++) {
			ret = twheel_arm_ex(tw, &arms[i]);
			if (ret < 0)
				timers[i].arm_err = -ret;
			else
				timers[i].id = arms[i].id;
		}
	}
	/* One message per errno, not per timer (think --copies 10000). */
	for (i = 0; i < nr_timers; i++) {
		int err = timers[i].arm_err;
		size_t j, n = 0, last = i;

		if (!err || timers[i].done)
			continue;
		for (j = i; j < nr_timers; j++) {
			if (timers[j].arm_err == err) {
				timers[j].done = true;
				last = j;
				n++;
			}
		}
		failed += (int)n;
		if (n == 1)
			op_error(OP_ARM, err, "cannot arm timer #%zu (%s)", i + 1,
				 kind_names[timers[i].kind]);
		else
			op_error(OP_ARM, err, "cannot arm %zu timers (#%zu..#%zu)",
				 n, i + 1, last + 1);
	}
	free(arms);
	return failed;
}

struct tmr *find_timer(uint64_t id)
{
	size_t i;

	/* Ids are handed out in arm order, so this is usually a hit at once. */
	if (id && id <= nr_timers && timers[id - 1].id == id)
		return &timers[id - 1];
	for (i = 0; i < nr_timers; i++)
		if (timers[i].id == id)
			return &timers[i];
	return NULL;
}

/* Cancel timer t; why: "count", "cancel-after", "--cancel" or "end". */
void do_cancel(struct twheel *tw, struct tmr *t, const char *why,
		      uint64_t t0)
{
	size_t n = (size_t)(t - timers) + 1;
	struct twheel_sqe q;
	int ret, err;
	uint64_t now;

	if (ring_on) {
		twheel_sqe_cancel(&q, (uint32_t)(n - 1));
		ret = twheel_submit(tw, &q, 1, NULL);
		if (ret >= 0)
			ret = q.result;
	} else {
		ret = twheel_cancel(tw, t->id);
	}
	err = ret < 0 ? -ret : 0;
	now = mono_ns() - t0;

	t->done = true;
	if (!strcmp(why, "end") && !err && !json)
		return;
	if (json) {
		printf("{\"type\":\"cancel\",\"timer\":%zu,\"id\":%llu,\"reason\":\"%s\","
		       "\"t_ns\":%llu,\"result\":%d}\n", n,
		       (unsigned long long)t->id, why, (unsigned long long)now,
		       err ? -err : ret);
		return;
	}
	if (err) {
		char buf[160];

		printf("cancel  #%zu id=%llu at T+%.3fms (%s): %s\n", n,
		       (unsigned long long)t->id, (double)now / NSEC_PER_MSEC, why,
		       explain(OP_CANCEL, err, buf, sizeof(buf)));
		return;
	}
	printf("cancel  #%zu id=%llu at T+%.3fms (%s): %s\n", n,
	       (unsigned long long)t->id, (double)now / NSEC_PER_MSEC, why,
	       ret ? "was pending" : "was not pending");
}

static const char *const state_names[] = {
	[0] = "idle", [TWHEEL_STATE_ARMED] = "armed", [TWHEEL_STATE_QUEUED] = "queued",
};

void do_query(struct twheel *tw, struct tmr *t, uint64_t t0)
{
	struct twheel_query q;
	size_t n = (size_t)(t - timers) + 1;
	uint64_t now = mono_ns() - t0;
	char b1[32], b2[32];
	int ret = twheel_query(tw, t->id, &q);

	if (ret < 0) {
		int err = -ret;
		char buf[160];

		if (json)
			printf("{\"type\":\"query\",\"timer\":%zu,\"id\":%llu,\"t_ns\":%llu,\"result\":%d}\n",
			       n, (unsigned long long)t->id,
			       (unsigned long long)now, -err);
		else
			printf("query   #%zu id=%llu at T+%.3fms: %s\n", n,
			       (unsigned long long)t->id,
			       (double)now / NSEC_PER_MSEC,
			       explain(OP_QUERY, err, buf, sizeof(buf)));
		return;
	}
	if (json) {
		printf("{\"type\":\"query\",\"timer\":%zu,\"id\":%llu,\"t_ns\":%llu,\"result\":0,"
		       "\"state\":%u,\"overruns\":%u,\"deadline\":%llu,\"remaining\":%llu,"
		       "\"period\":%llu,\"cookie\":%llu,\"fixed_delay\":%s,\"cpu\":%u}\n",
		       n, (unsigned long long)t->id, (unsigned long long)now,
		       q.state, q.overruns, (unsigned long long)q.deadline,
		       (unsigned long long)q.remaining,
		       (unsigned long long)q.period,
		       (unsigned long long)q.cookie,
		       (q.flags_out & TWHEEL_ARM_FIXED_DELAY) ? "true" : "false",
		       q.cpu);
		return;
	}
	printf("query   #%zu id=%llu at T+%.3fms: %s, remaining %s, period %s%s, overruns %u, cpu %u\n",
	       n, (unsigned long long)t->id, (double)now / NSEC_PER_MSEC,
	       q.state < ARRAY_SIZE(state_names) && state_names[q.state] ?
	       state_names[q.state] : "?",
	       fmt_dur(b1, sizeof(b1), q.remaining),
	       q.period ? fmt_dur(b2, sizeof(b2), q.period) : "none",
	       (q.flags_out & TWHEEL_ARM_FIXED_DELAY) ? " (fixed delay)" : "",
	       q.overruns, q.cpu);
}
