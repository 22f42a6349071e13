// SPDX-License-Identifier: GPL-2.0
/*
 * twheel test-only delay hooks (testhooks.h): built only into the test
 * builds' module (TWHEEL_TESTHOOKS=1, any kernel), never into a packaged one.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "testhooks.h"

/*
 * Longest delay a hook takes: a sleep may hold a callback across a suspend;
 * a spin (where the caller cannot sleep) stops after a second.
 */
#define TW_HOOK_MAX_US		(30 * USEC_PER_SEC)
#define TW_HOOK_SPIN_MAX_US	USEC_PER_SEC

struct tw_hook {
	unsigned int		delay_us;
	atomic64_t		hits;
	twheel_hook_watch_fn	watch;
};

static struct tw_hook tw_hooks[TWHEEL_HOOK_NR];

static const struct {
	const char *name;
} tw_hook_names[TWHEEL_HOOK_NR] = {
#define TWHEEL_HOOK(name, ...) { #name },
#include "testhooks_list.h"
};

/*
 * Sleep @us microseconds at least, on CLOCK_MONOTONIC: a long fsleep() is
 * an msleep(), which newer kernels end up to a tick early (the timer of
 * msecs_to_jiffies() jiffies, started within a jiffy), and a test that
 * holds a window for a time must find it held that long.
 */
static void tw_hook_sleep(unsigned int us)
{
	u64 end = ktime_get_ns() + (u64)us * NSEC_PER_USEC, now;

	while ((now = ktime_get_ns()) < end)
		fsleep(max_t(u64, div_u64(end - now, NSEC_PER_USEC), 1));
}

/**
 * twheel_hook() - widen a race window, if a test asked for it
 * @h:	the hook
 *
 * Context: any; sleeps only where the caller may.
 */
void twheel_hook(enum twheel_hook h)
{
	struct tw_hook *hk = &tw_hooks[h];
	unsigned int us = READ_ONCE(hk->delay_us);

	if (!us)
		return;
	atomic64_inc(&hk->hits);
	/*
	 * Sleep only where the caller could: not in atomic context, and not
	 * in an RCU read-side section, which a spinlock_t is on PREEMPT_RT.
	 */
	if (preemptible() && !irqs_disabled() && !rcu_preempt_depth()) {
		tw_hook_sleep(us);
		return;
	}
	/* A spin widens a window, it does not hang a CPU: a second at most. */
	us = min_t(unsigned int, us, TW_HOOK_SPIN_MAX_US);
	while (us >= 1000) {
		mdelay(1);
		us -= 1000;
	}
	udelay(us);
}

/**
 * twheel_hook_knob() - the value a test wrote to a hook used as a knob
 * @h:	the hook
 *
 * Context: any; never sleeps or delays.
 * Return: the value written to hooks/<name>, 0 if none.
 */
unsigned int twheel_hook_knob(enum twheel_hook h)
{
	struct tw_hook *hk = &tw_hooks[h];
	unsigned int v = READ_ONCE(hk->delay_us);

	if (v)
		atomic64_inc(&hk->hits);
	return v;
}

/**
 * twheel_hook_poison() - fill memory with a knob's byte, if it is set
 * @h:		the hook, used as a knob
 * @p:		the memory, as kmalloc() handed it
 * @size:	its size in bytes
 *
 * Makes what an allocator may hand back visible: a byte of @p that
 * reaches userspace unwritten then is the knob's, never a zero.
 *
 * Context: any.
 */
void twheel_hook_poison(enum twheel_hook h, void *p, size_t size)
{
	unsigned int v = twheel_hook_knob(h);

	if (v)
		memset(p, v, size);
}

/**
 * twheel_hook_watch() - show a test the object at a hook's point
 * @h:	the hook, used as a watch
 * @p:	the object
 *
 * Context: any; the watch function runs in the caller's context.
 */
void twheel_hook_watch(enum twheel_hook h, void *p)
{
	struct tw_hook *hk = &tw_hooks[h];
	twheel_hook_watch_fn fn = READ_ONCE(hk->watch);

	if (!fn)
		return;
	atomic64_inc(&hk->hits);
	fn(p);
}

/**
 * twheel_hook_set_watch() - set the function a watch hands its objects to
 * @h:		the hook
 * @fn:		the function, NULL to stop; it must not sleep where the
 *		hook's point cannot, and must stay loaded while it is set
 *
 * Context: may sleep (it waits for the calls of the old function to end
 * when it stops a watch whose point runs with preemption off).
 */
void twheel_hook_set_watch(enum twheel_hook h, twheel_hook_watch_fn fn)
{
	WRITE_ONCE(tw_hooks[h].watch, fn);
	/*
	 * A watch point runs with interrupts or preemption off (under a raw
	 * lock): once this returns, no call of the old function is left.
	 */
	if (!fn)
		synchronize_rcu();
}
EXPORT_SYMBOL_IF_KUNIT(twheel_hook_set_watch);

/**
 * twheel_hook_set() - set a hook's delay, as a write to hooks/<name> does
 * @h:		the hook
 * @delay_us:	delay in microseconds, 0 turns the hook off (at most
 *		TW_HOOK_MAX_US)
 */
void twheel_hook_set(enum twheel_hook h, unsigned int delay_us)
{
	WRITE_ONCE(tw_hooks[h].delay_us, min_t(unsigned int, delay_us,
					       TW_HOOK_MAX_US));
}
EXPORT_SYMBOL_IF_KUNIT(twheel_hook_set);

/**
 * twheel_hook_hits() - passes through a hook while its delay was set
 * @h:		the hook
 *
 * Return: the count hooks/<name> shows.
 */
u64 twheel_hook_hits(enum twheel_hook h)
{
	return atomic64_read(&tw_hooks[h].hits);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_hook_hits);

static int tw_hook_show(struct seq_file *m, void *unused)
{
	struct tw_hook *hk = m->private;

	seq_printf(m, "%u %lld\n", READ_ONCE(hk->delay_us),
		   (long long)atomic64_read(&hk->hits));
	return 0;
}

static int tw_hook_open(struct inode *inode, struct file *file)
{
	return single_open(file, tw_hook_show, inode->i_private);
}

static ssize_t tw_hook_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	struct tw_hook *hk = ((struct seq_file *)file->private_data)->private;
	unsigned int us;
	int ret;

	ret = kstrtouint_from_user(ubuf, len, 0, &us);
	if (ret)
		return ret;
	if (us > TW_HOOK_MAX_US)
		return -ERANGE;
	WRITE_ONCE(hk->delay_us, us);
	return len;
}

static const struct file_operations tw_hook_fops = {
	.owner		= THIS_MODULE,
	.open		= tw_hook_open,
	.read		= seq_read,
	.write		= tw_hook_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/**
 * twheel_hooks_debugfs() - create hooks/<name> for every hook
 * @dir:	/sys/kernel/debug/twheel
 */
void twheel_hooks_debugfs(struct dentry *dir)
{
	struct dentry *hd = debugfs_create_dir("hooks", dir);
	int i;

	for (i = 0; i < TWHEEL_HOOK_NR; i++)
		debugfs_create_file(tw_hook_names[i].name, 0600, hd, &tw_hooks[i],
				    &tw_hook_fops);
}
