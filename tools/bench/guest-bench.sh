#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of `make bench`: installed as /etc/twheel/hooks/bench.sh and run
# by tools/vm/guest-init.sh (twmode=bench) after twheel.ko and
# twheel_bench.ko are loaded. Sizes come from /etc/twheel/bench.conf (made
# by tools/bench/run.sh). Every measurement is one "RESULT kind k=v..." line
# on stdout; tools/bench/report.py turns them into tables and JSON.
# shellcheck shell=sh

# shellcheck source=/dev/null
. /etc/twheel/bench.conf
: "${KERNEL_NS:=1000 10000}" "${USER_NS:=1000}" "${REPS:=3}" "${BIG_REPS:=1}"
: "${BIG_N:=1000000}" "${ACC_N:=10000}" "${IDLE_S:=5}" "${SCALE_N:=0}"
: "${USER_BIG_N:=0}" "${BURST_N:=100000}"
: "${EXACT_K:=1000}" "${EXACT_HMAX_MS:=10000}" "${EXACT_SPREAD_MS:=1000}"
: "${UEXACT_K:=$EXACT_K}"
: "${CPU:=1}" "${TIER:=all}" "${ONLY_PEERS:=}" "${PROFILE:=0}"
# TIER=kernel: the in-kernel tier alone.
if [ "$TIER" = kernel ]; then
	USER_NS='' USER_BIG_N=0 ACC_N=0 IDLE_S=0 BURST_N=0 SCALE_N=0 UEXACT_K=0
fi
# TIER=user: the userspace cost tier alone.
if [ "$TIER" = user ]; then
	KERNEL_NS='' BIG_N=0 ACC_N=0 IDLE_S=0 BURST_N=0 SCALE_N=0 EXACT_K=0
	UEXACT_K=0
fi
# TIER=cost: both cost tiers alone.
if [ "$TIER" = cost ]; then
	ACC_N=0 IDLE_S=0 BURST_N=0 SCALE_N=0 EXACT_K=0 UEXACT_K=0
fi
# TIER=burst: the bursts alone.
if [ "$TIER" = burst ]; then
	KERNEL_NS='' BIG_N=0 USER_NS='' USER_BIG_N=0 ACC_N=0 IDLE_S=0 SCALE_N=0
	EXACT_K=0 UEXACT_K=0
fi
# TIER=exact: the two exactness runs alone.
if [ "$TIER" = exact ]; then
	KERNEL_NS='' BIG_N=0 USER_NS='' USER_BIG_N=0 ACC_N=0 IDLE_S=0 BURST_N=0
	SCALE_N=0
fi

CTL=/sys/kernel/debug/twheel_bench/ctl
PARAMS=/sys/module/twheel/parameters
log() { echo "bench: $*" >&2; }
# A step that failed is said at once and counted; the hook then goes on with
# the other steps (a partial report is still a report) and exits non-zero.
FAILS=0
fail() { log "$*"; FAILS=$((FAILS + 1)); }

# PROFILE=1: run "$@" while perf samples every CPU (cpu-clock, 1 kHz, call
# chains), then print its report as "PROFILE $1: ..." lines: the samples by
# task and function, and the call chains of the kernel workers (where twheel's
# runners run), leaf first. Time with interrupts off (a base lock, the tick
# hrtimer) is sampled when they are enabled again: it shows on the function
# that enables them, such as _raw_spin_unlock_irq. Otherwise just "$@".
profiled() {
	name=$1
	shift
	if [ "$PROFILE" != 1 ]; then
		"$@"
		return
	fi
	if [ ! -x /bin/perf ]; then
		log "$name: no /bin/perf in the guest, not profiled"
		"$@"
		return
	fi
	data=/tmp/perf-$name.data
	perf record -q -a -g -e cpu-clock -F 1000 -o "$data" &
	perf_pid=$!
	sleep 1
	rc=0
	"$@" || rc=$?
	kill -INT "$perf_pid"
	wait "$perf_pid"
	{
		echo "== samples by task and function (self), idle left out"
		perf report -i "$data" --stdio --no-children -n --sort comm,sym \
			-g none 2>/dev/null | grep '%' | grep -v swapper | head -40
		echo "== kernel workers: samples by call chain (leaf first, 5 deep)"
		perf script -i "$data" -F comm,ip,sym 2>/dev/null | awk '
function flush(	k, i) {
	if (comm ~ /^kworker/ && n > 0) {
		k = st[0]
		for (i = 1; i < n; i++)
			k = k "<" st[i]
		c[k]++
	}
	n = 0
}
/^[^ \t]/ || /^ +[^ ]+ *$/ { flush(); comm = $1; next }
/^[ \t]+[0-9a-f]+ / { if (n < 5) st[n++] = $2; next }
/^$/ { flush() }
END { flush(); for (k in c) print c[k], k }' | sort -rn | head -30
	} | sed "s/^/PROFILE $name: /"
	rm -f "$data"
	return "$rc"
}

