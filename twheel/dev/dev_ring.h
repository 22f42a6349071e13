/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel char device: the ring ABI (uapi/linux/twheel.h, "The ring ABI").
 *
 * Structure
 * ---------
 * A file that calls TWHEEL_IOC_RING_SETUP gets a struct twheel_table: a
 * fixed number of slots, each a struct tw_slot embedding a
 * TWHEEL_TIMER_TICK twheel_timer, and a completion ring (struct tw_ring).
 * Slots live in chunks of TW_CHUNK_SLOTS, one page each (kmalloc of
 * PAGE_SIZE, so the chunk of a slot is its address rounded down to a page),
 * allocated and charged to the memory cgroup (__GFP_ACCOUNT) when a slot of
 * the chunk is first armed: about 80 bytes per slot, nothing per arm. The
 * ring is a header and a power-of-2 array of struct twheel_cqe in pages
 * allocated at set-up (charged too), vmap()ed for the kernel and inserted
 * into the user's mapping by mmap().
 *
 * Limits
 * ------
 * The slots of a table count as timers against all three caps
 * (twheel_dev_reserve() for the user's and the global one, @f->nr for
 * max_timers_per_fd, shared with the timers of ABI 1). The ring's pages
 * count against RLIMIT_MEMLOCK of the opener's user (user_struct's
 * locked_vm, as io_uring charged its rings before memory cgroups; exempt
 * with CAP_IPC_LOCK), and a ring has at most max(64, slots rounded up to a
 * power of 2) records: a ring cannot be larger than what its slots need.
 * A period is at least one tick (dev_req.c), and a periodic slot whose
 * record waits in the backlog is parked (see "Completion"): a table costs
 * the tick at most one callback per slot per tick while its records are
 * consumed, and none once they are not.
 *
 * dev_ring_table.c sets the table up, takes submissions and tears it down;
 * dev_ring.c owns the ring: mmap, the producer (the timers' callback), the
 * backlog, flushing and readiness. dev_ring_table.c calls dev_ring.c, never the
 * other way round.
 *
 * Submission
 * ----------
 * TWHEEL_IOC_SUBMIT copies entries in chunks of TW_SUBMIT_CHUNK (one
 * copy_from_user per chunk), reads the clock once per batch, and hands the
 * entries of a chunk to twheel_batch_on() in runs of one base each: one
 * hold of each base lock and at most one tick reprogram per run. The base
 * calls tw_table_prep() for each timer while it is detached under the base
 * lock: that is where a slot's cookie and generation change and its backlog
 * record is dropped, so the tick callback, which runs under the same base
 * lock, sees either the old arming or the new one, never a mix.
 *
 * Completion
 * ----------
 * tw_ring_fire() is the slots' TWHEEL_TIMER_TICK callback: it runs in the
 * tick pass under the base lock (hard irq; a softirq thread on PREEMPT_RT;
 * the base's worker when a pass ran out of budget) and writes the record
 * straight into the ring, O(1): take the ring lock, read head (acquire),
 * write the record, store tail (release). A full ring, or a backlog that is
 * not empty (nothing overtakes the backlog, as io_uring stops posting while
 * its overflow list is not empty), sets the slot's bit in its chunk's
 * @backlog (and the chunk's bit in the table's @chunk_backlog) and raises
 * TWHEEL_RING_OVERFLOW. Every expiry, into the ring or into the backlog,
 * wakes the file's waiters: an edge-triggered epoll consumer that saw no
 * OVERFLOW before a record went to the backlog is woken for it.
 *
 * A periodic slot that goes to the backlog is parked: the callback sets its
 * timer's mode to one-shot (the tick does not re-arm it; the real mode is
 * kept in @pmode) and sets @parked. It runs no callback until its record
 * leaves the backlog, as a timerfd re-arms only when it is read. The
 * backlog is flushed into the ring from process context (flush ioctl,
 * submit, read, poll), in bounded steps with the ring lock dropped in
 * between, round robin over the slots from where the last flush stopped
 * (@flush_next): a waiting record waits for at most one turn of the
 * others. A flushed parked slot's record counts, for a fixed-rate timer,
 * the periods that passed while it was parked (from the clock, read before
 * the lock), and the slot is re-armed after the lock is dropped (a
 * fixed-delay one a period after a clock read then: after its record
 * moved, as the uapi promises), with
 * twheel_batch_on()/twheel_batch_one() and a prep hook that re-checks, under
 * the base lock, that no submission re-armed, modified or cancelled the
 * slot meanwhile (@parked still set, @gen unchanged); if one did, the timer
 * is left as that submission left it.
 *
 * Locking
 * -------
 * tw_ring.lock is a raw_spinlock_t: producers on every CPU take it inside
 * their base lock, in hard irq context. Order: base lock -> ring lock; the
 * flush takes the ring lock alone, with interrupts off. It protects the
 * ring's kernel-side tail, the backlog bitmaps and count, the flush cursor,
 * the shared @flags and @overflow words, and a backlogged slot's record:
 * its timer's deadline and overruns, which the flush only reads (the
 * timer is in no wheel, and its callback, which sets the bit, ran; a
 * submission writes them after tw_table_prep() cleared the bit, the
 * re-arm of a flush after the record moved). A slot's @cookie and @gen
 * change only in tw_table_prep() (base
 * lock held, slot not backlogged): stable for the callback (base lock) and
 * for the flush (ring lock, bit set). @parked and @pmode change under the
 * base lock: set by the callback (ring lock held too, with the bit),
 * cleared by tw_table_prep() after it dropped the bit, or by the re-arm of
 * a flush; the flush reads them under the ring lock with the bit set, so
 * stable. Wait queue locks sleep on PREEMPT_RT, so no
 * wake-up happens under a raw lock: the producer queues @wake, an irq_work
 * (not IRQ_WORK_HARD_IRQ: it runs in hard irq on other kernels and in the
 * irq_work thread on PREEMPT_RT), and the flush wakes after unlocking.
 *
 * Lifetime
 * --------
 * The table lives as long as the file (a mapping holds a reference on the
 * file). The last close cancels every slot of every chunk
 * (twheel_timer_cancel() waits out a callback running under the base lock),
 * syncs @wake and frees everything. The user's pages stay valid until munmap
 * (page references).
 */
