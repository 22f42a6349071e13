#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The CBMC proofs of the wheel core, run by tools/verify/run.sh.
#   cbmc.sh --list                 the proofs' names
#   cbmc.sh ROOT WORK NAME         run proof NAME with the chroot ROOT's
#                                  cbmc, in ROOT/WORK
# Exit status: 0 proven (or, for a planted bug, caught), 1 not.
#
# twheel/wheel_init.c and wheel.c are copied byte for byte (cmp) next to a copy of wheel.h
# that differs in two ways, both checked below:
#  - the capacity macros are the proof's geometry: TW_MAX_BITS = BITS and
#    TW_MAX_LEVELS = LEVELS, so that the bucket array has LEVELS << BITS
#    heads, not 512, and a wheel of BITS x LEVELS is the largest the copy
#    allows (tw_wheel_init() accepts it; TW_LVL_OVERFLOW is then LEVELS);
#  - the three kinds of list head of struct tw_wheel (buckets, overflow,
#    scanned) are pointer fields to objects of their own, given by the
#    harness, and "overflow"/"scanned" are macros for those objects: the
#    code's expressions (w->buckets[b], &w->overflow, w->scanned.first)
#    are unchanged and mean the same heads. Without this, CBMC's pointer
#    analysis cannot tell a pprev pointer at &w->overflow.first from one
#    at &w->scanned.first (same object, two offsets) and models every
#    store through it as a byte-level update of the whole struct
#    tw_wheel: the formula of one node and one operation needed more than
#    9 GB. TW_PLACES stays 64: tw_process_upper() indexes the placement
#    tables by __ffs64(clk | TW_MAX_TICK), up to 62, whatever the ticks.
# Both are preprocessed on the host (gcc -E, the host shim of
# tools/testing/twheel with tools/verify/cbmc/include in front) and checked
# by cbmc on the whole program at once, with CBMC's default checks (array
# bounds, pointers, undefined shifts, ...) beside the harness's assertions,
# and --unwinding-assertions, so that the loop bounds below are proven
# sufficient: a bound too small is a failed proof, never a silent cut.
set -uo pipefail
# shellcheck source=tools/vm/lib.sh
. "$(dirname "$0")/../vm/lib.sh"

# name:BITS:LEVELS:NODES:SCRIPT:TICK_BITS:ADVANCE:extra
# SCRIPT is the harness's: A arm, C cancel, V advance, B budgeted advance,
# F forward, T take, K cascade, E advance to the last tick, ? any of A C V F; the node and
# every tick are nondeterministic. ADVANCE is the unwinding of the tick
# loop of tw_wheel_advance_budget() (its loop 1): one advance visits at most ADVANCE - 1
# ticks (proven sufficient, else the proof fails). Every tick is below 2^TICK_BITS; extra HIGH: or in
# the 2^TICK_BITS ticks before TW_MAX_TICK, or above it (saturation).
# extra PLANT-LEVEL, PLANT-EARLY, PLANT-TAKE: a planted bug (below), which must be
# caught.
# The longest first: run.sh runs TW_VERIFY_JOBS of them at once.
PROOFS="wheel-two-nodes:2:2:2:AAV:5:6:
wheel-two-nodes-cancel:2:2:2:AACV:5:6:
wheel-arm-advance:2:2:1:AVAV:6:4:HIGH
wheel-budget:2:2:1:ABE:6:4:
wheel-cancel-forward:2:2:1:ACFAV:6:5:
wheel-take:2:2:2:AATV:5:6:
wheel-cascade:2:2:1:AVKV:6:5:
take-beyond-turn:2:2:1:AVT:5:6:PLANT-TAKE
placement-off-by-one:2:2:1:AV:6:4:PLANT-LEVEL
expiry-off-by-one:2:2:1:AV:6:4:PLANT-EARLY"

if [ "${1:-}" = --list ]; then
	cut -d: -f1 <<<"$PROOFS"
	exit 0
