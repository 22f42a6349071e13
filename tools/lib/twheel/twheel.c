// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libtwheel: /dev/twheel without hand-rolled ioctls.
 *
 * The ABI's rules live here and nowhere else:
 *  - sizes: every ioctl structure starts with its size. The kernel rejects a
 *    size below its own and accepts a larger one whose tail is zero. The
 *    caller's structure (of the size it was compiled with) is copied into a
 *    zeroed buffer at least as large as the library's, so an older program
 *    sends what this library knows and an older module never writes past the
 *    caller's structure (ABI 1 modules write back their whole structure);
 *  - features: TWHEEL_IOC_INFO is read once at open with room for the
 *    features word that ABI 2 appends at TW_INFO_FEATURES_OFF. An ABI 1
 *    module leaves it zero, so twheel_has_feature() is false for every
 *    feature it lacks;
 *  - events: read() returns records of info.event_size bytes, converted to
 *    the caller's struct twheel_event.
 * Nothing here prints or keeps global state; errors are -errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "twheel.h"

#define TW_STR2(x)	#x
#define TW_STR(x)	TW_STR2(x)

/* struct twheel_info of ABI 1 ends at 72; ABI 2 appends __u64 features. */
#define TW_INFO_FEATURES_OFF	72
#define TW_INFO_MIN		(TW_INFO_FEATURES_OFF + 8)

/* Largest structure the library passes through (the kernel's cap is a page). */
#define TW_STRUCT_MAX		256

/* Entries converted per chunk when a caller's entries are smaller. */
#define TW_CHUNK		64

struct twheel {
	int fd;
	unsigned int abi_version;
	uint64_t features;
	size_t event_size;	/* the module's sizeof(struct twheel_event) */
	size_t sqe_size;	/* the module's sqe size; 0 without a ring */
};

/* A structure buffer of any size up to TW_STRUCT_MAX, aligned for __u64. */
union tw_buf {
	uint64_t align;
	unsigned char b[TW_STRUCT_MAX];
	struct twheel_info info;
	struct twheel_arm arm;
	struct twheel_query query;
};

static size_t tw_max(size_t a, size_t b)
{
	return a > b ? a : b;
}

static size_t tw_min(size_t a, size_t b)
{
	return a < b ? a : b;
}

static int tw_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret = ioctl(fd, cmd, arg);

	return ret < 0 ? -errno : ret;
}

/*
 * Copy the caller's @usize bytes at @u into @buf, sized for the kernel: at
 * least @lsize (the library's sizeof) and zero beyond the caller's bytes.
 * Returns the size to put in the structure's size field, or -E2BIG if the
 * caller's structure is larger than the library can carry and its tail is
 * not zero (the kernel's own rule, applied early).
 */
static int tw_copy_in(union tw_buf *buf, const void *u, size_t usize,
		      size_t lsize)
{
	const unsigned char *p = u;
	size_t i;

	if (usize < sizeof(uint32_t))
		return -EINVAL;
	memset(buf, 0, sizeof(*buf));
	if (usize > sizeof(*buf)) {
		for (i = sizeof(*buf); i < usize; i++)
			if (p[i])
				return -E2BIG;
		usize = sizeof(*buf);
	}
	memcpy(buf->b, u, usize);
	return (int)tw_max(usize, lsize);
}

static void tw_copy_out(void *u, size_t usize, const union tw_buf *buf)
{
	uint32_t size = (uint32_t)usize;

	memcpy(u, buf->b, tw_min(usize, sizeof(*buf)));
	memcpy(u, &size, sizeof(size));		/* the caller's own size */
}

/* TWHEEL_IOC_INFO into @buf, with room for every field this library knows. */
static int tw_read_info(int fd, union tw_buf *buf)
{
	memset(buf, 0, sizeof(*buf));
	buf->info.size = (uint32_t)tw_max(sizeof(buf->info), TW_INFO_MIN);
	return tw_ioctl(fd, TWHEEL_IOC_INFO, buf);
}

static uint64_t tw_info_features(const union tw_buf *buf)
{
	uint64_t f;

	if (buf->info.abi_version < 2)
		return 0;
	memcpy(&f, buf->b + TW_INFO_FEATURES_OFF, sizeof(f));
	return f;
}

