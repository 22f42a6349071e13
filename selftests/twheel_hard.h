/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the twheel hardening selftests (stress, bad input, fuzz,
 * lifetime, security): device access, clocks, debugfs counters, module
 * parameters and a small PRNG. Header-only so that every selftest source stays
 * a single static binary.
 */
#ifndef _TWHEEL_HARD_H
#define _TWHEEL_HARD_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <grp.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <linux/twheel.h>

#include "twheel_late.h"

#define TW_DEV		"/dev/twheel"
#define TW_DBG		"/sys/kernel/debug/twheel"
#define TW_PARAMS	"/sys/module/twheel/parameters"
#define TW_EV_SIZE	sizeof(struct twheel_event)

#define TW_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static inline uint64_t tw_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline void tw_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static inline int tw_open(int flags)
{
	return open(TW_DEV, O_RDWR | O_CLOEXEC | flags);
}

/* ioctl wrapper: the result, or -errno. */
static inline long tw_ioctl(int fd, unsigned long cmd, void *arg)
{
	long r = ioctl(fd, cmd, arg);

	return r < 0 ? -errno : r;
}

static inline long tw_info(int fd, struct twheel_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return tw_ioctl(fd, TWHEEL_IOC_INFO, info);
}

/* Pending timers of one file, or -errno. */
static inline long long tw_pending(int fd)
{
	struct twheel_info info;
	long r = tw_info(fd, &info);

	return r < 0 ? r : (long long)info.pending;
}

/* Arm one timer; returns 0 or -errno, *id set on success. */
static inline long tw_arm(int fd, uint32_t flags, uint64_t expires,
			  uint64_t period, uint64_t cookie, uint32_t cpu,
			  uint64_t *id)
{
	struct twheel_arm a = {
		.size = sizeof(a), .flags = flags, .clockid = CLOCK_MONOTONIC,
		.cpu = cpu, .expires = expires, .period = period,
		.cookie = cookie,
	};
	long r = tw_ioctl(fd, TWHEEL_IOC_ARM, &a);

	if (r >= 0 && id)
		*id = a.id;
	return r;
}

/* Cancel one timer: 1, 0 or -errno. */
static inline long tw_cancel(int fd, uint64_t id)
{
	struct twheel_cancel c = { .size = sizeof(c), .id = id };

	return tw_ioctl(fd, TWHEEL_IOC_CANCEL, &c);
}

static inline long tw_query(int fd, uint64_t id, struct twheel_query *q)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->id = id;
	return tw_ioctl(fd, TWHEEL_IOC_QUERY, q);
}

static inline long tw_modify(int fd, uint64_t id, uint32_t flags,
			     uint64_t expires, uint64_t period)
{
	struct twheel_modify m = {
		.size = sizeof(m), .flags = flags, .clockid = CLOCK_MONOTONIC,
		.id = id, .expires = expires, .period = period,
	};

	return tw_ioctl(fd, TWHEEL_IOC_MODIFY, &m);
}

/* Run @fn as uid/gid @uid in a child; its exit status, or -1. */
static inline int tw_as_uid(int uid, int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
			_exit(100);
		_exit(fn());
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* ------------------------------------------------------ test delay hooks */

/*
 * Test delay hooks (twheel/testhooks.h), through twheel_late.h: set hook
 * @name to @us microseconds (0: off), 0 or -1 where the module has none (a
 * packaged build: the caller skips); and the passes through it.
 */
static inline int tw_hook_set(const char *name, unsigned int us)
{
	return twl_hook_set(name, us);
}

static inline long long tw_hook_hits(const char *name)
{
	return twl_hook_hits(name);
}

/* --------------------------------------------------------- debugfs stats */

/*
 * A snapshot of TW_DBG/stats: every "key value" line, under the kernel's
 * own names (twheel/stats_list.h), read in one pass so that the deltas
 * between two snapshots are consistent. Counters are looked up by name,
 * as twl_stat() does (twheel_late.h): no copied list of the keys. The
 * TWS_* names are those the tests read. utimer_early: ioctl-ABI expiries
 * before their deadline on a clock not stepped since their arm, which the
 * kernel re-arms and no event shows: "never early" holds while it does
 * not grow.
 */
#define TWS_PENDING		"pending"
#define TWS_ARMED		"armed"
#define TWS_CANCELLED		"cancelled"
#define TWS_EXPIRED		"expired"
#define TWS_MIGRATED		"migrated"
#define TWS_CALLBACKS		"callbacks"
#define TWS_OVERRUNS		"overruns"
#define TWS_REJECTED		"rejected"
#define TWS_FD_CANCELLED	"fd_cancelled"
#define TWS_BEHIND		"behind"
#define TWS_PASS_MAX_US		"pass_max_us"
#define TWS_UTIMER_EARLY	"utimer_early"

#define TW_STATS_MAX	160

struct tw_stats {
	bool		ok;
	int		n;
	char		key[TW_STATS_MAX][48];
	uint64_t	v[TW_STATS_MAX];
};

/* Read TW_DBG/stats ("key value" lines); ok=false if not readable. */
static inline void tw_stats_read(struct tw_stats *s)
{
	unsigned long long val;
	char line[256];
	FILE *f;

	memset(s, 0, sizeof(*s));
	f = fopen(TW_DBG "/stats", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && s->n < TW_STATS_MAX) {
		if (sscanf(line, "%47[^ :=] %llu", s->key[s->n], &val) != 2 &&
		    sscanf(line, "%47[^ :=]: %llu", s->key[s->n], &val) != 2)
			continue;
		s->v[s->n++] = val;
	}
	fclose(f);
	s->ok = s->n > 0;
}

/* The index of counter @key in @s, or -1 (the module has no such key). */
static inline int tw_stats_find(const struct tw_stats *s, const char *key)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->key[i], key))
			return i;
	return -1;
}

