#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make shell`: boot a kernel with the twheel module(s) loaded and give an
# interactive busybox shell on the serial console (this terminal).
#   shell.sh [KIND]   a kernel of tw_select_kernel (lib.sh): stock-6.1 (the
#                     default; "stock"), stock-6.12-rt, debug-6.12 ("debug"),
#                     debug-newest
# Leave with `exit` (powers off) or Ctrl-a x.
set -euo pipefail
# shellcheck source=tools/vm/lib.sh
. "$(dirname "$0")/lib.sh"

VM=$TW_TOP/tools/vm
k=${1:-stock}
cd "$TW_TOP"
tw_lock check # shares build/mod-* and the initramfs with make check
"$VM/setup.sh" all
"${MAKE:-make}" --no-print-directory -s tools
tw_select_kernel "$k"
krel=$(tw_kdir_release "$kdir")
mapfile -t kos < <("$VM/build-module.sh" "$kdir" "$TW_BUILD/mod-$krel")
[ ${#kos[@]} -gt 0 ] || tw_die "module build failed"
initrd=$TW_BUILD/initramfs-$krel.cpio.gz
"$VM/mkinitramfs.sh" "$initrd" "${kos[@]}"
exec 9>&- # the session itself does not block make check
exec "$VM/run-qemu.sh" -m shell -n "$k-$krel" "$image" "$initrd"
