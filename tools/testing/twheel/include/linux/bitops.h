/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim: the non-atomic bit operations of the kernel, via builtins. */
#ifndef _TW_SHIM_LINUX_BITOPS_H
#define _TW_SHIM_LINUX_BITOPS_H

#include <linux/bits.h>

/* Index of the most significant set bit, 1-based; 0 for 0. */
static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

/* Index of the most significant set bit; undefined for 0 (x86: bsr). */
static inline unsigned long __fls(unsigned long x)
{
#ifdef __x86_64__
	asm("bsr %1,%0" : "=r" (x) : "rm" (x));
	return x;
#else
	return (BITS_PER_LONG - 1) ^ (unsigned long)__builtin_clzl(x);
#endif
}

/* Index of the least significant set bit; undefined for 0 (x86: bsf). */
static inline unsigned long __ffs(unsigned long x)
{
#ifdef __x86_64__
	asm("rep; bsf %1,%0" : "=r" (x) : "rm" (x));
	return x;
#else
	return __builtin_ctzl(x);
#endif
}

static inline unsigned long __ffs64(u64 x)
{
	return BITS_PER_LONG == 64 ? __ffs(x) : __builtin_ctzll(x);
}

static inline void __set_bit(unsigned long nr, unsigned long *addr)
{
	addr[nr / BITS_PER_LONG] |= 1UL << (nr % BITS_PER_LONG);
}

static inline void __clear_bit(unsigned long nr, unsigned long *addr)
{
	addr[nr / BITS_PER_LONG] &= ~(1UL << (nr % BITS_PER_LONG));
}

static inline bool test_bit(unsigned long nr, const unsigned long *addr)
{
	return (addr[nr / BITS_PER_LONG] >> (nr % BITS_PER_LONG)) & 1;
}

#endif
