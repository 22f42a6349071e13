#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of the twheel test initramfs (busybox ash), installed by
# tools/vm/mkinitramfs.sh. Kernel command line knobs (read from /proc/cmdline):
#   twmode=check   load modules, KUnit, selftests, kmemleak, unload (default)
#   twmode=shell   load modules, interactive shell on the console
#   twmode=NAME    load modules, run /etc/twheel/hooks/NAME.sh, unload
#   twnonce=TOKEN  echoed in the begin/end records to tie a log to a boot
#   twtests=A,B    check mode runs only these selftests (no KUnit, kmemleak
#                  or unload cycles, but twheel_unload again once the
#                  modules are unloaded, where twheel_kunit held twheel):
#                  a short boot for a test that needs its own kernel
#                  parameters (tools/vm/check.sh) or a targeted run
# Human-readable progress goes to the console; machine-readable records
# ("TW|kind|...") go to the results channel /dev/ttyS1 (the console if that
# port is missing) and are parsed on the host by tools/vm/results.py.
# shellcheck shell=sh

/bin/busybox mkdir -p /proc /sys /dev /tmp /run /root /home/user /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t debugfs debugfs /sys/kernel/debug
if grep -qw tracefs /proc/filesystems; then
	mount -t tracefs tracefs /sys/kernel/tracing
fi
hostname twheel-vm

cat >/etc/passwd <<'EOF'
root:x:0:0:root:/root:/bin/sh
user:x:1000:1000:twheel test user:/home/user:/bin/sh
EOF
cat >/etc/group <<'EOF'
root:x:0:
user:x:1000:
EOF
chown 1000:1000 /home/user

mode=check
nonce=none
only=
# shellcheck disable=SC2013 # words, not lines
for arg in $(cat /proc/cmdline); do
	case $arg in
	twmode=*) mode=${arg#twmode=} ;;
	twnonce=*) nonce=${arg#twnonce=} ;;
	twtests=*) only=" $(echo "${arg#twtests=}" | tr , ' ') " ;;
	esac
done

# Results channel on fd 3, without \n -> \r\n translation.
if (exec 3>/dev/ttyS1) 2>/dev/null; then
	exec 3>/dev/ttyS1
	stty -F /dev/ttyS1 -opost 2>/dev/null
else
	exec 3>&1
fi

msg() { echo "twheel-vm: $*"; }
rec() { printf 'TW|%s\n' "$*" >&3; }
# check STATUS DESCRIPTION: STATUS is ok, "not ok" or skip.
check() {
	msg "[$1] $2"
	rec "check|$1|$2"
}
# prefix KIND NAME: copy stdin to the console and, tagged, to the results.
prefix() {
	while IFS= read -r l || [ -n "$l" ]; do
		printf '%s\n' "$l"
		printf 'TW|%s|%s|%s\n' "$1" "$2" "$l" >&3
	done
}

finish() {
	rec "end|$nonce"
	exec 3>&- # the last close of a serial port waits for it to drain
	msg "finished ($nonce)"
	sync
	sleep 1
	reboot -f
}

KUNIT_DIR=/sys/kernel/debug/kunit
KMEMLEAK=/sys/kernel/debug/kmemleak
loaded=
kmemleak_none=

load_modules() {
	ls "$KUNIT_DIR" >/tmp/kunit.before 2>/dev/null
	[ -w "$KMEMLEAK" ] && echo clear >"$KMEMLEAK" # forget boot-time objects
	while read -r ko; do
		[ -n "$ko" ] || continue
		if timeout -k 10 900 insmod "/lib/modules/twheel/$ko" >/tmp/insmod.out 2>&1; then
			check ok "insmod $ko"
			loaded="$(basename "$ko" .ko | tr - _) $loaded"
		else
			check "not ok" "insmod $ko: $(cat /tmp/insmod.out)"
		fi
	done </etc/twheel/modules
}

unload_modules() {
	for m in $loaded; do
		if timeout -k 10 120 rmmod "$m" >/tmp/rmmod.out 2>&1; then
			check ok "rmmod $m"
		else
			check "not ok" "rmmod $m: $(cat /tmp/rmmod.out)"
		fi
	done
	loaded=
}

# Hold the kernel's cpuset and memcg static keys on for the rest of the
# boot, by a cgroup with both controllers that lives until power-off, so
# that the selftests' cpuset and memcg cgroups (twheel_security) never
# patch kernel text while they run. Under QEMU's TCG, Debian's 6.12-rt
# kernel died with "Oops: int3" at the cpusets_enabled() branch of
# __alloc_pages() after such a patch had completed (1 of 6 runs of
# twheel_security, and in CI; 0 of 16 with a cpuset cgroup held): an
# emulated CPU ran the patch's int3 after it was gone. Not for the
# benchmarks' guest, which keeps the stock allocation path.
cgroup_hold() {
	mkdir -p /sys/fs/cgroup || return 0
	mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null || return 0
	for ch_c in cpuset memory; do
		grep -qw $ch_c /sys/fs/cgroup/cgroup.controllers &&
			echo +$ch_c 2>/dev/null >/sys/fs/cgroup/cgroup.subtree_control
	done
	mkdir -p /sys/fs/cgroup/twheel-vm-hold
}

# KUnit suites that appeared while loading our modules: the debugfs results
# of each are valid KTAP; the host merges and parses them with kunit.py.
kunit_results() {
	grep -q kunit /etc/twheel/modules || return 0
	n=0
	for d in "$KUNIT_DIR"/*/; do
		[ -f "$d/results" ] || continue
		s=$(basename "$d")
		grep -qxF "$s" /tmp/kunit.before && continue
		n=$((n + 1))
		msg "KUnit suite $s"
		prefix ktap "$s" <"$d/results" >/dev/null
	done
	[ "$n" -gt 0 ] || check "not ok" "KUnit: no suite of ours in $KUNIT_DIR"
}

# cpus_restore NAME: a selftest that took CPUs offline (hotplug, the
# suspend tests) and ended without putting them back, killed at its timeout
# or not, fails; the CPUs come back so that the next selftests have them.
cpus_restore() {
	for cr_c in $boot_online; do
		cr_f=/sys/devices/system/cpu/cpu$cr_c/online
		[ "$(cat "$cr_f" 2>/dev/null)" = 0 ] || continue
		for _ in 1 2 3; do
			echo 1 2>/dev/null >"$cr_f" && break
			sleep 1
		done
		check "not ok" "selftest $1 left CPU $cr_c offline (online now: $(cat "$cr_f"))"
	done
}

# run.list lines: NAME TIMEOUT [ARGS...], made by mkinitramfs.sh.
run_selftests() {
	[ -f /selftests/run.list ] || return 0
	boot_online=$(for f in /sys/devices/system/cpu/cpu[0-9]*/online; do
		[ "$(cat "$f" 2>/dev/null)" = 1 ] && basename "${f%/online}" | tr -d cpu
	done)
	while read -r name t args; do
		case $name in '' | '#'*) continue ;; esac
		case ${only:-" $name "} in *" $name "*) ;; *) continue ;; esac
		msg "selftest $name${args:+ $args} (timeout ${t}s)"
		rec "strun|$name|$t"
		t0=$(cut -d. -f1 /proc/uptime)
		rm -f /tmp/st.rc
		# shellcheck disable=SC2086 # ARGS are split on purpose
		{
			cd /selftests && timeout -k 10 "$t" "./$name" $args </dev/null 2>&1
			echo $? >/tmp/st.rc
		} | prefix st "$name"
		rc=$(cat /tmp/st.rc 2>/dev/null || echo 255)
		secs=$(($(cut -d. -f1 /proc/uptime) - t0))
		msg "selftest $name exited with $rc after ${secs}s"
		rec "strc|$name|$rc|$secs"
		cpus_restore "$name"
	done </selftests/run.list
}

