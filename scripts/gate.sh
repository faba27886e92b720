#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The gate: base and patched kernels for every arch in ARCHES, each booted
# under QEMU with the suite (and, on x86_64 and arm64, the 32-bit suite in
# compat); summarize.py holds the results against the expectations and
# gives the closing line and the exit code.  base runs on every arch
# first, then patched (variant-build.sh says where each is built).
#
# Environment (see check_gate_env and gate_paths in lib/paths.sh): CHANGE
# (the change gated, a directory shaped like patches/, the default), ARCHES
# (default: every arch; any directory of qemu-images/ with a qemu.conf),
# KERNEL (6.1 or 6.12: a directory of trees/), KSRC (a kernel tree of
# yours instead), JOBS (the slots every arch shares: compilers and guests
# running at once, default the number of cores; run_arches in lib/jobserver.sh),
# ACCEL (tcg|kvm), V (0|1), WORK.
# Exit: 0 every expectation met, 1 one was not, 2 usage or environment,
# 130 interrupted (earlier results and the tree stay as they were).
#
# usage: gate.sh
set -eu
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

[ $# -eq 0 ] || die "usage: gate.sh (settings come from the environment: ARCHES KERNEL KSRC JOBS ACCEL V WORK)"
check_gate_env
# Each work tree is checked for modified files once in this run.
start_run
S=$ROOT/scripts

start=$(date +%s)
echo "gate: ${CHANGE_NAME:+change $CHANGE_NAME; }tree $TREE_NAME; arches: $ARCHES; $JOBS slots shared by the arches; accel: $ACCEL; work: $WORK"
"$S/prepare-tree.sh"

failed=0
for v in base patched; do
	run_arches "$ARCHES" "$S/run-variant.sh" "$v" @ARCH@ || failed=$?
done
"$S/checkout-variant.sh" patched >/dev/null
echo "gate: builds and boots done in $(($(date +%s) - start)) s"
[ "$failed" = 0 ] || echo "gate: an arch job stopped with status $failed (see above)" >&2

rows=$(for a in $ARCHES; do arch_rows "$a"; done | tr '\n' ' ')
write_results_meta gate "$rows" "base patched"
rc=0
kind=ours
change_is_ours || kind=other
"$PYTHON3" "$S/summarize.py" --results "$RESULTS" --mode gate --tree "$TREE_NAME" --rows "$rows" \
	--change-kind "$kind" || rc=$?
[ "$failed" = 0 ] || [ "$rc" = 1 ] || rc=2
# The ABI diff, base -> patched, against the declared change: every row.
# A change without abi-change declares that nothing changes.
abi=0
rm -f "$RESULTS/abi-diff.md"
declared=$CHANGE/abi-change
[ -e "$declared" ] || declared=/dev/null
"$PYTHON3" "$S/abi_diff.py" --declared "$declared" --results "$RESULTS" --rows "$rows" >/dev/null || abi=$?
echo "gate: $(tail -1 "$RESULTS/abi-diff.md" 2>/dev/null || echo "abi-diff: failed ($abi)") (table: $RESULTS/abi-diff.md)"
[ "$rc" != 0 ] || rc=$abi
exit "$rc"
