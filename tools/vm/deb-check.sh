#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make deb-check` (root): install the four packages of `make deb` on this
# machine with dpkg -i and purge them again, checking on the way that
#  - DKMS built and installed twheel.ko for every kernel whose headers are
#    installed (autoinstall_all_kernels: not only the running kernel);
#  - pkg-config --cflags --libs libtwheel works, and a program compiled
#    with nothing else links libtwheel.so.1 and runs (it skips, exit 4,
#    where /dev/twheel is missing: modules are never loaded here);
#  - twheelctl and the man pages are installed;
#  - after dpkg --purge no package, DKMS registration, module or file of
#    theirs is left.
# Builds the packages first if build/deb has none.
set -euo pipefail
# No `cmd | grep -q` below: grep -q exits at the first match, the writer
# may then die of SIGPIPE, and pipefail fails the pipeline that matched.
# shellcheck source=tools/vm/lib.sh
. "$(dirname "$0")/lib.sh"

pkgs=(twheel-dkms libtwheel1 libtwheel-dev twheel-tools)
out=$TW_BUILD/deb
work=$out/check
[ "$(id -u)" -eq 0 ] || tw_die "deb-check installs packages: run as root"
if ! compgen -G "$out/twheel-dkms_*.deb" >/dev/null; then
	"$TW_TOP/tools/vm/deb.sh"
fi
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TW_TOP/dkms.conf")
t0=$(date +%s)
fail=0
bad() {
	tw_log "deb-check: FAILED: $*"
	fail=1
}

purge() { dpkg --purge "${pkgs[@]}" >"$work/purge.log" 2>&1; }

rm -rf "$work"
mkdir -p "$work"
# A previous run that stopped half-way.
if dpkg-query -W "${pkgs[@]}" >/dev/null 2>&1; then
	purge || true
fi
debs=()
for p in "${pkgs[@]}"; do
	debs+=("$(find "$out" -maxdepth 1 -name "${p}_*.deb" | head -n 1)")
done
tw_log "deb-check: dpkg -i ${debs[*]##*/}"
if ! autoinstall_all_kernels=1 nice dpkg -i "${debs[@]}" >"$work/install.log" 2>&1; then
	cat "$work/install.log" >&2
	purge || true
	tw_die "dpkg -i failed"
fi

# DKMS: the module for each kernel with headers.
mapfile -t kernels < <(find /usr/src -maxdepth 1 -name 'linux-headers-*' -printf '%f\n' |
	sed 's/^linux-headers-//' | while read -r k; do
		[ -d "/lib/modules/$k" ] && [ -e "/lib/modules/$k/build" ] && echo "$k"
	done | sort -u)
[ ${#kernels[@]} -gt 0 ] || bad "no kernel with headers to build for"
for k in "${kernels[@]}"; do
	if dkms status -m twheel -v "$ver" -k "$k" 2>/dev/null | grep ': installed' >/dev/null; then
		ko=$(find "/lib/modules/$k/updates/dkms" -name 'twheel.ko*' 2>/dev/null | head -n 1)
		[ -n "$ko" ] || bad "dkms says installed for $k but no twheel.ko"
		# never a test build (Kbuild's TWHEEL_TESTHOOKS)
		case $ko in *.ko) ! why=$(tw_ko_test_build "$ko") ||
			bad "dkms built a test build for $k: $why" ;;
		esac
		tw_log "deb-check: dkms: twheel/$ver installed for $k (${ko#/lib/modules/})"
	else
		bad "dkms: twheel/$ver not installed for $k: $(dkms status twheel)"
	fi
done

# pkg-config and a program compiled with its flags alone.
if flags=$(pkg-config --cflags --libs libtwheel); then
	tw_log "deb-check: pkg-config --cflags --libs libtwheel: $flags"
	# shellcheck disable=SC2086 # the flags are words
	if gcc -O2 -Wall -Werror -o "$work/twheel-lib" "$TW_TOP/Documentation/examples/twheel-lib.c" \
		$flags 2>"$work/cc.log"; then
		ldd "$work/twheel-lib" | grep -E 'libtwheel\.so\.1 => (/usr)?/lib/' >/dev/null ||
			bad "the program does not link the installed libtwheel.so.1"
		rc=0
		"$work/twheel-lib" >"$work/run.log" 2>&1 || rc=$?
		if [ -e /dev/twheel ]; then
			[ "$rc" -eq 0 ] || bad "the program failed ($rc): $(cat "$work/run.log")"
		else
			if [ "$rc" -ne 4 ] || ! grep -q SKIP "$work/run.log"; then
				bad "the program did not skip without /dev/twheel ($rc)"
			fi
		fi
		tw_log "deb-check: program against the installed library: exit $rc, $(head -n 2 "$work/run.log" | tail -n 1)"
	else
		bad "compile with pkg-config's flags: $(cat "$work/cc.log")"
	fi
	# shellcheck disable=SC2046
	gcc -O2 -Wall -Werror -o "$work/twheel-lib-static" \
		"$TW_TOP/Documentation/examples/twheel-lib.c" \
		$(pkg-config --static --cflags --libs libtwheel) -static 2>"$work/cc-static.log" ||
		bad "static link against libtwheel.a: $(cat "$work/cc-static.log")"
else
	bad "pkg-config --cflags --libs libtwheel failed"
fi
twheelctl --version >"$work/twheelctl.log" 2>&1 || bad "twheelctl --version: $(cat "$work/twheelctl.log")"
for m in twheel.4 libtwheel.3 twheel_arm.3 twheel_wait.3 twheelctl.8; do
	man -w "${m##*.}" "${m%.*}" 2>/dev/null | grep . >/dev/null || bad "man page $m not found"
done

tw_log "deb-check: dpkg --purge ${pkgs[*]}"
if ! purge; then
	cat "$work/purge.log" >&2
	bad "dpkg --purge failed"
fi
for p in "${pkgs[@]}"; do
	if dpkg-query -W -f='${db:Status-Abbrev}\n' "$p" 2>/dev/null | grep -v '^un' >/dev/null; then
		bad "$p still known to dpkg after purge"
	fi
done
[ -z "$(dkms status twheel 2>/dev/null)" ] || bad "dkms still has: $(dkms status twheel)"
[ ! -e "/usr/src/twheel-$ver" ] || bad "/usr/src/twheel-$ver left behind"
[ ! -e "/var/lib/dkms/twheel" ] || bad "/var/lib/dkms/twheel left behind"
left=$(find /lib/modules -path '*/updates/dkms/twheel.ko*' 2>/dev/null)
[ -z "$left" ] || bad "modules left behind: $left"
! pkg-config --exists libtwheel || bad "libtwheel.pc still installed"
[ ! -e /usr/include/twheel ] || bad "/usr/include/twheel left behind"

tw_log "deb-check: took $(($(date +%s) - t0))s"
[ "$fail" -eq 0 ] || tw_die "deb-check failed (logs: $work)"
tw_log "deb-check: install, DKMS build for ${kernels[*]}, pkg-config, purge: ok"
