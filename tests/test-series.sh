#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The series is what a maintainer can take: format-patch output with a
# cover letter, 0001 touching only the two kernel files, the suite patch
# 0002 made of exactly tools-testing-selftests-clone3/, later patches
# only fixing the tree's own files, checkpatch clean.
#
# usage: tests/test-series.sh
set -eu
cd "$(dirname "$0")/.."
. tests/lib.sh
SUITE_PATH=tools/testing/selftests/clone3
[ $# -eq 0 ] || { echo "usage: tests/test-series.sh" >&2; exit 2; }

expect "tree and branches prepare from patches/" 0 scripts/prepare-tree.sh

# Your commits on top of the series stay on patched (the edit-to-verdict
# loop); a patched that is not on top of the series is set to it, the old
# one kept as patched-old.
series=$(git -C "$TREE" rev-parse patched)
mine=$(echo "test: a commit of yours" | git -C "$TREE" commit-tree "patched^{tree}" -p "$series")
git -C "$TREE" update-ref refs/heads/patched "$mine"
expect "prepare-tree with a commit on top of the series" 0 scripts/prepare-tree.sh
expect_output "prepare-tree says it keeps your commit" "patched has 1 commit\(s\) of yours"
[ "$(git -C "$TREE" rev-parse patched)" = "$mine" ] && pass "patched keeps your commit" ||
	fail "patched keeps your commit" "patched is $(git -C "$TREE" rev-parse patched)"
off=$(git -C "$TREE" rev-parse base)
old=patched-old-$(git -C "$TREE" rev-parse --short=12 "$off")
git -C "$TREE" update-ref refs/heads/patched "$off"
expect "prepare-tree with patched off the series" 0 scripts/prepare-tree.sh
expect_output "prepare-tree names the branch it kept" "the old one is branch $old"
[ "$(git -C "$TREE" rev-parse patched)" = "$series" ] &&
	[ "$(git -C "$TREE" rev-parse -q --verify "$old")" = "$off" ] &&
	pass "patched off the series is set to it, the old one is kept by its id" ||
	fail "patched off the series is set to it, the old one is kept by its id" \
		"patched $(git -C "$TREE" rev-parse patched), $old $(git -C "$TREE" rev-parse -q --verify "$old")"
git -C "$TREE" branch -q -D "$old"

grep -q '^base-commit: ' patches/0000-cover-letter.patch &&
	pass "cover letter has a base-commit line" ||
	fail "cover letter has a base-commit line" "none"
want=$(git -C "$TREE" rev-parse base)
grep -q "^base-commit: $want" patches/0000-cover-letter.patch &&
	pass "base-commit is the tree's base" ||
	fail "base-commit is the tree's base" "$(grep base-commit patches/0000-cover-letter.patch)"
grep -q 'BLURB HERE\|SUBJECT HERE' patches/0000-cover-letter.patch &&
	fail "cover letter is filled in" "placeholder left" ||
	pass "cover letter is filled in"

first=$(sed -n 1p patches/series)
files=$(sed -n 's|^+++ b/||p' "patches/$first" | sort | tr '\n' ' ')
[ "$files" = "include/uapi/linux/sched.h kernel/fork.c " ] &&
	pass "0001 touches only sched.h and fork.c" ||
	fail "0001 touches only sched.h and fork.c" "touches $files"
grep -q '^+#define CLONE_CLEAR_SIGHAND 0x100000000ULL' "patches/$first" &&
	pass "0001 defines the flag as 0x100000000ULL" ||
	fail "0001 defines the flag as 0x100000000ULL" "no such line"
bad=""
for p in $(sed 's|^|patches/|' patches/series); do
	author=$(git mailinfo /dev/null /dev/null <"$p" | sed -n 's/^Author: //p')
	grep -q "^Signed-off-by: $author <" "$p" || bad="$bad $(basename "$p")"
done
[ -z "$bad" ] && pass "every patch is signed off by its author" ||
	fail "every patch is signed off by its author" "not in:$bad"

# Every file of the suite directory is in the patched tree as it is here,
# and the suite patch touches no file that the directory lacks.
drift=""
for f in tools-testing-selftests-clone3/*; do
	here=$(git hash-object "$f")
	there=$(git -C "$TREE" rev-parse -q --verify "patched:$SUITE_PATH/$(basename "$f")" || echo none)
	[ "$here" = "$there" ] || drift="$drift $(basename "$f")"
done
mapfile -t listed < <(sed 's|^|patches/|' patches/series)
suite_patch=$(grep -l "^+++ b/$SUITE_PATH/" "${listed[@]}" | head -1)
[ "$suite_patch" = "patches/$(sed -n 2p patches/series)" ] &&
	pass "0002 is the suite patch" ||
	fail "0002 is the suite patch" "the first patch touching $SUITE_PATH is ${suite_patch:-none}"
for f in $(sed -n "s|^+++ b/$SUITE_PATH/||p" "$suite_patch"); do
	[ -e "tools-testing-selftests-clone3/$f" ] || drift="$drift $f(only-in-patch)"
done
[ -z "$drift" ] && pass "patches/ and tools-testing-selftests-clone3/ agree" ||
	fail "patches/ and tools-testing-selftests-clone3/ agree" "differ:$drift (run: make series)"

# Regenerating the series from the tree and the suite changes nothing:
# patches/ is what make-series writes, follow-up patches included.
snapshot() { (cd patches && find . -type f | sort | xargs cksum); }
before=$(snapshot)
rm -rf "$WORK/patches.test-copy"
cp -a patches "$WORK/patches.test-copy"
if ! out=$(scripts/make-series.sh 2>&1); then
	fail "make series regenerates patches/ unchanged" "$(echo "$out" | tail -1)"
elif [ "$(snapshot)" = "$before" ]; then
	pass "make series regenerates patches/ unchanged"
else
	fail "make series regenerates patches/ unchanged" \
		"changed: $(diff <(echo "$before") <(snapshot) | sed -n 's/^> [0-9]* [0-9]* //p' | tr '\n' ' ')"
fi
[ "$(snapshot)" = "$before" ] || { rm -rf patches && cp -a "$WORK/patches.test-copy" patches; }
rm -rf "$WORK/patches.test-copy"

# Patches after the suite fix the tree's own tests: they change files
# the tree has, and add or remove none.
bad=""
for p in $(sed -n '3,$s|^|patches/|p' patches/series); do
	grep -q -e '^new file mode' -e '^deleted file mode' "$p" && bad="$bad $(basename "$p")(adds or removes)"
	for f in $(sed -n 's|^+++ b/||p' "$p"); do
		git -C "$TREE" cat-file -e "upstream:$f" 2>/dev/null || bad="$bad $f"
	done
done
[ -z "$bad" ] && pass "patches after 0002 only change the tree's own files" ||
	fail "patches after 0002 only change the tree's own files" "not so:$bad"

expect "checkpatch --strict: clean or justified" 0 scripts/checkpatch-series.sh

exit $T_FAILED
