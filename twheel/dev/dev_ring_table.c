// SPDX-License-Identifier: GPL-2.0
/*
 * twheel char device: the timer table of the ring ABI. Set-up, chunk
 * allocation, bulk submission (TWHEEL_IOC_SUBMIT), flush, mmap and
 * release. Design, locking and context in dev_ring.h; the ring itself is
 * dev_ring.c.
 */
#include <linux/bitmap.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/gfp.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/uaccess.h>

#include "driver.h"
#include "dev_file.h"
#include "dev_ring.h"
#include "testhooks.h"

/* Submission entries copied in, and done, per chunk. */
#define TW_SUBMIT_CHUNK	TWHEEL_LOCK_BUDGET

#ifdef TWHEEL_TESTHOOKS
/*
 * Test-only (test builds): the generation the slots of new chunks start
 * at, so that a test reaches the end of the generations without 2^32 arms.
 */
static unsigned int test_ring_gen_base;
module_param(test_ring_gen_base, uint, 0600);
MODULE_PARM_DESC(test_ring_gen_base,
		 "Test only: generation of the slots of new ring chunks");
#define TW_GEN_BASE	READ_ONCE(test_ring_gen_base)
#else
#define TW_GEN_BASE	0U
#endif

/* What tw_table_prep() needs of an entry besides the base's part. */
struct tw_sub {
	u64	cookie;
	u32	gen;
};

/* The working memory of one TWHEEL_IOC_SUBMIT. */
struct tw_submit {
	struct twheel_sqe	sqe[TW_SUBMIT_CHUNK];
	struct twheel_batch_ent	ent[TW_SUBMIT_CHUNK];
	struct tw_sub		sub[TW_SUBMIT_CHUNK];
	u8			idx[TW_SUBMIT_CHUNK];	/* ent -> sqe */
	s32			res[TW_SUBMIT_CHUNK];
	u32			gen[TW_SUBMIT_CHUNK];
};

/*
 * The table of @f, or NULL. Set once by twheel_table_setup() with
 * cmpxchg_release(): the acquire orders the table's set-up before its use.
 */
static struct twheel_table *tw_table(struct twheel_file *f)
{
	/* Pairs with the cmpxchg_release() of the set-up. */
	return smp_load_acquire(&f->table);
}

/*
 * The chunk of slot @slot, allocated (and its timers set up) if @alloc and
 * not yet there. Return: the chunk, NULL (not allocated, !@alloc), or
 * ERR_PTR(-ENOMEM).
 */
static struct tw_chunk *tw_chunk_get(struct twheel_table *tb, u32 slot,
				     bool alloc)
{
	u32 ci = slot / TW_CHUNK_SLOTS, i;
	struct tw_chunk *c;

	/* Pairs with the release below: the chunk is set up when seen. */
	c = smp_load_acquire(&tb->chunks[ci]);
	if (c || !alloc)
		return c;
	mutex_lock(&tb->alloc_lock);
	c = tb->chunks[ci];
	if (!c) {
		/*
		 * A page-sized slab object, aligned to its size as kmalloc
		 * guarantees for powers of two (core-api/memory-allocation):
		 * tw_slot_chunk() rounds a slot's address down. From the
		 * slab, it shows in Slab and slabinfo like the rest.
		 */
		c = kzalloc(PAGE_SIZE, GFP_KERNEL_ACCOUNT);
		if (c) {
			c->h.table = tb;
			c->h.first = ci * TW_CHUNK_SLOTS;
			for (i = 0; i < TW_CHUNK_SLOTS; i++) {
				twheel_timer_setup(&c->slots[i].timer,
						   tw_ring_fire,
						   TWHEEL_TIMER_TICK);
				c->slots[i].gen = TW_GEN_BASE;
			}
			/* Set-up before the pointer: pairs with the acquire. */
			smp_store_release(&tb->chunks[ci], c);
		}
	}
	mutex_unlock(&tb->alloc_lock);
	return c ?: ERR_PTR(-ENOMEM);
}

/* The output fields of @p, and its @slots and @ring_entries, from @tb. */
static void tw_table_params(const struct twheel_table *tb,
			    struct twheel_ring_params *p)
{
	struct tw_ring_hdr *h = NULL;

