// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_badinput - table-driven bad inputs for every /dev/twheel entry
 * point. Each bad input must get the errno uapi/linux/twheel.h documents,
 * leave the file usable and leave the debugfs counters unchanged. Also:
 * no uninitialised byte reaches userspace (0xA5-filled buffers), and slab
 * allocation failures (failslab) give ENOMEM without half-made state.
 *
 * Prints "# bad inputs tried: N" at the end.
 *
 * Raw ioctls, not libtwheel: the inputs are malformed structures, sizes,
 * pointers and buffers that the library would never send (it fills in
 * sizes and rejects some of them itself), and the kernel's answer to each
 * is what is tested.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stddef.h>
#include <grp.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <sys/sysinfo.h>

#include "twheel_hard.h"
#include "kselftest_harness.h"

#ifndef CLOCK_REALTIME_ALARM
#define CLOCK_REALTIME_ALARM	8
#define CLOCK_BOOTTIME_ALARM	9
#endif

/* Start from a quiet module: nothing pending from an earlier test. */
static void __attribute__((constructor)) settle(void)
{
	tw_settle(120000);
}

#define PAGE		4096UL
#define KERNEL_PTR	0xffffffff81000000ULL
#define HOUR_NS		(3600ULL * 1000000000ULL)

/* Shared with the forked test children: bad inputs tried, in total. */
static unsigned long *tried;

static void __attribute__((constructor)) tried_init(void)
{
	tried = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (tried == MAP_FAILED)
		tried = NULL;
	else
		*tried = 0;
}

/* Two pages, the second inaccessible: returns the start of the first. */
static char *guard_pages(void)
{
	char *p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	mprotect(p + PAGE, PAGE, PROT_NONE);	/* reserved, never reused */
	memset(p, 0, PAGE);
	return p;
}

/* An address that is certainly unmapped. */
static void *unmapped(void)
{
	char *p = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	munmap(p, PAGE);
	return p;
}

static bool counters_same(const struct tw_stats *a, const struct tw_stats *b,
			  char *why, size_t len)
{
	static const char *const keys[] = { TWS_ARMED, TWS_CANCELLED,
					    TWS_EXPIRED, TWS_PENDING,
					    TWS_FD_CANCELLED };
	size_t i;

	if (!a->ok || !b->ok)
		return true;	/* no debugfs: nothing to compare */
	for (i = 0; i < TW_ARRAY_SIZE(keys); i++) {
		if (tw_stats_v(a, keys[i]) != tw_stats_v(b, keys[i])) {
			snprintf(why, len, "%s %llu -> %llu", keys[i],
				 (unsigned long long)tw_stats_v(a, keys[i]),
				 (unsigned long long)tw_stats_v(b, keys[i]));
			return false;
		}
	}
	return true;
}

/*
 * One bad input: the ioctl must fail with @want (or, when @want2 is not 0,
 * with @want2), and the file must still answer TWHEEL_IOC_INFO.
 */
#define BAD_IOCTL(fd, cmd, arg, want, desc) \
	BAD_IOCTL2(fd, cmd, arg, want, 0, desc)

#define BAD_IOCTL2(fd, cmd, arg, want, want2, desc) do {		\
	struct twheel_info __i;						\
	long __r = tw_ioctl(fd, cmd, (void *)(arg));			\
	(*tried)++;							\
	EXPECT_TRUE(__r == -(want) || ((want2) && __r == -(want2)))	\
		TH_LOG("%s: got %ld (%s), want -%d (%s)", desc, __r,	\
		       __r < 0 ? strerror(-__r) : "success", want,	\
		       strerror(want));					\
	EXPECT_EQ(0, tw_info(fd, &__i)) TH_LOG("fd dead after %s", desc); \
} while (0)

/* ------------------------------------------------------------ commands */

static const struct {
	unsigned int	nr;
	size_t		size;
	const char	*name;
} known[] = {
	{ 0, sizeof(struct twheel_info), "INFO" },
	{ 1, sizeof(struct twheel_arm), "ARM" },
	{ 2, sizeof(struct twheel_batch), "ARM_BATCH" },
	{ 3, sizeof(struct twheel_cancel), "CANCEL" },
	{ 4, sizeof(struct twheel_batch), "CANCEL_BATCH" },
	{ 5, sizeof(struct twheel_modify), "MODIFY" },
	{ 6, sizeof(struct twheel_query), "QUERY" },
	{ 7, sizeof(struct twheel_ring_params), "RING_SETUP" },
	{ 8, sizeof(struct twheel_batch), "SUBMIT" },
	{ 9, sizeof(struct twheel_flush), "FLUSH" },
};

TEST(unknown_commands)
{
	static char buf[2 * PAGE];
	int fd = tw_open(0), dir, nr;
	unsigned int i, sizes[] = { 0, 1, 4, 8, 24, 40, 47, 64, 65, 128, 4096,
				     (1U << 14) - 1 };
	struct tw_stats a, b;
	char why[128], desc[96];

	ASSERT_LE(0, fd) TH_LOG("%s: %s", TW_DEV, strerror(errno));
	tw_stats_read(&a);
	/* Numbers past the last command, every direction and some sizes. */
	for (nr = TW_ARRAY_SIZE(known); nr < 256; nr++) {
		for (dir = 0; dir < 4; dir++) {
			unsigned int sz = sizes[(nr + dir) % TW_ARRAY_SIZE(sizes)];

			snprintf(desc, sizeof(desc), "_IOC(%d, 0xE7, %d, %u)",
				 dir, nr, sz);
			BAD_IOCTL(fd, _IOC(dir, TWHEEL_IOC_MAGIC, nr, sz), buf,
				  ENOTTY, desc);
		}
	}
	/*
	 * Known numbers with a wrong direction or magic. (The size encoded in
	 * the command is ignored on purpose, dev_ioctl.c: the structure's own
	 * size field rules, so a later, larger structure reaches the same
	 * handler.)
	 */
	for (i = 0; i < TW_ARRAY_SIZE(known); i++) {
		for (dir = 0; dir < 3; dir++) {
			snprintf(desc, sizeof(desc), "%s with _IOC dir %d",
				 known[i].name, dir);
			BAD_IOCTL(fd, _IOC(dir, TWHEEL_IOC_MAGIC, known[i].nr,
					   known[i].size), buf, ENOTTY, desc);
		}
		snprintf(desc, sizeof(desc), "%s with magic 0xE8",
			 known[i].name);
		BAD_IOCTL(fd, _IOWR(0xE8, known[i].nr, 0) |
			  (known[i].size << _IOC_SIZESHIFT), buf, ENOTTY, desc);
	}
	/* Other subsystems' commands. */
	BAD_IOCTL(fd, 0x5401 /* TCGETS */, buf, ENOTTY, "TCGETS");
	BAD_IOCTL(fd, 0x541B /* FIONREAD */, buf, ENOTTY, "FIONREAD");
	BAD_IOCTL(fd, 0x80086601 /* FS_IOC_GETFLAGS */, buf, ENOTTY,
		  "FS_IOC_GETFLAGS");
	BAD_IOCTL(fd, 0, buf, ENOTTY, "cmd 0");
	BAD_IOCTL(fd, 0xffffffff, buf, ENOTTY, "cmd 0xffffffff");
	tw_stats_read(&b);
	EXPECT_TRUE(counters_same(&a, &b, why, sizeof(why))) TH_LOG("%s", why);
	close(fd);
}

/* ------------------------------------------- pointers and sizes, generic */

struct ioc_desc {
	unsigned long	cmd;
	const char	*name;
	size_t		size;
	size_t		flags_off;	/* (size_t)-1: none */
	uint32_t	flags_ok;	/* valid flag bits */
	size_t		rsv_off[2];	/* reserved u32 fields, 0: none */
	size_t		rsv_len[2];
};

