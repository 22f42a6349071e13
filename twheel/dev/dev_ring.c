// SPDX-License-Identifier: GPL-2.0
/*
 * twheel char device: the completion ring of a timer table. Its memory and
 * mmap(), the producer that the tick calls for every expiry of a slot, the
 * backlog of a full ring and its flush, and readiness for poll. Design,
 * locking and context in dev_ring.h.
 */
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/errno.h>
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include "driver.h"
#include "dev_ring.h"
#include "testhooks.h"

/* Backlog records moved per hold of the ring lock by a flush. */
#define TW_FLUSH_BATCH	TWHEEL_LOCK_BUDGET
/* Parked slots re-armed per hold (batch entries on the stack). */
#define TW_UNPARK_BATCH	16

/* Where struct user_struct has locked_vm (io_uring's, among others). */
#if defined(CONFIG_NET) || defined(CONFIG_IO_URING) || \
	defined(CONFIG_VFIO_PCI_ZDEV_KVM) || IS_ENABLED(CONFIG_IOMMUFD) || \
	defined(CONFIG_SECRETMEM)
#define TW_HAVE_LOCKED_VM	1
#endif

/*
 * Charge @n pages to @user's locked_vm against the caller's RLIMIT_MEMLOCK,
 * as io_uring's __io_account_mem() did. Return: 0 or -ENOMEM.
 */
static int tw_account_mem(struct user_struct *user, unsigned long n)
{
#ifdef TW_HAVE_LOCKED_VM
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	unsigned long cur = atomic_long_read(&user->locked_vm), new;

	do {
		new = cur + n;
		if (new > limit || new < cur)
			return -ENOMEM;
	} while (!atomic_long_try_cmpxchg(&user->locked_vm, &cur, new));
#endif
	return 0;
}

static void tw_unaccount_mem(struct user_struct *user, unsigned long n)
{
#ifdef TW_HAVE_LOCKED_VM
	atomic_long_sub(n, &user->locked_vm);
#endif
}

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
 * The ring's pages are charged to the caller's user against its
 * RLIMIT_MEMLOCK, unless it has CAP_IPC_LOCK (and only where struct
 * user_struct has locked_vm: kernels with networking, io_uring, ...).
 *
 * Context: process context, sleeps.
 * Return: 0, or -ENOMEM (RLIMIT_MEMLOCK, or no memory) with nothing left
 * allocated or charged.
 */
int tw_ring_init(struct tw_ring *r, u32 entries, wait_queue_head_t *wq)
{
	size_t size = TW_RING_RECORDS_OFF +
		      (size_t)entries * sizeof(struct twheel_cqe);
	unsigned int i, n = PAGE_ALIGN(size) >> PAGE_SHIFT;
	struct user_struct *user = NULL;
	void *addr;

	raw_spin_lock_init(&r->lock);
	init_irq_work(&r->wake, tw_ring_wake_fn);
	r->wq = wq;
	r->entries = entries;
	r->mask = entries - 1;
	if (!capable(CAP_IPC_LOCK)) {
		user = get_current_user();
		if (tw_account_mem(user, n)) {
			free_uid(user);
			return -ENOMEM;
		}
		r->user = user;
	}
	r->pages = kvcalloc(n, sizeof(*r->pages), GFP_KERNEL_ACCOUNT);
	if (!r->pages)
		goto fail;
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
	if (user) {
		tw_unaccount_mem(user, n);
		free_uid(user);
		r->user = NULL;
	}
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
	if (r->user && r->hdr) {
		tw_unaccount_mem(r->user, r->nr_pages);
		free_uid(r->user);
		r->user = NULL;
	}
	r->hdr = NULL;
	r->pages = NULL;
	r->nr_pages = 0;
}

