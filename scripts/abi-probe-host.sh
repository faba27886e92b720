#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make abi-probe: build clone3_abi_probe with the tree's lib.mk and the
# host's gcc and headers (as selftest-host.sh does), run it on the running
# kernel and print its '# abi:' lines, for scripts/abi_diff.py to compare
# with another kernel's or arch's (Documentation/abi-diff.md).  The full
# output is kept in WORK/abi-probe-host.txt.
#
# usage: abi-probe-host.sh    (KERNEL, KSRC, WORK: see gate_paths in lib/paths.sh)
# exit:  0 the probe ran to its end, 1 it did not, 2 usage or environment
set -eu
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

[ $# -eq 0 ] || die "usage: abi-probe-host.sh (takes no arguments; set KERNEL, KSRC or WORK)"
gate_paths
STAGE=$WORK/abi-probe-host
DIR=$STAGE/tools/testing/selftests/clone3
OUT=$WORK/abi-probe-host.txt

[ -d "$TREE/.git" ] || die "$TREE is missing (run: make tree)"
need_cmd make make
need_cmd gcc gcc
"$ROOT/scripts/stage-selftests.sh" "$TREE" "$STAGE"
make -s -C "$DIR" OUTPUT="$DIR" "$DIR/clone3_abi_probe" ||
	die "building clone3_abi_probe with lib.mk failed (see the compiler output above)"

rc=0
"$DIR/clone3_abi_probe" >"$OUT.partial" 2>&1 || rc=$?
mv "$OUT.partial" "$OUT"
grep '^# abi: ' "$OUT" || true
echo "abi-probe: kernel $(uname -r) $(uname -m), $(grep -c '^# abi: ' "$OUT" || true) lines (all output: $OUT)" >&2
if [ "$rc" != 0 ] || ! grep -q '^ok 1 abi_probe' "$OUT"; then
	echo "abi-probe: the probe did not run to its end (exit $rc)" >&2
	exit 1
fi
