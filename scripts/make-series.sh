#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Regenerate patches/ as `git format-patch` output:
#   0000  cover letter, text from patches/cover-letter.txt
#   0001  the kernel change: the commits base..KERNEL_REF in the tree when
#         KERNEL_REF names one (edit there, then run this), otherwise the
#         kernel patches already in patches/series
#   0002  the selftests: tools-testing-selftests-clone3/ laid over the
#         tree's tools/testing/selftests/clone3/, message kept from the
#         previous suite patch (the first one touching that directory)
#   0003+ the patches that follow the suite patch in patches/series
#         (fixes to the tree's own tests), re-applied as they are
# patches/ is replaced only once the whole new series has been written.
#
# usage: make-series.sh [KERNEL_REF]
set -eu
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

[ $# -le 1 ] || die "usage: make-series.sh [KERNEL_REF]"
gate_paths
change_is_ours ||
	die "make series writes patches/, our change; CHANGE=$CHANGE is another: git format-patch its series into it"
PATCHES=$ROOT/patches
# patches/ is the series of the trees that take it as it is: a tree
# that ports or drops some of it would write its ports into patches/.
if [ -n "$PORT_TREE" ] && [ -d "$ROOT/trees/$PORT_TREE/port" ] &&
	[ "$(tree_series)" != "$(series_patches "$PATCHES")" ]; then
	die "tree $PORT_TREE ports the series (trees/$PORT_TREE/port/), so patches/ is not made from it; use a tree that takes the series as it is: KERNEL=$(matrix default-tree)"
fi
SUITE=$ROOT/tools-testing-selftests-clone3
SUITE_PATH=tools/testing/selftests/clone3

git -C "$TREE" rev-parse -q --verify base >/dev/null 2>&1 ||
	die "$TREE has no base branch (run: make tree)"
cd "$ROOT"
# An earlier run stopped between its two renames: put patches/ back.
[ -d "$PATCHES" ] || [ ! -d "$PATCHES.old" ] || mv "$PATCHES.old" "$PATCHES"

# A suite patch touches the selftests directory or says so in its subject.
is_suite_patch() {
	grep -q -e "^+++ b/$SUITE_PATH/" -e '^Subject: .*selftests/clone3' "$1"
}

# The series splits at the suite patch: kernel patches before it, the
# patches after it are re-applied on top of the regenerated suite.
mapfile -t old_series < <(series_patches "$PATCHES" | grep -v "/0000-")
at=-1
for i in "${!old_series[@]}"; do
	if is_suite_patch "${old_series[$i]}"; then
		at=$i
		break
	fi
done
[ "$at" -ge 0 ] || die "no suite patch in patches/series to take the commit message from"
old_suite=${old_series[$at]}
kernel_patches=("${old_series[@]:0:$at}")
follow_ups=("${old_series[@]:$((at + 1))}")

# The kernel commits.
if [ $# -eq 1 ]; then
	git -C "$TREE" rev-parse -q --verify "$1^{commit}" >/dev/null ||
		die "KERNEL_REF '$1' is not a commit in $TREE"
	git -C "$TREE" merge-base --is-ancestor base "$1" ||
		die "KERNEL_REF '$1' is not based on the tree's base branch"
	kernel=$(git -C "$TREE" rev-parse "$1")
else
	kernel=$(commit_patches "$TREE" base "${kernel_patches[@]}")
fi

# The suite commit: our files replace or join the tree's clone3 directory.
idx=$TREE/.git/clone3-series-index
rm -f "$idx"
GIT_INDEX_FILE=$idx git -C "$TREE" read-tree "$kernel"
for f in "$SUITE"/*; do
	blob=$(git -C "$TREE" hash-object -w "$f")
	mode=100644
	[ -x "$f" ] && mode=100755
	GIT_INDEX_FILE=$idx git -C "$TREE" update-index --add \
		--cacheinfo "$mode,$blob,$SUITE_PATH/$(basename "$f")"
done
tree=$(GIT_INDEX_FILE=$idx git -C "$TREE" write-tree)
rm -f "$idx"
suite=$(commit_as_patch "$TREE" "$tree" "$kernel" "$old_suite")
last=$(commit_patches "$TREE" "$suite" "${follow_ups[@]}")

# format-patch into a fresh directory, then swap it in.
new=$WORK/patches.new
rm -rf "$new"
mkdir -p "$new"
git -C "$TREE" format-patch -q --zero-commit --cover-letter --base=base \
	-o "$new" base.."$last"
cover=$(ls "$new"/0000-*.patch)
subject=$(head -1 "$PATCHES/cover-letter.txt")
tail -n +3 "$PATCHES/cover-letter.txt" >"$new/blurb"
awk -v subj="$subject" -v blurbfile="$new/blurb" '
	/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subj) }
	/^\*\*\* BLURB HERE \*\*\*$/ {
		while ((getline line < blurbfile) > 0)
			print line
		next
	}
	{ print }' "$cover" >"$new/cover.tmp"
rm -f "$cover" "$new/blurb"
# The cover letter takes the date of the last patch, not the time of
# this run, so that regenerating an unchanged series changes nothing.
last=
for p in "$new"/0*.patch; do
	case $p in */0000-*) ;; *) last=$p ;; esac
done
last_date=$(grep -m1 '^Date: ' "$last")
sed -i "0,/^Date: .*/s//$last_date/" "$new/cover.tmp"
mv "$new/cover.tmp" "$new/0000-cover-letter.patch"
for p in "$new"/0*.patch; do
	case $p in */0000-*) ;; *) basename "$p" ;; esac
done >"$new/series"

# Everything else in patches/ (the cover letter's text, the mutants, ...)
# is kept as it is.
for f in "$PATCHES"/*; do
	case $(basename "$f") in 0[0-9][0-9][0-9]-*.patch | series) ;; *) cp -pr "$f" "$new/" ;; esac
done
rm -rf "$PATCHES.old"
mv "$PATCHES" "$PATCHES.old"
mv "$new" "$PATCHES"
rm -rf "$PATCHES.old"
echo "series: patches/ regenerated:"
sed 's/^/  /' "$PATCHES/series"
"$ROOT/scripts/prepare-tree.sh" | tail -1