	p->slots = tb->nr_slots;
	p->ring_entries = tb->ring.entries;
	p->mmap_offset = TWHEEL_RING_MMAP_OFF;
	p->mmap_size = (u64)tb->ring.nr_pages << PAGE_SHIFT;
	p->off = (struct twheel_ring_offsets) {
		.head		= offsetof(typeof(*h), head),
		.tail		= offsetof(typeof(*h), tail),
		.ring_mask	= offsetof(typeof(*h), ring_mask),
		.ring_entries	= offsetof(typeof(*h), ring_entries),
		.flags		= offsetof(typeof(*h), flags),
		.overflow	= offsetof(typeof(*h), overflow),
		.records	= TW_RING_RECORDS_OFF,
	};
	p->cqe_size = sizeof(struct twheel_cqe);
	p->sqe_size = sizeof(struct twheel_sqe);
}

/* TWHEEL_RING_SETUP_QUERY: the parameters of the file's ring. */
static int tw_table_query(struct twheel_file *f, struct twheel_ring_params *p)
{
	struct twheel_table *tb = tw_table(f);

	if (p->flags != TWHEEL_RING_SETUP_QUERY || p->slots ||
	    p->ring_entries || p->__reserved)
		return -EINVAL;
	if (!tb)
		return -ENODEV;
	tw_table_params(tb, p);
	return 0;
}

/* Count @n slots in @f's timers, against max_timers_per_fd. */
static int tw_table_charge_file(struct twheel_file *f, u32 n)
{
	if (atomic_long_add_return(n, &f->nr) <= twheel_dev_max_per_file())
		return 0;
	atomic_long_sub(n, &f->nr);
	return -ENOSPC;
}

/**
 * twheel_table_setup() - TWHEEL_IOC_RING_SETUP: create the table and ring
 * @f:	the file
 * @p:	the parameters, copied in; the output fields are filled in
 *
 * With TWHEEL_RING_SETUP_QUERY, only fills in the parameters of the ring
 * the file has.
 *
 * Context: process context, sleeps.
 * Return: 0, -EBUSY, -EINVAL, -ENOSPC, -ENOMEM or -ENODEV
 * (uapi/linux/twheel.h).
 */
int twheel_table_setup(struct twheel_file *f, struct twheel_ring_params *p)
{
	struct twheel_table *tb;
	int ret;

	BUILD_BUG_ON(TW_CHUNK_SLOTS > TW_CHUNK_SLOTS_MAX);
	BUILD_BUG_ON(sizeof(struct tw_chunk_hdr) +
		     TW_CHUNK_SLOTS * sizeof(struct tw_slot) > PAGE_SIZE);
	BUILD_BUG_ON(U8_MAX + 1 < TW_SUBMIT_CHUNK);

	if (p->flags & TWHEEL_RING_SETUP_QUERY)
		return tw_table_query(f, p);
	if (p->flags || p->__reserved)
		return -EINVAL;
	if (!p->slots || p->slots > TWHEEL_TABLE_MAX_SLOTS)
		return -EINVAL;
	if (!p->ring_entries || p->ring_entries > TWHEEL_RING_MAX_ENTRIES ||
	    !is_power_of_2(p->ring_entries))
		return -EINVAL;
	/* No larger than the slots can need (a page's worth is free). */
	if (p->ring_entries > max_t(unsigned long, TWHEEL_RING_SMALL_ENTRIES,
				    roundup_pow_of_two(p->slots)))
		return -EINVAL;
	if (p->slots > twheel_dev_max_per_file())
		return -ENOSPC;
	if (READ_ONCE(f->table))
		return -EBUSY;
	ret = tw_table_charge_file(f, p->slots);
	if (ret)
		return ret;
	ret = twheel_dev_reserve(f, p->slots);
	if (ret)
		goto uncharge;

	ret = -ENOMEM;
	tb = kzalloc(sizeof(*tb), GFP_KERNEL_ACCOUNT);
	if (!tb)
		goto unreserve;
	mutex_init(&tb->alloc_lock);
	tb->nr_slots = p->slots;
	tb->nr_chunks = DIV_ROUND_UP(p->slots, TW_CHUNK_SLOTS);
	tb->chunks = kvcalloc(tb->nr_chunks, sizeof(*tb->chunks),
			      GFP_KERNEL_ACCOUNT);
	tb->chunk_backlog = kvcalloc(BITS_TO_LONGS(tb->nr_chunks),
				     sizeof(long), GFP_KERNEL_ACCOUNT);
	if (!tb->chunks || !tb->chunk_backlog)
		goto free;
	/* On failure it has freed what it allocated. */
	ret = tw_ring_init(&tb->ring, p->ring_entries, &f->wq);
	if (ret)
		goto free;
	/* Everything set up before the pointer: pairs with the acquires. */
	if (cmpxchg_release(&f->table, NULL, tb)) {
		ret = -EBUSY;
		goto free_ring;
	}
	tw_table_params(tb, p);
	return 0;

free_ring:
	tw_ring_free(&tb->ring);
free:
	kvfree(tb->chunk_backlog);
	kvfree(tb->chunks);
	mutex_destroy(&tb->alloc_lock);
	kfree(tb);
unreserve:
	twheel_dev_unreserve(f, p->slots);
uncharge:
	atomic_long_sub(p->slots, &f->nr);
	return ret;
}

