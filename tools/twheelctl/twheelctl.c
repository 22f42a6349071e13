// SPDX-License-Identifier: GPL-2.0
/*
 * twheelctl - command line client of /dev/twheel (uapi/linux/twheel.h).
 *
 *   twheelctl info                      geometry, limits, ABI version
 *   twheelctl run TIMER... [OPTION...]  arm timers, stream their expirations
 *   twheelctl stats                     debugfs counters and lateness histogram
 *
 * `twheelctl --help` prints the manual. Every call to the device goes
 * through libtwheel (tools/lib/twheel/twheel.h), which handles the ABI's size
 * rules and feature discovery; the ring is read with its inline helpers.
 * Built statically by the top-level Makefile (make tools) against
 * build/lib/libtwheel.a.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <twheel.h>

#define TOOL_VERSION		"1.1"
#define TOOL_MIN_ABI		1	/* oldest kernel ABI spoken (no ring) */
#define DEFAULT_DEVICE		"/dev/twheel"
#define DEFAULT_DEBUGFS		"/sys/kernel/debug/twheel"

/* Exit status (documented in the manual). */
enum {
	EX_OK		= 0,	/* success */
	EX_FAIL		= 1,	/* an ioctl, read or arm failed */
	EX_USAGE	= 2,	/* bad command line */
	EX_NODEV	= 3,	/* /dev/twheel cannot be opened */
	EX_ABI		= 4,	/* kernel ABI older than this tool */
	EX_NODEBUGFS	= 5,	/* debugfs statistics unavailable */
	EX_EARLY	= 6,	/* an event arrived before its deadline */
};

#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_MSEC	1000000ULL
#define NSEC_PER_SEC	1000000000ULL

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *prog = "twheelctl";
static const char *device = DEFAULT_DEVICE;
static const char *debugfs_dir = DEFAULT_DEBUGFS;
static bool json;
static volatile sig_atomic_t stop_signal;

/* ------------------------------------------------------------ utilities */

static void __attribute__((format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for the manual.\n", prog);
	exit(EX_USAGE);
}

static void __attribute__((format(printf, 1, 2))) errmsg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static uint64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/*
 * Durations: one or more NUMBER UNIT pairs, e.g. 250ms, 1.5s, 1m30s, 500us,
 * 10ns, 1h, 2d. A lone 0 needs no unit. Returns false on a syntax error or
 * an overflow of 64 bits of nanoseconds.
 */
static const struct {
	const char *name;
	uint64_t ns;
} units[] = {
	{ "ns", 1 }, { "us", NSEC_PER_USEC }, { "ms", NSEC_PER_MSEC },
	{ "s", NSEC_PER_SEC }, { "m", 60 * NSEC_PER_SEC },
	{ "h", 3600 * NSEC_PER_SEC }, { "d", 86400 * NSEC_PER_SEC },
};

static bool parse_duration(const char *s, uint64_t *out)
{
	uint64_t total = 0;

	if (!strcmp(s, "0")) {
		*out = 0;
		return true;
	}
	if (!*s)
		return false;
	while (*s) {
		uint64_t ip = 0, frac = 0, scale = 1, unit = 0, v;
		size_t best = 0, i;

		if (*s < '0' || *s > '9')
			return false;
		while (*s >= '0' && *s <= '9') {
			uint64_t digit = (uint64_t)(*s++ - '0');

			if (ip > (UINT64_MAX - digit) / 10)
				return false;
			ip = ip * 10 + digit;
		}
		if (*s == '.') {
			s++;
			while (*s >= '0' && *s <= '9') {
				if (scale < NSEC_PER_SEC) {
					frac = frac * 10 + (uint64_t)(*s - '0');
					scale *= 10;
				}
				s++;
			}
		}
		/* Longest unit name that matches ("ms" before "m"). */
		for (i = 0; i < ARRAY_SIZE(units); i++) {
			size_t n = strlen(units[i].name);

			if (n > best && !strncmp(s, units[i].name, n)) {
				best = n;
				unit = units[i].ns;
			}
		}
		if (!best)
			return false;
		s += best;
		if (ip > UINT64_MAX / unit)
			return false;
		v = ip * unit;
		/* frac < scale <= 1e9 and unit <= 86400e9: no overflow. */
		v += (uint64_t)((long double)frac * unit / scale);
		if (v > UINT64_MAX - total)
			return false;
		total += v;
	}
	*out = total;
	return true;
}

static bool parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!*s || *s == '-')
		return false;
	errno = 0;
	*out = strtoull(s, &end, 0);
	return !errno && !*end;
}

