// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-ubench: the controls of the burst mode. A thread re-arms a
 * CLOCK_MONOTONIC timerfd every UB_SAMPLE_NS, for absolute deadlines on a
 * fixed grid, blocks in read() and notes how late each expiry was read: how
 * long a program's timer waited in that window, measured beside the burst
 * and not inside it. With the default policy, as a user's program. On
 * another CPU than the burst it sees what the guest (host steal, emulation,
 * interrupts) made any timer wait; on the burst's own CPU, what the burst
 * made a neighbour there wait besides.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>
#include <sys/timerfd.h>

#include "ubench.h"

#define UB_SAMPLE_NS	2000000ULL	/* 2 ms between samples */
#define UB_SAMPLES	65536U		/* over two minutes of them */

struct ub_sampler {
	pthread_t	thread;
	int		fd;
	atomic_int	stop;
	unsigned int	nr;		/* samples taken (thread, then joiner) */
	uint64_t	due[UB_SAMPLES];
	uint64_t	late[UB_SAMPLES];
};

static void *ub_sampler_fn(void *arg)
{
	struct ub_sampler *s = arg;
	uint64_t next = ub_now() + UB_SAMPLE_NS, exp, now;
	struct itimerspec its = { };

	while (!atomic_load(&s->stop) && s->nr < UB_SAMPLES) {
		its.it_value = ub_ts(next);
		if (timerfd_settime(s->fd, TFD_TIMER_ABSTIME, &its, NULL))
			ub_die("timerfd_settime");
		if (read(s->fd, &exp, sizeof(exp)) != sizeof(exp)) {
			if (errno == EINTR)
				continue;
			ub_die("read timerfd");
		}
		now = ub_now();
		s->due[s->nr] = next;
		s->late[s->nr] = now - next;
		s->nr++;
		/* The grid: a late sample does not shift the later ones. */
		while (next <= now)
			next += UB_SAMPLE_NS;
	}
	return NULL;
}

/**
 * ub_sampler_start() - start a control beside a burst
 * @cpu: the CPU it runs on; -1: the process's CPUs (it inherits them)
 *
 * Return: the sampler, to be ended with ub_sampler_stop().
 */
struct ub_sampler *ub_sampler_start(int cpu)
{
	struct ub_sampler *s = ub_alloc(1, sizeof(*s));
	cpu_set_t set;
	int err;

	s->fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (s->fd < 0)
		ub_die("timerfd_create");
	err = pthread_create(&s->thread, NULL, ub_sampler_fn, s);
	if (err) {
		errno = err;
		ub_die("pthread_create");
	}
	if (cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		err = pthread_setaffinity_np(s->thread, sizeof(set), &set);
		if (err) {
			errno = err;
			ub_die("pthread_setaffinity_np %d", cpu);
		}
	}
	return s;
}

/**
 * ub_sampler_stop() - end the control and take its worst lateness
 * @s:		the sampler (freed)
 * @from:	first due time of the window (CLOCK_MONOTONIC ns)
 * @to:		last due time of the window
 * @nr:		out: samples due in the window
 *
 * Return: the worst lateness (ns) of the samples due in [@from, @to], 0 if
 * none was.
 */
uint64_t ub_sampler_stop(struct ub_sampler *s, uint64_t from, uint64_t to,
			 unsigned long *nr)
{
	uint64_t worst = 0;
	unsigned int i;

	atomic_store(&s->stop, 1);
	pthread_join(s->thread, NULL);
	close(s->fd);
	*nr = 0;
	for (i = 0; i < s->nr; i++) {
		if (s->due[i] < from || s->due[i] > to)
			continue;
		(*nr)++;
		if (s->late[i] > worst)
			worst = s->late[i];
	}
	free(s);
	return worst;
}
