# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the twheel VM scripts (sourced, not run).
# shellcheck shell=bash

TW_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TW_BUILD=${TW_BUILD:-$TW_TOP/build}
TW_SRC_TARBALL=${TW_SRC_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
TW_SRC=$TW_BUILD/src-6.12
TW_FRAGMENT=$TW_TOP/selftests/config

tw_log() { printf '[twheel %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
tw_die() { tw_log "ERROR: $*"; exit 1; }

# tw_stage NAME CMD...: run a stage, say what it does and how long it took.
tw_stage() {
	local name=$1 t0 rc
	shift
	tw_log "stage: $name ..."
	t0=$(date +%s)
	"$@"
	rc=$?
	tw_log "stage: $name done in $(($(date +%s) - t0))s (rc=$rc)"
	return $rc
}

# Directory of the cached debug test kernel, keyed by the fragment's hash.
tw_kernel_dir() {
	local h
	h=$(cat "$TW_FRAGMENT" "$TW_TOP/tools/vm/build-kernel.sh" | sha256sum | cut -c1-12)
	echo "$TW_BUILD/kernel-6.12-$h"
}

# Debian's stock kernel: headers dir and the unpacked image.
tw_stock_headers() {
	local d
	d=$(find /usr/src -maxdepth 1 -name 'linux-headers-*-amd64' | sort -V | tail -n 1)
	[ -n "$d" ] || return 1
	echo "$d"
}

tw_stock_release() { basename "$(tw_stock_headers)" | sed 's/^linux-headers-//'; }

# Directory holding the unpacked stock image (build/stock-<release>/vmlinuz).
tw_stock_dir() { echo "$TW_BUILD/stock-$(tw_stock_release)"; }

# Unpack Debian's linux-source-6.12 into $TW_SRC (KUnit parser, kselftest
# harness, and the test kernel's source). Cached.
tw_unpack_src() {
	if [ -f "$TW_SRC/Makefile" ]; then
		return 0
	fi
	[ -f "$TW_SRC_TARBALL" ] || tw_die "$TW_SRC_TARBALL missing (apt-get install linux-source-6.12)"
	tw_log "unpacking $TW_SRC_TARBALL into $TW_SRC"
	rm -rf "$TW_SRC.tmp"
	mkdir -p "$TW_SRC.tmp"
	tar -xf "$TW_SRC_TARBALL" -C "$TW_SRC.tmp" --strip-components=1
	mv "$TW_SRC.tmp" "$TW_SRC"
}

# tw_kdir_release KDIR: the UTS release (uname -r) a kernel tree builds for.
tw_kdir_release() {
	sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$1/include/generated/utsrelease.h"
}

# tw_lock NAME: hold $TW_BUILD/.NAME.lock (on fd 9) until this shell exits,
# waiting for whoever holds it: concurrent runs in one tree share build/.
tw_lock() {
	mkdir -p "$TW_BUILD"
	exec 9>"$TW_BUILD/.$1.lock"
	if ! flock -n 9; then
		tw_log "another '$1' holds $TW_BUILD/.$1.lock; waiting for it"
		flock 9
	fi
}

# Serialise build-kernel.sh here, where every caller gets it: the kernel
# cache key hashes build-kernel.sh itself, so the lock lives outside it.
if [ "$(basename "$0")" = build-kernel.sh ]; then
	mkdir -p "$TW_BUILD"
	exec 8>"$TW_BUILD/.kernel.lock"
	if ! flock -n 8; then
		tw_log "another kernel build holds $TW_BUILD/.kernel.lock; waiting for it"
		flock 8
	fi
fi

# tw_select_kernel stock|debug: set kdir (module build tree) and image
# (kernel to boot) for Debian's stock kernel or the debug test kernel.
tw_select_kernel() {
	case $1 in
	stock)
		kdir=$(tw_stock_headers)
		image=$(tw_stock_dir)/vmlinuz
		;;
	debug)
		kdir=$("$TW_TOP/tools/vm/build-kernel.sh")
		image=$kdir/arch/x86/boot/bzImage
		;;
	*) tw_die "usage: $0 [stock|debug]" ;;
	esac
	export kdir image
}
