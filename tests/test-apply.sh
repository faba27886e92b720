#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make apply on the trees a maintainer may hold: base of 6.1 and of 6.12
# (applies), base of 7.3 (applies as ported, trees/7.3/port/), the
# untouched 6.1 tree (already present), a tree whose kernel/fork.c
# conflicts (refused, nothing lost, also with a dirty work tree), and a
# non-git copy of base (applies; a conflicting one is left unchanged).
#
# usage: tests/test-apply.sh
set -eu
cd "$(dirname "$0")/.."
. tests/lib.sh
D=$WORK/test-apply
[ -d "$TREE/.git" ] || { echo "usage: run make tree first" >&2; exit 2; }

rm -rf "$D"
mkdir -p "$D"
PATHS="Makefile kernel include/uapi/linux tools/testing/selftests/clone3"

# make_tree NAME REF GIT: a tree with the series' files as of REF.
make_tree() {
	mkdir -p "$D/$1"
	git -C "$TREE" archive "$2" $PATHS | tar -C "$D/$1" -xf -
	if [ "$3" = git ]; then
		git -C "$D/$1" init -q
		git -C "$D/$1" add -A
		git -C "$D/$1" -c user.name=t -c user.email=t@t commit -q -m "$2"
	fi
}

make_tree base base git
before=$(tree_state "$D/base")
expect "applies on base" 0 scripts/apply-series.sh "$D/base"
expect_output "base: says what it did" "commits added"
n=$(git -C "$D/base" rev-list --count HEAD)
[ "$n" = $((1 + $(grep -c . patches/series))) ] && pass "base: one commit per patch" || fail "base: one commit per patch" "$n commits"
same=1
for f in kernel/fork.c include/uapi/linux/sched.h tools/testing/selftests/clone3/Makefile; do
	[ "$(git -C "$D/base" rev-parse "HEAD:$f")" = "$(git -C "$TREE" rev-parse "patched:$f")" ] || same=0
done
[ $same = 1 ] && pass "base: files as in the patched branch" ||
	fail "base: files as in the patched branch" "differ"
grep -q 'define CLONE_CLEAR_SIGHAND' "$D/base/include/uapi/linux/sched.h" &&
	pass "base: sched.h defines the flag" || fail "base: sched.h defines the flag" "no define"
expect "applied twice: already there" 0 scripts/apply-series.sh "$D/base"
expect_output "applied twice: says already applied" "already applied"

# A git repository D/NAME holding PATHS of prepared tree TREE's base.
#   base_copy TREE NAME
base_copy() {
	mkdir -p "$D/$2"
	git -C "$1" archive base $PATHS | tar -C "$D/$2" -xf -
	git -C "$D/$2" init -q
	git -C "$D/$2" add -A
	git -C "$D/$2" -c user.name=t -c user.email=t@t commit -q -m "$2"
}

# The 6.12 base, when that tree is prepared (make tree KERNEL=6.12).
T612=$ROOT/build/6.12/linux
if [ -d "$T612/.git" ]; then
	base_copy "$T612" base-6.12
	expect "6.12 base: applies" 0 scripts/apply-series.sh "$D/base-6.12"
	[ "$(git -C "$D/base-6.12" rev-parse HEAD:kernel/fork.c)" = "$(git -C "$T612" rev-parse patched:kernel/fork.c)" ] &&
		pass "6.12 base: fork.c as in its patched branch" ||
		fail "6.12 base: fork.c as in its patched branch" "differs"
fi

# The 7.3 base, when that tree is prepared (make tree KERNEL=7.3): the
# series as 7.3 takes it, its ports and no dropped patch
# (trees/7.3/port/).
T73=$ROOT/build/7.3/linux
if [ -d "$T73/.git" ]; then
	base_copy "$T73" base-7.3
	expect "7.3 base: applies with its ports" 0 scripts/apply-series.sh "$D/base-7.3"
	n=$(git -C "$D/base-7.3" rev-list --count HEAD)
	want=$((1 + $(grep -c . patches/series) - $(sed 's/#.*//' trees/7.3/port/drop | grep -c .)))
	[ "$n" = "$want" ] && pass "7.3 base: one commit per patch it takes" ||
		fail "7.3 base: one commit per patch it takes" "$n commits, not $want"
	same=1
	for f in kernel/fork.c include/uapi/linux/sched.h tools/testing/selftests/clone3/clone3_cap_checkpoint_restore.c; do
		[ "$(git -C "$D/base-7.3" rev-parse "HEAD:$f")" = "$(git -C "$T73" rev-parse "patched:$f")" ] || same=0
	done
	[ $same = 1 ] && pass "7.3 base: files as in its patched branch" ||
		fail "7.3 base: files as in its patched branch" "differ"
	expect "7.3 base, applied twice: already there" 0 scripts/apply-series.sh "$D/base-7.3"
	expect_output "7.3 base, applied twice: says already applied" "already applied"
