// SPDX-License-Identifier: GPL-2.0
/*
 * twheel char device: the caps on timers (module parameters
 * max_timers_per_fd, max_timers_per_user and max_timers) and the counts
 * they are checked against, for the timers of ABI 1 (one at a time) and the
 * slots of ring tables (a table at a time).
 *
 * Per user, as epoll's max_user_watches and inotify's max_user_watches:
 * every file is charged to the user who opened it (the real uid of the
 * opener, as epoll charges the creator of an instance), so opening more
 * files does not lift the cap. And as inotify and epoll charge their
 * ucounts, up the user-namespace hierarchy: a user is a (user namespace,
 * kuid) pair, and the user of a uid in a namespace other than the initial
 * one has a parent, the namespace's owner in the parent namespace. A
 * charge counts at every level up to the initial namespace, each against
 * max_timers_per_user, so that all the uids of a rootless container (its
 * subordinate range) share the cap of the user who created it. (The
 * kernel's ucounts are not exported to modules; this is the same walk.)
 *
 * A struct twheel_user exists while that user has files open or a child
 * user that has; users are found at open() in a small hash table under a
 * mutex (process context, open and release only), and the count itself is
 * an atomic per level, touched once per level per arm, cancel or table.
 * The namespaces stay while the files are open: each file holds its
 * opener's credentials, those the namespace, and a namespace its parent.
 *
 * A user of the initial namespace also has a fairness group (a small
 * number from an IDA, see twheel_timer_set_group()) for the callbacks of
 * its timers and of those of its namespaces' users, who share it as they
 * share its cap: another user's storm of expiries on a CPU delays them by
 * one callback per group, not by the storm (dev_timer.c sets it).
 */
#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/idr.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu_counter.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/uidgid.h>
#include <linux/user_namespace.h>

#include "dev_file.h"
#include "stats.h"

static unsigned long max_timers_per_fd = 1048576;
module_param(max_timers_per_fd, ulong, 0644);
MODULE_PARM_DESC(max_timers_per_fd,
		 "Cap on the timers of one open file of /dev/twheel (ENOSPC)");

static unsigned long max_timers = 4194304;
module_param(max_timers, ulong, 0644);
MODULE_PARM_DESC(max_timers,
		 "Cap on the timers of all open files of /dev/twheel (ENOSPC)");

static unsigned long max_timers_per_user = 1048576;
module_param(max_timers_per_user, ulong, 0644);
MODULE_PARM_DESC(max_timers_per_user,
		 "Cap on the timers of all files one user opened (ENOSPC)");

/**
 * struct twheel_user - the timers of one user's open files
 * @node:	in twheel_users
 * @ns:		the user namespace of @uid
 * @uid:	the user
 * @parent:	the owner of @ns in its parent namespace; NULL in the
 *		initial one. Holds a reference on it.
 * @ref:	open files of the user and children, under twheel_users_lock
 * @nr:		timers and table slots charged at this level, against
 *		max_timers_per_user
 * @group:	fairness group of the timers of the user's files: its own
 *		(from twheel_groups) in the initial namespace, else its
 *		parent's; constant
 */
struct twheel_user {
	struct hlist_node	node;
	struct user_namespace	*ns;
	kuid_t			uid;
	struct twheel_user	*parent;
	unsigned long		ref;
	atomic_long_t		nr;
	u32			group;
};

static DEFINE_HASHTABLE(twheel_users, 6);
/* Fairness groups of the users of the initial namespace; 0 is in-kernel. */
static DEFINE_IDA(twheel_groups);
/* twheel_users and every ->ref; open() and release() only: may sleep. */
static DEFINE_MUTEX(twheel_users_lock);

/**
 * twheel_dev_max_per_user() - current value of max_timers_per_user
 *
 * Return: the cap on timers of one user's files.
 */
unsigned long twheel_dev_max_per_user(void)
{
	return READ_ONCE(max_timers_per_user);
}

static unsigned long twheel_user_key(struct user_namespace *ns, kuid_t uid)
{
	return (unsigned long)ns ^ __kuid_val(uid);
}

