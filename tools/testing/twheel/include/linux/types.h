/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim: the kernel types twheel/wheel.c uses. */
#ifndef _TW_SHIM_LINUX_TYPES_H
#define _TW_SHIM_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>	/* clockid_t, in the API's declarations */

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef unsigned long long u64;	/* as the kernel's, for %llu */
typedef int32_t s32;
typedef long long s64;

#define U64_MAX		UINT64_MAX
#define BITS_PER_LONG	(8 * __SIZEOF_LONG__)

struct hlist_head {
	struct hlist_node *first;
};

struct hlist_node {
	struct hlist_node *next, **pprev;
};

struct list_head {
	struct list_head *next, *prev;
};

#endif