fi

make_tree upstream upstream git
before=$(tree_state "$D/upstream")
expect "untouched 6.1 tree: nothing to do" 0 scripts/apply-series.sh "$D/upstream"
expect_output "untouched 6.1 tree: says merged in v5.5" "already has CLONE_CLEAR_SIGHAND.*v5.5"
[ "$before" = "$(tree_state "$D/upstream")" ] && pass "untouched 6.1 tree: unchanged" ||
	fail "untouched 6.1 tree: unchanged" "tree changed"

make_tree conflict base git
sed -i 's/static bool clone3_args_valid(struct kernel_clone_args \*kargs)/static bool clone3_args_ok(struct kernel_clone_args *kargs)/' \
	"$D/conflict/kernel/fork.c"
sed -i 's/if (kargs->flags & ~(CLONE_LEGACY_FLAGS | CLONE_INTO_CGROUP))/if (kargs->flags \& ~CLONE3_FLAGS)/' \
	"$D/conflict/kernel/fork.c"
git -C "$D/conflict" -c user.name=t -c user.email=t@t commit -q -am "local clone3 rework"
echo "dirty" >>"$D/conflict/Makefile"
echo "staged" >"$D/conflict/newfile" && git -C "$D/conflict" add newfile
echo "untracked" >"$D/conflict/untracked"
git -C "$D/conflict" reset -q newfile
before=$(tree_state "$D/conflict")
expect "conflicting fork.c: refused" 2 scripts/apply-series.sh "$D/conflict"
expect_output "conflicting fork.c: names file and hunk" "conflict in kernel/fork.c, hunk @@ -[0-9]+"
[ "$before" = "$(tree_state "$D/conflict")" ] && pass "conflicting fork.c: HEAD, index, work tree unchanged" ||
	fail "conflicting fork.c: HEAD, index, work tree unchanged" "tree changed"

make_tree dirty base git
echo "/* local */" >>"$D/dirty/kernel/fork.c"
before=$(tree_state "$D/dirty")
expect "local change in a touched file: refused" 2 scripts/apply-series.sh "$D/dirty"
expect_output "local change: names the file" "local changes in kernel/fork.c"
[ "$before" = "$(tree_state "$D/dirty")" ] && pass "local change: tree unchanged" ||
	fail "local change: tree unchanged" "tree changed"

make_tree plain base plain
expect "non-git copy of base: applies" 0 scripts/apply-series.sh "$D/plain"
expect_output "non-git copy: says files replaced" "not a git tree"
if diff -r <(cd "$D/plain" && find $PATHS -type f | sort | xargs sha256sum) \
	<(mkdir -p "$D/want" && git -C "$TREE" archive patched $PATHS | tar -C "$D/want" -xf - &&
	  cd "$D/want" && find $PATHS -type f | sort | xargs sha256sum) >/dev/null; then
	pass "non-git copy: same files as the patched branch"
else
	fail "non-git copy: same files as the patched branch" "files differ"
fi

make_tree plainconflict base plain
cp "$D/conflict/kernel/fork.c" "$D/plainconflict/kernel/fork.c"
before=$(tree_state "$D/plainconflict")
expect "non-git conflicting tree: refused" 2 scripts/apply-series.sh "$D/plainconflict"
[ "$before" = "$(tree_state "$D/plainconflict")" ] && pass "non-git conflicting tree: unchanged" ||
	fail "non-git conflicting tree: unchanged" "tree changed"

expect "missing tree: usage error" 2 scripts/apply-series.sh "$D/nonexistent"
expect_output "missing tree: one-line reason" "no such directory"
expect "not a kernel tree: usage error" 2 scripts/apply-series.sh "$D"
rm -rf "$D"
exit $T_FAILED
