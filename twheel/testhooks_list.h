/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test-only delay hooks (testhooks.h), one TWHEEL_HOOK(name, what) a
 * hook: included with TWHEEL_HOOK defined, for the enum and the debugfs
 * names. Add new hooks at the end.
 */
TWHEEL_HOOK(noop, "reached by nothing: tests of the hooks themselves")
TWHEEL_HOOK(ring_submit, "a ring submission, between its checks and its arms")
TWHEEL_HOOK(wake_walk_file, "the walk before suspend, in a file, under its lock")
TWHEEL_HOOK(utimer_fire, "an ioctl-ABI expiry, before it takes the file lock")
TWHEEL_HOOK(utimer_fired, "an ioctl-ABI expiry, after it dropped the file lock")
TWHEEL_HOOK(utimer_early, "knob: arm clock-bound and ioctl-ABI timers this many us early")
TWHEEL_HOOK(tick_clock, "the tick callback, after it read the clock")
TWHEEL_HOOK(clock_read, "each tw_clock_ns() (tick, runners, arms): a slow clocksource")
TWHEEL_HOOK(runner_pass, "a runner catching up, between two passes")
TWHEEL_HOOK(poison_alloc, "knob: fill ring submissions' kmalloc() memory with this byte")
TWHEEL_HOOK(ring_flush, "a backlog flush, between its clock read and the ring lock")
TWHEEL_HOOK(clock_fire, "an in-kernel clock timer's expiry, before it takes the clock lock")
TWHEEL_HOOK(runner_take, "watch: each timer a runner takes off its queues, in take order")

#undef TWHEEL_HOOK