echo "RESULT env kernel=$(uname -r) cpus=$(nproc) mem_kb=$(awk '/MemTotal/ {print $2}' /proc/meminfo)"
# The guest's own CPU accounting, before and after: steal is time the host
# did not run a vCPU that wanted to run (columns of /proc/stat's cpu line).
guest_stat() {
	awk -v w="$1" '$1 == "cpu" {print "RESULT gueststat when=" w " user=" $2 " nice=" $3 " system=" $4 " idle=" $5 " iowait=" $6 " irq=" $7 " softirq=" $8 " steal=" $9}' /proc/stat
}
guest_stat before
[ -w "$CTL" ] || { log "no $CTL: twheel_bench.ko not loaded"; exit 1; }
echo "RESULT info $(tr '\n' ' ' </sys/kernel/debug/twheel_bench/info)"
echo "$CPU" >/sys/module/twheel_bench/parameters/bench_cpu

# The userspace peers: every one twheel-ubench knows, or those of
# TW_BENCH_PEERS (run.sh checked them), checked before any tier runs.
PEERS=$(twheel-ubench peers | tr '\n' ' ')
# shellcheck disable=SC2086,SC2116 # split into words, blanks dropped
ONLY_PEERS=$(echo $ONLY_PEERS)
if [ -n "$ONLY_PEERS" ]; then
	only=
	for p in $ONLY_PEERS; do
		case " $PEERS " in
		*" $p "*) ;;
		*) log "TW_BENCH_PEERS: no peer $p (peers: $PEERS)"; exit 1 ;;
		esac
		case " $only " in *" $p "*) ;; *) only="$only $p" ;; esac
	done
	PEERS=$only
fi

# Lift twheel's caps on pending timers for the userspace and scale runs.
for p in max_timers max_timers_per_fd max_timers_per_user; do
	[ -w "$PARAMS/$p" ] && echo 100000000 >"$PARAMS/$p"
done

# Idle first, while nothing at all is pending.
if [ "$IDLE_S" -gt 0 ]; then
	log "idle wake-ups over ${IDLE_S}s, twice"
	twheel-ubench idle "$IDLE_S" || fail "idle failed (exit $?)"
fi

