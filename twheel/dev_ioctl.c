// SPDX-License-Identifier: GPL-2.0
/*
 * twheel char device: the ioctls of /dev/twheel (uapi/linux/twheel.h).
 *
 * Every structure is read with copy_struct_from_user() after its leading
 * size: sizes below the first ABI version's are EINVAL, sizes above a page
 * E2BIG, larger sizes with non-zero unknown bytes E2BIG. Commands are matched
 * on type and number, not on the size encoded in the command, so a program
 * built against a later, larger structure reaches the same handler.
 */
#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/time.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include <uapi/linux/twheel.h>
#include "base.h"
#include "dev_file.h"

static int twheel_copy_in(void *dst, size_t ksize, const void __user *src,
			  u32 usize)
{
	if (usize < ksize)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	return copy_struct_from_user(dst, ksize, src, usize);
}

static int twheel_get_struct(void *dst, size_t ksize, const void __user *src)
{
	u32 usize;

	if (get_user(usize, (const u32 __user *)src))
		return -EFAULT;
	return twheel_copy_in(dst, ksize, src, usize);
}

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

/* Check and convert the common part of an arm or modify request. */
static int twheel_make_req(u32 flags, s32 clockid, u64 expires, u64 period,
			   struct twheel_req *req)
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
		req->deadline = twheel_deadline_after(ktime_get_ns(), expires);
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

static int twheel_arm_entry(struct twheel_file *f, struct twheel_arm *a)
{
	struct twheel_req req;
	int ret;

	if ((a->flags & ~TWHEEL_ARM_FLAGS) || a->__reserved)
		return -EINVAL;
	ret = twheel_make_req(a->flags, a->clockid, a->expires, a->period,
			      &req);
	if (ret)
		return ret;
	req.cookie = a->cookie;
	if (a->flags & TWHEEL_ARM_CPU) {
		if (a->cpu >= nr_cpu_ids || !cpu_possible(a->cpu))
			return -ERANGE;
		if (!cpu_online(a->cpu))
			return -ENXIO;
		req.cpu = a->cpu;
	}
	return twheel_file_arm(f, &req, &a->id);
}

/*
 * Write @a's id and result back to @ua; if that faults, undo the arm (a
 * result of 0) and return -EFAULT.
 */
static int twheel_arm_put(struct twheel_file *f, struct twheel_arm __user *ua,
			  const struct twheel_arm *a)
{
	/* id and result are adjacent: write both at once. */
	BUILD_BUG_ON(offsetof(struct twheel_arm, result) !=
		     offsetofend(struct twheel_arm, id));
	if (copy_to_user(&ua->id, &a->id, offsetofend(struct twheel_arm, result) -
			 offsetof(struct twheel_arm, id))) {
		if (!a->result)
			twheel_file_cancel(f, a->id);
		return -EFAULT;
	}
	return 0;
}

/*
 * Arm from the struct twheel_arm at @ua (@usize bytes) and write back its id
 * and result. An arm whose id cannot be written back is undone.
 * Returns 1 if armed, 0 if the entry failed (result written), -EFAULT.
 */
static int twheel_arm_user(struct twheel_file *f, struct twheel_arm __user *ua,
			   u32 usize)
{
	struct twheel_arm a;
	int ret;

	ret = twheel_copy_in(&a, sizeof(a), ua, usize);
	if (ret == -EFAULT)
		return ret;
	if (!ret)
		ret = twheel_arm_entry(f, &a);
	if (ret)
		a.id = 0;
	a.result = ret;
	if (twheel_arm_put(f, ua, &a))
		return -EFAULT;
	return !ret;
}

/*
 * Cancel per the struct twheel_cancel at @uc and write back its result.
 * Returns the result (1, 0, negative errno) or -EFAULT if the entry cannot be
 * read; @fault is set if it cannot be written back.
 */
static int twheel_cancel_user(struct twheel_file *f,
			      struct twheel_cancel __user *uc, u32 usize,
			      bool *fault)
{
	struct twheel_cancel c;
	int ret;

	ret = twheel_copy_in(&c, sizeof(c), uc, usize);
	if (ret == -EFAULT) {
		*fault = true;
		return ret;
	}
	if (!ret)
		ret = (c.flags || c.__reserved) ? -EINVAL :
		      twheel_file_cancel(f, c.id);
	*fault = put_user(ret, &uc->result);
	return ret;
}

static long twheel_ioctl_batch(struct twheel_file *f,
			       struct twheel_batch __user *ub, bool arm)
{
	size_t ksize = arm ? sizeof(struct twheel_arm) :
			     sizeof(struct twheel_cancel);
	struct twheel_batch b;
	bool fault = false;
	void __user *entry;
	long ok = 0;
	u32 i;
	int ret;

	ret = twheel_get_struct(&b, sizeof(b), ub);
	if (ret)
		return ret;
	if (b.flags || b.__reserved)
		return -EINVAL;
	if (b.count > TWHEEL_BATCH_MAX)
		return -E2BIG;
	if (b.entry_size < ksize)
		return -EINVAL;
	if (b.entry_size > PAGE_SIZE)
		return -E2BIG;

