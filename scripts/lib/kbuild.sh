# SPDX-License-Identifier: GPL-2.0
# What the kernel build reads besides the tree: trees/kbuild-words
# and the huge-page preload for the compilers.
# Sourced by scripts/lib.sh, never run.

# The stanzas of trees/kbuild-words (build-kernel.sh, and its test), one
# per line: the file, the line it must hold, the trees expected to hold
# it and the make word, separated by the ASCII unit separator (037; no
# Kbuild line holds one, and an empty field stays a field).
#   kbuild_words
kbuild_words() {
	local l file='' line='' expect=''
	while IFS= read -r l; do
		case $l in
		'file '*) file=${l#file } expect= ;;
		'line '*) line=${l#line } ;;
		'expect '*) expect=${l#expect } ;;
		'word '*) printf '%s\037%s\037%s\037%s\n' "$file" "$line" "$expect" "${l#word }" ;;
		esac
	done <"$(repo_root)/trees/kbuild-words"
}

# Build scripts/hugepage-heap.c, the preload object that asks huge pages
# for big anonymous mappings, into SO unless SO is newer than it; the
# compiler's output goes to LOG.  Fails when it does not build.
#   build_hugepage_heap SO LOG
build_hugepage_heap() {
	local src
	src=$(repo_root)/scripts/hugepage-heap.c
	[ ! "$1" -nt "$src" ] || return 0
	if gcc -O2 -Wall -shared -fPIC -o "$1.$$" "$src" -ldl >>"$2" 2>&1; then
		mv -f "$1.$$" "$1"
	else
		rm -f "$1.$$" "$1"
		return 1
	fi
}
