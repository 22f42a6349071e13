// SPDX-License-Identifier: GPL-2.0
/*
 * twheel char device: the id table of ABI 1, where the timers of a file
 * live and where ids are looked up (design in dev_file.h, "Table").
 *
 * A file's timers are slots of chunks of TWHEEL_UCHUNK struct
 * twheel_utimer (one page on 64-bit), allocated and charged to the memory
 * cgroup when no slot is free and kept until the last close: nothing is
 * allocated per arm. A directory of chunk pointers, doubled when full,
 * finds a slot's chunk; chunks never move. Free slots are on @f->ufree. An id is the
 * slot's number plus one in its low TWHEEL_USLOT_BITS bits and the slot's
 * generation above them, so a lookup is two loads and a compare, and an id
 * is never handed out twice: a slot whose generations are used up is
 * retired. All under the file lock, but twheel_utable_grow(), which
 * allocates with it dropped.
 */
#include <linux/bug.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "dev_file.h"

/**
 * twheel_utable_pop() - take a free slot of the table
 * @f:	the file, its lock held
 *
 * The slot keeps @dead set, so lookups do not find it before the caller
 * has set it up and cleared @dead under the same hold of the lock.
 *
 * Return: the timer of the slot, its @id the new id, or NULL if no slot is
 * free (twheel_utable_grow() adds some).
 */
struct twheel_utimer *twheel_utable_pop(struct twheel_file *f)
{
	struct twheel_utimer *ut;

	lockdep_assert_held(&f->lock);

	ut = list_first_entry_or_null(&f->ufree, struct twheel_utimer, cb.link);
	if (ut)
		list_del_init(&ut->cb.link);
	return ut;
}

/**
 * twheel_utable_push() - free the slot of a timer whose id was released
 * @f:	the file, its lock held
 * @ut:	the timer, @dead, neither armed nor reachable by its callback
 *
 * The slot's next id is its generation plus one; a slot with no generation
 * left is retired instead, so that no id is ever reused.
 */
void twheel_utable_push(struct twheel_file *f, struct twheel_utimer *ut)
{
	u64 next = ut->id + BIT_ULL(TWHEEL_USLOT_BITS);

	lockdep_assert_held(&f->lock);

	if (next > TWHEEL_ID_MAX)
		return;
	ut->id = next;
	list_add(&ut->cb.link, &f->ufree);
}

/* The timer of slot @slot; the slot's chunk exists. */
static struct twheel_utimer *twheel_utable_slot(struct twheel_file *f,
						u32 slot)
{
	return &f->uchunks[slot / TWHEEL_UCHUNK][slot % TWHEEL_UCHUNK];
}

/**
 * twheel_utable_lookup() - the live timer with id @id
 * @f:	the file, its lock held
 * @id:	the id, from userspace
 *
 * Return: the timer, or NULL if no live timer has that id.
 */
struct twheel_utimer *twheel_utable_lookup(struct twheel_file *f, u64 id)
{
	u64 slot = id & (BIT_ULL(TWHEEL_USLOT_BITS) - 1);
	struct twheel_utimer *ut;

	lockdep_assert_held(&f->lock);

	if (!slot || id > TWHEEL_ID_MAX ||
	    slot - 1 >= (u64)f->nr_uchunks * TWHEEL_UCHUNK)
		return NULL;
	ut = twheel_utable_slot(f, slot - 1);
	return !ut->dead && ut->id == id ? ut : NULL;
}

/**
 * twheel_utable_grow() - add a chunk of free slots to the table
 * @f:		the file, its lock not held
 * @fire:	the expiry callback of its timers
 *
 * Allocates (charged to the memory cgroup) with the lock dropped and sets
 * up the kernel timer of every slot with @fire, once: a slot's timer is
 * never set up again, for the callback of its last arming may still run
 * when the slot is reused (dev_file.h, "Lifetime"). Then installs the
 * chunk under the lock; when the directory is full it is doubled first,
 * its pointers copied under the lock (O(chunks), once per doubling:
 * amortised O(1) per chunk). A racing grow may have added a
 * chunk meanwhile: both are kept, the free list takes every slot.
 *
 * Context: process context, sleeps.
 * Return: 0, -ENOMEM, or -ENOSPC when the table has TWHEEL_USLOT_MAX slots.
 */
int twheel_utable_grow(struct twheel_file *f, twheel_func_t fire)
{
	struct twheel_utimer **dir = NULL, **old = NULL, *c;
	u32 ci, cap, first, i;
	int ret = 0;

	/* A chunk is a page: 32 timers of 128 bytes on 64-bit. */
	BUILD_BUG_ON(IS_ENABLED(CONFIG_64BIT) &&
		     sizeof(struct twheel_utimer) > 128);
	BUILD_BUG_ON(TWHEEL_UCHUNKS_MAX < 1);

	c = kcalloc(TWHEEL_UCHUNK, sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		return -ENOMEM;
	for (i = 0; i < TWHEEL_UCHUNK; i++)
		twheel_timer_init(&c[i].cb.timer, fire);
	spin_lock(&f->lock);
	while (f->nr_uchunks >= f->uchunks_cap) {
		if (f->uchunks_cap >= TWHEEL_UCHUNKS_MAX) {
			ret = -ENOSPC;
			break;
		}
		cap = clamp_t(u32, 2 * f->uchunks_cap, 4, TWHEEL_UCHUNKS_MAX);
		spin_unlock(&f->lock);
		kvfree(dir);
		dir = kvcalloc(cap, sizeof(*dir), GFP_KERNEL_ACCOUNT);
		spin_lock(&f->lock);
		if (!dir) {
			ret = -ENOMEM;
			break;
		}
		/* Another grow doubled it meanwhile. */
		if (f->uchunks_cap >= cap)
			continue;
		memcpy(dir, f->uchunks, f->nr_uchunks * sizeof(*dir));
		old = f->uchunks;
		f->uchunks = dir;
		f->uchunks_cap = cap;
		dir = NULL;
	}
	if (!ret) {
		ci = f->nr_uchunks;
		first = ci * TWHEEL_UCHUNK;
		for (i = 0; i < TWHEEL_UCHUNK; i++) {
			c[i].file = f;
			c[i].id = first + i + 1;
			c[i].dead = 1;
			list_add_tail(&c[i].cb.link, &f->ufree);
		}
		f->uchunks[ci] = c;
		/* Lookups check a slot against this count. */
		f->nr_uchunks = ci + 1;
		c = NULL;
	}
	spin_unlock(&f->lock);
	kfree(c);
	kvfree(dir);
	kvfree(old);
	return ret;
}

/**
 * twheel_utable_at() - the timer of a slot, for walking the whole table
 * @f:		the file, no longer reachable from userspace (no grow races)
 * @slot:	the slot
 *
 * Return: the timer of @slot, or NULL past the last slot.
 */
struct twheel_utimer *twheel_utable_at(struct twheel_file *f, u32 slot)
{
	if (slot >= f->nr_uchunks * TWHEEL_UCHUNK)
		return NULL;
	return twheel_utable_slot(f, slot);
}

/**
 * twheel_utable_free() - free the table of a file
 * @f:	the file; no timer of it is armed or reachable by its callback
 */
void twheel_utable_free(struct twheel_file *f)
{
	u32 ci;

	for (ci = 0; ci < f->nr_uchunks; ci++)
		kfree(f->uchunks[ci]);
	kvfree(f->uchunks);
	f->uchunks = NULL;
	f->nr_uchunks = 0;
	f->uchunks_cap = 0;
	INIT_LIST_HEAD(&f->ufree);
}