static uint64_t need_duration(const char *opt, const char *arg)
{
	uint64_t v;

	if (!parse_duration(arg, &v))
		usage_error("%s: bad duration '%s' (examples: 250ms, 1.5s, 1m30s, 500us, 10ns, 1h)",
			    opt, arg);
	return v;
}

static uint64_t need_u64(const char *opt, const char *arg)
{
	uint64_t v;

	if (!parse_u64(arg, &v))
		usage_error("%s: bad number '%s'", opt, arg);
	return v;
}

/* Human-readable duration into buf: "250ms", "1.500s", "12d10h15m". */
static const char *fmt_dur(char *buf, size_t len, uint64_t ns)
{
	if (ns < NSEC_PER_USEC) {
		snprintf(buf, len, "%" PRIu64 "ns", ns);
	} else if (ns < NSEC_PER_MSEC) {
		snprintf(buf, len, "%.3gus", (double)ns / NSEC_PER_USEC);
	} else if (ns < NSEC_PER_SEC) {
		snprintf(buf, len, "%.3gms", (double)ns / NSEC_PER_MSEC);
	} else if (ns < 60 * NSEC_PER_SEC) {
		snprintf(buf, len, "%.3gs", (double)ns / NSEC_PER_SEC);
	} else {
		uint64_t s = ns / NSEC_PER_SEC;
		uint64_t d = s / 86400, h = s / 3600 % 24, m = s / 60 % 60;

		if (d)
			snprintf(buf, len, "%" PRIu64 "d%" PRIu64 "h%" PRIu64 "m",
				 d, h, m);
		else if (h)
			snprintf(buf, len, "%" PRIu64 "h%" PRIu64 "m%" PRIu64 "s",
				 h, m, s % 60);
		else
			snprintf(buf, len, "%" PRIu64 "m%" PRIu64 "s", m, s % 60);
	}
	return buf;
}

/* Signed ns as milliseconds with 3 decimals, e.g. "+0.412ms". */
static const char *fmt_ms(char *buf, size_t len, int64_t ns)
{
	snprintf(buf, len, "%+.3fms", (double)ns / NSEC_PER_MSEC);
	return buf;
}

/* Clock names for --at. */
static const struct {
	const char *name;
	clockid_t id;
} clocks[] = {
	{ "monotonic", CLOCK_MONOTONIC },
	{ "boottime", CLOCK_BOOTTIME },
	{ "realtime", CLOCK_REALTIME },
};

static const char *clock_name(clockid_t id)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(clocks); i++)
		if (clocks[i].id == id)
			return clocks[i].name;
	return "?";
}

/* ------------------------------------------------------------ errors */

/* Operations whose errors have a documented meaning. */
enum op { OP_OPEN, OP_INFO, OP_ARM, OP_BATCH, OP_CANCEL, OP_QUERY, OP_READ,
	  OP_RING };

static struct twheel_info kinfo;	/* filled by get_info() */

/* The ring ABI, used by run when the kernel has it (ring_setup()). */
static bool ring_on;
static struct twheel_ring ring;

/* A clear message for every errno uapi/linux/twheel.h documents. */
static const char *explain(enum op op, int err, char *buf, size_t len)
{
	switch (err) {
	case ENOENT:
		if (op == OP_OPEN)
			return "no such device: is the twheel module loaded? (modprobe twheel)";
		return "no such timer in this file (already fired and read, or cancelled)";
	case ENODEV:
	case ENXIO:
		if (op == OP_OPEN)
			return "twheel device not available (module unloading?)";
		return "the requested CPU is offline";
	case EACCES:
	case EPERM:
		return "permission denied (check the mode of the device node)";
	case ERANGE:
		snprintf(buf, len, "cpu is not below the number of possible CPUs (nr_cpus=%u)",
			 kinfo.nr_cpus);
		return buf;
	case ENOSPC:
		snprintf(buf, len,
			 "pending-timer cap reached (max_timers_per_fd=%llu, max_timers=%llu)",
			 (unsigned long long)kinfo.max_per_file,
			 (unsigned long long)kinfo.max_total);
		return buf;
	case ENOMEM:
		return "out of kernel memory";
	case EINVAL:
		switch (op) {
		case OP_ARM:
		case OP_BATCH:
			return "invalid flags, clock, period or deadline";
		case OP_READ:
			return "read buffer smaller than one struct twheel_event";
		default:
			return "invalid argument (bad size, flags or reserved field)";
		}
	case E2BIG:
		if (op == OP_BATCH)
			return "batch above TWHEEL_BATCH_MAX entries";
		return "structure newer than the kernel's ABI (E2BIG)";
	case EFAULT:
		return "bad user address (EFAULT)";
	case ENOTTY:
		return "not a twheel device, or the ioctl is unknown to this kernel (ABI mismatch)";
	case EAGAIN:
		return "no event ready (O_NONBLOCK)";
	case EINTR:
		return "interrupted by a signal";
	default:
		return strerror(err);
	}
}