/*
 * Called by the base for each entry, its timer detached under its base
 * lock: drop the slot's backlog record and install the new arming's cookie
 * and generation (see "Submission" in dev_ring.h). An arm or modify of a
 * slot whose generations ran out leaves everything as it was: -EOVERFLOW.
 */
static void tw_table_prep(struct twheel_batch_ent *e)
{
	struct tw_slot *s = container_of(e->timer, struct tw_slot, timer);
	struct tw_sub *sub = e->priv;

	if (e->op != TW_BATCH_CANCEL && s->gen == U32_MAX) {
		tw_ent_keep(e);
		e->ret = -EOVERFLOW;
		return;
	}
	if (tw_ring_unbacklog(s))
		e->ret = 1;
	if (s->parked) {
		/* Parked, its record flushed: the arming was still alive. */
		s->parked = 0;
		e->ret = 1;
	}
	/* Overruns belong to an arming: a modify does not inherit them. */
	s->timer.overruns = 0;
	if (e->op == TW_BATCH_ARM)
		s->cookie = sub->cookie;
	if (e->op != TW_BATCH_CANCEL)
		s->gen++;
	sub->gen = s->gen;
}

/*
 * Check @q and turn it into @e (and @sub). Return: 0, 1 if there is nothing
 * to do (cancel of a slot never armed: result 0), or a negative errno.
 */
static int tw_sqe_parse(struct twheel_table *tb, const struct twheel_sqe *q,
			u64 *now, struct twheel_batch_ent *e,
			struct tw_sub *sub)
{
	u32 allowed = TWHEEL_ARM_ABS | TWHEEL_ARM_FIXED_DELAY;
	struct twheel_timer *t;
	struct twheel_req req;
	struct tw_chunk *c;
	int ret;

	sub->gen = 0;
	if (q->slot >= tb->nr_slots)
		return -EBADSLT;
	if (q->__pad)
		return -EINVAL;
	switch (q->op) {
	case TWHEEL_OP_CANCEL:
		if (q->flags)
			return -EINVAL;
		c = tw_chunk_get(tb, q->slot, false);
		if (!c)
			return 1;
		e->op = TW_BATCH_CANCEL;
		break;
	case TWHEEL_OP_ARM:
		allowed |= TWHEEL_ARM_CPU;
		fallthrough;
	case TWHEEL_OP_MODIFY:
		if (q->flags & ~allowed)
			return -EINVAL;
		ret = twheel_make_req(q->flags, q->clockid, q->expires,
				      q->period, now, &req, false);
		if (ret)
			return ret;
		/*
		 * Converted to CLOCK_MONOTONIC once, an absolute
		 * CLOCK_REALTIME deadline would fire early after the clock
		 * is set back: refused.
		 */
		if (req.clock == TWHEEL_UCLK_REAL)
			return -EINVAL;
		e->cpu = TWHEEL_CPU_ANY;
		if (q->flags & TWHEEL_ARM_CPU) {
			ret = twheel_check_cpu(q->cpu);
			if (ret)
				return ret;
			e->cpu = q->cpu;
		}
		c = tw_chunk_get(tb, q->slot, true);
		if (IS_ERR(c))
			return PTR_ERR(c);
		t = &c->slots[q->slot - c->h.first].timer;
		/* A modify keeps the CPU: only one the caller may use. */
		if (q->op == TWHEEL_OP_MODIFY &&
		    twheel_check_cpu(READ_ONCE(t->cpu)) == -EPERM)
			return -EPERM;
		e->op = q->op == TWHEEL_OP_ARM ? TW_BATCH_ARM : TW_BATCH_MODIFY;
		e->deadline = req.deadline;
		e->period = req.period;
		e->mode = req.mode;
		sub->cookie = q->cookie;
		break;
	default:
		return -EINVAL;
	}
	e->timer = &c->slots[q->slot - c->h.first].timer;
	e->priv = sub;
	e->ret = 0;
	return 0;
}

