/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libtwheel: the C library of /dev/twheel (many timers on one fd).
 *
 * One handle, struct twheel, wraps one open file of /dev/twheel: a private
 * timer set. Every function returns 0 (or a count) on success and a negative
 * errno on failure; none prints, none keeps global state, and a handle may be
 * used from several threads at once (it is read-only after twheel_open()).
 *
 * Size rules and features are handled here, in one place: every structure
 * the caller passes is accompanied by the sizeof() it was compiled with (the
 * inline wrappers below fill it in), so a program built against an older or
 * newer header keeps working with this library, and the library against an
 * older or newer module. twheel_open() reads TWHEEL_IOC_INFO once; the ABI
 * version and the TWHEEL_FEAT_* bits of the running module are then known
 * (twheel_abi_version(), twheel_has_feature()): a program built against a
 * newer libtwheel asks before it uses a feature the module may lack, and
 * functions that need a missing feature return -EOPNOTSUPP.
 *
 * Manual: libtwheel(3) and the pages it lists; the device: twheel(4). An
 * ABI 1 timer is named by its id and its expiries are events; a ring timer
 * is a slot of the timer table, armed by submissions, and its expiries are
 * records of the completion ring (the glossary of twheel.rst).
 */
#ifndef _TWHEEL_H
#define _TWHEEL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/twheel.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version; twheel_version() gives the one linked at run time. */
#define LIBTWHEEL_MAJOR	1
#define LIBTWHEEL_MINOR	0

/* The device twheel_open() uses when @path is NULL. */
#define TWHEEL_DEVICE	"/dev/twheel"

struct twheel;

/* open / close (twheel_open(3)) */
int twheel_open(const char *path, int flags, struct twheel **twp);
int twheel_open_fd(int fd, struct twheel **twp);
void twheel_close(struct twheel *tw);
int twheel_fd(const struct twheel *tw);
const char *twheel_version(void);

/* info and features (twheel_info(3)) */
unsigned int twheel_abi_version(const struct twheel *tw);
uint64_t twheel_features(const struct twheel *tw);
int twheel_has_feature(const struct twheel *tw, uint64_t feature);
int twheel_get_info_sized(struct twheel *tw, struct twheel_info *info,
			  size_t size);

/* arm (twheel_arm(3)) */
int twheel_arm(struct twheel *tw, uint64_t expires_ns, uint64_t period_ns,
	       uint64_t cookie, uint64_t *id);
int twheel_arm_ex_sized(struct twheel *tw, struct twheel_arm *arm,
			size_t size);
int twheel_arm_batch_sized(struct twheel *tw, struct twheel_arm *arms,
			   unsigned int count, size_t entry_size,
			   unsigned int *done);

/* cancel and modify (twheel_cancel(3)) */
int twheel_cancel(struct twheel *tw, uint64_t id);
int twheel_cancel_batch_sized(struct twheel *tw, struct twheel_cancel *cancels,
			      unsigned int count, size_t entry_size,
			      unsigned int *done);
int twheel_modify(struct twheel *tw, uint64_t id, unsigned int flags,
		  int clockid, uint64_t expires_ns, uint64_t period_ns);

/* query (twheel_query(3)) */
int twheel_query_sized(struct twheel *tw, uint64_t id,
		       struct twheel_query *query, size_t size);

/* events (twheel_read(3)) */
int twheel_read_sized(struct twheel *tw, struct twheel_event *events,
		      unsigned int max, size_t event_size);
int twheel_wait(struct twheel *tw, int timeout_ms);

/*
 * The ring ABI (TWHEEL_FEAT_RING, twheel_ring(3)): a table of timers
 * addressed by slot, armed, modified and cancelled in bulk with
 * twheel_submit(), whose expiries land in a completion ring mapped into the
 * process and read without system calls, like io_uring's CQ ring. On a
 * module without the feature twheel_ring_setup() returns -EOPNOTSUPP.
 */
struct twheel_sqe;
struct twheel_cqe;

struct twheel_ring {
	unsigned int *khead;		/* consumer index, written here */
	unsigned int *ktail;		/* producer index, written by the kernel */
	unsigned int *kflags;		/* TWHEEL_RING_* */
	unsigned int *koverflow;	/* expiries that found the ring full */
	struct twheel_cqe *cqes;	/* records, cqe_size bytes apart */
	unsigned int ring_mask;
	unsigned int ring_entries;
	unsigned int cqe_size;
	unsigned int slots;		/* of the timer table */
	void *map;
	size_t map_size;
};

int twheel_ring_setup(struct twheel *tw, unsigned int slots,
		      unsigned int entries, struct twheel_ring *ring);
void twheel_ring_unmap(struct twheel_ring *ring);
int twheel_submit_sized(struct twheel *tw, struct twheel_sqe *sqes,
			unsigned int count, size_t sqe_size,
			unsigned int *done);
int twheel_ring_flush(struct twheel *tw, unsigned int *backlog);

/* Records ready to be consumed. */
static inline unsigned int twheel_ring_ready(const struct twheel_ring *ring)
{
	return __atomic_load_n(ring->ktail, __ATOMIC_ACQUIRE) - *ring->khead;
}

/* The record at index @head (a value between khead and ktail). */
static inline struct twheel_cqe *twheel_ring_cqe(const struct twheel_ring *ring,
						 unsigned int head)
{
	return (struct twheel_cqe *)((char *)ring->cqes +
				     (size_t)(head & ring->ring_mask) *
				     ring->cqe_size);
}

