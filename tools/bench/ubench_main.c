// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-ubench: userspace timer benchmark (see ubench.h for the files).
 *
 *   twheel-ubench ops IMPL N SEED	per-timer arm, cancel, delivery, kernel
 *					memory and CPU time of one peer
 *   twheel-ubench peers		the peers ops knows, one per line
 *   twheel-ubench accuracy N SEED	twheel vs timerfd lateness
 *   twheel-ubench idle SECONDS		twheel tick wake-ups per second
 *   twheel-ubench burst N		N ring timers, one deadline: drain time
 *   twheel-ubench exact K HMAX_MS SPREAD_MS
 *					lateness against the horizon, every peer
 */
#include <string.h>

#include "ubench.h"

int main(int argc, char **argv)
{
	int ret = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "ops"))
		ret = ub_ops_main(argc, argv);
	else if (argc == 2 && !strcmp(argv[1], "peers"))
		ret = ub_peers_main();
	else if (argc >= 2 && !strcmp(argv[1], "accuracy"))
		ret = ub_acc_main(argc, argv);
	else if (argc >= 2 && !strcmp(argv[1], "idle"))
		ret = ub_idle_main(argc, argv);
	else if (argc >= 2 && !strcmp(argv[1], "burst"))
		ret = ub_burst_main(argc, argv);
	else if (argc >= 2 && !strcmp(argv[1], "exact"))
		ret = ub_exact_main(argc, argv);
	if (ret == 1)
		fprintf(stderr,
			"usage: twheel-ubench ops IMPL N SEED | peers | accuracy N SEED | idle SECONDS | burst N | exact K HMAX_MS SPREAD_MS\n");
	return ret;
}