#define OFF(s, f)	offsetof(struct s, f)
static const struct ioc_desc iocs[] = {
	{ TWHEEL_IOC_INFO, "INFO", sizeof(struct twheel_info), (size_t)-1, 0,
	  { 0, 0 }, { 0, 0 } },
	{ TWHEEL_IOC_ARM, "ARM", sizeof(struct twheel_arm),
	  OFF(twheel_arm, flags), TWHEEL_ARM_FLAGS,
	  { OFF(twheel_arm, __reserved), 0 }, { 4, 0 } },
	{ TWHEEL_IOC_ARM_BATCH, "ARM_BATCH", sizeof(struct twheel_batch),
	  OFF(twheel_batch, flags), 0, { OFF(twheel_batch, __reserved), 0 },
	  { 4, 0 } },
	{ TWHEEL_IOC_CANCEL, "CANCEL", sizeof(struct twheel_cancel),
	  OFF(twheel_cancel, flags), 0, { OFF(twheel_cancel, __reserved), 0 },
	  { 4, 0 } },
	{ TWHEEL_IOC_CANCEL_BATCH, "CANCEL_BATCH", sizeof(struct twheel_batch),
	  OFF(twheel_batch, flags), 0, { OFF(twheel_batch, __reserved), 0 },
	  { 4, 0 } },
	{ TWHEEL_IOC_MODIFY, "MODIFY", sizeof(struct twheel_modify),
	  OFF(twheel_modify, flags), TWHEEL_ARM_ABS | TWHEEL_ARM_FIXED_DELAY |
	  TWHEEL_ARM_CANCEL_ON_SET,
	  { OFF(twheel_modify, __reserved), 0 }, { 4, 0 } },
	{ TWHEEL_IOC_QUERY, "QUERY", sizeof(struct twheel_query),
	  OFF(twheel_query, flags), 0, { 0 }, { 0 } },
};

/*
 * A valid argument for @d (for the id-taking ioctls, @id is a live timer
 * armed an hour ahead, so nothing expires during the test). For the batch
 * ioctls the entries point at @ent, one valid entry.
 */
static void valid_arg(const struct ioc_desc *d, void *buf, uint64_t id,
		      void *ent)
{
	memset(buf, 0, d->size);
	*(uint32_t *)buf = d->size;
	switch (_IOC_NR(d->cmd)) {
	case 1: {
		struct twheel_arm *a = buf;

		a->expires = HOUR_NS;
		break;
	}
	case 2: case 4: {
		struct twheel_batch *b = buf;

		b->count = 1;
		b->entries = (uintptr_t)ent;
		b->entry_size = _IOC_NR(d->cmd) == 2 ?
				sizeof(struct twheel_arm) :
				sizeof(struct twheel_cancel);
		break;
	}
	case 3:
		((struct twheel_cancel *)buf)->id = id;
		break;
	case 5: {
		struct twheel_modify *m = buf;

		m->id = id;
		m->expires = HOUR_NS;
		break;
	}
	case 6:
		((struct twheel_query *)buf)->id = id;
		break;
	}
}