#ifndef _TWHEEL_DEV_RING_H
#define _TWHEEL_DEV_RING_H

#include <linux/irq_work.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/twheel.h>
#include <linux/types.h>
#include <linux/wait.h>

#include <uapi/linux/twheel.h>

struct twheel_batch_ent;
struct twheel_file;
struct twheel_table;
struct user_struct;

/**
 * struct tw_slot - one timer of a table (80 bytes on 64-bit)
 * @timer:	the TWHEEL_TIMER_TICK timer; its deadline, period, mode and
 *		overruns are the arming's (mode one-shot while parked). While
 *		the slot's record waits in the backlog, the timer is in no
 *		wheel and its deadline and overruns are the record's (see
 *		"Locking")
 * @cookie:	the cookie of the arming, echoed in records
 * @gen:	generation: incremented by every arm or modify; a slot whose
 *		generation reached U32_MAX is retired (-EOVERFLOW)
 * @parked:	periodic, stopped while its record waits (see "Completion")
 * @pmode:	the timer's enum twheel_mode while parked
 */
struct tw_slot {
	struct twheel_timer	timer;
	u64			cookie;
	u32			gen;
	u8			parked;
	u8			pmode;
};

/**
 * struct tw_chunk_hdr - the head of a chunk of slots
 * @table:	the table
 * @first:	index of the chunk's first slot
 * @backlog:	bit i: slot i's record waits in the backlog (ring lock)
 */
struct tw_chunk_hdr {
	struct twheel_table	*table;
	u32			first;
	unsigned long		backlog;
};

#define TW_CHUNK_SLOTS	min_t(size_t, BITS_PER_LONG, \
			      (PAGE_SIZE - sizeof(struct tw_chunk_hdr)) / \
			      sizeof(struct tw_slot))
#define TW_CHUNK_SLOTS_MAX	64

/**
 * struct tw_chunk - a page of slots
 * @h:		the head
 * @slots:	TW_CHUNK_SLOTS slots (the array is sized for the most that
 *		can fit; only that many are used)
 */
struct tw_chunk {
	struct tw_chunk_hdr	h;
	struct tw_slot		slots[];
};

