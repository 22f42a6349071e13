/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TW_SHIM_LINUX_LIMITS_H
#define _TW_SHIM_LINUX_LIMITS_H

#include <limits.h>
#include <linux/types.h>

#endif
