#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Which directories a rebuild must walk, when the build directory BUILDDIR
# holds a complete build of the git tree OLD and SRC is now a clean
# checkout of another tree, NEW (the caller checks that it is clean);
# tools/testing, the selftests, is no part of either.
# Kbuild's full walk starts a make in every directory and a shell for
# every object to find out that almost nothing changed (about 6 s per
# arch here); when the change is small enough for us to know its whole
# reach, the walk can stop at the directories that hold it, and the
# image is the same, byte for byte (tests/test-kbuild-scope.sh).
#
# The change is that small when every path that differs between OLD and
# NEW is a C file P that was there before and is there still (status M),
# and for each P:
#   - BUILDDIR holds P's object O (DIR/NAME.o) and its .cmd file, and O
#     is a member of DIR/built-in.a: P reaches the image through O alone,
#     by the archives of DIR and the directories above it;
#   - no other .cmd file in BUILDDIR names P: nothing else includes it
#     (the compiler's dependencies, as fixdep recorded them) or is made
#     from it by a command;
#   - no Makefile or Kbuild file of SRC names P's file name (outside
#     tools/ and Documentation/): no rule of its own takes P.
# Then the walk that rebuilds O, the archives above it and the image is
# what the full walk would do: every other target's inputs are as they
# were when it was last made.
#
# Prints the directories to walk, parents first, one per line, and exits
# 0; or prints why the whole tree must be walked, in one line, and exits
# 1.  Exit 2: usage.
#
# usage: kbuild-scope.sh SRC BUILDDIR OLD
set -eu
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

[ $# -eq 3 ] || die "usage: kbuild-scope.sh SRC BUILDDIR OLD"
SRC=$1
BUILDDIR=$2
OLD=$3

full() {
	echo "$*"
	exit 1
}

# The first Makefile, Kbuild or .mk file of the checkout that names the
# file name NAME, or "-".  Searching takes 0.2 s; the answer, which only
# the tree decides, is kept in the worktree's git directory for the
# checkout's tree, so that the other arches of a run find it there.
#   rules_naming NAME
rules_naming() {
	local kept head found
	kept=$(git -C "$SRC" rev-parse --absolute-git-dir)/clone3-scope-rules
	head=$(git -C "$SRC" rev-parse 'HEAD^{tree}')
	found=$(awk -v t="$head" -v n="$1" '$1 == t && $2 == n { print $3; exit }' "$kept" 2>/dev/null)
	if [ -z "$found" ]; then
		# The checkout, not the commit: git reads it at a quarter of the cost.
		found=$(git -C "$SRC" grep -l -F -e "$1" -- '*Makefile*' '*Kbuild*' '*.mk' \
			':!tools' ':!Documentation' | head -1) || true
		found=${found:--}
		{ awk -v t="$head" '$1 == t' "$kept" 2>/dev/null; echo "$head $1 $found"; } >"$kept.$$"
		mv -f "$kept.$$" "$kept"
	fi
	echo "$found"
}

# tools/testing aside: it goes into no kernel, and OLD as build-kernel.sh
# keeps it (the tree of the image's key) has none.
changes=$(git -C "$SRC" diff --no-renames --name-status "$OLD" HEAD -- . ':!tools/testing') ||
	full "git cannot compare $OLD with the checkout"
[ -n "$changes" ] || full "no change between the trees"
dirs=
while IFS=$'\t' read -r status path; do
	[ "$status" = M ] || full "$path: status $status (a file added, removed or retyped)"
	case $path in
	*.c) ;;
	*) full "$path is not a C file" ;;
	esac
	dir=${path%/*}
	[ "$dir" != "$path" ] || full "$path is at the top of the tree"
	name=${path##*/}
	obj=${dir}/${name%.c}.o
	cmd=$BUILDDIR/$dir/.${name%.c}.o.cmd
	[ -f "$BUILDDIR/$obj" ] && [ -f "$cmd" ] || full "$path: its object $obj was not built"
	[ -f "$BUILDDIR/$dir/built-in.a" ] || full "$path: $dir has no built-in.a"
	(cd "$BUILDDIR" && ar t "$dir/built-in.a") | grep -qxF "$obj" ||
		full "$path: $obj is not a member of $dir/built-in.a"
	others=$(grep -rlF --include='.*.cmd' -e "$path" "$BUILDDIR" | grep -vxF "$cmd" | head -1) || true
	[ -z "$others" ] || full "$path is named by ${others#"$BUILDDIR"/} as well"
	rules=$(rules_naming "$name")
	[ "$rules" = - ] || full "$name is named by $rules"
	# DIR and the directories above it.
	while [ -n "$dir" ]; do
		dirs="$dirs $dir"
		case $dir in */*) dir=${dir%/*} ;; *) dir= ;; esac
	done
done <<<"$changes"
# Parents first: a shorter path never comes after a longer one.
for d in $dirs; do echo "$d"; done | sort -u | awk '{ print length($0), $0 }' | sort -n | cut -d' ' -f2-
