#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make mutants: every patch in MUTANTS_DIR is a deliberate fault on top of
# the patched kernel, and the suite must kill each one on every arch in
# ARCHES: the guest boots, the suite runs to its end and reports a
# failure.  A mutant that does not apply, build or boot is an error, never
# a kill.  Each mutant is built incrementally in the patched build dir.
# Writes WORK/results/mutant-<name>/<arch>.* and WORK/results/mutants.md.
#
# Environment: MUTANTS_DIR (default patches/mutants), ARCHES, JOBS, WORK,
# KSRC, ACCEL, V (as for the gate).
#
# usage: mutants.sh
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || die "usage: make mutants [MUTANTS_DIR=dir] [ARCHES=...]"
ROOT=$(repo_root)
S=$ROOT/scripts
WORK=${WORK:-build}
case $WORK in /*) ;; *) WORK=$ROOT/$WORK ;; esac
export WORK
MUTANTS_DIR=${MUTANTS_DIR:-patches/mutants}
case $MUTANTS_DIR in /*) ;; *) MUTANTS_DIR=$ROOT/$MUTANTS_DIR ;; esac
ARCHES=${ARCHES:-x86_64 arm64 riscv64}
JOBS=${JOBS:-2}

[ -d "$MUTANTS_DIR" ] || die "MUTANTS_DIR=$MUTANTS_DIR: no such directory"
mapfile -t MUTANTS < <(find "$MUTANTS_DIR" -maxdepth 1 -name '*.patch' | sort)
[ ${#MUTANTS[@]} -gt 0 ] || die "MUTANTS_DIR=$MUTANTS_DIR holds no *.patch file"
check_gate_env

"$S/prepare-tree.sh" "$WORK" "${KSRC:-}" | sed 's/^/  /'
TREE=$WORK/linux
mkdir -p "$WORK/results"

# The patched tree comes back whatever happens.
restore() {
	"$S/checkout-variant.sh" patched >/dev/null 2>&1 || true
}
trap 'restore' EXIT
trap 'restore; exit 130' INT TERM

variants=()
for patch in "${MUTANTS[@]}"; do
	name=$(basename "$patch" .patch)
	variant=mutant-$name
	variants+=("$variant")
	rm -rf "$WORK/results/$variant"
	start=$(date +%s)
	if ! commit=$(commit_patches "$TREE" patched "$patch" 2>"$WORK/results/.apply-err"); then
		mkdir -p "$WORK/boot/$variant"
		for arch in $ARCHES; do
			log=$WORK/boot/$variant/$arch.log
			{ echo "gate: mutant $name does not apply on patched:"
			  cat "$WORK/results/.apply-err"; } >"$log"
			python3 "$S/ktap-report.py" --log "$log" --variant "$variant" \
				--arch "$arch" --out-dir "$WORK/results/$variant" >/dev/null
		done
		echo "$variant: does not apply: $(tail -1 "$WORK/results/.apply-err")"
		continue
	fi
	"$S/checkout-variant.sh" "$commit" >/dev/null
	run_arches $((JOBS + 1)) "$ARCHES" "$S/run-variant.sh" "$variant" @ARCH@ "$commit" || true
	echo "$variant: $(($(date +%s) - start)) s for $(echo $ARCHES | wc -w) arch(es)"
done
rm -f "$WORK/results/.apply-err"

python3 "$S/summarize.py" --results "$WORK/results" --mode mutants \
	--arches "$ARCHES" --variants "${variants[*]}" --mutants-dir "$MUTANTS_DIR"