/**
 * twheel_open_fd() - wrap an open /dev/twheel file descriptor
 * @fd:		the file; owned by the handle from now on (closed by
 *		twheel_close()), left open on failure
 * @twp:	out: the handle
 *
 * Return: 0, -ENOTTY if @fd is not a twheel device, -EINVAL if the module's
 * event record is smaller than ABI 1's, -ENOMEM, or another -errno of
 * TWHEEL_IOC_INFO.
 */
int twheel_open_fd(int fd, struct twheel **twp)
{
	union tw_buf buf;
	struct twheel *tw;
	int ret;

	ret = tw_read_info(fd, &buf);
	if (ret < 0)
		return ret;
	if (buf.info.event_size < sizeof(struct twheel_event) ||
	    buf.info.event_size > sizeof(buf))
		return -EINVAL;
	tw = calloc(1, sizeof(*tw));
	if (!tw)
		return -ENOMEM;
	tw->fd = fd;
	tw->abi_version = buf.info.abi_version;
	tw->features = tw_info_features(&buf);
	tw->event_size = buf.info.event_size;
	*twp = tw;
	return 0;
}

/**
 * twheel_open() - open a new timer set
 * @path:	the device, NULL for TWHEEL_DEVICE
 * @flags:	0 or O_NONBLOCK (O_CLOEXEC is always set)
 * @twp:	out: the handle
 *
 * Return: 0, -EINVAL for other @flags, or the -errno of open() or of
 * twheel_open_fd().
 */
int twheel_open(const char *path, int flags, struct twheel **twp)
{
	int fd, ret;

	if (flags & ~O_NONBLOCK)
		return -EINVAL;
	fd = open(path ? path : TWHEEL_DEVICE, O_RDWR | O_CLOEXEC | flags);
	if (fd < 0)
		return -errno;
	ret = twheel_open_fd(fd, twp);
	if (ret)
		close(fd);
	return ret;
}

/**
 * twheel_close() - close the file, which cancels every timer it still holds
 * @tw:	the handle (NULL is ignored)
 */
void twheel_close(struct twheel *tw)
{
	if (!tw)
		return;
	close(tw->fd);
	free(tw);
}

/**
 * twheel_fd() - the file descriptor, for poll, epoll or an event loop
 * @tw:	the handle
 *
 * Return: the descriptor, readable while an event is ready.
 */
int twheel_fd(const struct twheel *tw)
{
	return tw->fd;
}

/**
 * twheel_version() - the version of the library linked at run time
 *
 * Return: "MAJOR.MINOR".
 */
const char *twheel_version(void)
{
	return TW_STR(LIBTWHEEL_MAJOR) "." TW_STR(LIBTWHEEL_MINOR);
}

/**
 * twheel_abi_version() - the module's TWHEEL_ABI_VERSION
 * @tw:	the handle
 *
 * Return: the version read at open.
 */
unsigned int twheel_abi_version(const struct twheel *tw)
{
	return tw->abi_version;
}

/**
 * twheel_features() - the module's TWHEEL_FEAT_* bits
 * @tw:	the handle
 *
 * Return: the features read at open; 0 on an ABI 1 module.
 */
uint64_t twheel_features(const struct twheel *tw)
{
	return tw->features;
}

/**
 * twheel_has_feature() - whether the module has every bit of @feature
 * @tw:		the handle
 * @feature:	TWHEEL_FEAT_* bits
 *
 * Return: 1 if it has them all, 0 if not (and for @feature 0).
 */
int twheel_has_feature(const struct twheel *tw, uint64_t feature)
{
	return feature && (tw->features & feature) == feature;
}

/**
 * twheel_get_info_sized() - geometry, limits and the pending count, now
 * @tw:		the handle
 * @info:	out: the module's answer; fields it does not know read 0
 * @size:	the caller's sizeof(*@info) (twheel_get_info() passes it)
 *
 * Return: 0 or -errno.
 */
int twheel_get_info_sized(struct twheel *tw, struct twheel_info *info,
			  size_t size)
{
	union tw_buf buf;
	int ret;

	if (size < sizeof(uint32_t))
		return -EINVAL;
	ret = tw_read_info(tw->fd, &buf);
	if (ret < 0)
		return ret;
	if (buf.info.abi_version < 2)
		memset(buf.b + TW_INFO_FEATURES_OFF, 0, 8);
	if (size > sizeof(buf))
		memset((unsigned char *)info + sizeof(buf), 0,
		       size - sizeof(buf));
	tw_copy_out(info, size, &buf);
	return 0;
}

