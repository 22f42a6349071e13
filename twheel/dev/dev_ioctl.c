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
#include "driver.h"
#include "dev_file.h"
#include "dev_ring.h"

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

static int twheel_arm_entry(struct twheel_file *f, struct twheel_arm *a)
{
	struct twheel_req req;
	u64 now = 0;
	int ret;

	if ((a->flags & ~TWHEEL_ARM_FLAGS) || a->__reserved)
		return -EINVAL;
	ret = twheel_make_req(a->flags, a->clockid, a->expires, a->period,
			      &now, &req, true);
	if (ret)
		return ret;
	req.cookie = a->cookie;
	if (req.clock != TWHEEL_UCLK_MONO)
		twheel_step_add_file(f);
	if (a->flags & TWHEEL_ARM_CPU) {
		ret = twheel_check_cpu(a->cpu);
		if (ret)
			return ret;
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
	u64 now = 0;
	int ret;

	ret = twheel_get_struct(&m, sizeof(m), um);
	if (ret)
		return ret;
	if ((m.flags & ~(TWHEEL_ARM_ABS | TWHEEL_ARM_FIXED_DELAY |
			 TWHEEL_ARM_CANCEL_ON_SET)) || m.__reserved)
		return -EINVAL;
	ret = twheel_make_req(m.flags, m.clockid, m.expires, m.period, &now,
			      &req, true);
	if (ret)
		return ret;
	if (req.clock != TWHEEL_UCLK_MONO)
		twheel_step_add_file(f);
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

/*
 * INFO is size-versioned: the structure of ABI 1 (TWHEEL_INFO_SIZE_VER0
 * bytes) is accepted as well as today's, and no more than the caller's
 * size is written back.
 */
static long twheel_ioctl_info(struct twheel_file *f,
			      struct twheel_info __user *ui)
{
	struct twheel_info info;
	u32 usize;
	int ret;

	if (get_user(usize, &ui->size))
		return -EFAULT;
	if (usize < TWHEEL_INFO_SIZE_VER0)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	ret = copy_struct_from_user(&info, sizeof(info), ui, usize);
	if (ret)
		return ret;
	info = (struct twheel_info) {
		.size		= info.size,
		.abi_version	= TWHEEL_ABI_VERSION,
		.tick_ns	= twheel_tick_ns(),
		.horizon_ns	= twheel_horizon_ns(),
		.levels		= twheel_levels(),
		.buckets	= twheel_buckets(),
		.max_per_file	= twheel_dev_max_per_file(),
		.max_total	= twheel_dev_max_total(),
		.pending	= atomic_long_read(&f->nr) - twheel_table_slots(f),
		.event_size	= sizeof(struct twheel_event),
		.nr_cpus	= nr_cpu_ids,
		.features	= TWHEEL_FEAT_RING | TWHEEL_FEAT_USER_CAP |
				  TWHEEL_FEAT_CLOCKS | TWHEEL_FEAT_ALARM |
				  TWHEEL_FEAT_RING_LIMITS,
		.max_per_user	= twheel_dev_max_per_user(),
	};
	if (copy_to_user(ui, &info, min_t(size_t, usize, sizeof(info))))
		return -EFAULT;
	return 0;
}

static long twheel_ioctl_ring_setup(struct twheel_file *f,
				    struct twheel_ring_params __user *up)
{
	struct twheel_ring_params p;
	int ret;

	ret = twheel_get_struct(&p, sizeof(p), up);
	if (ret)
		return ret;
	ret = twheel_table_setup(f, &p);
	if (ret)
		return ret;
	/* The ring stays set up; its layout does not depend on the call. */
	if (copy_to_user(up, &p, sizeof(p)))
		return -EFAULT;
	return 0;
}

static long twheel_ioctl_submit(struct twheel_file *f,
				struct twheel_batch __user *ub)
{
	struct twheel_batch b;
	int ret;

	ret = twheel_get_struct(&b, sizeof(b), ub);
	if (ret)
		return ret;
	if (b.flags || b.__reserved)
		return -EINVAL;
	if (b.count > TWHEEL_BATCH_MAX)
		return -E2BIG;
	if (b.entry_size != sizeof(struct twheel_sqe))
		return -EINVAL;
	return twheel_table_submit(f, &b, &ub->done);
}

static long twheel_ioctl_flush(struct twheel_file *f,
			       struct twheel_flush __user *ufl)
{
	struct twheel_flush fl;
	int ret;

	ret = twheel_get_struct(&fl, sizeof(fl), ufl);
	if (ret)
		return ret;
	if (fl.flags)
		return -EINVAL;
	ret = twheel_table_flush(f, &fl);
	if (ret)
		return ret;
	if (copy_to_user(ufl, &fl, sizeof(fl)))
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
	case _IOC_NR(TWHEEL_IOC_RING_SETUP):
		return twheel_ioctl_ring_setup(f, uarg);
	case _IOC_NR(TWHEEL_IOC_SUBMIT):
		return twheel_ioctl_submit(f, uarg);
	case _IOC_NR(TWHEEL_IOC_FLUSH):
		return twheel_ioctl_flush(f, uarg);
	default:
		return -ENOTTY;
	}
}
