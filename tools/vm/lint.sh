#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make lint`: the checks a kernel maintainer runs before reading a patch.
#   checkpatch --strict, kernel-doc, sparse, W=1 -Werror against every
#   kernel `make check` tests (sparse on the two debug trees), coccicheck
#   (the 6.12 tree's semantic patches, Debian's coccinelle), shellcheck, the
#   uapi header alone in C and C++, libtwheel with -Werror, the
#   documentation and man pages rendered without warnings, twheel(4)
#   naming every macro and structure of the uapi header, the module's
#   include graph free of cycles and of includes across its layers, and
#   the per-CPU driver's files calling each other in one order and no
#   call circle among the module's files.
# Ends with "lint: N passed, N failed, N skipped"; exits non-zero on any failure.
set -uo pipefail
# shellcheck source=tools/vm/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$TW_TOP" || exit 1

pass=0
fail=0
skip=0
out=$TW_BUILD/lint
mkdir -p "$out"

# gate NAME CMD...: run one gate, keep its output, count it.
gate() {
	local name=$1 log t0
	shift
	log=$out/$name.log
	t0=$(date +%s)
	if "$@" >"$log" 2>&1; then
		pass=$((pass + 1))
		tw_log "lint: $name ok ($(($(date +%s) - t0))s)"
	else
		fail=$((fail + 1))
		tw_log "lint: $name FAILED ($(($(date +%s) - t0))s):"
		tail -n 40 "$log" >&2
	fi
}

kdebug=$("$TW_TOP/tools/vm/build-kernel.sh" 6.12) || tw_die "no 6.12 tree"
kstock=$(tw_stock_headers 6.1) || tw_die "no linux-headers-6.1.0-*-amd64 (make setup)"
krt=$(tw_stock_headers 6.12-rt) || tw_die "no linux-headers-6.12.*+deb12-rt-amd64 (make setup)"
# The newest kernel of Debian's development suite: skipped (never passed)
# if the suite cannot be reached.
rc=0
knew=$("$TW_TOP/tools/vm/build-kernel.sh" newest) || rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || tw_die "newest kernel build failed"
cp=$TW_SRC/scripts/checkpatch.pl
kd=$TW_SRC/scripts/kernel-doc

# Kernel code: every checkpatch --strict type. Userspace code (selftests,
# twheelctl, the host shim, the bench programs, the doc example) ignores
# only what does not apply outside the kernel:
#   PREFER_KERNEL_TYPES, BIT_MACRO, PREFER_DEFINED_ATTRIBUTE_MACRO: there is
#     no u32, BIT() or __packed in userspace (stdint.h, plain attributes);
#   VOLATILE: sig_atomic_t-style flags shared with signal handlers;
#   MACRO_ARG_REUSE: the test harness' EXPECT-style macros;
#   CAMELCASE: the C library's PRIu64-style macros;
#   SPLIT_STRING, LONG_LINE_STRING, QUOTED_WHITESPACE_BEFORE_NEWLINE,
#   PARENTHESIS_ALIGNMENT: twheelctl's manual page and messages, kept whole
#     and laid out as printed so that they can be grepped.
UIGNORE=PREFER_KERNEL_TYPES,BIT_MACRO,PREFER_DEFINED_ATTRIBUTE_MACRO,VOLATILE
UIGNORE=$UIGNORE,MACRO_ARG_REUSE,CAMELCASE,SPLIT_STRING,LONG_LINE_STRING
UIGNORE=$UIGNORE,QUOTED_WHITESPACE_BEFORE_NEWLINE,PARENTHESIS_ALIGNMENT
mapfile -t ksrc < <(git ls-files 'twheel/*.[ch]' 'include/*.h' 'uapi/*.h' \
	'tools/bench/kbench*.[ch]')
mapfile -t usrc < <(git ls-files '*.[ch]' | grep -vxF -f <(printf '%s\n' "${ksrc[@]}"))
mapfile -t kdoc < <(git ls-files 'include/*.h' 'twheel/*.c' 'twheel/*.h')

checkpatch() {
	local r
	r=$(perl "$cp" --strict --no-tree --no-summary --terse --show-types "$@" |
		grep -E 'ERROR|WARNING|CHECK')
	[ -z "$r" ] || { echo "$r"; return 1; }
}