static void op_error(enum op op, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void op_error(enum op op, int err, const char *fmt, ...)
{
	char buf[160];
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s (%s)\n", explain(op, err, buf, sizeof(buf)),
		strerrorname_np(err) ? strerrorname_np(err) : "?");
}

/* ------------------------------------------------------------ device */

/*
 * Open the device and wrap it in a libtwheel handle, which reads
 * TWHEEL_IOC_INFO. The file is opened here, not by twheel_open(), so that
 * "cannot open" (EX_NODEV) stays apart from "not a twheel device" (EX_ABI).
 */
static struct twheel *open_device(void)
{
	int fd = open(device, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	struct twheel *tw;
	int ret;

	if (fd < 0) {
		op_error(OP_OPEN, errno, "cannot open %s", device);
		exit(EX_NODEV);
	}
	ret = twheel_open_fd(fd, &tw);
	if (ret < 0) {
		op_error(OP_INFO, -ret, "TWHEEL_IOC_INFO on %s", device);
		exit(ret == -ENOTTY || ret == -EINVAL ? EX_ABI : EX_FAIL);
	}
	return tw;
}

/*
 * The module's geometry and limits. libtwheel converts events of another
 * size and leaves the features of an ABI 1 module zero.
 */
static void get_info(struct twheel *tw)
{
	int ret = twheel_get_info(tw, &kinfo);

	if (ret < 0) {
		op_error(OP_INFO, -ret, "TWHEEL_IOC_INFO on %s", device);
		exit(ret == -ENOTTY ? EX_ABI : EX_FAIL);
	}
	if (kinfo.abi_version < TOOL_MIN_ABI) {
		errmsg("kernel twheel ABI %u is older than this tool's oldest (%u)",
		       kinfo.abi_version, TOOL_MIN_ABI);
		exit(EX_ABI);
	}
}

/* ------------------------------------------------------------ info */

static void usage(FILE *f);

/*
 * The global options, accepted before and after the command: handle option
 * @c if it is one of them. Return false if it is not.
 */
static bool global_opt(int c)
{
	switch (c) {
	case 'D':
		device = optarg;
		return true;
	case 'S':
		debugfs_dir = optarg;
		return true;
	case 'j':
		json = true;
		return true;
	case 'h':
		usage(stdout);
		exit(EX_OK);
	default:
		return false;
	}
}

/* Options of info and stats: the global ones again, after the command. */
static void parse_simple(const char *cmd, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json",    no_argument,	NULL, 'j' },
		{ "help",    no_argument,	NULL, 'h' },
		{ "device",  required_argument, NULL, 'D' },
		{ "debugfs", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+hj", opts, NULL)) != -1)
		if (!global_opt(c))
			usage_error("%s: bad option", cmd);
	if (optind < argc)
		usage_error("%s: unexpected argument '%s'", cmd, argv[optind]);
}

static int cmd_info(int argc, char **argv)
{
	char b1[32], b2[32];
	struct twheel *tw;

	parse_simple("info", argc, argv);
	tw = open_device();

	get_info(tw);
	twheel_close(tw);
	if (json) {
		printf("{\"abi_version\":%u,\"tool_abi_version\":%u,\"tick_ns\":%llu,"
		       "\"horizon_ns\":%llu,\"levels\":%u,\"slots\":%u,"
		       "\"max_per_file\":%llu,\"max_total\":%llu,\"pending\":%llu,"
		       "\"event_size\":%u,\"nr_cpus\":%u,\"features\":%llu}\n",
		       kinfo.abi_version, TWHEEL_ABI_VERSION,
		       (unsigned long long)kinfo.tick_ns,
		       (unsigned long long)kinfo.horizon_ns, kinfo.levels,
		       kinfo.slots, (unsigned long long)kinfo.max_per_file,
		       (unsigned long long)kinfo.max_total,
		       (unsigned long long)kinfo.pending, kinfo.event_size,
		       kinfo.nr_cpus, (unsigned long long)kinfo.features);
		return EX_OK;
	}
	printf("twheel on %s\n", device);
	printf("  ABI version      %u (twheelctl %s built for ABI %u)\n",
	       kinfo.abi_version, TOOL_VERSION, TWHEEL_ABI_VERSION);
	printf("  tick             %s (%llu ns)\n",
	       fmt_dur(b1, sizeof(b1), kinfo.tick_ns),
	       (unsigned long long)kinfo.tick_ns);
	printf("  levels x slots   %u x %u\n", kinfo.levels, kinfo.slots);
	printf("  horizon          %s (%llu ticks) before the overflow list\n",
	       fmt_dur(b2, sizeof(b2), kinfo.horizon_ns),
	       kinfo.tick_ns ? (unsigned long long)(kinfo.horizon_ns / kinfo.tick_ns) : 0ULL);
	printf("  max timers/fd    %llu\n", (unsigned long long)kinfo.max_per_file);
	printf("  max timers       %llu (all files)\n",
	       (unsigned long long)kinfo.max_total);
	printf("  possible CPUs    %u\n", kinfo.nr_cpus);
	printf("  event size       %u bytes\n", kinfo.event_size);
	printf("  features         %s\n",
	       kinfo.features & TWHEEL_FEAT_RING ?
	       "ring (timer table, TWHEEL_IOC_SUBMIT, mmap'ed completion ring)" :
	       "none");
	return EX_OK;
}

/* ------------------------------------------------------------ run */

enum kind { K_ONESHOT, K_AT, K_EVERY, K_DELAY };

static const char *const kind_names[] = {
	[K_ONESHOT] = "oneshot", [K_AT] = "at",
	[K_EVERY] = "every", [K_DELAY] = "delay",
};

struct tmr {
	enum kind kind;
	uint64_t first;		/* relative first deadline, or absolute (K_AT) */
	uint64_t period;
	bool at_rel;		/* --at +DUR: absolute = clock now + first */
	clockid_t clk;
	uint64_t cookie;
	bool has_cookie;
	int cpu;		/* -1: the kernel's choice */
	uint64_t count;		/* stop after this many events, 0 = unlimited */
	uint64_t cancel_after;	/* 0 = never */
	unsigned int copies;
	uint64_t spread;
	/* state */
	uint64_t id;		/* kernel id (ring: slot + 1), 0 if not armed */
	uint32_t gen;		/* ring: the slot's generation */
	int arm_err;
	bool done;
	uint64_t events, overruns;
	int64_t late_max, late_min, read_late_max;
	int64_t late_sum;
	uint64_t early;
	uint64_t last_expired;
};

enum action_type { A_CANCEL, A_QUERY, A_STALL };

struct action {
	enum action_type type;
	size_t timer;		/* index into timers[] */
	uint64_t when;		/* relative to the start */
	uint64_t stall;		/* A_STALL: how long not to read */
	bool done;
};

static struct tmr *timers;
static size_t nr_timers;
static struct action *actions;
static size_t nr_actions;

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		errmsg("out of memory");
		exit(EX_FAIL);
	}
	return p;
}

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

		for (i = 0; i < ARRAY_SIZE(clocks); i++)
			if (strlen(clocks[i].name) == n &&
			    !strncmp(arg, clocks[i].name, n))
				break;
		if (i == ARRAY_SIZE(clocks))
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

