# SPDX-License-Identifier: GPL-2.0
# twheel top-level Makefile: userspace and orchestration only. The kernel
# side is described by ./Kbuild, which kbuild reads in preference to this file.
#
#   make [all]        modules + userspace tools + uapi header check
#   make modules      $(MAKE) -C $(KDIR) M=$(CURDIR) modules
#   make tools        static selftests and twheelctl under build/
#   make lib          libtwheel.so.1 + libtwheel.a under build/lib/
#   make install      module + twheelctl + libtwheel + headers + .pc + man
#                     (PREFIX, LIBDIR, DESTDIR); install-user without module
#   make deb          Debian packages under build/deb/; deb-check installs
#                     and purges them on this machine
#   make check        full VM test run (debug 6.12 + stock Debian kernel)
#   make verify       proofs: ring litmus tests (herd7, kernel memory model)
#                     and the wheel core model-checked (cbmc)
#   make shell        boot the stock kernel with twheel loaded, serial shell
#   make clean
#
# KDIR selects the kernel tree for `make modules`; by default the running
# kernel's /lib/modules/$(uname -r)/build, else the project's 6.12 debug tree
# (built on demand by tools/vm/build-kernel.sh, cached under build/).

ifneq ($(KERNELRELEASE),)
$(error kbuild read the top-level Makefile: ./Kbuild is missing)
endif

BUILD    := build
KSRC     := $(BUILD)/src-6.12
HARNESS  := $(KSRC)/tools/testing/selftests/kselftest_harness.h
VM       := tools/vm

KDIR     ?= $(wildcard /lib/modules/$(shell uname -r)/build)

CC       ?= gcc
CXX      ?= g++
USER_CFLAGS  := -Wall -Wextra -O2 -I uapi
USER_LDFLAGS := -static -pthread