/* Users lock held: drop a reference on @u, and on its parents if freed. */
static void twheel_user_unref(struct twheel_user *u)
{
	struct twheel_user *parent;

	while (u && !--u->ref) {
		WARN_ON_ONCE(atomic_long_read(&u->nr));
		parent = u->parent;
		if (!parent && u->group)
			ida_free(&twheel_groups, u->group);
		hash_del(&u->node);
		kfree(u);
		u = parent;
	}
}

/**
 * twheel_user_get() - the count of the calling user, for a file it opens
 *
 * The user and, if it is new, its parents up to the initial namespace.
 *
 * Context: process context; sleeps.
 * Return: the user's count, with a reference for the file, or NULL (ENOMEM).
 */
struct twheel_user *twheel_user_get(void)
{
	struct user_namespace *ns = current_user_ns();
	struct twheel_user *u, *leaf = NULL, *child = NULL;
	kuid_t uid = current_uid();
	unsigned long key;
	int group;

	mutex_lock(&twheel_users_lock);
	for (;;) {
		key = twheel_user_key(ns, uid);
		hash_for_each_possible(twheel_users, u, node, key)
			if (u->ns == ns && uid_eq(u->uid, uid))
				break;
		if (u) {
			/* It holds its parents already. */
			u->ref++;
		} else {
			group = 0;
			if (ns == &init_user_ns) {
				group = ida_alloc_min(&twheel_groups, 1,
						      GFP_KERNEL);
				if (group < 0)
					break;
			}
			u = kzalloc(sizeof(*u), GFP_KERNEL);
			if (!u) {
				if (group)
					ida_free(&twheel_groups, group);
				break;
			}
			u->group = group;
			u->ns = ns;
			u->uid = uid;
			u->ref = 1;
			atomic_long_set(&u->nr, 0);
			hash_add(twheel_users, &u->node, key);
		}
		if (child)
			child->parent = u;
		else
			leaf = u;
		if (u->ref > 1 || ns == &init_user_ns)
			goto out;
		child = u;
		uid = ns->owner;
		ns = ns->parent;
	}
	/* No memory: give back what the chain took so far. */
	twheel_user_unref(leaf);
	leaf = NULL;
	goto unlock;
out:
	/* The new users of the chain take the group of its top. */
	for (child = leaf; child != u; child = child->parent)
		child->group = u->group;
unlock:
	mutex_unlock(&twheel_users_lock);
	return leaf;
}

/**
 * twheel_user_group() - the fairness group of a user's timers
 * @u:	from twheel_user_get()
 *
 * Return: the group of @u's user in the initial namespace, for
 * twheel_timer_set_group().
 */
u32 twheel_user_group(const struct twheel_user *u)
{
	return u->group;
}

/**
 * twheel_user_put() - drop a file's reference on its user's count
 * @u:	from twheel_user_get(); every timer of the file is uncharged
 *
 * Context: process context; sleeps.
 */
void twheel_user_put(struct twheel_user *u)
{
	mutex_lock(&twheel_users_lock);
	twheel_user_unref(u);
	mutex_unlock(&twheel_users_lock);
}

/* Uncharge @n from @u and its parents. */
static void twheel_user_uncharge(struct twheel_user *u, unsigned long n)
{
	for (; u; u = u->parent)
		atomic_long_sub(n, &u->nr);
}

/*
 * Charge @n to @u and its parents, each against max_timers_per_user: all
 * or nothing.
 */
static bool twheel_user_charge(struct twheel_user *u, unsigned long n)
{
	unsigned long max = twheel_dev_max_per_user();
	struct twheel_user *iter, *undo;

	for (iter = u; iter; iter = iter->parent) {
		if (atomic_long_add_return(n, &iter->nr) > max)
			goto over;
	}
	return true;

over:
	for (undo = u; undo != iter; undo = undo->parent)
		atomic_long_sub(n, &undo->nr);
	atomic_long_sub(n, &iter->nr);
	return false;
}

/**
 * twheel_dev_max_per_file() - current value of max_timers_per_fd
 *
 * Return: the cap on timers of one file.
 */
unsigned long twheel_dev_max_per_file(void)
{
	return READ_ONCE(max_timers_per_fd);
}

/**
 * twheel_dev_max_total() - current value of max_timers
 *
 * Return: the cap on timers of all files.
 */
