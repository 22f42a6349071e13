// SPDX-License-Identifier: GPL-2.0
/*
 * twheelctl run: the timers and actions of the command line, and the run
 * itself: arm (run_arm.c), stream the events and sum them up (run_events.c).
 */
#include "run.h"

#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

const char *const kind_names[NR_KINDS] = {
	[K_ONESHOT] = "oneshot", [K_AT] = "at",
	[K_EVERY] = "every", [K_DELAY] = "delay",
};

struct tmr *timers;
size_t nr_timers;
struct action *actions;
size_t nr_actions;
bool quiet;
volatile sig_atomic_t stop_signal;

static struct tmr *new_timer(enum kind kind)
{
	struct tmr *t;

	timers = xrealloc(timers, (nr_timers + 1) * sizeof(*timers));
	t = &timers[nr_timers++];
	memset(t, 0, sizeof(*t));
	t->kind = kind;
	t->cpu = -1;
	t->copies = 1;
	t->clk = CLOCK_MONOTONIC;
	t->late_min = INT64_MAX;
	t->late_max = INT64_MIN;
	t->read_late_max = INT64_MIN;
	return t;
}

static struct tmr *last_timer(const char *opt)
{
	if (!nr_timers)
		usage_error("%s must follow a timer (--oneshot, --at, --every or --delay)",
			    opt);
	return &timers[nr_timers - 1];
}

/* --at [CLOCK:]WHEN, WHEN = +DURATION (from now) or DURATION since zero. */
static void parse_at(struct tmr *t, const char *arg)
{
	const char *colon = strchr(arg, ':');
	const char *when = arg;

	if (colon) {
		size_t i, n = (size_t)(colon - arg);

		for (i = 0; i < NR_CLOCKS; i++)
			if (strlen(clocks[i].name) == n &&
			    !strncmp(arg, clocks[i].name, n))
				break;
		if (i == NR_CLOCKS)
			usage_error("--at: unknown clock '%.*s' (monotonic, boottime, realtime)",
				    (int)n, arg);
		t->clk = clocks[i].id;
		when = colon + 1;
	}
	if (*when == '+') {
		t->at_rel = true;
		when++;
	}
	t->first = need_duration("--at", when);
}

/* ID@TIME for --cancel and --query: ID is the timer's position (1-based). */
static void parse_action(enum action_type type, const char *opt, const char *arg)
{
	const char *at = strchr(arg, '@');
	struct action *a;
	char idbuf[32];
	uint64_t id;

	if (!at || (size_t)(at - arg) >= sizeof(idbuf))
		usage_error("%s: expected ID@TIME, e.g. 2@500ms (got '%s')", opt, arg);
	memcpy(idbuf, arg, (size_t)(at - arg));
	idbuf[at - arg] = '\0';
	if (idbuf[0] == '#')
		memmove(idbuf, idbuf + 1, strlen(idbuf));
	if (!parse_u64(idbuf, &id) || !id)
		usage_error("%s: bad timer number '%s' (timers are numbered from 1 in command-line order)",
			    opt, idbuf);
	actions = xrealloc(actions, (nr_actions + 1) * sizeof(*actions));
	a = &actions[nr_actions++];
	memset(a, 0, sizeof(*a));
	a->type = type;
	a->timer = (size_t)id;	/* checked and converted after parsing */
	a->when = need_duration(opt, at + 1);
}

/* --stall DUR@TIME: stop reading events for DUR, TIME after the start. */
static void parse_stall(const char *arg)
{
	const char *at = strchr(arg, '@');
	struct action *a;
	char dur[32];

	if (!at || (size_t)(at - arg) >= sizeof(dur))
		usage_error("--stall: expected DURATION@TIME, e.g. 200ms@1s (got '%s')", arg);
	memcpy(dur, arg, (size_t)(at - arg));
	dur[at - arg] = '\0';
	actions = xrealloc(actions, (nr_actions + 1) * sizeof(*actions));
	a = &actions[nr_actions++];
	memset(a, 0, sizeof(*a));
	a->type = A_STALL;
	a->stall = need_duration("--stall", dur);
	a->when = need_duration("--stall", at + 1);
}

