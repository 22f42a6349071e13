// SPDX-License-Identifier: GPL-2.0
/*
 * twheel char device: checking and converting the deadline, period, clock
 * and CPU of an arm or modify request, shared by the ioctls of ABI 1
 * (dev_ioctl.c) and the ring's submissions (dev_ring_table.c).
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
#include <linux/twheel.h>

#include <uapi/linux/twheel.h>
#include "dev_file.h"

/*
 * The clock a timer armed with @flags on @clockid (not an alarm clock) keeps
 * ("Clocks").
 */
static u8 twheel_req_clock(u32 flags, s32 clockid)
{
	if (clockid == CLOCK_BOOTTIME)
		return TWHEEL_UCLK_BOOT;
	if (clockid == CLOCK_REALTIME && (flags & TWHEEL_ARM_ABS))
		return TWHEEL_UCLK_REAL;
	return TWHEEL_UCLK_MONO;
}

/*
 * An alarm clock is its base clock plus waking from suspend ("Alarms"); its
 * relative deadlines, too, are on that clock (an alarmtimer is absolute).
 */
static bool twheel_req_alarm(s32 *clockid)
{
	switch (*clockid) {
	case CLOCK_REALTIME_ALARM:
		*clockid = CLOCK_REALTIME;
		break;
	case CLOCK_BOOTTIME_ALARM:
		*clockid = CLOCK_BOOTTIME;
		break;
	default:
		return false;
	}
	return true;
}

/**
 * twheel_make_req() - check and convert the common part of an arm or modify
 * @flags:	TWHEEL_ARM_ABS, TWHEEL_ARM_FIXED_DELAY,
 *		TWHEEL_ARM_CANCEL_ON_SET (others are the caller's business)
 * @clockid:	CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_REALTIME, or with
 *		@alarm_ok CLOCK_REALTIME_ALARM or CLOCK_BOOTTIME_ALARM
 * @expires:	deadline, relative or absolute (absolute in the caller's
 *		time namespace)
 * @period:	period in ns, 0 for one-shot, else at least one tick
 *		(twheel_tick_ns())
 * @now:	CLOCK_MONOTONIC ns relative deadlines count from; 0 means not
 *		read yet: it is read here when needed and stored, so a batch
 *		reads the clock once
 * @req:	out; its cookie is 0 and its cpu TWHEEL_CPU_ANY. @req->own and
 *		@req->clock are the deadline on the timer's own clock (host
 *		time), @req->deadline its CLOCK_MONOTONIC conversion of now
 *		(what a ring timer is armed with)
 * @alarm_ok:	the alarm clocks are allowed
 *
 * Context: process context of the caller (its time namespace, capabilities).
 * Return: 0, -EINVAL, or -EPERM (an alarm clock without CAP_WAKE_ALARM,
 * checked last, as timerfd does).
 */
int twheel_make_req(u32 flags, s32 clockid, u64 expires, u64 period,
		    u64 *now, struct twheel_req *req, bool alarm_ok)
{
	req->alarm = alarm_ok && twheel_req_alarm(&clockid);
	if (clockid != CLOCK_MONOTONIC && clockid != CLOCK_BOOTTIME &&
	    clockid != CLOCK_REALTIME)
		return -EINVAL;
	/* A "negative" period. */
	if (period > KTIME_MAX)
		return -EINVAL;
	/*
	 * The period floor: a timer's deadlines are kept per tick, so a
	 * shorter period would only cost a callback per tick for nothing
	 * but overruns.
	 */
	if (period && period < twheel_tick_ns())
		return -EINVAL;
	if ((flags & TWHEEL_ARM_FIXED_DELAY) && !period)
		return -EINVAL;
	req->clock = twheel_req_clock(flags | (req->alarm ? TWHEEL_ARM_ABS : 0),
				      clockid);
	req->cos = flags & TWHEEL_ARM_CANCEL_ON_SET;
	/*
	 * TFD_TIMER_CANCEL_ON_SET: absolute CLOCK_REALTIME(_ALARM); one-shot
	 * here.
	 */
	if (req->cos && (req->clock != TWHEEL_UCLK_REAL ||
			 !(flags & TWHEEL_ARM_ABS) || period))
		return -EINVAL;

	if (flags & TWHEEL_ARM_ABS) {
		/* A deadline before the clock's zero. */
		if (expires > KTIME_MAX)
			return -EINVAL;
		req->own = twheel_timens_to_host(clockid, expires);
		req->deadline = twheel_uclock_to_mono(req->clock, req->own);
	} else {
		if (!*now)
			*now = ktime_get_ns();
		req->deadline = twheel_deadline_after(*now, expires);
		req->own = req->deadline;
		if (req->clock != TWHEEL_UCLK_MONO)
			req->own = twheel_deadline_after(twheel_uclock_now(req->clock),
							 expires);
	}
	req->period = period;
	if (!period)
		req->mode = TWHEEL_MODE_ONESHOT;
	else if (flags & TWHEEL_ARM_FIXED_DELAY)
		req->mode = TWHEEL_MODE_FIXED_DELAY;
	else
		req->mode = TWHEEL_MODE_FIXED_RATE;
	req->cookie = 0;
	req->cpu = TWHEEL_CPU_ANY;
	/* As timerfd_create() and timerfd_settime(). */
	if (req->alarm && !capable(CAP_WAKE_ALARM))
		return -EPERM;
	return 0;
}

/**
 * twheel_check_cpu() - may the caller put a timer on this CPU?
 * @cpu:	the CPU of a request with TWHEEL_ARM_CPU
 *
 * A timer's tick interrupt and callbacks run on its CPU: the caller may
 * name only a CPU it may run on itself (its affinity, which its cpuset
 * bounds), and not one isolated from kernel timers (HK_TYPE_TIMER:
 * nohz_full= or isolcpus=nohz,...; a plain isolcpus= isolates domains only)
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