/* The base an entry is done on: an arm's target, else the timer's base. */
static int tw_ent_cpu(const struct twheel_batch_ent *e, int local)
{
	if (e->op == TW_BATCH_ARM)
		return e->cpu == TWHEEL_CPU_ANY ? local : e->cpu;
	return READ_ONCE(e->timer->cpu);
}

/*
 * Do @n entries in order, in runs of one base each: one lock hold and one
 * reprogram per run; an entry the run cannot take is done alone.
 */
static void tw_submit_ents(struct twheel_batch_ent *ents, unsigned int n,
			   int local)
{
	unsigned int i = 0, j;
	int cpu;

	while (i < n) {
		cpu = tw_ent_cpu(&ents[i], local);
		for (j = i + 1; j < n && tw_ent_cpu(&ents[j], local) == cpu; j++)
			;
		i += twheel_batch_on(cpu, ents + i, j - i, tw_table_prep);
		if (i < j)
			twheel_batch_one(&ents[i++], tw_table_prep);
	}
}

/* Write @n results and generations to the entries at @uq. */
static bool tw_put_results(struct twheel_sqe __user *uq, const s32 *res,
			   const u32 *gen, unsigned int n)
{
	unsigned int i;

	if (!user_write_access_begin(uq, n * sizeof(*uq)))
		return false;
	for (i = 0; i < n; i++) {
		unsafe_put_user(res[i], &uq[i].result, efault);
		unsafe_put_user(gen[i], &uq[i].gen, efault);
	}
	user_write_access_end();
	return true;
efault:
	user_write_access_end();
	return false;
}

/*
 * Do one chunk of @n entries, copied in at @w->sqe. Return: how many got a
 * result >= 0.
 */
static long tw_submit_chunk(struct twheel_table *tb, struct tw_submit *w,
			    unsigned int n, u64 *now, int local)
{
	unsigned int i, k, nents = 0;
	long ok = 0;
	int ret;

	for (i = 0; i < n; i++) {
		ret = tw_sqe_parse(tb, &w->sqe[i], now, &w->ent[nents],
				   &w->sub[nents]);
		w->res[i] = min(ret, 0);
		w->gen[i] = 0;
		if (!ret)
			w->idx[nents++] = i;
	}
	/* Test-only: between the checks and the arms (a CPU may go). */
	twheel_hook(TWHEEL_HOOK_ring_submit);
	tw_submit_ents(w->ent, nents, local);
	for (k = 0; k < nents; k++) {
		w->res[w->idx[k]] = w->ent[k].ret;
		/* Set by the prep hook, which an -ENXIO entry never reached. */
		w->gen[w->idx[k]] = w->ent[k].ret < 0 ? 0 : w->sub[k].gen;
	}
	for (i = 0; i < n; i++)
		ok += w->res[i] >= 0;
	return ok;
}

/**
 * twheel_table_submit() - TWHEEL_IOC_SUBMIT
 * @f:		the file
 * @b:		the batch header, checked by the caller (flags, count,
 *		entry_size == sizeof(struct twheel_sqe))
 * @donep:	where @b's done field is, in userspace
 *
 * Entries are copied in chunks of TW_SUBMIT_CHUNK; before a chunk is done,
 * its result fields are written once (with the values read) so that a
 * chunk is done only if its results can be written back.
 *
 * Context: process context, sleeps.
 * Return: entries with a result >= 0, or -ENODEV, -EFAULT, -ENOMEM.
 */
