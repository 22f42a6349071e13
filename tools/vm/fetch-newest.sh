#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch the newest upstream kernel source Debian's development suite offers
# (linux-source-X.Y), download-only, and unpack it under build/.
#   fetch-newest.sh        prints "VERSION SRCDIR", e.g. "7.2.13 build/src-7.2.13"
# Exit status 3: the suite cannot be reached (or offers no linux-source):
# the caller reports the stage as skipped, never as passed.
#
# The suite is read with a private sources list, state and cache directory
# under build/apt-dev/ (apt-get -o Dir::Etc::sourcelist=...): it is never
# added to the system's sources and nothing from it is ever installed; the
# .deb is only unpacked with dpkg -x to get the source tarball.
# Unpacked trees are cached by package version.
set -euo pipefail
# shellcheck source=tools/vm/lib.sh
. "$(dirname "$0")/lib.sh"

suite=${TW_DEV_SUITE:-sid}
mirror=${TW_DEV_MIRROR:-http://deb.debian.org/debian}
apt=$TW_BUILD/apt-dev
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/deb"
exec 7>"$apt/.lock"
flock 7
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" \
	>"$apt/sources.list"
opts=(-q -o "Dir::Etc::sourcelist=$apt/sources.list" -o Dir::Etc::sourceparts=-
	-o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache"
	-o APT::Sandbox::User=root -o Acquire::Retries=2 -o Acquire::http::Timeout=30)

if ! apt-get "${opts[@]}" update >"$apt/update.log" 2>&1 ||
	grep -qE '^(Err|W: Failed)' "$apt/update.log"; then
	tw_log "newest kernel: $suite at $mirror cannot be reached (log: $apt/update.log)"
	exit 3
fi
pkg=$(apt-cache "${opts[@]}" search --names-only '^linux-source-[0-9]+\.[0-9]+$' |
	cut -d' ' -f1 | sort -V | tail -n 1)
if [ -z "$pkg" ]; then
	tw_log "newest kernel: $suite offers no linux-source-X.Y"
	exit 3
fi
debver=$(apt-cache "${opts[@]}" show "$pkg" | sed -n 's/^Version: //p' | sort -V | tail -n 1)
ver=${debver%%-*} # 7.2.13-1 -> 7.2.13 (upstream version)
src=$TW_BUILD/src-$ver
if [ ! -f "$src/Makefile" ]; then
	tw_log "newest kernel: apt-get download $pkg=$debver (download only)"
	rm -rf "$apt/deb" "$src.tmp"
	mkdir -p "$apt/deb" "$src.tmp"
	(cd "$apt/deb" && apt-get "${opts[@]}" download "$pkg=$debver" >&2) || {
		tw_log "newest kernel: download of $pkg failed"
		exit 3
	}
	dpkg -x "$apt/deb"/"${pkg}"_*.deb "$apt/deb/root"
	tarball=$(find "$apt/deb/root/usr/src" -maxdepth 1 -name "$pkg.tar.*" | head -n 1)
	[ -n "$tarball" ] || tw_die "no /usr/src/$pkg.tar.* in $pkg"
	tw_log "newest kernel: unpacking $(basename "$tarball") into $src"
	tar -xf "$tarball" -C "$src.tmp" --strip-components=1
	rm -rf "$apt/deb"
	mv "$src.tmp" "$src"
fi
echo "$ver $src"
