#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the tree's scripts/checkpatch.pl --strict over every patch of the
# series and every tree's port (trees/*/port/*.patch).  A warning is
# accepted only when the cover letter quotes it (the cover letter is
# where the series justifies what it leaves).
#
# usage: checkpatch-series.sh
set -eu
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

[ $# -eq 0 ] || die "usage: checkpatch-series.sh"
gate_paths
COVER=$ROOT/patches/0000-cover-letter.patch

[ -x "$TREE/scripts/checkpatch.pl" ] || die "$TREE/scripts/checkpatch.pl missing (run: make tree)"
need_cmd perl perl

bad=0
# The series, and every tree's ports of its patches and of the mutants
# (trees/*/port/*.patch): what some tree applies, checked the same way.
for p in $(series_patches "$ROOT/patches") "$ROOT"/trees/*/port/*.patch; do
	[ -f "$p" ] || continue
	out=$(cd "$TREE" && scripts/checkpatch.pl --strict --terse --show-types "$p" 2>&1) || true
	total=$(echo "$out" | sed -n 's/^total: //p')
	issues=$(echo "$out" | grep -E '(ERROR|WARNING|CHECK):' || true)
	unexplained=$(echo "$issues" | while IFS= read -r line; do
		[ -n "$line" ] || continue
		text=${line##*: }
		grep -qF -- "$text" <(tr '\n' ' ' <"$COVER" | tr -s ' ') || echo "$line"
	done)
	if [ -n "$unexplained" ]; then
		echo "checkpatch: ${p#"$ROOT"/}: $total"
		echo "$unexplained" | sed 's/^/  /'
		bad=1
	elif [ -n "$issues" ]; then
		echo "checkpatch: ${p#"$ROOT"/}: $total (justified in the cover letter)"
	else
		echo "checkpatch: ${p#"$ROOT"/}: clean"
	fi
done
[ $bad -eq 0 ] || { echo "checkpatch: issues not justified in the cover letter" >&2; exit 1; }
