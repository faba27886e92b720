# SPDX-License-Identifier: GPL-2.0
#
# clone3-clear-sighand: the CLONE_CLEAR_SIGHAND series, its selftests and
# the QEMU gate that proves them.  Every target is one script in scripts/;
# this file only passes the user's variables on.
#
#   make gate            base + patched kernels on $(ARCHES) under QEMU
#   make mutants         every patch in $(MUTANTS_DIR) must be killed
#   make check           the project's own tests (CI runs this)
#   make selftest-host   the suite on the running kernel, no QEMU
#   make kselftest       `make kselftest TARGETS=clone3` in the patched
#                        tree, on the running kernel
#   make tree            prepare build/linux (upstream, base, patched)
#   make series          regenerate patches/ from the tree and the suite
#                        (KERNEL_REF=branch: take 0001 from base..branch)
#   make checkpatch      scripts/checkpatch.pl --strict over the series
#   make apply KSRC=dir  apply the series to a kernel tree, all or nothing
#   make bench           the figures, beside the tree's kunit.py

ARCHES ?= x86_64 arm64 riscv64
KSRC ?=
ACCEL ?= tcg
JOBS ?= 2
V ?= 0
MUTANTS_DIR ?= patches/mutants

export ARCHES KSRC ACCEL JOBS V MUTANTS_DIR

# With KSRC the gate works on a copy kept apart from the default tree.
WORK := $(if $(KSRC),build/ksrc-$(shell printf '%s' '$(abspath $(KSRC))' | cksum | cut -d' ' -f1),build)
export WORK

.PHONY: all gate mutants check selftest-host kselftest tree series checkpatch apply bench clean

all: gate

tree:
	@scripts/prepare-tree.sh $(WORK) $(KSRC)

gate:
	@scripts/gate.sh

mutants:
	@scripts/mutants.sh

check:
	@scripts/check.sh

selftest-host:
	@scripts/selftest-host.sh

kselftest:
	@scripts/kselftest-tree.sh

series:
	@scripts/make-series.sh $(KERNEL_REF)

checkpatch:
	@scripts/checkpatch-series.sh

apply:
	@scripts/apply-series.sh $(KSRC)

bench:
	@scripts/bench.sh

# Keeps build/linux (the prepared tree); rm -rf build/ starts over.
clean:
	rm -rf build/results build/kbuild build/suite build/initramfs build/boot
