#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prepare the kernel tree the gate works on, as a git repository:
#   tag    upstream   the source as found (Debian's linux-source of the
#                     tree KERNEL names, trees/KERNEL/source.conf, or KSRC;
#                     a tree with SUITE there comes from that Debian
#                     release through debian-package.sh, not apt-get install)
#   branch base       upstream without CLONE_CLEAR_SIGHAND (another
#                     change, CHANGE=dir: upstream with the series of
#                     dir/base/<tree>/, which takes that change out)
#   branch patched    base + the change's series (patches/series by
#                     default), and your commits on top of it
#                     (on a tree with ports, the series as it takes it:
#                     trees/<tree>/port/, see tree_series in lib/paths.sh)
# The user's KSRC is only read: it is copied, never modified.  A tree
# that already has the flag gets its base from trees/<tree>/revert/ (for
# KSRC: the tree of the same VERSION.PATCHLEVEL).
#
# Environment: KERNEL, KSRC, WORK (see gate_paths in lib/paths.sh).
#
# usage: prepare-tree.sh
set -eu
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

[ $# -eq 0 ] || die "usage: prepare-tree.sh (settings come from the environment: KERNEL KSRC WORK)"
gate_paths
mkdir -p "$WORK"
SUITE=
if [ -z "$KSRC" ]; then
	. "$ROOT/trees/$KERNEL/source.conf"
	# A tree of another Debian release (SUITE set): its package is
	# unpacked into the package cache, and TARBALL is a path inside it.
	if [ -n "$SUITE" ]; then
		PKG_DIR=$(deb_cache)/unpacked/$SUITE/$PKG
		TARBALL=$PKG_DIR/$TARBALL
	fi
fi

need_cmd git git
need_cmd xz xz-utils

# Fixed identity and dates make the variant commits reproducible: the same
# patches give the same commit ids, so re-running changes nothing on disk.
export GIT_AUTHOR_NAME="clone3 gate" GIT_AUTHOR_EMAIL="gate@localhost"
export GIT_COMMITTER_NAME="clone3 gate" GIT_COMMITTER_EMAIL="gate@localhost"
export GIT_AUTHOR_DATE="2019-11-14 00:00:00 +0000"
export GIT_COMMITTER_DATE="$GIT_AUTHOR_DATE"

import_upstream() {
	local tmp=$WORK/linux.partial

	rm -rf "$tmp"
	need_space "$WORK" "$TREE_MIB" "the tree $TREE"
	mkdir -p "$tmp"
	if [ -n "$KSRC" ]; then
		[ -f "$KSRC/Makefile" ] && [ -f "$KSRC/kernel/fork.c" ] ||
			die "KSRC=$KSRC is not a kernel source tree (no Makefile or kernel/fork.c)"
		echo "tree: copying $KSRC (read only) to $TREE"
		tar -C "$KSRC" --exclude=.git -cf - . | tar -C "$tmp" -xf -
	else
		if [ -n "$SUITE" ]; then
			[ -f "$TARBALL" ] || "$ROOT/scripts/debian-package.sh" "$SUITE" "$PKG" "$PKG_DIR" || exit 2
			[ -f "$TARBALL" ] || die "$TARBALL missing although $SUITE's $PKG is unpacked"
		else
			[ -f "$TARBALL" ] || need_packages "$PKG"
			[ -f "$TARBALL" ] || die "$TARBALL missing although $PKG is installed"
		fi
		echo "tree: unpacking $TARBALL to $TREE"
		tar -C "$tmp" --strip-components=1 -xJf "$TARBALL"
	fi
	git -C "$tmp" init -q -b import
	git -C "$tmp" config core.autocrlf false
	git -C "$tmp" config gc.auto 0
	git -C "$tmp" add -A -f
	git -C "$tmp" commit -q -m "upstream: ${KSRC:-Debian $PKG} as found" \
		-m "Imported unmodified by the clone3 gate."
	git -C "$tmp" tag upstream
	git -C "$tmp" checkout -q --detach
	git -C "$tmp" branch -q -D import
	echo "${KSRC:-$TARBALL}" >"$tmp/.git/clone3-source"
	# Only a complete import is ever seen under the final name.
	mv "$tmp" "$TREE"
}


# The revert that makes base for this tree: base_recipe_dir (lib/paths.sh).
revert_dir() {
	base_recipe_dir
}

# A KSRC of a release that has no trees/ entry takes the recipe of a
# known tree: the newest one whose revert makes a base from it on which
# the series (with that tree's ports) applies.  The choice is kept in
# the tree's git directory, where gate_paths finds it for every later
# step (mutants take the same tree's ports).  None fits: one line
# naming each tree tried, and exit 2.
choose_recipe() {
	local t tried='' err
	for t in $(known_trees | tr ' ' '\n' | sort -t. -k1,1nr -k2,2nr); do
		[ -d "$ROOT/trees/$t/revert" ] || continue
		# A condition's subshell runs without set -e: each step says.
		if err=$( (
			PORT_TREE=$t
			mapfile -t patches < <(series_patches "$(revert_dir)")
			b=$(commit_patches "$TREE" upstream "${patches[@]}") || exit
			mapfile -t s < <(tree_series)
			commit_patches "$TREE" "$b" "${s[@]}" >/dev/null
		) 2>&1); then
			PORT_TREE=$t
			echo "$t" >"$TREE/.git/clone3-recipe"
			echo "tree: KSRC is Linux $(source_version "$TREE"), which has no trees/ entry:" \
				"base and series as for trees/$t, whose revert and series apply to it"
			return
		fi
		err=$(echo "$err" | grep -m1 . || true)
		tried="$tried trees/$t (${err#error: })"
	done
	# The copy is ours and of no use without a recipe: not left behind.
	local v
	v=$(source_version "$TREE")
	rm -rf "$TREE"
	die "KSRC is Linux $v, which has CLONE_CLEAR_SIGHAND, and no tree's recipe makes its base (the copy is removed); tried:$tried"
}

if [ -d "$TREE/.git" ] && git -C "$TREE" rev-parse -q --verify upstream >/dev/null; then
	src=$(cat "$TREE/.git/clone3-source" 2>/dev/null || true)
	[ "$src" = "${KSRC:-$TARBALL}" ] ||
		die "$TREE was made from '$src', not '${KSRC:-$TARBALL}'; remove $WORK to start over"
else
	[ ! -e "$TREE" ] || die "$TREE exists but is not a prepared tree; remove it to start over"
	import_upstream
fi

# base and the series commit are made from the patches alone, with fixed
# identities and dates: when the patches are those of the last run, they
# are taken from its note (making them again reads the whole tree twice,
# some 3 s that every gate would pay).
if [ -n "$KSRC" ] && [ -z "$PORT_TREE" ] && change_is_ours &&
	grep -q CLONE_CLEAR_SIGHAND "$TREE/include/uapi/linux/sched.h"; then
	choose_recipe
fi
# Another change names the trees it supports: base/<tree>/ each.
change_is_ours || [ -f "$(revert_dir)/series" ] ||
	die "CHANGE=$CHANGE: $(revert_dir)/series: missing (the change says for each tree it supports how its base is made)"
mapfile -t series_files < <(tree_series)
inputs=$( {
	git -C "$TREE" rev-parse upstream
	if change_is_ours; then
		cat "$ROOT/trees"/*/revert/* "$ROOT/patches/series"
	else
		cat "$(revert_dir)"/* "$CHANGE/series"
	fi
	printf '%s\n' "${series_files[@]#"$ROOT"/}"
	cat "${series_files[@]}"
} | sha256sum | cut -c1-32)
made=$TREE/.git/clone3-branches
# shellcheck disable=SC2046 # three words: inputs, base, series commit
set -- $(cat "$made" 2>/dev/null)
if [ $# -eq 3 ] && [ "$1" = "$inputs" ] &&
	[ "$(git -C "$TREE" rev-parse -q --verify base)" = "$2" ] &&
	git -C "$TREE" cat-file -e "$3^{commit}" 2>/dev/null; then
	base=$2
	series=$3
else
	rm -f "$made"
	# base: the tree without the flag (another change: without it).
	if ! change_is_ours; then
		rev=$(revert_dir)
		mapfile -t patches < <(series_patches "$rev")
		if [ ${#patches[@]} -gt 0 ]; then
			echo "tree: base of change $CHANGE_NAME = upstream with ${rev#"$ROOT"/} applied to take it out"
			base=$(commit_patches "$TREE" upstream "${patches[@]}")
		else
			echo "tree: base of change $CHANGE_NAME = upstream as found (${rev#"$ROOT"/}/series is empty)"
			base=$(git -C "$TREE" rev-parse upstream)
		fi
	elif grep -q CLONE_CLEAR_SIGHAND "$TREE/include/uapi/linux/sched.h"; then
		rev=$(revert_dir)
		echo "tree: upstream already has CLONE_CLEAR_SIGHAND (merged in v5.5);" \
			"base = upstream with ${rev#"$ROOT"/} applied to take it out"
		mapfile -t patches < <(series_patches "$rev")
		base=$(commit_patches "$TREE" upstream "${patches[@]}")
	else
		echo "tree: upstream lacks CLONE_CLEAR_SIGHAND; base = upstream"
		base=$(git -C "$TREE" rev-parse upstream)
	fi
	git -C "$TREE" update-ref refs/heads/base "$base"
	for p in "${series_files[@]}"; do
		case $p in "$ROOT/trees/"*) echo "tree: ${p#"$ROOT"/} stands for its patch on this tree" ;; esac
	done
	series=$(commit_patches "$TREE" base "${series_files[@]}")
	echo "$inputs $base $series" >"$made.tmp"
	mv "$made.tmp" "$made"
fi

# patched: the series, or your commits on top of it, which are kept: the
# edit-to-verdict loop is a commit on patched and `make gate`, then `make
# series KERNEL_REF=patched`.  A patched that is not on top of the series
# (the series changed) is set to it; the old one stays as branch
# patched-old-<its short id>, so that an earlier one is never overwritten.
cur=$(git -C "$TREE" rev-parse -q --verify patched || true)
if [ -z "$cur" ] || [ "$cur" = "$series" ]; then
	git -C "$TREE" update-ref refs/heads/patched "$series"
elif git -C "$TREE" merge-base --is-ancestor "$series" "$cur"; then
	echo "tree: patched has $(git -C "$TREE" rev-list --count "$series..$cur") commit(s) of yours" \
		"on top of the series: kept (make series KERNEL_REF=patched writes them into patches/)"
else
	old=patched-old-$(git -C "$TREE" rev-parse --short=12 "$cur")
	git -C "$TREE" update-ref "refs/heads/$old" "$cur"
	git -C "$TREE" update-ref refs/heads/patched "$series"
	echo "tree: patched was not on top of the series; it is now the series," \
		"the old one is branch $old"
fi

echo "tree: $TREE upstream=$(git -C "$TREE" rev-parse --short upstream)" \
	"base=$(git -C "$TREE" rev-parse --short base)" \
	"patched=$(git -C "$TREE" rev-parse --short patched)"
