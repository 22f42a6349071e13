/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheelctl run: the timers and actions of the command line (run.c), shared
 * with the arming (run_arm.c) and the event loop (run_events.c).
 */
#ifndef TWHEELCTL_RUN_H
#define TWHEELCTL_RUN_H

#include "twheelctl.h"

enum kind { K_ONESHOT, K_AT, K_EVERY, K_DELAY };
#define NR_KINDS	(K_DELAY + 1)

extern const char *const kind_names[NR_KINDS];

struct tmr {
	enum kind kind;
	uint64_t first;		/* relative first deadline, or absolute (K_AT) */
	uint64_t period;
	bool at_rel;		/* --at +DUR: absolute = clock now + first */
	clockid_t clk;
	uint64_t cookie;
	bool has_cookie;
	int cpu;		/* -1: the kernel's choice */
	uint64_t count;		/* stop after this many events, 0 = unlimited */
	uint64_t cancel_after;	/* 0 = never */
	unsigned int copies;
	uint64_t spread;
	/* state */
	uint64_t id;		/* kernel id (ring: slot + 1), 0 if not armed */
	uint32_t gen;		/* ring: the slot's generation */
	int arm_err;
	bool done;
	uint64_t events, overruns;
	int64_t late_max, late_min, read_late_max;
	int64_t late_sum;
	uint64_t early;
	uint64_t last_expired;
};

enum action_type { A_CANCEL, A_QUERY, A_STALL };

struct action {
	enum action_type type;
	size_t timer;		/* index into timers[] */
	uint64_t when;		/* relative to the start */
	uint64_t stall;		/* A_STALL: how long not to read */
	bool done;
};

/* run.c: the command line, and the run's state. */
extern struct tmr *timers;
extern size_t nr_timers;
extern struct action *actions;
extern size_t nr_actions;
extern bool quiet;
extern volatile sig_atomic_t stop_signal;

/* run_arm.c */
void print_armed(size_t i, uint64_t t0);
bool ring_setup(struct twheel *tw);
int arm_all(struct twheel *tw, bool batch);
struct tmr *find_timer(uint64_t id);
void do_cancel(struct twheel *tw, struct tmr *t, const char *why, uint64_t t0);
void do_query(struct twheel *tw, struct tmr *t, uint64_t t0);

/* run_events.c */
int run_loop(struct twheel *tw, uint64_t t0, uint64_t run_for);
void print_summary(uint64_t t0);

#endif /* TWHEELCTL_RUN_H */
