#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot a kernel with a twheel initramfs under QEMU.
#   run-qemu.sh [-m MODE] [-t SECONDS] [-n LABEL] KERNEL INITRD
#   -m MODE     twmode for the guest /init: check (default), shell, or a hook
#   -t SECONDS  hard limit for the whole boot (default $TW_TIMEOUT or 1200)
#   -n LABEL    log names: build/logs/LABEL.console.log (ttyS0, the console)
#               and build/logs/LABEL.results.log (ttyS1, "TW|" records)
# Non-interactive modes fail (exit 1, console tail printed) on a timeout, a
# panic (panic=-1 reboots, -no-reboot then exits) or a missing end record;
# a guest lost inside a suspend to RAM with nothing wrong before it is
# booted once more first (lost_in_s3() below).
# shell mode puts the console on this terminal (Ctrl-a x quits QEMU).
# TCG unless the CPU has vmx/svm and /dev/kvm opens. Extra kernel parameters:
# $TW_CMDLINE; vCPUs/memory: $TW_SMP (4) / $TW_MEM (2G). A guest left in a
# suspend to RAM for $TW_SUSPEND_MAX (40) s is woken (qmp-watch.py,
# build/logs/LABEL.harness.log). A guest that has not written /init's
# first record within $TW_BOOT_MAX (300; 0: never) s is stuck before any
# twheel code ran: it is stopped and booted once more (stuck_early()
# below). One boot more at most in a run, for either reason.
set -euo pipefail
# shellcheck source=tools/vm/lib.sh
. "$(dirname "$0")/lib.sh"

mode=check
limit=${TW_TIMEOUT:-1200}
boot_max=${TW_BOOT_MAX:-300}
[[ $boot_max =~ ^[0-9]+$ ]] || tw_die "TW_BOOT_MAX=$boot_max: expected whole seconds (0: no limit)"
label=
while getopts m:t:n: opt; do
	case $opt in
	m) mode=$OPTARG ;;
	t) limit=$OPTARG ;;
	n) label=$OPTARG ;;
	*) tw_die "usage: $0 [-m MODE] [-t SECONDS] [-n LABEL] KERNEL INITRD" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || tw_die "usage: $0 [-m MODE] [-t SECONDS] [-n LABEL] KERNEL INITRD"
kernel=$1 initrd=$2
[ -f "$kernel" ] || tw_die "kernel image $kernel missing"
[ -f "$initrd" ] || tw_die "initramfs $initrd missing"
label=${label:-$(basename "$kernel")-$mode}

logdir=$TW_BUILD/logs
mkdir -p "$logdir"
console=$logdir/$label.console.log
results=$logdir/$label.results.log
rm -f "$console" "$results"

if grep -qwE 'vmx|svm' /proc/cpuinfo && { : <>/dev/kvm; } 2>/dev/null; then
	accel=(-accel kvm -cpu host)
else
	accel=(-accel "tcg,thread=multi")
