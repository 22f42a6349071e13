// SPDX-License-Identifier: GPL-2.0
/*
 * twheelctl info: the geometry, limits and ABI version of the device.
 */
#include "twheelctl.h"

int cmd_info(int argc, char **argv)
{
	char b1[32], b2[32];
	struct twheel *tw;

	parse_simple("info", argc, argv);
	tw = open_device();

	get_info(tw);
	twheel_close(tw);
	if (json) {
		/* "slots": the first name of "buckets", for older readers. */
		printf("{\"abi_version\":%u,\"tool_abi_version\":%u,\"tick_ns\":%llu,"
		       "\"horizon_ns\":%llu,\"levels\":%u,\"buckets\":%u,\"slots\":%u,"
		       "\"max_per_file\":%llu,\"max_total\":%llu,\"pending\":%llu,"
		       "\"event_size\":%u,\"nr_cpus\":%u,\"features\":%llu}\n",
		       kinfo.abi_version, TWHEEL_ABI_VERSION,
		       (unsigned long long)kinfo.tick_ns,
		       (unsigned long long)kinfo.horizon_ns, kinfo.levels,
		       kinfo.buckets, kinfo.buckets,
		       (unsigned long long)kinfo.max_per_file,
		       (unsigned long long)kinfo.max_total,
		       (unsigned long long)kinfo.pending, kinfo.event_size,
		       kinfo.nr_cpus, (unsigned long long)kinfo.features);
		return EX_OK;
	}
	printf("twheel on %s\n", device);
	printf("  ABI version      %u (twheelctl %s built for ABI %u)\n",
	       kinfo.abi_version, TOOL_VERSION, TWHEEL_ABI_VERSION);
	printf("  tick             %s (%llu ns)\n",
	       fmt_dur(b1, sizeof(b1), kinfo.tick_ns),
	       (unsigned long long)kinfo.tick_ns);
	printf("  levels x buckets %u x %u\n", kinfo.levels, kinfo.buckets);
	printf("  horizon          %s (%llu ticks) before the overflow list\n",
	       fmt_dur(b2, sizeof(b2), kinfo.horizon_ns),
	       kinfo.tick_ns ? (unsigned long long)(kinfo.horizon_ns / kinfo.tick_ns) : 0ULL);
	printf("  max timers/fd    %llu\n", (unsigned long long)kinfo.max_per_file);
	printf("  max timers       %llu (all files)\n",
	       (unsigned long long)kinfo.max_total);
	printf("  possible CPUs    %u\n", kinfo.nr_cpus);
	printf("  event size       %u bytes\n", kinfo.event_size);
	printf("  features         %s\n",
	       kinfo.features & TWHEEL_FEAT_RING ?
	       "ring (timer table, TWHEEL_IOC_SUBMIT, mmap'ed completion ring)" :
	       "none");
	return EX_OK;
}
