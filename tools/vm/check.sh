#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check`: build everything and run the tests in VMs, on
#   debug-6.12     the 6.12 test kernel (KASAN, lockdep, kmemleak, KUnit...;
#                  built and cached by tools/vm/build-kernel.sh): KUnit +
#                  selftests + checks
#   debug-newest   the same on the newest kernel of Debian's development
#                  suite, with PREEMPT_RT and KCSAN in place of KASAN
#                  (skipped if the suite is unreachable)
#   stock-6.1      Debian 12's own kernel (no KUnit): selftests + load/unload
#   stock-6.12-rt  Debian 12's PREEMPT_RT 6.12 kernel, likewise
# (see tw_select_kernel in lib.sh). Each prints its own counts line.
# stock-6.1 (whose kernel has NO_HZ_FULL) is booted a second time, briefly,
# with its last CPU isolated (nohz_full=) to run selftest twheel_isolated
# alone (guest knob twtests=): label stock-6.1-isolated.
# $KERNELS (or $TW_KERNELS) picks a subset, e.g. KERNELS=stock-6.1 ("debug"
# and "stock" mean debug-6.12 and stock-6.1). Boot limits:
# $TW_TIMEOUT_DEBUG (default 1200 s) and $TW_TIMEOUT_STOCK (600 s).
# The proofs of `make verify` run first (TW_VERIFY, see below).
# The last line of output is "twheel: N passed, N failed, N skipped", summed
# over the kernels and the proofs; the exit status is 1 if anything failed.
set -uo pipefail
# shellcheck source=tools/vm/lib.sh
. "$(dirname "$0")/lib.sh"

VM=$TW_TOP/tools/vm
kernels=${KERNELS:-${TW_KERNELS:-$TW_KERNELS_ALL}}
passed=0 failed=0 skipped=0
t_start=$(date +%s)

summary() {
	tw_log "make check took $(($(date +%s) - t_start))s"
	echo "twheel: $passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
	exit
}
# A stage that failed in a way no test could count.
stage_failed() {
	tw_log "FAILED: $*"
	failed=$((failed + 1))
}

cd "$TW_TOP" || exit 1
tw_lock check # one make check (or make shell build) at a time in this tree
tw_stage "setup (packages, kernel source, stock kernel image)" "$VM/setup.sh" all ||
	{ stage_failed "setup"; summary; }
tw_stage "userspace: selftests, twheelctl, uapi header check" \
	"${MAKE:-make}" --no-print-directory -s tools uapi-check ||
	{ stage_failed "userspace build"; summary; }

# The bench's statistics (bootstrap intervals, the verdict rule): a host
# unit test, one pass or one failure.
if tw_stage "host: bench statistics (tools/bench/test_report_util.py)" \
	python3 "$TW_TOP/tools/bench/test_report_util.py"; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
fi

# The proofs (make verify: ring litmus tests under the kernel memory model,
# the wheel core model-checked), counted into the total: one pass per
# litmus verdict as expected and per CBMC proof, skips when the proof
# tools cannot be had. Run by a full check; with KERNELS picking a subset
# only if TW_VERIFY=1 (TW_VERIFY=0 never).
if [ -n "${KERNELS:-${TW_KERNELS:-}}" ]; then verify=${TW_VERIFY:-0}; else verify=${TW_VERIFY:-1}; fi
if [ "$verify" = 1 ]; then
	vcounts=$TW_BUILD/logs/verify.counts
	mkdir -p "$TW_BUILD/logs"
	rm -f "$vcounts"
	tw_stage "proofs: litmus tests (herd7) and wheel core (cbmc)" \
		"$TW_TOP/tools/verify/run.sh" --counts "$vcounts"
	if [ -f "$vcounts" ] && read -r vp vf vs <"$vcounts"; then
		passed=$((passed + vp)) failed=$((failed + vf)) skipped=$((skipped + vs))
	else
		stage_failed "proofs: no results"
	fi
fi

kunit_py=$TW_SRC/tools/testing/kunit/kunit.py
# boot LABEL: boot $image with $initrd under QEMU ($TW_CMDLINE added to the
# kernel command line) and add its results to the counts.
boot() {
	local name=$1 counts p f s
	# A failed boot is reported by results.py too (no end record).
	tw_stage "$name: boot and test under QEMU" \
		"$VM/run-qemu.sh" -t "$limit" -n "$name" "$image" "$initrd"
	counts=$TW_BUILD/logs/$name.counts
	rm -f "$counts"
	tw_stage "$name: results" python3 "$VM/results.py" --label "$name" \
		--console "$TW_BUILD/logs/$name.console.log" \
		--results "$TW_BUILD/logs/$name.results.log" \
		--kunit "$kunit_py" --counts "$counts"
	# The hardening figures the stress, bad-input and fuzz tests print.
	grep -aE '# (operations performed|bad inputs tried|fuzz iterations|hotplug cycles):|^lost=|twheel_stress_api: ' \
		"$TW_BUILD/logs/$name.console.log" | sed 's/^\[ *[0-9.]*\] *//; s/^/  figure: /' || true
	if [ -f "$counts" ] && read -r p f s <"$counts"; then
		passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	else
		stage_failed "$name: no results"
	fi
}

for k in $kernels; do
	k=$(tw_kind "$k")
	rc=0
	tw_stage "$k: kernel (cached)" tw_select_kernel "$k" || rc=$?
	if [ "$rc" -eq 3 ]; then
		# Not had here (the development suite unreachable): one skip,
		# never a pass.
		tw_log "SKIPPED: $k: kernel not available"
		echo "twheel[$k]: 0 passed, 0 failed, 1 skipped"
		skipped=$((skipped + 1))
		continue
	elif [ "$rc" -ne 0 ]; then
		stage_failed "$k: kernel"
		continue
	fi
	krel=$(tw_kdir_release "$kdir")
	name=$k
	tw_log "=== $name ($krel): $kdir"

	mapfile -t kos < <(tw_stage "$name: build modules in build/mod-$krel" \
		"$VM/build-module.sh" "$kdir" "$TW_BUILD/mod-$krel")
	if [ ${#kos[@]} -eq 0 ]; then
		stage_failed "$name: module build"
		continue
	fi
	initrd=$TW_BUILD/initramfs-$krel.cpio.gz
	tw_stage "$name: initramfs" "$VM/mkinitramfs.sh" "$initrd" "${kos[@]}" ||
		{ stage_failed "$name: initramfs"; continue; }
	boot "$name"
	if [ "$k" = stock-6.1 ] && [ "${TW_SMP:-4}" -gt 1 ]; then
		TW_CMDLINE="${TW_CMDLINE:-} nohz_full=$((${TW_SMP:-4} - 1)) twtests=twheel_isolated" \
			boot "$name-isolated"
	fi
done
summary
