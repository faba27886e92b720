#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Documentation/extending.md, followed in a scratch copy of the
# repository: a toy arch (qemu-images/toy64/, data only), a toy tree
# (trees/9.9/) and a toy change (changes/toy/, on that tree) are added as
# the document says, `scripts/matrix.py ci --write` is run, and then
# every list the gate takes arches, trees and changes from knows them
# (ARCHES' default, KERNEL's choices, make check's plan, report.sh's
# cells, both CI pipelines, the change's checks and results directory),
# while git shows that nothing but the three directories and the two
# generated CI files changed.  No kernel is built.
#
# usage: tests/test-extending.sh
set -eu
cd "$(dirname "$0")/.."
. tests/lib.sh

T=$(mktemp -d "${TMPDIR:-/tmp}/clone3-extending.XXXXXX")
trap 'rm -rf "$T"' EXIT
# The working tree as it is, tracked and new files, in a git repository
# of its own.
git ls-files -co --exclude-standard -z | cpio -0pdm --quiet "$T/repo"
git -C "$T/repo" init -q
git -C "$T/repo" add -A
git -C "$T/repo" -c user.name=t -c user.email=t@localhost commit -q -m scratch
R=$T/repo

# The arch: its directory, as a copy of a 64-bit one (its C block would
# go into clone3_raw.h; without one its CLONE_VM tests skip).
cp -r "$R/qemu-images/riscv64" "$R/qemu-images/toy64"
sed -i 's/^CPU=.*/CPU=toy/' "$R/qemu-images/toy64/qemu.conf"
# The tree: source.conf and, as the tree has the flag, its revert.
cp -r "$R/trees/6.12" "$R/trees/9.9"
sed -i 's/^PKG=.*/PKG=linux-source-9.9/; s|^TARBALL=.*|TARBALL=/usr/src/linux-source-9.9.tar.xz|' \
	"$R/trees/9.9/source.conf"

# The change: a series with its patch, a declaration, a mutant, and its
# base on the toy tree: the tree as found (an empty series).
mkdir -p "$R/changes/toy/base/9.9" "$R/changes/toy/mutants"
cp "$R/changes/pidfd-thread/"0001-*.patch "$R/changes/toy/"
(cd "$R/changes/toy" && ls 0001-*.patch >series)
printf 'flag CLONE_TOY\naccepted-from EINVAL\n' >"$R/changes/toy/abi-change"
: >"$R/changes/toy/base/9.9/series"
cp "$R/changes/pidfd-thread/mutants/01-"*.patch "$R/changes/toy/mutants/"

expect "a CI file is stale before ci --write" 1 "$R/scripts/matrix.py" ci
expect "ci --write" 0 "$R/scripts/matrix.py" ci --write

changed=$(git -C "$R" status --porcelain --untracked-files=all | awk '{ print $2 }' |
	sed 's|^\(qemu-images/toy64\)/.*|\1|; s|^\(trees/9.9\)/.*|\1|; s|^\(changes/toy\)/.*|\1|' | sort -u | tr '\n' ' ')
[ "$changed" = ".github/workflows/gate.yml .gitlab-ci.yml changes/toy qemu-images/toy64 trees/9.9 " ] &&
	pass "only the three directories and the generated CI files changed" ||
	fail "only the three directories and the generated CI files changed" "$changed"

expect "matrix check" 0 "$R/scripts/matrix.py" check
expect "ARCHES' default holds toy64" 0 "$R/scripts/matrix.py" arches
expect_output "ARCHES' default: toy64 in it" '\btoy64\b'
expect "KERNEL's choices hold 9.9" 0 "$R/scripts/matrix.py" trees
expect_output "KERNEL's choices: 9.9 last" '9\.9$'
expect "make check's plan" 0 "$R/scripts/matrix.py" check-plan
expect_output "make check's plan gives 9.9 an arch" '^gate 9\.9 [a-z]'
expect_output "make check's plan places toy64" '^gate [0-9.]+ .*\btoy64\b'
for f in .gitlab-ci.yml .github/workflows/gate.yml; do
	grep -q '9\.9:toy64' "$R/$f" && grep -q '"9\.9"' "$R/$f" &&
		pass "$f: the toy cell is in the matrix and the report's EXPECT" ||
		fail "$f: the toy cell is in the matrix and the report's EXPECT" "$(grep -n toy64 "$R/$f")"
done
expect_output "make check's plan gates the toy change on the toy tree" '^change changes/toy 9\.9 [a-z]'
expect "the toy change checks" 0 "$R/scripts/matrix.py" change "$R/changes/toy"
expect "its results directory" 0 env -u WORK -C "$R" CHANGE=changes/toy KERNEL=9.9 scripts/results-dir.sh
expect_output "its results directory is its own" 'build/9\.9-toy/results$'
# report.sh's default cells come from the matrix too: it names the toy
# tree's cell as missing from an empty results directory.
mkdir -p "$T/empty"
expect "report.sh wants the toy cell" 1 env -C "$R" KERNEL=9.9 ARCHES=toy64 OUT="$T/out" \
	scripts/report.sh "$T/empty"
expect_output "report.sh names the toy cell missing" 'no shard has a result for base/toy64'
