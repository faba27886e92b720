#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Apply the series in patches/ to a kernel tree, all or nothing:
#   - it applies: done (git tree: one commit per patch with `git am`;
#     other directory: the files are replaced);
#   - CLONE_CLEAR_SIGHAND is already there: say so, touch nothing;
#   - a hunk does not apply: name the patch, file and hunk, exit 2, and
#     leave the tree byte for byte as it was.
# Every patch is first tried on a scratch copy of the files it touches,
# so the tree is only written once the whole series is known to apply.
# A tree of a version that trees/ ports the series for (trees/<V.P>/port/)
# gets the series as that tree takes it (tree_series, lib/paths.sh).
#
# usage: apply-series.sh KERNEL_TREE
set -eu
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

[ $# -eq 1 ] && [ -n "$1" ] || die "usage: make apply KSRC=/path/to/linux"
ROOT=$(repo_root)
change_paths
change_is_ours ||
	die "make apply applies patches/, our change (it knows its flag); CHANGE=$CHANGE is another: git am its series"
[ -d "$1" ] || die "KSRC=$1: no such directory"
T=$(cd "$1" && pwd)
[ -f "$T/Makefile" ] && [ -f "$T/kernel/fork.c" ] ||
	die "KSRC=$1 is not a kernel tree (no Makefile or kernel/fork.c)"
need_cmd git git

# A tree of trees/ with ports (trees/<V.P>/port/) takes the series as
# ported: its VERSION.PATCHLEVEL decides.
PORT_TREE=$(source_version "$T")
[ -d "$ROOT/trees/$PORT_TREE" ] || PORT_TREE=
mapfile -t PATCHES < <(tree_series)
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
# Never let git find a repository above the tree or the scratch copy.
GIT_CEILING_DIRECTORIES=$(dirname "$T"):$(dirname "$SCRATCH")
export GIT_CEILING_DIRECTORIES

touched_files() {
	sed -n -e 's|^+++ b/||p' -e 's|^--- a/||p' "$@" | sort -u
}

is_git_tree() {
	[ "$(git -C "$T" rev-parse --show-toplevel 2>/dev/null)" = "$T" ]
}

# Copy the files the series touches into the scratch directory.
mapfile -t FILES < <(touched_files "${PATCHES[@]}")
for f in "${FILES[@]}"; do
	[ -e "$T/$f" ] || continue
	mkdir -p "$SCRATCH/tree/$(dirname "$f")"
	cp -p "$T/$f" "$SCRATCH/tree/$f"
done
mkdir -p "$SCRATCH/tree"

# Already there?  The merged flag, or this series applied before.
if grep -q 'define CLONE_CLEAR_SIGHAND' "$T/include/uapi/linux/sched.h" 2>/dev/null; then
	if (cd "$SCRATCH/tree" && for ((i = ${#PATCHES[@]} - 1; i >= 0; i--)); do
		git apply -R "${PATCHES[$i]}" || exit 1; done) >/dev/null 2>&1; then
		echo "apply: the series is already applied in $T; nothing done, tree untouched"
	else
		echo "apply: $T already has CLONE_CLEAR_SIGHAND (it was merged upstream" \
			"in v5.5); nothing done, tree untouched"
	fi
	exit 0
fi

# Dry run, patch by patch, on the scratch copy.
for p in "${PATCHES[@]}"; do
	if ! err=$(cd "$SCRATCH/tree" && git apply "$p" 2>&1); then
		where=$(echo "$err" | sed -n 's/^error: patch failed: //p' | head -1)
		file=${where%:*}
		line=${where##*:}
		hunk=$(awk -v f="$file" -v l="$line" '
			/^diff --git / { cur = ($3 == "a/" f) }
			cur && /^@@ / { split($2, a, ","); if (substr(a[1], 2) == l) { print; exit } }' "$p")
		echo "apply: $(basename "$p") does not apply to $T" >&2
		if [ -n "$where" ]; then
			echo "  conflict in $file, hunk ${hunk:-at line $line}" >&2
		else
			echo "$err" | sed 's/^/  /' >&2
		fi
		die "series not applied; $T is unchanged"
	fi
done

if is_git_tree; then
	git -C "$T" diff --cached --quiet ||
		die "$T has staged changes; commit or stash them first (nothing applied)"
	dirty=$(git -C "$T" status --porcelain -- "${FILES[@]}" | cut -c4-)
	[ -z "$dirty" ] ||
		die "$T has local changes in $(echo $dirty); commit or stash them first (nothing applied)"
	head=$(git -C "$T" rev-parse HEAD)
	trap 'git -C "$T" am --abort >/dev/null 2>&1 || true; rm -rf "$SCRATCH"; die "interrupted: series not applied"' INT TERM
	if ! git -C "$T" am -q "${PATCHES[@]}" 2>"$SCRATCH/am.err"; then
		git -C "$T" am --abort >/dev/null 2>&1 || true
		git -C "$T" reset -q --keep "$head" 2>/dev/null || true
		die "git am failed, nothing applied: $(head -1 "$SCRATCH/am.err")"
	fi
	trap 'rm -rf "$SCRATCH"' EXIT INT TERM
	echo "apply: ${#PATCHES[@]} commits added to $T with git am:"
	git -C "$T" log --oneline "$head..HEAD" | sed 's/^/  /'
	exit 0
fi

# Not a git tree: put the scratch results in place; undo on any failure.
mkdir -p "$SCRATCH/backup"
restore() {
	local f
	for f in "${FILES[@]}"; do
		if [ -e "$SCRATCH/backup/$f" ]; then
			cp -p "$SCRATCH/backup/$f" "$T/$f"
		elif [ -e "$SCRATCH/new/$f" ]; then
			rm -f "$T/$f"
		fi
	done
}
trap 'restore; rm -rf "$SCRATCH"; die "interrupted: series not applied, tree restored"' INT TERM
for f in "${FILES[@]}"; do
	if [ -e "$T/$f" ]; then
		mkdir -p "$SCRATCH/backup/$(dirname "$f")"
		cp -p "$T/$f" "$SCRATCH/backup/$f"
	else
		mkdir -p "$SCRATCH/new/$(dirname "$f")"
		touch "$SCRATCH/new/$f"
	fi
done
for f in "${FILES[@]}"; do
	mkdir -p "$T/$(dirname "$f")"
	if ! { cp -p "$SCRATCH/tree/$f" "$T/$f.clone3-new" && mv "$T/$f.clone3-new" "$T/$f"; }; then
		rm -f "$T/$f.clone3-new"
		restore
		die "could not write $T/$f; series not applied, tree restored"
	fi
done
trap 'rm -rf "$SCRATCH"' EXIT INT TERM
echo "apply: ${#PATCHES[@]} patches applied to $T (not a git tree: files replaced)"
