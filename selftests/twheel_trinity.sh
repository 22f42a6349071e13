#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# twheel_trinity.sh - Debian's trinity aimed at /dev/twheel: ioctl, read,
# write and poll, with trinity's fd pool cut down to its victim files, as the
# unprivileged user when there is one. Skips when trinity is not in the image
# (the initramfs needs it and its shared objects: see tools/vm/stress.sh). A
# run fails only if the kernel reports something (BUG, KASAN, UBSAN, lockdep,
# WARNING) meanwhile; trinity's own exit status and time-outs are only
# reported. TW_TRINITY_OPS syscalls per run (default 3000), TW_TRINITY_SECS
# per run (default 60).
n=${TW_TRINITY_OPS:-3000}
secs=${TW_TRINITY_SECS:-60}
echo "TAP version 13"
if ! command -v trinity >/dev/null 2>&1; then
	echo "1..0 # SKIP trinity not in this image"
	exit 4
fi
if [ ! -c /dev/twheel ]; then
	echo "1..0 # SKIP no /dev/twheel"
	exit 4
fi
dir=/tmp/trinity.$$
mkdir -p "$dir" && chmod 777 "$dir" && cd "$dir" || exit 1
echo "1..4"
i=0 fails=0
for c in ioctl read write poll; do
	i=$((i + 1))
	args="-l off -V /dev/twheel -c $c -N $n --disable-fds=sockets,pipes,perf,epoll,eventfd,pseudo,timerfd,memfd,drm"
	before=$(dmesg | wc -l)
	if id user >/dev/null 2>&1; then
		timeout -k 10 "$secs" su -s /bin/sh user -c "trinity $args" >out.$c 2>&1
	else
		# shellcheck disable=SC2086 # args are split on purpose
		timeout -k 10 "$secs" trinity --dangerous $args >out.$c 2>&1
	fi
	rc=$?
	reports=$(dmesg | tail -n +"$((before + 1))" |
		grep -cE 'BUG:|KASAN|UBSAN|WARNING:|possible circular|inconsistent lock|ODEBUG')
	note="trinity exit $rc"
	[ $rc -ge 124 ] && note="stopped after ${secs}s"
	if [ "$reports" -eq 0 ]; then
		echo "ok $i trinity -c $c -N $n # $note"
	else
		echo "not ok $i trinity -c $c -N $n: $reports kernel report lines"
		fails=$((fails + 1))
	fi
	if [ $rc -ge 124 ]; then
		tail -n 5 out.$c | sed 's/^/# last output: /'
	else
		grep -E 'Ran [0-9]+ syscalls' out.$c | tail -n 1 | sed 's/^/# /'
	fi
done
[ $fails -eq 0 ]
