#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make deb`: build the Debian packages twheel-dkms, libtwheel1,
# libtwheel-dev and twheel-tools with debhelper (debian/) from a copy of
# the tree in build/deb/src/ (the work tree is never written to), then run
# lintian on them: any error fails. Packages: build/deb/*.deb; lintian's
# report: build/deb/lintian.log.
set -euo pipefail
# shellcheck source=tools/vm/lib.sh
. "$(dirname "$0")/lib.sh"

out=$TW_BUILD/deb
ver=$(dpkg-parsechangelog -l "$TW_TOP/debian/changelog" -S Version)
dkms_ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TW_TOP/dkms.conf")
[ "${ver%%-*}" = "$dkms_ver" ] ||
	tw_die "debian/changelog version $ver does not match dkms.conf's $dkms_ver"
mod_ver=$(sed -n 's/^MODULE_VERSION("\(.*\)");/\1/p' "$TW_TOP/twheel/main.c")
[ "$mod_ver" = "$dkms_ver" ] ||
	tw_die "twheel/main.c's MODULE_VERSION $mod_ver does not match dkms.conf's $dkms_ver"

"$TW_TOP/tools/vm/setup.sh" packages
t0=$(date +%s)
rm -rf "$out"
mkdir -p "$out/src"
src=$out/src/twheel-$ver
rsync -a --exclude /build --exclude .git --exclude '*.o' --exclude '*.ko' \
	--exclude '.checkpatch-camelcase.*' "$TW_TOP/" "$src/"
tw_log "deb: dpkg-buildpackage -b in $src"
(cd "$src" && nice dpkg-buildpackage -b -us -uc -j2 >"$out/build.log" 2>&1) || {
	tail -n 40 "$out/build.log" >&2
	tw_die "dpkg-buildpackage failed (log: $out/build.log)"
}
mv "$out"/src/*.deb "$out"/src/*.changes "$out"/src/*.buildinfo "$out/"
tw_log "deb: built $(cd "$out" && echo ./*.deb) in $(($(date +%s) - t0))s"

# Lintian: errors fail, warnings are listed.
rc=0
lintian -I --tag-display-limit 0 --fail-on error "$out"/*.changes >"$out/lintian.log" 2>&1 || rc=$?
tw_log "deb: lintian: $(grep -c '^E: ' "$out/lintian.log") errors," \
	"$(grep -c '^W: ' "$out/lintian.log") warnings," \
	"$(grep -c '^I: ' "$out/lintian.log") info (build/deb/lintian.log)"
grep -E '^(E|W): ' "$out/lintian.log" >&2 || true
[ "$rc" -eq 0 ] || tw_die "lintian reports errors"
