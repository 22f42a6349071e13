#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`: build what is needed, run the three tiers, report.
#   tools/bench/run.sh          default run (20-30 minutes on 2 busy host
#                               cores)
#   QUICK=1 tools/bench/run.sh  in-kernel up to 1e5, userspace up to 1e4,
#                               no scale test (3-6 minutes)
#   TIER=kernel tools/bench/run.sh  the in-kernel tier only, at the sizes of
#                               the run (QUICK or not): no userspace,
#                               accuracy, idle, burst, scale or core tier
#   TIER=user tools/bench/run.sh    the userspace cost tier alone (at the
#                               sizes of the run; TW_BENCH_PEERS="a b"
#                               limits it to those peers)
#   TIER=cost tools/bench/run.sh    both cost tiers (in-kernel and
#                               userspace, at the sizes of the run) and
#                               nothing else: the ring against the API
#   TIER=burst tools/bench/run.sh   the two bursts alone
#   TIER=exact tools/bench/run.sh   the two exactness runs alone (2-3
#                               minutes; no costs, so no plot)
# Tiers 1 and 2 and the accuracy, idle and scale runs happen in one QEMU
# guest (-smp 4) booted on Debian's stock kernel, with twheel.ko and
# twheel_bench.ko built against its headers; tier 3 is the host-native core
# benchmark, tools/testing/twheel/bench-core.sh. Outputs under build/bench/:
# results.json, bench.png, lateness.png, and the raw guest log.
# Environment: QUICK, TIER (all, kernel, user, cost, exact, burst), TW_BENCH_CPU
# (guest CPU measured, default 1), TW_BENCH_PEERS (userspace peers, default
# all), TW_BENCH_TIMEOUT (guest time limit, s), PROFILE=1 (each burst sampled
# by the host's perf in the guest; build/bench/profile.txt).
set -euo pipefail
# shellcheck source=tools/vm/lib.sh
. "$(dirname "$0")/../vm/lib.sh"

VM=$TW_TOP/tools/vm
BENCH=$TW_TOP/tools/bench
OUT=$TW_BUILD/bench
QUICK=${QUICK:-0}
TIER=${TIER:-all}
PROFILE=${PROFILE:-0}
case "$PROFILE" in
0 | 1) ;;
*) tw_die "PROFILE=$PROFILE: expected 0 or 1" ;;
esac
case "$TIER" in
all | kernel | user | cost | exact | burst) ;;
*) tw_die "TIER=$TIER: expected all, kernel, user, cost, exact or burst" ;;
esac
[[ ${TW_BENCH_PEERS:-} =~ ^[a-z0-9_\ ]*$ ]] ||
	tw_die "TW_BENCH_PEERS=$TW_BENCH_PEERS: expected peer names separated by spaces"
mkdir -p "$OUT"
rm -f "$OUT/profile.txt"
cd "$TW_TOP"

# ------------------------------------------------------------ sizes
if [ "$QUICK" = 1 ]; then
	cat >"$OUT/bench.conf" <<-EOF
		KERNEL_NS="1000 10000 100000"
		REPS=5
		BIG_N=0
		USER_NS="1000 10000"
		ACC_N=10000
		IDLE_S=5
		SCALE_N=0
		EXACT_K=500
		EXACT_HMAX_MS=10000
		EXACT_SPREAD_MS=1000
	EOF
	mem=2G limit=${TW_BENCH_TIMEOUT:-600}
else
	cat >"$OUT/bench.conf" <<-EOF
		KERNEL_NS="1000 10000 100000"
		REPS=5
		BIG_N=1000000
		BIG_REPS=5
		USER_NS="1000 10000"
		USER_BIG_N=100000
		ACC_N=10000
		IDLE_S=5
		SCALE_N=10000000
		EXACT_K=1000
		EXACT_HMAX_MS=60000
		EXACT_SPREAD_MS=2000
	EOF
	mem=4G limit=${TW_BENCH_TIMEOUT:-3600}
fi
{
	echo "CPU=${TW_BENCH_CPU:-1}"
	echo "TIER=$TIER"
	echo "ONLY_PEERS=\"${TW_BENCH_PEERS:-}\""
	echo "PROFILE=$PROFILE"
} >>"$OUT/bench.conf"

# ------------------------------------------------------------ build
t0=$(date +%s)
tw_stage "stock kernel image" "$VM/setup.sh" stock
kdir=$(tw_stock_headers 6.1) || tw_die "no Debian linux-headers-*-amd64"
krel=$(tw_kdir_release "$kdir")
image=$(tw_stock_dir 6.1)/vmlinuz
mod=$OUT/mod-$krel

# A failed build must not leave the bench to load the last run's modules.
list=$(TW_TESTHOOKS=0 "$VM/build-module.sh" "$kdir" "$mod") ||
	tw_die "twheel.ko build failed for $krel"
mapfile -t built <<<"$list"
kos=()
for ko in "${built[@]}"; do
	case "$(basename "$ko")" in
	twheel.ko | twheel_bench.ko) kos+=("$ko") ;;
	esac
