#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: the fast tests (make test: unit tests, the toy-tree tests,
# a shell and a Python lint; no kernel tree), then the tests that need
# trees and kernels: the series and apply tests, the suite on the host,
# the gate on every tree with every arch in one of them, every mutant on
# one arch, the mutants that only some arches kill (a Killed-on: line) on
# one that must see them survive, the gate's fault tests and the scoped
# rebuild's test (the host's arch, the default tree).
# Each step's output is kept in build/check/<step>.log; the closing line
# counts every check of every step ("N passed, N failed, N skipped"; a
# skipped check is never counted as passed).  The steps run one after
# the other, but for the trees' preparations, which run at once.
#
# Which arch runs on which tree comes from scripts/matrix.py check-plan:
# each arch's kernel is built once, every tree is booted, so that CI
# stays under 30 minutes and still covers every arch and tree; the
# mutants step runs on the arch that every Killed-on: line names, the
# survivors step on one that some Killed-on: line leaves out, with the
# mutants that leave it out.  make gate / make mutants run the rest of
# the matrix.
#
# usage: check.sh [fast]
set -eu
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

[ $# -eq 0 ] || { [ $# -eq 1 ] && [ "$1" = fast ]; } || die "usage: check.sh [fast]"
MODE=${1:-all}
ROOT=$(repo_root)
cd "$ROOT"
# CHECK_LOGS: another directory for the steps' logs (the tests of
# check.sh itself use one, so as not to overwrite the logs of the make
# check they run in).
LOGS=${CHECK_LOGS:-build/check}
mkdir -p "$LOGS"

passed=0
failed=0
skipped=0

# step NAME COMMAND...: run one step, count what it reports.
step() {
	step_start "$@"
	step_end "$1"
}

# step_start NAME COMMAND...: start a step in the background, its output
# in its log, no terminal input; step_end NAME waits for it and counts
# what it reports.  Two steps that each keep one core busy and share
# nothing run at once this way.  Each step leads its own process group:
# an interrupt of make check (SIGINT, SIGTERM, SIGHUP) stops every
# process of the steps under way with SIGTERM, as the gate's own
# interrupt does its arches (run_arches, lib/jobserver.sh).
declare -A STEP_PID STEP_T0
step_start() {
	local name=$1
	shift
	echo "== $name: $*"
	set -m
	"$@" </dev/null >"$LOGS/$name.log" 2>&1 &
	STEP_PID[$name]=$!
	set +m
	STEP_T0[$name]=$SECONDS
}
trap 'stop_groups "make check: interrupted" "${STEP_PID[@]}"' INT TERM HUP

step_end() {
	local name=$1 rc=0 p f s line
	wait "${STEP_PID[$name]}" || rc=$?
	unset "STEP_PID[$name]"
	# "ok - NAME # SKIP reason" is a skip (TAP's directive), not a pass.
	p=$(grep '^ok - ' "$LOGS/$name.log" | grep -vc ' # SKIP' || true)
	f=$(grep -c '^not ok - ' "$LOGS/$name.log" || true)
	s=$(grep -c '^ok - .* # SKIP' "$LOGS/$name.log" || true)
	line=$(grep -E '^([A-Za-z][A-Za-z_-]*: )?[0-9]+ passed, [0-9]+ failed' "$LOGS/$name.log" | tail -1 || true)
	if [ -n "$line" ]; then
		line=${line#*: }
		p=$((p + $(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')))
		f=$((f + $(echo "$line" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')))
		case $line in *skipped*) s=$((s + $(echo "$line" | sed -E 's/.* ([0-9]+) skipped.*/\1/'))) ;; esac
	fi
	if [ $rc -eq 0 ] && [ "$p" = 0 ] && [ "$f" = 0 ] && [ "$s" = 0 ]; then
		p=1
	elif [ $rc -ne 0 ] && [ "$f" = 0 ]; then
		f=1
		echo "not ok - $name exited $rc" >>"$LOGS/$name.log"
	fi
	grep -E '^not ok ' "$LOGS/$name.log" | sed 's/^/  /' || true
	tail -n 2 "$LOGS/$name.log" | sed 's/^/  | /'
	echo "   $name: $p passed, $f failed, $s skipped (exit $rc; $((SECONDS - STEP_T0[$name])) s; log $LOGS/$name.log)"
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
}

# The fast part: nothing here needs a kernel tree.
# Two at a time: each keeps one core busy, and make test stays under a
# minute on two cores.
pending=()
for t in tests/test_*.py; do
	step_start "$(basename "${t%.*}")" "$PYTHON3" "$t"
	pending+=("$(basename "${t%.*}")")
	if [ ${#pending[@]} -eq 2 ]; then
		step_end "${pending[0]}"
		step_end "${pending[1]}"
		pending=()
	fi
done
[ ${#pending[@]} -eq 0 ] || step_end "${pending[0]}"
step test-base-build tests/test-base-build.sh
step test-checkout tests/test-checkout.sh
step test-hugepages tests/test-hugepages.sh
step test-space tests/test-space.sh
step test-slots tests/test-slots.sh
step test-check-stop tests/test-check-stop.sh
step test-extending tests/test-extending.sh
need_cmd shellcheck shellcheck
step shellcheck shellcheck -x -S warning .ci/run scripts/*.sh scripts/lib/*.sh tests/*.sh
need_packages python3-flake8
step flake8 "$PYTHON3" -m flake8 scripts tests
if [ "$MODE" = fast ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
	exit
fi

# The plan: "gate TREE ARCH...", one line per tree, then "host",
# "mutants" and "survivors", each "TREE ARCH".
PLAN=$(matrix check-plan) || exit 2
TREES=$(echo "$PLAN" | awk '$1 == "gate" { print $2 }')
plan() { echo "$PLAN" | awk -v k="$1" -v t="${2:-}" '$1 == k && (t == "" || $2 == t) { $1 = ""; $2 = ""; sub(/^ +/, ""); print }'; }
DEFAULT_TREE=$(echo "$PLAN" | awk '$1 == "host" { print $2 }')
HOST_ARCH=$(plan host)
MUTANT_ARCH=$(plan mutants)
SURVIVOR_ARCH=$(plan survivors)
# A step's name: NAME for the default tree, NAME-TREE for the others.
named() { if [ "$2" = "$DEFAULT_TREE" ]; then echo "$1"; else echo "$1-$2"; fi; }

# What is still to be written, checked before anything is.
need=$GATE_MIB
for k in $TREES; do
	w=$(KERNEL=$k && gate_paths && echo "$WORK")
	[ -d "$w/linux/.git" ] || need=$((need + TREE_MIB))
	[ -e "$w/kselftest-tree/.git" ] || need=$((need + KSELFTEST_TREE_MIB))
done
# Every other change: "change DIR TREE ARCH" (its gate and mutants).
mapfile -t CHANGES < <(echo "$PLAN" | awk '$1 == "change" { print $2, $3, $4 }')
for c in "${CHANGES[@]}"; do
	read -r dir k _ <<<"$c"
	w=$(CHANGE=$dir && KERNEL=$k && gate_paths && echo "$WORK")
	[ -d "$w/linux/.git" ] || need=$((need + TREE_MIB))
done
need_space build "$need" "make check (trees $(echo $TREES), their kselftest work trees, the gates, ${#CHANGES[@]} other change(s))"

# Unpacking and importing a tree keeps one core busy (xz, then git): the
# trees are prepared at once.
for k in $TREES; do
	step_start "$(named tree "$k")" env KERNEL="$k" scripts/prepare-tree.sh
done
for k in $TREES; do
	step_end "$(named tree "$k")"
done
step kbuild-words tests/test-kbuild-words.sh
step series tests/test-series.sh
step apply tests/test-apply.sh
step recipe tests/test-recipe.sh
step selftest-host scripts/selftest-host.sh
step glibc-spawn tests/test-glibc-spawn.sh
for k in $TREES; do
	step "$(named kselftest-tree "$k")" env KERNEL="$k" scripts/kselftest-tree.sh
done
for k in $TREES; do
	step "$(named gate "$k")" env KERNEL="$k" ARCHES="$(plan gate "$k")" scripts/gate.sh
done
step ci-engines env CI_ENGINE_ARCHES="$HOST_ARCH $MUTANT_ARCH" tests/test-ci-engines.sh
step mutants env KERNEL="$DEFAULT_TREE" ARCHES="$MUTANT_ARCH" scripts/mutants.sh
survivors=$LOGS/survivor-mutants
rm -rf "$survivors"
mkdir -p "$survivors"
# The row-bound mutants whose Killed-on: line does not name the arch.
spared=$(matrix spared "$SURVIVOR_ARCH") || exit 2
mapfile -t spared <<<"$spared"
[ -z "${spared[*]}" ] || cp -t "$survivors" "${spared[@]}"
step mutants-survivors env KERNEL="$DEFAULT_TREE" ARCHES="$SURVIVOR_ARCH" \
	MUTANTS_DIR="$survivors" scripts/mutants.sh
# A tree's ported mutants (trees/<tree>/port/NN-*.patch) on the first
# arch make check gives that tree: each must be killed there as its
# original is on the default tree.
for k in $TREES; do
	ports=$(find "trees/$k/port" -maxdepth 1 -name '[0-9][0-9]-*.patch' 2>/dev/null | sort)
	[ -n "$ports" ] || continue
	d=$LOGS/ported-mutants-$k
	rm -rf "$d"
	mkdir -p "$d"
	echo "$ports" | xargs cp -t "$d"
	a=$(plan gate "$k")
	step "$(named mutants-ported "$k")" env KERNEL="$k" ARCHES="${a%% *}" MUTANTS_DIR="$d" scripts/mutants.sh
done
# Every other change of changes/, on the first arch its tree is gated on:
# its gate (green: the ABI diff exactly as declared) and its mutants.
for c in "${CHANGES[@]}"; do
	read -r dir k a <<<"$c"
	step "gate-$(basename "$dir")" env CHANGE="$dir" KERNEL="$k" ARCHES="$a" scripts/gate.sh
	step "mutants-$(basename "$dir")" env CHANGE="$dir" KERNEL="$k" ARCHES="$a" scripts/mutants.sh
done
step faults tests/test-faults.sh
# After faults, which leaves the host arch's build directory holding a build.
step kbuild-scope tests/test-kbuild-scope.sh "$HOST_ARCH"
step unprivileged tests/test-unprivileged.sh

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