# kmemleak_check LABEL: scan and report; any unreferenced object fails.
kmemleak_check() {
	if [ ! -w "$KMEMLEAK" ]; then
		[ -n "$kmemleak_none" ] || check skip "kmemleak: not available on this kernel"
		kmemleak_none=1
		return 0
	fi
	sleep 6 # objects younger than 5 s are never reported
	echo scan >"$KMEMLEAK"
	echo scan >"$KMEMLEAK"
	cat "$KMEMLEAK" >/tmp/kmemleak.out
	if [ -s /tmp/kmemleak.out ]; then
		prefix kmemleak "$1" </tmp/kmemleak.out
		check "not ok" "kmemleak $1: $(grep -c 'unreferenced object' /tmp/kmemleak.out) leak(s)"
	else
		check ok "kmemleak $1: no leaks"
	fi
	echo clear >"$KMEMLEAK"
}

# Load and unload twheel.ko with reprogram IPIs in flight (selftest
# twheel_unload), once no module of ours holds it: in the selftests run it
# skips while twheel_kunit is loaded.
unload_cycles() {
	[ -x /selftests/twheel_unload ] || return 0
	timeout -k 10 300 /selftests/twheel_unload </dev/null >/tmp/unload.out 2>&1
	rc=$?
	cat /tmp/unload.out
	case $rc in
	0) check ok "unload with IPIs in flight: $(grep -o 'unload cycles.*' /tmp/unload.out)" ;;
	4) check skip "unload with IPIs in flight: $(grep -m1 -o 'SKIP.*' /tmp/unload.out)" ;;
	*) check "not ok" "unload with IPIs in flight: exit $rc" ;;
	esac
}

rec "begin|$nonce"
rec "uname|$(uname -r)"
msg "kernel $(uname -r), mode $mode"

case $mode in
check)
	cgroup_hold
	load_modules
	if [ -n "$only" ]; then
		# A subset run: results.py expects no KUnit results.
		rec "subset|$only"
		run_selftests
		unload_modules
		# twheel_unload skipped above where twheel_kunit held the
		# module (the debug kernels): run it again without it.
		case $only in *" twheel_unload "*) grep -q kunit /etc/twheel/modules && unload_cycles ;; esac
		finish
	fi
	kunit_results
	run_selftests
	kmemleak_check "before rmmod"
	unload_modules
	unload_cycles
	kmemleak_check "after rmmod"
	msg "kernel taint flags: $(cat /proc/sys/kernel/tainted)"
	;;
shell)
	cgroup_hold
	load_modules
	msg "modules loaded:$(cut -d' ' -f1 /proc/modules | tr '\n' ' ')"
	msg "selftests in /selftests, user 'user' is uid 1000; exit the shell to power off"
	setsid cttyhack sh -l
	;;
*)
	load_modules
	if [ -x "/etc/twheel/hooks/$mode.sh" ]; then
		{
			"/etc/twheel/hooks/$mode.sh" </dev/null 2>&1
			echo $? >/tmp/hook.rc
		} | prefix hook "$mode"
		rc=$(cat /tmp/hook.rc 2>/dev/null || echo 255)
		if [ "$rc" -eq 0 ]; then
			check ok "hook $mode"
		else
			check "not ok" "hook $mode exited with $rc"
		fi
	else
		check "not ok" "no hook /etc/twheel/hooks/$mode.sh"
	fi
	unload_modules
	;;
esac
finish
