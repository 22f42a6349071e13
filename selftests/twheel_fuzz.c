// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_fuzz - coverage-blind ioctl/read/poll fuzzer for /dev/twheel.
 *
 * For a bounded time, a few threads share a few files and throw at them:
 * valid commands with random field values (biased towards edges), random
 * _IOC numbers with magic 0xE7 (any direction, number and size), random
 * pointers (valid, NULL, kernel, unmapped, crossing into an unmapped page,
 * read-only), random batches, reads of random sizes into random buffers,
 * poll, close and reopen, interleaved with valid traffic; and the ring ABI:
 * set-ups with random parameters, submissions of random entries, flushes,
 * mmap() with random offset, length, protection and sharing, consumption of
 * the mapped ring. Nothing is
 * checked but that every answer is a documented one, that the files stay
 * usable and that, once every file is closed, the global pending counter is
 * back where it started (the kernel's own checkers do the rest).
 *
 * Usage: twheel_fuzz [-t SECONDS] [-T THREADS] [-s SEED]; default 20 s.
 * Prints "# fuzz iterations: N".
 *
 * Raw ioctls, not libtwheel: the fuzzer sends random structures, sizes and
 * pointers straight to the kernel; the library would fix or refuse them
 * before they reach it.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>

#include "twheel_hard.h"

#define PAGE		4096UL
#define NFILES		4
#define BUF_SIZE	(16 * PAGE)

static int files[NFILES];
static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER;
static char *guard;	/* one page mapped, the next one not */
static char *rdonly;	/* a read-only page */
static atomic_ullong iterations, undocumented;
static atomic_int stop;
static uint64_t opt_secs = 20, opt_seed;
static int opt_threads = 3;

static const unsigned long valid_cmds[] = {
	TWHEEL_IOC_INFO, TWHEEL_IOC_ARM, TWHEEL_IOC_ARM_BATCH,
	TWHEEL_IOC_CANCEL, TWHEEL_IOC_CANCEL_BATCH, TWHEEL_IOC_MODIFY,
	TWHEEL_IOC_QUERY, TWHEEL_IOC_RING_SETUP, TWHEEL_IOC_SUBMIT,
	TWHEEL_IOC_FLUSH,
};

static uint64_t edge_u64(uint64_t *s)
{
	static const uint64_t edges[] = {
		0, 1, 2, 999, 1000000, 1000001, 999999999, 1000000000,
		3000000000ULL, INT64_MAX, (uint64_t)INT64_MAX + 1,
		UINT64_MAX, UINT64_MAX - 1, 1ULL << 32, 1ULL << 56,
		(1ULL << 56) - 1, 1ULL << 62,
	};

	switch (tw_rand_below(s, 4)) {
	case 0:
		return edges[tw_rand_below(s, TW_ARRAY_SIZE(edges))];
	case 1:
		return tw_rand(s);
	case 2:
		return tw_rand_below(s, 50000000);	/* < 50 ms */
	default:
		return tw_rand_below(s, 64);		/* small: ids */
	}
}

/* An address no write can succeed at: NULL, kernel, non-canonical, guard. */
static uint64_t bad_addr(uint64_t *s)
{
	switch (tw_rand_below(s, 5)) {
	case 0:
		return 0;
	case 1:
		return 0xffffffff81000000ULL;
	case 2:
		return 1ULL << 63;
	case 3:
		return UINT64_MAX - 7;
	default:
		return (uintptr_t)guard + PAGE;
	}
}

static uint32_t edge_u32(uint64_t *s, uint32_t good)
{
	switch (tw_rand_below(s, 5)) {
	case 0:
		return tw_rand(s);
	case 1:
		return 1U << tw_rand_below(s, 32);
	case 2:
		return good + tw_rand_below(s, 16) - 8;
	default:
		return good;
	}
}

/* Ring submissions, mostly plausible: small slots, short deadlines. */
static void fill_sqes(uint64_t *s, char *ents, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct twheel_sqe *q = (void *)(ents + i * sizeof(*q));

		memset(q, 0, sizeof(*q));
		q->op = tw_rand_below(s, 8) ? 1 + tw_rand_below(s, 3) :
			edge_u32(s, 1);
		q->slot = tw_rand_below(s, 8) ? tw_rand_below(s, 300) :
			  edge_u32(s, 64);
		q->flags = tw_rand_below(s, 4) ? 0 : edge_u32(s, 0);
		q->cpu = tw_rand_below(s, 10);
		q->expires = tw_rand_below(s, 2) ? tw_rand_below(s, 20000000) :
			     edge_u64(s);
		q->period = tw_rand_below(s, 4) ? 0 : edge_u64(s);
		q->cookie = tw_rand(s);
	}
}

