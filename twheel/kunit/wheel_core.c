// SPDX-License-Identifier: GPL-2.0
/*
 * The test module carries its own copy of the pure wheel core, so that the
 * core suites (wheel_test.c, wheel_ahead_test.c, wheel_model_test.c) need
 * nothing from twheel.ko: wheel_init.c and wheel.c export no symbols, and
 * their functions are private to each module that links them.
 */
#include "../wheel_init.c"
#include "../wheel.c"
