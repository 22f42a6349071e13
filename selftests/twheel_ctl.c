// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_ctl - twheelctl(8)'s machine-readable output against the device:
 * `twheelctl info --json` reports the geometry TWHEEL_IOC_INFO gives, under
 * the key "buckets" and, for readers of the first name, "slots" with the
 * same value. Runs the twheelctl of $TWHEELCTL, else the one in $PATH (the
 * test guests install it in /bin); SKIPs when there is none.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#include <linux/twheel.h>

#include "kselftest_harness.h"

#define DEV	"/dev/twheel"
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* The twheelctl to run, or NULL. */
static const char *ctl_path(void)
{
	static char buf[256];
	const char *env = getenv("TWHEELCTL");
	static const char * const dirs[] = { "/bin", "/usr/bin",
		"/usr/local/bin", "/sbin", "/usr/sbin" };
	unsigned int i;

	if (env && *env)
		return access(env, X_OK) ? NULL : env;
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(buf, sizeof(buf), "%s/twheelctl", dirs[i]);
		if (!access(buf, X_OK))
			return buf;
	}
	return NULL;
}

/* The unsigned value of "key": in a one-line JSON object; -1 if absent. */
static long long json_u(const char *obj, const char *key)
{
	char pat[64];
	const char *p;
	char *end;
	unsigned long long v;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(obj, pat);
	if (!p)
		return -1;
	p += strlen(pat);
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno || end == p || (*end != ',' && *end != '}'))
		return -1;
	return (long long)v;
}

TEST(info_json_buckets_and_slots)
{
	struct twheel_info info = { .size = sizeof(info) };
	char cmd[512], line[1024];
	const char *ctl = ctl_path();
	FILE *f;
	int fd, st;

	if (!ctl)
		SKIP(return, "no twheelctl (set TWHEELCTL)");
	fd = open(DEV, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		SKIP(return, "%s: %s", DEV, strerror(errno));
	ASSERT_EQ(0, ioctl(fd, TWHEEL_IOC_INFO, &info));
	close(fd);
	ASSERT_LT(0, info.buckets);

	snprintf(cmd, sizeof(cmd), "%s --device %s --json info", ctl, DEV);
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	line[0] = '\0';
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	st = pclose(f);
	ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0)
		TH_LOG("%s: status %#x", cmd, st);
	TH_LOG("%s", line);
	EXPECT_EQ((long long)info.levels, json_u(line, "levels"));
	EXPECT_EQ((long long)info.buckets, json_u(line, "buckets"));
	EXPECT_EQ((long long)info.buckets, json_u(line, "slots"));
	EXPECT_EQ((long long)info.tick_ns, json_u(line, "tick_ns"));
}

TEST_HARNESS_MAIN
