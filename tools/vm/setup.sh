#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prepare the host for the twheel build and VM tests. Idempotent and quiet when
# everything is already in place.
#   setup.sh [packages|source|stock|all]   (default: all)
#     packages  apt-get install whatever is missing from TW_PACKAGES
#     source    unpack Debian's linux-source-6.12 into build/src-6.12
#     stock     install the newest PREEMPT_RT 6.12 headers of Debian 12, fetch
#               and unpack the stock 6.1 and 6.12-rt images matching the
#               installed headers into build/ (never installed)
set -euo pipefail
# shellcheck source=tools/vm/lib.sh
. "$(dirname "$0")/lib.sh"

# coccinelle: make lint's coccicheck; ocaml-nox compiles the OCaml parts
# of the kernel's semantic patches (null/badzero.cocci, ...).
TW_PACKAGES="qemu-system-x86 busybox-static cpio linux-source-6.12 linux-headers-amd64
bc bison flex libelf-dev libssl-dev dwarves python3 sparse gnuplot-nox kmod zstd dkms
trinity shellcheck python3-docutils gcc g++ make libc6-dev rsync
liburing-dev pkgconf libuv1-dev libevent-dev man-db groff-base
debhelper dh-dkms dpkg-dev fakeroot lintian coccinelle ocaml-nox debootstrap"

setup_packages() {
	local p missing=()
	for p in $TW_PACKAGES; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
			missing+=("$p")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		tw_log "packages: all $(wc -w <<<"$TW_PACKAGES") required packages already installed"
		return 0
	fi
	[ "$(id -u)" -eq 0 ] || tw_die "packages missing (${missing[*]}); run as root or install them"
	tw_log "packages: installing missing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# Wait for another dpkg (unattended-upgrades, a parallel run) to finish.
	apt-get install -y -q -o DPkg::Lock::Timeout=600 --no-install-recommends "${missing[@]}"
}

setup_source() {
	tw_unpack_src
}

# tw_apt_newest ERE: the newest package of Debian 12's archive (the
# system's sources) whose name matches ERE; refreshes the lists once if
# they know none.
tw_apt_newest() {
	local p
	p=$(apt-cache search --names-only "$1" | cut -d' ' -f1 | grep -E "$1" | sort -V | tail -n 1)
	if [ -z "$p" ] && [ "$(id -u)" -eq 0 ]; then
		apt-get update -q >&2
		p=$(apt-cache search --names-only "$1" | cut -d' ' -f1 | grep -E "$1" | sort -V | tail -n 1)
	fi
	echo "$p"
}

# The PREEMPT_RT 6.12 headers: the newest linux-headers-6.12.*+deb12-rt-amd64
# of Debian 12's security suite (it pulls its -common-rt and linux-kbuild).
setup_rt_headers() {
	local pkg
	pkg=$(tw_apt_newest "$(tw_stock_pattern 6.12-rt)")
	[ -n "$pkg" ] || tw_die "no linux-headers-6.12.*+deb12-rt-amd64 in the archive"
	if dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null | grep -q '^install ok installed$'; then
		return 0
	fi
	[ "$(id -u)" -eq 0 ] || tw_die "$pkg missing; run as root or install it"
	tw_log "packages: installing $pkg (PREEMPT_RT stock kernel headers)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=600 \
		--no-install-recommends "$pkg"
}

# setup_stock FLAVOUR: fetch and unpack the stock image matching the
# installed headers of FLAVOUR into build/stock-<release>/ (never installed).
setup_stock() {
	local rel pkg dir deb
	rel=$(tw_stock_release "$1") || tw_die "no stock $1 headers in /usr/src"
	dir=$(tw_stock_dir "$1")
	if [ -f "$dir/vmlinuz" ]; then
		tw_log "stock kernel: reusing $dir/vmlinuz ($rel)"
		return 0
	fi
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	# The -unsigned package holds the same image without the Secure Boot
	# signature; fall back to the signed one if it is not available.
	for pkg in "linux-image-$rel-unsigned" "linux-image-$rel"; do
		tw_log "stock kernel: apt-get download $pkg"
		if (cd "$dir.tmp" && apt-get download -q -o APT::Sandbox::User=root "$pkg" >&2); then
			break
		fi
	done
	deb=$(find "$dir.tmp" -maxdepth 1 -name 'linux-image-*.deb' | head -n 1)
	[ -n "$deb" ] || tw_die "could not download linux-image-$rel"
	tw_log "stock kernel: unpacking $(basename "$deb") (dpkg -x, not installed)"
	dpkg -x "$deb" "$dir.tmp/root"
	[ -f "$dir.tmp/root/boot/vmlinuz-$rel" ] || tw_die "no boot/vmlinuz-$rel in $deb"
	ln -s "root/boot/vmlinuz-$rel" "$dir.tmp/vmlinuz"
	rm -f "$deb"
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
	tw_log "stock kernel: $dir/vmlinuz ready"
}

what=${1:-all}
case "$what" in
packages) setup_packages ;;
source) setup_source ;;
stock)
	setup_rt_headers
	setup_stock 6.1
	setup_stock 6.12-rt
	;;
all)
	setup_packages
	setup_source
	setup_rt_headers
	setup_stock 6.1
	setup_stock 6.12-rt
	;;
*) tw_die "usage: $0 [packages|source|stock|all]" ;;
esac
