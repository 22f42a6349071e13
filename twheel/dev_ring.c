// SPDX-License-Identifier: GPL-2.0
/*
 * twheel char device: the completion ring of a timer table. Its memory and
 * mmap(), the producer that the tick calls for every expiry of a slot, the
 * backlog of a full ring and its flush, and readiness for poll. Design,
 * locking and context in dev_ring.h.
 */
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/gfp.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "dev_ring.h"

/* Backlog records moved per hold of the ring lock by a flush. */
#define TW_FLUSH_BATCH	64

static void tw_ring_wake_fn(struct irq_work *work)
{
	struct tw_ring *r = container_of(work, struct tw_ring, wake);

	wake_up(r->wq);
}

/**
 * tw_ring_init() - allocate and map a ring
 * @r:		zeroed ring
 * @entries:	records, a power of 2
 * @wq:		the wait queue to wake when records arrive
 *
 * Context: process context, sleeps.
 * Return: 0, or -ENOMEM with nothing left allocated.
 */
int tw_ring_init(struct tw_ring *r, u32 entries, wait_queue_head_t *wq)
{
	size_t size = TW_RING_RECORDS_OFF +
		      (size_t)entries * sizeof(struct twheel_cqe);
	unsigned int i, n = PAGE_ALIGN(size) >> PAGE_SHIFT;
	void *addr;

	raw_spin_lock_init(&r->lock);
	init_irq_work(&r->wake, tw_ring_wake_fn);
	r->wq = wq;
	r->entries = entries;
	r->mask = entries - 1;
	r->pages = kvcalloc(n, sizeof(*r->pages), GFP_KERNEL_ACCOUNT);
	if (!r->pages)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		r->pages[i] = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		if (!r->pages[i])
			goto fail;
		r->nr_pages++;
	}
	addr = vmap(r->pages, n, VM_MAP, PAGE_KERNEL);
	if (!addr)
		goto fail;
	r->hdr = addr;
	r->cqes = addr + TW_RING_RECORDS_OFF;
	r->hdr->ring_mask = r->mask;
	r->hdr->ring_entries = entries;
	return 0;
fail:
	tw_ring_free(r);
	return -ENOMEM;
}

/**
 * tw_ring_free() - free a ring set up by tw_ring_init()
 * @r:	the ring; no producer may run any more
 *
 * Context: process context, sleeps.
 */
void tw_ring_free(struct tw_ring *r)
{
	unsigned int i;

	irq_work_sync(&r->wake);
	if (r->hdr)
		vunmap(r->hdr);
	for (i = 0; i < r->nr_pages; i++)
		__free_page(r->pages[i]);
	kvfree(r->pages);
	r->hdr = NULL;
	r->pages = NULL;
	r->nr_pages = 0;
}

/*
 * Write one record if the ring has room. Ring lock held. Userspace may
 * write anything to head: a head that is not within one ring of the tail
 * reads as a full ring, so a bad head loses nothing and overwrites nothing
 * the user has not consumed.
 */
static bool tw_ring_put(struct tw_ring *r, const struct tw_slot *s,
			u64 deadline, u32 overruns, u32 flags)
{
	struct twheel_cqe *cqe;
	u32 head;

	lockdep_assert_held(&r->lock);
	/* Records before head are consumed: pairs with the user's release. */
	head = smp_load_acquire(&r->hdr->head);
	if (r->tail - head >= r->entries)
		return false;
	cqe = &r->cqes[r->tail & r->mask];
	cqe->cookie = s->cookie;
	cqe->deadline = deadline;
	cqe->slot = tw_slot_index(s);
	cqe->gen = s->gen;
	cqe->overruns = overruns;
	if (s->timer.mode != TWHEEL_MODE_ONESHOT)
		flags |= TWHEEL_CQE_PERIODIC;
	cqe->flags = flags;
	/* The record before the tail: pairs with the reader's acquire. */
	smp_store_release(&r->hdr->tail, ++r->tail);
	return true;
}

static u32 tw_add_sat32(u32 a, u64 b)
{
	return min_t(u64, (u64)a + b, U32_MAX);
}

/**
 * tw_ring_fire() - TWHEEL_TIMER_TICK callback of every slot: queue a record
 * @t:	the timer of a slot that expired
 *
 * Context: the tick pass, base lock held, interrupts off (hard irq, or a
 * softirq thread on PREEMPT_RT, or the base's worker). O(1); takes the ring
 * lock (raw); wakes waiters through an irq_work.
 */
void tw_ring_fire(struct twheel_timer *t)
{
	struct tw_slot *s = container_of(t, struct tw_slot, timer);
	struct tw_chunk *c = tw_slot_chunk(s);
	struct twheel_table *tb = c->h.table;
	struct tw_ring *r = &tb->ring;
	unsigned int i = s - c->slots;
	u32 overruns = t->overruns;
	bool queued;

	t->overruns = 0;
	raw_spin_lock(&r->lock);
	if (test_bit(i, &c->h.backlog)) {
		/* Coalesce into the record waiting in the backlog. */
		s->fired = t->deadline;
		s->pend = tw_add_sat32(s->pend, (u64)overruns + 1);
		raw_spin_unlock(&r->lock);
		return;
	}
	queued = tw_ring_put(r, s, t->deadline, overruns, 0);
	if (!queued) {
		__set_bit(i, &c->h.backlog);
		__set_bit(c->h.first / TW_CHUNK_SLOTS, tb->chunk_backlog);
		s->fired = t->deadline;
		s->pend = overruns;
		r->nr_backlog++;
		WRITE_ONCE(r->hdr->flags, r->hdr->flags | TWHEEL_RING_OVERFLOW);
		WRITE_ONCE(r->hdr->overflow, r->hdr->overflow + 1);
	}
	raw_spin_unlock(&r->lock);
	/* A full ring was made ready by an earlier record: no new wake-up. */
	if (queued && wq_has_sleeper(r->wq))
		irq_work_queue(&r->wake);
}

