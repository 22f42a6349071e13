/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TW_SHIM_LINUX_BITS_H
#define _TW_SHIM_LINUX_BITS_H

#include <linux/types.h>

#define BIT(nr)		(1UL << (nr))
#define BIT_ULL(nr)	(1ULL << (nr))

#endif
