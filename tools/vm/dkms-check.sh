#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove the DKMS path: add this tree to DKMS under /usr/src and `dkms build`
# it against the installed Debian headers, then remove it again.
set -euo pipefail
# shellcheck source=tools/vm/lib.sh
. "$(dirname "$0")/lib.sh"

ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TW_TOP/dkms.conf")
rel=$(tw_stock_release 6.1) || tw_die "no linux-headers-6.1.0-*-amd64 installed"
command -v dkms >/dev/null || tw_die "dkms missing (apt-get install dkms)"
src=/usr/src/twheel-$ver

dkms remove "twheel/$ver" --all >/dev/null 2>&1 || true
rm -rf "$src"
mkdir -p "$src"
rsync -a --exclude build --exclude .git --exclude '*.o' --exclude '*.ko' \
	"$TW_TOP/" "$src/"
tw_log "dkms: add + build twheel/$ver for $rel"
dkms add "twheel/$ver"
if ! dkms build "twheel/$ver" -k "$rel"; then
	cat "/var/lib/dkms/twheel/$ver/build/make.log" >&2 || true
	dkms remove "twheel/$ver" --all >/dev/null 2>&1 || true
	tw_die "dkms build failed"
fi
ls "/var/lib/dkms/twheel/$ver/$rel/x86_64/module/" 2>/dev/null ||
	find "/var/lib/dkms/twheel/$ver" -name 'twheel.ko*'
# DKMS builds the module without test hooks (Kbuild's TWHEEL_TESTHOOKS).
# DKMS cleans its build area: the built module is under $rel/.
ko=$(find "/var/lib/dkms/twheel/$ver/$rel" -name twheel.ko | head -n 1)
if [ -z "$ko" ] || why=$(tw_ko_test_build "$ko"); then
	dkms remove "twheel/$ver" --all >/dev/null 2>&1 || true
	rm -rf "$src"
	tw_die "dkms built a test build of twheel.ko: ${why:-no twheel.ko built}"
fi
dkms remove "twheel/$ver" --all >/dev/null
rm -rf "$src"
tw_log "dkms: build for $rel ok"
