#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The maintainer's own check, on the running kernel: in a work tree of the
# prepared tree's patched branch (the series applied), run
#     make kselftest TARGETS=clone3
# exactly as typed in a kernel tree, and check that each program of the
# clone3 Makefile has one result from the tree's kselftest runner.  Every clone3 program runs, the tree's own
# (clone3_cap_checkpoint_restore needs libcap-dev and root) and ours.
#
# The work tree is $WORK/kselftest-tree, made once with `git worktree` and
# moved to the patched commit on every run; the top-level Makefile wants
# a .config for the kselftest target, so a defconfig is made once.
#
# usage: kselftest-tree.sh    (KERNEL, KSRC, WORK: see gate_paths in lib/paths.sh)
# exit:  0 every program passed or skipped, 1 a program failed or has
#        no result (or a plan the results do not match), 2 usage or
#        environment error
set -eu
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

[ $# -eq 0 ] || die "usage: kselftest-tree.sh (takes no arguments; set KERNEL, KSRC or WORK)"
gate_paths
WT=$WORK/kselftest-tree
LOG=$WORK/kselftest-tree.log
SUITE=$ROOT/tools-testing-selftests-clone3
SUITE_PATH=tools/testing/selftests/clone3

git -C "$TREE" rev-parse -q --verify patched >/dev/null 2>&1 ||
	die "$TREE is not a prepared tree (run: make tree)"
need_cmd make make
need_cmd gcc gcc
need_packages flex bison bc libcap-dev

# The series is what runs; say so when the suite was edited after it.
for f in "$SUITE"/*; do
	git -C "$TREE" show "patched:$SUITE_PATH/$(basename "$f")" 2>/dev/null |
		cmp -s - "$f" ||
		echo "kselftest-tree: note: $(basename "$f") differs from patches/ (run: make series)"
done

if [ ! -e "$WT/.git" ]; then
	rm -rf "$WT"
	need_space "$WORK" "$KSELFTEST_TREE_MIB" "the kselftest work tree $WT"
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$WT" patched ||
		die "cannot make a work tree of $TREE at $WT"
fi
# Only files that differ are rewritten, so make rebuilds only what changed.
git -C "$WT" checkout -q -f --detach patched ||
	die "cannot check out the patched branch in $WT"
commit=$(git -C "$WT" log -1 --format='%h %s')
echo "kselftest-tree: $WT at $commit; kernel $(uname -r) $(uname -m), uid $(id -u)"

if [ ! -f "$WT/.config" ]; then
	make -s -C "$WT" defconfig >"$LOG" 2>&1 ||
		die "make defconfig failed in $WT (see $LOG)"
fi
make -s -C "$WT" kselftest-clean TARGETS=clone3 >"$LOG" 2>&1 || true

set +e
make -C "$WT" kselftest TARGETS=clone3 2>&1 | tee "$LOG"
rc=${PIPESTATUS[0]}
set -e

# The programs the runner must report: TEST_GEN_PROGS and TEST_PROGS of
# the clone3 Makefile, as make itself expands them.  The runner's own
# plan line (1..N before the first program) is gone from 7.3's output,
# so the count comes from here, and each program must have its one
# result line ("ok N selftests: clone3: NAME", or "not ok").
printf 'clone3-gate-programs:\n\t@echo $(TEST_GEN_PROGS) $(TEST_PROGS)\n' >"$WORK/kselftest-programs.mk"
programs=$(make -s --no-print-directory -C "$WT/$SUITE_PATH" -f Makefile \
	-f "$WORK/kselftest-programs.mk" clone3-gate-programs 2>/dev/null | tr ' ' '\n' | sed 's|.*/||' | grep . || true)
rm -f "$WORK/kselftest-programs.mk"
[ -n "$programs" ] || die "cannot list the programs of $WT/$SUITE_PATH/Makefile"
results=$(sed -n 's/^\(not \)\{0,1\}ok [0-9][0-9]* selftests: clone3: \([^ ]*\).*/\2/p' "$LOG")
plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$LOG" | tail -1)
total=$(grep -Ec '^(not )?ok [0-9]+ selftests: clone3: ' "$LOG" || true)
fail=$(grep -Ec '^not ok [0-9]+ selftests: clone3: ' "$LOG" || true)
skip=$(grep -Ec '^ok [0-9]+ selftests: clone3: .*# SKIP' "$LOG" || true)
pass=$((total - fail - skip))
# A program without its one result (the build failed, the runner died)
# is a failure too, and so is a plan, where the runner still prints
# one, that the results do not match.
for p in $programs; do
	n=$(echo "$results" | grep -cxF "$p" || true)
	[ "$n" -ne 1 ] || continue
	echo "kselftest-tree: $p: $n result lines, not 1"
	fail=$((fail + 1))
done
expected=$(echo "$programs" | wc -l)
if [ "$total" -ne "$expected" ]; then
	echo "kselftest-tree: the Makefile has $expected programs and the runner reported $total"
	[ "$fail" -gt 0 ] || fail=1
fi
if [ -n "$plan" ] && [ "$plan" -ne "$total" ]; then
	echo "kselftest-tree: the runner planned $plan programs and reported $total"
	[ "$fail" -gt 0 ] || fail=1
fi
[ "$rc" -eq 0 ] || echo "kselftest-tree: make kselftest exited $rc"
echo "kselftest-tree: $pass passed, $fail failed, $skip skipped (log: $LOG)"
[ "$fail" -eq 0 ] && [ "$rc" -eq 0 ] || exit 1
