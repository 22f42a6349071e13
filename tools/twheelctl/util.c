// SPDX-License-Identifier: GPL-2.0
/*
 * twheelctl: messages, clocks, durations (parsed and printed), memory.
 */
#include "twheelctl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for the manual.\n", prog);
	exit(EX_USAGE);
}

void errmsg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

uint64_t mono_ns(void)
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

bool parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!*s || *s == '-')
		return false;
	errno = 0;
	*out = strtoull(s, &end, 0);
	return !errno && !*end;
}

uint64_t need_duration(const char *opt, const char *arg)
{
	uint64_t v;

	if (!parse_duration(arg, &v))
		usage_error("%s: bad duration '%s' (examples: 250ms, 1.5s, 1m30s, 500us, 10ns, 1h)",
			    opt, arg);
	return v;
}

uint64_t need_u64(const char *opt, const char *arg)
{
	uint64_t v;

	if (!parse_u64(arg, &v))
		usage_error("%s: bad number '%s'", opt, arg);
	return v;
}

/* Human-readable duration into buf: "250ms", "1.500s", "12d10h15m". */
const char *fmt_dur(char *buf, size_t len, uint64_t ns)
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
const char *fmt_ms(char *buf, size_t len, int64_t ns)
{
	snprintf(buf, len, "%+.3fms", (double)ns / NSEC_PER_MSEC);
	return buf;
}

/* Clock names for --at. */
const struct tw_clock_name clocks[] = {
	{ "monotonic", CLOCK_MONOTONIC },
	{ "boottime", CLOCK_BOOTTIME },
	{ "realtime", CLOCK_REALTIME },
};

const char *clock_name(clockid_t id)
{
	size_t i;

	for (i = 0; i < NR_CLOCKS; i++)
		if (clocks[i].id == id)
			return clocks[i].name;
	return "?";
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		errmsg("out of memory");
		exit(EX_FAIL);
	}
	return p;
}