/* Print one JSON or text line about timer i (1-based number n). */
static void print_armed(size_t i, uint64_t t0)
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
static bool ring_setup(struct twheel *tw)
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

static int arm_all(struct twheel *tw, bool batch)
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

static struct tmr *find_timer(uint64_t id)
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
static void do_cancel(struct twheel *tw, struct tmr *t, const char *why,
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

static void do_query(struct twheel *tw, struct tmr *t, uint64_t t0)
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

static bool quiet;

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

static void print_summary(uint64_t t0)
{
	uint64_t elapsed = mono_ns() - t0;
	struct agg all = { 0 }, kinds[ARRAY_SIZE(kind_names)] = { { 0 } };
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
		for (k = 0, i = 0; k < ARRAY_SIZE(kind_names); k++) {
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
	for (k = 0; k < ARRAY_SIZE(kind_names); k++) {
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

static int run_loop(struct twheel *tw, uint64_t t0, uint64_t run_for)
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

static int cmd_run(int argc, char **argv)
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
	 * how read() coalesces what was not read; a ring just holds it.
	 */
	for (i = 0; i < nr_actions; i++)
		use_ring &= actions[i].type == A_CANCEL;
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

/* ------------------------------------------------------------ stats */

struct kv {
	char key[48];
	char val[32];
};

static const struct {
	const char *key;
	const char *what;
} stat_desc[] = {
	{ "pending",	  "timers in wheels or waiting for their callback" },
	{ "armed",	  "arms, including re-arms of periodic timers" },
	{ "cancelled",	  "cancels that found the timer pending" },
	{ "expired",	  "timers handed from a wheel to a callback batch" },
	{ "cascaded",	  "moves of a timer down one wheel level" },
	{ "migrated",	  "timers moved off a CPU that went offline" },
	{ "ticks_run",	  "wheel ticks processed" },
	{ "ticks_idle",	  "ticks skipped because nothing was due" },
	{ "wakeups",	  "tick hrtimer interrupts" },
	{ "batches",	  "expired batches queued to the workqueue" },
	{ "callbacks",	  "callbacks run" },
	{ "overruns",	  "periods skipped (late or busy)" },
	{ "rejected",	  "arms refused by a cap (ENOSPC)" },
	{ "fd_cancelled", "timers cancelled by close()" },
	{ "lat_max_us",	  "largest lateness, deadline to callback (us)" },
	{ "cb_max_us",	  "longest callback or group of 16 (us)" },
	{ "max_cascades", "most cascades of a single timer" },
};

static FILE *open_debugfs(const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", debugfs_dir, name);
	f = fopen(path, "re");
	if (f)
		return f;
	if (errno == EACCES || errno == EPERM)
		errmsg("cannot read %s: the twheel debugfs files are root-only", path);
	else if (errno == ENOENT && access("/sys/kernel/debug/", R_OK) == 0 &&
		 access("/sys/kernel/debug/kernel", F_OK) != 0 &&
		 !strcmp(debugfs_dir, DEFAULT_DEBUGFS))
		errmsg("cannot read %s: debugfs is not mounted (mount -t debugfs none /sys/kernel/debug)",
		       path);
	else if (errno == ENOENT)
		errmsg("cannot read %s: is the twheel module loaded?", path);
	else
		errmsg("cannot read %s: %s", path, strerror(errno));
	return NULL;
}

/* "key value" lines. Returns the number of pairs, -1 if unreadable. */
static int read_kv(const char *name, struct kv *kv, int max)
{
	FILE *f = open_debugfs(name);
	char line[256];
	int n = 0;

	if (!f)
		return -1;
	while (n < max && fgets(line, sizeof(line), f))
		if (sscanf(line, "%47s %31s", kv[n].key, kv[n].val) == 2)
			n++;
	fclose(f);
	return n;
}

struct bucket {
	unsigned long long lo, hi, count;	/* hi == 0: open-ended */
};

static int read_latency(struct bucket *b, int max)
{
	FILE *f = open_debugfs("latency");
	char line[256], hi[32];
	int n = 0;

	if (!f)
		return -1;
	while (n < max && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "[%llu, %31[^)]) us: %llu", &b[n].lo, hi,
			   &b[n].count) != 3)
			continue;
		b[n].hi = strcmp(hi, "inf") ? strtoull(hi, NULL, 10) : 0;
		n++;
	}
	fclose(f);
	return n;
}

#define MAX_COLS	64
#define MAX_CPUS	4096

struct table {
	int ncols, nrows;
	char cols[MAX_COLS][32];
	char (*cells)[MAX_COLS][24];
};

static int read_table(const char *name, struct table *tb)
{
	FILE *f = open_debugfs(name);
	char line[2048], *tok, *save;

	memset(tb, 0, sizeof(*tb));
	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f))
		for (tok = strtok_r(line, " \n", &save); tok && tb->ncols < MAX_COLS;
		     tok = strtok_r(NULL, " \n", &save))
			snprintf(tb->cols[tb->ncols++], sizeof(tb->cols[0]), "%s", tok);
	tb->cells = xrealloc(NULL, MAX_CPUS * sizeof(*tb->cells));
	while (tb->nrows < MAX_CPUS && fgets(line, sizeof(line), f)) {
		int c = 0;

		for (tok = strtok_r(line, " \n", &save); tok && c < tb->ncols;
		     tok = strtok_r(NULL, " \n", &save))
			snprintf(tb->cells[tb->nrows][c++], 24, "%s", tok);
		if (c)
			tb->nrows++;
	}
	fclose(f);
	return 0;
}

