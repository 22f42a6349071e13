/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TW_SHIM_LINUX_LIMITS_H
#define _TW_SHIM_LINUX_LIMITS_H

#include <linux/types.h>

#endif
