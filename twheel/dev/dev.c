// SPDX-License-Identifier: GPL-2.0
/*
 * twheel char device: /dev/twheel, many timers per file descriptor.
 *
 * A misc device (dynamic minor, mode 0666: like timerfd it needs no
 * privilege; memory is charged to the caller's memcg and capped per file and
 * globally). Each open() gets its own timer set (dev_timer.c) and may set up
 * a timer table and completion ring (dev_ring_table.c, dev_ring.c; mmap() maps
 * the ring); the ioctls are in dev_ioctl.c, the ABI in uapi/linux/twheel.h.
 * The file operations hold a module reference, so the module cannot be
 * unloaded while a file is open.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>

#include <uapi/linux/twheel.h>
#include "dev.h"
#include "dev_file.h"
#include "dev_ring.h"
#include "stats.h"

static int twheel_dev_open(struct inode *inode, struct file *file)
{
	struct twheel_file *f;

	f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	if (!f)
		return -ENOMEM;
	f->user = twheel_user_get();
	if (!f->user) {
		kfree(f);
		return -ENOMEM;
	}
	twheel_file_init(f);
	file->private_data = f;
	return stream_open(inode, file);
}

static int twheel_dev_release(struct inode *inode, struct file *file)
{
	struct twheel_file *f = file->private_data;
	unsigned long n;

	twheel_step_del_file(f);
	n = twheel_file_release_timers(f);
	n += twheel_table_release(f);
	if (n)
		twheel_stat_add(fd_cancelled, n);
	twheel_user_put(f->user);
	kfree(f);
	return 0;
}

static ssize_t twheel_dev_read(struct file *file, char __user *buf,
			       size_t count, loff_t *ppos)
{
	struct twheel_file *f = file->private_data;
	ssize_t ret;

	if (count < sizeof(struct twheel_event))
		return -EINVAL;
	for (;;) {
		/* The ring's backlog too; -ENODEV without a ring. */
		twheel_table_flush(f, NULL);
		ret = twheel_file_read(f, buf, count);
		if (ret)
			return ret;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(f->wq,
					       twheel_file_ready(f, false));
		if (ret)
			return ret;
	}
}

static __poll_t twheel_dev_poll(struct file *file, poll_table *wait)
{
	struct twheel_file *f = file->private_data;
	bool excl;

	poll_wait(file, &f->wq, wait);
	/* Pairs with wq_has_sleeper() in the expiry callbacks. */
	smp_mb();
	twheel_table_flush(f, NULL);
	excl = wait && (poll_requested_events(wait) & EPOLLEXCLUSIVE);
	return twheel_file_ready(f, excl) || twheel_table_ready(f) ?
	       EPOLLIN | EPOLLRDNORM : 0;
}

static int twheel_dev_mmap(struct file *file, struct vm_area_struct *vma)
{
	return twheel_table_mmap(file->private_data, vma);
}

static const struct file_operations twheel_dev_fops = {
	.owner		= THIS_MODULE,
	.open		= twheel_dev_open,
	.release	= twheel_dev_release,
	.read		= twheel_dev_read,
	.poll		= twheel_dev_poll,
	.mmap		= twheel_dev_mmap,
	.unlocked_ioctl	= twheel_dev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice twheel_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "twheel",
	.fops	= &twheel_dev_fops,
	.mode	= 0666,
};

/**
 * twheel_dev_init() - register /dev/twheel
 *
 * Called at module init once the timer bases are up.
 *
 * Return: 0 or a negative errno.
 */
int twheel_dev_init(void)
{
	int ret;

	ret = twheel_dev_caps_init();
	if (ret)
		return ret;
	twheel_step_init();
	ret = misc_register(&twheel_miscdev);
	if (ret)
		goto step;
	return 0;

step:
	twheel_step_exit();
	twheel_dev_caps_exit();
	return ret;
}

/**
 * twheel_dev_exit() - unregister /dev/twheel
 *
 * No file can be open: each holds a reference on the module.
 */
void twheel_dev_exit(void)
{
	misc_deregister(&twheel_miscdev);
	twheel_step_exit();
	twheel_dev_caps_exit();
}