static int col_index(const struct table *tb, const char *name)
{
	int i;

	for (i = 0; i < tb->ncols; i++)
		if (!strcmp(tb->cols[i], name))
			return i;
	return -1;
}

/* A bucket bound in us as a short human string: 512us, 1.02ms, 4.19s. */
static const char *fmt_us(char *buf, size_t len, unsigned long long us)
{
	return fmt_dur(buf, len, us * NSEC_PER_USEC);
}

static bool is_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static void json_value(const char *v)
{
	if (is_number(v))
		fputs(v, stdout);
	else if (!strcmp(v, "-"))
		fputs("null", stdout);
	else
		printf("\"%s\"", v);	/* debugfs values never need escaping */
}

static const char *const percpu_show[] = {
	"cpu", "online", "pending", "queued", "next_tick", "armed", "expired",
	"callbacks", "cancelled", "wakeups", "ticks_run", "ticks_idle",
	"overruns", "migrated", "lat_max_us",
};

static int cmd_stats(int argc, char **argv)
{
	struct bucket b[64];
	struct table tb;
	struct kv kv[64];
	unsigned long long total = 0, maxc = 0, cum = 0;
	int width[ARRAY_SIZE(percpu_show)];
	int nkv, nb, i, j, first = -1, last = -1;
	char b1[32], b2[32];

	parse_simple("stats", argc, argv);
	nkv = read_kv("stats", kv, (int)ARRAY_SIZE(kv));
	if (nkv < 0)
		return EX_NODEBUGFS;
	nb = read_latency(b, (int)ARRAY_SIZE(b));
	if (nb < 0 || read_table("percpu", &tb) < 0)
		return EX_NODEBUGFS;
	for (i = 0; i < nb; i++) {
		total += b[i].count;
		if (b[i].count > maxc)
			maxc = b[i].count;
		if (b[i].count) {
			if (first < 0)
				first = i;
			last = i;
		}
	}

	if (json) {
		printf("{\"stats\":{");
		for (i = 0; i < nkv; i++) {
			printf("%s\"%s\":", i ? "," : "", kv[i].key);
			json_value(kv[i].val);
		}
		printf("},\"latency_us\":[");
		for (i = 0; i < nb; i++) {
			printf("%s{\"lo\":%llu,\"hi\":", i ? "," : "", b[i].lo);
			if (b[i].hi)
				printf("%llu", b[i].hi);
			else
				printf("null");
			printf(",\"count\":%llu}", b[i].count);
		}
		printf("],\"percpu\":[");
		for (i = 0; i < tb.nrows; i++) {
			printf("%s{", i ? "," : "");
			for (j = 0; j < tb.ncols; j++) {
				printf("%s\"%s\":", j ? "," : "", tb.cols[j]);
				json_value(tb.cells[i][j]);
			}
			printf("}");
		}
		printf("]}\n");
		free(tb.cells);
		return EX_OK;
	}

	printf("twheel statistics (%s)\n\n", debugfs_dir);
	for (i = 0; i < nkv; i++) {
		const char *what = "";
		size_t k;

		for (k = 0; k < ARRAY_SIZE(stat_desc); k++)
			if (!strcmp(stat_desc[k].key, kv[i].key))
				what = stat_desc[k].what;
		printf("  %-14s %14s   %s\n", kv[i].key, kv[i].val, what);
	}

	/* Per-CPU table: the useful columns, each as wide as its widest cell. */
	printf("\nper CPU\n");
	for (i = 0; i < (int)ARRAY_SIZE(percpu_show); i++) {
		int ci = col_index(&tb, percpu_show[i]);

		width[i] = 0;
		if (ci < 0)
			continue;
		width[i] = (int)strlen(percpu_show[i]);
		for (j = 0; j < tb.nrows; j++)
			if ((int)strlen(tb.cells[j][ci]) > width[i])
				width[i] = (int)strlen(tb.cells[j][ci]);
		printf(" %*s", width[i], percpu_show[i]);
	}
	printf("\n");
	for (j = 0; j < tb.nrows; j++) {
		for (i = 0; i < (int)ARRAY_SIZE(percpu_show); i++) {
			int ci = col_index(&tb, percpu_show[i]);

			if (ci >= 0)
				printf(" %*s", width[i], tb.cells[j][ci]);
		}
		printf("\n");
	}
	free(tb.cells);

	printf("\nlateness, deadline to callback start (%llu callbacks)\n", total);
	if (!total) {
		printf("  (no callback has run yet)\n");
		return EX_OK;
	}
	for (i = first; i <= last; i++) {
		int w = (int)((b[i].count * 40 + maxc - 1) / maxc);
		char range[48];

		cum += b[i].count;
		if (b[i].hi)
			snprintf(range, sizeof(range), "[%s, %s)",
				 fmt_us(b1, sizeof(b1), b[i].lo),
				 fmt_us(b2, sizeof(b2), b[i].hi));
		else
			snprintf(range, sizeof(range), "[%s, inf)",
				 fmt_us(b1, sizeof(b1), b[i].lo));
		printf("  %-18s %10llu %5.1f%% %5.1f%% |%.*s\n", range,
		       b[i].count, 100.0 * (double)b[i].count / (double)total,
		       100.0 * (double)cum / (double)total, w,
		       "########################################");
	}
	printf("  %-18s %10s %6s %6s\n", "", "count", "%", "cum%");
	return EX_OK;
}

