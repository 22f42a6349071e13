/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel debugfs files (debugfs.c). Failure to create them is not an error:
 * twheel_debugfs_init() only returns an error the module must not ignore.
 */
#ifndef _TWHEEL_DEBUGFS_H
#define _TWHEEL_DEBUGFS_H

int twheel_debugfs_init(void);
void twheel_debugfs_exit(void);

#endif /* _TWHEEL_DEBUGFS_H */