# Selftests: one binary per selftests/*.c (kselftest harness from the 6.12
# source tree); shared helpers may live in selftests/*.h.
ST_SRCS  := $(wildcard selftests/*.c)
ST_BINS  := $(patsubst selftests/%.c,$(BUILD)/selftests/%,$(ST_SRCS))
ST_HDRS  := $(wildcard selftests/*.h) twheel/stats_list.h

# twheelctl: tools/twheelctl/*.c, one file per command or job (main.c).
CTL_SRCS := $(wildcard tools/twheelctl/*.c)
CTL_HDRS := $(wildcard tools/twheelctl/*.h) twheel/stats_list.h
CTL_BIN  := $(if $(CTL_SRCS),$(BUILD)/bin/twheelctl)

UAPI_HDRS := $(wildcard uapi/linux/*.h)

# libtwheel (tools/lib/twheel/, built under build/lib/, rules below).
# twheelctl, the documentation example and the selftests link its static
# archive: they include <twheel.h> (USER_LIB_CFLAGS) and add $(LIB_A).
LIB_SRC_DIR := tools/lib/twheel
LIB_OUT     := $(BUILD)/lib
LIB_MAJOR   := $(shell sed -n 's/^\#define LIBTWHEEL_MAJOR[[:space:]]*//p' $(LIB_SRC_DIR)/twheel.h)
LIB_MINOR   := $(shell sed -n 's/^\#define LIBTWHEEL_MINOR[[:space:]]*//p' $(LIB_SRC_DIR)/twheel.h)
LIB_VERSION := $(LIB_MAJOR).$(LIB_MINOR).0
LIB_SONAME  := libtwheel.so.$(LIB_MAJOR)
LIB_SO      := $(LIB_OUT)/libtwheel.so.$(LIB_VERSION)
LIB_A       := $(LIB_OUT)/libtwheel.a
LIB_DEPS    := $(wildcard $(LIB_SRC_DIR)/*.[ch]) $(UAPI_HDRS)
LIB_CFLAGS  := -Wall -Wextra -O2 -I uapi $(CPPFLAGS) $(CFLAGS)
USER_LIB_CFLAGS := -I $(LIB_SRC_DIR)

.PHONY: all modules tools uapi-check check shell demo bench stress lint clean \
	modules_install install install-udev uninstall dkms dkms-check \
	setup kernel help distclean lib install-lib install-man install-tools verify \
	install-user uninstall-user deb deb-check

all: modules tools uapi-check

help:
	@sed -n '2,21s/^# \{0,1\}//p' Makefile

# ---------------------------------------------------------------- kernel side

modules:
	@test -f Kbuild || { echo "twheel: no ./Kbuild yet, nothing to build" >&2; exit 1; }
	@kdir='$(KDIR)'; \
	if [ -z "$$kdir" ]; then \
		kdir=$$($(VM)/build-kernel.sh) || exit 1; fi; \
	echo "twheel: building modules against $$kdir"; \
	$(MAKE) -C "$$kdir" M=$(CURDIR) modules

# The debug test kernel alone (cached).
kernel:
	@$(VM)/build-kernel.sh >/dev/null

setup:
	@$(VM)/setup.sh

# ---------------------------------------------------------------- userspace

# The documentation's userspace example must keep compiling.
EXAMPLE  := $(BUILD)/bin/twheel-example

tools: $(ST_BINS) $(CTL_BIN) $(EXAMPLE)

$(EXAMPLE): Documentation/examples/twheel-example.c $(LIB_A) $(LIB_DEPS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(USER_LIB_CFLAGS) -Werror -o $@ $< $(LIB_A) $(USER_LDFLAGS)

$(HARNESS):
	@$(VM)/setup.sh source

# Selftests on raw ioctls (ABI edge cases) pull nothing from the archive.
$(BUILD)/selftests/%: selftests/%.c $(ST_HDRS) $(LIB_A) $(LIB_DEPS) | $(HARNESS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(USER_LIB_CFLAGS) -isystem $(KSRC)/tools/testing/selftests \
		-o $@ $< $(LIB_A) $(USER_LDFLAGS)

$(BUILD)/bin/twheelctl: $(CTL_SRCS) $(CTL_HDRS) $(LIB_A) $(LIB_DEPS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(USER_LIB_CFLAGS) -o $@ $(CTL_SRCS) $(LIB_A) $(USER_LDFLAGS)

# The uapi header must stand alone in both C and C++.
uapi-check: $(BUILD)/uapi-check.stamp

$(BUILD)/uapi-check.stamp: $(UAPI_HDRS)
	@mkdir -p $(BUILD)
	@if [ -f uapi/linux/twheel.h ]; then \
		echo '#include <linux/twheel.h>' >$(BUILD)/uapi-check.c && \
		echo "  UAPI    gcc -fsyntax-only -x c, g++ -fsyntax-only -x c++: uapi/linux/twheel.h" && \
		$(CC) -fsyntax-only -Wall -Wextra -Werror -I uapi -x c $(BUILD)/uapi-check.c && \
		$(CXX) -fsyntax-only -Wall -Wextra -Werror -I uapi -x c++ $(BUILD)/uapi-check.c && \
		touch $@; \
	else \
		echo "twheel: uapi/linux/twheel.h not present yet, uapi check skipped"; \
	fi

# ---------------------------------------------------------------- libtwheel
# tools/lib/twheel/: libtwheel.so.1 (soname, symbol versions from
# libtwheel.map) and libtwheel.a, built with the caller's CFLAGS/LDFLAGS
# (dpkg-buildflags when packaged).


lib: $(LIB_SO) $(LIB_A)

$(LIB_OUT)/pic/%.o: $(LIB_SRC_DIR)/%.c $(LIB_DEPS)
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -fPIC -c -o $@ $<

$(LIB_OUT)/static/%.o: $(LIB_SRC_DIR)/%.c $(LIB_DEPS)
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -c -o $@ $<

$(LIB_SO): $(LIB_OUT)/pic/twheel.o $(LIB_SRC_DIR)/libtwheel.map
	$(CC) $(LDFLAGS) -shared -Wl,-soname,$(LIB_SONAME) \
		-Wl,--version-script=$(LIB_SRC_DIR)/libtwheel.map -Wl,-z,defs \
		-o $@ $< -lc
	ln -sf $(@F) $(LIB_OUT)/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(LIB_OUT)/libtwheel.so

$(LIB_A): $(LIB_OUT)/static/twheel.o
	rm -f $@
	$(AR) rcs $@ $^

# The library's tests, static for the guest: selftests/libtwheel_*.c use
# only <twheel.h>; the pkg-config application and the event-loop examples
# are compiled with nothing but pkg-config's flags, against a staged
# install of the library (build/stage, the .pc file as installed).
STAGE      := $(BUILD)/stage
STAGE_PC   := PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR=$(CURDIR)/$(STAGE)/usr/local/lib/pkgconfig \
	PKG_CONFIG_SYSROOT_DIR=$(CURDIR)/$(STAGE) pkg-config --static
STAGE_STAMP := $(STAGE)/.stamp
LIB_APPS   := $(BUILD)/selftests/libtwheel_app $(BUILD)/selftests/libtwheel_libuv \
	$(BUILD)/selftests/libtwheel_libevent

tools: $(LIB_APPS)

$(STAGE_STAMP): $(LIB_SO) $(LIB_A) $(LIB_SRC_DIR)/libtwheel.pc.in
	rm -rf $(STAGE)
	$(MAKE) --no-print-directory -s install-lib DESTDIR=$(CURDIR)/$(STAGE) \
		PREFIX=/usr/local LIBDIR=/usr/local/lib
	touch $@

$(BUILD)/selftests/libtwheel_%: selftests/libtwheel_%.c $(LIB_A) $(LIB_DEPS) | $(HARNESS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -I $(LIB_SRC_DIR) -isystem $(KSRC)/tools/testing/selftests \
		-o $@ $< $(LIB_A) $(USER_LDFLAGS)

$(BUILD)/selftests/libtwheel_app: Documentation/examples/twheel-lib.c $(STAGE_STAMP)
	@mkdir -p $(@D)
	$(CC) -O2 -Wall -Wextra -Werror $$($(STAGE_PC) --cflags libtwheel) -o $@ $< \
		$$($(STAGE_PC) --libs libtwheel) -static

$(BUILD)/selftests/libtwheel_libuv: Documentation/examples/twheel-libuv.c $(STAGE_STAMP)
	@mkdir -p $(@D)
	$(CC) -O2 -Wall -Wextra -Werror $$($(STAGE_PC) --cflags libtwheel) \
		$$(pkg-config --cflags libuv-static) \
		-o $@ $< $$($(STAGE_PC) --libs libtwheel) \
		$$(pkg-config --static --libs libuv-static) -static

$(BUILD)/selftests/libtwheel_libevent: Documentation/examples/twheel-libevent.c $(STAGE_STAMP)
	@mkdir -p $(@D)
	$(CC) -O2 -Wall -Wextra -Werror $$($(STAGE_PC) --cflags libtwheel) \
		$$(pkg-config --cflags libevent_core) \
		-o $@ $< $$($(STAGE_PC) --libs libtwheel) \
		$$(pkg-config --static --libs libevent_core) -static

# ---------------------------------------------------------------- VM runs

# Ends with the single line "twheel: N passed, N failed, N skipped".
# KERNELS="debug stock" selects the kernels (default both).
check:
	@MAKE='$(MAKE)' $(VM)/check.sh

# The proofs of Documentation/verify.rst, with herd7 and cbmc from a chroot
# of Debian's development suite cached under build/ (skipped, never passed,
# when it cannot be had). Ends with "verify: N passed, N failed, N skipped".
verify:
	@tools/verify/run.sh

# Stock Debian kernel with twheel loaded, interactive shell on the serial
# console (exit the shell to power off). KERNEL=debug-6.12, stock-6.12-rt,
# debug-newest pick another kernel (tools/vm/lib.sh).
shell:
	@MAKE='$(MAKE)' $(VM)/shell.sh $(KERNEL)

# Hooks for scripts others provide: run tools/vm/<name>.sh when present.
# Benchmarks (not tests): QUICK=1 for a short run, TIER=kernel, user, cost,
# exact or burst for one part, PROFILE=1 to profile the bursts; results in
# build/bench/ (Documentation/bench.rst).
bench:
	@tools/bench/run.sh

demo stress:
	@if [ -x $(VM)/$@.sh ]; then exec $(VM)/$@.sh; \
	else echo "twheel: 'make $@' not yet available ($(VM)/$@.sh missing)"; fi

lint:
	@if [ -x $(VM)/lint.sh ]; then exec $(VM)/lint.sh; \
	else echo "twheel: full lint not yet available ($(VM)/lint.sh missing); shellcheck only"; \
		shellcheck -x $(VM)/*.sh .ci/run; fi

clean:
	@if [ -f Kbuild ] && [ -n '$(KDIR)' ]; then \
		$(MAKE) -C '$(KDIR)' M=$(CURDIR) clean; fi
	rm -rf $(BUILD)/selftests $(BUILD)/bin $(BUILD)/lib $(BUILD)/stage $(BUILD)/deb \
		$(BUILD)/mod-* $(BUILD)/initramfs-* \
		$(BUILD)/logs $(BUILD)/uapi-check.*
	find . \( -path ./$(BUILD) -o -path ./.git \) -prune -o \( -name '*.o' -o -name '*.ko' \
		-o -name '*.mod' -o -name '*.mod.c' -o -name '.*.cmd' -o -name modules.order \
		-o -name Module.symvers \) -print | xargs -r rm -f

# Remove everything under build/, including the cached kernels.
distclean: clean
	rm -rf $(BUILD)

# ---------------------------------------------------------------- install
# On a real host: modules against KDIR (default: the running kernel).
# INSTALL_MOD_PATH is honoured by the kernel's modules_install.

# Without kernel headers, say which package to install (not make's usage
# text for an empty -C, nor a build of the test kernel): the userspace part
# installs alone with install-user. Prints where the module went.
modules_install:
	@if [ -z '$(KDIR)' ]; then \
		echo "twheel: no kernel headers in /lib/modules/$$(uname -r)/build to build the module against." >&2; \
		echo "  Install the running kernel's headers (Debian, Ubuntu: apt-get install linux-headers-$$(uname -r);" >&2; \
		echo "  Fedora: dnf install kernel-devel-$$(uname -r)) or name a kernel build tree with KDIR=." >&2; \
		echo "  'make install-user' installs twheelctl, libtwheel, the headers and man pages alone." >&2; \
		exit 1; fi
	@$(MAKE) --no-print-directory modules
	$(MAKE) -C '$(KDIR)' M=$(CURDIR) modules_install
	@rel=$$(modinfo -F vermagic ./twheel.ko | cut -d' ' -f1); \
	[ -n "$(INSTALL_MOD_PATH)" ] || depmod -a "$$rel"; \
	ko=$$(find "$(INSTALL_MOD_PATH)/lib/modules/$$rel" -name 'twheel.ko*' 2>/dev/null | head -n 1); \
	echo "twheel: module  $${ko:-(not found under $(INSTALL_MOD_PATH)/lib/modules/$$rel)}"; \
	echo "twheel: load it with: modprobe twheel"

install: modules_install install-user

# Userspace: twheelctl, libtwheel (.so, .a, headers, .pc) and the man pages
# under PREFIX (default /usr/local; LIBDIR for a multiarch directory), all
# below DESTDIR. The headers go to INCLUDEDIR/twheel/ (twheel.h and the uapi
# header as linux/twheel.h); libtwheel.pc points the compiler there.
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
MAN_PAGES  := $(wildcard Documentation/man/*.[1-8])

install-user: install-tools install-lib install-man
	@echo "twheel: twheelctl  $(DESTDIR)$(BINDIR)/twheelctl"
	@echo "twheel: libtwheel  $(DESTDIR)$(LIBDIR)/$(LIB_SONAME), libtwheel.a"
	@echo "twheel: headers    $(DESTDIR)$(INCLUDEDIR)/twheel/twheel.h, twheel/linux/twheel.h"
	@echo "twheel: pkg-config $(DESTDIR)$(LIBDIR)/pkgconfig/libtwheel.pc (pkg-config --cflags --libs libtwheel)"
	@echo "twheel: man pages  $(DESTDIR)$(MANDIR)/man3, man4, man8"

install-tools:
	@if [ -n '$(CTL_BIN)' ]; then $(MAKE) --no-print-directory $(CTL_BIN) && \
		install -D -m 0755 $(CTL_BIN) $(DESTDIR)$(BINDIR)/twheelctl; fi

install-lib: lib
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/twheel/linux
	install -m 0644 $(LIB_SO) $(LIB_A) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(LIB_SO)) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(DESTDIR)$(LIBDIR)/libtwheel.so
	install -m 0644 $(LIB_SRC_DIR)/twheel.h $(DESTDIR)$(INCLUDEDIR)/twheel/twheel.h
	install -m 0644 uapi/linux/twheel.h $(DESTDIR)$(INCLUDEDIR)/twheel/linux/twheel.h
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@VERSION@|$(LIB_VERSION)|' $(LIB_SRC_DIR)/libtwheel.pc.in \
		>$(DESTDIR)$(LIBDIR)/pkgconfig/libtwheel.pc
	@if [ -z '$(DESTDIR)' ] && command -v ldconfig >/dev/null; then ldconfig; fi

install-man:
	@for p in $(MAN_PAGES); do s=$${p##*.}; \
		echo "install -D -m 0644 $$p $(DESTDIR)$(MANDIR)/man$$s/$${p##*/}"; \
		install -D -m 0644 $$p $(DESTDIR)$(MANDIR)/man$$s/$${p##*/} || exit 1; done

uninstall-user:
	rm -f $(DESTDIR)$(BINDIR)/twheelctl $(DESTDIR)$(LIBDIR)/libtwheel.so* \
		$(DESTDIR)$(LIBDIR)/libtwheel.a $(DESTDIR)$(LIBDIR)/pkgconfig/libtwheel.pc \
		$(DESTDIR)$(INCLUDEDIR)/twheel/twheel.h \
		$(DESTDIR)$(INCLUDEDIR)/twheel/linux/twheel.h \
		$(foreach p,$(MAN_PAGES),$(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(p)))/$(notdir $(p)))
	-rmdir $(DESTDIR)$(INCLUDEDIR)/twheel/linux $(DESTDIR)$(INCLUDEDIR)/twheel 2>/dev/null
	@if [ -z '$(DESTDIR)' ] && command -v ldconfig >/dev/null; then ldconfig; fi