/*
 * Write one record if the ring has room. Ring lock held. Userspace may
 * write anything to head: a head that is not within one ring behind the
 * tail (tail - head, modulo 2^32, above the ring's size) reads as a full
 * ring, so a bad head loses nothing (expiries wait in the backlog) and
 * overwrites nothing the user has not consumed; the kernel's tail is never
 * read back from the shared page.
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
	/* A parked timer is one-shot in the wheel only. */
	if (s->timer.mode != TWHEEL_MODE_ONESHOT || s->parked)
		flags |= TWHEEL_CQE_PERIODIC;
	cqe->flags = flags;
	/* tw_ring_ready() reads the kernel's tail without the lock. */
	WRITE_ONCE(r->tail, r->tail + 1);
	/* The record before the tail: pairs with the reader's acquire. */
	smp_store_release(&r->hdr->tail, r->tail);
	return true;
}

/* @a + @b, saturated at KTIME_MAX: a deadline stays a valid ktime. */
static u64 tw_deadline_add(u64 a, u64 b)
{
	u64 sum;

	if (check_add_overflow(a, b, &sum) || sum > KTIME_MAX)
		return KTIME_MAX;
	return sum;
}

static u32 tw_add_sat32(u32 a, u64 b)
{
	return min_t(u64, (u64)a + b, U32_MAX);
}

/*
 * Slot @i of @c fired, its record goes to the backlog: into the timer's
 * deadline and overruns (struct tw_slot, whose size this needs), so the
 * tick must not re-arm it: a periodic timer is parked. Both locks held.
 */
static void tw_backlog_add(struct twheel_table *tb, struct tw_chunk *c,
			   unsigned int i)
{
	struct tw_ring *r = &tb->ring;
	struct tw_slot *s = &c->slots[i];
	struct twheel_timer *t = &s->timer;

	BUILD_BUG_ON(IS_ENABLED(CONFIG_64BIT) && sizeof(struct tw_slot) > 80);
	if (WARN_ON_ONCE(test_bit(i, &c->h.backlog))) {
		/* A backlogged slot does not fire; coalesce all the same. */
		t->overruns = tw_add_sat32(t->overruns, 1);
	} else {
		__set_bit(i, &c->h.backlog);
		__set_bit(c->h.first / TW_CHUNK_SLOTS, tb->chunk_backlog);
		/* Read without the lock: tw_ring_ready(), the flush. */
		WRITE_ONCE(r->nr_backlog, r->nr_backlog + 1);
		WRITE_ONCE(r->hdr->flags, r->hdr->flags | TWHEEL_RING_OVERFLOW);
		WRITE_ONCE(r->hdr->overflow, r->hdr->overflow + 1);
	}
	if (t->mode != TWHEEL_MODE_ONESHOT) {
		s->pmode = t->mode;
		s->parked = 1;
		t->mode = TWHEEL_MODE_ONESHOT;
	}
}

/**
 * tw_ring_fire() - TWHEEL_TIMER_TICK callback of every slot: queue a record
 * @t:	the timer of a slot that expired
 *
 * The record goes into the ring, or into the backlog if the ring is full or
 * the backlog is not empty; a periodic slot that goes to the backlog is
 * parked (see "Completion" in dev_ring.h).
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

	raw_spin_lock(&r->lock);
	if (!r->nr_backlog &&
	    tw_ring_put(r, s, t->deadline, t->overruns, 0))
		t->overruns = 0;
	else
		tw_backlog_add(tb, c, i);
	raw_spin_unlock(&r->lock);
	/*
	 * Every expiry wakes, the backlogged ones too: a consumer that read
	 * no OVERFLOW before this one went to the backlog must not sleep
	 * through it (an edge-triggered epoll sees each wake-up as an edge).
	 *
	 * Not queued again while it is pending: a pending irq_work clears
	 * PENDING, then issues a full barrier, before it wakes. This expiry's
	 * record came before wq_has_sleeper()'s full barrier, so either this
	 * read sees PENDING cleared and queues a wake-up of its own, or the
	 * wake-up to come sees the record (irq_work_claim()'s reasoning). A
	 * burst then pays one plain load per expiry instead of an atomic.
	 */
	if (wq_has_sleeper(r->wq) && !irq_work_is_pending(&r->wake))
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
	WRITE_ONCE(r->nr_backlog, r->nr_backlog - 1);
	if (!r->nr_backlog)
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

