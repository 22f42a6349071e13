// SPDX-License-Identifier: GPL-2.0
/*
 * twheel char device: checking and converting the deadline, period, clock
 * and CPU of an arm or modify request, shared by the ioctls of ABI 1
 * (dev_ioctl.c) and the ring's submissions (dev_table.c).
 */
#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/ktime.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sched/isolation.h>
#include <linux/time.h>
#include <linux/timekeeping.h>

#include <uapi/linux/twheel.h>
#include "dev_file.h"

/* Absolute deadline on @clockid to CLOCK_MONOTONIC, once, at arm time. */
static int twheel_abs_to_mono(s32 clockid, u64 expires, u64 *mono)
{
	s64 offs, d;

	/* A deadline before the clock's zero. */
	if (expires > KTIME_MAX)
		return -EINVAL;
	switch (clockid) {
	case CLOCK_MONOTONIC:
		*mono = expires;
		return 0;
	case CLOCK_BOOTTIME:
		offs = ktime_to_ns(ktime_mono_to_any(0, TK_OFFS_BOOT));
		break;
	case CLOCK_REALTIME:
		offs = ktime_to_ns(ktime_mono_to_any(0, TK_OFFS_REAL));
		break;
	default:
		return -EINVAL;
	}
	/* Before monotonic zero: long past, fires at the next tick. */
	if (check_sub_overflow((s64)expires, offs, &d) || d < 0)
		d = 0;
	*mono = d;
	return 0;
}

/**
 * twheel_make_req() - check and convert the common part of an arm or modify
 * @flags:	TWHEEL_ARM_ABS, TWHEEL_ARM_FIXED_DELAY (others are the
 *		caller's business)
 * @clockid:	CLOCK_MONOTONIC, CLOCK_BOOTTIME or CLOCK_REALTIME
 * @expires:	deadline, relative or absolute
 * @period:	period in ns, 0 for one-shot
 * @now:	CLOCK_MONOTONIC ns relative deadlines count from; 0 means not
 *		read yet: it is read here when needed and stored, so a batch
 *		reads the clock once
 * @req:	out; its cookie is 0 and its cpu TWHEEL_CPU_ANY
 *
 * Return: 0 or -EINVAL.
 */
int twheel_make_req(u32 flags, s32 clockid, u64 expires, u64 period,
		    u64 *now, struct twheel_req *req)
{
	int ret;

	if (clockid != CLOCK_MONOTONIC && clockid != CLOCK_BOOTTIME &&
	    clockid != CLOCK_REALTIME)
		return -EINVAL;
	/* A "negative" period. */
	if (period > KTIME_MAX)
		return -EINVAL;
	if ((flags & TWHEEL_ARM_FIXED_DELAY) && !period)
		return -EINVAL;

	if (flags & TWHEEL_ARM_ABS) {
		ret = twheel_abs_to_mono(clockid, expires, &req->deadline);
		if (ret)
			return ret;
	} else {
		if (!*now)
			*now = ktime_get_ns();
		req->deadline = twheel_deadline_after(*now, expires);
	}
	req->period = period;
	if (!period)
		req->mode = TWHEEL_UMODE_ONESHOT;
	else if (flags & TWHEEL_ARM_FIXED_DELAY)
		req->mode = TWHEEL_UMODE_DELAY;
	else
		req->mode = TWHEEL_UMODE_RATE;
	req->cookie = 0;
	req->cpu = TWHEEL_CPU_ANY;
	return 0;
}

/**
 * twheel_check_cpu() - may the caller put a timer on this CPU?
 * @cpu:	the CPU of a request with TWHEEL_ARM_CPU
 *
 * A timer's tick interrupt and callbacks run on its CPU: the caller may
 * name only a CPU it may run on itself (its affinity, which its cpuset
 * bounds), and not one isolated from kernel timers (nohz_full=, isolcpus=)
 * unless it has CAP_SYS_NICE, which would let it move itself there.
 *
 * Context: process context of the caller.
 * Return: 0, -ERANGE (not a possible CPU), -ENXIO (offline) or -EPERM.
 */
int twheel_check_cpu(u32 cpu)
{
	if (cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return -ERANGE;
	if (!cpu_online(cpu))
		return -ENXIO;
	if (!cpumask_test_cpu(cpu, current->cpus_ptr))
		return -EPERM;
	if (!housekeeping_cpu(cpu, HK_TYPE_TIMER) && !capable(CAP_SYS_NICE))
		return -EPERM;
	return 0;
}
