#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make verify`: the proofs of Documentation/verify.rst.
#   1. herd7 with the Linux-kernel memory model (linux-kernel.cat etc. of
#      build/src-6.12/tools/memory-model) on every tools/verify/litmus/*.litmus:
#      each must give the "Result:" its header states (Never for a protocol
#      test, Sometimes for its -broken twin), and a Never test must have no
#      data race.
#   2. cbmc on tools/verify/cbmc/wheel_harness.c + twheel/wheel.c (see
#      tools/verify/cbmc.sh): each proof must give VERIFICATION
#      SUCCESSFUL; and on copies of wheel.c with a planted off-by-one (in
#      the placement rule, in the tick loop), each of which must fail the
#      assertion of the promise it breaks.
# The tools run in the chroot tools/verify/chroot.sh makes (cached under
# build/); without it every proof is reported as skipped, never as passed.
#   run.sh [--counts FILE]   FILE gets "passed failed skipped"
# The last line is "verify: N passed, N failed, N skipped"; the exit status
# is 1 if anything failed.
set -uo pipefail
# shellcheck source=tools/vm/lib.sh
. "$(dirname "$0")/../vm/lib.sh"

VERIFY=$TW_TOP/tools/verify
TW_VERIFY_JOBS=${TW_VERIFY_JOBS:-2}
case $TW_VERIFY_JOBS in ''|*[!0-9]*|0) TW_VERIFY_JOBS=1 ;; esac
counts=
[ "${1:-}" = --counts ] && counts=$2
passed=0 failed=0 skipped=0
t_start=$(date +%s)

pass() { echo "  PASS  $*"; passed=$((passed + 1)); }
fail() { echo "  FAIL  $*"; failed=$((failed + 1)); }
skip() { echo "  SKIP  $*"; skipped=$((skipped + 1)); }

finish() {
	[ -z "$counts" ] || echo "$passed $failed $skipped" >"$counts"
	tw_log "verify: took $(($(date +%s) - t_start))s"
	echo "verify: $passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
	exit
}

litmus=("$VERIFY"/litmus/*.litmus)
cbmc_proofs=$("$VERIFY/cbmc.sh" --list)

lkmm=$TW_SRC/tools/memory-model
if [ ! -f "$lkmm/linux-kernel.cat" ]; then
	"$TW_TOP/tools/vm/setup.sh" source >&2 || true
fi

rc=0
root=$("$VERIFY/chroot.sh") || rc=$?
if [ "$rc" -ne 0 ] || [ ! -f "$lkmm/linux-kernel.cat" ]; then
	why="no proof tools (chroot.sh exit $rc)"
	[ -f "$lkmm/linux-kernel.cat" ] || why="no $lkmm/linux-kernel.cat"
	tw_log "verify: SKIPPED: $why"
	for f in "${litmus[@]}"; do skip "litmus $(basename "$f" .litmus): $why"; done
	for p in $cbmc_proofs; do skip "cbmc $p: $why"; done
	finish
fi
tw_log "verify: tools from $root ($(cat "$root/.twheel-verify-stamp"))"

# The inputs are copied into the chroot's /tmp (no bind mount to undo).
work=/tmp/twheel-verify.$$
rm -rf "${root:?}$work"
mkdir -p "$root$work/lkmm"
trap 'rm -rf "${root:?}$work"' EXIT
cp "$lkmm"/linux-kernel.{cat,bell,def,cfg} "$lkmm"/lock.cat "$root$work/lkmm/"
cp "${litmus[@]}" "$root$work/lkmm/"

echo "litmus tests (herd7, Linux-kernel memory model of $(basename "$TW_SRC")):"
for f in "${litmus[@]}"; do
	name=$(basename "$f" .litmus)
	want=$(sed -n 's/^ \* Result: \([A-Za-z]*\).*/\1/p' "$f" | head -n 1)
	case $name in
	*-broken*) [ "$want" = Sometimes ] || { fail "litmus $name: a -broken twin must state Result: Sometimes"; continue; } ;;
	*) [ "$want" = Never ] || { fail "litmus $name: a protocol test must state Result: Never"; continue; } ;;
	esac
	out=$(chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin sh -c \
		"cd $work/lkmm && timeout 300 herd7 -conf linux-kernel.cfg $name.litmus" 2>&1)
	got=$(sed -n "s/^Observation $name \([A-Za-z]*\) .*/\1/p" <<<"$out")
	race=$(grep -c '^Flag data-race' <<<"$out")
	if [ -z "$got" ]; then
		fail "litmus $name: herd7 gave no verdict: $(tr '\n' ' ' <<<"$out" | cut -c1-300)"
	elif [ "$got" != "$want" ]; then
		fail "litmus $name: $got, expected $want"
	elif [ "$want" = Never ] && [ "$race" -ne 0 ]; then
		fail "litmus $name: Never, but herd7 flags a data race"
	else
		pass "litmus $name: $got (expected $want)$([ "$race" -ne 0 ] && echo ', data race flagged')"
	fi
done

# cbmc is single-threaded: TW_VERIFY_JOBS proofs (default 2) at once,
# reported in the order of the list.
echo "bounded model checking (cbmc, $TW_VERIFY_JOBS at once):"
for p in $cbmc_proofs; do
	while [ "$(jobs -rp | wc -l)" -ge "$TW_VERIFY_JOBS" ]; do wait -n; done
	("$VERIFY/cbmc.sh" "$root" "$work" "$p" >"$root$work/$p.out" 2>&1
	 echo $? >"$root$work/$p.rc") &
done
wait
for p in $cbmc_proofs; do
	cat "$root$work/$p.out"
	case $(cat "$root$work/$p.rc" 2>/dev/null || echo 1) in
	0) pass "cbmc $p" ;;
	3) skip "cbmc $p" ;;
	*) fail "cbmc $p" ;;
	esac
done
finish