/* Take slot @i of @c off the backlog. Ring lock held. */
static void tw_backlog_del(struct twheel_table *tb, struct tw_chunk *c,
			   unsigned int i)
{
	struct tw_ring *r = &tb->ring;

	__clear_bit(i, &c->h.backlog);
	if (!c->h.backlog)
		__clear_bit(c->h.first / TW_CHUNK_SLOTS, tb->chunk_backlog);
	if (!--r->nr_backlog)
		WRITE_ONCE(r->hdr->flags,
			   r->hdr->flags & ~TWHEEL_RING_OVERFLOW);
}

/**
 * tw_ring_unbacklog() - drop a slot's record from the backlog
 * @s:	the slot, its timer detached under its base lock (so its callback
 *	cannot set the bit meanwhile)
 *
 * Context: base lock held (from tw_table_prep()); takes the ring lock.
 * Return: true if a record was dropped.
 */
bool tw_ring_unbacklog(struct tw_slot *s)
{
	struct tw_chunk *c = tw_slot_chunk(s);
	unsigned int i = s - c->slots;
	struct twheel_table *tb = c->h.table;
	bool ret = false;

	/* Only a flush clears the bit behind our back; only we set it now. */
	if (!test_bit(i, &c->h.backlog))
		return false;
	raw_spin_lock(&tb->ring.lock);
	if (test_bit(i, &c->h.backlog)) {
		tw_backlog_del(tb, c, i);
		ret = true;
	}
	raw_spin_unlock(&tb->ring.lock);
	return ret;
}

/*
 * Move up to TW_FLUSH_BATCH backlog records into the ring, lowest slot
 * first. Ring lock held. Return: records moved; *@more if some are left.
 */
static unsigned int tw_flush_some(struct twheel_table *tb, bool *more)
{
	struct tw_ring *r = &tb->ring;
	unsigned int n = 0, i;
	unsigned long ci = 0;
	struct tw_chunk *c;
	struct tw_slot *s;

	*more = false;
	while (r->nr_backlog) {
		if (n == TW_FLUSH_BATCH) {
			*more = true;
			break;
		}
		ci = find_next_bit(tb->chunk_backlog, tb->nr_chunks, ci);
		if (WARN_ON_ONCE(ci >= tb->nr_chunks))
			break;
		c = tb->chunks[ci];
		i = __ffs(c->h.backlog);
		s = &c->slots[i];
		if (!tw_ring_put(r, s, s->fired, s->pend, TWHEEL_CQE_BACKLOG))
			break;
		tw_backlog_del(tb, c, i);
		n++;
	}
	return n;
}

/**
 * tw_ring_flush() - move backlog records into the ring while it has room
 * @tb:	the table
 *
 * Bounded steps with the ring lock held and interrupts off, rescheduling in
 * between; waiters are woken after the lock is dropped.
 *
 * Context: process context.
 * Return: records moved.
 */
unsigned int tw_ring_flush(struct twheel_table *tb)
{
	struct tw_ring *r = &tb->ring;
	unsigned int n, total = 0;
	bool more;

	if (!READ_ONCE(r->nr_backlog))
		return 0;
	do {
		raw_spin_lock_irq(&r->lock);
		n = tw_flush_some(tb, &more);
		raw_spin_unlock_irq(&r->lock);
		total += n;
		cond_resched();
	} while (more);
	if (total && wq_has_sleeper(r->wq))
		wake_up(r->wq);
	return total;
}

/**
 * tw_ring_ready() - are records readable, or waiting in the backlog?
 * @r:	the ring
 *
 * Lockless, for poll(): the producer's wq_has_sleeper() pairs with the
 * barrier after poll_wait().
 *
 * Return: true if head != tail or the backlog is not empty.
 */
bool tw_ring_ready(struct tw_ring *r)
{
	return READ_ONCE(r->hdr->head) != READ_ONCE(r->tail) ||
	       READ_ONCE(r->nr_backlog);
}

/**
 * tw_ring_mmap() - map the ring into a process
 * @r:		the ring
 * @vma:	offset TWHEEL_RING_MMAP_OFF, at most the ring's size,
 *		MAP_SHARED, not executable
 *
 * Context: mmap(), mmap lock held for writing.
 * Return: 0, -EINVAL (offset, length, MAP_PRIVATE), -EPERM (PROT_EXEC), or
 * an error of vm_insert_pages().
 */
int tw_ring_mmap(struct tw_ring *r, struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	unsigned long n = len >> PAGE_SHIFT;

	if (vma->vm_pgoff != (TWHEEL_RING_MMAP_OFF >> PAGE_SHIFT) ||
	    n > r->nr_pages)
		return -EINVAL;
	/* A private copy would never see a record after the first write. */
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
#ifdef TWHEEL_HAVE_VM_FLAGS_SET
	vm_flags_mod(vma, VM_DONTEXPAND | VM_DONTDUMP, VM_MAYEXEC);
#else
	vma->vm_flags = (vma->vm_flags | VM_DONTEXPAND | VM_DONTDUMP) &
			~VM_MAYEXEC;
#endif
	return vm_insert_pages(vma, vma->vm_start, r->pages, &n);
}
