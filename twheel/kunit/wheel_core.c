// SPDX-License-Identifier: GPL-2.0
/*
 * The test module carries its own copy of the pure wheel core, so that the
 * core suites in wheel_test.c and wheel_model_test.c need nothing from twheel.ko: wheel.c exports
 * no symbols, and its functions are private to each module that links it.
 */
#include "../wheel_init.c"
#include "../wheel.c"
