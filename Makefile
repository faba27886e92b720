# SPDX-License-Identifier: GPL-2.0
#
# clone3-clear-sighand: the CLONE_CLEAR_SIGHAND series, its selftests and
# the QEMU gate that proves them.  Every target is one script in scripts/;
# this file holds no settings of its own: the variables given on the
# command line (ARCHES, KERNEL, KSRC, ACCEL, JOBS, V, MUTANTS_DIR, ...)
# reach the scripts as they are, and scripts/lib.sh gives the defaults
# and checks them.
#
#   make gate            base + patched kernels on every arch under QEMU
#   make mutants         every patch in patches/mutants/ must be killed
#   make report RESULTS="dir1 dir2 ..."
#                        merge the results of shards (gate or mutants runs
#                        of a part of the matrix) into one verdict
#   make test            the fast tests: no kernel is built (< 1 minute)
#   make check           make test, then the tests that build and boot
#                        kernels (CI runs this)
#   make selftest-host   the suite on the running kernel, no QEMU
#   make abi-probe       clone3_abi_probe's lines on the running kernel
#   make kselftest       `make kselftest TARGETS=clone3` in the patched
#                        tree, on the running kernel
#   make tree            prepare build/<KERNEL>/linux (upstream, base, patched)
#   make series          regenerate patches/ from the tree and the suite
#                        (KERNEL_REF=branch: take 0001 from base..branch)
#   make checkpatch      scripts/checkpatch.pl --strict over the series
#   make apply KSRC=dir  apply the series to a kernel tree, all or nothing
#   make bench           the figures, beside the tree's kunit.py
#   make tree-diff FROM=6.1 TO=6.12
#                        what clone3 does differently from one tree's
#                        kernel to another's, on every row

.PHONY: all gate mutants report test check selftest-host abi-probe kselftest tree series checkpatch apply bench tree-diff clean

all: gate

tree:
	@scripts/prepare-tree.sh

gate:
	@scripts/gate.sh

mutants:
	@scripts/mutants.sh

report:
	@scripts/report.sh $(RESULTS)

test:
	@scripts/check.sh fast

check:
	@scripts/check.sh

selftest-host:
	@scripts/selftest-host.sh

abi-probe:
	@scripts/abi-probe-host.sh

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

tree-diff:
	@scripts/tree-diff.sh

# Keeps the prepared trees (build/*/linux); rm -rf build/ starts over.
clean:
	rm -rf build/check build/bench build/*/results build/*/kbuild build/*/suite \
		build/*/initramfs build/*/boot build/*/linux-base build/*/kselftest-tree \
		build/*/host-selftests build/*/host-selftests.log build/*/kselftest-tree.log