/* The next backlogged slot at or after slot @from, wrapping. Ring lock. */
static struct tw_slot *tw_backlog_next(struct twheel_table *tb, u32 from)
{
	unsigned long ci = from / TW_CHUNK_SLOTS, bits;
	struct tw_chunk *c;

	if (ci < tb->nr_chunks && test_bit(ci, tb->chunk_backlog)) {
		c = tb->chunks[ci];
		bits = c->h.backlog & (~0UL << (from % TW_CHUNK_SLOTS));
		if (bits)
			return &c->slots[__ffs(bits)];
	}
	ci = find_next_bit(tb->chunk_backlog, tb->nr_chunks, ci + 1);
	if (ci >= tb->nr_chunks)
		ci = find_first_bit(tb->chunk_backlog, tb->nr_chunks);
	if (WARN_ON_ONCE(ci >= tb->nr_chunks))
		return NULL;
	c = tb->chunks[ci];
	return &c->slots[__ffs(c->h.backlog)];
}

/* A parked slot to re-arm once the ring lock is dropped. */
struct tw_unpark {
	u32	gen;
};

/*
 * The record of backlogged slot @s as it leaves the backlog at @now, and,
 * for a parked slot, the batch entry @e that re-arms it. Ring lock held.
 */
static void tw_flush_record(struct tw_slot *s, u64 now, u64 *deadline,
			    u32 *overruns, struct twheel_batch_ent *e)
{
	u64 period = s->timer.period, fired = s->timer.deadline, k;
	u32 pend = s->timer.overruns;

	*deadline = fired;
	*overruns = pend;
	if (!s->parked)
		return;
	/* Only a parked slot's: a new arming would have dropped the record. */
	e->timer = &s->timer;
	e->op = TW_BATCH_MODIFY;
	e->period = period;
	e->mode = s->pmode;
	e->cpu = TWHEEL_CPU_ANY;
	/*
	 * Fixed delay: one period after the record moved, which is after the
	 * lock is dropped (tw_unpark()), not from @now: that was read
	 * before the lock, and the slot may even have fired since.
	 */
	if (s->pmode == TWHEEL_MODE_FIXED_DELAY)
		return;
	/* Fixed rate: the periods that passed while parked, from the clock. */
	k = now > fired ? div64_u64(now - fired, period) : 0;
	k = min_t(u64, k, KTIME_MAX / period);
	*deadline = tw_deadline_add(fired, k * period);
	*overruns = tw_add_sat32(pend, k);
	e->deadline = tw_deadline_add(*deadline, period);
}

/*
 * Move up to TW_FLUSH_BATCH backlog records into the ring, round robin from
 * @r->flush_next; fill @ents (and @un) for the parked slots among them.
 * Ring lock held. Return: records moved; *@more if some are left, *@nents
 * the parked slots to re-arm.
 */
static unsigned int tw_flush_some(struct twheel_table *tb, u64 now,
				  struct twheel_batch_ent *ents,
				  struct tw_unpark *un, unsigned int *nents,
				  bool *more)
{
	struct tw_ring *r = &tb->ring;
	struct twheel_batch_ent *e;
	unsigned int n = 0, i;
	struct tw_chunk *c;
	struct tw_slot *s;
	u64 deadline;
	u32 overruns;
	bool parked;

	*more = false;
	*nents = 0;
	while (r->nr_backlog) {
		if (n == TW_FLUSH_BATCH || *nents == TW_UNPARK_BATCH) {
			*more = true;
			break;
		}
		s = tw_backlog_next(tb, r->flush_next);
		if (!s)
			break;
		/* Stable while the bit is set (see "Locking"). */
		parked = s->parked;
		e = &ents[*nents];
		tw_flush_record(s, now, &deadline, &overruns, e);
		if (!tw_ring_put(r, s, deadline, overruns, TWHEEL_CQE_BACKLOG))
			break;
		if (parked) {
			un[*nents].gen = s->gen;
			e->priv = &un[*nents];
			(*nents)++;
		}
		c = tw_slot_chunk(s);
		i = s - c->slots;
		tw_backlog_del(tb, c, i);
		r->flush_next = tw_slot_index(s) + 1 < tb->nr_slots ?
				tw_slot_index(s) + 1 : 0;
		n++;
	}
	return n;
}

