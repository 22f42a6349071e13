// SPDX-License-Identifier: GPL-2.0
/*
 * twheelctl run: the events (read() or the ring) as they come, the due
 * actions, and the summary at the end.
 */
#include "run.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <time.h>

/*
 * With TWHEEL_FEAT_CLOCKS, read() reports an --at timer on CLOCK_BOOTTIME
 * or CLOCK_REALTIME in that clock: move its times to CLOCK_MONOTONIC, which
 * the rest of twheelctl uses (ring records are CLOCK_MONOTONIC already).
 */
static void event_to_mono(struct twheel_event *ev)
{
	struct tmr *t = find_timer(ev->id);
	int64_t off;

	if (!t || t->clk == CLOCK_MONOTONIC ||
	    !(kinfo.features & TWHEEL_FEAT_CLOCKS))
		return;
	off = (int64_t)(clock_ns(t->clk) - mono_ns());
	ev->deadline -= off;
	ev->expired -= off;
}

static void handle_event(struct twheel *tw, const struct twheel_event *ev,
			 uint64_t now, uint64_t t0)
{
	int64_t late = (int64_t)(ev->expired - ev->deadline);
	int64_t read_late = (int64_t)(now - ev->deadline);
	struct tmr *t = find_timer(ev->id);
	char b1[32], b2[32];
	size_t n;

	if (!t) {
		errmsg("event for unknown id %llu", (unsigned long long)ev->id);
		return;
	}
	n = (size_t)(t - timers) + 1;
	t->events++;
	t->overruns += ev->overruns;
	t->late_sum += late;
	if (late > t->late_max)
		t->late_max = late;
	if (late < t->late_min)
		t->late_min = late;
	if (read_late > t->read_late_max)
		t->read_late_max = read_late;
	if ((int64_t)(now - ev->deadline) < 0 || late < 0)
		t->early++;
	t->last_expired = ev->expired;

	if (json) {
		printf("{\"type\":\"event\",\"timer\":%zu,\"id\":%llu,\"cookie\":%llu,"
		       "\"deadline\":%llu,\"expired\":%llu,\"read\":%llu,"
		       "\"late_ns\":%lld,\"read_late_ns\":%lld,\"overruns\":%u,"
		       "\"periodic\":%s,\"n\":%llu}\n",
		       n, (unsigned long long)ev->id,
		       (unsigned long long)ev->cookie,
		       (unsigned long long)ev->deadline,
		       (unsigned long long)ev->expired, (unsigned long long)now,
		       (long long)late, (long long)read_late, ev->overruns,
		       (ev->flags & TWHEEL_EVENT_PERIODIC) ? "true" : "false",
		       (unsigned long long)t->events);
	} else if (!quiet) {
		printf("%10.3f  #%-3zu %5llu %8llu %10.3f  %11s %11s %5u  %s%s\n",
		       (double)(int64_t)(ev->expired - t0) / NSEC_PER_MSEC, n,
		       (unsigned long long)ev->id,
		       (unsigned long long)ev->cookie,
		       (double)(int64_t)(ev->deadline - t0) / NSEC_PER_MSEC,
		       fmt_ms(b1, sizeof(b1), late),
		       fmt_ms(b2, sizeof(b2), read_late), ev->overruns,
		       kind_names[t->kind], late < 0 ? "  EARLY!" : "");
	}

	if (!(ev->flags & TWHEEL_EVENT_PERIODIC))
		t->done = true;	/* one-shot: the id is released by the read */
	else if (t->count && t->events >= t->count)
		do_cancel(tw, t, "count", t0);
}

/* Totals over a set of timers (one kind, for large runs). */
struct agg {
	uint64_t timers, events, overruns, early;
	int64_t late_min, late_max, late_sum, read_late_max;
};

static void agg_add(struct agg *g, const struct tmr *t)
{
	if (!g->timers) {
		g->late_min = INT64_MAX;
		g->late_max = INT64_MIN;
		g->read_late_max = INT64_MIN;
	}
	g->timers++;
	g->early += t->early;
	if (!t->events)
		return;
	g->events += t->events;
	g->overruns += t->overruns;
	g->late_sum += t->late_sum;
	if (t->late_min < g->late_min)
		g->late_min = t->late_min;
	if (t->late_max > g->late_max)
		g->late_max = t->late_max;
	if (t->read_late_max > g->read_late_max)
		g->read_late_max = t->read_late_max;
}

