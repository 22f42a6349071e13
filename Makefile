# SPDX-License-Identifier: GPL-2.0
# twheel top-level Makefile: userspace and orchestration only. The kernel
# side is described by ./Kbuild, which kbuild reads in preference to this file.
#
#   make [all]        modules + userspace tools + uapi header check
#   make modules      $(MAKE) -C $(KDIR) M=$(CURDIR) modules
#   make tools        static selftests and twheelctl under build/
#   make check        full VM test run (debug 6.12 + stock Debian kernel)
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
ST_HDRS  := $(wildcard selftests/*.h)

# twheelctl: either tools/twheelctl/*.c or tools/twheelctl.c.
CTL_SRCS := $(wildcard tools/twheelctl/*.c tools/twheelctl.c)
CTL_HDRS := $(wildcard tools/twheelctl/*.h)
CTL_BIN  := $(if $(CTL_SRCS),$(BUILD)/bin/twheelctl)

UAPI_HDRS := $(wildcard uapi/linux/*.h)

.PHONY: all modules tools uapi-check check shell demo bench stress lint clean \
	modules_install install install-udev uninstall dkms dkms-check \
	setup kernel help distclean

all: modules tools uapi-check

help:
	@sed -n '2,14s/^# \{0,1\}//p' Makefile

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

$(EXAMPLE): Documentation/examples/twheel-example.c $(UAPI_HDRS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Werror -o $@ $< $(USER_LDFLAGS)

$(HARNESS):
	@$(VM)/setup.sh source

$(BUILD)/selftests/%: selftests/%.c $(ST_HDRS) $(UAPI_HDRS) | $(HARNESS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -isystem $(KSRC)/tools/testing/selftests -o $@ $< $(USER_LDFLAGS)

$(BUILD)/bin/twheelctl: $(CTL_SRCS) $(CTL_HDRS) $(UAPI_HDRS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $(CTL_SRCS) $(USER_LDFLAGS)

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

# ---------------------------------------------------------------- VM runs

# Ends with the single line "twheel: N passed, N failed, N skipped".
# KERNELS="debug stock" selects the kernels (default both).
check:
	@MAKE='$(MAKE)' $(VM)/check.sh

# Stock Debian kernel with twheel loaded, interactive shell on the serial
# console (exit the shell to power off). KERNEL=debug-6.12, stock-6.12-rt,
# debug-newest pick another kernel (tools/vm/lib.sh).
shell:
	@MAKE='$(MAKE)' $(VM)/shell.sh $(KERNEL)

# Hooks for scripts others provide: run tools/vm/<name>.sh when present.
# Benchmarks (not tests): QUICK=1 for a short run; results in build/bench/.
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
	rm -rf $(BUILD)/selftests $(BUILD)/bin $(BUILD)/mod-* $(BUILD)/initramfs-* \
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

modules_install: modules
	$(MAKE) -C '$(KDIR)' M=$(CURDIR) modules_install
	@[ -n "$(INSTALL_MOD_PATH)" ] || depmod -a

install: modules_install
	@if [ -n '$(CTL_BIN)' ]; then $(MAKE) tools && \
		install -D -m 0755 $(CTL_BIN) $(DESTDIR)/usr/local/bin/twheelctl; fi

install-udev:
	install -D -m 0644 tools/udev/60-twheel.rules \
		$(DESTDIR)/etc/udev/rules.d/60-twheel.rules

uninstall:
	rm -f $(INSTALL_MOD_PATH)/lib/modules/$$(uname -r)/updates/twheel.ko \
		$(INSTALL_MOD_PATH)/lib/modules/$$(uname -r)/extra/twheel.ko \
		$(DESTDIR)/usr/local/bin/twheelctl $(DESTDIR)/etc/udev/rules.d/60-twheel.rules
	-dkms remove twheel/$(DKMS_VER) --all 2>/dev/null
	@[ -n "$(INSTALL_MOD_PATH)" ] || depmod -a

DKMS_VER := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)

# Register this tree with DKMS and build + install it for the running kernel.
dkms:
	rm -rf /usr/src/twheel-$(DKMS_VER)
	mkdir -p /usr/src/twheel-$(DKMS_VER)
	rsync -a --exclude build --exclude .git ./ /usr/src/twheel-$(DKMS_VER)/
	dkms install twheel/$(DKMS_VER)

# CI's proof of the DKMS path: dkms build against Debian's headers.
dkms-check:
	@$(VM)/dkms-check.sh
