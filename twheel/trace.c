// SPDX-License-Identifier: GPL-2.0
/*
 * twheel tracepoints: instantiated here, used from base.c.
 */
#define CREATE_TRACE_POINTS
#include "trace.h"
