#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The proof tools (herd7 of herdtools7, cbmc) from Debian's development
# suite, which needs a newer glibc than Debian 12's: a minbase chroot under
# build/, made by debootstrap from the archive tools/vm/fetch-newest.sh
# reads (suite ${TW_DEV_SUITE:-sid}, mirror ${TW_DEV_MIRROR:-deb.debian.org}),
# with herdtools7 and cbmc installed inside it by the chroot's own apt-get.
# The host's sources and packages are never touched.
#   chroot.sh        prints the chroot's directory
# Exit status 3: no chroot can be had (the suite cannot be reached, or not
# root): the caller reports the proofs as skipped, never as passed.
#
# Cache: build/verify-chroot-<suite>-<YYYYMMDD>, with a stamp file naming
# the suite, the date and the versions of herdtools7 and cbmc. A chroot with
# a stamp younger than TW_VERIFY_MAX_AGE days (default 7) is reused without
# the network; an older one is replaced, or still used if the suite cannot
# be reached. Older chroots of the suite are removed once a new one is made.
set -euo pipefail
# shellcheck source=tools/vm/lib.sh
. "$(dirname "$0")/../vm/lib.sh"

suite=${TW_DEV_SUITE:-sid}
mirror=${TW_DEV_MIRROR:-http://deb.debian.org/debian}
max_age=${TW_VERIFY_MAX_AGE:-7}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
stamp_name=.twheel-verify-stamp

mkdir -p "$TW_BUILD"
exec 8>"$TW_BUILD/.verify-chroot.lock"
flock 8

# The newest complete chroot of the suite (stamp present), if any.
newest=$(find "$TW_BUILD" -maxdepth 2 -path "$TW_BUILD/verify-chroot-$suite-*/$stamp_name" \
	-printf '%h\n' 2>/dev/null | sort | tail -n 1)
if [ -n "$newest" ] &&
	[ -n "$(find "$newest/$stamp_name" -mtime "-$max_age" 2>/dev/null)" ]; then
	echo "$newest"
	exit 0
fi

# umount_under DIR: anything a failed debootstrap left mounted below DIR.
umount_under() {
	local m
	awk -v d="$1/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r |
		while read -r m; do umount -l "$m" || true; done
}

# remove DIR: a chroot, never crossing into a file system mounted below it.
remove() {
	umount_under "$1"
	rm -rf --one-file-system "$1"
}

fallback() {
	tw_log "verify: $*"
	if [ -n "$newest" ]; then
		tw_log "verify: using the older chroot $newest"
		echo "$newest"
		exit 0
	fi
	exit 3
}

[ "$(id -u)" -eq 0 ] || fallback "debootstrap and chroot need root"
command -v debootstrap >/dev/null || fallback "debootstrap is not installed (tools/vm/setup.sh packages)"

dir=$TW_BUILD/verify-chroot-$suite-$(date -u +%Y%m%d)
tmp=$dir.tmp
log=$TW_BUILD/verify-chroot-$suite.log
remove "$tmp"
tw_log "verify: debootstrap --variant=minbase $suite from $mirror into $tmp (log: $log)"
t0=$(date +%s)
if ! debootstrap --variant=minbase --keyring="$keyring" "$suite" "$tmp" "$mirror" >"$log" 2>&1; then
	remove "$tmp"
	fallback "debootstrap of $suite failed (log: $log)"
fi
# The chroot's own apt, its own sources (debootstrap wrote $mirror $suite).
# Valid-Until is not checked: a mirror or snapshot may serve a suite whose
# Release file has expired by this machine's clock; the signature still is.
capt() {
	chroot "$tmp" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 \
		apt-get -q -o Acquire::Check-Valid-Until=false -o Acquire::Languages=none \
		-o Acquire::Retries=2 -o Acquire::http::Timeout=30 "$@"
}
if ! { capt update && capt install -y --no-install-recommends herdtools7 cbmc &&
	capt clean; } >>"$log" 2>&1; then
	remove "$tmp"
	fallback "apt-get install herdtools7 cbmc in the $suite chroot failed (log: $log)"
fi
umount_under "$tmp"
# shellcheck disable=SC2016 # dpkg-query's format, not the shell's
vers=$(chroot "$tmp" dpkg-query -W -f='${Package}=${Version} ' herdtools7 cbmc)
echo "suite=$suite date=$(date -u +%Y-%m-%d) $vers" >"$tmp/$stamp_name"
remove "$dir"
mv "$tmp" "$dir"
tw_log "verify: chroot $dir ready in $(($(date +%s) - t0))s: $vers"
# Older chroots of this suite go.
find "$TW_BUILD" -maxdepth 1 -name "verify-chroot-$suite-*" ! -path "$dir" -type d |
	while read -r old; do remove "$old"; done
echo "$dir"
