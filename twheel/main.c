// SPDX-License-Identifier: GPL-2.0
/*
 * twheel module: parameters, geometry report, init and exit order.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/time64.h>

#include "driver.h"
#include "clock/clock.h"
#include "dev/dev.h"
#include "stats.h"

static unsigned int tick_us = TWHEEL_TICK_US_DEF;
module_param(tick_us, uint, 0444);
MODULE_PARM_DESC(tick_us, "wheel tick in microseconds (100..100000, default 1000)");

static unsigned int bucket_bits = TWHEEL_BUCKET_BITS_DEF;
module_param(bucket_bits, uint, 0444);
MODULE_PARM_DESC(bucket_bits, "log2 of the buckets per level (2..6, default 6)");
/* Its first name, before the glossary named a wheel's ring "buckets". */
module_param_named(slot_bits, bucket_bits, uint, 0444);
MODULE_PARM_DESC(slot_bits, "the same as bucket_bits (its former name)");

static unsigned int levels = TWHEEL_LEVELS_DEF;
module_param(levels, uint, 0444);
MODULE_PARM_DESC(levels, "levels of the wheel (1..8, default 5)");

static int __init twheel_check_params(void)
{
	if (tick_us < TWHEEL_TICK_US_MIN || tick_us > TWHEEL_TICK_US_MAX) {
		pr_err("tick_us=%u out of range %u..%u\n", tick_us,
		       TWHEEL_TICK_US_MIN, TWHEEL_TICK_US_MAX);
		return -EINVAL;
	}
	if (bucket_bits < TWHEEL_BUCKET_BITS_MIN ||
	    bucket_bits > TWHEEL_BUCKET_BITS_MAX) {
		pr_err("bucket_bits=%u out of range %u..%u\n", bucket_bits,
		       TWHEEL_BUCKET_BITS_MIN, TWHEEL_BUCKET_BITS_MAX);
		return -EINVAL;
	}
	if (levels < 1 || levels > TWHEEL_LEVELS_MAX) {
		pr_err("levels=%u out of range 1..%u\n", levels,
		       TWHEEL_LEVELS_MAX);
		return -EINVAL;
	}
	return 0;
}

static void __init twheel_print_geometry(void)
{
	u64 ticks = 1ULL << (bucket_bits * levels);
	u64 secs = mul_u64_u32_div(ticks, tick_us, USEC_PER_SEC);

	pr_info("tick %u us, %u levels x %u buckets, horizon %llu ticks (%llu s, %llu days)\n",
		tick_us, levels, 1U << bucket_bits, ticks, secs,
		div_u64(secs, 86400));
}

static int __init twheel_init(void)
{
	int ret;

	ret = twheel_check_params();
	if (ret)
		return ret;
	ret = twheel_bases_init(tick_us, bucket_bits, levels);
	if (ret)
		return ret;
	ret = twheel_clock_steps_init();
	if (ret)
		goto err_bases;
	ret = twheel_debugfs_init();
	if (ret)
		goto err_steps;
	ret = twheel_dev_init();
	if (ret)
		goto err_debugfs;
	twheel_print_geometry();
	return 0;

err_debugfs:
	twheel_debugfs_exit();
err_steps:
	twheel_clock_steps_exit();
err_bases:
	twheel_bases_exit();
	return ret;
}
module_init(twheel_init);

static void __exit twheel_exit(void)
{
	twheel_dev_exit();
	twheel_debugfs_exit();
	twheel_clock_steps_exit();
	twheel_bases_exit();
}
module_exit(twheel_exit);

MODULE_DESCRIPTION("Per-CPU hierarchical timing wheel with /dev/twheel");
MODULE_AUTHOR("twheel developers");
MODULE_LICENSE("GPL");
/* debian/changelog and dkms.conf carry the same (tools/vm/deb.sh checks). */
MODULE_VERSION("0.2.0");