TEST(pointers_sizes_flags_reserved)
{
	char *g = guard_pages(), buf[256], desc[128], why[128];
	struct twheel_arm ent_arm = { .size = sizeof(ent_arm),
				      .expires = HOUR_NS };
	struct tw_stats a, b;
	uint64_t id;
	unsigned int i, bit, k;
	int fd = tw_open(0);

	ASSERT_LE(0, fd) TH_LOG("%s: %s", TW_DEV, strerror(errno));
	ASSERT_NE(NULL, g);
	ASSERT_EQ(0, tw_arm(fd, 0, HOUR_NS, 0, 7, 0, &id));
	tw_stats_read(&a);
	for (i = 0; i < TW_ARRAY_SIZE(iocs); i++) {
		const struct ioc_desc *d = &iocs[i];
		void *ent = &ent_arm;
		char *p;

		if (_IOC_NR(d->cmd) == 4) {
			static struct twheel_cancel c;

			/* cancel entry for an unknown id: result -ENOENT */
			c.size = sizeof(c);
			c.id = 0xdead0000ULL;
			ent = &c;
		}
		snprintf(desc, sizeof(desc), "%s NULL", d->name);
		BAD_IOCTL(fd, d->cmd, NULL, EFAULT, desc);
		snprintf(desc, sizeof(desc), "%s kernel pointer", d->name);
		BAD_IOCTL(fd, d->cmd, KERNEL_PTR, EFAULT, desc);
		snprintf(desc, sizeof(desc), "%s unmapped", d->name);
		BAD_IOCTL(fd, d->cmd, unmapped(), EFAULT, desc);
		snprintf(desc, sizeof(desc), "%s pointer -1", d->name);
		BAD_IOCTL(fd, d->cmd, (void *)-1L, EFAULT, desc);
		/* The struct crossing into the unmapped page, size readable. */
		for (k = 4; k < d->size; k += 4) {
			p = g + PAGE - k;
			valid_arg(d, buf, id, ent);
			memcpy(p, buf, k);
			snprintf(desc, sizeof(desc),
				 "%s crossing into unmapped page after %u bytes",
				 d->name, k);
			BAD_IOCTL(fd, d->cmd, p, EFAULT, desc);
		}
		/* Bad sizes. */
		valid_arg(d, buf, id, ent);
		*(uint32_t *)buf = 0;
		snprintf(desc, sizeof(desc), "%s size 0", d->name);
		BAD_IOCTL(fd, d->cmd, buf, EINVAL, desc);
		valid_arg(d, buf, id, ent);
		*(uint32_t *)buf = 3;
		snprintf(desc, sizeof(desc), "%s size 3", d->name);
		BAD_IOCTL(fd, d->cmd, buf, EINVAL, desc);
		/* Larger than known, non-zero tail: E2BIG. */
		valid_arg(d, buf, id, ent);
		*(uint32_t *)buf = d->size + 8;
		memset(buf + d->size, 0, 8);
		buf[d->size + 5] = 1;
		snprintf(desc, sizeof(desc), "%s size+8, non-zero tail",
			 d->name);
		BAD_IOCTL(fd, d->cmd, buf, E2BIG, desc);
		/* Larger, with the tail in an unmapped page: EFAULT. */
		p = g + PAGE - d->size;
		valid_arg(d, p, id, ent);
		*(uint32_t *)p = d->size + 8;
		snprintf(desc, sizeof(desc), "%s size+8, tail unmapped",
			 d->name);
		BAD_IOCTL(fd, d->cmd, p, EFAULT, desc);
		/* Absurd sizes. */
		valid_arg(d, buf, id, ent);
		*(uint32_t *)buf = 0xffffffff;
		snprintf(desc, sizeof(desc), "%s size 0xffffffff", d->name);
		BAD_IOCTL2(fd, d->cmd, buf, E2BIG, EFAULT, desc);
		/* Unknown flag bits, one at a time. */
		if (d->flags_off != (size_t)-1) {
			for (bit = 0; bit < 32; bit++) {
				if (d->flags_ok & (1U << bit))
					continue;
				valid_arg(d, buf, id, ent);
				*(uint32_t *)(buf + d->flags_off) |= 1U << bit;
				snprintf(desc, sizeof(desc), "%s flag bit %u",
					 d->name, bit);
				BAD_IOCTL(fd, d->cmd, buf, EINVAL, desc);
			}
		}
		/* Reserved fields, every byte. */
		for (k = 0; k < 2 && d->rsv_len[k]; k++) {
			unsigned int byte;

			for (byte = 0; byte < d->rsv_len[k]; byte++) {
				valid_arg(d, buf, id, ent);
				buf[d->rsv_off[k] + byte] = 0x01;
				snprintf(desc, sizeof(desc),
					 "%s reserved byte %u", d->name,
					 byte);
				BAD_IOCTL(fd, d->cmd, buf, EINVAL, desc);
			}
		}
	}
	tw_stats_read(&b);
	EXPECT_TRUE(counters_same(&a, &b, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_EQ(1, tw_pending(fd));
	EXPECT_EQ(1, tw_cancel(fd, id));
	EXPECT_EQ(0, tw_pending(fd));
	close(fd);
}

/* ------------------------------------------------------------ arm values */

static void fill_arm(struct twheel_arm *arm, uint32_t flags, int clk,
		     uint64_t exp, uint64_t per)
{
	memset(arm, 0, sizeof(*arm));
	arm->size = sizeof(*arm);
	arm->flags = flags;
	arm->clockid = clk;
	arm->expires = exp;
	arm->period = per;
}

static void fill_mod(struct twheel_modify *mod, uint64_t id, uint32_t flags,
		     int clk, uint64_t exp, uint64_t per)
{
	memset(mod, 0, sizeof(*mod));
	mod->size = sizeof(*mod);
	mod->id = id;
	mod->flags = flags;
	mod->clockid = clk;
	mod->expires = exp;
	mod->period = per;
}

TEST(arm_bad_values)
{
	static const int bad_clocks[] = {
		-1, 2 /* PROCESS_CPUTIME */, 3 /* THREAD_CPUTIME */,
		4 /* MONOTONIC_RAW */, 5 /* REALTIME_COARSE */,
		6 /* MONOTONIC_COARSE */, 10, 11 /* TAI */, 12, 16, 1000,
		INT32_MIN, INT32_MAX, -6 /* a CPU clock of pid 0 */,
	};
	unsigned int ncpu = get_nprocs_conf(), bad_cpus[] = {
		ncpu, ncpu + 1, 1024, 65535, 65536, 0x7fffffff, 0x80000000,
		0xffffffff,
	};
	struct twheel_arm arm;
	struct twheel_modify mod;
	struct tw_stats a, b;
	char desc[96], why[128];
	uint64_t id;
	unsigned int i;
	int fd = tw_open(0);

	ASSERT_LE(0, fd) TH_LOG("%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_arm(fd, 0, HOUR_NS, 0, 7, 0, &id));
	tw_stats_read(&a);
	for (i = 0; i < TW_ARRAY_SIZE(bad_clocks); i++) {
		memset(&arm, 0, sizeof(arm));
		arm.size = sizeof(arm);
		arm.flags = TWHEEL_ARM_ABS;
		arm.clockid = bad_clocks[i];
		arm.expires = tw_now() + HOUR_NS;
		snprintf(desc, sizeof(desc), "ARM ABS clockid %d",
			 bad_clocks[i]);
		BAD_IOCTL(fd, TWHEEL_IOC_ARM, &arm, EINVAL, desc);

		memset(&mod, 0, sizeof(mod));
		mod.size = sizeof(mod);
		mod.flags = TWHEEL_ARM_ABS;
		mod.clockid = bad_clocks[i];
		mod.id = id;
		mod.expires = tw_now() + HOUR_NS;
		snprintf(desc, sizeof(desc), "MODIFY ABS clockid %d",
			 bad_clocks[i]);
		BAD_IOCTL(fd, TWHEEL_IOC_MODIFY, &mod, EINVAL, desc);
	}
	for (i = 0; i < TW_ARRAY_SIZE(bad_cpus); i++) {
		memset(&arm, 0, sizeof(arm));
		arm.size = sizeof(arm);
		arm.flags = TWHEEL_ARM_CPU;
		arm.cpu = bad_cpus[i];
		arm.expires = HOUR_NS;
		snprintf(desc, sizeof(desc), "ARM cpu %u of %u", bad_cpus[i],
			 ncpu);
		BAD_IOCTL(fd, TWHEEL_IOC_ARM, &arm, ERANGE, desc);
	}
	/*
	 * Values that do not fit a signed 64-bit ns count: an absolute
	 * deadline above KTIME_MAX is "before the clock's zero" (EINVAL, as
	 * documented); a period above it is EINVAL too (not documented in
	 * the uapi header), and so is a fixed-delay timer without a period.
	 */
	{
		static const struct { uint32_t flags; int clk; uint64_t exp, per; } bv[] = {
			{ TWHEEL_ARM_ABS, CLOCK_MONOTONIC, UINT64_MAX, 0 },
			{ TWHEEL_ARM_ABS, CLOCK_MONOTONIC, (uint64_t)INT64_MAX + 1, 0 },
			{ TWHEEL_ARM_ABS, CLOCK_BOOTTIME, UINT64_MAX, 0 },
			{ TWHEEL_ARM_ABS, CLOCK_REALTIME, UINT64_MAX, 0 },
			{ TWHEEL_ARM_ABS, CLOCK_REALTIME, 1ULL << 63, 0 },
			{ 0, 0, HOUR_NS, UINT64_MAX },
			{ 0, 0, HOUR_NS, (uint64_t)INT64_MAX + 1 },
			{ TWHEEL_ARM_FIXED_DELAY, 0, HOUR_NS, UINT64_MAX },
			{ TWHEEL_ARM_FIXED_DELAY, 0, HOUR_NS, 0 },
			/* Cancel-on-set: absolute REALTIME one-shot only. */
			{ TWHEEL_ARM_ABS | TWHEEL_ARM_CANCEL_ON_SET,
			  CLOCK_MONOTONIC, HOUR_NS, 0 },
			{ TWHEEL_ARM_ABS | TWHEEL_ARM_CANCEL_ON_SET,
			  CLOCK_BOOTTIME, HOUR_NS, 0 },
			{ TWHEEL_ARM_CANCEL_ON_SET, CLOCK_REALTIME, HOUR_NS, 0 },
			{ TWHEEL_ARM_ABS | TWHEEL_ARM_CANCEL_ON_SET,
			  CLOCK_REALTIME, INT64_MAX, HOUR_NS },
			{ TWHEEL_ARM_ABS | TWHEEL_ARM_CANCEL_ON_SET |
			  TWHEEL_ARM_FIXED_DELAY, CLOCK_REALTIME, INT64_MAX,
			  HOUR_NS },
			/* The alarm clocks (TWHEEL_FEAT_ALARM), as root. */
			{ TWHEEL_ARM_ABS, CLOCK_REALTIME_ALARM, UINT64_MAX, 0 },
			{ TWHEEL_ARM_ABS, CLOCK_BOOTTIME_ALARM, UINT64_MAX, 0 },
			{ 0, CLOCK_BOOTTIME_ALARM, HOUR_NS, UINT64_MAX },
			{ TWHEEL_ARM_FIXED_DELAY, CLOCK_REALTIME_ALARM,
			  HOUR_NS, 0 },
			{ TWHEEL_ARM_CANCEL_ON_SET, CLOCK_REALTIME_ALARM,
			  HOUR_NS, 0 },
			{ TWHEEL_ARM_ABS | TWHEEL_ARM_CANCEL_ON_SET,
			  CLOCK_BOOTTIME_ALARM, HOUR_NS, 0 },
			{ TWHEEL_ARM_ABS | TWHEEL_ARM_CANCEL_ON_SET,
			  CLOCK_REALTIME_ALARM, INT64_MAX, HOUR_NS },
		};

		for (i = 0; i < TW_ARRAY_SIZE(bv); i++) {
			fill_arm(&arm, bv[i].flags, bv[i].clk, bv[i].exp,
				 bv[i].per);
			snprintf(desc, sizeof(desc),
				 "ARM flags %x clock %d expires %#llx period %#llx",
				 bv[i].flags, bv[i].clk,
				 (unsigned long long)bv[i].exp,
				 (unsigned long long)bv[i].per);
			BAD_IOCTL(fd, TWHEEL_IOC_ARM, &arm, EINVAL, desc);
			fill_mod(&mod, id, bv[i].flags, bv[i].clk, bv[i].exp,
				 bv[i].per);
			snprintf(desc, sizeof(desc),
				 "MODIFY flags %x clock %d expires %#llx period %#llx",
				 bv[i].flags, bv[i].clk,
				 (unsigned long long)bv[i].exp,
				 (unsigned long long)bv[i].per);
			BAD_IOCTL(fd, TWHEEL_IOC_MODIFY, &mod, EINVAL, desc);
		}
	}
	/* Modify a timer into a bad shape: the timer must stay as it was. */
	memset(&mod, 0, sizeof(mod));
	mod.size = sizeof(mod);
	mod.flags = TWHEEL_ARM_CPU;
	mod.id = id;
	mod.expires = 1;
	BAD_IOCTL(fd, TWHEEL_IOC_MODIFY, &mod, EINVAL, "MODIFY flag CPU");
	tw_stats_read(&b);
	EXPECT_TRUE(counters_same(&a, &b, why, sizeof(why))) TH_LOG("%s", why);
	{
		struct twheel_query q;

		ASSERT_EQ(0, tw_query(fd, id, &q));
		EXPECT_EQ((unsigned int)TWHEEL_STATE_ARMED, q.state);
		EXPECT_LT(HOUR_NS / 2, q.remaining);
		EXPECT_EQ(7ULL, q.cookie);
	}
	close(fd);
}

/* An offline CPU: ENXIO. Needs CPU hotplug and root. */
/*
 * In a child as uid 1000, without CAP_WAKE_ALARM: the alarm clocks give
 * EPERM for a valid ARM or MODIFY, as timerfd_create() does, and the EINVAL
 * of a bad one before that; nothing changes. Returns 0 or the number of the
 * first failed check (the harness's checks do not reach the parent).
 */
static int alarm_unprivileged(void)
{
	static const struct {
		uint32_t flags; int clk; uint64_t exp, per; int err;
	} v[] = {
		{ 0, CLOCK_REALTIME_ALARM, HOUR_NS, 0, EPERM },
		{ TWHEEL_ARM_ABS, CLOCK_REALTIME_ALARM, HOUR_NS, 0, EPERM },
		{ TWHEEL_ARM_ABS | TWHEEL_ARM_CANCEL_ON_SET,
		  CLOCK_REALTIME_ALARM, INT64_MAX, 0, EPERM },
		{ 0, CLOCK_BOOTTIME_ALARM, HOUR_NS, HOUR_NS, EPERM },
		{ TWHEEL_ARM_ABS, CLOCK_BOOTTIME_ALARM, HOUR_NS, 0, EPERM },
		{ TWHEEL_ARM_ABS, CLOCK_BOOTTIME_ALARM, UINT64_MAX, 0, EINVAL },
		{ TWHEEL_ARM_CANCEL_ON_SET, CLOCK_REALTIME_ALARM, HOUR_NS, 0,
		  EINVAL },
		{ TWHEEL_ARM_FIXED_DELAY, CLOCK_REALTIME_ALARM, HOUR_NS, 0,
		  EINVAL },
		{ 0x80000000U, CLOCK_BOOTTIME_ALARM, HOUR_NS, 0, EINVAL },
	};
	struct twheel_modify mod;
	struct twheel_query q = { .size = sizeof(q) };
	struct twheel_arm arm;
	unsigned int i;
	uint64_t id;
	int fd = tw_open(0);

	if (fd < 0)
		return 1;
	if (tw_arm(fd, 0, HOUR_NS, 0, 7, 0, &id))
		return 2;
	for (i = 0; i < TW_ARRAY_SIZE(v); i++) {
		fill_arm(&arm, v[i].flags, v[i].clk, v[i].exp, v[i].per);
		(*tried)++;
		if (tw_ioctl(fd, TWHEEL_IOC_ARM, &arm) != -v[i].err)
			return 10 + i;
		fill_mod(&mod, id, v[i].flags, v[i].clk, v[i].exp, v[i].per);
		(*tried)++;
		if (tw_ioctl(fd, TWHEEL_IOC_MODIFY, &mod) != -v[i].err)
			return 40 + i;
	}
	/* timerfd agrees. */
	if (timerfd_create(CLOCK_REALTIME_ALARM, 0) >= 0 || errno != EPERM)
		return 3;
	if (timerfd_create(CLOCK_BOOTTIME_ALARM, 0) >= 0 || errno != EPERM)
		return 4;
	/* The one timer is as it was. */
	q.id = id;
	if (tw_ioctl(fd, TWHEEL_IOC_QUERY, &q) || q.state != TWHEEL_STATE_ARMED ||
	    q.cookie != 7 || q.period)
		return 5;
	if (tw_pending(fd) != 1)
		return 6;
	close(fd);
	return 0;
}

TEST(alarm_clocks_need_cap_wake_alarm)
{
	struct twheel_info info;
	int status, fd = tw_open(0);
	pid_t pid;

	ASSERT_LE(0, fd) TH_LOG("%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_info(fd, &info));
	close(fd);
	if (!(info.features & TWHEEL_FEAT_ALARM))
		SKIP(return, "no TWHEEL_FEAT_ALARM");
	if (geteuid())
		SKIP(return, "not root: cannot become uid 1000");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (setgroups(0, NULL) || setgid(1000) || setuid(1000))
			_exit(100);
		_exit(alarm_unprivileged());
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST(arm_offline_cpu)
{
	unsigned int ncpu = get_nprocs_conf();
	struct twheel_arm arm;
	int fd, cpu = ncpu - 1;
	long r;

	if (ncpu < 2 || !tw_cpu_hotpluggable(cpu))
		SKIP(return, "no hotpluggable CPU");
	fd = tw_open(0);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_cpu_set_online(cpu, 0));
	memset(&arm, 0, sizeof(arm));
	arm.size = sizeof(arm);
	arm.flags = TWHEEL_ARM_CPU;
	arm.cpu = cpu;
	arm.expires = HOUR_NS; /* never fires before the cancel below */
	r = tw_ioctl(fd, TWHEEL_IOC_ARM, &arm);
	(*tried)++;
	ASSERT_EQ(0, tw_cpu_set_online(cpu, 1));
	EXPECT_EQ(-ENXIO, r) TH_LOG("ARM on offline cpu %d: %ld", cpu, r);
	EXPECT_EQ(0, tw_pending(fd));
	/* And online again it works. */
	EXPECT_EQ(0, tw_ioctl(fd, TWHEEL_IOC_ARM, &arm));
	EXPECT_EQ(1, tw_cancel(fd, arm.id));
	close(fd);
}

/*
 * Extreme but valid values: deadlines near U64_MAX on every clock, relative
 * and absolute, huge periods. They must be accepted, must not wrap into the
 * past (nothing fires within 200 ms) and must cancel cleanly.
 */
TEST(extreme_deadlines_do_not_wrap)
{
	static const struct { uint32_t flags; int clk; uint64_t exp, per; } v[] = {
		{ 0, 0, UINT64_MAX, 0 },
		{ 0, 0, UINT64_MAX - 1, 0 },
		{ 0, 0, INT64_MAX, 0 },
		{ 0, 0, (uint64_t)INT64_MAX + 1, 0 },
		{ 0, 0, 1ULL << 62, 0 },
		{ 0, 0, UINT64_MAX, INT64_MAX },
		{ 0, 0, UINT64_MAX, 100000000 },	/* a tick at most */
		{ 0, 0, HOUR_NS, INT64_MAX },
		{ TWHEEL_ARM_FIXED_DELAY, 0, UINT64_MAX, INT64_MAX },
		{ TWHEEL_ARM_ABS, CLOCK_MONOTONIC, INT64_MAX, 0 },
		{ TWHEEL_ARM_ABS, CLOCK_MONOTONIC, INT64_MAX - 1, 0 },
		{ TWHEEL_ARM_ABS, CLOCK_BOOTTIME, INT64_MAX, 0 },
		{ TWHEEL_ARM_ABS, CLOCK_REALTIME, INT64_MAX, 0 },
		{ TWHEEL_ARM_ABS, CLOCK_MONOTONIC, INT64_MAX, INT64_MAX },
		{ TWHEEL_ARM_ABS | TWHEEL_ARM_FIXED_DELAY, CLOCK_BOOTTIME,
		  INT64_MAX, 100000000 },
	};
	uint64_t ids[TW_ARRAY_SIZE(v)];
	struct twheel_event ev;
	unsigned int i;
	int fd = tw_open(O_NONBLOCK);

	ASSERT_LE(0, fd) TH_LOG("%s: %s", TW_DEV, strerror(errno));
	for (i = 0; i < TW_ARRAY_SIZE(v); i++) {
		struct twheel_arm arm = {
			.size = sizeof(arm), .flags = v[i].flags,
			.clockid = v[i].clk, .expires = v[i].exp,
			.period = v[i].per, .cookie = i,
		};
		struct twheel_query q;
		long r = tw_ioctl(fd, TWHEEL_IOC_ARM, &arm);

		(*tried)++;
		ASSERT_EQ(0, r) TH_LOG("entry %u: exp %llx per %llx flags %x clock %d: %ld",
				       i, (unsigned long long)v[i].exp,
				       (unsigned long long)v[i].per,
				       v[i].flags, v[i].clk, r);
		ids[i] = arm.id;
		ASSERT_EQ(0, tw_query(fd, arm.id, &q));
		EXPECT_EQ((unsigned int)TWHEEL_STATE_ARMED, q.state) TH_LOG("entry %u", i);
		EXPECT_LT(HOUR_NS / 2, q.remaining)
			TH_LOG("entry %u: remaining %llu", i,
			       (unsigned long long)q.remaining);
	}
	tw_sleep_ms(200);
	EXPECT_EQ(-1, read(fd, &ev, sizeof(ev)))
		TH_LOG("event of entry %llu (deadline %llu) fired",
		       (unsigned long long)ev.cookie,
		       (unsigned long long)ev.deadline);
	EXPECT_EQ(EAGAIN, errno);
	for (i = 0; i < TW_ARRAY_SIZE(v); i++)
		EXPECT_EQ(1, tw_cancel(fd, ids[i])) TH_LOG("entry %u", i);
	EXPECT_EQ(0, tw_pending(fd));
	close(fd);
}

/*
 * Zero and past deadlines fire at the next tick; a period below one tick is
 * EINVAL, and a one-tick period coalesces.
 */
TEST(zero_past_and_tiny_period)
{
	struct twheel_event ev[4];
	struct twheel_info info;
	struct pollfd p;
	uint64_t id1, id2, id3;
	int fd = tw_open(0);
	ssize_t n;

	ASSERT_LE(0, fd) TH_LOG("%s: %s", TW_DEV, strerror(errno));
	ASSERT_EQ(0, tw_info(fd, &info));
	ASSERT_EQ(0, tw_arm(fd, 0, 0, 0, 1, 0, &id1));
	ASSERT_EQ(0, tw_arm(fd, TWHEEL_ARM_ABS, 0, 0, 2, 0, &id2));
	/* The period floor is one tick. */
	EXPECT_EQ(-EINVAL, tw_arm(fd, 0, 0, 1, 3, 0, &id3));
	EXPECT_EQ(-EINVAL, tw_arm(fd, 0, 0, info.tick_ns - 1, 3, 0, &id3));
	ASSERT_EQ(0, tw_arm(fd, 0, 0, info.tick_ns, 3, 0, &id3));
	(*tried) += 5;
	tw_sleep_ms(100);
	p.fd = fd;
	p.events = POLLIN;
	ASSERT_EQ(1, poll(&p, 1, 5000));
	n = read(fd, ev, sizeof(ev));
	EXPECT_EQ(3 * (ssize_t)sizeof(ev[0]), n);
	if (n == 3 * (ssize_t)sizeof(ev[0])) {
		int i;

		for (i = 0; i < 3; i++) {
			EXPECT_LE(ev[i].deadline, ev[i].expired);
			if (ev[i].cookie == 3) {
				EXPECT_TRUE(!!(ev[i].flags & TWHEEL_EVENT_PERIODIC));
				/* Read 100 ms or more after the first deadline. */
				EXPECT_LE(100000000 / info.tick_ns - 1,
					  ev[i].overruns)
					TH_LOG("1 tick period, 100 ms: overruns %u",
					       ev[i].overruns);
			}
		}
	}
	EXPECT_EQ(-ENOENT, tw_cancel(fd, id1));
	EXPECT_EQ(-ENOENT, tw_cancel(fd, id2));
	EXPECT_LE(0, tw_cancel(fd, id3));
	EXPECT_EQ(0, tw_pending(fd));
	close(fd);
}

/* ------------------------------------------------------------------- ids */

TEST(bad_ids)
{
	int fd = tw_open(O_NONBLOCK), other = tw_open(O_NONBLOCK);
	uint64_t live, gone, read_id, foreign = 0, ids[8];
	struct twheel_modify mod = { .size = sizeof(mod), .expires = HOUR_NS };
	struct twheel_cancel can = { .size = sizeof(can) };
	struct twheel_query q;
	struct twheel_event ev;
	struct tw_stats a, b;
	char desc[96], why[128];
	unsigned int i;

	ASSERT_LE(0, fd) TH_LOG("%s: %s", TW_DEV, strerror(errno));
	ASSERT_LE(0, other);
	ASSERT_EQ(0, tw_arm(fd, 0, HOUR_NS, 0, 1, 0, &live));
	ASSERT_EQ(0, tw_arm(fd, 0, HOUR_NS, 0, 2, 0, &gone));
	ASSERT_EQ(1, tw_cancel(fd, gone));
	ASSERT_EQ(0, tw_arm(fd, 0, 0, 0, 3, 0, &read_id));
	tw_sleep_ms(50);
	for (i = 0; i < 200 && read(fd, &ev, sizeof(ev)) < 0; i++)
		tw_sleep_ms(10);
	ASSERT_EQ(read_id, ev.id);
	/* Another file's timer, with an id this file never handed out. */
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, tw_arm(other, 0, HOUR_NS, 0, 9, 0, &foreign));
	ids[0] = 0;
	ids[1] = gone;
	ids[2] = read_id;
	ids[3] = foreign;
	ids[4] = UINT64_MAX;
	ids[5] = 1ULL << 56;
	ids[6] = (1ULL << 56) + live;	/* aliases 'live' in 56 bits */
	ids[7] = 1ULL << 32 | live;	/* aliases 'live' in 32 bits */
	tw_stats_read(&a);
	for (i = 0; i < TW_ARRAY_SIZE(ids); i++) {
		can.id = ids[i];
		snprintf(desc, sizeof(desc), "CANCEL id %#llx",
			 (unsigned long long)ids[i]);
		BAD_IOCTL(fd, TWHEEL_IOC_CANCEL, &can, ENOENT, desc);
		mod.id = ids[i];
		snprintf(desc, sizeof(desc), "MODIFY id %#llx",
			 (unsigned long long)ids[i]);
		BAD_IOCTL(fd, TWHEEL_IOC_MODIFY, &mod, ENOENT, desc);
		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.id = ids[i];
		snprintf(desc, sizeof(desc), "QUERY id %#llx",
			 (unsigned long long)ids[i]);
		BAD_IOCTL(fd, TWHEEL_IOC_QUERY, &q, ENOENT, desc);
	}
	tw_stats_read(&b);
	EXPECT_TRUE(counters_same(&a, &b, why, sizeof(why))) TH_LOG("%s", why);
	/* Nothing happened to either file's timers. */
	EXPECT_EQ(1, tw_pending(fd));
	EXPECT_EQ(4, tw_pending(other));
	ASSERT_EQ(0, tw_query(fd, live, &q));
	EXPECT_EQ(1ULL, q.cookie);
	ASSERT_EQ(0, tw_query(other, foreign, &q));
	EXPECT_EQ(9ULL, q.cookie);
	EXPECT_EQ((unsigned int)TWHEEL_STATE_ARMED, q.state);
	close(other);
	close(fd);
}

/* --------------------------------------------------------------- batches */

TEST(batch_headers_and_entries)
{
	char *g = guard_pages(), desc[96], why[128];
	struct twheel_batch bt;
	struct twheel_arm *ent;
	struct tw_stats a, b;
	unsigned int i;
	int fd = tw_open(0);
	long r;

	ASSERT_LE(0, fd) TH_LOG("%s: %s", TW_DEV, strerror(errno));
	ASSERT_NE(NULL, g);
	ent = calloc(4, sizeof(*ent));
	for (i = 0; i < 4; i++) {
		ent[i].size = sizeof(*ent);
		ent[i].expires = HOUR_NS;
	}
	tw_stats_read(&a);
#define BATCH(cmd, cnt, esz, ents, want, d) do {			\
		memset(&bt, 0, sizeof(bt));				\
		bt.size = sizeof(bt);					\
		bt.count = (cnt);					\
		bt.entry_size = (esz);					\
		bt.entries = (uintptr_t)(ents);				\
		BAD_IOCTL(fd, cmd, &bt, want, d);			\
	} while (0)
	BATCH(TWHEEL_IOC_ARM_BATCH, TWHEEL_BATCH_MAX + 1, sizeof(*ent), ent,
	      E2BIG, "ARM_BATCH count MAX+1");
	BATCH(TWHEEL_IOC_ARM_BATCH, UINT32_MAX, sizeof(*ent), ent, E2BIG,
	      "ARM_BATCH count U32_MAX");
	BATCH(TWHEEL_IOC_CANCEL_BATCH, TWHEEL_BATCH_MAX + 1,
	      sizeof(struct twheel_cancel), ent, E2BIG,
	      "CANCEL_BATCH count MAX+1");
	BATCH(TWHEEL_IOC_ARM_BATCH, 1, 0, ent, EINVAL,
	      "ARM_BATCH entry_size 0");
	BATCH(TWHEEL_IOC_ARM_BATCH, 1, 3, ent, EINVAL,
	      "ARM_BATCH entry_size 3");
	BATCH(TWHEEL_IOC_CANCEL_BATCH, 1, 0, ent, EINVAL,
	      "CANCEL_BATCH entry_size 0");
	BATCH(TWHEEL_IOC_ARM_BATCH, 1, 1U << 20, ent, E2BIG,
	      "ARM_BATCH entry_size 1 MiB");
	tw_stats_read(&b);
	EXPECT_TRUE(counters_same(&a, &b, why, sizeof(why))) TH_LOG("%s", why);

	/* Entries pointer bad from the first entry: nothing processed. */
	{
		void *bad[] = { NULL, (void *)KERNEL_PTR, unmapped(),
				g + PAGE - 8 };

		for (i = 0; i < TW_ARRAY_SIZE(bad); i++) {
			memset(&bt, 0, sizeof(bt));
			bt.size = sizeof(bt);
			bt.count = 2;
			bt.entry_size = sizeof(*ent);
			bt.entries = (uintptr_t)bad[i];
			r = tw_ioctl(fd, TWHEEL_IOC_ARM_BATCH, &bt);
			(*tried)++;
			snprintf(desc, sizeof(desc), "ARM_BATCH entries %p",
				 bad[i]);
			EXPECT_TRUE(r == 0 || r == -EFAULT)
				TH_LOG("%s: %ld", desc, r);
			EXPECT_EQ(0U, bt.done) TH_LOG("%s", desc);
			EXPECT_EQ(0, tw_pending(fd)) TH_LOG("%s", desc);
		}
	}
	tw_stats_read(&b);
	EXPECT_TRUE(counters_same(&a, &b, why, sizeof(why))) TH_LOG("%s", why);

	/* Two entries mapped, the third crossing into the unmapped page. */
	{
		struct twheel_arm *e = (void *)(g + PAGE - 2 * sizeof(*e) - 16);
		struct twheel_cancel c[2];

		memset(e, 0, 2 * sizeof(*e) + 16);
		for (i = 0; i < 2; i++) {
			e[i].size = sizeof(*e);
			e[i].expires = HOUR_NS;
		}
		e[2].size = sizeof(*e);	/* 16 bytes of it are mapped */
		memset(&bt, 0, sizeof(bt));
		bt.size = sizeof(bt);
		bt.count = 3;
		bt.entry_size = sizeof(*e);
		bt.entries = (uintptr_t)e;
		r = tw_ioctl(fd, TWHEEL_IOC_ARM_BATCH, &bt);
		(*tried)++;
		EXPECT_EQ(2, r) TH_LOG("crossing batch: %ld", r);
		EXPECT_EQ(2U, bt.done);
		EXPECT_EQ(2, tw_pending(fd));
		EXPECT_EQ(0, e[0].result);
		EXPECT_EQ(0, e[1].result);
		for (i = 0; i < 2; i++) {
			memset(&c[i], 0, sizeof(c[i]));
			c[i].size = sizeof(c[i]);
			c[i].id = e[i].id;
		}
		bt.count = 2;
		bt.entry_size = sizeof(c[0]);
		bt.entries = (uintptr_t)c;
		bt.done = 0;
		EXPECT_EQ(2, tw_ioctl(fd, TWHEEL_IOC_CANCEL_BATCH, &bt));
		EXPECT_EQ(1, c[0].result);
		EXPECT_EQ(1, c[1].result);
		EXPECT_EQ(0, tw_pending(fd));
	}

	/* Entries readable but not writable: the arm must be undone. */
	{
		char *ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct twheel_arm *e = (void *)ro;

		ASSERT_NE(MAP_FAILED, ro);
		e->size = sizeof(*e);
		e->expires = HOUR_NS;
		ASSERT_EQ(0, mprotect(ro, PAGE, PROT_READ));
		memset(&bt, 0, sizeof(bt));
		bt.size = sizeof(bt);
		bt.count = 1;
		bt.entry_size = sizeof(*e);
		bt.entries = (uintptr_t)e;
		tw_stats_read(&a);
		r = tw_ioctl(fd, TWHEEL_IOC_ARM_BATCH, &bt);
		(*tried)++;
		EXPECT_TRUE(r == 0 || r == -EFAULT)
			TH_LOG("read-only entries: %ld", r);
		EXPECT_EQ(0, tw_pending(fd))
			TH_LOG("an arm whose id was not written back stayed");
		tw_stats_read(&b);
		/* Undone = armed and cancelled, or neither. */
		if (a.ok && b.ok)
			EXPECT_EQ(tw_stats_delta(&a, &b, TWS_ARMED),
				  tw_stats_delta(&a, &b, TWS_CANCELLED));
		/* Single ARM into a read-only struct: same rule. */
		r = tw_ioctl(fd, TWHEEL_IOC_ARM, e);
		(*tried)++;
		EXPECT_EQ(-EFAULT, r);
		EXPECT_EQ(0, tw_pending(fd))
			TH_LOG("ARM whose id could not be written back stayed");
		munmap(ro, PAGE);
	}

	/* Per-entry errors do not stop the batch. */
	{
		struct twheel_arm e[5];

		memset(e, 0, sizeof(e));
		for (i = 0; i < 5; i++) {
			e[i].size = sizeof(e[i]);
			e[i].expires = HOUR_NS;
			e[i].result = 0x5a5a5a5a;
		}
		e[1].flags = 1U << 31;
		e[2].__reserved = 1;
		e[3].flags = TWHEEL_ARM_CPU;
		e[3].cpu = 0xffffffff;
		memset(&bt, 0, sizeof(bt));
		bt.size = sizeof(bt);
		bt.count = 5;
		bt.entry_size = sizeof(e[0]);
		bt.entries = (uintptr_t)e;
		r = tw_ioctl(fd, TWHEEL_IOC_ARM_BATCH, &bt);
		*tried += 3;
		EXPECT_EQ(2, r);
		EXPECT_EQ(5U, bt.done);
		EXPECT_EQ(0, e[0].result);
		EXPECT_EQ(-EINVAL, e[1].result);
		EXPECT_EQ(-EINVAL, e[2].result);
		EXPECT_EQ(-ERANGE, e[3].result);
		EXPECT_EQ(0, e[4].result);
		EXPECT_EQ(2, tw_pending(fd));
		EXPECT_EQ(1, tw_cancel(fd, e[0].id));
		EXPECT_EQ(1, tw_cancel(fd, e[4].id));
	}
	close(fd);
	free(ent);
}

/* ------------------------------------------------------------------ read */

TEST(read_bad_buffers)
{
	char *g = guard_pages();
	struct twheel_event ev[3];
	struct pollfd p;
	uint64_t id[2];
	int fd = tw_open(O_NONBLOCK), i;
	ssize_t n;
	size_t lens[] = { 0, 1, 8, TW_EV_SIZE - 1 };

	ASSERT_LE(0, fd) TH_LOG("%s: %s", TW_DEV, strerror(errno));
	ASSERT_NE(NULL, g);
	/* Nothing ready, every short size: EINVAL before EAGAIN. */
	for (i = 0; i < (int)TW_ARRAY_SIZE(lens); i++) {
		(*tried)++;
		errno = 0;
		EXPECT_EQ(-1, read(fd, ev, lens[i]));
		EXPECT_EQ(EINVAL, errno) TH_LOG("read of %zu bytes", lens[i]);
	}
	ASSERT_EQ(0, tw_arm(fd, 0, 0, 0, 11, 0, &id[0]));
	ASSERT_EQ(0, tw_arm(fd, 0, 0, 0, 12, 0, &id[1]));
	p.fd = fd;
	p.events = POLLIN;
	ASSERT_EQ(1, poll(&p, 1, 5000));
	tw_sleep_ms(50);	/* both fire in the same tick or the next */
	for (i = 0; i < (int)TW_ARRAY_SIZE(lens); i++) {
		(*tried)++;
		errno = 0;
		EXPECT_EQ(-1, read(fd, ev, lens[i]));
		EXPECT_EQ(EINVAL, errno) TH_LOG("read of %zu bytes", lens[i]);
	}
	/* Bad buffers: EFAULT, and no event lost. */
	{
		void *bad[] = { NULL, (void *)KERNEL_PTR, unmapped(),
				g + PAGE - 8 };

		for (i = 0; i < (int)TW_ARRAY_SIZE(bad); i++) {
			(*tried)++;
			errno = 0;
			EXPECT_EQ(-1, read(fd, bad[i], sizeof(ev)));
			EXPECT_EQ(EFAULT, errno) TH_LOG("read into %p", bad[i]);
		}
	}
	/* Room for 2 events but the second crosses into the unmapped page. */
	n = read(fd, g + PAGE - TW_EV_SIZE - 8, 2 * TW_EV_SIZE);
	(*tried)++;
	EXPECT_TRUE(n == (ssize_t)TW_EV_SIZE || (n < 0 && errno == EFAULT))
		TH_LOG("read crossing: %zd (%s)", n, strerror(errno));
	if (n == (ssize_t)TW_EV_SIZE) {
		memcpy(ev, g + PAGE - TW_EV_SIZE - 8, TW_EV_SIZE);
		/* One record, then the other one must still be there. */
		n = read(fd, &ev[1], 2 * TW_EV_SIZE);
		EXPECT_EQ((ssize_t)TW_EV_SIZE, n) TH_LOG("second event lost");
		EXPECT_NE(ev[0].id, ev[1].id);
	} else {
		/* Nothing consumed: both still there. */
		n = read(fd, ev, sizeof(ev));
		EXPECT_EQ(2 * (ssize_t)TW_EV_SIZE, n) TH_LOG("events lost after EFAULT");
	}
	/* A 1.5-record buffer gets one whole record. */
	ASSERT_EQ(0, tw_arm(fd, 0, 0, 0, 13, 0, &id[0]));
	ASSERT_EQ(1, poll(&p, 1, 5000));
	memset(ev, 0xA5, sizeof(ev));
	n = read(fd, ev, TW_EV_SIZE + TW_EV_SIZE / 2);
	EXPECT_EQ((ssize_t)TW_EV_SIZE, n);
	EXPECT_EQ(0xA5, ((unsigned char *)ev)[TW_EV_SIZE])
		TH_LOG("read wrote past the records it returned");
	EXPECT_EQ(-1, read(fd, ev, sizeof(ev)));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(0, tw_pending(fd));
	/* write() and lseek() are not part of the ABI: fail, harmlessly. */
	EXPECT_EQ(-1, write(fd, ev, sizeof(ev)));
	(*tried)++;
	close(fd);
}

/* ------------------------------------------------ no uninitialised bytes */

static bool has_pattern(const void *p, size_t len)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i + 4 <= len; i++)
		if (c[i] == 0xA5 && c[i + 1] == 0xA5 && c[i + 2] == 0xA5 &&
		    c[i + 3] == 0xA5)
			return true;
	return false;
}