fi
nonce=$(date +%s)-$$-$RANDOM
cmdline="console=ttyS0 no_console_suspend panic=-1 twmode=$mode twnonce=$nonce ${TW_CMDLINE:-}"
# pc-i440fx-5.2: its firmware lists every vCPU in the MP table, which the
# ACPI-less tinyconfig kernel needs to see more than one CPU.
qemu=(qemu-system-x86_64 -machine pc-i440fx-5.2 -nodefaults -no-user-config -nographic -no-reboot
	"${accel[@]}" -smp "${TW_SMP:-4}" -m "${TW_MEM:-2G}"
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline")

if [ "$mode" = shell ]; then
	tw_log "booting $(basename "$kernel") (${accel[1]}), shell on this terminal; Ctrl-a x quits"
	exec "${qemu[@]}" -serial mon:stdio -serial "file:$results"
fi

# began: /init wrote its first record, on the results channel or, without
# one, on the console (guest-init.sh).
began() {
	grep -qF "TW|begin|$nonce" "$results" "$console" 2>/dev/null
}

# stuck_early: the early-boot watchdog stopped the guest before that.
stuck_early() {
	[ -e "$early" ] && ! began
}

# boot_once: one boot; sets $fail (empty on success) and $elapsed.
boot_once() {
	tw_log "booting $(basename "$kernel") (${accel[1]}, limit ${limit}s), console log $console"
	t0=$(date +%s)
	# QMP, for qmp-watch.py: it wakes a guest that no RTC alarm woke from a
	# suspend to RAM within TW_SUSPEND_MAX seconds (the suspend tests' RTC
	# backstop is 15 s), and logs the guest's run states.
	# The socket gives whoever reaches it control of QEMU: a private directory.
	qdir=$(mktemp -d /tmp/twq.XXXXXX)
	qmp=$qdir/qmp
	harness=$logdir/$label.harness.log
	rm -f "$harness"
	timeout -k 10 "$limit" "${qemu[@]}" -monitor none \
		-qmp "unix:$qmp,server=on,wait=off" \
		-serial "file:$console" -serial "file:$results" </dev/null &
	qpid=$!
	if command -v python3 >/dev/null; then
		python3 "$(dirname "$0")/qmp-watch.py" "$qmp" "${TW_SUSPEND_MAX:-40}" "$harness" &
		wpid=$!
	else
		echo "no python3: no watchdog" >"$harness"
		wpid=
	fi
	trap 'if [ -n "$wpid" ]; then kill "$wpid" 2>/dev/null || true; fi; rm -rf "$qdir"' EXIT
	# Live progress from the results channel while the guest runs.
	progress() {
		local tag kind a b c
		while IFS='|' read -r tag kind a b c; do
			[ "$tag" = TW ] || continue
			case $kind in
			uname) echo "  guest kernel $a" ;;
			check) echo "  [$a] $b${c:+|$c}" ;;
			strc)
				case $b in
				0) echo "  [ok] selftest $a (${c:-?}s)" ;;
				4) echo "  [skip] selftest $a (${c:-?}s)" ;;
				*) echo "  [not ok] selftest $a (exit $b, ${c:-?}s)" ;;
				esac
				;;
			esac
		done
	}
	tail -F -n +1 -s 1 --pid="$qpid" "$results" 2>/dev/null | progress >&2 &
	tpid=$!
	# The early-boot watchdog: /init writes its begin record (to the
	# results channel, or the console without one) first thing, before
	# it loads any module, so a guest without one after $boot_max s of
	# host uptime is stuck in the firmware or the kernel's own boot (seen
	# under TCG, rarely: after "clocksource: Switched to clocksource hpet"
	# or "sched_clock: Marking stable"). Stopped then, it costs minutes
	# instead of the whole limit.
	early=$qdir/early
	bpid=
	if [ "$boot_max" -gt 0 ]; then
		(
			end=$(($(cut -d. -f1 /proc/uptime) + boot_max))
			while kill -0 "$qpid" 2>/dev/null; do
				began && exit 0
				if [ "$(cut -d. -f1 /proc/uptime)" -ge "$end" ]; then
					began && exit 0
					: >"$early"
					kill "$qpid" 2>/dev/null
					exit 0
				fi
				sleep 2
			done
		) &
		bpid=$!
	fi
	rc=0
	wait "$qpid" || rc=$?
	if [ -n "$bpid" ]; then
		kill "$bpid" 2>/dev/null || true
		wait "$bpid" 2>/dev/null || true
	fi
	wait "$tpid" || true
	if [ -n "$wpid" ]; then
		kill "$wpid" 2>/dev/null || true
		wait "$wpid" 2>/dev/null || true
	fi
	elapsed=$(($(date +%s) - t0))

	fail=
	if stuck_early; then
		fail="no record from /init within ${boot_max}s (stuck in early boot)"
	elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		fail="timed out after ${limit}s (hang?)"
	elif [ "$rc" -ne 0 ]; then
		fail="qemu exited with status $rc"
	elif grep -q 'Kernel panic - not syncing' "$console"; then
		fail="kernel panic"
	elif ! grep -qxF "TW|end|$nonce" "$results"; then
		fail="guest never wrote its end record (init died?)"
	fi
}

