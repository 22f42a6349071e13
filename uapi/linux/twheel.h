/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * twheel userspace ABI: many timers on one file descriptor.
 *
 * open("/dev/twheel", O_RDWR | O_CLOEXEC [| O_NONBLOCK]) gives a private
 * timer set. Timers are armed, modified, queried and cancelled with the
 * ioctls below and their expirations are read() as struct twheel_event
 * records; poll/select/epoll report EPOLLIN while an event is ready. The
 * last close() of the file cancels every timer it still holds.
 *
 * Ids are per file, opaque, start at 1 and are never reused while the file
 * lives. A one-shot timer's id stays valid until its event has been read or
 * it has been cancelled; a periodic timer's until it is cancelled.
 *
 * Clocks: deadlines are nanoseconds. Relative deadlines are measured from the
 * moment of the ioctl. Absolute deadlines may be given on CLOCK_MONOTONIC,
 * CLOCK_BOOTTIME or CLOCK_REALTIME; BOOTTIME and REALTIME deadlines are
 * converted to CLOCK_MONOTONIC once, at arm time (a later clock_settime() or
 * suspend does not move them). Every time reported back is CLOCK_MONOTONIC.
 *
 * Extensibility: every ioctl structure starts with its size, which userspace
 * sets to sizeof() of the structure it was built with. A smaller size from an
 * older program is accepted (missing fields read as zero); a larger one is
 * accepted if the bytes the kernel does not know are zero, else E2BIG (the
 * copy_struct_from_user() rule). Unknown flag bits give EINVAL, and so does a
 * non-zero reserved field.
 *
 * Errors common to every ioctl: EFAULT (a user address cannot be read or
 * written), EINVAL (bad size, flags, clock, reserved field), E2BIG (see
 * above), ENOTTY (unknown ioctl).
 */
#ifndef _UAPI_LINUX_TWHEEL_H
#define _UAPI_LINUX_TWHEEL_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define TWHEEL_ABI_VERSION	1
#define TWHEEL_IOC_MAGIC	0xE7

/* struct twheel_arm.flags and struct twheel_modify.flags */
#define TWHEEL_ARM_ABS		0x1U		/* expires is absolute */
#define TWHEEL_ARM_FIXED_DELAY	0x2U		/* periodic, fixed delay */
#define TWHEEL_ARM_CPU		0x4U		/* use the cpu field */
#define TWHEEL_ARM_FLAGS	(TWHEEL_ARM_ABS | TWHEEL_ARM_FIXED_DELAY | \
				 TWHEEL_ARM_CPU)

/**
 * struct twheel_arm - arm one timer (TWHEEL_IOC_ARM, or an entry of a batch)
 * @size:	sizeof(struct twheel_arm)
 * @flags:	TWHEEL_ARM_*
 * @clockid:	CLOCK_MONOTONIC, CLOCK_BOOTTIME or CLOCK_REALTIME; only used
 *		with TWHEEL_ARM_ABS, but must be one of the three even when
 *		unused (0 is CLOCK_REALTIME, so a zeroed structure is valid)
 * @cpu:	CPU whose wheel holds the timer, with TWHEEL_ARM_CPU;
 *		otherwise the CPU the caller runs on
 * @expires:	first deadline in ns, relative or absolute; a deadline in the
 *		past fires at the next tick
 * @period:	period in ns, 0 for a one-shot timer, above INT64_MAX is
 *		EINVAL. Fixed rate (default):
 *		deadline n = first deadline + n * period, periods missed while
 *		events were not read are counted as overruns. Fixed delay: the
 *		next deadline is the read() of the previous event + period.
 * @cookie:	echoed back in every event of this timer
 * @id:		out: the new timer's id
 * @result:	out, batch entries only: 0 or a negative errno
 * @__reserved:	must be 0
 *
 * Errors: EINVAL (flags, clockid, reserved, absolute deadline before the
 * clock's zero, TWHEEL_ARM_FIXED_DELAY without a period), ERANGE (cpu not
 * below the number of possible CPUs), ENXIO (cpu offline), ENOSPC
 * (per-file or global cap on pending timers reached), ENOMEM.
 */