/* ------------------------------------------------------------ main */

static void usage(FILE *f)
{
	fprintf(f,
"NAME\n"
"    twheelctl - arm and watch twheel timers, show twheel statistics\n"
"\n"
"SYNOPSIS\n"
"    twheelctl [--device PATH] [--debugfs DIR] [--json] info\n"
"    twheelctl [GLOBAL OPTIONS] run TIMER [MODIFIER...] [TIMER [MODIFIER...]...]\n"
"              [--cancel ID@TIME]... [--query ID@TIME]... [--stall DUR@TIME]...\n"
"              [--for DURATION]\n"
"              [--no-batch] [--no-ring] [--quiet] [--json]\n"
"    twheelctl [GLOBAL OPTIONS] stats [--json]\n"
"    twheelctl --help | --version\n"
"\n"
"DESCRIPTION\n"
"    twheelctl is the command line client of /dev/twheel, the per-CPU\n"
"    hierarchical timing wheel. One process holds many timers on one file\n"
"    descriptor; their expirations are read as struct twheel_event records.\n"
"    All times reported are CLOCK_MONOTONIC. T+ times are relative to the\n"
"    moment the timers were armed.\n"
"\n"
"    Durations are one or more NUMBER UNIT pairs, units ns, us, ms, s, m, h, d,\n"
"    with an optional decimal fraction: 10ns, 500us, 250ms, 1.5s, 1m30s, 1h.\n"
"\n"
"COMMANDS\n"
"    info    Print the wheel geometry (tick, levels, slots, horizon), the\n"
"            pending-timer caps and the kernel's ABI version.\n"
"\n"
"    run     Arm the timers described on the command line and print one line per\n"
"            expiration: arrival time, timer number, kernel id, cookie,\n"
"            deadline, fire lateness (expired - deadline, measured by the\n"
"            kernel), read lateness (time of read - deadline) and overruns.\n"
"            Ends when every timer is done (one-shot fired, periodic count\n"
"            reached or cancelled), when --for elapses, or on SIGINT/SIGTERM;\n"
"            then cancels what is left and prints a per-timer summary.\n"
"            When the kernel has the ring ABI (info: features ring), the\n"
"            timers go into a timer table (timer #N in slot N-1, id N) in\n"
"            one TWHEEL_IOC_SUBMIT and their expirations are read from the\n"
"            mmap'ed completion ring without a system call; the ring has no\n"
"            expiry time, so fire lateness shows the read lateness, and a\n"
"            fixed-delay timer's next deadline counts from its expiry.\n"
"            Otherwise, or with --no-ring, --no-batch, --query or --stall,\n"
"            they are armed with TWHEEL_IOC_ARM_BATCH and read with read().\n"
"\n"
"    stats   Read /sys/kernel/debug/twheel/{stats,percpu,latency} (root only)\n"
"            and print the global counters, a per-CPU table and the lateness\n"
"            histogram with bars.\n"
"\n"
"OPTIONS\n"
"  Global (before or after the command)\n"
"    --device PATH     character device (default " DEFAULT_DEVICE ")\n"
"    --debugfs DIR     twheel debugfs directory (default " DEFAULT_DEBUGFS ")\n"
"    --json            machine-readable output: one JSON object for info and\n"
"                      stats; JSON Lines for run (types armed, event, cancel,\n"
"                      query, summary)\n"
"    -h, --help        this manual;  -V, --version  tool and ABI version\n"
"\n"
"  Timers (run). Each starts a new timer; timers are numbered #1, #2, ...\n"
"  in command-line order (after --copies expansion).\n"
"    --oneshot DUR     one-shot, DUR from now\n"
"    --at [CLOCK:]WHEN one-shot at an absolute time on CLOCK (monotonic,\n"
"                      boottime, realtime; default monotonic). WHEN is a\n"
"                      duration since the clock's zero, or +DUR for \"DUR\n"
"                      from now on that clock\" (e.g. realtime:+2s)\n"
"    --every PERIOD    periodic, fixed rate: deadline n = first + n * PERIOD;\n"
"                      missed periods are reported as overruns, not replayed\n"
"    --delay PERIOD    periodic, fixed delay: next deadline = read() of the\n"
"                      previous event + PERIOD (ring: its expiry + PERIOD)\n"
"\n"
"  Modifiers (apply to the timer just before them)\n"
"    --first DUR       first deadline of a periodic timer (default: PERIOD)\n"
"    --count N         cancel a periodic timer after N events\n"
"    --cancel-after DUR  cancel this timer DUR after the start\n"
"    --cookie N        cookie echoed in events (default: timer number)\n"
"    --cpu N           arm on CPU N's wheel (default: the CPU running us)\n"
"    --copies N        N identical timers, numbered consecutively (an\n"
"                      explicit --cookie C gives cookies C, C+1, ...)\n"
"    --spread DUR      with --copies: copy k is due k*DUR/N later\n"
"\n"
"  Run control\n"
"    --cancel ID@TIME  cancel timer number ID at TIME after the start\n"
"    --query ID@TIME   print timer ID's state (TWHEEL_IOC_QUERY) at TIME\n"
"    --stall DUR@TIME  stop reading events for DUR at TIME: shows how fixed\n"
"                      rate coalesces missed periods into overruns while\n"
"                      fixed delay just starts later\n"
"    --for DUR         stop after DUR even if timers are still armed\n"
"    --no-batch        one TWHEEL_IOC_ARM per timer instead of one batch\n"
"                      (implies --no-ring)\n"
"    --no-ring         arm with TWHEEL_IOC_ARM_BATCH and read() events even\n"
"                      when the kernel has the ring ABI\n"
"    --quiet           print only the summary\n"
"\n"
"EXAMPLES\n"
"    twheelctl info\n"
"    twheelctl run --oneshot 250ms --every 100ms --count 5 \\\n"
"                  --delay 150ms --cancel-after 1s\n"
"    twheelctl run --every 10ms --first 0 --cpu 1 --for 2s --json\n"
"    twheelctl run --at realtime:+1.5s --oneshot 1h --cancel 2@2s\n"
"    twheelctl run --oneshot 1ms --copies 10000 --spread 500ms --quiet\n"
"    twheelctl run --every 20ms --count 10 --delay 20ms --count 10 \\\n"
"                  --stall 100ms@50ms\n"
"    twheelctl stats\n"
"\n"
"EXIT STATUS\n"
"    0  success (also when stopped by SIGINT or SIGTERM)\n"
"    1  an ioctl or read failed, or a timer could not be armed\n"
"    2  bad command line\n"
"    3  the device cannot be opened (module not loaded, permissions)\n"
"    4  the kernel's twheel ABI is older than this tool's, or not twheel\n"
"    5  the debugfs statistics cannot be read (not root, not mounted)\n"
"    6  an event was delivered before its deadline (a twheel bug)\n"
"\n"
"ERRORS\n"
"    Messages name the failing operation and explain the errno:\n"
"    ENOENT  open: module not loaded; cancel/query: no such timer (already\n"
"            fired and read, or cancelled)\n"
"    EINVAL  bad flags, clock, reserved field, or an absolute deadline\n"
"            before the clock's zero; read: buffer below one event\n"
"    ERANGE  --cpu not below the number of possible CPUs\n"
"    ENXIO   --cpu names an offline CPU\n"
"    ENOSPC  pending-timer cap reached (max_timers_per_fd or max_timers)\n"
"    ENOMEM  out of kernel memory\n"
"    E2BIG   batch above TWHEEL_BATCH_MAX, or a structure size the kernel\n"
"            rejects (ABI mismatch)\n"
"    ENOTTY  not a twheel device or unknown ioctl (ABI mismatch)\n"
"    EFAULT  bad user address (a twheelctl bug)\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device",  required_argument, NULL, 'D' },
		{ "debugfs", required_argument, NULL, 'S' },
		{ "json",    no_argument,	NULL, 'j' },
		{ "help",    no_argument,	NULL, 'h' },
		{ "version", no_argument,	NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *cmd;
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt_long(argc, argv, "+hjV", opts, NULL)) != -1) {
		if (c == 'V') {
			printf("twheelctl %s (ABI %d)\n", TOOL_VERSION,
			       TWHEEL_ABI_VERSION);
			return EX_OK;
		}
		if (!global_opt(c))
			usage_error("bad option");
	}
	if (optind >= argc)
		usage_error("no command given (info, run, stats)");
	cmd = argv[optind];
	argc -= optind;
	argv += optind;

	if (!strcmp(cmd, "info"))
		return cmd_info(argc, argv);
	if (!strcmp(cmd, "run"))
		return cmd_run(argc, argv);
	if (!strcmp(cmd, "stats"))
		return cmd_stats(argc, argv);
	if (!strcmp(cmd, "help")) {
		usage(stdout);
		return EX_OK;
	}
	usage_error("unknown command '%s' (info, run, stats)", cmd);
	return EX_USAGE;
}