	entry = u64_to_user_ptr(b.entries);
	for (i = 0; i < b.count; i++, entry += b.entry_size) {
		if (arm) {
			ret = twheel_arm_user(f, entry, b.entry_size);
			fault = ret < 0;
		} else {
			ret = twheel_cancel_user(f, entry, b.entry_size,
						 &fault);
			/* A cancel cannot be undone: count it. */
			ret = ret == 1;
		}
		if (ret > 0)
			ok++;
		if (fault)
			break;
		cond_resched();
	}
	if (put_user(i, &ub->done))
		return -EFAULT;
	if (fault && !ok && !i)
		return -EFAULT;
	return ok;
}

static long twheel_ioctl_arm_one(struct twheel_file *f,
				 struct twheel_arm __user *ua)
{
	struct twheel_arm a;
	int ret;

	ret = twheel_get_struct(&a, sizeof(a), ua);
	if (ret)
		return ret;
	ret = twheel_arm_entry(f, &a);
	if (ret)
		return ret;
	a.result = 0;
	return twheel_arm_put(f, ua, &a);
}

static long twheel_ioctl_cancel(struct twheel_file *f,
				struct twheel_cancel __user *uc)
{
	bool fault;
	u32 usize;
	int ret;

	if (get_user(usize, &uc->size))
		return -EFAULT;
	ret = twheel_cancel_user(f, uc, usize, &fault);
	return fault ? -EFAULT : ret;
}

static long twheel_ioctl_modify(struct twheel_file *f,
				struct twheel_modify __user *um)
{
	struct twheel_modify m;
	struct twheel_req req;
	int ret;

	ret = twheel_get_struct(&m, sizeof(m), um);
	if (ret)
		return ret;
	if ((m.flags & ~(TWHEEL_ARM_ABS | TWHEEL_ARM_FIXED_DELAY)) ||
	    m.__reserved)
		return -EINVAL;
	ret = twheel_make_req(m.flags, m.clockid, m.expires, m.period, &req);
	if (ret)
		return ret;
	return twheel_file_modify(f, m.id, &req);
}

static long twheel_ioctl_query(struct twheel_file *f,
			       struct twheel_query __user *uq)
{
	struct twheel_query q;
	int ret;

	ret = twheel_get_struct(&q, sizeof(q), uq);
	if (ret)
		return ret;
	if (q.flags)
		return -EINVAL;
	ret = twheel_file_query(f, &q);
	if (ret)
		return ret;
	if (copy_to_user(uq, &q, sizeof(q)))
		return -EFAULT;
	return 0;
}

static long twheel_ioctl_info(struct twheel_file *f,
			      struct twheel_info __user *ui)
{
	struct twheel_info info;
	int ret;

	ret = twheel_get_struct(&info, sizeof(info), ui);
	if (ret)
		return ret;
	info = (struct twheel_info) {
		.size		= info.size,
		.abi_version	= TWHEEL_ABI_VERSION,
		.tick_ns	= twheel_tick_ns(),
		.horizon_ns	= twheel_horizon_ns(),
		.levels		= twheel_levels(),
		.slots		= twheel_slots(),
		.max_per_file	= twheel_dev_max_per_file(),
		.max_total	= twheel_dev_max_total(),
		.pending	= atomic_long_read(&f->nr),
		.event_size	= sizeof(struct twheel_event),
		.nr_cpus	= nr_cpu_ids,
	};
	if (copy_to_user(ui, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

/**
 * twheel_dev_ioctl() - unlocked_ioctl of /dev/twheel
 * @file:	the open file
 * @cmd:	TWHEEL_IOC_*
 * @arg:	user address of the command's structure
 *
 * Return: per command (uapi/linux/twheel.h), -ENOTTY for unknown commands.
 */
long twheel_dev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct twheel_file *f = file->private_data;
	void __user *uarg = (void __user *)arg;

	if (_IOC_TYPE(cmd) != TWHEEL_IOC_MAGIC ||
	    _IOC_DIR(cmd) != (_IOC_READ | _IOC_WRITE))
		return -ENOTTY;

	switch (_IOC_NR(cmd)) {
	case _IOC_NR(TWHEEL_IOC_INFO):
		return twheel_ioctl_info(f, uarg);
	case _IOC_NR(TWHEEL_IOC_ARM):
		return twheel_ioctl_arm_one(f, uarg);
	case _IOC_NR(TWHEEL_IOC_ARM_BATCH):
		return twheel_ioctl_batch(f, uarg, true);
	case _IOC_NR(TWHEEL_IOC_CANCEL):
		return twheel_ioctl_cancel(f, uarg);
	case _IOC_NR(TWHEEL_IOC_CANCEL_BATCH):
		return twheel_ioctl_batch(f, uarg, false);
	case _IOC_NR(TWHEEL_IOC_MODIFY):
		return twheel_ioctl_modify(f, uarg);
	case _IOC_NR(TWHEEL_IOC_QUERY):
		return twheel_ioctl_query(f, uarg);
	default:
		return -ENOTTY;
	}
}
