/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the selftests that act as other users (twheel_security.c,
 * twheel_hostile.c): running a function as another uid in a child, the
 * module parameters that cap timers (saved and restored around a test),
 * arming until a cap answers, and the CPUs the caller may use.
 * Header-only, like twheel_hard.h.
 */
#ifndef _TWHEEL_USERS_H
#define _TWHEEL_USERS_H

#include <sched.h>

#include "twheel_hard.h"

#define P_PER_FD	TW_PARAMS "/max_timers_per_fd"
#define P_TOTAL		TW_PARAMS "/max_timers"
#define P_USER		TW_PARAMS "/max_timers_per_user"
#define HOUR_NS		(3600ULL * 1000000000ULL)

struct saved_param {
	char	per_fd[32];
	char	total[32];
	char	per_user[32];
};

static inline int params_save(struct saved_param *s)
{
	if (tw_read_file(P_PER_FD, s->per_fd, sizeof(s->per_fd)) ||
	    tw_read_file(P_TOTAL, s->total, sizeof(s->total)))
		return -1;
	/* Absent before max_timers_per_user existed. */
	if (tw_read_file(P_USER, s->per_user, sizeof(s->per_user)))
		s->per_user[0] = 0;
	return 0;
}

static inline void params_restore(const struct saved_param *s)
{
	tw_write_file(P_PER_FD, s->per_fd);
	tw_write_file(P_TOTAL, s->total);
	if (s->per_user[0])
		tw_write_file(P_USER, s->per_user);
}

/* Arm one-hour timers until an error; returns how many were armed. */
static inline long arm_until_error(int fd, long max, long *err)
{
	long n = 0, r = 0;
	uint64_t id;

	while (n < max) {
		r = tw_arm(fd, 0, HOUR_NS, 0, n, 0, &id);
		if (r)
			break;
		n++;
	}
	*err = r;
	return n;
}

/*
 * Run @fn as uid/gid @uid in a child. With @hold_fd < 0, wait for it and
 * return its exit status (-1 if it did not exit). Otherwise the child keeps
 * what it made until it reads a byte from @hold_fd, and its pid is returned
 * at once.
 */
static inline int as_uid(int uid, int (*fn)(void), int hold_fd)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		char c;
		int r;

		if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
			_exit(100);
		r = fn();
		/* Hold the timers until the parent says so. */
		if (hold_fd >= 0 && read(hold_fd, &c, 1) != 1)
			_exit(101);
		_exit(r);
	}
	if (hold_fd >= 0)
		return pid;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * Start @fn(@arg) as uid/gid @uid in a child that exits with its result;
 * @prep(@arg), if not NULL, runs first, still as root (to lower an
 * rlimit, say). Returns the child's pid, or -1.
 */
static inline pid_t tw_spawn_as(int uid, int (*prep)(void *),
				int (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	if (prep && prep(arg))
		_exit(102);
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
		_exit(100);
	_exit(fn(arg));
}

/* Exit status of child @pid, -1 if it did not exit normally. */
static inline int tw_wait_child(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * The first CPU besides CPU 0 the caller may run on (a CPU that a suspend
 * under TCG failed to bring back stays offline), or -1.
 */
static inline int find_other_cpu(void)
{
	cpu_set_t set;
	int cpu;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (cpu = 1; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			return cpu;
	return -1;
}

/* Up to @max CPUs the caller may run on, into @cpus; how many. */
static inline int tw_allowed_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int cpu, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (cpu = 0; cpu < CPU_SETSIZE && n < max; cpu++)
		if (CPU_ISSET(cpu, &set))
			cpus[n++] = cpu;
	return n;
}

#endif /* _TWHEEL_USERS_H */
