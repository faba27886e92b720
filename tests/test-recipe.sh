#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# KSRC of a release that has no trees/ entry (prepare-tree.sh's
# choose_recipe): a tree one known recipe fits is prepared with it, and
# the output names it; a tree none fits is one line, exit 2, naming
# every recipe tried, and our copy of it is not left behind.  The trees
# are toys: the series' files of the default tree's upstream, with the
# Makefile's release changed to one no trees/ entry has.
#
# usage: tests/test-recipe.sh
set -eu
cd "$(dirname "$0")/.."
. tests/lib.sh
D=$WORK/test-recipe
[ -d "$TREE/.git" ] || { echo "usage: run make tree first" >&2; exit 2; }

rm -rf "$D"
mkdir -p "$D"
PATHS="Makefile kernel include/uapi/linux tools/testing/selftests/clone3"

# toy NAME: the default tree's upstream files, as Linux 6.99.
toy() {
	mkdir -p "$D/$1"
	git -C "$TREE" archive upstream $PATHS | tar -C "$D/$1" -xf -
	sed -i 's/^PATCHLEVEL = .*/PATCHLEVEL = 99/' "$D/$1/Makefile"
}

toy fits
before=$(tree_state "$D/fits")
expect "a recipe fits: prepared" 0 env -u KERNEL KSRC="$D/fits" WORK="$D/work-fits" scripts/prepare-tree.sh
expect_output "a recipe fits: the output names it" "KSRC is Linux 6\.99, which has no trees/ entry: base and series as for trees/[0-9.]+"
if git -C "$D/work-fits/linux" diff --quiet base patched -- kernel/fork.c; then
	fail "a recipe fits: patched differs from base in kernel/fork.c" "same"
else
	pass "a recipe fits: patched differs from base in kernel/fork.c"
fi
[ "$(tree_state "$D/fits")" = "$before" ] && pass "a recipe fits: KSRC unchanged" ||
	fail "a recipe fits: KSRC unchanged" "changed"

# No recipe takes the flag out of a fork.c whose lines around it moved.
toy none
sed -i 's/CLONE_CLEAR_SIGHAND/CLONE_CLEAR_SIGHAND \/* moved *\//' "$D/none/kernel/fork.c"
before=$(tree_state "$D/none")
expect "no recipe fits: exit 2" 2 env -u KERNEL KSRC="$D/none" WORK="$D/work-none" scripts/prepare-tree.sh
lines=$(echo "$OUT" | grep -c . || true)
last=$(echo "$OUT" | tail -1)
echo "$last" | grep -q "no tree's recipe makes its base" &&
	pass "no recipe fits: says so" || fail "no recipe fits: says so" "$last"
for t in $(scripts/matrix.py trees); do
	[ -d "trees/$t/revert" ] || continue
	echo "$last" | grep -qF "trees/$t (" && pass "no recipe fits: names trees/$t" ||
		fail "no recipe fits: names trees/$t" "$last"
done
echo "$OUT" | grep -q "^tree: copying" && [ "$lines" -eq 2 ] &&
	pass "no recipe fits: one line after the copy" ||
	fail "no recipe fits: one line after the copy" "$lines lines: $OUT"
[ ! -e "$D/work-none/linux" ] && pass "no recipe fits: the copy is removed" ||
	fail "no recipe fits: the copy is removed" "$D/work-none/linux is left"
[ "$(tree_state "$D/none")" = "$before" ] && pass "no recipe fits: KSRC unchanged" ||
	fail "no recipe fits: KSRC unchanged" "changed"

rm -rf "$D"
exit "$T_FAILED"
