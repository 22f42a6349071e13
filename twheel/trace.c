// SPDX-License-Identifier: GPL-2.0
/*
 * twheel tracepoints: instantiated here, used by the driver
 * (base/base_arm.c, base/base_expire.c).
 */
#define CREATE_TRACE_POINTS
#include "trace.h"