# A guest that QEMU reset inside a suspend to RAM, with nothing wrong
# before it, is booted once more (TCG only, check mode): the console
# (never suspended: no_console_suspend) shows the last suspend entered and
# not left, without a panic or any kernel splat results.py counts; the
# results have no failure; the wake-up came from an RTC alarm (the harness
# never had to send system_wakeup); and QEMU exited with 0, a reset under
# -no-reboot, with no end record. Such losses come in the resume from S3
# of the emulated firmware under TCG, more often on a busy host. The first
# boot's logs stay as LABEL.lost-s3.*.log and the second boot's results
# get a skip record saying so; a second loss fails.
lost_in_s3() {
	[ "$rc" -eq 0 ] && [ "${accel[1]}" != kvm ] && [ -s "$harness" ] &&
		! grep -qxF "TW|end|$nonce" "$results" &&
		! grep -q 'system_wakeup' "$harness" &&
		! grep -qE '^TW\|[a-z]+\|([^|]*\|)?[[:space:]]*not ok' "$results" &&
		! grep -qE '^TW\|strc\|[^|]*\|[^04]' "$results" &&
		! grep -qE "$(python3 "$(dirname "$0")/results.py" --bad-regex)" "$console" &&
		[ "$(grep -E 'PM: suspend (entry|exit)' "$console" | tail -n 1 |
			grep -c 'PM: suspend entry')" = 1 ]
}

rm -f "$logdir/$label".lost-s3.*.log "$logdir/$label".stuck-early.*.log
boot_once
if [ -n "$fail" ] && stuck_early; then
	# Nothing of twheel's had run: /init loads the modules after its
	# first record.
	tw_log "guest stuck in early boot (no record from /init after ${elapsed}s): booting it once more; last console lines:"
	{ tail -n 3 "$console" 2>/dev/null || true; } |
		sed 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/^/    | /' >&2
	for f in console results harness; do
		if [ -f "$logdir/$label.$f.log" ]; then
			cp "$logdir/$label.$f.log" "$logdir/$label.stuck-early.$f.log"
		fi
	done
	rm -f "$console" "$results"
	rm -rf "$qdir"
	boot_once
	[ -n "$fail" ] || [ "$mode" != check ] ||
		printf 'TW|check|skip|guest stuck once in early boot, before the first record of /init (no twheel code had run), booted again: %s\n' \
			"$label.stuck-early.console.log" >>"$results"
elif [ -n "$fail" ] && [ "$mode" = check ] && lost_in_s3; then
	tw_log "guest lost inside a suspend to RAM after ${elapsed}s (QEMU reset it, nothing failed before): booting it once more"
	sed 's/^/    harness: /' "$harness" >&2
	for f in console results harness; do
		cp "$logdir/$label.$f.log" "$logdir/$label.lost-s3.$f.log"
	done
	rm -f "$console" "$results"
	rm -rf "$qdir"
	boot_once
	[ -n "$fail" ] || printf 'TW|check|skip|guest lost once inside a suspend to RAM (QEMU reset it), booted again: %s\n' \
		"$label.lost-s3.console.log" >>"$results"
fi
if [ -n "$fail" ]; then
	tw_log "boot FAILED after ${elapsed}s: $fail; last console lines ($console):"
	# Without the firmware's terminal escapes and other control characters.
	{
		tail -n 60 "$console"
		echo
	} | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1b.//g' | tr -d '\000-\010\013-\037\177' |
		sed 's/^/    | /' >&2
	[ ! -s "$harness" ] || sed 's/^/    harness: /' "$harness" >&2
	exit 1
fi
tw_log "guest finished in ${elapsed}s"