install-udev:
	install -D -m 0644 tools/udev/60-twheel.rules \
		$(DESTDIR)/etc/udev/rules.d/60-twheel.rules

uninstall: uninstall-user
	rm -f $(INSTALL_MOD_PATH)/lib/modules/$$(uname -r)/updates/twheel.ko \
		$(INSTALL_MOD_PATH)/lib/modules/$$(uname -r)/extra/twheel.ko \
		$(DESTDIR)/etc/udev/rules.d/60-twheel.rules
	-dkms remove twheel/$(DKMS_VER) --all 2>/dev/null
	@[ -n "$(INSTALL_MOD_PATH)" ] || depmod -a

DKMS_VER := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)

# Register this tree with DKMS and build + install it for the running kernel.
dkms:
	rm -rf /usr/src/twheel-$(DKMS_VER)
	mkdir -p /usr/src/twheel-$(DKMS_VER)
	rsync -a --exclude build --exclude .git ./ /usr/src/twheel-$(DKMS_VER)/
	dkms install twheel/$(DKMS_VER)

# Debian packages (build/deb/*.deb, lintian clean of errors), and their
# install + purge on this machine (root; builds the module through DKMS).
deb:
	@$(VM)/deb.sh

deb-check:
	@$(VM)/deb-check.sh

# CI's proof of the DKMS path: dkms build against Debian's headers.
dkms-check:
	@$(VM)/dkms-check.sh
