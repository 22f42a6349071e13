/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CBMC shim: the bit operations of tools/testing/twheel/include/linux/
 * bitops.h without its x86 inline assembly (bsr/bsf), which CBMC cannot
 * model, as compiler builtins that CBMC knows exactly. Found first on the
 * include path of the proofs; the rest of the host shim is used as is.
 */
#ifndef _TW_SHIM_LINUX_BITOPS_H
#define _TW_SHIM_LINUX_BITOPS_H

#include <linux/bits.h>

static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

/* Undefined for 0 in the kernel: the proof makes that an assertion. */
static inline unsigned long __fls(unsigned long x)
{
	__CPROVER_assert(x != 0, "fls of 0");
	return (BITS_PER_LONG - 1) ^ (unsigned long)__builtin_clzl(x);
}

static inline unsigned long __ffs(unsigned long x)
{
	__CPROVER_assert(x != 0, "ffs of 0");
	return __builtin_ctzl(x);
}

static inline unsigned long __ffs64(u64 x)
{
	__CPROVER_assert(x != 0, "ffs64 of 0");
	return __builtin_ctzll(x);
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