long twheel_table_submit(struct twheel_file *f, const struct twheel_batch *b,
			 u32 __user *donep)
{
	struct twheel_table *tb = tw_table(f);
	struct twheel_sqe __user *uq = u64_to_user_ptr(b->entries);
	struct tw_submit *w = NULL;
	unsigned int n, i;
	bool fault = false;
	u32 done = 0;
	long ok = 0;
	u64 now = 0;
	int local;

	if (!tb)
		return -ENODEV;
	tw_ring_flush(tb);
	if (b->count) {
		w = kmalloc(sizeof(*w), GFP_KERNEL);
		if (!w)
			return -ENOMEM;
		twheel_hook_poison(TWHEEL_HOOK_poison_alloc, w, sizeof(*w));
	}
	/* Arms without a named CPU go to the submitter's CPU of the moment. */
	local = raw_smp_processor_id();
	for (; done < b->count; done += n) {
		n = min_t(u32, b->count - done, TW_SUBMIT_CHUNK);
		if (copy_from_user(w->sqe, uq + done, n * sizeof(*uq))) {
			fault = true;
			break;
		}
		for (i = 0; i < n; i++) {
			w->res[i] = w->sqe[i].result;
			w->gen[i] = w->sqe[i].gen;
		}
		if (!tw_put_results(uq + done, w->res, w->gen, n)) {
			fault = true;
			break;
		}
		ok += tw_submit_chunk(tb, w, n, &now, local);
		/* Only if userspace changed its mapping meanwhile. */
		if (!tw_put_results(uq + done, w->res, w->gen, n)) {
			fault = true;
			done += n;
			break;
		}
		cond_resched();
	}
	kfree(w);
	if (put_user(done, donep))
		return -EFAULT;
	if (fault && !done)
		return -EFAULT;
	return ok;
}

/**
 * twheel_table_flush() - move backlog records into the ring
 * @f:	the file
 * @fl:	out: records moved and left (may be NULL)
 *
 * Context: process context.
 * Return: 0, or -ENODEV if the file has no ring.
 */
int twheel_table_flush(struct twheel_file *f, struct twheel_flush *fl)
{
	struct twheel_table *tb = tw_table(f);
	unsigned int n;

	if (!tb)
		return -ENODEV;
	n = tw_ring_flush(tb);
	if (fl) {
		fl->flushed = n;
		fl->backlog = min_t(unsigned long,
				    READ_ONCE(tb->ring.nr_backlog), U32_MAX);
	}
	return 0;
}

/**
 * twheel_table_mmap() - mmap() of the file: the ring
 * @f:		the file
 * @vma:	the mapping
 *
 * Return: 0, -ENODEV if the file has no ring, or an error of
 * tw_ring_mmap().
 */
int twheel_table_mmap(struct twheel_file *f, struct vm_area_struct *vma)
{
	struct twheel_table *tb = tw_table(f);

	if (!tb)
		return -ENODEV;
	return tw_ring_mmap(&tb->ring, vma);
}

/**
 * twheel_table_ready() - records to read, or backlog to flush?
 * @f:	the file
 *
 * Return: false if the file has no ring.
 */
bool twheel_table_ready(struct twheel_file *f)
{
	struct twheel_table *tb = tw_table(f);

	return tb && tw_ring_ready(&tb->ring);
}

/**
 * twheel_table_slots() - the slots of @f's table
 * @f:	the file
 *
 * Return: the slots, counted in @f->nr; 0 if the file has no ring.
 */
u32 twheel_table_slots(struct twheel_file *f)
{
	struct twheel_table *tb = tw_table(f);

	return tb ? tb->nr_slots : 0;
}

/**
 * twheel_table_release() - cancel every timer of the table and free it
 * @f:	the file, at its last close
 *
 * Context: process context, sleeps.
 * Return: the number of timers that were pending.
 */
unsigned long twheel_table_release(struct twheel_file *f)
{
	struct twheel_table *tb = f->table;
	unsigned long n = 0;
	struct tw_chunk *c;
	unsigned int ci, i;

	if (!tb)
		return 0;
	/* A callback runs under its base lock: none runs after its cancel. */
	for (ci = 0; ci < tb->nr_chunks; ci++) {
		c = tb->chunks[ci];
		if (!c)
			continue;
		for (i = 0; i < TW_CHUNK_SLOTS; i++)
			n += twheel_timer_cancel(&c->slots[i].timer);
		cond_resched();
	}
	tw_ring_free(&tb->ring);
	for (ci = 0; ci < tb->nr_chunks; ci++)
		kfree(tb->chunks[ci]);
	kvfree(tb->chunk_backlog);
	kvfree(tb->chunks);
	mutex_destroy(&tb->alloc_lock);
	twheel_dev_unreserve(f, tb->nr_slots);
	atomic_long_sub(tb->nr_slots, &f->nr);
	kfree(tb);
	f->table = NULL;
	return n;
}