static void print_agg_text(const char *label, const char *kind,
			   const struct agg *g)
{
	char b1[32], b2[32], b3[32], b4[32];

	if (!g->events) {
		printf("  %-6s %-8s %6u  %8u   -\n", label, kind, 0, 0);
		return;
	}
	printf("  %-6s %-8s %6llu  %8llu  %10s  %10s  %10s  %14s\n", label, kind,
	       (unsigned long long)g->events, (unsigned long long)g->overruns,
	       fmt_ms(b1, sizeof(b1), g->late_min),
	       fmt_ms(b2, sizeof(b2), g->late_sum / (int64_t)g->events),
	       fmt_ms(b3, sizeof(b3), g->late_max),
	       fmt_ms(b4, sizeof(b4), g->read_late_max));
}

static void print_agg_json(const struct agg *g)
{
	printf("\"timers\":%llu,\"events\":%llu,\"overruns\":%llu,"
	       "\"late_min_ns\":%lld,\"late_max_ns\":%lld,\"late_avg_ns\":%lld,"
	       "\"read_late_max_ns\":%lld,\"early\":%llu",
	       (unsigned long long)g->timers, (unsigned long long)g->events,
	       (unsigned long long)g->overruns,
	       g->events ? (long long)g->late_min : 0LL,
	       g->events ? (long long)g->late_max : 0LL,
	       g->events ? (long long)(g->late_sum / (int64_t)g->events) : 0LL,
	       g->events ? (long long)g->read_late_max : 0LL,
	       (unsigned long long)g->early);
}

#define SUMMARY_PER_TIMER_MAX	16	/* text: one row per timer up to this */
#define JSON_PER_TIMER_MAX	1024

void print_summary(uint64_t t0)
{
	uint64_t elapsed = mono_ns() - t0;
	struct agg all = { 0 }, kinds[NR_KINDS] = { { 0 } };
	char b1[32], label[32];
	size_t i, k;

	for (i = 0; i < nr_timers; i++) {
		agg_add(&all, &timers[i]);
		agg_add(&kinds[timers[i].kind], &timers[i]);
	}
	if (json) {
		printf("{\"type\":\"summary\",\"elapsed_ns\":%llu,",
		       (unsigned long long)elapsed);
		print_agg_json(&all);
		printf(",\"per_kind\":{");
		for (k = 0, i = 0; k < NR_KINDS; k++) {
			if (!kinds[k].timers)
				continue;
			printf("%s\"%s\":{", i++ ? "," : "", kind_names[k]);
			print_agg_json(&kinds[k]);
			printf("}");
		}
		printf("}");
		if (nr_timers <= JSON_PER_TIMER_MAX) {
			printf(",\"per_timer\":[");
			for (i = 0; i < nr_timers; i++) {
				struct agg g = { 0 };

				agg_add(&g, &timers[i]);
				printf("%s{\"timer\":%zu,\"id\":%llu,\"kind\":\"%s\",",
				       i ? "," : "", i + 1,
				       (unsigned long long)timers[i].id,
				       kind_names[timers[i].kind]);
				print_agg_json(&g);
				printf("}");
			}
			printf("]");
		}
		printf("}\n");
		return;
	}
	printf("\nsummary: %llu events from %zu timers in %s%s\n",
	       (unsigned long long)all.events, nr_timers,
	       fmt_dur(b1, sizeof(b1), elapsed),
	       all.early ? " -- EARLY EVENTS SEEN" : ", none early");
	printf("  timer  kind     events  overruns   late min    late avg    late max   read-late max\n");
	if (nr_timers <= SUMMARY_PER_TIMER_MAX) {
		for (i = 0; i < nr_timers; i++) {
			struct agg g = { 0 };

			agg_add(&g, &timers[i]);
			snprintf(label, sizeof(label), "#%zu", i + 1);
			print_agg_text(label, kind_names[timers[i].kind], &g);
		}
		return;
	}
	for (k = 0; k < NR_KINDS; k++) {
		if (!kinds[k].timers)
			continue;
		snprintf(label, sizeof(label), "%llu x",
			 (unsigned long long)kinds[k].timers);
		print_agg_text(label, kind_names[k], &kinds[k]);
	}
}

static void do_stall(uint64_t ns, uint64_t t0)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / NSEC_PER_SEC),
		.tv_nsec = (long)(ns % NSEC_PER_SEC),
	};
	char b1[32];

	if (json)
		printf("{\"type\":\"stall\",\"t_ns\":%llu,\"stall_ns\":%llu}\n",
		       (unsigned long long)(mono_ns() - t0),
		       (unsigned long long)ns);
	else
		printf("stall   at T+%.3fms: not reading events for %s\n",
		       (double)(mono_ns() - t0) / NSEC_PER_MSEC,
		       fmt_dur(b1, sizeof(b1), ns));
	fflush(stdout);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !stop_signal)
		;
}

