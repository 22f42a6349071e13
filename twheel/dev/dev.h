/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel character device /dev/twheel (dev.c).
 */
#ifndef _TWHEEL_DEV_H
#define _TWHEEL_DEV_H

int twheel_dev_init(void);
void twheel_dev_exit(void);

#endif /* _TWHEEL_DEV_H */
