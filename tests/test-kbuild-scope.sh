#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The scoped rebuild (scripts/kbuild-scope.sh, through build-kernel.sh)
# on ARCH's patched build directory of KERNEL's work tree:
#   - after an edit of kernel/fork.c the build walks only kernel/, and its
#     vmlinux and image are those of the whole walk, byte for byte (with
#     a fixed KBUILD_BUILD_TIMESTAMP and KBUILD_BUILD_VERSION);
#   - every kind of change whose reach is not known gets the whole walk,
#     with its reason: a header, a file added or removed, a C file whose
#     object was not built, a C file a Makefile names, an unknown tree.
# Three builds of ARCH (about 45 s for x86_64 here); the build directory
# must hold a build (make gate ARCHES=ARCH, or tests/test-faults.sh for
# x86_64).  The checkout is left at patched.
#
# usage: tests/test-kbuild-scope.sh [ARCH]   (default x86_64)
set -eu
cd "$(dirname "$0")/.."
. tests/lib.sh
[ $# -le 1 ] || { echo "usage: tests/test-kbuild-scope.sh [ARCH]" >&2; exit 2; }
A=${1:-x86_64}
load_arch "$A"
B=$(kbuild_dir "$A" patched)
[ -f "$B/$IMAGE" ] ||
	{ echo "usage: no build of $A in $B: run make gate ARCHES=$A first" >&2; exit 2; }
D=$WORK/test-kbuild-scope
rm -rf "$D"
mkdir -p "$D"
export KBUILD_BUILD_TIMESTAMP="2019-11-14 00:00:00 UTC" KBUILD_BUILD_VERSION=1

# edit COMMIT PATH TEXT: COMMIT with TEXT added at the end of PATH, as a
# commit on top of it (PATH may be new).
edit() {
	local idx=$TREE/.git/clone3-test-scope-index blob tree
	rm -f "$idx"
	blob=$( { git -C "$TREE" show "$1:$2" 2>/dev/null || true; echo "$3"; } |
		git -C "$TREE" hash-object -w --stdin)
	GIT_INDEX_FILE=$idx git -C "$TREE" read-tree "$1"
	GIT_INDEX_FILE=$idx git -C "$TREE" update-index --add --cacheinfo "100644,$blob,$2"
	tree=$(GIT_INDEX_FILE=$idx git -C "$TREE" write-tree)
	rm -f "$idx"
	echo "test-kbuild-scope: $2" | git -C "$TREE" commit-tree "$tree" -p "$1"
}

# build NAME COMMIT [FULL]: check COMMIT out and build it, with an image
# cache of its own (so that no image is handed back unbuilt); sets SUM
# (vmlinux and image) and WALK (the log's walking line).
build() {
	local img
	scripts/checkout-variant.sh "$2" >/dev/null
	img=$(CLONE3_IMAGE_CACHE=$D/cache-$1 CLONE3_FULL_WALK=${3:-0} \
		scripts/build-kernel.sh "$A" "$TREE" "$B") ||
		{ echo "usage: $A does not build at $2 (log: $B/clone3-build.log)" >&2; exit 2; }
	SUM="vmlinux $(sha256sum <"$B/vmlinux" | cut -c1-16), image $(sha256sum <"$img" | cut -c1-16)"
	WALK=$(grep -h '^walking ' "$B/clone3-build.log" || echo "walking the whole tree (no line)")
	echo "  $1: $SUM; $WALK"
}

patched=$(git -C "$TREE" rev-parse patched)
# Edits that change the object (a comment would not: ccache's
# preprocessor mode would give the old object back).
one=$(edit "$patched" kernel/fork.c 'const char clone3_scope_test[] = "one";')
two=$(edit "$patched" kernel/fork.c 'const char clone3_scope_test[] = "two";')

build one-whole "$one" 1
whole=$SUM
case $WALK in "walking only"*) fail "CLONE3_FULL_WALK=1 walks the whole tree" "$WALK" ;;
*) pass "CLONE3_FULL_WALK=1 walks the whole tree" ;; esac
build two "$two"
[ "$WALK" = "walking only kernel (kbuild-scope.sh)" ] &&
	pass "an edit of kernel/fork.c walks only kernel/" ||
	fail "an edit of kernel/fork.c walks only kernel/" "$WALK"
[ "$SUM" != "$whole" ] && pass "the edit reaches vmlinux and the image" ||
	fail "the edit reaches vmlinux and the image" "both: $SUM"
build one-scoped "$one"
[ "$WALK" = "walking only kernel (kbuild-scope.sh)" ] &&
	pass "and back: walks only kernel/" || fail "and back: walks only kernel/" "$WALK"
[ "$SUM" = "$whole" ] && pass "the scoped walk's vmlinux and image are the whole walk's" ||
	fail "the scoped walk's vmlinux and image are the whole walk's" "scoped: $SUM; whole: $whole"

# The whole walk, with its reason.  The build directory holds the build
# of ONE, now checked out; OLD is a tree that differs from it as named.
# scope NAME OLD PATTERN
scope() {
	expect "$1: the whole tree is walked" 1 scripts/kbuild-scope.sh "$TREE" "$B" "$2"
	expect_output "$1: the reason says so" "$3"
}
scope "a header" "$(edit "$one" include/linux/sched.h "/* x */")" '^include/linux/sched.h is not a C file$'
scope "a file added or removed" "$(edit "$one" kernel/clone3-scope-test.c "/* x */")" \
	'^kernel/clone3-scope-test.c: status D '
scope "an object not built" "$(edit "$one" kernel/kexec.c "/* x */")" \
	'^kernel/kexec.c: its object kernel/kexec.o was not built$'
scope "a C file a Makefile names" "$(edit "$one" init/version.c "/* x */")" \
	'^version.c is named by init/Makefile$'
scope "an unknown tree" 0000000000000000000000000000000000000001 '^git cannot compare '
expect "the build's own change: walks kernel/" 0 scripts/kbuild-scope.sh "$TREE" "$B" "$two"
expect_output "the build's own change: walks kernel/" '^kernel$'

scripts/checkout-variant.sh patched >/dev/null
rm -rf "$D"
[ "$T_FAILED" = 0 ]
