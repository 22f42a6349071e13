#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the twheel module(s) for one kernel tree in a private copy of the
# sources, so that trees for different kernels never share objects.
#   [TW_TESTHOOKS=0] build-module.sh KDIR OUTDIR
# Copies the repository (minus build/, .git and in-tree build products) into
# OUTDIR, runs `make -C KDIR M=OUTDIR modules` there and lists the .ko files.
set -euo pipefail
# shellcheck source=tools/vm/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || tw_die "usage: $0 KDIR OUTDIR"
kdir=$(realpath "$1") out=$(realpath -m "$2")
[ -f "$TW_TOP/Kbuild" ] || tw_die "no Kbuild at $TW_TOP: nothing to build"
[ -f "$kdir/Makefile" ] || tw_die "$kdir is not a kernel build tree"

mkdir -p "$out"
# Concurrent users of one OUTDIR (make check, demo...) take turns.
exec 9>"$out.lock"
if ! flock -n 9; then
	tw_log "$out is being built by someone else; waiting"
	flock 9
fi
# Copy by content (--checksum) and stamp changed files with the current
# time, so a reverted file (older mtime) is still rebuilt; unchanged files
# and objects already built in OUTDIR are kept, so rebuilds are incremental.
# --delete keeps removed sources from lingering.
rsync -rlp --checksum --delete \
	--exclude=/build/ --exclude=/.git/ --exclude=/.ci/ \
	--exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
	--exclude='.*.cmd' --exclude='*.a' --exclude=modules.order \
	--exclude=Module.symvers --exclude='*.d' --exclude=.tmp_versions/ \
	"$TW_TOP/" "$out/"

tw_log "modules: make -C $kdir M=$out modules"
# TWHEEL_TESTHOOKS=1: a test build (the test hooks on every kernel, and the
# KUnit suites where the kernel has KUnit; see Kbuild). TW_TESTHOOKS=0 in
# the environment builds the module as a package would (make bench: the
# hooks cost a call each where they sit, even when off).
make -C "$kdir" M="$out" -j"$(nproc)" TWHEEL_TESTHOOKS="${TW_TESTHOOKS:-1}" modules >"$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log" >&2
	tw_die "module build failed for $kdir (log: $out/build.log)"
}
grep -E 'warning:' "$out/build.log" >&2 || true
[ -s "$out/modules.order" ] || tw_die "no modules built (empty modules.order)"
# modules.order: "x.o" (6.12) or "x.ko" (6.1), relative or absolute.
while IFS= read -r m; do
	m=${m%.o}
	m=${m%.ko}.ko
	case $m in /*) ;; *) m=$out/$m ;; esac
	[ -f "$m" ] || tw_die "$m listed in modules.order but not built"
	echo "$m"
done <"$out/modules.order"
