# SPDX-License-Identifier: GPL-2.0
# Git plumbing on the prepared tree: commits made from patches
# without touching the work tree or index, and the per-run check note.
# Sourced by scripts/lib.sh, never run.

# The patches a directory's series file lists, in order, as paths.
series_patches() {
	local dir=$1
	[ -f "$dir/series" ] || die "$dir/series is missing"
	grep -v '^[[:space:]]*\(#\|$\)' "$dir/series" | sed "s|^|$dir/|"
}

# Commit TREE_ID on top of PARENT in git tree TREE with the message and
# author of the mail PATCH; committer and date are fixed so that the same
# input always gives the same commit id.  Prints the commit id.
#   commit_as_patch TREE TREE_ID PARENT PATCH
commit_as_patch() {
	local msg info
	local subject name email date
	msg=$(mktemp)
	info=$(git mailinfo "$msg" /dev/null <"$4")
	# A plain diff has no mail header: its file name is its subject.
	subject=$(echo "$info" | sed -n 's/^Subject: //p')
	[ -n "$subject" ] || subject="$(basename "$4") (a plain diff)"
	name=$(echo "$info" | sed -n 's/^Author: //p')
	email=$(echo "$info" | sed -n 's/^Email: //p')
	date=$(echo "$info" | sed -n 's/^Date: //p')
	{ echo "$subject"; echo; cat "$msg"; } |
		GIT_AUTHOR_NAME=${name:-clone3 gate} \
		GIT_AUTHOR_EMAIL=${email:-gate@localhost} \
		GIT_AUTHOR_DATE=${date:-2019-11-14 00:00:00 +0000} \
		GIT_COMMITTER_NAME="clone3 gate" \
		GIT_COMMITTER_EMAIL="gate@localhost" \
		GIT_COMMITTER_DATE="2019-11-14 00:00:00 +0000" \
		git -C "$1" commit-tree "$2" -p "$3" -F -
	rm -f "$msg"
}

# One check of a work tree per run.  Looking for modified tracked files
# stats every file of the tree (some 0.4 CPU-s for a kernel here); a gate
# run asked it three times per arch and variant.  checkout-variant.sh
# checks, checks out and then notes "RUN COMMIT" in the worktree's git
# directory, RUN being CLONE3_RUN, which gate.sh and mutants.sh set to an
# id of their own run; later calls of the same run trust that note while
# HEAD is still COMMIT.  The work tree is the gate's: only our checkouts
# change it while a run goes, and an edit of it made meanwhile is seen by
# the next run.  Without CLONE3_RUN every call checks.
#   verified_note DIR        the note's path
#   verified_head DIR        print HEAD when this run noted DIR clean there
#   note_verified DIR COMMIT note it (nothing without CLONE3_RUN)
verified_note() {
	echo "$(git -C "$1" rev-parse --absolute-git-dir)/clone3-verified"
}
verified_head() {
	local out
	[ -n "${CLONE3_RUN:-}" ] || return 1
	out=$(git -C "$1" rev-parse --absolute-git-dir HEAD 2>/dev/null) || return 1
	[ "$(cat "${out%%$'\n'*}/clone3-verified" 2>/dev/null)" = "$CLONE3_RUN ${out##*$'\n'}" ] || return 1
	echo "${out##*$'\n'}"
}
note_verified() {
	[ -n "${CLONE3_RUN:-}" ] || return 0
	echo "$CLONE3_RUN $2" >"$(verified_note "$1")"
}
# Start a run: a fresh CLONE3_RUN for this script and what it calls
# (gate.sh, mutants.sh).
start_run() {
	CLONE3_RUN=$(basename "$0")-$$-$(date +%s%N)
	export CLONE3_RUN
}

# Fill the index file IDX with COMMIT's tree.  Reading a kernel's tree
# into an index takes some 0.6 s here: the index of the last commit asked
# is kept in TREE's .git, and a copy of it takes a few milliseconds (the
# mutants are all applied on the same commit).
#   scratch_index TREE COMMIT IDX
scratch_index() {
	local id kept
	id=$(git -C "$1" rev-parse --verify -q "$2^{commit}") || id=
	kept=$1/.git/clone3-index-of-$id
	[ -z "$id" ] || ! cp "$kept" "$3" 2>/dev/null || return 0
	GIT_INDEX_FILE=$3 git -C "$1" read-tree "$2" || return 1
	[ -n "$id" ] || return 0
	find "$1/.git" -maxdepth 1 -name 'clone3-index-of-*' ! -name "*$id*" -delete 2>/dev/null || true
	{ cp "$3" "$kept.$$" && mv "$kept.$$" "$kept"; } 2>/dev/null || rm -f "$kept.$$"
}

# Apply PATCH... on top of COMMIT in git tree TREE without touching its
# work tree or index (a scratch index is used); print the new commit id.
# Each commit keeps its patch's author; committer and date are fixed so
# that the same patches always give the same commit ids.
#   commit_patches TREE COMMIT PATCH...
commit_patches() {
	local tree_dir commit=$2 p tree err
	tree_dir=$(cd "$1" && pwd)
	local idx=$tree_dir/.git/clone3-scratch-index.$$
	shift 2
	for p in "$@"; do
		rm -f "$idx"
		scratch_index "$tree_dir" "$commit" "$idx"
		if ! err=$(GIT_INDEX_FILE=$idx git -C "$tree_dir" apply --cached "$p" 2>&1); then
			rm -f "$idx"
			die "$(basename "$p") does not apply: $(echo "$err" | head -1)"
		fi
		tree=$(GIT_INDEX_FILE=$idx git -C "$tree_dir" write-tree)
		rm -f "$idx"
		commit=$(commit_as_patch "$tree_dir" "$tree" "$commit" "$p")
	done
	echo "$commit"
}

# ls-tree lines on stdin, with the object of entry NAME replaced by ID.
#   swap_entry NAME ID
swap_entry() {
	awk -F'\t' -v name="$1" -v id="$2" \
		'$2 == name { sub(/ [0-9a-f]+$/, " " id, $1) } { print $1 "\t" $2 }'
}
