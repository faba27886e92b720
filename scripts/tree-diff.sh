#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What clone3 does differently from the kernel of tree FROM to that of
# tree TO, on every row of ARCHES: for the C library developer who wants
# to know what a new kernel does to their wrappers.  Each tree's patched
# kernel (upstream with our series; its clone3 is upstream's, see
# Documentation/abi-diff.md, "Between trees") boots with the probe, as
# the gate's patched variant does, reusing a kept boot of the same kernel
# and initramfs; tree_diff.py then prints one table and writes
# build/tree-diff/FROM-TO.md and .json.
#
# Environment: FROM, TO (trees: directories of trees/), FROM_WORK and
# TO_WORK (each tree's work directory, default build/<tree>), ARCHES,
# JOBS, ACCEL, V (as for make gate).  CHANGE is not read: the kernels are
# those of our change's gate.
# Exit: 0 the table is made, 2 usage or environment (a row that did not
# boot is named and the others are still compared), 130 interrupted.
#
# usage: tree-diff.sh
set -eu
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

[ $# -eq 0 ] || die "usage: tree-diff.sh (settings come from the environment: FROM TO FROM_WORK TO_WORK ARCHES JOBS ACCEL V)"
ROOT=$(repo_root)
S=$ROOT/scripts
unset CHANGE KSRC
trees=$(known_trees)
for side in FROM TO; do
	t=${!side:-}
	[ -n "$t" ] || die "$side is not set; give two trees, e.g. make tree-diff FROM=6.1 TO=6.12 (trees: $trees)"
	[ -f "$ROOT/trees/$t/source.conf" ] || die "$side=$t: unknown tree; choose from: $trees"
done
[ "$FROM" != "$TO" ] || die "FROM and TO are both $FROM; give two trees"

# The results directory of tree T (work directory W) after its patched
# kernels booted on every arch; the boots' own output goes to stderr.
#   boot_tree T W
boot_tree() (
	KERNEL=$1
	WORK=$2
	[ -n "$WORK" ] || unset WORK
	check_gate_env
	start_run
	echo "tree-diff: tree $KERNEL, work $WORK: patched kernels on $ARCHES" >&2
	"$S/prepare-tree.sh" >&2
	rc=0
	run_arches "$ARCHES" "$S/run-variant.sh" patched @ARCH@ >&2 || rc=$?
	"$S/checkout-variant.sh" patched >/dev/null
	[ "$rc" = 0 ] || echo "tree-diff: tree $KERNEL: an arch job stopped with status $rc (its rows are named below)" >&2
	echo "$RESULTS"
)

from_results=$(boot_tree "$FROM" "${FROM_WORK:-}")
to_results=$(boot_tree "$TO" "${TO_WORK:-}")
ARCHES=${ARCHES-$(known_arches)}
rows=$(for a in $ARCHES; do arch_rows "$a"; done | tr '\n' ' ')
mkdir -p "$ROOT/build/tree-diff"
exec "$PYTHON3" "$S/tree_diff.py" --from "$FROM" --to "$TO" \
	--from-results "$from_results" --to-results "$to_results" \
	--rows "$rows" --out "$ROOT/build/tree-diff/$FROM-$TO.md"
