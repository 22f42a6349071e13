/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel clocks: what clock_step.c uses of clock_wake.c (design there);
 * owners of alarm timers use only twheel_wake_note() (clock.h).
 */
#ifndef _TWHEEL_CLOCK_WAKE_H
#define _TWHEEL_CLOCK_WAKE_H

#include <linux/types.h>

struct work_struct;

void twheel_wake_walk_begin(void);
void twheel_wake_set(const u64 *min);
void twheel_wake_suspending(bool on);
void twheel_wake_init(struct work_struct *rewalk);
void twheel_wake_exit(void);

#endif /* _TWHEEL_CLOCK_WAKE_H */
