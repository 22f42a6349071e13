/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ring half of twheel_stress: each worker also has one file with a
 * timer table and a small completion ring (so the ring fills and the
 * backlog is used), and a ledger per slot, by generation:
 *
 *   - an arming is LIVE until it ends: a one-shot by its record (FIRED), by
 *     a cancel, arm or modify that returns 1 (CANCELLED, SUPERSEDED), or by
 *     close; one that returns 0 means the one-shot fired and its record is
 *     already in the ring (OWED, must arrive); a periodic arming only by
 *     cancel, re-arm or close, and its records already in the ring may still
 *     arrive (TAIL);
 *   - every record matches an arming that may still produce one (right
 *     slot, generation and cookie), a one-shot's exactly once, none before
 *     the legal deadline or read before its deadline; consecutive records of
 *     a fixed-rate arming account for every period (delta / period =
 *     overruns + 1);
 *   - at the end, ring one-shots armed = fired + cancelled + superseded +
 *     closed, with nothing lost.
 *
 * Included by twheel_stress.c only; uses its struct worker and BAD().
 */
#ifndef _TWHEEL_STRESS_RING_H
#define _TWHEEL_STRESS_RING_H

#include "twheel_ring.h"

#define R_SLOTS		128
#define R_ENTRIES	64
#define R_HIST		8	/* armings remembered per slot */
#define R_BATCH		24

enum { RA_NONE, RA_LIVE, RA_OWED, RA_TAIL, RA_DONE };

struct rarm {
	uint32_t	gen;
	uint8_t		state;
	bool		fixed_delay;
	uint64_t	period;
	uint64_t	cookie;
	uint64_t	min_deadline;
	uint64_t	last_deadline;
};

struct rslot {
	uint32_t	gen;
	uint64_t	cookie;
	struct rarm	hist[R_HIST];
};

struct rfile {
	int		fd;
	struct tw_uring	r;
	struct rslot	slot[R_SLOTS];
};

struct rledger {
	uint64_t	os_armed, os_fired, os_cancelled, os_superseded;
	uint64_t	os_closed, per_armed, per_records, per_ended;
	uint64_t	per_closed, records, backlogged, submits, entries;
	uint64_t	lost, early, duplicated, bad;
};

static struct rarm *rarm_of(struct rslot *s, uint32_t gen)
{
	return &s->hist[gen % R_HIST];
}