/* Fill @buf as a plausible structure of @size bytes for @nr. */
static void fill_struct(uint64_t *s, void *buf, unsigned int nr, char *ents)
{
	static const uint32_t sizes[] = {
		sizeof(struct twheel_info), sizeof(struct twheel_arm),
		sizeof(struct twheel_batch), sizeof(struct twheel_cancel),
		sizeof(struct twheel_batch), sizeof(struct twheel_modify),
		sizeof(struct twheel_query), sizeof(struct twheel_ring_params),
		sizeof(struct twheel_batch), sizeof(struct twheel_flush),
	};
	uint32_t good = nr < TW_ARRAY_SIZE(sizes) ? sizes[nr] : 64;
	uint64_t *q = buf;
	unsigned int i;

	memset(buf, 0, 256);
	for (i = 1; i < 256 / 8; i++)
		if (!tw_rand_below(s, 8))
			q[i] = edge_u64(s);
	*(uint32_t *)buf = edge_u32(s, good);
	if (tw_rand_below(s, 2))
		((uint32_t *)buf)[1] = 0;	/* flags: often valid */
	if (nr == 1 && tw_rand_below(s, 2)) {
		struct twheel_arm *a = buf;

		a->size = sizeof(*a);
		a->flags &= TWHEEL_ARM_FLAGS;
		a->clockid = tw_rand_below(s, 3) ? (int)tw_rand_below(s, 8) : 0;
		a->cpu = tw_rand_below(s, 10);
		a->__reserved = 0;
	}
	if (nr == 7 && tw_rand_below(s, 2)) {
		struct twheel_ring_params *p = buf;

		p->size = sizeof(*p);
		p->slots = tw_rand_below(s, 4) ? 1 + tw_rand_below(s, 256) :
			   edge_u32(s, 64);
		p->ring_entries = tw_rand_below(s, 4) ?
				  1U << tw_rand_below(s, 11) : edge_u32(s, 8);
		p->flags = 0;
		p->__reserved = 0;
	}
	if (nr == 8)
		fill_sqes(s, ents, 64);
	if (nr == 2 || nr == 4 || nr == 8) {
		struct twheel_batch *b = buf;

		b->count = tw_rand_below(s, 4) ? tw_rand_below(s, 64) :
			   edge_u32(s, 16);
		b->entry_size = edge_u32(s, nr == 2 ? sizeof(struct twheel_arm) :
					 nr == 8 ? sizeof(struct twheel_sqe) :
					 sizeof(struct twheel_cancel));
		/*
		 * The kernel writes results back into the entries, so they may
		 * only point where a write cannot land on our own memory: our
		 * buffers, which end in a PROT_NONE page that a stride below a
		 * page cannot jump over, or addresses that are never mapped.
		 * (A small "edge" number is an address inside this static
		 * binary's data: results written there corrupted the fuzzer.)
		 */
		switch (tw_rand_below(s, 6)) {
		case 0:
			b->entries = (uintptr_t)guard + PAGE - tw_rand_below(s, 200);
			b->entry_size %= PAGE / 16;
			break;
		case 1:
			b->entries = (uintptr_t)rdonly;
			break;
		case 2:
			b->entries = bad_addr(s);
			break;
		default:
			b->entries = (uintptr_t)ents;
			b->entry_size %= PAGE / 16;
			break;
		}
		if (tw_rand_below(s, 2)) {
			b->flags = 0;
			b->__reserved = 0;
		}
	}
}

/* Random entries, mostly plausible. */
static void fill_entries(uint64_t *s, char *ents)
{
	unsigned int i;

	for (i = 0; i < 64; i++) {
		struct twheel_arm *a = (void *)(ents + i * sizeof(*a));

		memset(a, 0, sizeof(*a));
		a->size = tw_rand_below(s, 8) ? sizeof(*a) : edge_u32(s, 24);
		a->flags = tw_rand_below(s, 4) ? 0 : edge_u32(s, 0);
		a->expires = edge_u64(s);
		a->period = tw_rand_below(s, 4) ? 0 : edge_u64(s);
		a->id = edge_u64(s);	/* cancel entries: id at offset 8 */
	}
}