/**
 * twheel_arm_ex_sized() - arm one timer described by a struct twheel_arm
 * @tw:		the handle
 * @arm:	in: flags, clockid, cpu, expires, period, cookie; out: id
 * @size:	the caller's sizeof(*@arm) (twheel_arm_ex() passes it)
 *
 * Return: 0 or -errno (see twheel_arm(3)).
 */
int twheel_arm_ex_sized(struct twheel *tw, struct twheel_arm *arm, size_t size)
{
	union tw_buf buf;
	int ret;

	ret = tw_copy_in(&buf, arm, size, sizeof(buf.arm));
	if (ret < 0)
		return ret;
	buf.arm.size = ret;
	ret = tw_ioctl(tw->fd, TWHEEL_IOC_ARM, &buf);
	if (ret < 0)
		return ret;
	tw_copy_out(arm, size, &buf);
	return 0;
}

/**
 * twheel_arm() - arm one relative timer on the calling CPU
 * @tw:		the handle
 * @expires_ns:	first deadline, ns from now
 * @period_ns:	fixed-rate period, 0 for a one-shot timer
 * @cookie:	echoed in every event of the timer
 * @id:		out: the timer's id (may be NULL)
 *
 * Return: 0 or -errno.
 */
int twheel_arm(struct twheel *tw, uint64_t expires_ns, uint64_t period_ns,
	       uint64_t cookie, uint64_t *id)
{
	struct twheel_arm a;
	int ret;

	twheel_arm_init(&a, expires_ns, period_ns, cookie);
	ret = twheel_arm_ex(tw, &a);
	if (!ret && id)
		*id = a.id;
	return ret;
}

/*
 * One batch ioctl over @count entries of @esize bytes at @entries. Entries
 * at least as large as the library's go to the kernel as they are; smaller
 * ones are widened into a buffer and their results copied back.
 */
static int tw_batch_chunk(struct twheel *tw, unsigned long cmd, void *entries,
			  unsigned int count, size_t esize, size_t lsize,
			  unsigned int *done)
{
	unsigned char wide[TW_CHUNK * sizeof(union tw_buf)];
	struct twheel_batch b;
	unsigned int i;
	uint32_t ls = (uint32_t)lsize;
	int ret;

	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	b.count = count;
	b.entry_size = (uint32_t)esize;
	b.entries = (uintptr_t)entries;
	if (esize < lsize) {
		if (count > TW_CHUNK)
			return -EINVAL;
		memset(wide, 0, count * lsize);
		for (i = 0; i < count; i++) {
			memcpy(wide + i * lsize, (char *)entries + i * esize,
			       esize);
			memcpy(wide + i * lsize, &ls, sizeof(ls));
		}
		b.entry_size = ls;
		b.entries = (uintptr_t)wide;
	}
	ret = tw_ioctl(tw->fd, cmd, &b);
	*done = ret < 0 ? 0 : b.done;
	if (esize < lsize && ret >= 0) {
		uint32_t us = (uint32_t)esize;

		for (i = 0; i < b.done; i++) {
			memcpy((char *)entries + i * esize, wide + i * lsize,
			       esize);
			memcpy((char *)entries + i * esize, &us, sizeof(us));
		}
	}
	return ret;
}

/*
 * A batch of any length: chunks of TWHEEL_BATCH_MAX (TW_CHUNK when widened),
 * stopping at the first chunk the kernel did not finish (EFAULT).
 */
static int tw_batch(struct twheel *tw, unsigned long cmd, void *entries,
		    unsigned int count, size_t esize, size_t lsize,
		    unsigned int *done)
{
	unsigned int chunk = esize < lsize ? TW_CHUNK : TWHEEL_BATCH_MAX;
	unsigned int i = 0, n, d;
	int ok = 0, ret;

	if (esize < sizeof(uint32_t) || esize > sizeof(union tw_buf) * 16)
		return -EINVAL;
	while (i < count) {
		n = count - i < chunk ? count - i : chunk;
		ret = tw_batch_chunk(tw, cmd, (char *)entries + (size_t)i * esize,
				     n, esize, lsize, &d);
		if (ret < 0) {
			if (!i && !ok) {
				if (done)
					*done = 0;
				return ret;
			}
			break;
		}
		ok += ret;
		i += d;
		if (d < n)
			break;
	}
	if (done)
		*done = i;
	return ok;
}

