/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim: single-threaded, so the access macros are plain accesses. */
#ifndef _TW_SHIM_LINUX_COMPILER_H
#define _TW_SHIM_LINUX_COMPILER_H

#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define noinline		__attribute__((__noinline__))
#define __printf(a, b)		__attribute__((__format__(printf, a, b)))

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#endif
