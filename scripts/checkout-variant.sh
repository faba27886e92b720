#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Point the right source worktree at a variant and print its directory:
#   base                -> WORK/linux-base (a detached worktree of the tree)
#   patched, any commit -> WORK/linux      (patched and the mutants)
# base and patched live in separate directories because they differ in
# include/uapi/linux/sched.h: switching one directory between them would
# make kbuild rebuild nearly everything.  `git checkout --detach` rewrites
# only the files that differ, so the other files keep their mtimes and the
# next build stays incremental.  A worktree with modified tracked files is
# left alone (nothing is lost) and the files are named.
#
# Environment: KERNEL, KSRC, WORK (gate_paths), as prepare-tree.sh filled them.
#
# usage: checkout-variant.sh base|patched|COMMIT
set -eu
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

[ $# -eq 1 ] && [ -n "$1" ] || die "usage: checkout-variant.sh base|patched|COMMIT"
gate_paths

git -C "$TREE" rev-parse -q --verify base >/dev/null 2>&1 ||
	die "$TREE is not a prepared tree (run: make tree)"
commit=$(git -C "$TREE" rev-parse -q --verify "$1^{commit}") ||
	die "'$1' is not a commit or branch in $TREE"
if [ "$1" = base ]; then
	dir=$WORK/linux-base
else
	dir=$TREE
fi

# One checkout at a time per tree: parallel arch jobs may call this too.
exec 9>"$TREE/.git/clone3-checkout.lock"
flock 9

if [ ! -e "$dir/.git" ]; then
	# A worktree add that was interrupted leaves a half-filled directory
	# and a stale registration; both are only ours to redo.
	rm -rf "$dir"
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$dir" "$commit" >&2 ||
		die "git worktree add $dir failed"
fi

# One scan of the worktree (git diff --raw, some 0.25 s on this tree)
# serves two checks.  Mode-only changes (e.g. a chmod -R over build/) lose
# nothing and would block every checkout: those files get their recorded
# mode back (chmod keeps mtimes, so kbuild sees nothing new), and only
# they are compared again for content.  Any other change, or a staged
# one, is the user's: nothing is touched.
check_clean() {
	local raw dirty mode f
	raw=$(git -C "$dir" diff --raw --no-renames)
	dirty=$(echo "$raw" | awk -F'\t' '$1 != "" { split($1, m, " "); if (m[1] == ":" m[2]) print " M " $2 }')
	if [ -z "$dirty" ] && [ -n "$raw" ]; then
		echo "$raw" | while IFS=$'\t' read -r meta path; do
			set -- $meta
			case ${1#:}/$2 in
			100644/100755) echo "644 $path" ;;
			100755/100644) echo "755 $path" ;;
			esac
		done | sort | awk '{m=$1; $1=""; print m "\t" substr($0, 2)}' |
			while IFS=$'\t' read -r mode path; do
				printf '%s\0' "$path" >>"$TREE/.git/clone3-chmod-$mode"
			done
		for mode in 644 755; do
			f=$TREE/.git/clone3-chmod-$mode
			[ -f "$f" ] || continue
			echo "  checkout: restoring mode $mode of $(tr -cd '\0' <"$f" | wc -c) file(s) in $dir" >&2
			(cd "$dir" && xargs -0 chmod "$mode" <"$f")
			rm -f "$f"
		done
		dirty=$(echo "$raw" | cut -f2 | tr '\n' '\0' |
			xargs -0 git -C "$dir" diff --name-only -- | sed 's/^/ M /')
	fi
	[ -n "$dirty" ] || dirty=$(git -C "$dir" diff --cached --name-only | sed 's/^/M  /')
	if [ -n "$dirty" ]; then
		echo "$dirty" | sed 's/^/    modified: /' >&2
		die "$dir has modified tracked files (listed above); commit or restore them, nothing was changed"
	fi
}

# Once per run (verified_head, lib/git.sh): a later call of the same run
# finds the note this one leaves.
if ! head=$(verified_head "$dir"); then
	check_clean
	head=$(git -C "$dir" rev-parse HEAD)
fi
if [ "$head" != "$commit" ]; then
	rm -f "$(verified_note "$dir")"
	git -C "$dir" checkout -q --detach "$commit" ||
		die "git checkout $1 in $dir failed"
fi
note_verified "$dir" "$commit"
echo "$dir"