/**
 * twheel_arm_batch_sized() - arm many timers, each with its own result
 * @tw:		the handle
 * @arms:	the entries (twheel_arm_init()); out: id and result of each
 * @count:	number of entries, any number (split into kernel batches)
 * @entry_size:	the caller's sizeof(*@arms) (twheel_arm_batch() passes it)
 * @done:	out: entries processed (may be NULL)
 *
 * Return: the number of timers armed, or -errno if none could be processed.
 */
int twheel_arm_batch_sized(struct twheel *tw, struct twheel_arm *arms,
			   unsigned int count, size_t entry_size,
			   unsigned int *done)
{
	return tw_batch(tw, TWHEEL_IOC_ARM_BATCH, arms, count, entry_size,
			sizeof(struct twheel_arm), done);
}

/**
 * twheel_cancel() - cancel one timer; its queued unread event is discarded
 * @tw:	the handle
 * @id:	the timer
 *
 * Return: 1 if it was armed, had an unread event or an expiry in flight
 * (whichever it was is discarded), -ENOENT for an unknown id, or another
 * -errno.
 */
int twheel_cancel(struct twheel *tw, uint64_t id)
{
	struct twheel_cancel c;

	twheel_cancel_init(&c, id);
	return tw_ioctl(tw->fd, TWHEEL_IOC_CANCEL, &c);
}

/**
 * twheel_cancel_batch_sized() - cancel many timers, each with its own result
 * @tw:		the handle
 * @cancels:	the entries (twheel_cancel_init()); out: the result of each
 * @count:	number of entries, any number
 * @entry_size:	the caller's sizeof(*@cancels)
 * @done:	out: entries processed (may be NULL)
 *
 * Return: the number of timers that were pending, or -errno if none could
 * be processed.
 */
int twheel_cancel_batch_sized(struct twheel *tw, struct twheel_cancel *cancels,
			      unsigned int count, size_t entry_size,
			      unsigned int *done)
{
	return tw_batch(tw, TWHEEL_IOC_CANCEL_BATCH, cancels, count, entry_size,
			sizeof(struct twheel_cancel), done);
}

/**
 * twheel_modify() - new deadline and period for a timer, atomically
 * @tw:		the handle
 * @id:		the timer
 * @flags:	TWHEEL_ARM_ABS, TWHEEL_ARM_FIXED_DELAY
 * @clockid:	clock of an absolute @expires_ns
 * @expires_ns:	new deadline
 * @period_ns:	new period, 0 for one-shot
 *
 * Return: 1 as twheel_cancel() (the arming, unread event or expiry in
 * flight it replaced), or -errno.
 */
int twheel_modify(struct twheel *tw, uint64_t id, unsigned int flags,
		  int clockid, uint64_t expires_ns, uint64_t period_ns)
{
	struct twheel_modify m;

	memset(&m, 0, sizeof(m));
	m.size = sizeof(m);
	m.flags = flags;
	m.clockid = clockid;
	m.id = id;
	m.expires = expires_ns;
	m.period = period_ns;
	return tw_ioctl(tw->fd, TWHEEL_IOC_MODIFY, &m);
}

/**
 * twheel_query_sized() - a timer's state, deadline, period and overruns
 * @tw:		the handle
 * @id:		the timer
 * @query:	out: the answer
 * @size:	the caller's sizeof(*@query) (twheel_query() passes it)
 *
 * Return: 0, -ENOENT for an unknown id, or another -errno.
 */
int twheel_query_sized(struct twheel *tw, uint64_t id,
		       struct twheel_query *query, size_t size)
{
	union tw_buf buf;
	int ret;

	if (size < sizeof(uint32_t))
		return -EINVAL;
	memset(&buf, 0, sizeof(buf));
	buf.query.size = (uint32_t)tw_max(tw_min(size, sizeof(buf)),
					  sizeof(buf.query));
	buf.query.id = id;
	ret = tw_ioctl(tw->fd, TWHEEL_IOC_QUERY, &buf);
	if (ret < 0)
		return ret;
	if (size > sizeof(buf))
		memset((unsigned char *)query + sizeof(buf), 0,
		       size - sizeof(buf));
	tw_copy_out(query, size, &buf);
	return 0;
}

