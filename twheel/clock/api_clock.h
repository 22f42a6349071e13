/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel in-kernel clock timers (api_clock.c): the hook of clock steps,
 * called by clock_step.c's work item.
 */
#ifndef _TWHEEL_API_CLOCK_H
#define _TWHEEL_API_CLOCK_H

unsigned long twheel_clock_step(unsigned int clocks);

#endif /* _TWHEEL_API_CLOCK_H */
