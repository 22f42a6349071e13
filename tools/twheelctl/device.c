// SPDX-License-Identifier: GPL-2.0
/*
 * twheelctl: the device through libtwheel, and a clear message for every
 * errno of uapi/linux/twheel.h.
 */
#include "twheelctl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct twheel_info kinfo;	/* filled by get_info() */

/* The ring ABI, used by run when the kernel has it (ring_setup()). */
bool ring_on;
struct twheel_ring ring;

/* A clear message for every errno uapi/linux/twheel.h documents. */
const char *explain(enum op op, int err, char *buf, size_t len)
{
	switch (err) {
	case ENOENT:
		if (op == OP_OPEN)
			return "no such device: is the twheel module loaded? (modprobe twheel)";
		return "no such timer in this file (already fired and read, or cancelled)";
	case ENODEV:
	case ENXIO:
		if (op == OP_OPEN)
			return "twheel device not available (module unloading?)";
		return "the requested CPU is offline";
	case EACCES:
	case EPERM:
		return "permission denied (check the mode of the device node)";
	case ERANGE:
		snprintf(buf, len, "cpu is not below the number of possible CPUs (nr_cpus=%u)",
			 kinfo.nr_cpus);
		return buf;
	case ENOSPC:
		snprintf(buf, len,
			 "pending-timer cap reached (max_timers_per_fd=%llu, max_timers=%llu)",
			 (unsigned long long)kinfo.max_per_file,
			 (unsigned long long)kinfo.max_total);
		return buf;
	case ENOMEM:
		return "out of kernel memory";
	case EINVAL:
		switch (op) {
		case OP_ARM:
		case OP_BATCH:
			return "invalid flags, clock, period or deadline";
		case OP_READ:
			return "read buffer smaller than one struct twheel_event";
		default:
			return "invalid argument (bad size, flags or reserved field)";
		}
	case E2BIG:
		if (op == OP_BATCH)
			return "batch above TWHEEL_BATCH_MAX entries";
		return "structure newer than the kernel's ABI (E2BIG)";
	case EFAULT:
		return "bad user address (EFAULT)";
	case ENOTTY:
		return "not a twheel device, or the ioctl is unknown to this kernel (ABI mismatch)";
	case EAGAIN:
		return "no event ready (O_NONBLOCK)";
	case EINTR:
		return "interrupted by a signal";
	default:
		return strerror(err);
	}
}

void op_error(enum op op, int err, const char *fmt, ...)
{
	char buf[160];
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s (%s)\n", explain(op, err, buf, sizeof(buf)),
		strerrorname_np(err) ? strerrorname_np(err) : "?");
}

/*
 * Open the device and wrap it in a libtwheel handle, which reads
 * TWHEEL_IOC_INFO. The file is opened here, not by twheel_open(), so that
 * "cannot open" (EX_NODEV) stays apart from "not a twheel device" (EX_ABI).
 */
struct twheel *open_device(void)
{
	int fd = open(device, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	struct twheel *tw;
	int ret;

	if (fd < 0) {
		op_error(OP_OPEN, errno, "cannot open %s", device);
		exit(EX_NODEV);
	}
	ret = twheel_open_fd(fd, &tw);
	if (ret < 0) {
		op_error(OP_INFO, -ret, "TWHEEL_IOC_INFO on %s", device);
		exit(ret == -ENOTTY || ret == -EINVAL ? EX_ABI : EX_FAIL);
	}
	return tw;
}

/*
 * The module's geometry and limits. libtwheel converts events of another
 * size and leaves the features of an ABI 1 module zero.
 */
void get_info(struct twheel *tw)
{
	int ret = twheel_get_info(tw, &kinfo);

	if (ret < 0) {
		op_error(OP_INFO, -ret, "TWHEEL_IOC_INFO on %s", device);
		exit(ret == -ENOTTY ? EX_ABI : EX_FAIL);
	}
	if (kinfo.abi_version < TOOL_MIN_ABI) {
		errmsg("kernel twheel ABI %u is older than this tool's oldest (%u)",
		       kinfo.abi_version, TOOL_MIN_ABI);
		exit(EX_ABI);
	}
}
