#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build (or reuse) a twheel debug test kernel and print its output directory.
#   build-kernel.sh [6.12|newest]
#   6.12    tinyconfig of Debian's linux-source-6.12 plus selftests/config
#   newest  tinyconfig of the newest linux-source-X.Y of Debian's development
#           suite (tools/vm/fetch-newest.sh) plus selftests/config and
#           selftests/config-rt (PREEMPT_RT); exit status 3 if that suite
#           cannot be reached (the caller skips the kernel)
# Cached under build/kernel-<version>-<hash of the fragments and this
# script>; every requested option is checked after the merge.
set -euo pipefail
# shellcheck source=tools/vm/lib.sh
. "$(dirname "$0")/lib.sh"

series=${1:-6.12}
case $series in
6.12)
	tw_unpack_src
	src=$TW_SRC ver=6.12
	fragments=("$TW_FRAGMENT")
	;;
newest)
	rc=0
	line=$("$TW_TOP/tools/vm/fetch-newest.sh") || rc=$?
	[ "$rc" -eq 0 ] || exit "$rc"
	read -r ver src <<<"$line"
	fragments=("$TW_FRAGMENT" "$TW_FRAGMENT_RT")
	;;
*) tw_die "usage: $0 [6.12|newest]" ;;
esac

out=$(tw_kernel_dir "$ver" "${fragments[@]}")
if [ -f "$out/.twheel-built" ]; then
	tw_log "test kernel: reusing cached $out"
	echo "$out"
	exit 0
fi

rm -rf "$out"
mkdir -p "$out"
kmake() { make -C "$src" O="$out" ARCH=x86_64 "$@"; }

tw_log "configuring $ver: tinyconfig + ${fragments[*]##*/}"
kmake -s tinyconfig
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${fragments[@]}" \
	>"$out/merge.log"
kmake -s olddefconfig

# merge_config drops options whose dependencies are unmet: check each one,
# as the last fragment that names it sets it.
wanted=$(cat "${fragments[@]}" |
	sed -nE 's/^(CONFIG_[A-Za-z0-9_]+)=.*/\1 &/p; s/^# (CONFIG_[A-Za-z0-9_]+) is not set$/\1 &/p' |
	awk '{ last[$1] = $0 } END { for (k in last) print last[k] }' | cut -d' ' -f2-)
missing=0 n=0
while IFS= read -r line; do
	n=$((n + 1))
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
done <<<"$wanted"
[ "$missing" -eq 0 ] || tw_die "$missing requested config option(s) did not end up set"
tw_log "config: all $n requested options verified"

tw_log "building $ver bzImage and modules with $(nproc) jobs (minutes)"
kmake -j"$(nproc)" bzImage modules >"$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log" >&2
	tw_die "kernel build failed (log: $out/build.log)"
}
touch "$out/.twheel-built"
echo "$out"
