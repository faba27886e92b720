#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# trees/kbuild-words against the prepared trees of trees/: the line of
# each stanza is in its file (upstream branch) in every tree its
# "expect" names, and in no other.  A Debian update that changes one of
# those lines fails here (build-kernel.sh would only warn and build
# without the word, slower); a later tree that gains one is named here
# too.
#
# usage: tests/test-kbuild-words.sh   (after make tree, for every tree;
#        a tree of another Debian release that is not prepared is skipped)
set -eu
cd "$(dirname "$0")/.."
. tests/lib.sh
[ $# -eq 0 ] || { echo "usage: tests/test-kbuild-words.sh" >&2; exit 2; }

for v in $(known_trees); do
	tree=$(unset KSRC WORK; KERNEL=$v; gate_paths; echo "$TREE")
	if ! git -C "$tree" rev-parse -q --verify upstream >/dev/null 2>&1; then
		# make check prepares the trees of the host's release; one of
		# another release (SUITE in its source.conf: a download) is
		# checked once it has been prepared.
		if grep -q '^SUITE=.' "trees/$v/source.conf"; then
			echo "ok - $v: not prepared # SKIP run: make tree KERNEL=$v"
			continue
		fi
		echo "usage: no prepared tree $v in $tree (run: make tree KERNEL=$v)" >&2
		exit 2
	fi
	while IFS=$'\037' read -r file line expect word; do
		name="$v: ${word%%=*}"
		case " $expect " in *" $v "*) want=holds ;; *) want=lacks ;; esac
		if git -C "$tree" show "upstream:$file" 2>/dev/null | grep -qxF -- "$line"; then
			got=holds
		else
			got=lacks
		fi
		[ "$got" = "$want" ] && pass "$name: $file $want the line" ||
			fail "$name: $file $want the line" "it $got it (trees/kbuild-words: expect $expect)"
	done < <(kbuild_words)
done
exit "$T_FAILED"
