#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The base-build policy: for a variant, which source tree and which build
# directory make its kernel, and why.  Checks the source out (through
# checkout-variant.sh) and prints three lines:
#   the source directory
#   the build: "patched" or "base" (the name kbuild_dir takes)
#   why, in one line for the user
#
#   patched    WORK/linux at patched, the patched build
#   base       when the series changes only what kernel/fork.c uses (see
#              base_build_commit below): WORK/linux at "patched with
#              base's kernel/fork.c", the patched build, incrementally;
#              otherwise (or GATE_SEPARATE_BASE=1) WORK/linux-base at
#              base, a build of its own
#   mutant-*   WORK/linux at COMMIT (patched + the mutant), the patched build
#
# --base-commit prints only the commit base_build_commit finds (or
# nothing), for the tests.
#
# Environment: KERNEL, KSRC, WORK (gate_paths), GATE_SEPARATE_BASE.
#
# usage: variant-build.sh base|patched|mutant-NAME [COMMIT]
#        variant-build.sh --base-commit TREE
set -eu
. "$(dirname "$0")/lib.sh"

# The commit the gate builds for the base kernel.  base and patched
# differ in include/uapi/linux/sched.h, which nearly every object
# includes; when the values the series adds there are used nowhere but
# kernel/fork.c, the patched tree with base's kernel/fork.c builds the
# base kernel object for object (the other objects only lose an unused
# #define), incrementally in the patched build directory.  Prints that
# commit, or nothing when the series touches more than that; fails only
# on a git error.  The answer is kept in the tree's .git for the pair of
# base and patched commits it was found for: finding it searches the
# whole tree (some 15 s), which every arch job of every run would repeat.
#   base_build_commit TREE
base_build_commit() {
	local tree key cache
	tree=$(cd "$1" && pwd)
	key=$(git -C "$tree" rev-parse base patched | tr '\n' ' ') || return 1
	cache=$tree/.git/clone3-base-build-commit
	(
		flock 9
		# shellcheck disable=SC2046 # three words: base, patched, the answer
		set -- $(cat "$cache" 2>/dev/null)
		if [ $# -eq 3 ] && [ "$1 $2 " = "$key" ] &&
			{ [ "$3" = - ] || git -C "$tree" cat-file -e "$3^{commit}" 2>/dev/null; }; then
			[ "$3" = - ] || echo "$3"
			exit 0
		fi
		found=$(find_base_build_commit "$tree") || exit 1
		echo "$key${found:--}" >"$cache.tmp" && mv "$cache.tmp" "$cache"
		echo "$found"
	) 9>"$tree/.git/clone3-base-build.lock"
}

find_base_build_commit() {
	local tree=$1 files names n users idx blob t msg
	files=$(git -C "$tree" diff --name-only base patched -- . ':!tools/testing/selftests' | sort | tr '\n' ' ')
	[ "$files" = "include/uapi/linux/sched.h kernel/fork.c " ] || return 0
	git -C "$tree" diff base patched -- include/uapi/linux/sched.h |
		grep '^[-+][^-+]' | grep -vq '^[-+]#define ' && return 0
	names=$(git -C "$tree" diff base patched -- include/uapi/linux/sched.h |
		sed -n 's/^[-+]#define \([A-Za-z0-9_]*\).*/\1/p' | sort -u)
	for n in $names; do
		users=$(git -C "$tree" grep -l -w "$n" patched -- . ':!tools' ':!Documentation' |
			sed 's/^patched://' | grep -v -x -e kernel/fork.c -e include/uapi/linux/sched.h || true)
		[ -z "$users" ] || return 0
	done
	# A scratch index of this process's own: arch jobs ask at the same
	# time, and all get the same commit id.
	idx=$tree/.git/clone3-base-build-index.$$
	rm -f "$idx"
	GIT_INDEX_FILE=$idx git -C "$tree" read-tree patched
	blob=$(git -C "$tree" rev-parse base:kernel/fork.c)
	GIT_INDEX_FILE=$idx git -C "$tree" update-index --cacheinfo "100644,$blob,kernel/fork.c"
	t=$(GIT_INDEX_FILE=$idx git -C "$tree" write-tree)
	rm -f "$idx"
	msg="gate: base kernel = patched with base's kernel/fork.c"
	echo "$msg" | GIT_AUTHOR_NAME="clone3 gate" GIT_AUTHOR_EMAIL="gate@localhost" \
		GIT_AUTHOR_DATE="2019-11-14 00:00:00 +0000" \
		GIT_COMMITTER_NAME="clone3 gate" GIT_COMMITTER_EMAIL="gate@localhost" \
		GIT_COMMITTER_DATE="2019-11-14 00:00:00 +0000" \
		git -C "$tree" commit-tree "$t" -p patched -F -
}

if [ "${1:-}" = --base-commit ]; then
	[ $# -eq 2 ] || die "usage: variant-build.sh --base-commit TREE"
	base_build_commit "$2"
	exit
fi
[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: variant-build.sh base|patched|mutant-NAME [COMMIT]"
gate_paths
S=$ROOT/scripts
case $1 in
patched)
	[ $# -eq 1 ] || die "variant-build.sh: patched takes no COMMIT"
	src=$("$S/checkout-variant.sh" patched)
	printf '%s\npatched\n%s\n' "$src" "the patched branch"
	;;
base)
	[ $# -eq 1 ] || die "variant-build.sh: base takes no COMMIT"
	hybrid=
	if [ "${GATE_SEPARATE_BASE:-0}" != 1 ]; then
		hybrid=$(base_build_commit "$TREE") ||
			die "could not make the base build commit in $TREE"
	fi
	if [ -n "$hybrid" ]; then
		src=$("$S/checkout-variant.sh" "$hybrid")
		printf '%s\npatched\n%s\n' "$src" \
			"patched tree with base's kernel/fork.c, in the patched build dir (the same kernel, built incrementally)"
	else
		src=$("$S/checkout-variant.sh" base)
		why="the series changes more than kernel/fork.c uses: separate base tree and build dir"
		[ "${GATE_SEPARATE_BASE:-0}" != 1 ] || why="GATE_SEPARATE_BASE=1: separate base tree and build dir"
		printf '%s\nbase\n%s\n' "$src" "$why"
	fi
	;;
mutant-*)
	[ $# -eq 2 ] || die "variant-build.sh: $1 needs its COMMIT"
	src=$("$S/checkout-variant.sh" "$2")
	printf '%s\npatched\n%s\n' "$src" "patched + the mutant, in the patched build dir"
	;;
*) die "variant '$1': use base, patched or mutant-NAME" ;;
esac
