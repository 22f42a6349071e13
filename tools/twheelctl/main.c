// SPDX-License-Identifier: GPL-2.0
/*
 * twheelctl - command line client of /dev/twheel (uapi/linux/twheel.h).
 *
 *   twheelctl info                      geometry, limits, ABI version
 *   twheelctl run TIMER... [OPTION...]  arm timers, stream their expirations
 *   twheelctl stats                     debugfs counters and lateness histogram
 *
 * `twheelctl --help` prints the manual. Every call to the device goes
 * through libtwheel (tools/lib/twheel/twheel.h), which handles the ABI's size
 * rules and feature discovery; the ring is read with its inline helpers.
 * Built statically by the top-level Makefile (make tools) against
 * build/lib/libtwheel.a.
 *
 * One file per job: main.c (options, dispatch), usage.c (the manual),
 * util.c (messages, durations, clocks), device.c (the device, errno
 * messages), info.c, stats.c, and run.c, run_arm.c, run_events.c for the
 * run command (run.h); twheelctl.h is what they share.
 */
#include "twheelctl.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

const char *prog = "twheelctl";
const char *device = DEFAULT_DEVICE;
const char *debugfs_dir = DEFAULT_DEBUGFS;
bool json;

/*
 * The global options, accepted before and after the command: handle option
 * @c if it is one of them. Return false if it is not.
 */
bool global_opt(int c)
{
	switch (c) {
	case 'D':
		device = optarg;
		return true;
	case 'S':
		debugfs_dir = optarg;
		return true;
	case 'j':
		json = true;
		return true;
	case 'h':
		usage(stdout);
		exit(EX_OK);
	default:
		return false;
	}
}

/* Options of info and stats: the global ones again, after the command. */
void parse_simple(const char *cmd, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json",    no_argument,	NULL, 'j' },
		{ "help",    no_argument,	NULL, 'h' },
		{ "device",  required_argument, NULL, 'D' },
		{ "debugfs", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+hj", opts, NULL)) != -1)
		if (!global_opt(c))
			usage_error("%s: bad option", cmd);
	if (optind < argc)
		usage_error("%s: unexpected argument '%s'", cmd, argv[optind]);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device",  required_argument, NULL, 'D' },
		{ "debugfs", required_argument, NULL, 'S' },
		{ "json",    no_argument,	NULL, 'j' },
		{ "help",    no_argument,	NULL, 'h' },
		{ "version", no_argument,	NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *cmd;
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt_long(argc, argv, "+hjV", opts, NULL)) != -1) {
		if (c == 'V') {
			printf("twheelctl %s (ABI %d)\n", TOOL_VERSION,
			       TWHEEL_ABI_VERSION);
			return EX_OK;
		}
		if (!global_opt(c))
			usage_error("bad option");
	}
	if (optind >= argc)
		usage_error("no command given (info, run, stats)");
	cmd = argv[optind];
	argc -= optind;
	argv += optind;

	if (!strcmp(cmd, "info"))
		return cmd_info(argc, argv);
	if (!strcmp(cmd, "run"))
		return cmd_run(argc, argv);
	if (!strcmp(cmd, "stats"))
		return cmd_stats(argc, argv);
	if (!strcmp(cmd, "help")) {
		usage(stdout);
		return EX_OK;
	}
	usage_error("unknown command '%s' (info, run, stats)", cmd);
	return EX_USAGE;
}
