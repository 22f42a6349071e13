/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CBMC's nondeterministic values: functions declared and never defined,
 * whose every call CBMC takes as any value of the type.
 */
#ifndef _TW_VERIFY_NONDET_H
#define _TW_VERIFY_NONDET_H

u64 nondet_u64(void);
unsigned int nondet_uint(void);
unsigned long nondet_ulong(void);

#endif /* _TW_VERIFY_NONDET_H */