static inline bool tw_stats_has(const struct tw_stats *s, const char *key)
{
	return tw_stats_find(s, key) >= 0;
}

/* Counter @key of @s, 0 where absent (check with tw_stats_has()). */
static inline uint64_t tw_stats_v(const struct tw_stats *s, const char *key)
{
	int i = tw_stats_find(s, key);

	return i < 0 ? 0 : s->v[i];
}

static inline int64_t tw_stats_delta(const struct tw_stats *a,
				     const struct tw_stats *b, const char *key)
{
	return (int64_t)(tw_stats_v(b, key) - tw_stats_v(a, key));
}

/*
 * Wait until the global "pending" counter reaches @want (timers in wheels
 * plus expired batches not yet run), up to @ms. Returns the last value read.
 */
static inline uint64_t tw_stats_wait_pending(struct tw_stats *s, uint64_t want,
					     unsigned int ms)
{
	unsigned int waited = 0;

	for (;;) {
		tw_stats_read(s);
		if (!s->ok || tw_stats_v(s, TWS_PENDING) == want ||
		    waited >= ms)
			return tw_stats_v(s, TWS_PENDING);
		tw_sleep_ms(20);
		waited += 20;
	}
}

/*
 * Wait (up to @ms) for the global pending count to reach 0: a previous
 * test's process may still be releasing a large file (exit of a file with
 * many timers takes a while under TCG and KASAN). Returns the last value.
 */
static inline uint64_t tw_settle(unsigned int ms)
{
	struct tw_stats s;

	return tw_stats_wait_pending(&s, 0, ms);
}

/* ------------------------------------------------------- files in sysfs */

static inline int tw_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static inline int tw_write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		err = -errno;
	close(fd);
	return err;
}

static inline long long tw_read_ll(const char *path)
{
	char buf[64];
	int r = tw_read_file(path, buf, sizeof(buf));

	return r < 0 ? r : strtoll(buf, NULL, 0);
}

/* Module parameter @name of twheel, or a negative errno. */
static inline long long tw_param_get(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), TW_PARAMS "/%s", name);
	return tw_read_ll(path);
}

/* Set module parameter @name of twheel to @v: 0 or -errno. */
static inline int tw_param_set(const char *name, long long v)
{
	char path[128], val[32];

	snprintf(path, sizeof(path), TW_PARAMS "/%s", name);
	snprintf(val, sizeof(val), "%lld\n", v);
	return tw_write_file(path, val);
}

/* Pin the caller to @cpu: 0 or -1. */
static inline int tw_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static inline int tw_cpu_set_online(int cpu, int on)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	return tw_write_file(path, on ? "1" : "0");
}

static inline bool tw_cpu_hotpluggable(int cpu)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	return access(path, W_OK) == 0;
}

/* ------------------------------------------------------------------ PRNG */

/* xorshift64*: per-thread, seeded from the command line or the clock. */
static inline uint64_t tw_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* Uniform in [0, n) (n > 0), bias negligible for our purposes. */
static inline uint64_t tw_rand_below(uint64_t *s, uint64_t n)
{
	return n ? tw_rand(s) % n : 0;
}

#endif /* _TWHEEL_HARD_H */
