/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim. Not <errno.h>: glibc's errno.h includes <linux/errno.h>, which
 * would be this file again.
 */
#ifndef _TW_SHIM_LINUX_ERRNO_H
#define _TW_SHIM_LINUX_ERRNO_H

#ifndef EINVAL
#define EINVAL		22
#endif

#endif
