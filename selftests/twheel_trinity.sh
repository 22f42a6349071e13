#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# twheel_trinity.sh - Debian's trinity aimed at /dev/twheel (ioctl, read,
# poll and close on its victim files), as the unprivileged user when there is
# one. Skips when trinity is not in the image (the initramfs needs it and its
# shared objects: see tools/vm/stress.sh). TW_TRINITY_OPS syscalls per run
# (default 20000).
n=${TW_TRINITY_OPS:-20000}
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
for c in ioctl read poll close; do
	i=$((i + 1))
	args="-q -l off -V /dev/twheel -c $c -N $n --disable-fds=sockets,perf,drm"
	if id user >/dev/null 2>&1; then
		# shellcheck disable=SC2086 # args are split on purpose
		timeout -k 10 300 su -s /bin/sh user -c "trinity $args" >out.$c 2>&1
	else
		# shellcheck disable=SC2086
		timeout -k 10 300 trinity --dangerous $args >out.$c 2>&1
	fi
	rc=$?
	calls=$(grep -o '[0-9]* iterations' out.$c | tail -n 1)
	if [ $rc -eq 0 ]; then
		echo "ok $i trinity -c $c -N $n ${calls:+# $calls}"
	else
		echo "not ok $i trinity -c $c -N $n: exit $rc"
		tail -n 5 out.$c | sed 's/^/# /'
		fails=$((fails + 1))
	fi
done
[ -f /sys/kernel/debug/twheel/stats ] && sed 's/^/# /' /sys/kernel/debug/twheel/stats | head -4
[ $fails -eq 0 ]