TEST(no_uninitialised_bytes_out)
{
	struct twheel_info info;
	struct twheel_query q;
	struct twheel_arm arm;
	struct twheel_batch bt;
	struct twheel_event ev[3];
	struct pollfd p;
	uint64_t id;
	int fd = tw_open(0);

	ASSERT_LE(0, fd) TH_LOG("%s: %s", TW_DEV, strerror(errno));
	/* INFO: every field is out; the reserved one must come back 0. */
	memset(&info, 0xA5, sizeof(info));
	info.size = sizeof(info);
	ASSERT_EQ(0, tw_ioctl(fd, TWHEEL_IOC_INFO, &info));
	EXPECT_EQ(0ULL, info.__reserved);
	EXPECT_FALSE(has_pattern(&info, sizeof(info)));
	EXPECT_EQ((unsigned int)TWHEEL_ABI_VERSION, info.abi_version);
	EXPECT_EQ(sizeof(struct twheel_event), (size_t)info.event_size);
	EXPECT_EQ(get_nprocs_conf(), (int)info.nr_cpus);
	/* INFO with a larger size: the tail is not ours to scribble on. */
	{
		unsigned char big[sizeof(info) + 16];

		memset(big, 0, sizeof(big));
		*(uint32_t *)big = sizeof(big);
		ASSERT_EQ(0, tw_ioctl(fd, TWHEEL_IOC_INFO, big));
		EXPECT_FALSE(has_pattern(big, sizeof(big)));
	}
	/* ARM: id written, result (batch only) not turned into garbage. */
	memset(&arm, 0, sizeof(arm));
	arm.size = sizeof(arm);
	arm.expires = HOUR_NS;
	arm.id = 0xA5A5A5A5A5A5A5A5ULL;
	ASSERT_EQ(0, tw_ioctl(fd, TWHEEL_IOC_ARM, &arm));
	EXPECT_NE(0xA5A5A5A5A5A5A5A5ULL, arm.id);
	EXPECT_EQ(0, arm.result);
	EXPECT_EQ(0, arm.__reserved);
	id = arm.id;
	/* QUERY: all out fields written. */
	memset(&q, 0xA5, sizeof(q));
	q.size = sizeof(q);
	q.flags = 0;
	q.id = id;
	ASSERT_EQ(0, tw_ioctl(fd, TWHEEL_IOC_QUERY, &q));
	EXPECT_FALSE(has_pattern(&q, sizeof(q)));
	EXPECT_EQ(0, q.overruns);
	EXPECT_EQ(0, q.flags_out);
	EXPECT_EQ(0, q.period);
	/* Batch header: done written. */
	memset(&bt, 0, sizeof(bt));
	bt.size = sizeof(bt);
	bt.count = 1;
	bt.entry_size = sizeof(arm);
	bt.entries = (uintptr_t)&arm;
	arm.id = 0xA5A5A5A5A5A5A5A5ULL;
	arm.result = (int32_t)0xA5A5A5A5;
	bt.done = 0xA5A5A5A5;
	ASSERT_EQ(1, tw_ioctl(fd, TWHEEL_IOC_ARM_BATCH, &bt));
	EXPECT_EQ(1U, bt.done);
	EXPECT_EQ(0, arm.result);
	EXPECT_NE(0xA5A5A5A5A5A5A5A5ULL, arm.id);
	EXPECT_EQ(1, tw_cancel(fd, arm.id));
	EXPECT_EQ(1, tw_cancel(fd, id));
	/* read(): whole records, nothing written past them. */
	ASSERT_EQ(0, tw_arm(fd, 0, 0, 0, 0, 0, &id));
	p.fd = fd;
	p.events = POLLIN;
	ASSERT_EQ(1, poll(&p, 1, 5000));
	memset(ev, 0xA5, sizeof(ev));
	ASSERT_EQ((ssize_t)TW_EV_SIZE, read(fd, ev, sizeof(ev)));
	EXPECT_FALSE(has_pattern(&ev[0], TW_EV_SIZE));
	EXPECT_EQ(0, ev[0].flags);
	EXPECT_EQ(0, ev[0].overruns);
	EXPECT_TRUE(has_pattern(&ev[1], 2 * TW_EV_SIZE));
	close(fd);
}

