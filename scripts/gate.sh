#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The gate: base and patched kernels for every arch in ARCHES, each booted
# under QEMU with the suite; summarize.py holds the results against the
# expectations and gives the closing line and the exit code.  base runs
# on every arch first, then patched: both use the source tree build/linux
# and the patched build directories (see base_build_commit in lib.sh).
#
# Environment (from the Makefile): ARCHES (x86_64 arm64 riscv64: any
# directory of qemu-images/ with a qemu.conf), JOBS (make -j of each
# kernel; JOBS+1 arches run at once, since a boot uses one core), ACCEL
# (tcg|kvm), V (0|1), KSRC (a kernel tree to use instead of Debian's
# linux-source-6.1), WORK (build, or build/ksrc-<hash> for KSRC).
# Exit: 0 every expectation met, 1 one was not, 2 usage or environment,
# 130 interrupted (earlier results and the tree stay as they were).
#
# usage: gate.sh
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || die "usage: gate.sh (settings come from the environment: ARCHES JOBS ACCEL V KSRC WORK)"
ROOT=$(repo_root)
S=$ROOT/scripts
KSRC=${KSRC:-}
WORK=${WORK:-build}
check_gate_env
case $WORK in /*) ;; *) WORK=$ROOT/$WORK ;; esac
export WORK

start=$(date +%s)
echo "gate: arches: $ARCHES; make -j$JOBS, up to $((JOBS + 1)) arches at once; accel: $ACCEL; work: $WORK"
"$S/prepare-tree.sh" "$WORK" "$KSRC"

failed=0
for v in base patched; do
	run_arches $((JOBS + 1)) "$ARCHES" "$S/run-variant.sh" "$v" @ARCH@ || failed=$?
done
"$S/checkout-variant.sh" patched >/dev/null
echo "gate: builds and boots done in $(($(date +%s) - start)) s"
[ "$failed" = 0 ] || echo "gate: an arch job stopped with status $failed (see above)" >&2

rc=0
python3 "$S/summarize.py" --results "$WORK/results" --mode gate --arches "$ARCHES" || rc=$?
[ "$failed" = 0 ] || [ "$rc" = 1 ] || rc=2
exit "$rc"