fi
root=$1 work=$2 name=$3
line=$(grep "^$name:" <<<"$PROOFS") || { echo "cbmc.sh: no proof $name" >&2; exit 1; }
IFS=: read -r _ bits levels nodes script tbits adv extra <<<"$line"
steps=${#script}

src=$TW_TOP/twheel
dir=$root$work/cbmc-$name
mkdir -p "$dir/src"
for f in wheel_init.c wheel.c; do
	cp "$src/$f" "$dir/src/$f"
	cmp -s "$src/$f" "$dir/src/$f" || exit 1
done
sed -e "s/^#define TW_MAX_BITS\t\t.*/#define TW_MAX_BITS\t\t$bits/" \
	-e "s/^#define TW_MAX_LEVELS\t\t8\$/#define TW_MAX_LEVELS\t\t$levels/" \
	-e 's/^\tstruct hlist_head\tbuckets\[TW_MAX_BUCKETS\];$/\tstruct hlist_head\t*buckets;/' \
	-e 's/^\tstruct hlist_head\toverflow;$/\tstruct hlist_head\t*overflow_head;/' \
	-e 's/^\tstruct hlist_head\tscanned;$/\tstruct hlist_head\t*scanned_head;/' \
	-e 's/^int tw_wheel_init(/#define TW_HEADS_APART\n#define overflow overflow_head[0]\n#define scanned scanned_head[0]\n\n&/' \
	"$src/wheel.h" >"$dir/src/wheel.h"
if [ "$(diff "$src/wheel.h" "$dir/src/wheel.h" | grep -c '^>')" -ne 9 ]; then
	echo "    cbmc $name: wheel.h no longer declares TW_MAX_BITS, TW_MAX_LEVELS and the list heads of struct tw_wheel as expected"
	exit 1
fi
defs=(-DBITS="$bits" -DLEVELS="$levels" -DNODES="$nodes" -DSCRIPT="\"$script\"" -DTICK_BITS="$tbits")
ticks="ticks < 2^$tbits"
if [ "$extra" = HIGH ]; then
	defs+=(-DTICK_HIGH)
	ticks+=" or >= TW_MAX_TICK - 2^$tbits"
fi
# plant LINE NEW WHAT PROMISE: replace the one line LINE of the copies of
# wheel_init.c and wheel.c; the harness's assertion PROMISE must fail.
plant() {
	local f
	if [ "$(cat "$dir/src/wheel_init.c" "$dir/src/wheel.c" | grep -cxF -- "$1")" -ne 1 ]; then
		echo "    cbmc $name: $3 is not where the planted bug expects it"
		exit 1
	fi
	f=$(grep -lxF -- "$1" "$dir/src/wheel_init.c" "$dir/src/wheel.c")
	sed -i "s|^$1\$|$2|" "$f"
	cmp -s "$src/$(basename "$f")" "$f" && exit 1
	bug=$3 promise=$4
}
bug=
case $extra in
PLANT-LEVEL)
	# The level of a deadline one too high whenever its highest bit
	# differing from the clock is the top bit of a level.
	plant '		lvl = i / bits;' '		lvl = (i + 1) / bits;' \
		"the placement rule of tw_wheel_init()" \
		"on time: every due node comes out" ;;
PLANT-EARLY)
	# The tick after @now processed as well: its nodes one tick early.
	plant '	for (; tick <= now; tick = __tw_wheel_next(w)) {' \
		'	for (; tick <= now + 1; tick = __tw_wheel_next(w)) {' \
		"the tick loop of tw_wheel_advance_budget()" "never early" ;;
PLANT-TAKE)
	# A bucket found for a tick of a later turn: other ticks' nodes out.
	plant '	if ((tick ^ w->clk) > w->mask)' \
		'	if (0)' \
		"the turn check of tw_wheel_bucket()" \
		"take: the bucket is found exactly when it holds the tick's nodes" ;;
esac
for f in "$TW_TOP/tools/verify/cbmc/wheel_harness.c" "$dir/src/wheel_init.c" "$dir/src/wheel.c"; do
	gcc -E -std=gnu11 "${defs[@]}" -iquote "$dir/src" \
		-I "$TW_TOP/tools/verify/cbmc/include" -I "$TW_TOP/tools/testing/twheel/include" \
		-I "$TW_TOP/include" "$f" >"$dir/$(basename "$f" .c).i" || exit 1
done