/*
 * Visit the ready records without consuming them; then call
 * twheel_ring_advance() with the number visited:
 *
 *	twheel_ring_for_each(ring, head, cqe)
 *		n++, handle(cqe);
 *	twheel_ring_advance(ring, n);
 */
#define twheel_ring_for_each(ring, head, cqe)				\
	for ((head) = *(ring)->khead;					\
	     ((cqe) = ((head) != __atomic_load_n((ring)->ktail,	\
						 __ATOMIC_ACQUIRE) ?	\
		       twheel_ring_cqe((ring), (head)) : NULL));	\
	     (head)++)

/*
 * Hand @n consumed records back to the kernel. The release store orders
 * the reads of the records before it; the full barrier after it orders it
 * before a later load of the flags (twheel_ring_overflowed()): a store
 * followed by a load of another location needs one, or the load may see
 * the flags from before the kernel found the ring full.
 */
static inline void twheel_ring_advance(struct twheel_ring *ring, unsigned int n)
{
	__atomic_store_n(ring->khead, *ring->khead + n, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/*
 * Records wait in the kernel's backlog because the ring was full (or other
 * records waited there): after consuming and twheel_ring_advance(), call
 * twheel_ring_flush() (or twheel_submit()) to move them in. The kernel
 * also wakes pollers for each record that goes to the backlog, so a
 * consumer that sleeps in poll or epoll (edge-triggered too) after seeing
 * no OVERFLOW is woken for it.
 */
static inline int twheel_ring_overflowed(const struct twheel_ring *ring)
{
	return __atomic_load_n(ring->kflags, __ATOMIC_ACQUIRE) & 1U;
}

#ifdef TWHEEL_IOC_RING_SETUP
static inline int twheel_submit(struct twheel *tw, struct twheel_sqe *sqes,
				unsigned int count, unsigned int *done)
{
	return twheel_submit_sized(tw, sqes, count, sizeof(*sqes), done);
}

/* Fill one submission: arm @slot (relative, fixed rate if @period_ns). */
static inline void twheel_sqe_arm(struct twheel_sqe *sqe, uint32_t slot,
				  uint64_t expires_ns, uint64_t period_ns,
				  uint64_t cookie)
{
	memset(sqe, 0, sizeof(*sqe));
	sqe->op = TWHEEL_OP_ARM;
	sqe->slot = slot;
	sqe->expires = expires_ns;
	sqe->period = period_ns;
	sqe->cookie = cookie;
}

/* Fill one submission: new deadline and period for @slot, same cookie. */
static inline void twheel_sqe_modify(struct twheel_sqe *sqe, uint32_t slot,
				     uint64_t expires_ns, uint64_t period_ns)
{
	memset(sqe, 0, sizeof(*sqe));
	sqe->op = TWHEEL_OP_MODIFY;
	sqe->slot = slot;
	sqe->expires = expires_ns;
	sqe->period = period_ns;
}

/* Fill one submission: cancel @slot. */
static inline void twheel_sqe_cancel(struct twheel_sqe *sqe, uint32_t slot)
{
	memset(sqe, 0, sizeof(*sqe));
	sqe->op = TWHEEL_OP_CANCEL;
	sqe->slot = slot;
}
#endif /* TWHEEL_IOC_RING_SETUP */

/*
 * The caller's sizeof() of each structure, filled in here so that the
 * library never reads or writes past what the caller compiled.
 */
static inline int twheel_get_info(struct twheel *tw, struct twheel_info *info)
{
	return twheel_get_info_sized(tw, info, sizeof(*info));
}

static inline int twheel_arm_ex(struct twheel *tw, struct twheel_arm *arm)
{
	return twheel_arm_ex_sized(tw, arm, sizeof(*arm));
}

static inline int twheel_arm_batch(struct twheel *tw, struct twheel_arm *arms,
				   unsigned int count, unsigned int *done)
{
	return twheel_arm_batch_sized(tw, arms, count, sizeof(*arms), done);
}

static inline int twheel_cancel_batch(struct twheel *tw,
				      struct twheel_cancel *cancels,
				      unsigned int count, unsigned int *done)
{
	return twheel_cancel_batch_sized(tw, cancels, count, sizeof(*cancels),
					 done);
}

static inline int twheel_query(struct twheel *tw, uint64_t id,
			       struct twheel_query *query)
{
	return twheel_query_sized(tw, id, query, sizeof(*query));
}

static inline int twheel_read(struct twheel *tw, struct twheel_event *events,
			      unsigned int max)
{
	return twheel_read_sized(tw, events, max, sizeof(*events));
}

/*
 * Fill one arm entry (for twheel_arm_ex() and twheel_arm_batch()): relative,
 * fixed-rate if @period_ns, on the calling CPU. Set TWHEEL_ARM_* flags,
 * clockid and cpu afterwards for anything else.
 */
static inline void twheel_arm_init(struct twheel_arm *arm, uint64_t expires_ns,
				   uint64_t period_ns, uint64_t cookie)
{
	memset(arm, 0, sizeof(*arm));
	arm->size = sizeof(*arm);
	arm->expires = expires_ns;
	arm->period = period_ns;
	arm->cookie = cookie;
}

/* Fill one cancel entry (for twheel_cancel_batch()). */
static inline void twheel_cancel_init(struct twheel_cancel *cancel, uint64_t id)
{
	memset(cancel, 0, sizeof(*cancel));
	cancel->size = sizeof(*cancel);
	cancel->id = id;
}

#ifdef __cplusplus
}
#endif

#endif /* _TWHEEL_H */
