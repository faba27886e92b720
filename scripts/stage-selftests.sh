#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lay out a selftests tree in DEST: the kselftest framework files and the
# clone3 tests from the kernel tree's patched branch (the series applied,
# fixes to the existing tests included), with this repository's
# tools-testing-selftests-clone3/ laid over clone3/ so that edits not yet
# in patches/ are seen.  The kernel tree is only read.
#
# usage: stage-selftests.sh TREE DEST
set -eu
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

[ $# -eq 2 ] || die "usage: stage-selftests.sh TREE DEST"
TREE=$1
DEST=$2
ROOT=$(repo_root)
SUITE=$ROOT/tools-testing-selftests-clone3

git -C "$TREE" rev-parse -q --verify patched >/dev/null ||
	die "$TREE is not a prepared tree (run: make tree)"

rm -rf "$DEST.partial"
mkdir -p "$DEST.partial"
git -C "$TREE" archive patched \
	tools/testing/selftests/lib.mk \
	tools/testing/selftests/kselftest.h \
	tools/testing/selftests/kselftest_harness.h \
	tools/testing/selftests/kselftest \
	tools/testing/selftests/clone3 | tar -C "$DEST.partial" -xf -
cp -p "$SUITE"/* "$DEST.partial/tools/testing/selftests/clone3/"
rm -rf "$DEST"
mv "$DEST.partial" "$DEST"