# Unwinding (CBMC counts the loop test: a loop whose body runs at most N
# times needs N + 1): lists of nodes N + 1; the bitmap scan of
# tw_wheel_next() LEVELS + 2 (bitmap[LEVELS] ends it); the walks over the
# levels above 0 LEVELS; the init tables their sizes (TW_PLACES is 64);
# the advance loop ADVANCE. Any loop not named gets 1: it must not loop.
n=$nodes l=$levels
unwind="main.0:$((n + 1)),main.1:$((steps + 1))"
unwind+=",tw_wheel_init.0:$((l + 2)),tw_wheel_init.1:$((l + 1)),tw_wheel_init.2:65"
unwind+=",tw_wheel_init.3:$(((l << bits) + 1))"
unwind+=",nr_armed.0:$((n + 1)),check_state.0:$((n + 1)),node_index.0:$((n + 1))"
unwind+=",check_expired.0:$((n + 1)),check_expired.1:$((n + 1))"
unwind+=",__tw_wheel_next.0:$((l + 2)),tw_next_on_boundary.0:$l,tw_process_upper.0:$l"
unwind+=",tw_cascade.0:$((n + 1)),tw_pull_overflow.0:$((n + 1))"
unwind+=",tw_cut_some.0:$((n + 1))"
unwind+=",op_take.0:$((n + 1)),op_take.1:$((n + 1)),op_take.2:$((n + 1))"
# Loop 0 of tw_wheel_take() finds the end of the caller's list.
unwind+=",tw_wheel_take.0:$((n + 1))"
# Loop 0 of tw_wheel_advance_budget() finds the end of the caller's list.
unwind+=",tw_wheel_advance_budget.0:$((n + 1))"
unwind+=",tw_wheel_advance_budget.1:$adv"
indent() { while IFS= read -r l; do echo "      $l"; done <<<"$1"; }
log=$dir.log
tm=$dir.time
rm -f "$tm"
# Time and peak memory by GNU time where it is installed.
timer=()
[ -x /usr/bin/time ] && timer=(/usr/bin/time -f '%e %U %M' -o "$tm")
t0=$(date +%s)
# Bounded: memory (the machine is shared), time and priority.
(
	ulimit -v "${TW_CBMC_MEM_KB:-8000000}"
	exec "${timer[@]}" chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin \
		timeout "${TW_CBMC_TIMEOUT:-600}" nice -n 10 cbmc "$work/cbmc-$name/wheel_harness.i" \
		"$work/cbmc-$name/wheel_init.i" "$work/cbmc-$name/wheel.i" --slice-formula \
		--unwind 1 --unwindset "$unwind" --unwinding-assertions
) >"$log" 2>&1
rc=$?
secs=$(($(date +%s) - t0)) cpu='' kb=''
[ -s "$tm" ] && read -r secs cpu kb < <(tail -n 1 "$tm")
cost="${secs}s$([ -n "$cpu" ] && echo " (CPU ${cpu}s)"), $([ -n "$kb" ] && echo "$((kb / 1024)) MB" || echo "memory not measured")"
cp "$log" "$TW_BUILD/verify-cbmc-$name.log" 2>/dev/null
geom="BITS=$bits LEVELS=$levels (horizon $((1 << (bits * levels))) ticks), $ticks, $nodes node(s), operations $script, advances visiting <= $((adv - 1)) ticks"
failed=$(grep -E '^\[.*\] .*: FAILURE$' "$log" | head -n 3)
if [ -n "$bug" ]; then
	# Caught only when the harness's assertion of the promise the bug
	# breaks fails, not by a loop bound nor by a default check alone.
	viol=$(grep -E '^\[(check_[a-z_]*|op_[a-z_]*|run_op|main)\.assertion\.[0-9]+\] ' "$log" |
		grep ': FAILURE$' | sed 's/^\[[^]]*\] line [0-9]* //; s/: FAILURE$//')
	if [ "$rc" -eq 10 ] && grep -q 'VERIFICATION FAILED' "$log" &&
		grep -qxF -- "$promise" <<<"$viol"; then
		echo "    cbmc $name: planted bug in $bug caught, \"$promise\" fails ($cost; $geom); all that fail:"
		indent "$viol"
		exit 0
	fi
	echo "    cbmc $name: planted bug in $bug NOT caught: \"$promise\" does not fail (cbmc exit $rc, $cost; log $TW_BUILD/verify-cbmc-$name.log)"
	[ -z "$viol" ] || indent "$viol"
	exit 1
fi
if [ "$rc" -eq 0 ] && grep -q 'VERIFICATION SUCCESSFUL' "$log"; then
	echo "    cbmc $name: all $(grep -oE '[0-9]+ of [0-9]+ failed' "$log" | tail -n 1 | sed 's/.* of //; s/ failed//') properties proven ($cost; $geom)"
	exit 0
fi
echo "    cbmc $name: NOT proven (cbmc exit $rc, $cost; log $TW_BUILD/verify-cbmc-$name.log)"
[ -z "$failed" ] || indent "$failed"
exit 1