/**
 * twheel_read_sized() - read expirations
 * @tw:		the handle
 * @events:	out: up to @max events
 * @max:	room at @events, at least 1
 * @event_size:	the caller's sizeof(*@events) (twheel_read() passes it)
 *
 * Blocks until an event is ready unless the file is non-blocking.
 *
 * Return: the number of events (at least 1), -EAGAIN if non-blocking and
 * none is ready, -EINTR, or another -errno.
 */
int twheel_read_sized(struct twheel *tw, struct twheel_event *events,
		      unsigned int max, size_t event_size)
{
	unsigned char raw[TW_CHUNK * sizeof(union tw_buf)];
	size_t ks = tw->event_size, room, i;
	ssize_t n;

	if (!max || event_size < sizeof(uint64_t))
		return -EINVAL;
	if (max > INT32_MAX)
		max = INT32_MAX;
	/* Same layout: read straight into the caller's array. */
	if (event_size == ks) {
		n = read(tw->fd, events, (size_t)max * ks);
		return n < 0 ? -errno : (int)(n / ks);
	}
	room = sizeof(raw) / ks;
	if (room > max)
		room = max;
	n = read(tw->fd, raw, room * ks);
	if (n < 0)
		return -errno;
	n /= ks;
	for (i = 0; i < (size_t)n; i++) {
		unsigned char *dst = (unsigned char *)events + i * event_size;

		memset(dst, 0, event_size);
		memcpy(dst, raw + i * ks, tw_min(ks, event_size));
	}
	return (int)n;
}

/**
 * twheel_wait() - wait until an event is ready
 * @tw:		the handle
 * @timeout_ms:	poll() timeout: -1 forever, 0 do not wait
 *
 * Return: 1 if an event is ready, 0 on timeout, or -errno (-EINTR).
 */
int twheel_wait(struct twheel *tw, int timeout_ms)
{
	struct pollfd p = { .fd = tw->fd, .events = POLLIN };
	int ret = poll(&p, 1, timeout_ms);

	if (ret < 0)
		return -errno;
	return ret > 0 && (p.revents & POLLIN);
}

#ifdef TWHEEL_IOC_RING_SETUP

_Static_assert(TWHEEL_RING_OVERFLOW == 1U, "twheel_ring_overflowed()");

/**
 * twheel_ring_setup() - set up the timer table and map the completion ring
 * @tw:		the handle (once per handle)
 * @slots:	timers of the table, addressed by slot 0 .. @slots - 1
 * @entries:	records of the ring, a power of 2
 * @ring:	out: the mapped ring (twheel_ring_unmap() undoes the mapping)
 *
 * Return: 0, -EOPNOTSUPP if the module lacks TWHEEL_FEAT_RING or its
 * record is smaller than this library's, -EBUSY if @tw has a ring already,
 * -EINVAL, -ENOSPC, -ENOMEM, or the -errno of mmap().
 */
int twheel_ring_setup(struct twheel *tw, unsigned int slots,
		      unsigned int entries, struct twheel_ring *ring)
{
	struct twheel_ring_params p;
	unsigned char *map;
	int ret;

	if (!twheel_has_feature(tw, TWHEEL_FEAT_RING))
		return -EOPNOTSUPP;
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.slots = slots;
	p.ring_entries = entries;
	ret = tw_ioctl(tw->fd, TWHEEL_IOC_RING_SETUP, &p);
	if (ret < 0)
		return ret;
	if (p.cqe_size < sizeof(struct twheel_cqe) ||
	    p.sqe_size != sizeof(struct twheel_sqe))
		return -EOPNOTSUPP;
	map = mmap(NULL, p.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   tw->fd, (off_t)p.mmap_offset);
	if (map == MAP_FAILED)
		return -errno;
	memset(ring, 0, sizeof(*ring));
	ring->khead = (unsigned int *)(map + p.off.head);
	ring->ktail = (unsigned int *)(map + p.off.tail);
	ring->kflags = (unsigned int *)(map + p.off.flags);
	ring->koverflow = (unsigned int *)(map + p.off.overflow);
	ring->cqes = (struct twheel_cqe *)(map + p.off.records);
	ring->ring_mask = *(unsigned int *)(map + p.off.ring_mask);
	ring->ring_entries = *(unsigned int *)(map + p.off.ring_entries);
	ring->cqe_size = p.cqe_size;
	ring->slots = p.slots;
	ring->map = map;
	ring->map_size = p.mmap_size;
	tw->sqe_size = p.sqe_size;
	return 0;
}

