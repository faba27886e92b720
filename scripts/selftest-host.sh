#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run our clone3 selftests on the running kernel, without QEMU: stage
# the selftests tree from the prepared kernel tree, build our programs
# with the tree's lib.mk and the host's gcc and headers, and run them
# with the tree's kselftest runner.  Our programs are those whose source
# is in tools-testing-selftests-clone3/ (clone3_clear_sighand_abi,
# clone3_spawn_test, clone3_fuzz); the upstream clone3 tests are left to
# the gate.
#
# CLONE3_REQUIRE_CLEAR_SIGHAND=1 in the environment turns the skips of a
# kernel without the flag into failures.
#
# usage: selftest-host.sh    (KERNEL, KSRC, WORK: see gate_paths in lib/paths.sh)
# exit:  0 every program passed or skipped, 1 a program failed,
#        2 usage or environment error
set -eu
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

[ $# -eq 0 ] || die "usage: selftest-host.sh (takes no arguments; set KERNEL, KSRC or WORK)"
gate_paths
STAGE=$WORK/host-selftests
SELFTESTS=$STAGE/tools/testing/selftests
DIR=$SELFTESTS/clone3
LOG=$WORK/host-selftests.log

[ -d "$TREE/.git" ] || die "$TREE is missing (run: make tree)"
need_cmd make 'make'
need_cmd gcc 'gcc'
need_cmd timeout coreutils

PROGS=()
for p in clone3_clear_sighand_abi clone3_spawn_test clone3_fuzz; do
	[ -f "$ROOT/tools-testing-selftests-clone3/$p.c" ] && PROGS+=("$p")
done
[ ${#PROGS[@]} -gt 0 ] || die "no test sources in tools-testing-selftests-clone3/"

echo "selftest-host: kernel $(uname -r) $(uname -m), programs: ${PROGS[*]}"
"$ROOT"/scripts/stage-selftests.sh "$TREE" "$STAGE"

# Only our programs: the upstream ones need libcap and are the gate's job.
TARGETS=()
for p in "${PROGS[@]}"; do
	TARGETS+=("$DIR/$p")
done
make -s -C "$DIR" OUTPUT="$DIR" "${TARGETS[@]}" ||
	die "building ${PROGS[*]} with lib.mk failed (see the compiler output above)"

# The runner is the tree's own; it is not written for set -eu.
(
	set +eu
	cd "$DIR"
	BASE_DIR=$SELFTESTS
	. "$SELFTESTS/kselftest/runner.sh"
	run_many "${TARGETS[@]}"
) | tee "$LOG"

total=$(grep -Ec '^(not )?ok [0-9]+ selftests: ' "$LOG" || true)
fail=$(grep -Ec '^not ok [0-9]+ selftests: ' "$LOG" || true)
skip=$(grep -Ec '^ok [0-9]+ selftests: .*# SKIP' "$LOG" || true)
pass=$((total - fail - skip))
echo "# Totals: pass:$pass fail:$fail skip:$skip (log: $LOG)"
[ "$total" -eq ${#PROGS[@]} ] || {
	echo "selftest-host: FAIL: ${#PROGS[@]} programs, $total results"
	exit 1
}
if [ "$fail" -ne 0 ]; then
	echo "selftest-host: FAIL"
	exit 1
fi
echo "selftest-host: PASS"
