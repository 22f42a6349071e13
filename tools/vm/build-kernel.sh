#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build (or reuse) the twheel debug test kernel: tinyconfig of Debian's
# linux-source-6.12 plus selftests/config, cached under build/ by the hash of
# the fragment and of this script. Prints the kernel output directory.
set -euo pipefail
# shellcheck source=tools/vm/lib.sh
. "$(dirname "$0")/lib.sh"

out=$(tw_kernel_dir)
if [ -f "$out/.twheel-built" ]; then
	tw_log "test kernel: reusing cached $out"
	echo "$out"
	exit 0
fi

if [ ! -f "$TW_SRC/Makefile" ]; then
	[ -f "$TW_SRC_TARBALL" ] || tw_die "$TW_SRC_TARBALL missing (apt-get install linux-source-6.12)"
	tw_log "unpacking $TW_SRC_TARBALL"
	rm -rf "$TW_SRC.tmp"
	mkdir -p "$TW_SRC.tmp"
	tar -xf "$TW_SRC_TARBALL" -C "$TW_SRC.tmp" --strip-components=1
	mv "$TW_SRC.tmp" "$TW_SRC"
fi

rm -rf "$out"
mkdir -p "$out"
kmake() { make -C "$TW_SRC" O="$out" ARCH=x86_64 "$@"; }

tw_log "configuring: tinyconfig + $TW_FRAGMENT"
kmake -s tinyconfig
"$TW_SRC/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$TW_FRAGMENT" >"$out/merge.log"
kmake -s olddefconfig

# merge_config drops options whose dependencies are unmet: check each one.
missing=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		grep -qxF "$line" "$out/.config" || {
			tw_log "config: wanted '$line', got '$(grep -E "^(# )?${line%%=*}[= ]" "$out/.config" || echo unset)'"
			missing=$((missing + 1))
		}
		;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }
		opt=${opt%% *}
		if grep -q "^$opt=" "$out/.config"; then
			tw_log "config: wanted $opt unset, got '$(grep "^$opt=" "$out/.config")'"
			missing=$((missing + 1))
		fi
		;;
	esac
done <"$TW_FRAGMENT"
[ "$missing" -eq 0 ] || tw_die "$missing requested config option(s) did not end up set"
tw_log "config: all $(grep -c '^CONFIG_\|^# CONFIG_.* is not set' "$TW_FRAGMENT") requested options verified"

tw_log "building bzImage and modules with $(nproc) jobs (minutes)"
kmake -j"$(nproc)" bzImage modules >"$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log" >&2
	tw_die "kernel build failed (log: $out/build.log)"
}
touch "$out/.twheel-built"
echo "$out"
