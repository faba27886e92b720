#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The maintainer's own check, on the running kernel: in a work tree of the
# prepared tree's patched branch (the series applied), run
#     make kselftest TARGETS=clone3
# exactly as typed in a kernel tree, and count the programs the tree's
# kselftest runner reports.  Every clone3 program runs, the tree's own
# (clone3_cap_checkpoint_restore needs libcap-dev and root) and ours.
#
# The work tree is $WORK/kselftest-tree, made once with `git worktree` and
# moved to the patched commit on every run; the top-level Makefile wants
# a .config for the kselftest target, so a defconfig is made once.
#
# usage: kselftest-tree.sh    (KERNEL, KSRC, WORK: see gate_paths in lib/paths.sh)
# exit:  0 every program passed or skipped, 1 a program failed or the
#        plan does not match the results, 2 usage or environment error
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

plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$LOG" | tail -1)
total=$(grep -Ec '^(not )?ok [0-9]+ selftests: clone3: ' "$LOG" || true)
fail=$(grep -Ec '^not ok [0-9]+ selftests: clone3: ' "$LOG" || true)
skip=$(grep -Ec '^ok [0-9]+ selftests: clone3: .*# SKIP' "$LOG" || true)
pass=$((total - fail - skip))
# A program missing from the count (the build failed, the runner died)
# is a failure too.
if [ -z "$plan" ] || [ "$total" -ne "$plan" ]; then
	fail=$((fail + ${plan:-1} - total))
	[ "$fail" -gt 0 ] || fail=1
	echo "kselftest-tree: the runner planned ${plan:-nothing} programs and reported $total"
fi
[ "$rc" -eq 0 ] || echo "kselftest-tree: make kselftest exited $rc"
echo "kselftest-tree: $pass passed, $fail failed, $skip skipped (log: $LOG)"
[ "$fail" -eq 0 ] && [ "$rc" -eq 0 ] || exit 1
