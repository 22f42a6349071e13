// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_lifetime - lifetime of /dev/twheel files and of the module:
 *   - the module cannot be removed while a file is open (delete_module(2)
 *     with O_NONBLOCK answers EWOULDBLOCK/EBUSY; never actually unloads:
 *     the call is only made once the open file is seen holding a reference);
 *   - close() racing expirations, blocking read(), poll() and ioctls of
 *     other threads on the same file;
 *   - fork() and dup() share one timer set, the last close cancels it;
 *   - a process killed with SIGKILL with timers pending (and a reader
 *     blocked) leaves nothing behind.
 *
 * Raw file descriptors, not libtwheel: the tests are about the file itself
 * (close() while other threads are inside read(), poll() and ioctl() on the
 * same descriptor, dup(), fork(), SIGKILL), and a libtwheel handle is
 * freed by twheel_close() under the threads that still use it.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "twheel_hard.h"
#include "kselftest_harness.h"

/* Start from a quiet module: nothing pending from an earlier test. */
static void __attribute__((constructor)) settle(void)
{
	tw_settle(120000);
}

#define MS	1000000ULL
#define HOUR_NS	(3600ULL * 1000000000ULL)

static long long module_refcnt(void)
{
	return tw_read_ll("/sys/module/twheel/refcnt");
}

TEST(rmmod_refused_while_open)
{
	long long r0, r1, r2;
	uint64_t id;
	int fd, ret, err;

	r0 = module_refcnt();
	if (r0 < 0)
		SKIP(return, "/sys/module/twheel/refcnt: %s (built in?)",
		     strerror(-r0));
	fd = tw_open(0);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", TW_DEV, strerror(errno));
	r1 = module_refcnt();
	ASSERT_EQ(r0 + 1, r1)
		TH_LOG("an open file holds no module reference (%lld -> %lld): not trying delete_module",
		       r0, r1);
	ASSERT_EQ(0, tw_arm(fd, 0, HOUR_NS, 0, 0, 0, &id));
	ret = syscall(SYS_delete_module, "twheel", O_NONBLOCK);
	err = errno;
	EXPECT_EQ(-1, ret);
	EXPECT_TRUE(err == EWOULDBLOCK || err == EBUSY)
		TH_LOG("delete_module: %s", strerror(err));
	/* Still alive and usable. */
	EXPECT_EQ(1, tw_pending(fd));
	EXPECT_EQ(1, tw_cancel(fd, id));
	close(fd);
	r2 = module_refcnt();
	EXPECT_EQ(r0, r2) TH_LOG("reference not dropped by close");
}

/* --------------------------------------------------- close() racing all */

struct race {
	int		fd;
	atomic_int	stop;
	atomic_ulong	reads, polls, ioctls, events;
};

static void *race_reader(void *arg)
{
	struct race *r = arg;
	struct twheel_event ev[8];

	while (!atomic_load(&r->stop)) {
		ssize_t n = read(r->fd, ev, sizeof(ev));	/* blocking */

		atomic_fetch_add(&r->reads, 1);
		if (n > 0)
			atomic_fetch_add(&r->events, n / sizeof(ev[0]));
		else if (n < 0 && errno == EBADF)
			break;
	}
	return NULL;
}

static void *race_poller(void *arg)
{
	struct race *r = arg;

	while (!atomic_load(&r->stop)) {
		struct pollfd p = { .fd = r->fd, .events = POLLIN };
		int n = poll(&p, 1, 2);

		atomic_fetch_add(&r->polls, 1);
		if (n < 0 || (n > 0 && (p.revents & POLLNVAL)))
			break;
	}
	return NULL;
}

static void *race_ioctler(void *arg)
{
	struct race *r = arg;
	uint64_t seed = (uintptr_t)arg ^ tw_now();

	while (!atomic_load(&r->stop)) {
		struct twheel_query q;
		uint64_t id = 0;
		long ret;

		ret = tw_arm(r->fd, 0, tw_rand_below(&seed, 3 * MS), 0, 0, 0,
			     &id);
		if (ret == -EBADF)
			break;
		if (!ret && tw_rand_below(&seed, 2))
			tw_cancel(r->fd, id);
		tw_query(r->fd, id, &q);
		atomic_fetch_add(&r->ioctls, 3);
	}
	return NULL;
}