static void on_signal(int sig)
{
	stop_signal = sig;
}

static const struct option run_opts[] = {
	{ "oneshot",	  required_argument, NULL, 'o' },
	{ "at",		  required_argument, NULL, 'a' },
	{ "every",	  required_argument, NULL, 'e' },
	{ "delay",	  required_argument, NULL, 'd' },
	{ "first",	  required_argument, NULL, 'f' },
	{ "count",	  required_argument, NULL, 'n' },
	{ "cookie",	  required_argument, NULL, 'k' },
	{ "cpu",	  required_argument, NULL, 'c' },
	{ "cancel-after", required_argument, NULL, 'A' },
	{ "copies",	  required_argument, NULL, 'x' },
	{ "spread",	  required_argument, NULL, 's' },
	{ "cancel",	  required_argument, NULL, 'C' },
	{ "query",	  required_argument, NULL, 'Q' },
	{ "stall",	  required_argument, NULL, 'P' },
	{ "for",	  required_argument, NULL, 'F' },
	{ "no-batch",	  no_argument,	     NULL, 'B' },
	{ "no-ring",	  no_argument,	     NULL, 'R' },
	{ "device",	  required_argument, NULL, 'D' },
	{ "debugfs",	  required_argument, NULL, 'S' },
	{ "quiet",	  no_argument,	     NULL, 'q' },
	{ "json",	  no_argument,	     NULL, 'j' },
	{ "help",	  no_argument,	     NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* Expand --copies: copy k of a timer gets first + k * spread / copies. */
static void expand_copies(void)
{
	size_t i, total = 0, o = 0;
	struct tmr *out;

	for (i = 0; i < nr_timers; i++)
		total += timers[i].copies;
	if (total == nr_timers)
		return;
	out = xrealloc(NULL, total * sizeof(*out));
	for (i = 0; i < nr_timers; i++) {
		unsigned int k;

		for (k = 0; k < timers[i].copies; k++) {
			out[o] = timers[i];
			out[o].copies = 1;
			out[o].first += timers[i].spread * k / timers[i].copies;
			out[o].cookie += k;
			o++;
		}
	}
	/* --cancel/--query numbers refer to the expanded list. */
	free(timers);
	timers = out;
	nr_timers = total;
}

int cmd_run(int argc, char **argv)
{
	uint64_t run_for = 0, t0;
	bool batch = true, use_ring = true;
	int c, failed, ret;
	struct twheel *tw;
	size_t i;
	struct tmr *t;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+hjq", run_opts, NULL)) != -1) {
		const char *opt = run_opts[0].name;

		for (i = 0; run_opts[i].name; i++)
			if (run_opts[i].val == c)
				opt = run_opts[i].name;
		switch (c) {
		case 'o':
			t = new_timer(K_ONESHOT);
			t->first = need_duration("--oneshot", optarg);
			break;
		case 'a':
			t = new_timer(K_AT);
			parse_at(t, optarg);
			break;
		case 'e':
		case 'd':
			t = new_timer(c == 'e' ? K_EVERY : K_DELAY);
			t->period = need_duration(c == 'e' ? "--every" : "--delay",
						  optarg);
			if (!t->period)
				usage_error("--%s: the period must not be 0", opt);
			t->first = t->period;
			break;
		case 'f':
			last_timer("--first")->first = need_duration("--first", optarg);
			break;
		case 'n':
			t = last_timer("--count");
			t->count = need_u64("--count", optarg);
			if (!t->count)
				usage_error("--count: must be at least 1");
			break;
		case 'k':
			t = last_timer("--cookie");
			t->cookie = need_u64("--cookie", optarg);
			t->has_cookie = true;
			break;
		case 'c': {
			uint64_t cpu = need_u64("--cpu", optarg);

			if (cpu > INT_MAX)
				usage_error("--cpu: %s is out of range", optarg);
			last_timer("--cpu")->cpu = (int)cpu;
			break;
		}
		case 'A':
			t = last_timer("--cancel-after");
			t->cancel_after = need_duration("--cancel-after", optarg);
			if (!t->cancel_after)
				t->cancel_after = 1;
			break;
		case 'x': {
			uint64_t n = need_u64("--copies", optarg);

			if (!n || n > TWHEEL_BATCH_MAX)
				usage_error("--copies: 1..%d", TWHEEL_BATCH_MAX);
			last_timer("--copies")->copies = (unsigned int)n;
			break;
		}
		case 's':
			last_timer("--spread")->spread = need_duration("--spread", optarg);
			break;
		case 'C':
			parse_action(A_CANCEL, "--cancel", optarg);
			break;
		case 'Q':
			parse_action(A_QUERY, "--query", optarg);
			break;
		case 'P':
			parse_stall(optarg);
			break;
		case 'F':
			run_for = need_duration("--for", optarg);
			break;
		case 'B':
			batch = false;
			use_ring = false;
			break;
		case 'R':
			use_ring = false;
			break;
		case 'q':
			quiet = true;
			break;
		default:
			if (!global_opt(c))
				usage_error("run: bad option");
		}
	}
	if (optind < argc)
		usage_error("run: unexpected argument '%s'", argv[optind]);
	if (!nr_timers)
		usage_error("run: no timer given (--oneshot, --at, --every or --delay)");
	expand_copies();
	if (nr_timers > TWHEEL_BATCH_MAX)
		usage_error("run: at most %d timers", TWHEEL_BATCH_MAX);
	for (i = 0; i < nr_timers; i++)
		if (!timers[i].has_cookie)
			timers[i].cookie = i + 1;
	for (i = 0; i < nr_actions; i++) {
		if (actions[i].type == A_STALL)
			continue;
		if (actions[i].timer > nr_timers)
			usage_error("--%s %zu@...: there are only %zu timers",
				    actions[i].type == A_CANCEL ? "cancel" : "query",
				    actions[i].timer, nr_timers);
		actions[i].timer--;
	}
	if (!run_for) {
		for (i = 0; i < nr_timers; i++) {
			t = &timers[i];
			if ((t->kind == K_EVERY || t->kind == K_DELAY) &&
			    !t->count && !t->cancel_after) {
				bool cancelled = false;
				size_t j;

				for (j = 0; j < nr_actions; j++)
					cancelled |= actions[j].type == A_CANCEL &&
						     actions[j].timer == i;
				if (!cancelled && !quiet && !json)
					fprintf(stderr, "%s: timer #%zu is periodic without --count, --cancel-after or --for: running until interrupted\n",
						prog, i + 1);
			}
		}
	}

	tw = open_device();
	get_info(tw);
	/*
	 * Queries need ids of the ioctl ABI: the ring has none. A stall shows
	 * how read() coalesces what was not read; a ring just holds it. A ring
	 * timer refuses an absolute CLOCK_REALTIME deadline (EINVAL: converted
	 * once, it would not follow the clock's steps); an ioctl-ABI timer
	 * follows the clock.
	 */
	for (i = 0; i < nr_actions; i++)
		use_ring &= actions[i].type == A_CANCEL;
	for (i = 0; i < nr_timers; i++)
		use_ring &= timers[i].kind != K_AT ||
			    timers[i].clk != CLOCK_REALTIME;
	if (use_ring)
		ring_setup(tw);
	if (!json && !quiet)
		printf("delivery: %s\n", ring_on ?
		       "mmap'ed completion ring (TWHEEL_IOC_SUBMIT)" :
		       "read() of struct twheel_event");
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	t0 = mono_ns();
	failed = arm_all(tw, batch);
	if (failed < 0) {
		twheel_close(tw);
		return EX_FAIL;
	}
	for (i = 0; i < nr_timers; i++)
		if (!quiet || json)
			print_armed(i, t0);
	if (!json && !quiet)
		printf("\n    T+ms    timer    id   cookie  deadline+ms    fire-late   read-late   ovr  kind\n");
	fflush(stdout);

	ret = run_loop(tw, t0, run_for);
	print_summary(t0);
	twheel_ring_unmap(&ring);
	twheel_close(tw);
	if (failed && ret == EX_OK)
		ret = EX_FAIL;
	return ret;
}