/* --------------------------------------------------------------- failslab */

#define FAILSLAB	"/sys/kernel/debug/failslab"

static int failslab_set(const char *attr, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), FAILSLAB "/%s", attr);
	return tw_write_file(path, val);
}

/*
 * Fail the nth fault-injection point this thread reaches from now on
 * (/proc/thread-self/fail-nth, what syzkaller uses): deterministic, unlike
 * the global interval counter.
 */
#define FAIL_NTH	"/proc/thread-self/fail-nth"

static void failslab_arm(unsigned int nth)
{
	char v[16];

	snprintf(v, sizeof(v), "%u", nth);
	tw_write_file(FAIL_NTH, v);
}

/* Returns true if the failure was injected (the counter ran out). */
static bool failslab_disarm(void)
{
	long long left = tw_read_ll(FAIL_NTH);

	tw_write_file(FAIL_NTH, "0");
	return left == 0;
}

TEST(failslab_open_and_arm)
{
	struct tw_stats a, b;
	unsigned int nth, enomem_open = 0, enomem_arm = 0, ok_open = 0;
	int fd, probe;
	char why[128];

	if (access(FAILSLAB "/probability", W_OK))
		SKIP(return, "no %s (kernel without CONFIG_FAILSLAB/FAULT_INJECTION_DEBUG_FS)",
		     FAILSLAB);
	if (access(FAIL_NTH, W_OK))
		SKIP(return, "no %s (CONFIG_FAULT_INJECTION)", FAIL_NTH);
	probe = tw_open(0);
	ASSERT_LE(0, probe) TH_LOG("%s: %s", TW_DEV, strerror(errno));
	close(probe);
	/* GFP_KERNEL allocations too; fail-nth needs no probability. */
	failslab_set("ignore-gfp-wait", "N");
	failslab_set("verbose", "0");

	tw_stats_read(&a);
	/* open(): fail each of its slab allocations in turn. */
	for (nth = 1; nth <= 64; nth++) {
		bool injected;

		failslab_arm(nth);
		fd = tw_open(0);
		injected = failslab_disarm();
		if (!injected) {
			/* open() made fewer allocations: done */
			if (fd >= 0)
				close(fd);
			break;
		}
		(*tried)++;
		if (fd < 0) {
			EXPECT_TRUE(errno == ENOMEM || errno == ENFILE)
				TH_LOG("open with slab failure %u: %s", nth,
				       strerror(errno));
			enomem_open++;
			continue;
		}
		ok_open++;
		EXPECT_EQ(0, tw_pending(fd));
		close(fd);
	}
	EXPECT_LT(0, enomem_open);
	/*
	 * ARM: fail each of its slab allocations in turn. An arm allocates
	 * only when the file's table has no free slot, so each is the first
	 * arm of a new file: it allocates the first chunk of slots and the
	 * directory. A failed one leaves the file empty and working.
	 */
	for (nth = 1; nth <= 8; nth++) {
		struct twheel_arm arm = { .size = sizeof(arm),
					  .expires = HOUR_NS };
		uint64_t id = 0;
		long r;

		fd = tw_open(0);
		ASSERT_LE(0, fd);
		failslab_arm(nth);
		r = tw_ioctl(fd, TWHEEL_IOC_ARM, &arm);
		failslab_disarm();
		(*tried)++;
		if (r < 0) {
			EXPECT_EQ(-ENOMEM, r);
			enomem_arm++;
			EXPECT_EQ(0, tw_pending(fd));
		} else {
			EXPECT_EQ(1, tw_pending(fd));
			EXPECT_EQ(1, tw_cancel(fd, arm.id));
		}
		EXPECT_EQ(0, tw_arm(fd, 0, HOUR_NS, 0, 0, 0, &id));
		EXPECT_EQ(1, tw_cancel(fd, id));
		close(fd);
	}
	EXPECT_LT(0, enomem_arm) TH_LOG("no ARM failed with ENOMEM");
	fd = tw_open(0);
	ASSERT_LE(0, fd);
	/* Batch arm under failures: results per entry, pending consistent. */
	for (nth = 1; nth <= 8; nth++) {
		struct twheel_arm e[4];
		struct twheel_batch bt = { .size = sizeof(bt), .count = 4,
					   .entry_size = sizeof(e[0]),
					   .entries = (uintptr_t)e };
		long r, ok = 0;
		int i;

		memset(e, 0, sizeof(e));
		for (i = 0; i < 4; i++) {
			e[i].size = sizeof(e[i]);
			e[i].expires = HOUR_NS;
		}
		failslab_arm(nth);
		r = tw_ioctl(fd, TWHEEL_IOC_ARM_BATCH, &bt);
		failslab_disarm();
		(*tried)++;
		for (i = 0; i < (int)bt.done && i < 4; i++) {
			if (!e[i].result)
				ok++;
			else
				EXPECT_EQ(-ENOMEM, e[i].result);
		}
		if (r >= 0)
			EXPECT_EQ(ok, r);
		EXPECT_EQ(ok, tw_pending(fd));
		for (i = 0; i < (int)bt.done && i < 4; i++)
			if (!e[i].result)
				EXPECT_EQ(1, tw_cancel(fd, e[i].id));
	}
	/* The file still works normally. */
	{
		uint64_t id = 0;

		EXPECT_EQ(0, tw_arm(fd, 0, HOUR_NS, 0, 0, 0, &id));
		EXPECT_EQ(1, tw_cancel(fd, id));
	}
	close(fd);
	failslab_set("ignore-gfp-wait", "Y");
	tw_stats_read(&b);
	if (a.ok && b.ok) {
		EXPECT_EQ(tw_stats_v(&b, TWS_PENDING), tw_stats_v(&a, TWS_PENDING));
		EXPECT_EQ(tw_stats_delta(&a, &b, TWS_ARMED),
			  tw_stats_delta(&a, &b, TWS_CANCELLED) +
			  tw_stats_delta(&a, &b, TWS_EXPIRED));
	}
	(void)why;
	printf("# failslab: open failed %u/%u, arm failed %u/8\n",
	       enomem_open, enomem_open + ok_open, enomem_arm);
}

/*
 * Last (the harness runs tests in order, each in a child): the total, which
 * the children counted in shared memory. None at all means the tests above
 * tried nothing, which is a failure, not a report.
 */
TEST(zz_report)
{
	ASSERT_NE(NULL, tried) TH_LOG("no shared counter: nothing was counted");
	printf("# bad inputs tried: %lu\n", *tried);
	EXPECT_LT(0UL, *tried);
}

TEST_HARNESS_MAIN
