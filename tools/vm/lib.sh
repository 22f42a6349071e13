# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the twheel VM scripts (sourced, not run).
# shellcheck shell=bash

TW_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TW_BUILD=${TW_BUILD:-$TW_TOP/build}
TW_SRC_TARBALL=${TW_SRC_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
TW_SRC=$TW_BUILD/src-6.12
# Kernel config fragments (used by build-kernel.sh).
# shellcheck disable=SC2034
TW_FRAGMENT=$TW_TOP/selftests/config
# shellcheck disable=SC2034
TW_FRAGMENT_RT=$TW_TOP/selftests/config-rt

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

# tw_kernel_dir VERSION FRAGMENT...: directory of a cached debug test
# kernel, keyed by its version and the hash of its fragments and of the
# build script.
tw_kernel_dir() {
	local ver=$1 h
	shift
	h=$(cat "$@" "$TW_TOP/tools/vm/build-kernel.sh" | sha256sum | cut -c1-12)
	echo "$TW_BUILD/kernel-$ver-$h"
}

# Debian's stock kernels, each named explicitly by its flavour, so that
# installing some other headers package never changes which kernel a kind
# means:
#   6.1      Debian 12's own kernel: linux-headers-6.1.0-<abi>-amd64
#   6.12-rt  the PREEMPT_RT 6.12 kernel of Debian 12's security suite:
#            linux-headers-6.12.<n>+deb12-rt-amd64
# tw_stock_pattern FLAVOUR: the package/directory name as an ERE.
tw_stock_pattern() {
	case $1 in
	6.1) echo '^linux-headers-6\.1\.0-[0-9]+-amd64$' ;;
	6.12-rt) echo '^linux-headers-6\.12\.[0-9]+\+deb12-rt-amd64$' ;;
	*) tw_die "unknown stock kernel flavour '$1' (6.1, 6.12-rt)" ;;
	esac
}

# tw_stock_headers FLAVOUR: the newest installed headers dir of that flavour.
tw_stock_headers() {
	local d pat
	pat=$(tw_stock_pattern "$1")
	d=$(find /usr/src -maxdepth 1 -name 'linux-headers-*' -printf '%f\n' |
		grep -E "$pat" | sort -V | tail -n 1)
	[ -n "$d" ] || return 1
	echo "/usr/src/$d"
}

tw_stock_release() {
	local d
	d=$(tw_stock_headers "$1") || return 1
	basename "$d" | sed 's/^linux-headers-//'
}

# Directory holding the unpacked stock image (build/stock-<release>/vmlinuz).
tw_stock_dir() {
	local rel
	rel=$(tw_stock_release "$1") || return 1
	echo "$TW_BUILD/stock-$rel"
}

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

# tw_ko_test_build KO: succeeds, saying why, if module KO is a test build
# (Kbuild's TWHEEL_TESTHOOKS=1: test hooks, test-only parameters), which a
# packaged or DKMS module must never be.
tw_ko_test_build() {
	local p
	p=$(modinfo -F parm "$1" | grep -E '^test_') && {
		echo "test-only parameter ${p%%:*}"
		return 0
	}
	nm "$1" | grep -qE ' [Tt] twheel_hook$' && {
		echo "test hooks (twheel_hook())"
		return 0
	}
	return 1
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

# The kernels `make check` knows, each named by kind and version:
#   debug-6.12     tinyconfig of Debian's linux-source-6.12 + selftests/config
#   debug-newest   the newest linux-source of Debian's development suite,
#                  + selftests/config + selftests/config-rt (PREEMPT_RT)
#   stock-6.1      Debian 12's stock kernel
#   stock-6.12-rt  Debian 12's stock PREEMPT_RT 6.12 kernel
# "debug" and "stock" are accepted for debug-6.12 and stock-6.1.
TW_KERNELS_ALL="debug-6.12 debug-newest stock-6.1 stock-6.12-rt"

tw_kind() {
	case $1 in
	debug) echo debug-6.12 ;;
	stock) echo stock-6.1 ;;
	*) echo "$1" ;;
	esac
}

# tw_select_kernel KIND: set kdir (module build tree), image (kernel to
# boot) and limit (boot time limit, s). Returns 3 if the kernel cannot be
# had here (the development suite unreachable): the caller skips it.
tw_select_kernel() {
	local rc=0 kind fl
	kind=$(tw_kind "$1")
	case $kind in
	stock-6.1 | stock-6.12-rt)
		fl=${kind#stock-}
		kdir=$(tw_stock_headers "$fl") || {
			tw_log "no stock $fl headers in /usr/src (make setup)"
			return 1
		}
		image=$(tw_stock_dir "$fl")/vmlinuz
		limit=${TW_TIMEOUT_STOCK:-600}
		;;
	debug-6.12)
		kdir=$("$TW_TOP/tools/vm/build-kernel.sh" 6.12) || return 1
		image=$kdir/arch/x86/boot/bzImage
		limit=${TW_TIMEOUT_DEBUG:-1200}
		;;
	debug-newest)
		kdir=$("$TW_TOP/tools/vm/build-kernel.sh" newest) || rc=$?
		[ "$rc" -eq 0 ] || return "$rc"
		image=$kdir/arch/x86/boot/bzImage
		limit=${TW_TIMEOUT_DEBUG:-1200}
		;;
	*)
		tw_log "unknown kernel '$kind' (one of: $TW_KERNELS_ALL)"
		return 1
		;;
	esac
	export kdir image limit
}