unsigned long twheel_dev_max_total(void)
{
	return READ_ONCE(max_timers);
}

/*
 * Timers of all files, against max_timers. A percpu_counter: an arm or a
 * cancel only touches this CPU's delta until it reaches percpu_counter_batch,
 * and the exact (locked) sum is computed only when the approximate value is
 * within batch * online CPUs of the cap. Far from the cap an arm therefore
 * writes no shared cache line; near it the cap may be exceeded by at most the
 * number of arms racing on other CPUs at that instant, never durably.
 */
static struct percpu_counter twheel_dev_nr;

/*
 * Is the count of timers of all files over @max? __percpu_counter_compare()
 * with its lockless first look marked as the intended race it is: the
 * approximate count is read while other CPUs fold their deltas into it
 * under the counter's lock, which the slack of batch * online CPUs covers;
 * within the slack the exact sum is taken under that lock.
 */
static bool twheel_dev_over(s64 max)
{
	s64 slack = (s64)percpu_counter_batch * num_online_cpus();
	s64 approx;

	/* Lockless by design: the slack covers what it may miss. */
	approx = data_race(percpu_counter_read(&twheel_dev_nr));
	if (approx < max - slack)
		return false;
	if (approx - slack > max)
		return true;
	return percpu_counter_sum(&twheel_dev_nr) > max;
}

/**
 * twheel_charge() - count one more timer of @f against the three caps
 * @f:	the file
 *
 * Return: 0 or -ENOSPC.
 */
int twheel_charge(struct twheel_file *f)
{
	s64 max_total = min_t(u64, twheel_dev_max_total(), S64_MAX);

	if (atomic_long_inc_return(&f->nr) > twheel_dev_max_per_file())
		goto reject_file;
	if (!twheel_user_charge(f->user, 1))
		goto reject_file;
	percpu_counter_inc(&twheel_dev_nr);
	if (twheel_dev_over(max_total))
		goto reject_total;
	return 0;

reject_total:
	percpu_counter_dec(&twheel_dev_nr);
	twheel_user_uncharge(f->user, 1);
reject_file:
	atomic_long_dec(&f->nr);
	twheel_stat_inc(rejected);
	return -ENOSPC;
}

/**
 * twheel_uncharge() - undo twheel_charge() for @n timers
 * @f:	the file
 * @n:	timers
 */
void twheel_uncharge(struct twheel_file *f, unsigned long n)
{
	atomic_long_sub(n, &f->nr);
	twheel_user_uncharge(f->user, n);
	percpu_counter_sub(&twheel_dev_nr, n);
}

/**
 * twheel_dev_reserve() - count the slots of @f's table against the caps of
 *	its user and of all files
 * @f:	the file
 * @n:	the table's slots
 *
 * Return: 0 or -ENOSPC.
 */
int twheel_dev_reserve(struct twheel_file *f, unsigned long n)
{
	s64 max_total = min_t(u64, twheel_dev_max_total(), S64_MAX);

	if (!twheel_user_charge(f->user, n))
		goto reject;
	percpu_counter_add(&twheel_dev_nr, n);
	if (twheel_dev_over(max_total)) {
		percpu_counter_sub(&twheel_dev_nr, n);
		twheel_user_uncharge(f->user, n);
		goto reject;
	}
	return 0;

reject:
	twheel_stat_inc(rejected);
	return -ENOSPC;
}

/**
 * twheel_dev_unreserve() - undo twheel_dev_reserve()
 * @f:	the file
 * @n:	the table's slots
 */
void twheel_dev_unreserve(struct twheel_file *f, unsigned long n)
{
	twheel_user_uncharge(f->user, n);
	percpu_counter_sub(&twheel_dev_nr, n);
}

/**
 * twheel_dev_caps_init() - set up the count of timers of all files
 *
 * Return: 0 or -ENOMEM.
 */
int twheel_dev_caps_init(void)
{
	return percpu_counter_init(&twheel_dev_nr, 0, GFP_KERNEL);
}

/**
 * twheel_dev_caps_exit() - free the count; every file is closed
 */
void twheel_dev_caps_exit(void)
{
	percpu_counter_destroy(&twheel_dev_nr);
}
