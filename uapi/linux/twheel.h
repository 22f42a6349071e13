/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * twheel userspace ABI: many timers on one file descriptor.
 *
 * open("/dev/twheel", O_RDWR | O_CLOEXEC [| O_NONBLOCK]) gives a private
 * timer set. Timers are armed, modified, queried and cancelled with the
 * ioctls below and their expiries are read() as events (struct
 * twheel_event); poll/select/epoll report EPOLLIN while an event is ready. The
 * last close() of the file cancels every timer it still holds. The terms
 * (tick, bucket, ABI 1 timer, id, event, timer table, slot, submission,
 * record, backlog, ...) are those of the glossary of twheel.rst.
 *
 * Ids are per file, opaque, start at 1 and are never reused while the file
 * lives. A one-shot timer's id stays valid until its event has been read or
 * it has been cancelled; a periodic timer's until it is cancelled.
 *
 * Clocks: deadlines are nanoseconds. Relative deadlines are measured from the
 * moment of the ioctl. Absolute deadlines may be given on CLOCK_MONOTONIC,
 * CLOCK_BOOTTIME or CLOCK_REALTIME.
 *
 * With TWHEEL_FEAT_CLOCKS, a timer of TWHEEL_IOC_ARM / TWHEEL_IOC_MODIFY
 * keeps the clock it was armed on, as a timerfd does: a timer is on
 * CLOCK_REALTIME if it was armed with an absolute CLOCK_REALTIME deadline,
 * on CLOCK_BOOTTIME if armed on CLOCK_BOOTTIME (relative or absolute), and
 * on CLOCK_MONOTONIC otherwise (a relative CLOCK_REALTIME deadline is a
 * CLOCK_MONOTONIC one, as for hrtimers and timerfd). A CLOCK_REALTIME timer
 * follows clock_settime(), adjtimex() steps and leap seconds: a forward step
 * fires the timers it made due at once, a backward one delays them; it
 * never fires before its clock reaches its deadline. A CLOCK_BOOTTIME timer
 * counts the time spent in suspend (fires at once on resume if due then).
 * Times reported back (struct twheel_event, struct twheel_query) are on
 * the timer's own clock. For a process in a time namespace, absolute
 * CLOCK_MONOTONIC and CLOCK_BOOTTIME deadlines are read, and times on those
 * clocks reported, in that namespace's clocks (the namespace of the caller
 * of the ioctl or read()), as for timerfd.
 *
 * Before TWHEEL_FEAT_CLOCKS (and still for ring timers, TWHEEL_IOC_SUBMIT),
 * BOOTTIME and REALTIME deadlines are converted to CLOCK_MONOTONIC once, at
 * arm time (a later clock_settime() or suspend does not move them), and every
 * time reported back is CLOCK_MONOTONIC; ring deadlines are reported as host
 * CLOCK_MONOTONIC even in a time namespace (absolute ones are still read in
 * the caller's namespace).
 *
 * Alarm clocks: with TWHEEL_FEAT_ALARM, TWHEEL_IOC_ARM and TWHEEL_IOC_MODIFY
 * also take CLOCK_REALTIME_ALARM and CLOCK_BOOTTIME_ALARM, as a timerfd
 * does: the caller needs CAP_WAKE_ALARM (EPERM otherwise, checked after
 * the EINVALs of the flags, clock and times). Such a timer is a
 * CLOCK_REALTIME one (relative deadlines included: they count from the
 * current CLOCK_REALTIME and follow its steps, as an alarmtimer's do) or a
 * CLOCK_BOOTTIME one, and in addition it wakes the system from suspend by
 * its deadline, through the RTC the kernel's alarmtimer uses. Without such
 * an RTC (no CONFIG_RTC_CLASS, no RTC able to wake) the timer is accepted
 * and fires as its base clock's but cannot end a suspend, as for timerfd.
 * A wake may come early (by an alarm timer cancelled or modified just
 * before the suspend), never late.
 * Times reported back are on the base clock. Without
 * TWHEEL_FEAT_ALARM, and always in TWHEEL_IOC_SUBMIT, the alarm clocks are
 * EINVAL.
 *
 * Extensibility: every ioctl structure starts with its size, which userspace
 * sets to sizeof() of the structure it was built with. The size of an older
 * ABI version of a structure is accepted (the versions are listed with it,
 * such as TWHEEL_INFO_SIZE_VER0): fields it lacks read as zero, and only as
 * many bytes as it gives are written back. A size below the first version
 * of the structure is EINVAL. A larger size is accepted if the bytes the
 * kernel does not know are zero, else E2BIG (the copy_struct_from_user()
 * rule), and only the kernel's size is written back. Unknown flag bits give EINVAL, and so does a
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

/*
 * 1: the ioctls up to TWHEEL_IOC_QUERY and read().
 * 2: struct twheel_info grows @features; the ring ABI (TWHEEL_FEAT_RING).
 */
#define TWHEEL_ABI_VERSION	2
#define TWHEEL_IOC_MAGIC	0xE7

/* struct twheel_arm.flags and struct twheel_modify.flags */
#define TWHEEL_ARM_ABS		0x1U		/* expires is absolute */
#define TWHEEL_ARM_FIXED_DELAY	0x2U		/* periodic, fixed delay */
#define TWHEEL_ARM_CPU		0x4U		/* use the cpu field */
/*
 * With TWHEEL_FEAT_CLOCKS, TWHEEL_IOC_ARM and TWHEEL_IOC_MODIFY only (EINVAL
 * elsewhere): a one-shot timer with an absolute CLOCK_REALTIME deadline
 * (EINVAL otherwise, and with a period) ends with an event flagged
 * TWHEEL_EVENT_CANCELED instead of its expiry if CLOCK_REALTIME is set
 * discontinuously (clock_settime(), an adjtimex() step, a leap second,
 * resume from suspend) while it is armed: TFD_TIMER_CANCEL_ON_SET. A timer
 * whose expiry event is already queued keeps that event.
 */
#define TWHEEL_ARM_CANCEL_ON_SET 0x8U
#define TWHEEL_ARM_FLAGS	(TWHEEL_ARM_ABS | TWHEEL_ARM_FIXED_DELAY | \
				 TWHEEL_ARM_CPU | TWHEEL_ARM_CANCEL_ON_SET)

/**
 * struct twheel_arm - arm one timer (TWHEEL_IOC_ARM, or an entry of a batch)
 * @size:	sizeof(struct twheel_arm)
 * @flags:	TWHEEL_ARM_*
 * @clockid:	CLOCK_MONOTONIC, CLOCK_BOOTTIME or CLOCK_REALTIME; must be
 *		one of the three even when unused (0 is CLOCK_REALTIME, so a
 *		zeroed structure is valid); see "Clocks" above for which
 *		clock a timer ends up on. With TWHEEL_FEAT_ALARM also
 *		CLOCK_REALTIME_ALARM or CLOCK_BOOTTIME_ALARM ("Alarm clocks")
 * @cpu:	CPU whose wheel holds the timer, with TWHEEL_ARM_CPU;
 *		otherwise the CPU the caller runs on
 * @expires:	first deadline in ns, relative or absolute; a deadline in the
 *		past fires at the next tick
 * @period:	period in ns, 0 for a one-shot timer, above INT64_MAX or
 *		(TWHEEL_FEAT_RING_LIMITS) below @tick_ns of struct
 *		twheel_info is EINVAL. Fixed rate (default):
 *		deadline n = first deadline + n * period, periods missed while
 *		events were not read are counted as overruns. Fixed delay: the
 *		next deadline is the read() of the previous event + period.
 * @cookie:	echoed back in every event of this timer
 * @id:		out: the new timer's id
 * @result:	out, batch entries only: 0 or a negative errno
 * @__reserved:	must be 0
 *
 * Errors: EINVAL (flags, clockid, reserved, absolute deadline before the
 * clock's zero, TWHEEL_ARM_FIXED_DELAY without a period, a period below
 * one tick), ERANGE (cpu not
 * below the number of possible CPUs), ENXIO (cpu offline), EPERM (cpu not
 * among the CPUs the caller may run on, its affinity and cpuset; or
 * isolated from kernel timers by nohz_full= or isolcpus=nohz,..., unless
 * the caller has CAP_SYS_NICE; or an alarm clock without CAP_WAKE_ALARM),
 * ENOSPC (per-file, per-user or global cap on pending timers reached),
 * ENOMEM.
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
 * struct twheel_batch - many arms, cancels or submissions in one ioctl
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
 * @result:	out: 1 if the timer was armed, had its event queued and
 *		not read, or had its expiry in flight (fired, event not yet
 *		queued): whichever it was is discarded, and a live timer is
 *		always one of them; or -ENOENT (no such timer in this file)
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
 * @flags:	TWHEEL_ARM_ABS, TWHEEL_ARM_FIXED_DELAY,
 *		TWHEEL_ARM_CANCEL_ON_SET
 * @clockid:	as in struct twheel_arm; the timer moves to that clock
 * @__reserved:	must be 0
 * @id:		the timer
 * @expires:	new deadline, relative or absolute
 * @period:	new period, 0 makes it one-shot
 *
 * An event of the timer queued but not yet read is discarded, and so is an
 * expiry in flight (fired, event not yet queued). Returns 1 if the timer
 * was armed, had an unread event or had an expiry in flight, as
 * TWHEEL_IOC_CANCEL's @result: a live timer is always one of them; errors
 * as TWHEEL_IOC_ARM plus ENOENT.
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
 * @deadline:	out: next deadline, ns on the timer's clock (see "Clocks")
 * @remaining:	out: ns until @deadline on that clock, 0 if due
 * @period:	out: period in ns, 0 for one-shot
 * @cookie:	out: the timer's cookie
 * @flags_out:	out: TWHEEL_ARM_FIXED_DELAY if fixed-delay,
 *		TWHEEL_ARM_CANCEL_ON_SET if armed with it
 * @cpu:	out: CPU whose wheel holds the timer (for a timer re-armed
 *		while its last expiry is still being delivered: the CPU it
 *		goes to when that is done)
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

/* struct twheel_info.features */
#define TWHEEL_FEAT_RING	0x1ULL	/* timer table, SUBMIT, completion ring */
/* max_per_user; TWHEEL_ARM_CPU checks the caller's CPUs (EPERM) */
#define TWHEEL_FEAT_USER_CAP	0x2ULL
/*
 * Timers keep their clock (CLOCK_REALTIME ones follow clock changes,
 * CLOCK_BOOTTIME ones count suspend), time namespaces, and
 * TWHEEL_ARM_CANCEL_ON_SET / TWHEEL_EVENT_CANCELED: see "Clocks" above.
 */
#define TWHEEL_FEAT_CLOCKS	0x4ULL
/* CLOCK_REALTIME_ALARM, CLOCK_BOOTTIME_ALARM: see "Alarm clocks" above */
#define TWHEEL_FEAT_ALARM	0x8ULL
/*
 * Resource limits of the ring ABI and its robustness rules: the period
 * floor (both ABIs), parked periodic slots, ring pages charged to
 * RLIMIT_MEMLOCK, @ring_entries bounded by @slots, table slots counted in
 * max_per_file, TWHEEL_RING_SETUP_QUERY, the backlog kept in order, a
 * wake-up for every expiry, and absolute CLOCK_REALTIME refused in
 * TWHEEL_IOC_SUBMIT (see "The ring ABI" and struct twheel_ring_params).
 */
#define TWHEEL_FEAT_RING_LIMITS	0x10ULL

/**
 * struct twheel_info - geometry, limits and ABI version (TWHEEL_IOC_INFO)
 * @size:		sizeof(struct twheel_info); TWHEEL_INFO_SIZE_VER0 (the
 *			ABI 1 structure, without @features) is accepted too,
 *			and only @size bytes are written back
 * @abi_version:	out: TWHEEL_ABI_VERSION
 * @tick_ns:		out: length of a wheel tick
 * @horizon_ns:		out: span of the wheel before the overflow list
 * @levels:		out: levels of the wheel
 * @buckets:		out: buckets per level of the wheel
 * @slots:		the same as @buckets (its first name)
 * @max_per_file:	out: cap on pending timers and table slots of one
 *			file (the ABI 1 timers of a file also fit in its id
 *			table of just under 2^24 entries: ENOSPC beyond)
 * @max_total:		out: cap on pending timers of all files
 * @pending:		out: ABI 1 timers pending in this file (ring
 *			timers are not counted, but the slots of a timer
 *			table count against @max_per_file)
 * @event_size:		out: sizeof(struct twheel_event)
 * @nr_cpus:		out: nr_cpu_ids (CPUs below it may be valid for
 *			TWHEEL_ARM_CPU)
 * @__reserved:		out: 0
 * @features:		out: TWHEEL_FEAT_* bits (ABI 2)
 * @max_per_user:	out: cap on pending timers (and table slots) of
 *			all files opened by one user (ABI 2, with
 *			TWHEEL_FEAT_USER_CAP), ENOSPC beyond it. A user is
 *			the opener's real uid in its user namespace; outside
 *			the initial namespace its timers also count against
 *			the cap of the namespace's owner, at each level up to
 *			the initial one (as inotify and epoll count theirs),
 *			so the uids of a namespace share their owner's cap
 */
struct twheel_info {
	__u32	size;
	__u32	abi_version;
	__u64	tick_ns;
	__u64	horizon_ns;
	__u32	levels;
	/* Unnamed, for the two names; __extension__ for C99 -pedantic. */
	__extension__ union {
		__u32	buckets;
		__u32	slots;
	};
	__u64	max_per_file;
	__u64	max_total;
	__u64	pending;
	__u32	event_size;
	__u32	nr_cpus;
	__u64	__reserved;
	__u64	features;
	__u64	max_per_user;
};

#define TWHEEL_INFO_SIZE_VER0	72	/* struct twheel_info of ABI 1 */

/* struct twheel_event.flags */
#define TWHEEL_EVENT_PERIODIC	0x1U		/* timer stays armed */
/*
 * TWHEEL_ARM_CANCEL_ON_SET: CLOCK_REALTIME was set while the timer was
 * armed; it did not expire and is gone (its id is released by this read).
 * @deadline is the deadline it had, @expired when the change was seen.
 */
#define TWHEEL_EVENT_CANCELED	0x2U

/**
 * struct twheel_event - one expiration, as returned by read()
 * @id:		the timer
 * @cookie:	the timer's cookie
 * @deadline:	the deadline that expired, ns on the timer's clock (see
 *		"Clocks")
 * @expired:	when the wheel fired it, ns on the timer's clock, as its
 *		expiry read that clock: never adjusted, >= @deadline unless
 *		TWHEEL_EVENT_CANCELED; for a fixed-rate event that coalesced
 *		deadlines passed while it waited, when read() saw the last
 *		of them (the reported one) passed
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

/*
 * The ring ABI (ABI 2, TWHEEL_FEAT_RING in struct twheel_info.features).
 *
 * A file may set up, once, a timer table and a completion ring
 * (TWHEEL_IOC_RING_SETUP). The table has a fixed number of slots; a slot
 * index is the handle of a timer, chosen by userspace (no id is allocated).
 * Timers of the table are armed, modified and cancelled in bulk with
 * TWHEEL_IOC_SUBMIT (an array of struct twheel_sqe), and each expiry writes
 * one struct twheel_cqe into the ring, which userspace maps with mmap() and
 * reads without a system call, like io_uring's CQ ring:
 *
 *	head = *ring.head;			(userspace's own index)
 *	tail = __atomic_load_n(ring.tail, __ATOMIC_ACQUIRE);
 *	while (head != tail)
 *		consume(&ring.records[head++ & *ring.ring_mask]);
 *	__atomic_store_n(ring.head, head, __ATOMIC_RELEASE);
 *	__atomic_thread_fence(__ATOMIC_SEQ_CST);	(smp_mb())
 *	if (__atomic_load_n(ring.flags, __ATOMIC_ACQUIRE) &
 *	    TWHEEL_RING_OVERFLOW)
 *		ioctl(fd, TWHEEL_IOC_FLUSH, &flush);
 *
 * The kernel writes records and then stores @tail with release semantics;
 * it reads @head with acquire semantics and never overwrites a record
 * between head and tail. Only @head is written by userspace; the full
 * barrier orders its store before the load of @flags (a store then a load
 * of another word needs one). poll, select and epoll report EPOLLIN while
 * records are between head and tail or wait in the overflow backlog, and
 * every expiry wakes the file's waiters, one that goes to the backlog too:
 * an edge-triggered epoll consumer gets an edge for each. Files that never
 * set up a ring keep ABI 1 exactly; the ioctls and read() of ABI 1 keep
 * working on a file with a ring.
 *
 * A hostile or buggy @head: the kernel writes a record only when
 * tail - head (modulo 2^32) is below @ring_entries. Any other value (head
 * ahead of the tail, or more than the ring behind it) reads as a full ring:
 * expiries wait in the backlog, nothing is overwritten or lost, no call
 * spins, and poll reports EPOLLIN only for that backlog. Writing a sane
 * @head back and flushing delivers what waited. The kernel never reads
 * @tail, @ring_mask or @ring_entries back from the mapping.
 *
 * Full ring: nothing is lost. An expiry that finds the ring full, or finds
 * records waiting in the backlog, marks its slot (the record waits in the
 * backlog, one per slot), sets TWHEEL_RING_OVERFLOW in the ring's @flags
 * and counts it in @overflow. The backlog moves into the ring as space
 * frees up, on TWHEEL_IOC_FLUSH, TWHEEL_IOC_SUBMIT, read() and poll();
 * userspace that sees TWHEEL_RING_OVERFLOW after consuming records calls
 * one of them. The flag is cleared once the backlog is empty.
 *
 * Order: records enter the ring in the order of their expiries, except
 * those that waited in the backlog together: while the backlog is not
 * empty every new expiry joins it, so no record overtakes one that
 * waited before it, and the backlog is flushed round robin over the slots
 * (in slot order from where the previous flush stopped), so each waiting
 * record leaves it before any slot's next one. Records of one slot are
 * always in order.
 *
 * With TWHEEL_FEAT_RING_LIMITS, a periodic timer whose record waits in the
 * backlog is parked: it does not fire, and costs nothing, until its record
 * moves into the ring. Then a fixed-rate timer's record counts the periods
 * that passed meanwhile in @overruns (its @deadline is the last of them,
 * counted from the clock when the record moved) and the timer goes on at
 * the next deadline of its grid; a fixed-delay timer goes on one period
 * after the record moved. So a reader that falls behind costs one expiry
 * per record it consumes, not one per period, as for a timerfd.
 *
 * Generations: every successful TWHEEL_OP_ARM or TWHEEL_OP_MODIFY of a slot
 * increments the slot's generation (returned in struct twheel_sqe.gen) and
 * every record carries the generation of the arming that fired. A record
 * already in the ring when its slot is re-armed or cancelled stays there: it
 * has the old generation and userspace drops it if it only wants the
 * current arming's. A record still in the backlog is discarded by the
 * re-arm or cancel (the sqe's result says so), so no record of an old
 * arming is produced after the SUBMIT that ended it has returned.
 *
 * Ring timers are one-shot or periodic; the kernel re-arms a periodic one in
 * the tick that fires it (unless it parks, above): fixed rate on the grid
 * of deadlines (periods that passed are counted in the next record's
 * @overruns), fixed delay one period after the tick that fired it (not
 * after the record is read). A period is at least one tick
 * (struct twheel_info.tick_ns), in both ABIs: EINVAL below.
 *
 * Clocks of ring timers: CLOCK_MONOTONIC, CLOCK_BOOTTIME (converted once:
 * a suspend makes it late, never early) and relative CLOCK_REALTIME (a
 * CLOCK_MONOTONIC deadline). With TWHEEL_FEAT_RING_LIMITS an absolute
 * CLOCK_REALTIME deadline is EINVAL: converted once, it would fire early
 * after the clock is set back (ABI 1 timers follow the clock instead).
 *
 * Generations are 32 bits: a slot whose generation reached 2^32 - 1 is
 * retired, its ARM and MODIFY entries fail with EOVERFLOW (CANCEL still
 * works), so a generation never comes back.
 *
 * mmap(): offset TWHEEL_RING_MMAP_OFF (0), length at most
 * twheel_ring_params.mmap_size, MAP_SHARED, without PROT_EXEC. A wrong
 * offset or length, or MAP_PRIVATE, gives EINVAL, PROT_EXEC EPERM, a file
 * without a ring ENODEV. A mapping is inherited by fork(): parent and child
 * share the file, the table and the ring (one consumer should advance
 * @head). The ring lives as long as the file; munmap() and mmap() again see
 * the same ring, and the last close() cancels every timer of the table.
 */

/**
 * struct twheel_ring_offsets - where the ring's fields are in the mapping
 * @head:	u32, consumer index (written by userspace)
 * @tail:	u32, producer index (written by the kernel)
 * @ring_mask:	u32, @ring_entries - 1
 * @ring_entries: u32, number of records, a power of 2
 * @flags:	u32, TWHEEL_RING_* bits (written by the kernel)
 * @overflow:	u32, expiries that found the ring full (wraps)
 * @records:	the struct twheel_cqe array
 * @__reserved:	0
 */
struct twheel_ring_offsets {
	__u32	head;
	__u32	tail;
	__u32	ring_mask;
	__u32	ring_entries;
	__u32	flags;
	__u32	overflow;
	__u32	records;
	__u32	__reserved;
};

/* The ring's @flags word. */
#define TWHEEL_RING_OVERFLOW	0x1U	/* records wait in the backlog */

/* struct twheel_ring_params.flags */
#define TWHEEL_RING_SETUP_QUERY	0x1U	/* report the file's ring, set up nothing */

#define TWHEEL_RING_MMAP_OFF	0ULL
#define TWHEEL_RING_MAX_ENTRIES	0x100000U	/* 2^20 */
/* A ring may have this many records whatever its slots (TWHEEL_FEAT_RING_LIMITS) */
#define TWHEEL_RING_SMALL_ENTRIES 64U
#define TWHEEL_TABLE_MAX_SLOTS	0x1000000U	/* 2^24 */

/**
 * struct twheel_ring_params - set up the timer table and the ring
 * @size:	sizeof(struct twheel_ring_params)
 * @flags:	0, or TWHEEL_RING_SETUP_QUERY (TWHEEL_FEAT_RING_LIMITS): set
 *		nothing up, fill in @slots, @ring_entries and the output
 *		fields for the ring the file has (@slots, @ring_entries and
 *		@__reserved must be 0; ENODEV without a ring). A set-up that
 *		returned EFAULT (its results could not be written) has set
 *		the ring up: query it
 * @slots:	number of slots of the table, 1 .. TWHEEL_TABLE_MAX_SLOTS;
 *		charged as timers against max_per_file (with the file's
 *		timers of ABI 1), max_per_user and max_total
 * @ring_entries: records in the ring, a power of 2, 1 ..
 *		TWHEEL_RING_MAX_ENTRIES, and (TWHEEL_FEAT_RING_LIMITS) at
 *		most the larger of TWHEEL_RING_SMALL_ENTRIES and @slots
 *		rounded up to a power of 2
 * @mmap_offset: out: offset to pass to mmap() (TWHEEL_RING_MMAP_OFF)
 * @mmap_size:	out: length of the mapping
 * @off:	out: offsets of the ring's fields in the mapping
 * @cqe_size:	out: sizeof(struct twheel_cqe)
 * @sqe_size:	out: sizeof(struct twheel_sqe)
 * @__reserved:	must be 0
 *
 * Memory: the ring is allocated at set-up; the table is allocated in chunks
 * of slots as they are first armed. Both are charged to the caller's memory
 * cgroup, and (TWHEEL_FEAT_RING_LIMITS) the ring's pages (@mmap_size) to
 * the caller's user against RLIMIT_MEMLOCK, as locked memory, until the
 * file's last close; CAP_IPC_LOCK lifts that limit (a kernel without
 * networking or io_uring counts no locked memory per user, and so does not
 * charge them). Errors: EBUSY (the file
 * has a ring already), EINVAL (flags, reserved, @slots or @ring_entries out
 * of range, not a power of 2), ENOSPC (@slots above what max_per_file
 * leaves the file, max_per_user or max_total reached), ENOMEM (no memory,
 * or RLIMIT_MEMLOCK reached), ENODEV (TWHEEL_RING_SETUP_QUERY without a
 * ring).
 */
struct twheel_ring_params {
	__u32	size;
	__u32	flags;
	__u32	slots;
	__u32	ring_entries;
	__u64	mmap_offset;
	__u64	mmap_size;
	struct twheel_ring_offsets off;
	__u32	cqe_size;
	__u32	sqe_size;
	__u64	__reserved;
};

/* struct twheel_sqe.op */
#define TWHEEL_OP_ARM		1	/* new cookie, deadline, period, CPU */
#define TWHEEL_OP_CANCEL	2
#define TWHEEL_OP_MODIFY	3	/* new deadline, period; same cookie, CPU */

/**
 * struct twheel_sqe - one submission (an entry of TWHEEL_IOC_SUBMIT)
 * @op:		TWHEEL_OP_*
 * @__pad:	must be 0
 * @flags:	TWHEEL_ARM_ABS, TWHEEL_ARM_FIXED_DELAY, TWHEEL_ARM_CPU (ARM
 *		only); 0 for CANCEL
 * @slot:	the timer: a slot index below twheel_ring_params.slots
 * @clockid:	as in struct twheel_arm (ARM, MODIFY)
 * @cpu:	as in struct twheel_arm, with TWHEEL_ARM_CPU
 * @expires:	deadline in ns, relative or absolute (ARM, MODIFY)
 * @period:	period in ns, 0 for one-shot (ARM, MODIFY)
 * @cookie:	echoed in the timer's records (ARM)
 * @result:	out: 1 if the slot's previous arming was pending (armed, or
 *		its record waiting in the backlog: discarded), 0 if the slot
 *		was idle, or a negative errno: EBADSLT (@slot not below the
 *		table size), EINVAL (@op, flags, clockid, @__pad, period, as
 *		TWHEEL_IOC_ARM; a period below one tick; an absolute
 *		CLOCK_REALTIME deadline), ERANGE, ENXIO, EPERM (cpu; for
 *		MODIFY, the slot's CPU is not one the caller may name),
 *		ENOMEM (first arm of a slot of a chunk not yet allocated),
 *		EOVERFLOW (the slot's generations ran out: retired)
 * @gen:	out: the slot's generation after this entry (see above), 0
 *		when @result is an error
 *
 * A slot is idle, armed, or fired (its record is in the ring or in the
 * backlog); ARM and MODIFY of a fired or idle slot arm it, CANCEL of an
 * idle slot returns 0 (a parked periodic slot is armed: 1). MODIFY keeps
 * the cookie and CPU, and is EPERM if the caller may not name that CPU
 * itself (its affinity, cpuset or isolation changed since the ARM):
 * CANCEL and ARM instead. A never armed slot gets cookie 0 and the CPU of
 * the first submitter that used a slot near it.
 */
struct twheel_sqe {
	__u8	op;
	__u8	__pad;
	__u16	flags;
	__u32	slot;
	__s32	clockid;
	__u32	cpu;
	__u64	expires;
	__u64	period;
	__u64	cookie;
	__s32	result;
	__u32	gen;
};

/* struct twheel_cqe.flags */
#define TWHEEL_CQE_PERIODIC	0x1U	/* the timer stays armed */
#define TWHEEL_CQE_BACKLOG	0x2U	/* waited in the backlog (ring full) */

/**
 * struct twheel_cqe - one expiry, a record of the completion ring
 * @cookie:	the cookie of the arming that fired
 * @deadline:	the deadline that expired, CLOCK_MONOTONIC ns (for a
 *		coalesced record, the last one); the record is written in
 *		the wheel tick of that deadline, never before it
 * @slot:	the timer's slot
 * @gen:	the slot's generation of that arming
 * @overruns:	expiries coalesced into this record: periods skipped because
 *		the tick was late, plus the periods a parked fixed-rate timer
 *		did not fire (saturates)
 * @flags:	TWHEEL_CQE_*
 */
struct twheel_cqe {
	__u64	cookie;
	__u64	deadline;
	__u32	slot;
	__u32	gen;
	__u32	overruns;
	__u32	flags;
};

/**
 * struct twheel_flush - move backlog records into the ring (TWHEEL_IOC_FLUSH)
 * @size:	sizeof(struct twheel_flush)
 * @flags:	must be 0
 * @flushed:	out: records moved into the ring
 * @backlog:	out: records still waiting (the ring is full)
 *
 * Errors: ENODEV (no ring).
 */
struct twheel_flush {
	__u32	size;
	__u32	flags;
	__u32	flushed;
	__u32	backlog;
};

/*
 * TWHEEL_IOC_SUBMIT takes a struct twheel_batch whose entries are struct
 * twheel_sqe (@entry_size exactly sizeof(struct twheel_sqe), else EINVAL;
 * @count up to TWHEEL_BATCH_MAX, else E2BIG). Entries are read in chunks
 * and processed in order; each gets its @result and @gen. Partial failure:
 * as for the other batches, a failing entry does not stop the batch; an
 * EFAULT reading or writing back a chunk stops it at that chunk, whose
 * entries are then not processed (nothing of a chunk is done unless its
 * results can be written back, unless userspace unmaps or write-protects
 * them while the ioctl runs). @done is the number of entries processed and
 * the ioctl returns the number of entries with a result >= 0, or ENODEV (no
 * ring), EINVAL, E2BIG, EFAULT (the header, or the first chunk), ENOMEM.
 * Relative deadlines are measured from one clock read per batch. Before
 * the entries, the backlog is flushed into the ring.
 */
#define TWHEEL_IOC_RING_SETUP	_IOWR(TWHEEL_IOC_MAGIC, 7, struct twheel_ring_params)
#define TWHEEL_IOC_SUBMIT	_IOWR(TWHEEL_IOC_MAGIC, 8, struct twheel_batch)
#define TWHEEL_IOC_FLUSH	_IOWR(TWHEEL_IOC_MAGIC, 9, struct twheel_flush)

#endif /* _UAPI_LINUX_TWHEEL_H */