/**
 * struct tw_ring_hdr - the shared head of the ring (struct
 * twheel_ring_offsets gives the offsets to userspace)
 * @head:	consumer index, written by userspace
 * @tail:	producer index, written by the kernel
 * @ring_mask:	@ring_entries - 1
 * @ring_entries: records in the ring
 * @flags:	TWHEEL_RING_*
 * @overflow:	expiries that found the ring full
 */
struct tw_ring_hdr {
	u32	head ____cacheline_aligned_in_smp;
	u32	tail ____cacheline_aligned_in_smp;
	u32	ring_mask ____cacheline_aligned_in_smp;
	u32	ring_entries;
	u32	flags;
	u32	overflow;
};

/* Records start at this offset of the mapping. */
#define TW_RING_RECORDS_OFF	ALIGN(sizeof(struct tw_ring_hdr), 64)

/**
 * struct tw_ring - the completion ring of a table
 * @lock:	see "Locking" above
 * @tail:	the kernel's tail (never read back from shared memory)
 * @mask:	entries - 1
 * @entries:	records in the ring
 * @hdr:	the shared head (kernel mapping)
 * @cqes:	the shared records (kernel mapping)
 * @nr_backlog:	slots whose record waits in the backlog
 * @flush_next:	the slot the next flush starts looking at
 * @wake:	irq_work waking @wq after a producer
 * @wq:		the file's wait queue (readers and pollers)
 * @pages:	the pages of the mapping
 * @nr_pages:	their number
 * @user:	the user charged for @nr_pages (RLIMIT_MEMLOCK), or NULL
 */
struct tw_ring {
	raw_spinlock_t		lock;	/* see "Locking" above */
	u32			tail;
	u32			mask;
	u32			entries;
	struct tw_ring_hdr	*hdr;
	struct twheel_cqe	*cqes;
	unsigned long		nr_backlog;
	u32			flush_next;
	struct irq_work		wake;
	wait_queue_head_t	*wq;
	struct page		**pages;
	unsigned int		nr_pages;
	struct user_struct	*user;
};

/**
 * struct twheel_table - the timer table of a file
 * @ring:	its completion ring
 * @nr_slots:	slots
 * @nr_chunks:	chunks
 * @chunks:	chunk pointers, NULL until a slot of the chunk is armed (set
 *		once under @alloc_lock, read with smp_load_acquire())
 * @chunk_backlog: bit c: chunk c has a slot in the backlog (ring lock)
 * @alloc_lock:	serialises chunk allocation
 */
struct twheel_table {
	struct tw_ring		ring;
	u32			nr_slots;
	u32			nr_chunks;
	struct tw_chunk		**chunks;
	unsigned long		*chunk_backlog;
	struct mutex		alloc_lock;	/* chunk allocation */
};

static inline struct tw_chunk *tw_slot_chunk(const struct tw_slot *s)
{
	return (struct tw_chunk *)((unsigned long)s & PAGE_MASK);
}

static inline u32 tw_slot_index(const struct tw_slot *s)
{
	const struct tw_chunk *c = tw_slot_chunk(s);

	return c->h.first + (u32)(s - c->slots);
}

/* dev_ring_table.c */
int twheel_table_setup(struct twheel_file *f, struct twheel_ring_params *p);
long twheel_table_submit(struct twheel_file *f, const struct twheel_batch *b,
			 u32 __user *donep);
int twheel_table_flush(struct twheel_file *f, struct twheel_flush *fl);
int twheel_table_mmap(struct twheel_file *f, struct vm_area_struct *vma);
bool twheel_table_ready(struct twheel_file *f);
u32 twheel_table_slots(struct twheel_file *f);
unsigned long twheel_table_release(struct twheel_file *f);

/* dev_ring.c */
int tw_ring_init(struct tw_ring *r, u32 entries, wait_queue_head_t *wq);
void tw_ring_free(struct tw_ring *r);
void tw_ring_fire(struct twheel_timer *t);
bool tw_ring_unbacklog(struct tw_slot *s);
unsigned int tw_ring_flush(struct twheel_table *tb);
bool tw_ring_ready(struct tw_ring *r);
int tw_ring_mmap(struct tw_ring *r, struct vm_area_struct *vma);
void tw_ent_keep(struct twheel_batch_ent *e);

#endif /* _TWHEEL_DEV_RING_H */