struct twheel_arm {
	__u32	size;
	__u32	flags;
	__s32	clockid;
	__u32	cpu;
	__u64	expires;
	__u64	period;
	__u64	cookie;
	__u64	id;
	__s32	result;
	__u32	__reserved;
};

/**
 * struct twheel_batch - many arms or cancels in one ioctl
 * @size:	sizeof(struct twheel_batch)
 * @flags:	must be 0
 * @count:	number of entries at @entries
 * @entry_size:	sizeof() of one entry: struct twheel_arm for
 *		TWHEEL_IOC_ARM_BATCH, struct twheel_cancel for
 *		TWHEEL_IOC_CANCEL_BATCH (same size rules as @size)
 * @entries:	user address of the entry array
 * @done:	out: entries processed
 * @__reserved:	must be 0
 *
 * Partial failure: entries are processed in order and each processed entry
 * gets its own result (and id, for arm). A failing entry does not stop the
 * batch, except when the entry itself cannot be read or written back
 * (EFAULT): processing stops there, and an arm whose id could not be written
 * back is undone, so userspace never holds a timer it has no id for. @done
 * says how many entries were processed. If no entry could be processed
 * because of EFAULT, the ioctl returns -EFAULT (@done is 0). A cancel whose
 * result cannot be written back stays done: it counts in the return value
 * but not in @done. The ioctl returns the number of
 * entries that succeeded (armed, or cancelled while pending), or a negative
 * errno if the batch header is invalid (EINVAL, E2BIG, EFAULT) or @count is
 * above TWHEEL_BATCH_MAX (E2BIG).
 */
struct twheel_batch {
	__u32	size;
	__u32	flags;
	__u32	count;
	__u32	entry_size;
	__u64	entries;
	__u32	done;
	__u32	__reserved;
};

#define TWHEEL_BATCH_MAX	65536

/**
 * struct twheel_cancel - cancel one timer (TWHEEL_IOC_CANCEL, or an entry)
 * @size:	sizeof(struct twheel_cancel)
 * @flags:	must be 0
 * @id:		the timer
 * @result:	out: 1 if the timer was pending (armed, or its event queued
 *		but not yet read: that event is discarded), 0 if it had
 *		already fired and its expiry was being queued at that moment
 *		(that event is discarded too), or -ENOENT (no such timer in
 *		this file)
 * @__reserved:	must be 0
 *
 * After the ioctl returns no event of this timer is delivered any more. The
 * id is released. TWHEEL_IOC_CANCEL returns @result (ENOENT as an error).
 */
struct twheel_cancel {
	__u32	size;
	__u32	flags;
	__u64	id;
	__s32	result;
	__u32	__reserved;
};

/**
 * struct twheel_modify - change a timer's deadline and period atomically
 * @size:	sizeof(struct twheel_modify)
 * @flags:	TWHEEL_ARM_ABS, TWHEEL_ARM_FIXED_DELAY
 * @clockid:	as in struct twheel_arm
 * @__reserved:	must be 0
 * @id:		the timer
 * @expires:	new deadline, relative or absolute
 * @period:	new period, 0 makes it one-shot
 *
 * An event of the timer queued but not yet read is discarded. Returns 1 if
 * the timer was pending, 0 if not; errors as TWHEEL_IOC_ARM plus ENOENT.
 */
struct twheel_modify {
	__u32	size;
	__u32	flags;
	__s32	clockid;
	__u32	__reserved;
	__u64	id;
	__u64	expires;
	__u64	period;
};

/* struct twheel_query.state */
#define TWHEEL_STATE_ARMED	1	/* waiting for its deadline */
#define TWHEEL_STATE_QUEUED	2	/* fired, event not yet read */