TEST(close_races_read_poll_ioctl_expiry)
{
	unsigned long reads = 0, polls = 0, ioctls = 0, events = 0;
	uint64_t seed = tw_now(), t_end = tw_now() + 8000 * MS;
	struct tw_stats a, b;
	int round;

	tw_stats_read(&a);
	for (round = 0; tw_now() < t_end; round++) {
		struct race r = { 0 };
		pthread_t th[4];
		uint64_t id;
		int i;

		r.fd = tw_open(0);
		ASSERT_LE(0, r.fd) TH_LOG("%s: %s", TW_DEV, strerror(errno));
		/* Expirations all the time: one-shots and 1 ms periodics. */
		for (i = 0; i < 32; i++)
			ASSERT_EQ(0, tw_arm(r.fd, 0,
					    tw_rand_below(&seed, 4 * MS),
					    i < 4 ? MS : 0, i, 0, &id));
		ASSERT_EQ(0, pthread_create(&th[0], NULL, race_reader, &r));
		ASSERT_EQ(0, pthread_create(&th[1], NULL, race_reader, &r));
		ASSERT_EQ(0, pthread_create(&th[2], NULL, race_poller, &r));
		ASSERT_EQ(0, pthread_create(&th[3], NULL, race_ioctler, &r));
		tw_sleep_ms(tw_rand_below(&seed, 4));
		/*
		 * The last close while others are inside read/poll/ioctl:
		 * the file lives until they return; then EBADF.
		 */
		ASSERT_EQ(0, close(r.fd));
		atomic_store(&r.stop, 1);
		for (i = 0; i < 4; i++)
			pthread_join(th[i], NULL);
		reads += r.reads;
		polls += r.polls;
		ioctls += r.ioctls;
		events += r.events;
	}
	printf("# %d close races: %lu reads (%lu events), %lu polls, %lu ioctls\n",
	       round, reads, events, polls, ioctls);
	if (a.ok) {
		tw_stats_wait_pending(&b, tw_stats_v(&a, TWS_PENDING), 5000);
		EXPECT_EQ(tw_stats_v(&a, TWS_PENDING), tw_stats_v(&b, TWS_PENDING));
	}
}

TEST(fork_and_dup_share_one_file)
{
	struct twheel_event ev;
	struct twheel_query q;
	struct tw_stats a, b;
	uint64_t mine, theirs = 0, longs[5];
	int fd, fd2, p[2], status, i;
	pid_t pid;

	fd = tw_open(0);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", TW_DEV, strerror(errno));
	fd2 = dup(fd);
	ASSERT_LE(0, fd2);
	tw_stats_read(&a);
	ASSERT_EQ(0, tw_arm(fd2, 0, HOUR_NS, 0, 1, 0, &mine));
	ASSERT_EQ(0, tw_query(fd, mine, &q));	/* same file via fd */
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, tw_arm(fd, 0, HOUR_NS, 0, 100 + i, 0, &longs[i]));
	ASSERT_EQ(0, pipe(p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		uint64_t id = 0;

		/* The child shares the file: it cancels ours, arms its own. */
		if (tw_cancel(fd, mine) != 1)
			_exit(10);
		if (tw_arm(fd, 0, 0, 0, 2, 0, &id))
			_exit(11);
		if (write(p[1], &id, sizeof(id)) != sizeof(id))
			_exit(12);
		close(fd);
		close(fd2);
		_exit(0);	/* not the last close: nothing cancelled */
	}
	close(p[1]);
	ASSERT_EQ((ssize_t)sizeof(theirs), read(p[0], &theirs, sizeof(theirs)));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(-ENOENT, tw_query(fd, mine, &q));
	ASSERT_EQ((ssize_t)sizeof(ev), read(fd2, &ev, sizeof(ev)));
	EXPECT_EQ(theirs, ev.id);
	EXPECT_EQ(2ULL, ev.cookie);
	EXPECT_EQ(5, tw_pending(fd));
	close(fd);			/* fd2 keeps the file */
	EXPECT_EQ(5, tw_pending(fd2));
	EXPECT_EQ(0, tw_query(fd2, longs[4], &q));
	close(fd2);			/* the last close: 5 cancelled */
	tw_stats_read(&b);
	if (a.ok && b.ok) {
		EXPECT_EQ(5ULL, tw_stats_delta(&a, &b, TWS_FD_CANCELLED));
		EXPECT_EQ(tw_stats_v(&a, TWS_PENDING), tw_stats_v(&b, TWS_PENDING));
	}
	close(p[0]);
}

TEST(sigkill_with_timers_pending)
{
	struct tw_stats a, b;
	int p[2], status, round;
	pid_t pid;
	char c;

	tw_stats_read(&a);
	for (round = 0; round < 3; round++) {
		ASSERT_EQ(0, pipe(p));
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			int fd = tw_open(0), fd2 = tw_open(0), i;
			struct twheel_event ev;
			uint64_t id;

			if (fd < 0 || fd2 < 0)
				_exit(10);
			for (i = 0; i < 500; i++)
				if (tw_arm(fd, 0, HOUR_NS + i, 0, i, 0, &id))
					_exit(11);
			for (i = 0; i < 10; i++)
				if (tw_arm(fd, 0, MS, MS, i,
					   0, &id))
					_exit(12);
			if (tw_arm(fd2, 0, HOUR_NS, 0, 0, 0, &id))
				_exit(13);
			if (write(p[1], "r", 1) != 1)
				_exit(14);
			/* Killed while blocked in read() of a quiet file. */
			for (;;)
				if (read(fd2, &ev, sizeof(ev)) < 0)
					_exit(15);
		}
		close(p[1]);
		ASSERT_EQ(1, read(p[0], &c, 1));
		tw_sleep_ms(20 * round);
		ASSERT_EQ(0, kill(pid, SIGKILL));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		close(p[0]);
	}
	if (!a.ok)
		return;
	tw_stats_wait_pending(&b, tw_stats_v(&a, TWS_PENDING), 5000);
	EXPECT_EQ(tw_stats_v(&a, TWS_PENDING), tw_stats_v(&b, TWS_PENDING));
	EXPECT_EQ(3ULL * 511, tw_stats_delta(&a, &b, TWS_FD_CANCELLED));
}

TEST_HARNESS_MAIN