/**
 * tw_ent_keep() - make a batch entry leave its timer as it was
 * @e:	the entry, in its prep (base lock held, timer detached)
 *
 * Pending (the detach found it so) stays pending, with the same deadline,
 * period and mode; idle stays idle.
 */
void tw_ent_keep(struct twheel_batch_ent *e)
{
	struct twheel_timer *t = e->timer;

	if (e->ret > 0) {
		e->op = TW_BATCH_MODIFY;
		e->deadline = t->deadline;
		e->period = t->period;
		e->mode = t->mode;
	} else {
		e->op = TW_BATCH_CANCEL;
	}
}

/*
 * Prep hook of the re-arm of a parked slot, under its base lock with the
 * timer detached: re-arm only if no submission touched the slot since the
 * flush; otherwise put the timer back as that submission left it.
 */
static void tw_unpark_prep(struct twheel_batch_ent *e)
{
	struct tw_slot *s = container_of(e->timer, struct tw_slot, timer);
	const struct tw_unpark *un = e->priv;

	if (s->parked && s->gen == un->gen) {
		s->parked = 0;
		/* Its record left: the next one counts from 0. */
		s->timer.overruns = 0;
		return;
	}
	/*
	 * Re-armed meanwhile and pending, or cancelled, or a one-shot that
	 * fired: left as it is.
	 */
	tw_ent_keep(e);
}

/*
 * Re-arm @n parked slots, in runs of one base each, once their records
 * moved (ring lock dropped). A fixed-delay slot goes on one period after
 * that: from a clock read now, which is after its record moved and after
 * the deadline that record reports. Process context.
 */
static void tw_unpark(struct twheel_batch_ent *ents, unsigned int n)
{
	unsigned int i = 0, j;
	u64 now = ktime_get_ns();
	int cpu;

	for (i = 0; i < n; i++)
		if (ents[i].mode == TWHEEL_MODE_FIXED_DELAY)
			ents[i].deadline = tw_deadline_add(now, ents[i].period);
	i = 0;
	while (i < n) {
		cpu = READ_ONCE(ents[i].timer->cpu);
		for (j = i + 1; j < n && READ_ONCE(ents[j].timer->cpu) == cpu;
		     j++)
			;
		i += twheel_batch_on(cpu, ents + i, j - i, tw_unpark_prep);
		if (i < j)
			twheel_batch_one(&ents[i++], tw_unpark_prep);
	}
}

/**
 * tw_ring_flush() - move backlog records into the ring while it has room
 * @tb:	the table
 *
 * Bounded steps with the ring lock held and interrupts off, rescheduling in
 * between; the parked slots whose records moved are re-armed and waiters
 * woken after the lock is dropped. The clock is read before the lock.
 *
 * Context: process context.
 * Return: records moved.
 */
unsigned int tw_ring_flush(struct twheel_table *tb)
{
	struct twheel_batch_ent ents[TW_UNPARK_BATCH];
	struct tw_unpark un[TW_UNPARK_BATCH];
	struct tw_ring *r = &tb->ring;
	unsigned int n, nents, total = 0;
	bool more;
	u64 now;

	if (!READ_ONCE(r->nr_backlog))
		return 0;
	do {
		now = ktime_get_ns();
		twheel_hook(TWHEEL_HOOK_ring_flush);
		raw_spin_lock_irq(&r->lock);
		n = tw_flush_some(tb, now, ents, un, &nents, &more);
		raw_spin_unlock_irq(&r->lock);
		if (nents)
			tw_unpark(ents, nents);
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
 * Return: true if records are between head and tail (a head more than the
 * ring's size behind the tail, or ahead of it, counts as none) or the
 * backlog is not empty.
 */
bool tw_ring_ready(struct tw_ring *r)
{
	u32 n = READ_ONCE(r->tail) - READ_ONCE(r->hdr->head);

	/* A head that is not within the ring reads as no record. */
	return (n && n <= r->entries) || READ_ONCE(r->nr_backlog);
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