/**
 * struct twheel_query - a timer's state (TWHEEL_IOC_QUERY)
 * @size:	sizeof(struct twheel_query)
 * @flags:	must be 0
 * @id:		the timer
 * @state:	out: TWHEEL_STATE_* bits (0 while the timer's expiry is
 *		being queued at that moment); a fixed-rate timer with an unread
 *		event is ARMED|QUEUED, and then @deadline is its next deadline
 *		and @overruns counts the periods passed since the queued one
 * @overruns:	out: periods skipped and not yet reported in an event
 * @deadline:	out: next deadline, CLOCK_MONOTONIC ns
 * @remaining:	out: ns until @deadline, 0 if due
 * @period:	out: period in ns, 0 for one-shot
 * @cookie:	out: the timer's cookie
 * @flags_out:	out: TWHEEL_ARM_FIXED_DELAY if fixed-delay
 * @cpu:	out: CPU whose wheel holds the timer
 *
 * Errors: ENOENT for an unknown id.
 */
struct twheel_query {
	__u32	size;
	__u32	flags;
	__u64	id;
	__u32	state;
	__u32	overruns;
	__u64	deadline;
	__u64	remaining;
	__u64	period;
	__u64	cookie;
	__u32	flags_out;
	__u32	cpu;
};

/**
 * struct twheel_info - geometry, limits and ABI version (TWHEEL_IOC_INFO)
 * @size:		sizeof(struct twheel_info)
 * @abi_version:	out: TWHEEL_ABI_VERSION
 * @tick_ns:		out: length of a wheel tick
 * @horizon_ns:		out: span of the wheel before the overflow list
 * @levels:		out: levels of the wheel
 * @slots:		out: slots per level
 * @max_per_file:	out: cap on pending timers of one file
 * @max_total:		out: cap on pending timers of all files
 * @pending:		out: timers pending in this file
 * @event_size:		out: sizeof(struct twheel_event)
 * @nr_cpus:		out: nr_cpu_ids (CPUs below it may be valid for
 *			TWHEEL_ARM_CPU)
 * @__reserved:		out: 0
 */
struct twheel_info {
	__u32	size;
	__u32	abi_version;
	__u64	tick_ns;
	__u64	horizon_ns;
	__u32	levels;
	__u32	slots;
	__u64	max_per_file;
	__u64	max_total;
	__u64	pending;
	__u32	event_size;
	__u32	nr_cpus;
	__u64	__reserved;
};

/* struct twheel_event.flags */
#define TWHEEL_EVENT_PERIODIC	0x1U		/* timer stays armed */

/**
 * struct twheel_event - one expiration, as returned by read()
 * @id:		the timer
 * @cookie:	the timer's cookie
 * @deadline:	the deadline that expired, CLOCK_MONOTONIC ns
 * @expired:	when the wheel fired it, CLOCK_MONOTONIC ns (>= @deadline;
 *		for a coalesced fixed-rate event, no earlier than its reported
 *		deadline)
 * @overruns:	periods skipped before this one (coalesced events of a
 *		periodic timer whose reader fell behind, or late ticks)
 * @flags:	TWHEEL_EVENT_*
 *
 * read() returns as many whole records as fit in the buffer, blocks until one
 * is ready unless O_NONBLOCK (EAGAIN), and gives EINVAL for a buffer smaller
 * than one record. At most one event per timer is queued at a time.
 */
struct twheel_event {
	__u64	id;
	__u64	cookie;
	__u64	deadline;
	__u64	expired;
	__u32	overruns;
	__u32	flags;
};

#define TWHEEL_IOC_INFO		_IOWR(TWHEEL_IOC_MAGIC, 0, struct twheel_info)
#define TWHEEL_IOC_ARM		_IOWR(TWHEEL_IOC_MAGIC, 1, struct twheel_arm)
#define TWHEEL_IOC_ARM_BATCH	_IOWR(TWHEEL_IOC_MAGIC, 2, struct twheel_batch)
#define TWHEEL_IOC_CANCEL	_IOWR(TWHEEL_IOC_MAGIC, 3, struct twheel_cancel)
#define TWHEEL_IOC_CANCEL_BATCH	_IOWR(TWHEEL_IOC_MAGIC, 4, struct twheel_batch)
#define TWHEEL_IOC_MODIFY	_IOWR(TWHEEL_IOC_MAGIC, 5, struct twheel_modify)
#define TWHEEL_IOC_QUERY	_IOWR(TWHEEL_IOC_MAGIC, 6, struct twheel_query)

#endif /* _UAPI_LINUX_TWHEEL_H */
