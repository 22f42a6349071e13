/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheelctl: what its files share (design at the head of main.c). The
 * options of the command line are globals, as they were in the one file.
 * Every file includes this header (or run.h) first: it asks for the GNU
 * extensions (strerrorname_np()) before any system header is read.
 */
#ifndef TWHEELCTL_H
#define TWHEELCTL_H

#define _GNU_SOURCE
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <twheel.h>

#define TOOL_VERSION		"1.2"
#define TOOL_MIN_ABI		1	/* oldest kernel ABI spoken (no ring) */
#define DEFAULT_DEVICE		"/dev/twheel"
#define DEFAULT_DEBUGFS		"/sys/kernel/debug/twheel"

/* Exit status (documented in the manual). */
enum {
	EX_OK		= 0,	/* success */
	EX_FAIL		= 1,	/* an ioctl, read or arm failed */
	EX_USAGE	= 2,	/* bad command line */
	EX_NODEV	= 3,	/* /dev/twheel cannot be opened */
	EX_ABI		= 4,	/* kernel ABI older than this tool */
	EX_NODEBUGFS	= 5,	/* debugfs statistics unavailable */
	EX_EARLY	= 6,	/* an event arrived before its deadline */
};

#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_MSEC	1000000ULL
#define NSEC_PER_SEC	1000000000ULL

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* main.c: the global options. */
extern const char *prog;
extern const char *device;
extern const char *debugfs_dir;
extern bool json;

bool global_opt(int c);
void parse_simple(const char *cmd, int argc, char **argv);

/* usage.c */
void usage(FILE *f);

/* util.c */
void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void errmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
uint64_t clock_ns(clockid_t clk);
uint64_t mono_ns(void);
bool parse_u64(const char *s, uint64_t *out);
uint64_t need_duration(const char *opt, const char *arg);
uint64_t need_u64(const char *opt, const char *arg);
const char *fmt_dur(char *buf, size_t len, uint64_t ns);
const char *fmt_ms(char *buf, size_t len, int64_t ns);
void *xrealloc(void *p, size_t n);

/* Clock names for --at. */
struct tw_clock_name {
	const char *name;
	clockid_t id;
};

#define NR_CLOCKS	3
extern const struct tw_clock_name clocks[NR_CLOCKS];
const char *clock_name(clockid_t id);

/* device.c: operations whose errors have a documented meaning. */
enum op { OP_OPEN, OP_INFO, OP_ARM, OP_BATCH, OP_CANCEL, OP_QUERY, OP_READ,
	  OP_RING };

extern struct twheel_info kinfo;	/* filled by get_info() */

/* The ring ABI, used by run when the kernel has it (ring_setup()). */
extern bool ring_on;
extern struct twheel_ring ring;

const char *explain(enum op op, int err, char *buf, size_t len);
void op_error(enum op op, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
struct twheel *open_device(void);
void get_info(struct twheel *tw);

/* The commands: info.c, run.c, stats.c. */
int cmd_info(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_stats(int argc, char **argv);

#endif /* TWHEELCTL_H */