/*
 * TWHEEL_IOC_SUBMIT in chunks of TWHEEL_BATCH_MAX, stopping at the first
 * chunk the kernel did not finish.
 */
static int tw_submit(struct twheel *tw, struct twheel_sqe *sqes,
		     unsigned int count, unsigned int *done)
{
	struct twheel_batch b;
	unsigned int i = 0, n;
	int ok = 0, ret;

	while (i < count) {
		n = count - i < TWHEEL_BATCH_MAX ? count - i : TWHEEL_BATCH_MAX;
		memset(&b, 0, sizeof(b));
		b.size = sizeof(b);
		b.count = n;
		b.entry_size = sizeof(*sqes);
		b.entries = (uintptr_t)(sqes + i);
		ret = tw_ioctl(tw->fd, TWHEEL_IOC_SUBMIT, &b);
		if (ret < 0) {
			if (!i)
				return ret;
			break;
		}
		ok += ret;
		i += b.done;
		if (b.done < n)
			break;
	}
	*done = i;
	return ok;
}

/**
 * twheel_submit_sized() - arm, modify and cancel table timers in bulk
 * @tw:		the handle, with a ring
 * @sqes:	the submissions (twheel_sqe_arm(), ..._modify(), ..._cancel());
 *		out: each one's result and the slot's generation
 * @count:	number of submissions, any number
 * @sqe_size:	the caller's sizeof(*@sqes) (twheel_submit() passes it)
 * @done:	out: submissions processed (may be NULL)
 *
 * Return: the number of submissions with a result >= 0, or -errno if none
 * could be processed: -ENODEV before twheel_ring_setup(), -EINVAL if
 * @sqe_size is not the module's.
 */
int twheel_submit_sized(struct twheel *tw, struct twheel_sqe *sqes,
			unsigned int count, size_t sqe_size,
			unsigned int *done)
{
	unsigned int d = 0;
	int ret;

	if (!tw->sqe_size)
		return -ENODEV;
	if (sqe_size != tw->sqe_size || sqe_size != sizeof(*sqes))
		return -EINVAL;
	ret = tw_submit(tw, sqes, count, &d);
	if (done)
		*done = ret < 0 ? 0 : d;
	return ret;
}

/**
 * twheel_ring_flush() - move records waiting in the backlog into the ring
 * @tw:		the handle, with a ring
 * @backlog:	out: records still waiting because the ring is full (may be
 *		NULL)
 *
 * Return: the number of records moved, or -errno (-ENODEV: no ring).
 */
int twheel_ring_flush(struct twheel *tw, unsigned int *backlog)
{
	struct twheel_flush f;
	int ret;

	memset(&f, 0, sizeof(f));
	f.size = sizeof(f);
	ret = tw_ioctl(tw->fd, TWHEEL_IOC_FLUSH, &f);
	if (ret < 0)
		return ret;
	if (backlog)
		*backlog = f.backlog;
	return (int)f.flushed;
}

#else /* !TWHEEL_IOC_RING_SETUP: built against a uapi header without it */

int twheel_ring_setup(struct twheel *tw, unsigned int slots,
		      unsigned int entries, struct twheel_ring *ring)
{
	(void)tw;
	(void)slots;
	(void)entries;
	(void)ring;
	return -EOPNOTSUPP;
}

int twheel_submit_sized(struct twheel *tw, struct twheel_sqe *sqes,
			unsigned int count, size_t sqe_size,
			unsigned int *done)
{
	(void)tw;
	(void)sqes;
	(void)count;
	(void)sqe_size;
	if (done)
		*done = 0;
	return -EOPNOTSUPP;
}

int twheel_ring_flush(struct twheel *tw, unsigned int *backlog)
{
	(void)tw;
	(void)backlog;
	return -EOPNOTSUPP;
}

#endif /* TWHEEL_IOC_RING_SETUP */

/**
 * twheel_ring_unmap() - unmap a ring set up by twheel_ring_setup()
 * @ring:	the ring; the table and its timers live as long as the file
 */
void twheel_ring_unmap(struct twheel_ring *ring)
{
	if (ring && ring->map) {
		munmap(ring->map, ring->map_size);
		ring->map = NULL;
	}
}
