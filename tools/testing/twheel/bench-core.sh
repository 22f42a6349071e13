#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Tier-3 benchmark of the pure twheel core against a binary min-heap
# (java.util.Timer / ScheduledThreadPoolExecutor / libevent style) at
# 1e3..1e6 pending timers with deadlines over 1 ms..1 h (1 ms ticks).
#
#   bench-core.sh [JSON_OUT]
#
# Per op: instructions under callgrind (deterministic; each phase collected
# alone, see bench.c) and wall-clock ns natively. Prints a table; with
# JSON_OUT also writes a JSON array of rows
#   {"impl", "n", "arm_instr", "cancel_instr", "expire_instr",
#    "arm_ns", "cancel_ns", "expire_ns"}
# expire is per expired timer, including the event loop and the wheel's
# cascades. Env: BENCH_NS (pending sizes), BENCH_CG_OPS (ops per phase under
# callgrind, default 10000), BENCH_OPS (natively, default 200000).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
json=${1:-}
ns=${BENCH_NS:-"1000 10000 100000 1000000"}
cg_ops=${BENCH_CG_OPS:-10000}
nat_ops=${BENCH_OPS:-200000}

command -v valgrind >/dev/null || { echo "bench-core: valgrind missing" >&2; exit 1; }
work=$(mktemp -d /tmp/twbench.XXXXXX)
trap 'rm -rf "$work"' EXIT
make -s -C "$here" OUT="$work" "$work/bench"

# total instructions of one callgrind dump
instr() { awk '/^totals:/ { print $2 }' "$1"; }

rows=()
printf '%-6s %8s | %10s %10s %10s | %9s %9s %9s\n' impl n arm_instr \
	cancel_instr expire_instr arm_ns cancel_ns expire_ns
for n in $ns; do
	for impl in wheel heap; do
		# wall clock, native: "impl n ops arm cancel expire expired=N"
		read -r _ _ _ arm_ns cancel_ns expire_ns _ < <(nice "$work/bench" -i "$impl" -n "$n" -k "$nat_ops")
		cg=$work/cg.$impl.$n
		line=$(nice valgrind --tool=callgrind --collect-atstart=no \
			--callgrind-out-file="$cg" "$work/bench" -i "$impl" \
			-n "$n" -k "$cg_ops" 2>/dev/null)
		expired=${line##*expired=}
		arm=$(( $(instr "$cg.1") / cg_ops ))
		cancel=$(( $(instr "$cg.2") / cg_ops ))
		expire=$(( $(instr "$cg.3") / (expired ? expired : 1) ))
		printf '%-6s %8s | %10s %10s %10s | %9s %9s %9s\n' "$impl" "$n" \
			"$arm" "$cancel" "$expire" "$arm_ns" "$cancel_ns" "$expire_ns"
		rows+=("{\"impl\": \"$impl\", \"n\": $n, \"arm_instr\": $arm, \"cancel_instr\": $cancel, \"expire_instr\": $expire, \"arm_ns\": $arm_ns, \"cancel_ns\": $cancel_ns, \"expire_ns\": $expire_ns}")
	done
done

if [ -n "$json" ]; then
	mkdir -p "$(dirname "$json")"
	{
		echo "["
		for i in "${!rows[@]}"; do
			sep=,
			[ "$i" -eq $((${#rows[@]} - 1)) ] && sep=
			echo "  ${rows[$i]}$sep"
		done
		echo "]"
	} >"$json"
	echo "bench-core: wrote $json"
fi
