#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make report RESULTS="dir1 dir2 ...": merge the results directories of
# shards (each a build/<KERNEL>/results of a gate or mutants run
# restricted by ARCHES= and KERNEL=, with the meta.json that run wrote,
# copied anywhere: a CI artifact) into one table per tree, one JUnit XML,
# one JSON and one exit code, as one run of the whole matrix gives.
#
# Which cells must be there: EXPECT="6.1:x86_64 6.1:i386 6.12:riscv64"
# (TREE:ARCH; an arch brings its compat row), else every arch of ARCHES
# (default: all) on every tree of KERNEL (default 6.1; "6.1 6.12" for
# both).  A cell that no shard holds, a shard without meta.json (its run
# did not finish), a result cut off or changed after its run: a failure,
# never a pass.  Shards of different series, suite or project commits are
# refused.
#
# Environment: CHANGE (the change the shards gated: its rule for base, its
# mutants and declaration; default patches), EXPECT or KERNEL and ARCHES,
# MODE (gate, or mutants: then every patch of MUTANTS_DIR, default the
# change's mutants/, on the expected rows), OUT (default
# build/report: summary.md, summary.json, junit.xml; mutants.md and
# mutants.json in mutants mode; one directory per tree too when there are
# several).
# Exit: 0 every expectation met, 1 one was not, 2 usage or a refused merge.
#
# usage: report.sh DIR...
set -eu
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

[ $# -gt 0 ] || die 'usage: make report RESULTS="dir1 dir2 ..." [EXPECT="6.1:x86_64 6.12:i386 ..."] [MODE=gate|mutants] [OUT=dir]'
ROOT=$(repo_root)
MODE=${MODE:-gate}
case $MODE in gate | mutants) ;; *) die "MODE=$MODE: use gate or mutants" ;; esac
OUT=${OUT:-build/report}
case $OUT in /*) ;; *) OUT=$ROOT/$OUT ;; esac
need_python3
change_paths
matrix change "$CHANGE" || exit 2
for d in "$@"; do
	[ -d "$d" ] || die "RESULTS: no results directory at $d"
done

if [ -z "${EXPECT:-}" ]; then
	for t in ${KERNEL:-$(matrix default-tree)}; do
		for a in ${ARCHES-$(known_arches)}; do
			EXPECT="${EXPECT:-} $t:$a"
		done
	done
fi
[ -n "$(echo ${EXPECT:-})" ] || die "EXPECT is empty: give TREE:ARCH words, or KERNEL and ARCHES"

# TREE:ARCH -> TREE:ROW for each row of the arch.
known_t=" $(known_trees) ksrc "
known_a=$(known_arches)
rows=
seen=" "
for w in $EXPECT; do
	t=${w%%:*}
	a=${w#*:}
	case $w in *:*) ;; *) die "EXPECT: '$w' is not TREE:ARCH (e.g. 6.1:x86_64)" ;; esac
	case $known_t in *" $t "*) ;; *) die "EXPECT: unknown tree '$t' in '$w'; choose from:$known_t" ;; esac
	case " $known_a " in *" $a "*) ;; *) die "EXPECT: unknown arch '$a' in '$w'; choose from: $known_a" ;; esac
	case $seen in *" $w "*) die "EXPECT: '$w' is given twice" ;; esac
	seen="$seen$w "
	for r in $(arch_rows "$a"); do
		rows="$rows $t:$r"
	done
done

mkdir -p "$OUT"
echo "report: $MODE, $# shard(s): $*; expected:$rows; writing to $OUT"
args=(--mode "$MODE" --merge "$@" --out "$OUT" --expect-rows "${rows# }")
if change_is_ours; then
	args+=(--change-kind ours)
else
	args+=(--change-kind other)
fi
if [ "$MODE" = mutants ]; then
	MUTANTS_DIR=${MUTANTS_DIR:-$CHANGE/mutants}
	case $MUTANTS_DIR in /*) ;; *) MUTANTS_DIR=$ROOT/$MUTANTS_DIR ;; esac
	declared=$CHANGE/abi-change
	[ -e "$declared" ] || declared=/dev/null
	args+=(--mutants-dir "$MUTANTS_DIR" --abi-declared "$declared")
fi
exec "$PYTHON3" "$ROOT/scripts/summarize.py" "${args[@]}"
