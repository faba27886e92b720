#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# need_space (scripts/lib/core.sh): a step that would fill the disk stops
# before it writes, with a one-line reason and exit 2.  As root, also
# the tree's preparation on a 64 MiB tmpfs; skipped otherwise.
#
# usage: tests/test-space.sh
set -eu
cd "$(dirname "$0")/.."
. tests/lib.sh
[ $# -eq 0 ] || { echo "usage: tests/test-space.sh" >&2; exit 2; }

D=$(mktemp -d "${TMPDIR:-/tmp}/clone3-space.XXXXXX")
trap 'mountpoint -q "$D/small" && umount "$D/small"; rm -rf "$D"' EXIT
free=$(df -Pm "$D" | awk 'NR == 2 { print $4 }')

expect "enough space: no word" 0 need_space "$D" 1 "a step"
[ -z "$OUT" ] && pass "enough space: silent" || fail "enough space: silent" "$OUT"
expect "too little space: exit 2" 2 need_space "$D/not/yet" $((free + 1024)) "a step"
expect_output "too little space: says what, where and how much" \
	"^error: a step needs about $((free + 1024)) MiB free in $D, which has [0-9]+ MiB$"
[ "$(echo "$OUT" | wc -l)" = 1 ] && pass "too little space: one line" ||
	fail "too little space: one line" "$OUT"
[ ! -e "$D/not" ] && pass "too little space: nothing made" || fail "too little space: nothing made" "$D/not exists"

if [ "$(id -u)" != 0 ] || ! mkdir "$D/small" || ! mount -t tmpfs -o size=64m clone3-space "$D/small"; then
	echo "ok - prepare-tree.sh on a small disk # SKIP needs root to mount a tmpfs"
	exit $T_FAILED
fi
expect "prepare-tree.sh on a 64 MiB disk: exit 2" 2 \
	env KERNEL=6.1 WORK="$D/small/w" CLONE3_NO_INSTALL=1 scripts/prepare-tree.sh
expect_output "prepare-tree.sh on a 64 MiB disk: says so" \
	"^error: the tree $D/small/w/linux needs about $TREE_MIB MiB free in $D/small/w, which has [0-9]+ MiB$"
left=$(cd "$D/small/w" && find . -mindepth 1 | head -3)
[ -z "$left" ] && pass "prepare-tree.sh on a 64 MiB disk: nothing written" ||
	fail "prepare-tree.sh on a 64 MiB disk: nothing written" "$left"
exit $T_FAILED