kerneldoc() {
	local r
	r=$(perl "$kd" -none -Wall "$@" 2>&1)
	[ -z "$r" ] || { echo "$r"; return 1; }
}

# W=1 (+ sparse with C=2 on the 6.12 tree): zero warnings, -Werror.
kbuild() {
	local kdir=$1 dir=$2 extra=${3:-}
	"$TW_TOP/tools/vm/build-module.sh" "$kdir" "$dir" >/dev/null || return 1
	make -C "$kdir" M="$dir" clean >/dev/null
	# shellcheck disable=SC2086
	make -C "$kdir" M="$dir" W=1 KCFLAGS=-Werror TWHEEL_TESTHOOKS=1 $extra modules \
		>"$dir.log" 2>&1 || { tail -n 30 "$dir.log"; return 1; }
	if grep -E 'warning:|error:' "$dir.log"; then
		return 1
	fi
	# C=2 must really run sparse: kbuild only warns when it cannot.
	case $extra in
	*C=2*)
		if grep -E 'specified, but .* not available' "$dir.log" ||
			! grep -q '^ *CHECK ' "$dir.log"; then
			echo "sparse did not run"
			return 1
		fi
		;;
	esac
	return 0
}

# sparse_usable KDIR: the tree's own checker test (scripts/checker-valid.sh,
# 6.15+) accepts this sparse; trees without the test take any sparse.
sparse_usable() {
	local t=$1/source/scripts/checker-valid.sh
	[ -f "$t" ] || t=$1/scripts/checker-valid.sh
	[ -f "$t" ] || return 0
	[ "$(sh "$t" sparse -m64 -mlittle-endian 2>/dev/null)" = 1 ]
}

# coccicheck: every semantic patch of the 6.12 tree's scripts/coccinelle in
# report mode, on a private copy of the kernel sources alone (the module,
# its KUnit suites, the bench module, their headers: userspace code is not
# kernel code). Any report naming one of our files is a finding. J=2: about
# a minute on an idle 2-core machine, under three when it is shared.
cocci() {
	local dir=$TW_BUILD/lint-cocci r
	command -v spatch >/dev/null || { echo "spatch missing (make setup)"; return 1; }
	rm -rf "$dir"
	mkdir -p "$dir"
	cp --parents -t "$dir" Kbuild compat.mk "${ksrc[@]}" || return 1
	make -C "$kdebug" M="$dir" coccicheck MODE=report J=2 TWHEEL_TESTHOOKS=1 >"$dir.log" 2>&1 ||
		{ tail -n 30 "$dir.log"; return 1; }
	r=$(grep -F "$dir/" "$dir.log" | grep -v '^/usr/bin/spatch ')
	[ -z "$r" ] || { echo "${r//$dir\//}"; return 1; }
}

uapi() {
	echo '#include <linux/twheel.h>' >"$out/uapi.c"
	gcc -fsyntax-only -Wall -Wextra -Werror -I uapi -x c "$out/uapi.c" &&
		g++ -fsyntax-only -Wall -Wextra -Werror -I uapi -x c++ "$out/uapi.c"
}

# libtwheel: the library warning-free, its header alone in C99 and C++.
libtwheel() {
	echo '#include <twheel.h>' >"$out/libtwheel.c"
	gcc -fsyntax-only -Wall -Wextra -Wshadow -Werror -I uapi tools/lib/twheel/twheel.c &&
		gcc -fsyntax-only -Wall -Wextra -Werror -pedantic -std=c99 -I uapi \
			-I tools/lib/twheel -x c "$out/libtwheel.c" &&
		g++ -fsyntax-only -Wall -Wextra -Werror -pedantic -I uapi \
			-I tools/lib/twheel -x c++ "$out/libtwheel.c"
}

