#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# variant-build.sh --base-commit on toy trees: the gate may build
# the base kernel as "patched with base's kernel/fork.c" only when the
# series adds #defines to uapi sched.h that nothing but kernel/fork.c
# uses.  The answer is cached per pair of base and patched commits, and
# per pair of base and the hybrid's tree; a changed pair is asked again.
#
# usage: tests/test-base-build.sh
set -eu
cd "$(dirname "$0")/.."
. tests/lib.sh
D=$WORK/test-base-build
rm -rf "$D"
mkdir -p "$D"
case $D in /*) ;; *) D=$PWD/$D ;; esac

g() {
	git -C "$T" -c user.name=t -c user.email=t@t "$@"
}

# toy NAME: a tree with base and patched branches; patched adds the flag
# to sched.h and uses it in fork.c.
toy() {
	T=$D/$1
	mkdir -p "$T/include/uapi/linux" "$T/kernel" "$T/mm"
	git -C "$T" init -q
	echo '#define CLONE_VM 0x100' >"$T/include/uapi/linux/sched.h"
	echo 'int fork(void) { return 0; }' >"$T/kernel/fork.c"
	echo 'int mm;' >"$T/mm/mm.c"
	g add -A
	g commit -q -m base
	g branch -q base
	echo '#define CLONE_CLEAR_SIGHAND 0x100000000ULL' >>"$T/include/uapi/linux/sched.h"
	echo 'int flag = CLONE_CLEAR_SIGHAND;' >>"$T/kernel/fork.c"
	g commit -q -am flag
	g branch -q patched
}

# on_patched FILE LINE MESSAGE: LINE appended to FILE in a new commit,
# which patched then points to.
on_patched() {
	echo "$2" >>"$T/$1"
	g commit -q -am "$3"
	g branch -q -f patched
}

toy fork-only
c=$(scripts/variant-build.sh --base-commit "$T")
if [ -n "$c" ] &&
	[ "$(g rev-parse "$c:kernel/fork.c")" = "$(g rev-parse base:kernel/fork.c)" ] &&
	[ "$(g rev-parse "$c:include/uapi/linux/sched.h")" = "$(g rev-parse patched:include/uapi/linux/sched.h)" ]; then
	pass "flag used only in fork.c: patched tree with base's fork.c"
else
	fail "flag used only in fork.c: patched tree with base's fork.c" "got '${c}'"
fi
[ "$(scripts/variant-build.sh --base-commit "$T")" = "$c" ] && grep -q " $c\$" "$T/.git/clone3-base-build-commit" &&
	pass "the answer is cached and given again" ||
	fail "the answer is cached and given again" "$(cat "$T/.git/clone3-base-build-commit" 2>&1)"

# An edit of patched's kernel/fork.c alone leaves the hybrid's tree as it
# was: the answer is taken by that tree, without a search, and the commit
# sits on the new patched.  (A "no" written into that note is believed:
# the proof that no search ran.)
on_patched kernel/fork.c 'int edit;' "edit fork.c"
c2=$(scripts/variant-build.sh --base-commit "$T")
[ -n "$c2" ] && [ "$c2" != "$c" ] && [ "$(g rev-parse "$c2^{tree}")" = "$(g rev-parse "$c^{tree}")" ] &&
	[ "$(g rev-parse "$c2^")" = "$(g rev-parse patched)" ] &&
	pass "an edit of fork.c: the same hybrid tree, on the new patched" ||
	fail "an edit of fork.c: the same hybrid tree, on the new patched" "got '$c2' after '$c'"
note=$T/.git/clone3-base-build-tree
grep -q " $(g rev-parse "$c^{tree}") yes\$" "$note" 2>/dev/null &&
	pass "the answer is kept by the hybrid's tree" ||
	fail "the answer is kept by the hybrid's tree" "$(cat "$note" 2>&1)"
[ ! -f "$note" ] || sed -i 's/ yes$/ no/' "$note"
on_patched kernel/fork.c 'int edit2;' "edit fork.c again"
c3=$(scripts/variant-build.sh --base-commit "$T")
[ -z "$c3" ] && pass "the answer for the hybrid's tree is taken from its note" ||
	fail "the answer for the hybrid's tree is taken from its note" "got '$c3': searched again"
[ ! -f "$note" ] || sed -i 's/ no$/ yes/' "$note"

# The patched branch moves: the flag is now used in mm/ too.
on_patched mm/mm.c 'int mm_flag = CLONE_CLEAR_SIGHAND;' "use the flag in mm"
c=$(scripts/variant-build.sh --base-commit "$T")
[ -z "$c" ] && pass "a moved patched branch is asked again: flag used elsewhere, no hybrid" ||
	fail "a moved patched branch is asked again: flag used elsewhere, no hybrid" "got '$c'"
grep -q ' -$' "$T/.git/clone3-base-build-commit" &&
	pass "'no hybrid' is cached too" ||
	fail "'no hybrid' is cached too" "$(cat "$T/.git/clone3-base-build-commit" 2>&1)"

toy more-files
on_patched mm/mm.c 'int more;' "touch mm"
c=$(scripts/variant-build.sh --base-commit "$T")
[ -z "$c" ] && pass "series changes a third file: no hybrid" ||
	fail "series changes a third file: no hybrid" "got '$c'"

toy not-a-define
on_patched include/uapi/linux/sched.h 'struct clone_new { int x; };' "a struct in sched.h"
c=$(scripts/variant-build.sh --base-commit "$T")
[ -z "$c" ] && pass "series changes sched.h beyond #defines: no hybrid" ||
	fail "series changes sched.h beyond #defines: no hybrid" "got '$c'"

# A cache whose commit is gone is not trusted.
toy stale
c=$(scripts/variant-build.sh --base-commit "$T")
read -r b p _ <"$T/.git/clone3-base-build-commit"
echo "$b $p 0123456789012345678901234567890123456789" >"$T/.git/clone3-base-build-commit"
[ "$(scripts/variant-build.sh --base-commit "$T")" = "$c" ] && pass "a cached commit that is gone is found again" ||
	fail "a cached commit that is gone is found again" "got '$(scripts/variant-build.sh --base-commit "$T")'"

rm -rf "$D"
exit $T_FAILED
