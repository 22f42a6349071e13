/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_uring.h - the least of io_uring a selftest needs to poll a file
 * through it, on raw system calls (no liburing in the test initramfs): one
 * ring, multishot POLL_ADD, and reaping completions.
 */
#ifndef TWHEEL_URING_H
#define TWHEEL_URING_H

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/io_uring.h>

struct tu_ring {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

/* 0, or -errno (io_uring missing or disabled: the caller skips). */
static inline int tu_init(struct tu_ring *u, unsigned int entries)
{
	struct io_uring_params p;
	size_t sq_sz, cq_sz;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	u->fd = syscall(__NR_io_uring_setup, entries, &p);
	if (u->fd < 0)
		return -errno;
	sq_sz = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	cq_sz = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	sq = mmap(NULL, sq_sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  u->fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, cq_sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  u->fd, IORING_OFF_CQ_RING);
	u->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		       u->fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || u->sqes == MAP_FAILED) {
		close(u->fd);
		return -ENOMEM;
	}
	u->sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	u->sq_mask = (unsigned int *)(sq + p.sq_off.ring_mask);
	u->sq_array = (unsigned int *)(sq + p.sq_off.array);
	u->cq_head = (unsigned int *)(cq + p.cq_off.head);
	u->cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	u->cq_mask = (unsigned int *)(cq + p.cq_off.ring_mask);
	u->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return 0;
}

/* Submit a multishot POLL_ADD of POLLIN on @fd: 1 (submitted) or -errno. */
static inline int tu_poll_multi(struct tu_ring *u, int fd, uint64_t data)
{
	unsigned int tail = *u->sq_tail, i = tail & *u->sq_mask;
	struct io_uring_sqe *sqe = &u->sqes[i];
	int n;

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_POLL_ADD;
	sqe->fd = fd;
	/* The kernel swaps its halves on big-endian (io_poll_parse_events()). */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	sqe->poll32_events = (uint32_t)POLLIN << 16;
#else
	sqe->poll32_events = POLLIN;
#endif
	sqe->len = IORING_POLL_ADD_MULTI;
	sqe->user_data = data;
	u->sq_array[i] = i;
	__atomic_store_n(u->sq_tail, tail + 1, __ATOMIC_RELEASE);
	n = syscall(__NR_io_uring_enter, u->fd, 1, 0, 0, NULL, 0);
	return n < 0 ? -errno : n;
}

/*
 * Wait up to @ms for completions and take them all: their number (0 on
 * timeout); the last one's res and flags in *@res and *@flags.
 */
static inline int tu_reap(struct tu_ring *u, int ms, int32_t *res,
			  uint32_t *flags)
{
	struct pollfd pfd = { .fd = u->fd, .events = POLLIN };
	unsigned int head = *u->cq_head, tail;
	int n = 0;

	if (poll(&pfd, 1, ms) <= 0)
		return 0;
	tail = __atomic_load_n(u->cq_tail, __ATOMIC_ACQUIRE);
	for (; head != tail; head++, n++) {
		*res = u->cqes[head & *u->cq_mask].res;
		*flags = u->cqes[head & *u->cq_mask].flags;
	}
	__atomic_store_n(u->cq_head, head, __ATOMIC_RELEASE);
	return n;
}

#endif /* TWHEEL_URING_H */