# Man pages: rendered by man -l with groff's warnings on; any message fails.
# A page that is only ".so man3/OTHER.3" must name a page that exists.
manpages() {
	local p t r rc=0
	for p in Documentation/man/*.[1-8]; do
		if [ "$(wc -l <"$p")" -eq 1 ] && grep -q '^\.so ' "$p"; then
			t=Documentation/man/$(sed -n 's|^\.so man[1-8]/||p' "$p")
			[ -f "$t" ] || { echo "$p: .so target $t missing"; rc=1; }
			continue
		fi
		r=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \
			man --warnings -E UTF-8 -l "$p" 2>&1 >/dev/null)
		[ -z "$r" ] || { echo "$p: $r"; rc=1; }
	done
	return $rc
}

# twheel(4) keeps up with the ABI: it names every macro (ioctl, flag,
# feature bit, limit) and every structure of uapi/linux/twheel.h.
man_uapi() {
	local n rc=0
	while read -r n; do
		grep -qw -e "$n" Documentation/man/twheel.4 ||
			{ echo "twheel(4) does not name $n of uapi/linux/twheel.h"; rc=1; }
	done < <(sed -n -e 's/^#define \(TWHEEL_[A-Z0-9_]*\).*/\1/p' \
		-e 's/^struct \(twheel_[a-z0-9_]*\) {.*/\1/p' uapi/linux/twheel.h)
	return $rc
}

# Small files with one job: none of the module's or twheelctl's over 600
# lines.
file_sizes() {
	local f n rc=0
	while read -r f; do
		n=$(wc -l <"$f")
		[ "$n" -le 600 ] || { echo "$f: $n lines, more than 600"; rc=1; }
	done < <(git ls-files 'twheel/*.[ch]' 'tools/twheelctl/*.[ch]')
	return $rc
}

# The module's include graph: no cycle, and each layer includes only what
# it may (the device and the clocks never the driver's own headers).
gate includes python3 tools/vm/includes.py
gate file-sizes file_sizes
gate checkpatch-kernel checkpatch -f "${ksrc[@]}"
gate checkpatch-user checkpatch --ignore "$UIGNORE" -f "${usrc[@]}"
gate kernel-doc kerneldoc "${kdoc[@]}"
gate w1-sparse-6.12 kbuild "$kdebug" "$TW_BUILD/lint-6.12" C=2
# The driver's files call each other in base_int.h's order, and no files
# of the module call each other in a circle, read from the objects the 6.12
# build just made.
gate driver-calls python3 tools/vm/calls.py "$TW_BUILD/lint-6.12"
gate "w1-stock-$(tw_stock_release 6.1)" kbuild "$kstock" "$TW_BUILD/lint-stock"
gate "w1-stock-$(tw_stock_release 6.12-rt)" kbuild "$krt" "$TW_BUILD/lint-stock-rt"
if [ "$rc" -ne 0 ]; then
	tw_log "lint: w1-sparse-newest SKIPPED (development suite unreachable)"
	skip=$((skip + 1))
elif sparse_usable "$knew"; then
	gate "w1-sparse-$(tw_kdir_release "$knew")" kbuild "$knew" "$TW_BUILD/lint-newest" C=2
else
	# Debian's sparse (0.6.4, also in the development suite) predates
	# __typeof_unqual__, which newer trees' checker-valid.sh requires:
	# W=1 -Werror still runs, sparse is reported as skipped.
	gate "w1-$(tw_kdir_release "$knew")" kbuild "$knew" "$TW_BUILD/lint-newest"
	tw_log "lint: sparse-$(tw_kdir_release "$knew") SKIPPED ($(sparse --version) too old for this tree)"
	skip=$((skip + 1))
fi
gate coccicheck cocci
gate shellcheck shellcheck -x tools/vm/*.sh tools/bench/*.sh tools/verify/*.sh .ci/run
gate uapi-c-c++ uapi
gate libtwheel libtwheel
# The host build of the wheel core (make bench's core tier, the model test):
# it includes the in-kernel API header through a shim, which must keep up.
gate host-core make -s -C tools/testing/twheel OUT="$TW_BUILD/host" \
	CC="gcc -Werror" all
gate man-pages manpages
gate man-uapi man_uapi
gate docs python3 tools/docs/render.py . "$kd" Documentation/twheel.rst \
	"$TW_BUILD/doc/twheel.html"
gate docs-verify python3 tools/docs/render.py . "$kd" Documentation/verify.rst \
	"$TW_BUILD/doc/verify.html"
gate docs-results python3 tools/docs/render.py . "$kd" Documentation/results.rst \
	"$TW_BUILD/doc/results.html"

echo "lint: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
