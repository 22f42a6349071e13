/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace side of the /dev/twheel ring ABI for the selftests: set-up and
 * mapping, submission records, reading records without a system call.
 * Header-only, like twheel_hard.h.
 */
#ifndef _TWHEEL_RING_H
#define _TWHEEL_RING_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <linux/twheel.h>

struct tw_uring {
	struct twheel_ring_params p;
	char		*map;
	uint32_t	*head;
	uint32_t	*tail;
	uint32_t	*flags;
	uint32_t	*overflow;
	uint32_t	mask;
	uint32_t	entries;
	struct twheel_cqe *cqes;
};

static inline long tw_ring_ioctl(int fd, unsigned long cmd, void *arg)
{
	long r = ioctl(fd, cmd, arg);

	return r < 0 ? -errno : r;
}

/* TWHEEL_IOC_RING_SETUP only: 0 or -errno. */
static inline long tw_ring_setup_only(int fd, uint32_t slots,
				      uint32_t entries,
				      struct twheel_ring_params *p)
{
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
	p->slots = slots;
	p->ring_entries = entries;
	return tw_ring_ioctl(fd, TWHEEL_IOC_RING_SETUP, p);
}

/* Point @r's fields into the mapping at @map. */
static inline void tw_ring_attach(struct tw_uring *r, void *map)
{
	r->map = map;
	r->head = (uint32_t *)(r->map + r->p.off.head);
	r->tail = (uint32_t *)(r->map + r->p.off.tail);
	r->flags = (uint32_t *)(r->map + r->p.off.flags);
	r->overflow = (uint32_t *)(r->map + r->p.off.overflow);
	r->mask = *(uint32_t *)(r->map + r->p.off.ring_mask);
	r->entries = *(uint32_t *)(r->map + r->p.off.ring_entries);
	r->cqes = (struct twheel_cqe *)(r->map + r->p.off.records);
}

/* Set up and map a ring: 0 or -errno. */
static inline long tw_ring_setup(int fd, uint32_t slots, uint32_t entries,
				 struct tw_uring *r)
{
	long ret = tw_ring_setup_only(fd, slots, entries, &r->p);
	void *map;

	if (ret)
		return ret;
	map = mmap(NULL, r->p.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   fd, r->p.mmap_offset);
	if (map == MAP_FAILED)
		return -errno;
	tw_ring_attach(r, map);
	return 0;
}

static inline void tw_ring_unmap(struct tw_uring *r)
{
	if (r->map)
		munmap(r->map, r->p.mmap_size);
	r->map = NULL;
}

/* Records readable now. */
static inline uint32_t tw_ring_count(const struct tw_uring *r)
{
	return __atomic_load_n(r->tail, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(r->head, __ATOMIC_RELAXED);
}

/* Copy out up to @max records and consume them; no system call. */
static inline unsigned int tw_ring_reap(struct tw_uring *r,
					struct twheel_cqe *out,
					unsigned int max)
{
	uint32_t head = __atomic_load_n(r->head, __ATOMIC_RELAXED);
	uint32_t tail = __atomic_load_n(r->tail, __ATOMIC_ACQUIRE);
	unsigned int n = 0;

	while (head != tail && n < max)
		out[n++] = r->cqes[head++ & r->mask];
	__atomic_store_n(r->head, head, __ATOMIC_RELEASE);
	return n;
}

static inline bool tw_ring_overflowed(const struct tw_uring *r)
{
	return __atomic_load_n(r->flags, __ATOMIC_ACQUIRE) &
	       TWHEEL_RING_OVERFLOW;
}

static inline struct twheel_sqe tw_sqe(uint8_t op, uint32_t slot,
				       uint16_t flags, uint64_t expires,
				       uint64_t period, uint64_t cookie)
{
	struct twheel_sqe q = {
		.op = op, .flags = flags, .slot = slot,
		.clockid = CLOCK_MONOTONIC, .expires = expires,
		.period = period, .cookie = cookie,
	};

	return q;
}

/* TWHEEL_IOC_SUBMIT: the ioctl's result or -errno; *@done if not NULL. */
static inline long tw_submit(int fd, struct twheel_sqe *q, uint32_t n,
			     uint32_t *done)
{
	struct twheel_batch b = {
		.size = sizeof(b), .count = n,
		.entry_size = sizeof(struct twheel_sqe),
		.entries = (uintptr_t)q, .done = ~0U,
	};
	long r = tw_ring_ioctl(fd, TWHEEL_IOC_SUBMIT, &b);

	if (done)
		*done = b.done;
	return r;
}

/* One entry: its result (or the ioctl's -errno). */
static inline long tw_submit1(int fd, uint8_t op, uint32_t slot,
			      uint16_t flags, uint64_t expires,
			      uint64_t period, uint64_t cookie, uint32_t *gen)
{
	struct twheel_sqe q = tw_sqe(op, slot, flags, expires, period, cookie);
	long r = tw_submit(fd, &q, 1, NULL);

	if (r < 0)
		return r;
	if (gen)
		*gen = q.gen;
	return q.result;
}

/* TWHEEL_IOC_FLUSH: 0 or -errno; records moved and left. */
static inline long tw_flush(int fd, uint32_t *flushed, uint32_t *backlog)
{
	struct twheel_flush fl = { .size = sizeof(fl) };
	long r = tw_ring_ioctl(fd, TWHEEL_IOC_FLUSH, &fl);

	if (flushed)
		*flushed = fl.flushed;
	if (backlog)
		*backlog = fl.backlog;
	return r;
}

#endif /* _TWHEEL_RING_H */
