/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel statistics, named once. Every key of debugfs stats is one line
 * below; struct twheel_stats (stats.h), its sum over CPUs (stats.c), the
 * debugfs files (debugfs.c) and twheelctl's descriptions and per-CPU table
 * (tools/twheelctl) are all expanded from it, as kernel/time/timer_list.c
 * prints one P(x) per field and KVM lists its ops in kvm-x86-ops.h.
 *
 * No include guard and no includes: define the macros you need, include
 * this file, and it undefines them again; undefined ones expand to nothing
 * (userspace includes it too). Each entry is (name, percpu, help):
 *
 *   TWHEEL_STAT_CNT   a count, u64 field @name, summed over CPUs; debugfs
 *                     key @name
 *   TWHEEL_STAT_MAX   a maximum, u64 field @name_ns, the largest over CPUs;
 *                     debugfs key @name_us, shown in microseconds
 *   TWHEEL_STAT_BASE  read from the per-CPU bases when debugfs is read (no
 *                     counter): key @name
 *
 *   percpu  0: only in debugfs stats; 1: also a column of debugfs percpu,
 *           after its own columns (cpu ... tick_armed); 2: a column that
 *           twheelctl stats also shows in its per-CPU table
 *   help    what it counts, as twheelctl stats prints it
 *
 * The order is the stable order of the debugfs files: add entries at the
 * end (before max_cascades), never rename or reorder them.
 */
#ifndef TWHEEL_STAT_CNT
#define TWHEEL_STAT_CNT(...)
#endif
#ifndef TWHEEL_STAT_MAX
#define TWHEEL_STAT_MAX(...)
#endif
#ifndef TWHEEL_STAT_BASE
#define TWHEEL_STAT_BASE(...)
#endif

TWHEEL_STAT_BASE(pending, 0, "timers in wheels or waiting for their callback")
TWHEEL_STAT_CNT(armed, 2, "arms, including re-arms of periodic timers")
TWHEEL_STAT_CNT(cancelled, 2, "arms ended unexpired: cancel, re-arm, modify, clock_delivered")
TWHEEL_STAT_CNT(expired, 2, "timers that came due in a pass (expiries)")
TWHEEL_STAT_CNT(cascaded, 1, "moves of a timer down one wheel level")
TWHEEL_STAT_CNT(migrated, 2, "timers moved off a CPU that went offline")
TWHEEL_STAT_CNT(ticks_run, 2, "tick passes that cascaded or expired timers, ahead of a tick too")
TWHEEL_STAT_CNT(ticks_idle, 2, "ticks the clock passed with nothing left due, work done ahead too")
TWHEEL_STAT_CNT(wakeups, 2, "tick hrtimer interrupts")
TWHEEL_STAT_CNT(runner_kicks, 1, "runners queued to the workqueue for an expired list")
TWHEEL_STAT_CNT(callbacks, 2, "callbacks run")
TWHEEL_STAT_CNT(overruns, 2, "periods skipped (fixed rate late, or busy callback)")
TWHEEL_STAT_CNT(rejected, 1, "arms refused by a cap (ENOSPC)")
TWHEEL_STAT_CNT(fd_cancelled, 1, "timers cancelled by the last close() of a file")
TWHEEL_STAT_MAX(lat_max, 2, "largest lateness, deadline to the runner's clock read (us)")
TWHEEL_STAT_MAX(cb_max, 1, "longest callback, or callbacks between two clock reads (us)")
TWHEEL_STAT_CNT(behind, 0, "passes that ran out of budget (a runner finished the work)")
TWHEEL_STAT_MAX(pass_max, 0, "longest bounded pass, base lock held, interrupts off (us)")
TWHEEL_STAT_CNT(clock_steps, 0, "clock steps followed (in-kernel clock timers and /dev/twheel)")
TWHEEL_STAT_CNT(clock_rebound, 0, "clock-bound timers those steps re-armed, cancelled or delivered")
TWHEEL_STAT_MAX(clock_step_max, 0, "longest walk of one clock step over its timers (us)")
TWHEEL_STAT_CNT(wake_walks, 0, "walks of the alarm timers before a suspend")
TWHEEL_STAT_CNT(wake_walked, 0, "alarm timers those walks went over")
TWHEEL_STAT_MAX(wake_walk_max, 0, "longest walk of the alarm timers before a suspend (us)")
TWHEEL_STAT_CNT(step_files, 0, "files clock steps and walks before a suspend went over")
TWHEEL_STAT_CNT(utimer_early, 0, "early expiries on an unstepped clock (must stay 0)")
TWHEEL_STAT_CNT(clock_delivered, 0, "ioctl-ABI timers delivered by a clock step or suspend walk")
TWHEEL_STAT_CNT(ticks_exact, 0, "passes that took an exact bucket's due timers before its tick")
TWHEEL_STAT_BASE(max_cascades, 1, "most cascades of a single timer")

#undef TWHEEL_STAT_CNT
#undef TWHEEL_STAT_MAX
#undef TWHEEL_STAT_BASE
