#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkout-variant.sh on a toy tree: a worktree with a modified tracked
# file is never checked out over, and is named; within one run
# (CLONE3_RUN) a worktree found clean is not looked at again while HEAD
# is the commit noted, and build-kernel.sh's clean-tree check
# (verified_head) trusts the same note; another run, no run, or a HEAD
# moved by hand looks again.
#
# usage: tests/test-checkout.sh
set -eu
cd "$(dirname "$0")/.."
. tests/lib.sh
D=$WORK/test-checkout
rm -rf "$D"
mkdir -p "$D"
case $D in /*) ;; *) D=$PWD/$D ;; esac
T=$D/linux
unset CLONE3_RUN

g() {
	git -C "$T" -c user.name=t -c user.email=t@t "$@"
}

mkdir -p "$T/kernel"
git -C "$T" init -q
echo 'int fork(void) { return 0; }' >"$T/kernel/fork.c"
g add -A
g commit -q -m base
g branch -q base
echo 'int flag;' >>"$T/kernel/fork.c"
g commit -q -am patched
g branch -q patched
g checkout -q --detach base
co() {
	WORK=$D scripts/checkout-variant.sh "$@"
}
# head_of RUN: what verified_head says for the toy tree in run RUN.
head_of() {
	(CLONE3_RUN=$1 && verified_head "$T") || echo none
}
patched=$(g rev-parse patched)

echo 'int dirt;' >>"$T/kernel/fork.c"
expect "no run: a modified file stops the checkout" 2 co patched
expect_output "... and is named" 'modified: +M kernel/fork.c'
[ "$(g rev-parse HEAD)" = "$(g rev-parse base)" ] && grep -q dirt "$T/kernel/fork.c" &&
	pass "... and nothing was changed" || fail "... and nothing was changed" "HEAD or the file moved"
expect "in a run too" 2 env CLONE3_RUN=r1 WORK="$D" scripts/checkout-variant.sh patched
[ "$(head_of r1)" = none ] && pass "... and no note is left" ||
	fail "... and no note is left" "verified_head says $(head_of r1)"
g checkout -q -- kernel/fork.c

expect "run r1 checks out patched" 0 env CLONE3_RUN=r1 WORK="$D" scripts/checkout-variant.sh patched
[ "$(head_of r1)" = "$patched" ] && pass "... and notes it clean at patched" ||
	fail "... and notes it clean at patched" "verified_head says $(head_of r1)"
[ "$(head_of r2)" = none ] && pass "another run does not trust the note" ||
	fail "another run does not trust the note" "verified_head says $(head_of r2)"
[ "$( (unset CLONE3_RUN; verified_head "$T") || echo none)" = none ] &&
	pass "no run does not trust the note" || fail "no run does not trust the note" "it did"

# The note is trusted within the run: the edit below is not looked for
# (the work tree is the gate's); the next run sees it.
echo 'int dirt;' >>"$T/kernel/fork.c"
expect "later calls of run r1 trust the note" 0 env CLONE3_RUN=r1 WORK="$D" scripts/checkout-variant.sh patched
expect "run r2 looks again and stops" 2 env CLONE3_RUN=r2 WORK="$D" scripts/checkout-variant.sh patched
expect_output "... naming the file" 'modified: +M kernel/fork.c'
g checkout -q -- kernel/fork.c

g checkout -q --detach base
[ "$(head_of r1)" = none ] && pass "a HEAD moved by hand is not trusted" ||
	fail "a HEAD moved by hand is not trusted" "verified_head says $(head_of r1)"
echo 'int dirt;' >>"$T/kernel/fork.c"
expect "... and the next call of the run looks again" 2 env CLONE3_RUN=r1 WORK="$D" scripts/checkout-variant.sh patched
g checkout -q -- kernel/fork.c

expect "a switch within the run" 0 env CLONE3_RUN=r3 WORK="$D" scripts/checkout-variant.sh patched
expect "... to another commit" 0 env CLONE3_RUN=r3 WORK="$D" scripts/checkout-variant.sh "$(g rev-parse base)"
[ "$(head_of r3)" = "$(g rev-parse base)" ] && [ "$(g rev-parse HEAD)" = "$(g rev-parse base)" ] &&
	pass "... checks it out and notes the new commit" ||
	fail "... checks it out and notes the new commit" "HEAD $(g rev-parse HEAD), note $(head_of r3)"

rm -rf "$D"
exit $T_FAILED
