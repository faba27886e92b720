#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make mutants: every patch in MUTANTS_DIR is a deliberate fault on top of
# the patched kernel, and the suite must kill each one on every row of
# ARCHES (compat rows included) that it declares (a `Killed-on:` line in
# its message; every row when it has none), and survive on the others:
# the guest boots, the suite runs to its end and reports a failure.  A
# mutant that does not apply, build or boot is an error, never a kill; a
# plain diff without a mail header is taken too (its file name is its
# subject).  A mutant of patches/mutants/ that the tree ports
# (trees/<tree>/port/, Documentation/extending.md) is applied as its
# port.  Each mutant is built incrementally in the patched build dir.
# Writes results_dir mutant-<name> for each and RESULTS/mutants.md.
#
# Environment: MUTANTS_DIR (default the change's mutants/), and as for the
# gate CHANGE, ARCHES, KERNEL, KSRC, JOBS, ACCEL, V, WORK.
#
# usage: mutants.sh
set -eu
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

[ $# -eq 0 ] || die "usage: make mutants [MUTANTS_DIR=dir] [ARCHES=...] [KERNEL=...]"
ROOT=$(repo_root)
S=$ROOT/scripts
change_paths
MUTANTS_DIR=${MUTANTS_DIR:-$CHANGE/mutants}
case $MUTANTS_DIR in /*) ;; *) MUTANTS_DIR=$ROOT/$MUTANTS_DIR ;; esac

[ -d "$MUTANTS_DIR" ] || die "MUTANTS_DIR=$MUTANTS_DIR: no such directory"
mapfile -t MUTANTS < <(find "$MUTANTS_DIR" -maxdepth 1 -name '*.patch' | sort)
[ ${#MUTANTS[@]} -gt 0 ] || die "MUTANTS_DIR=$MUTANTS_DIR holds no *.patch file"
check_gate_env
# Each work tree is checked for modified files once in this run.
start_run

"$S/prepare-tree.sh" | sed 's/^/  /'
mkdir -p "$RESULTS"

# The patched tree comes back whatever happens.
restore() {
	"$S/checkout-variant.sh" patched >/dev/null 2>&1 || true
}
trap 'restore' EXIT
trap 'restore; exit 130' INT TERM

# The ABI diff of a mutant is taken against base's probe: run base on
# every arch first, with the kernels of this very configuration (warm,
# base's image is kept by its inputs, so this is a boot per arch).
echo "base: the reference of the ABI diff"
run_arches "$ARCHES" "$S/run-variant.sh" base @ARCH@ || true

variants=()
for patch in "${MUTANTS[@]}"; do
	name=$(basename "$patch" .patch)
	variant=mutant-$name
	variants+=("$variant")
	rm -rf "$(results_dir "$variant")"
	start=$(date +%s)
	err=$RESULTS/.apply-err
	# On a tree with a port of this mutant (trees/<tree>/port/), the port.
	patch=$(tree_patch "$patch")
	case $patch in "$ROOT/trees/"*) echo "$variant: ${patch#"$ROOT"/} stands for it on this tree" ;; esac
	if ! commit=$(commit_patches "$TREE" patched "$patch" 2>"$err"); then
		for arch in $ARCHES; do
			log=$(boot_log "$variant" "$arch")
			mkdir -p "$(dirname "$log")"
			{ echo "gate: mutant $name does not apply on patched:"; cat "$err"; } >"$log"
			(
				load_arch "$arch"
				"$PYTHON3" "$S/ktap-report.py" --log "$log" --variant "$variant" \
					--arch "$arch" --tree "$TREE_NAME" --out-dir "$(results_dir "$variant")" \
					${COMPAT_ABI:+--compat "$COMPAT_ABI"} >/dev/null
			)
		done
		echo "$variant: does not apply: $(tail -1 "$err")"
		continue
	fi
	"$S/checkout-variant.sh" "$commit" >/dev/null
	run_arches "$ARCHES" "$S/run-variant.sh" "$variant" @ARCH@ "$commit" || true
	echo "$variant: $(($(date +%s) - start)) s for $(echo $ARCHES | wc -w) arch(es)"
done
rm -f "$RESULTS/.apply-err"

rows=$(for a in $ARCHES; do arch_rows "$a"; done | tr '\n' ' ')
# base too: a merge of this shard (report.sh) takes the ABI diff's base
# from it, as this run does, instead of the twins alone.
write_results_meta mutants "$rows" "base ${variants[*]}"
# abi-diff kills too: base -> mutant against the change's abi-change (none:
# nothing may change).
declared=$CHANGE/abi-change
[ -e "$declared" ] || declared=/dev/null
"$PYTHON3" "$S/summarize.py" --results "$RESULTS" --mode mutants --tree "$TREE_NAME" \
	--rows "$rows" --variants "${variants[*]}" --mutants-dir "$MUTANTS_DIR" \
	--abi-declared "$declared" --change-kind "$(change_is_ours && echo ours || echo other)"
