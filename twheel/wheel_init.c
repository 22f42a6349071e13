// SPDX-License-Identifier: GPL-2.0
/*
 * twheel core: setting up a wheel and a node, the placement tables that
 * the rest of the core (wheel.c) looks levels up in. The design is
 * described at the head of wheel.h.
 */
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include "wheel.h"

/**
 * tw_wheel_init() - set up an empty wheel
 * @w:		the wheel
 * @bits:	log2 of the buckets per level, TW_MIN_BITS..TW_MAX_BITS
 * @levels:	number of levels, 1..TW_MAX_LEVELS
 * @now:	current tick; the clock starts there
 *
 * Return: 0, or -EINVAL for a geometry out of range.
 */
int tw_wheel_init(struct tw_wheel *w, unsigned int bits, unsigned int levels,
		  u64 now)
{
	unsigned int i, lvl;

	if (bits < TW_MIN_BITS || bits > TW_MAX_BITS ||
	    levels < 1 || levels > TW_MAX_LEVELS)
		return -EINVAL;

	w->clk = min_t(u64, now, TW_MAX_TICK);
	w->next = TW_NO_TICK;
	w->mask = BIT(bits) - 1;
	w->bits = bits;
	w->levels = levels;
	w->pending = 0;
	w->ovf_min = TW_NO_TICK;
	w->scan_min = TW_NO_TICK;
	w->cascaded = 0;
	w->max_cascades = 0;
	INIT_HLIST_HEAD(&w->overflow);
	INIT_HLIST_HEAD(&w->scanned);
	for (i = 0; i <= TW_MAX_LEVELS; i++)
		w->bitmap[i] = i == levels ? ~0UL : 0;
	for (i = 0; i < TW_MAX_LEVELS; i++) {
		w->lvl_shift[i] = i * bits;
		w->turn[i] = ~(BIT_ULL((i + 1) * bits) - 1);
	}
	for (i = 0; i < TW_PLACES; i++) {
		lvl = i / bits;
		if (lvl >= levels) {
			w->lvl[i] = TW_LVL_OVERFLOW;
			w->shift[i] = 0;
			w->base[i] = 0;
			continue;
		}
		w->lvl[i] = lvl;
		w->shift[i] = lvl * bits;
		w->base[i] = lvl << bits;
	}
	for (i = 0; i < TW_MAX_BUCKETS; i++)
		INIT_HLIST_HEAD(&w->buckets[i]);
	return 0;
}

/**
 * tw_node_init() - set up a node that is in no wheel
 * @n:	the node
 */
void tw_node_init(struct tw_node *n)
{
	INIT_HLIST_NODE(&n->entry);
	n->expires = 0;
	n->bucket = TW_BUCKET_NONE;
	n->cascades = 0;
	n->flags = 0;
}