static bool all_done(void)
{
	size_t i;

	for (i = 0; i < nr_timers; i++)
		if (!timers[i].done)
			return false;
	return true;
}

/*
 * Read the records in the ring, without a system call but for a flush of
 * the backlog when the ring overflowed. A record of a timer that is done
 * (cancelled, or count reached) or of an older arming is not shown. The
 * ring has no expiry time: fire lateness is shown as read lateness.
 */
static void ring_reap(struct twheel *tw, uint64_t t0)
{
	const struct twheel_cqe *c;
	unsigned int head, n;

	for (;;) {
		n = 0;
		twheel_ring_for_each(&ring, head, c) {
			struct twheel_event ev = {
				.id = (uint64_t)c->slot + 1,
				.cookie = c->cookie,
				.deadline = c->deadline,
				.overruns = c->overruns,
				.flags = c->flags & TWHEEL_CQE_PERIODIC ?
					 TWHEEL_EVENT_PERIODIC : 0,
			};
			uint64_t now = mono_ns();

			n++;
			if (c->slot >= nr_timers || timers[c->slot].done ||
			    timers[c->slot].gen != c->gen)
				continue;
			ev.expired = now;
			handle_event(tw, &ev, now, t0);
		}
		if (n) {
			twheel_ring_advance(&ring, n);
			continue;
		}
		if (!twheel_ring_overflowed(&ring) ||
		    twheel_ring_flush(tw, NULL) <= 0)
			return;
	}
}

int run_loop(struct twheel *tw, uint64_t t0, uint64_t run_for)
{
	struct twheel_event evs[64];
	int ret = EX_OK;
	size_t i;

	for (;;) {
		uint64_t now = mono_ns(), rel = now - t0, next = UINT64_MAX;
		int timeout, r;

		if (stop_signal)
			break;
		/* Due actions: per-timer cancel-after, then --cancel/--query. */
		for (i = 0; i < nr_timers; i++) {
			struct tmr *t = &timers[i];

			if (t->done || !t->cancel_after)
				continue;
			if (rel >= t->cancel_after)
				do_cancel(tw, t, "cancel-after", t0);
			else if (t->cancel_after < next)
				next = t->cancel_after;
		}
		for (i = 0; i < nr_actions; i++) {
			struct action *a = &actions[i];

			if (a->done)
				continue;
			if (rel >= a->when) {
				a->done = true;
				if (a->type == A_STALL) {
					do_stall(a->stall, t0);
					continue;
				}
				if (timers[a->timer].arm_err)
					continue;
				if (a->type == A_CANCEL)
					do_cancel(tw, &timers[a->timer], "--cancel", t0);
				else
					do_query(tw, &timers[a->timer], t0);
			} else if (a->when < next) {
				next = a->when;
			}
		}
		if (run_for) {
			if (rel >= run_for)
				break;
			if (run_for < next)
				next = run_for;
		} else if (all_done()) {
			/* Let pending --query actions run, then stop. */
			bool pending = false;

			for (i = 0; i < nr_actions; i++)
				pending |= !actions[i].done &&
					   actions[i].type != A_CANCEL;
			if (!pending)
				break;
		}

		timeout = -1;
		if (next != UINT64_MAX) {
			uint64_t ms = (next - rel + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC;

			timeout = ms > INT_MAX ? INT_MAX : (int)ms;
		}
		r = twheel_wait(tw, timeout);
		if (r < 0) {
			if (r == -EINTR)
				continue;
			errmsg("poll: %s", strerror(-r));
			return EX_FAIL;
		}
		if (ring_on) {
			ring_reap(tw, t0);
			fflush(stdout);
			continue;
		}
		for (;;) {
			r = twheel_read(tw, evs, ARRAY_SIZE(evs));
			if (r < 0) {
				if (r == -EAGAIN || r == -EINTR)
					break;
				op_error(OP_READ, -r, "read %s", device);
				return EX_FAIL;
			}
			if (!r) {
				errmsg("read returned less than one event");
				return EX_FAIL;
			}
			now = mono_ns();
			for (i = 0; i < (size_t)r; i++) {
				event_to_mono(&evs[i]);
				handle_event(tw, &evs[i], now, t0);
			}
			if ((size_t)r < ARRAY_SIZE(evs))
				break;
		}
		fflush(stdout);
	}
	/* Cancel what is left (close() would too, but say so). */
	for (i = 0; i < nr_timers; i++)
		if (!timers[i].done && timers[i].id)
			do_cancel(tw, &timers[i], "end", t0);
	for (i = 0; i < nr_timers; i++)
		if (timers[i].early)
			ret = EX_EARLY;
	return ret;
}