# rotate WORDS...: print the words starting at position $ROT (interleaving).
rotate() {
	r=$((ROT % $#))
	i=0
	head=
	rest=
	for w in "$@"; do
		if [ "$i" -lt "$r" ]; then rest="$rest $w"; else head="$head $w"; fi
		i=$((i + 1))
	done
	echo "$head $rest"
}

# Tier 1: in-kernel. Same seed for every implementation of a repetition;
# one command runs them all, interleaved round by round in an order that
# rotates with the round (kb_run()), and leaves one result line each.
kernel_run() { # N REP
	if echo "runall $1 $(($2 + 1))" >"$CTL"; then
		sed "s/^/RESULT inkernel rep=$2 /" "$CTL"
	else
		fail "runall $1 failed: $(cat "$CTL")"
	fi
}
for rep in $(seq 0 $((REPS - 1))); do
	for n in $KERNEL_NS; do
		log "in-kernel n=$n rep=$rep"
		kernel_run "$n" "$rep"
	done
done
if [ "$BIG_N" -gt 0 ]; then
	for rep in $(seq 0 $((BIG_REPS - 1))); do
		log "in-kernel n=$BIG_N rep=$rep"
		kernel_run "$BIG_N" "$rep"
	done
fi

# Exactness, in-kernel: EXACT_K timers of every peer at every horizon up to
# EXACT_HMAX_MS, armed over EXACT_SPREAD_MS, all at once (kbench_exact.c).
if [ "$EXACT_K" -gt 0 ]; then
	log "exactness in-kernel: $EXACT_K timers per peer and horizon, up to ${EXACT_HMAX_MS} ms"
	if echo "exact $EXACT_K 1 $EXACT_HMAX_MS $EXACT_SPREAD_MS" >"$CTL"; then
		cat /sys/kernel/debug/twheel_bench/exact
	else
		fail "exact failed: $(cat "$CTL")"
	fi
fi

# Tier 2: userspace, on the same CPU, interleaved like tier 1: every peer of
# $PEERS (above), in an order rotating per repetition.
log "userspace peers: $PEERS"
user_run() { # N REP
	ROT=$2
	# shellcheck disable=SC2086
	for impl in $(rotate $PEERS); do
		# Not in a pipe: its exit status counts.
		out=$(taskset -c "$CPU" twheel-ubench ops "$impl" "$1" $(($2 + 1))) ||
			fail "userspace $impl n=$1 failed (exit $?)"
		[ -z "$out" ] || echo "$out" | sed "s/^RESULT user /RESULT user rep=$2 /"
	done
}
for rep in $(seq 0 $((REPS - 1))); do
	for n in $USER_NS; do
		log "userspace n=$n rep=$rep"
		user_run "$n" "$rep"
	done
done
if [ "$USER_BIG_N" -gt 0 ]; then
	for rep in $(seq 0 $((BIG_REPS - 1))); do
		log "userspace n=$USER_BIG_N rep=$rep"
		user_run "$USER_BIG_N" "$rep"
	done
fi

# Burst: BURST_N timers with one deadline, through the ring and through
# ABI 1 (each peer's consumer), beside a timerfd control on another CPU;
# the peer table decides whether the ring is benchmarked at all.
if [ "$BURST_N" -gt 0 ]; then
	for impl in twheel_ring twheel_batch; do
		echo "$PEERS" | grep -qw "$impl" || continue
		log "burst: $BURST_N $impl timers, one deadline"
		profiled "burst-$impl" taskset -c "$CPU" twheel-ubench burst \
			"$BURST_N" "$impl" || fail "burst $impl failed (exit $?)"
	done
fi

# Exactness, userspace: the same horizons through every userspace peer at its
# documented best, one thread each, all at once (ubench_exact.c).
if [ "$UEXACT_K" -gt 0 ]; then
	log "exactness userspace: $UEXACT_K timers per peer and horizon, up to ${EXACT_HMAX_MS} ms"
	twheel-ubench exact "$UEXACT_K" "$EXACT_HMAX_MS" "$EXACT_SPREAD_MS" ||
		fail "userspace exactness failed (exit $?)"
fi

if [ "$ACC_N" -gt 0 ]; then
	log "accuracy: $ACC_N timers, twheel and timerfd in the same run"
	twheel-ubench accuracy "$ACC_N" 1 || fail "accuracy failed (exit $?)"
fi

if [ "$SCALE_N" -gt 0 ]; then
	log "scale: $SCALE_N twheel timers through the in-kernel API"
	before=$(awk '/MemAvailable/ {print $2}' /proc/meminfo)
	if echo "scale $SCALE_N 1" >"$CTL"; then
		arm=$(sed -n 's/.* arm_ns=\([0-9.]*\).*/\1/p' "$CTL")
		after=$(awk '/MemAvailable/ {print $2}' /proc/meminfo)
		echo release >"$CTL"
		cancel=$(sed -n 's/.* cancel_ns=\([0-9.]*\).*/\1/p' "$CTL")
		echo "RESULT scale impl=twheel n=$SCALE_N mem_kb=$((before - after)) arm_ns=$arm cancel_ns=$cancel"
	else
		fail "scale failed: $(cat "$CTL")"
	fi
fi
guest_stat after
if [ "$FAILS" -gt 0 ]; then
	log "done: $FAILS step(s) failed"
	exit 1
fi
log "done"
