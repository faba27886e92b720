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
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

# The commit the gate builds for the base kernel.  base and patched
# differ in include/uapi/linux/sched.h, which nearly every object
# includes; when the values the series adds there are used nowhere but
# kernel/fork.c, the patched tree with base's kernel/fork.c (the hybrid)
# builds the base kernel object for object (the other objects only lose
# an unused #define), incrementally in the patched build directory.
# Prints that commit (the hybrid's tree on top of patched), or nothing
# when the series touches more than that; fails only on a git error.
# Finding the answer searches the whole tree (some 15 s), so it is kept
# in the tree's .git twice: for the pair of base and patched commits
# (the commit itself), and for the pair of base and the hybrid's tree,
# which an edit of patched's kernel/fork.c does not change: the warm
# loop then makes only the hybrid's tree (under a second) and its commit.
#   base_build_commit TREE
base_build_commit() {
	local tree key
	tree=$(cd "$1" && pwd)
	key=$(git -C "$tree" rev-parse base patched | tr '\n' ' ') || return 1
	(
		flock 9
		by_commits=$tree/.git/clone3-base-build-commit
		by_tree=$tree/.git/clone3-base-build-tree
		# shellcheck disable=SC2046 # three words: base, patched, the answer
		set -- $(cat "$by_commits" 2>/dev/null)
		if [ $# -eq 3 ] && [ "$1 $2 " = "$key" ] &&
			{ [ "$3" = - ] || git -C "$tree" cat-file -e "$3^{commit}" 2>/dev/null; }; then
			[ "$3" = - ] || echo "$3"
			exit 0
		fi
		hybrid=$(hybrid_tree "$tree") || exit 1
		base=${key%% *}
		# shellcheck disable=SC2046 # three words: base, the hybrid's tree, yes or no
		set -- $(cat "$by_tree" 2>/dev/null)
		if [ $# -eq 3 ] && [ "$1 $2" = "$base $hybrid" ]; then
			ok=$3
		else
			ok=no
			! hybrid_builds_base "$tree" "$hybrid" || ok=yes
			echo "$base $hybrid $ok" >"$by_tree.tmp" && mv "$by_tree.tmp" "$by_tree"
		fi
		found=
		[ "$ok" = no ] || found=$(hybrid_commit "$tree" "$hybrid") || exit 1
		echo "$key${found:--}" >"$by_commits.tmp" && mv "$by_commits.tmp" "$by_commits"
		echo "$found"
	) 9>"$tree/.git/clone3-base-build.lock"
}

# The tree of patched with base's kernel/fork.c: patched's kernel/ with
# that one entry replaced, then the top with that kernel/ (git mktree;
# reading all of patched into an index took 0.5 s, this 0.05 s).
#   hybrid_tree TREE   (run in a subshell: it sets pipefail)
hybrid_tree() {
	local tree=$1 blob kernel
	set -o pipefail
	blob=$(git -C "$tree" rev-parse base:kernel/fork.c) &&
		kernel=$(git -C "$tree" ls-tree patched:kernel | swap_entry fork.c "$blob" |
			git -C "$tree" mktree) &&
		git -C "$tree" ls-tree patched | swap_entry kernel "$kernel" | git -C "$tree" mktree
}

# Whether the hybrid's tree HYBRID builds base's kernel: it differs from
# base (outside the selftests) in nothing, or in include/uapi/linux/sched.h alone, there
# only in #define lines, and the names those define are used nowhere
# else (tools/ and Documentation/ aside).
#   hybrid_builds_base TREE HYBRID
hybrid_builds_base() {
	local tree=$1 hybrid=$2 files names n
	files=$(git -C "$tree" diff --name-only base "$hybrid" -- . ':!tools/testing/selftests' | tr '\n' ' ')
	# A change to kernel/fork.c alone (another change, such as one of
	# changes/): the hybrid is base itself.
	[ -n "$files" ] || return 0
	[ "$files" = "include/uapi/linux/sched.h " ] || return 1
	git -C "$tree" diff base "$hybrid" -- include/uapi/linux/sched.h |
		grep '^[-+][^-+]' | grep -vq '^[-+]#define ' && return 1
	names=$(git -C "$tree" diff base "$hybrid" -- include/uapi/linux/sched.h |
		sed -n 's/^[-+]#define \([A-Za-z0-9_]*\).*/\1/p' | sort -u)
	for n in $names; do
		git -C "$tree" grep -l -w "$n" "$hybrid" -- . ':!tools' ':!Documentation' |
			sed "s/^$hybrid://" | grep -qv -x -e kernel/fork.c -e include/uapi/linux/sched.h &&
			return 1
	done
	return 0
}

# The hybrid's commit, on top of patched; fixed identity and date, so the
# same patched gives the same commit id.
#   hybrid_commit TREE HYBRID
hybrid_commit() {
	echo "gate: base kernel = patched with base's kernel/fork.c" |
		GIT_AUTHOR_NAME="clone3 gate" GIT_AUTHOR_EMAIL="gate@localhost" \
		GIT_AUTHOR_DATE="2019-11-14 00:00:00 +0000" \
		GIT_COMMITTER_NAME="clone3 gate" GIT_COMMITTER_EMAIL="gate@localhost" \
		GIT_COMMITTER_DATE="2019-11-14 00:00:00 +0000" \
		git -C "$1" commit-tree "$2" -p patched -F -
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