static void *pick_ptr(uint64_t *s, char *buf)
{
	switch (tw_rand_below(s, 12)) {
	case 0:
		return NULL;
	case 1:
		return (void *)0xffffffff81000000ULL;
	case 2: return guard + PAGE;			/* unmapped */
	case 3: return guard + PAGE - tw_rand_below(s, 80);	/* crossing */
	case 4:
		return rdonly;
	case 5:
		return (void *)(uintptr_t)tw_rand(s);
	default:
		return buf;
	}
}

static int pick_fd(uint64_t *s)
{
	return files[tw_rand_below(s, NFILES)];
}

static void note(long r, unsigned long cmd)
{
	static const long ok[] = { -EFAULT, -EINVAL, -E2BIG, -ENOTTY,
				   -ENOENT, -ERANGE, -ENXIO, -ENOSPC,
				   -ENOMEM, -EBADF, -EBUSY, -ENODEV };
	size_t i;

	if (r >= 0)
		return;
	for (i = 0; i < TW_ARRAY_SIZE(ok); i++)
		if (r == ok[i])
			return;
	if (atomic_fetch_add(&undocumented, 1) < 10)
		printf("# undocumented answer %ld (%s) to cmd %#lx\n", r,
		       strerror(-r), cmd);
}

/*
 * Consume the ring mapped at @m (its first page) with the offsets the
 * kernel reports (TWHEEL_RING_SETUP_QUERY), or, one time in four, write a
 * hostile head: beyond the tail, far behind it, or any value.
 */
static void ring_consume(uint64_t *s, int fd, char *m)
{
	struct twheel_ring_params p = {
		.size = sizeof(p), .flags = TWHEEL_RING_SETUP_QUERY,
	};
	uint32_t tail, head;
	long r;

	r = tw_ioctl(fd, TWHEEL_IOC_RING_SETUP, &p);
	note(r, TWHEEL_IOC_RING_SETUP);
	if (r || p.off.head > PAGE - 4 || p.off.tail > PAGE - 4)
		return;
	tail = __atomic_load_n((uint32_t *)(m + p.off.tail), __ATOMIC_ACQUIRE);
	switch (tw_rand_below(s, 16)) {
	case 0:
		head = tail + 1 + tw_rand_below(s, 1U << 31);
		break;
	case 1:
		head = tail - p.ring_entries - 1 - tw_rand_below(s, 1000);
		break;
	case 2:
		head = (uint32_t)edge_u64(s);
		break;
	case 3:
		head = tail - tw_rand_below(s, p.ring_entries + 1);
		break;
	default:
		head = tail;
		break;
	}
	__atomic_store_n((uint32_t *)(m + p.off.head), head, __ATOMIC_RELEASE);
}

/*
 * Valid ring traffic: set a ring up (EBUSY once there is one), submit a few
 * plausible entries, map the ring, consume what is there, unmap, flush; or
 * map it with random offset, length and protection.
 */