static void ring_bad(struct worker *w, struct rledger *l, uint64_t *what,
		     const char *fmt, ...)
{
	va_list ap;

	(*what)++;
	if (l->bad + l->lost + l->early + l->duplicated > 20)
		return;
	printf("# thread %d ring: ", w->idx);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static void ring_record(struct worker *w, struct rfile *rf, struct rledger *l,
			const struct twheel_cqe *c, uint64_t t_read)
{
	struct rslot *s;
	struct rarm *a;

	l->records++;
	l->backlogged += !!(c->flags & TWHEEL_CQE_BACKLOG);
	if (c->slot >= R_SLOTS) {
		ring_bad(w, l, &l->bad, "record of slot %u", c->slot);
		return;
	}
	s = &rf->slot[c->slot];
	a = rarm_of(s, c->gen);
	if (a->gen != c->gen || a->state == RA_NONE || a->state == RA_DONE) {
		ring_bad(w, l, &l->duplicated,
			 "record slot %u gen %u (state %u gen %u)", c->slot,
			 c->gen, a->state, a->gen);
		return;
	}
	if (c->cookie != a->cookie || !!(c->flags & TWHEEL_CQE_PERIODIC) !=
	    !!a->period)
		ring_bad(w, l, &l->bad, "slot %u gen %u: cookie %llx/%llx flags %x",
			 c->slot, c->gen, (unsigned long long)c->cookie,
			 (unsigned long long)a->cookie, c->flags);
	if (c->deadline < a->min_deadline || t_read < c->deadline)
		ring_bad(w, l, &l->early,
			 "slot %u gen %u: deadline %llu legal %llu read %llu",
			 c->slot, c->gen, (unsigned long long)c->deadline,
			 (unsigned long long)a->min_deadline,
			 (unsigned long long)t_read);
	if (!a->period) {
		if (c->overruns)
			ring_bad(w, l, &l->bad, "one-shot with overruns %u",
				 c->overruns);
		a->state = RA_DONE;
		l->os_fired++;
		return;
	}
	l->per_records++;
	if (a->last_deadline) {
		uint64_t d = c->deadline - a->last_deadline;

		if (c->deadline <= a->last_deadline ||
		    (!a->fixed_delay && (d % a->period ||
					 d / a->period != c->overruns + 1ULL)) ||
		    (a->fixed_delay && d < a->period))
			ring_bad(w, l, &l->bad,
				 "periodic slot %u: %llu after %llu, period %llu, overruns %u%s",
				 c->slot, (unsigned long long)c->deadline,
				 (unsigned long long)a->last_deadline,
				 (unsigned long long)a->period, c->overruns,
				 a->fixed_delay ? " (fixed delay)" : "");
	}
	a->last_deadline = c->deadline;
}

/* Read every record there is, flushing the backlog; no syscall but flush. */
static void ring_reap(struct worker *w, struct rfile *rf, struct rledger *l)
{
	struct twheel_cqe c[64];
	unsigned int n, i;
	uint64_t t;

	for (;;) {
		n = tw_ring_reap(&rf->r, c, 64);
		t = tw_now();
		for (i = 0; i < n; i++)
			ring_record(w, rf, l, &c[i], t);
		if (n)
			continue;
		if (!tw_ring_overflowed(&rf->r))
			break;
		tw_flush(rf->fd, NULL, NULL);
		if (!tw_ring_count(&rf->r))
			break;
	}
}

/* The current arming of @s ends with result @res of a cancel, arm or modify. */
static void ring_end(struct worker *w, struct rledger *l, struct rslot *s,
		     uint32_t slot, long res, bool cancel)
{
	struct rarm *a = rarm_of(s, s->gen);

	if (a->gen != s->gen || a->state != RA_LIVE) {
		if (res != 0)
			ring_bad(w, l, &l->bad, "slot %u not live: result %ld",
				 slot, res);
		return;
	}
	if (a->period) {
		if (res != 1)
			ring_bad(w, l, &l->bad, "periodic slot %u: result %ld",
				 slot, res);
		a->state = RA_TAIL;
		l->per_ended++;
	} else if (res == 1) {
		a->state = RA_DONE;
		if (cancel)
			l->os_cancelled++;
		else
			l->os_superseded++;
	} else if (res == 0) {
		a->state = RA_OWED;	/* fired: its record is in the ring */
	} else {
		ring_bad(w, l, &l->bad, "slot %u: result %ld", slot, res);
	}
}

/* Make room in @s's history: an OWED record there must have arrived. */
static void ring_make_room(struct worker *w, struct rfile *rf,
			   struct rledger *l, uint32_t slot)
{
	struct rslot *s = &rf->slot[slot];
	struct rarm *next = rarm_of(s, s->gen + 1);

	/* Records of an ended arming were in the ring when it ended. */
	if (next->state == RA_OWED || next->state == RA_TAIL)
		ring_reap(w, rf, l);
	if (next->state == RA_OWED)
		ring_bad(w, l, &l->lost, "slot %u gen %u: record never came",
			 slot, next->gen);
}

static void op_ring_submit(struct worker *w, struct rfile *rf,
			   struct rledger *l)
{
	unsigned int n = 1 + tw_rand_below(&w->seed, R_BATCH), i, ok = 0;
	struct twheel_sqe q[R_BATCH];
	bool used[R_SLOTS] = { false };
	uint64_t t0;
	uint32_t done;
	long r;

	for (i = 0; i < n; i++) {
		uint32_t slot = tw_rand_below(&w->seed, R_SLOTS), cpu;
		unsigned int k = tw_rand_below(&w->seed, 100);
		uint16_t flags = 0;
		uint64_t period = 0;

		/* One entry per slot: the ledger reads results in order. */
		while (used[slot])
			slot = (slot + 1) % R_SLOTS;
		used[slot] = true;
		ring_make_room(w, rf, l, slot);
		if (k < 15) {
			q[i] = tw_sqe(TWHEEL_OP_CANCEL, slot, 0, 0, 0, 0);
			continue;
		}
		if (k < 25) {
			period = 1000000 + tw_rand_below(&w->seed, 30000000);
			if (tw_rand_below(&w->seed, 3) == 0)
				flags |= TWHEEL_ARM_FIXED_DELAY;
		}
		if (k < 80) {
			flags |= rand_cpu_flags(w, &cpu);
			q[i] = tw_sqe(TWHEEL_OP_ARM, slot, flags,
				      rand_deadline(w), period,
				      next_cookie(w, 100));
			q[i].cpu = cpu;
		} else {
			q[i] = tw_sqe(TWHEEL_OP_MODIFY, slot, flags,
				      rand_deadline(w), period, 0);
		}
	}
	t0 = tw_now();
	r = tw_submit(rf->fd, q, n, &done);
	l->submits++;
	l->entries += n;
	w->l.ioctls++;
	w->l.ops += n;
	if (r < 0 || done != n) {
		ring_bad(w, l, &l->bad, "SUBMIT: %ld, done %u of %u", r, done,
			 n);
		return;
	}
	for (i = 0; i < n; i++) {
		struct rslot *s = &rf->slot[q[i].slot];
		struct rarm *a;
		long res = q[i].result;

		if (res == -ENXIO) {
			w->l.enxio++;
			continue;
		}
		if (res < 0) {
			ring_bad(w, l, &l->bad, "entry op %u slot %u: %ld",
				 q[i].op, q[i].slot, res);
			continue;
		}
		ok++;
		if (q[i].op == TWHEEL_OP_CANCEL) {
			if (q[i].gen != s->gen)
				ring_bad(w, l, &l->bad, "cancel gen %u/%u",
					 q[i].gen, s->gen);
			ring_end(w, l, s, q[i].slot, res, true);
			continue;
		}
		ring_end(w, l, s, q[i].slot, res, false);
		if (q[i].gen != s->gen + 1)
			ring_bad(w, l, &l->bad, "slot %u gen %u after %u",
				 q[i].slot, q[i].gen, s->gen);
		s->gen = q[i].gen;
		if (q[i].op == TWHEEL_OP_ARM)
			s->cookie = q[i].cookie;
		a = rarm_of(s, s->gen);
		memset(a, 0, sizeof(*a));
		a->gen = s->gen;
		a->state = RA_LIVE;
		a->period = q[i].period;
		a->fixed_delay = q[i].flags & TWHEEL_ARM_FIXED_DELAY;
		a->cookie = s->cookie;
		a->min_deadline = t0 + q[i].expires;
		if (a->period)
			l->per_armed++;
		else
			l->os_armed++;
	}
	if (r != ok)
		ring_bad(w, l, &l->bad, "SUBMIT returned %ld, %u ok", r, ok);
}

/* Read everything, then close: what is still live is cancelled by close. */
static void ring_close(struct worker *w, struct rfile *rf, struct rledger *l)
{
	unsigned int i, k;

	ring_reap(w, rf, l);
	for (i = 0; i < R_SLOTS; i++) {
		for (k = 0; k < R_HIST; k++) {
			struct rarm *a = &rf->slot[i].hist[k];

			if (a->state == RA_OWED)
				ring_bad(w, l, &l->lost,
					 "slot %u gen %u lost at close", i,
					 a->gen);
			if (a->state != RA_LIVE)
				continue;
			if (a->period)
				l->per_closed++;
			else
				l->os_closed++;
			a->state = RA_DONE;
		}
	}
	tw_ring_unmap(&rf->r);
	close(rf->fd);
	rf->fd = -1;
}

static int ring_open(struct worker *w, struct rfile *rf)
{
	memset(rf, 0, sizeof(*rf));
	rf->fd = tw_open(O_NONBLOCK);
	if (rf->fd < 0 || tw_ring_setup(rf->fd, R_SLOTS, R_ENTRIES, &rf->r)) {
		printf("# thread %d: ring file: %s\n", w->idx, strerror(errno));
		w->l.bad++;
		return -1;
	}
	return 0;
}

/* End of the run: cancel the periodic armings, wait for the one-shots. */
static void ring_drain(struct worker *w, struct rfile *rf, struct rledger *l,
		       uint64_t grace_ns)
{
	uint64_t until = 0;
	unsigned int i, live;
	struct rarm *a;

	for (i = 0; i < R_SLOTS; i++) {
		struct rslot *s = &rf->slot[i];

		a = rarm_of(s, s->gen);
		if (a->gen != s->gen || a->state != RA_LIVE)
			continue;
		if (a->period) {
			ring_end(w, l, s, i, tw_submit1(rf->fd, TWHEEL_OP_CANCEL,
							i, 0, 0, 0, 0, NULL),
				 true);
			continue;
		}
		if (a->min_deadline > until)
			until = a->min_deadline;
	}
	until += grace_ns;
	do {
		struct pollfd p = { .fd = rf->fd, .events = POLLIN };

		poll(&p, 1, 50);
		ring_reap(w, rf, l);
		for (live = 0, i = 0; i < R_SLOTS; i++) {
			a = rarm_of(&rf->slot[i], rf->slot[i].gen);
			if (a->gen != rf->slot[i].gen ||
			    (a->state != RA_LIVE && a->state != RA_OWED))
				continue;
			live++;
			if (tw_now() >= until) {
				ring_bad(w, l, &l->lost,
					 "slot %u gen %u never fired", i,
					 a->gen);
				a->state = RA_DONE;
			}
		}
	} while (live && tw_now() < until);
	ring_close(w, rf, l);
}

#endif /* _TWHEEL_STRESS_RING_H */