done
[ -f "$mod/twheel.ko" ] || tw_die "twheel.ko was not built for $krel"
# twheel_bench.ko: from the top-level Kbuild if it lists it, else as its own
# external module against twheel.ko's symbols.
if [ ! -f "$mod/twheel_bench.ko" ] || [ ${#kos[@]} -lt 2 ]; then
	tw_log "modules: twheel_bench.ko (M=$mod/tools/bench)"
	make -C "$kdir" M="$mod/tools/bench" KBUILD_EXTRA_SYMBOLS="$mod/Module.symvers" \
		-j2 modules >"$OUT/bench-module.log" 2>&1 || {
		tail -n 30 "$OUT/bench-module.log" >&2
		tw_die "twheel_bench.ko build failed"
	}
	kos=("$mod/twheel.ko" "$mod/tools/bench/twheel_bench.ko")
fi

# Peers: liburing (liburing-dev) and libuv (libuv1-dev's libuv_a.a), both
# static: the guest is a busybox initramfs without a dynamic loader;
# libtwheel (twheel_ring) from its source.
tw_log "userspace: twheel-ubench (static, liburing + libuv + libtwheel)"
${CC:-gcc} -Wall -Wextra -O2 -I uapi -I tools/lib/twheel -o "$OUT/twheel-ubench" \
	"$BENCH"/ubench_*.c tools/lib/twheel/twheel.c -static -pthread -luring -luv_a -ldl \
	2> >(grep -vE 'statically linked applications|: in function' >&2) ||
	tw_die "twheel-ubench build failed (liburing-dev, libuv1-dev: make setup)"
for p in ${TW_BENCH_PEERS:-}; do
	"$OUT/twheel-ubench" peers | grep -qx "$p" ||
		tw_die "TW_BENCH_PEERS: no peer $p (peers: $("$OUT/twheel-ubench" peers | tr '\n' ' '))"
done

# PROFILE=1: the host's perf and every shared library it loads (the guest
# has no others), at the paths the dynamic loader looks for them.
extra=
if [ "$PROFILE" = 1 ]; then
	perf=$(command -v perf) || tw_die "PROFILE=1: no perf on the host (apt-get install linux-perf)"
	perf=$(readlink -f "$perf")
	ldd "$perf" >/dev/null 2>&1 ||
		tw_die "PROFILE=1: $perf is not a dynamically linked program (a wrapper script?)"
	for lib in $(ldd "$perf" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'); do
		extra+=" $(readlink -f "$lib"):$lib"
	done
	extra+=" $perf:/bin/perf"
fi

initrd=$OUT/initramfs-$krel.cpio.gz
TW_INITRAMFS_EXTRA="$OUT/twheel-ubench:/bin/twheel-ubench $BENCH/guest-bench.sh:/etc/twheel/hooks/bench.sh $OUT/bench.conf:/etc/twheel/bench.conf$extra" \
	"$VM/mkinitramfs.sh" "$initrd" "${kos[@]}"

# ------------------------------------------------------------ guest tiers
if grep -qwE 'vmx|svm' /proc/cpuinfo && { : <>/dev/kvm; } 2>/dev/null; then
	accel=kvm
else
	accel=tcg
fi
label=bench-$krel
# Host load and CPU accounting before and after the guest (report.py turns
# the /proc/stat lines into steal and busy shares of the window).
load0=$(cut -d' ' -f1-3 /proc/loadavg)
stat0=$(grep '^cpu ' /proc/stat)
w0=$(date +%s.%N)
# Under TCG the guest's TSC fails its watchdog and the kernel falls back to
# the HPET, whose every read is an emulated MMIO access costing microseconds:
# that would measure QEMU, not the timer code. Real machines read the TSC.
TW_CMDLINE="tsc=reliable clocksource=tsc ${TW_CMDLINE:-}" \
	TW_SMP=4 TW_MEM=$mem tw_stage "guest: in-kernel, userspace, accuracy, idle, scale" \
	"$VM/run-qemu.sh" -m bench -t "$limit" -n "$label" "$image" "$initrd"
load1=$(cut -d' ' -f1-3 /proc/loadavg)
stat1=$(grep '^cpu ' /proc/stat)
w1=$(date +%s.%N)
cp "$TW_BUILD/logs/$label.results.log" "$OUT/guest.results.log"
cp "$TW_BUILD/logs/$label.console.log" "$OUT/guest.console.log"
if [ "$PROFILE" = 1 ]; then
	sed -n 's/^PROFILE //p' "$OUT/guest.console.log" | tr -d '\r' >"$OUT/profile.txt"
	tw_log "profile: $OUT/profile.txt ($(wc -l <"$OUT/profile.txt") lines)"
fi
# A failed guest step still leaves a report of the others; `make bench`
# fails after writing it.
guest_failed=0
if grep -q '^TW|check|not ok|' "$OUT/guest.results.log"; then
	grep '^TW|check|not ok|' "$OUT/guest.results.log" | sed 's/^/  guest: /' >&2
	guest_failed=1
fi

# ------------------------------------------------------------ host core tier
core=$OUT/core.json
: >"$core"
if [ "$TIER" != all ]; then
	tw_log "core tier: skipped (TIER=$TIER)"
elif [ -x "$TW_TOP/tools/testing/twheel/bench-core.sh" ]; then
	[ "$QUICK" = 1 ] && export BENCH_NS="1000 10000 100000"
	tw_stage "host-native core (callgrind)" \
		nice "$TW_TOP/tools/testing/twheel/bench-core.sh" "$core" >"$OUT/core.txt" ||
		tw_log "core tier failed; reported as not run"
else
	tw_log "core tier: tools/testing/twheel/bench-core.sh not present; skipped"
fi

# ------------------------------------------------------------ report
python3 "$BENCH/report.py" --results "$OUT/guest.results.log" --core "$core" \
	--out "$OUT" --accel "$accel" --quick "$QUICK" \
	--host-load "before: $load0; after: $load1; host cpus: $(nproc)" \
	--host-stat "$stat0" --host-stat "$stat1" --host-window "$w0 $w1"
tw_log "bench finished in $(($(date +%s) - t0))s"
[ "$guest_failed" = 0 ] || tw_die "the guest reported failed steps (above); the report covers the others"