static void ring_traffic(uint64_t *s, int fd)
{
	static const int prots[] = { PROT_READ, PROT_READ | PROT_WRITE,
				     PROT_READ | PROT_EXEC, PROT_WRITE,
				     PROT_NONE };
	struct twheel_ring_params p = {
		.size = sizeof(p), .slots = 64 + tw_rand_below(s, 256),
		.ring_entries = 1U << tw_rand_below(s, 8),
	};
	struct twheel_sqe q[16];
	struct twheel_batch b = {
		.size = sizeof(b), .entry_size = sizeof(q[0]),
		.entries = (uintptr_t)q,
	};
	size_t len;
	char *m;
	long r;

	r = tw_ioctl(fd, TWHEEL_IOC_RING_SETUP, &p);
	note(r, TWHEEL_IOC_RING_SETUP);
	fill_sqes(s, (char *)q, TW_ARRAY_SIZE(q));
	b.count = tw_rand_below(s, 16);
	note(tw_ioctl(fd, TWHEEL_IOC_SUBMIT, &b), TWHEEL_IOC_SUBMIT);
	if (tw_rand_below(s, 4)) {
		/* One page is never more than the ring's mapping. */
		m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED) {
			if (errno != ENODEV && errno != EBADF)
				note(-errno, 1);
		} else {
			ring_consume(s, fd, m);
			munmap(m, PAGE);
		}
	} else {
		len = tw_rand_below(s, 2) ? PAGE * tw_rand_below(s, 40) :
		      tw_rand_below(s, 1U << 22);
		m = mmap(NULL, len, prots[tw_rand_below(s, 5)],
			 tw_rand_below(s, 4) ? MAP_SHARED : MAP_PRIVATE, fd,
			 tw_rand_below(s, 4) ? 0 : PAGE * tw_rand_below(s, 4));
		if (m != MAP_FAILED)
			munmap(m, len);
		else if (errno != EINVAL && errno != EPERM &&
			 errno != ENODEV && errno != EBADF &&
			 errno != EACCES && errno != ENOMEM)
			note(-errno, 1);
	}
	if (tw_rand_below(s, 2)) {
		struct twheel_flush fl = { .size = sizeof(fl) };

		note(tw_ioctl(fd, TWHEEL_IOC_FLUSH, &fl), TWHEEL_IOC_FLUSH);
	}
}

