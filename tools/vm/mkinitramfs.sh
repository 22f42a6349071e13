#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the twheel test initramfs (gzip'd newc cpio):
#   mkinitramfs.sh OUT.cpio.gz [MODULE.ko...]
# Contents: busybox-static (/bin/busybox --install -s at boot), /init from
# tools/vm/guest-init.sh, the given modules (/lib/modules/twheel, loaded in
# the given order, *kunit* modules last), the selftests and twheelctl.
#
# Selftests (data-driven, nothing to edit in /init): every binary built from
# selftests/*.c (build/selftests/) and every selftests/*.sh is run, in name
# order, with a timeout of TW_SELFTEST_TIMEOUT seconds (default 300).
# selftests/run.list may override order, timeout and arguments, one test per
# line: "NAME [TIMEOUT|-] [ARGS...]" ('#' comments); listed tests run first.
# TW_INITRAMFS_EXTRA="SRC:DST ..." adds files (e.g. DST=/etc/twheel/hooks/
# demo.sh, run by twmode=demo).
set -euo pipefail
# shellcheck source=tools/vm/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -ge 1 ] || tw_die "usage: $0 OUT.cpio.gz [MODULE.ko...]"
out=$1
shift
timeout_default=${TW_SELFTEST_TIMEOUT:-300}
busybox=/bin/busybox

[ -x "$busybox" ] || tw_die "$busybox missing (apt-get install busybox-static)"
if ldd "$busybox" >/dev/null 2>&1; then
	tw_die "$busybox is dynamically linked (install busybox-static)"
fi

stage=$(mktemp -d "$TW_BUILD/initramfs-stage.XXXXXX")
chmod 0755 "$stage" # the guest's /: must be traversable by uid 1000
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,etc/twheel/hooks,lib/modules/twheel,selftests}
cp "$busybox" "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"
install -m 0755 "$TW_TOP/tools/vm/guest-init.sh" "$stage/init"
if [ "$(id -u)" -eq 0 ]; then
	mknod -m 0600 "$stage/dev/console" c 5 1
fi

# Modules: plain ones first (in the given order), then the KUnit ones.
: >"$stage/etc/twheel/modules"
plain=() kunit=()
for ko in "$@"; do
	case "$(basename "$ko")" in
	*kunit*) kunit+=("$ko") ;;
	*) plain+=("$ko") ;;
	esac
done
for ko in "${plain[@]}" "${kunit[@]}"; do
	cp "$ko" "$stage/lib/modules/twheel/"
	basename "$ko" >>"$stage/etc/twheel/modules"
done

# Selftests.
for f in "$TW_BUILD"/selftests/* "$TW_TOP"/selftests/*.sh; do
	if [ ! -f "$f" ] || [ ! -x "$f" ]; then continue; fi
	install -m 0755 "$f" "$stage/selftests/"
done
if [ -x "$TW_BUILD/bin/twheelctl" ]; then
	install -m 0755 "$TW_BUILD/bin/twheelctl" "$stage/bin/"
fi
declare -A listed=()
runlist=$stage/selftests/run.list
: >"$runlist"
if [ -f "$TW_TOP/selftests/run.list" ]; then
	while read -r name t args; do
		case $name in '' | '#'*) continue ;; esac
		[ -x "$stage/selftests/$name" ] || tw_die "selftests/run.list: '$name' was not built"
		[ "${t:--}" = - ] && t=$timeout_default
		[[ $t =~ ^[0-9]+$ ]] || tw_die "selftests/run.list: '$name': bad timeout '$t'"
		echo "$name $t${args:+ $args}" >>"$runlist"
		listed[$name]=1
	done <"$TW_TOP/selftests/run.list"
fi
for f in "$stage"/selftests/*; do
	name=$(basename "$f")
	if [ "$name" = run.list ] || [ -n "${listed[$name]:-}" ]; then continue; fi
	echo "$name $timeout_default" >>"$runlist"
done

for e in ${TW_INITRAMFS_EXTRA:-}; do
	mkdir -p "$(dirname "$stage/${e#*:}")"
	cp -a "${e%%:*}" "$stage/${e#*:}"
done

mkdir -p "$(dirname "$out")"
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -6 >"$out.tmp"
mv "$out.tmp" "$out"
tw_log "initramfs: $out ($(du -k "$out" | cut -f1) KiB;" \
	"modules: $(tr '\n' ' ' <"$stage/etc/twheel/modules"); selftests: $(wc -l <"$runlist"))"