static void *fuzz_thread(void *arg)
{
	uint64_t seed = opt_seed + (uintptr_t)arg * 0x9E3779B97F4A7C15ULL;
	char *buf = aligned_alloc(PAGE, BUF_SIZE);
	unsigned long n = 0;
	char *ents;

	/*
	 * Batch entries: the kernel writes ids and results back into them,
	 * count * entry_size bytes from the start, so the buffer ends in a
	 * PROT_NONE guard where a long batch stops with EFAULT instead of
	 * scribbling over our heap.
	 */
	ents = mmap(NULL, BUF_SIZE + PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!buf || ents == MAP_FAILED)
		return NULL;
	mprotect(ents + BUF_SIZE, PAGE, PROT_NONE);
	while (!atomic_load(&stop)) {
		unsigned int op = tw_rand_below(&seed, 100);
		int fd = pick_fd(&seed);
		unsigned long cmd;
		long r;

		if (op < 45) {
			/* A known command, fuzzed contents. */
			unsigned int nr = tw_rand_below(&seed,
							TW_ARRAY_SIZE(valid_cmds));

			cmd = valid_cmds[nr];
			fill_entries(&seed, ents);
			fill_struct(&seed, buf, nr, ents);
			r = tw_ioctl(fd, cmd, pick_ptr(&seed, buf));
			note(r, cmd);
		} else if (op < 60) {
			/* Any command number with magic 0xE7. */
			cmd = _IOC(tw_rand_below(&seed, 4), TWHEEL_IOC_MAGIC,
				   tw_rand_below(&seed, 256) &
				   (tw_rand_below(&seed, 2) ? 7 : 255),
				   tw_rand_below(&seed, 1U << 14));
			fill_struct(&seed, buf, _IOC_NR(cmd), ents);
			r = tw_ioctl(fd, cmd, pick_ptr(&seed, buf));
			note(r, cmd);
		} else if (op < 68) {
			ring_traffic(&seed, fd);
		} else if (op < 75) {
			/* Valid traffic: arm something short, cancel some. */
			uint64_t id;

			if (!tw_arm(fd, 0, tw_rand_below(&seed, 20000000),
				    tw_rand_below(&seed, 8) ? 0 : 1000000, 0,
				    0, &id) && tw_rand_below(&seed, 2))
				tw_cancel(fd, id);
			tw_cancel(fd, tw_rand_below(&seed, 64));
		} else if (op < 90) {
			size_t len = tw_rand_below(&seed, 4) ?
				     tw_rand_below(&seed, 8 * TW_EV_SIZE) :
				     tw_rand_below(&seed, BUF_SIZE);
			char *p = pick_ptr(&seed, buf);

			/* Every file is O_NONBLOCK: a quiet one gives EAGAIN. */
			if (p == buf && len > BUF_SIZE)
				len = BUF_SIZE;
			if (read(fd, p, len) < 0 && errno != EAGAIN &&
			    errno != EINVAL && errno != EFAULT &&
			    errno != EBADF)
				note(-errno, 0);
		} else if (op < 97) {
			struct pollfd pf = { .fd = fd, .events = POLLIN };

			poll(&pf, 1, 0);
		} else {
			/* Close and reopen a file (others may be using it). */
			unsigned int i = tw_rand_below(&seed, NFILES);
			/*
			 * Always non-blocking: another thread may read this fd
			 * number right after it was reused for the new file.
			 */
			int nfd = tw_open(O_NONBLOCK);

			pthread_mutex_lock(&files_lock);
			if (nfd >= 0) {
				int old = files[i];

				files[i] = nfd;
				close(old);
			}
			pthread_mutex_unlock(&files_lock);
		}
		n++;
	}
	atomic_fetch_add(&iterations, n);
	free(buf);
	munmap(ents, BUF_SIZE + PAGE);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[16];
	struct tw_stats a, b;
	uint64_t t_end;
	int opt, i, fd, fails = 0;

	while ((opt = getopt(argc, argv, "t:T:s:")) != -1) {
		switch (opt) {
		case 't':
			opt_secs = strtoull(optarg, NULL, 0);
			break;
		case 'T':
			opt_threads = atoi(optarg);
			break;
		case 's':
			opt_seed = strtoull(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [-t SECONDS] [-T THREADS] [-s SEED]\n",
				argv[0]);
			return 2;
		}
	}
	if (opt_threads < 1 || opt_threads > 16)
		opt_threads = 3;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	fd = tw_open(0);
	if (fd < 0) {
		printf("1..0 # SKIP %s: %s\n", TW_DEV, strerror(errno));
		return 4;
	}
	close(fd);
	printf("1..3\n");
	if (!opt_seed)
		opt_seed = tw_now() ^ getpid();
	printf("# seed %llu, %d threads, %llu s\n",
	       (unsigned long long)opt_seed, opt_threads,
	       (unsigned long long)opt_secs);
	guard = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	rdonly = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		      -1, 0);
	if (guard == MAP_FAILED || rdonly == MAP_FAILED)
		return 1;
	mprotect(guard + PAGE, PAGE, PROT_NONE);	/* stays reserved */
	tw_settle(120000);
	tw_stats_read(&a);
	for (i = 0; i < NFILES; i++)
		files[i] = tw_open(O_NONBLOCK);
	for (i = 0; i < opt_threads; i++)
		pthread_create(&th[i], NULL, fuzz_thread, (void *)(uintptr_t)(i + 1));
	t_end = tw_now() + opt_secs * 1000000000ULL;
	while (tw_now() < t_end)
		tw_sleep_ms(100);
	atomic_store(&stop, 1);
	for (i = 0; i < opt_threads; i++)
		pthread_join(th[i], NULL);

	/* The files still work. */
	for (i = 0; i < NFILES; i++) {
		struct twheel_info info;
		uint64_t id;

		if (tw_info(files[i], &info) ||
		    tw_arm(files[i], 0, 1000000000, 0, 0, 0, &id) ||
		    tw_cancel(files[i], id) != 1) {
			printf("# file %d unusable after fuzzing\n", i);
			fails++;
		}
		close(files[i]);
	}
	printf("# fuzz iterations: %llu\n",
	       (unsigned long long)atomic_load(&iterations));
	printf("%sok 1 files usable after fuzzing\n", fails ? "not " : "");
	printf("%sok 2 only documented errors (%llu undocumented)\n",
	       atomic_load(&undocumented) ? "not " : "",
	       (unsigned long long)atomic_load(&undocumented));
	if (a.ok) {
		tw_stats_wait_pending(&b, tw_stats_v(&a, TWS_PENDING), 10000);
		printf("%sok 3 pending back to %llu after closing (now %llu)\n",
		       tw_stats_v(&b, TWS_PENDING) == tw_stats_v(&a, TWS_PENDING) ? "" : "not ",
		       (unsigned long long)tw_stats_v(&a, TWS_PENDING),
		       (unsigned long long)tw_stats_v(&b, TWS_PENDING));
		if (tw_stats_v(&b, TWS_PENDING) != tw_stats_v(&a, TWS_PENDING))
			fails++;
	} else {
		printf("ok 3 # SKIP no debugfs stats\n");
	}
	return fails || atomic_load(&undocumented) ? 1 : 0;
}
