#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: the project's own tests, then the whole gate, the mutants
# on CHECK_MUTANT_ARCHES and the gate's fault tests.  Each step's output
# is kept in build/check/<step>.log; the closing line counts every check
# of every step.
#
# usage: check.sh
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || die "usage: check.sh"
ROOT=$(repo_root)
cd "$ROOT"
LOGS=build/check
mkdir -p "$LOGS"
CHECK_MUTANT_ARCHES=${CHECK_MUTANT_ARCHES:-x86_64}

passed=0
failed=0
skipped=0

# step NAME COMMAND...: run one step, count what it reports.
step() {
	local name=$1 rc p f s line
	shift
	echo "== $name: $*"
	set +e
	"$@" >"$LOGS/$name.log" 2>&1
	rc=$?
	set -e
	p=$(grep -c '^ok - ' "$LOGS/$name.log" || true)
	f=$(grep -c '^not ok - ' "$LOGS/$name.log" || true)
	s=0
	line=$(grep -E '^([A-Za-z][A-Za-z_-]*: )?[0-9]+ passed, [0-9]+ failed' "$LOGS/$name.log" | tail -1 || true)
	if [ -n "$line" ]; then
		line=${line#*: }
		p=$((p + $(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')))
		f=$((f + $(echo "$line" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')))
		case $line in *skipped*) s=$(echo "$line" | sed -E 's/.* ([0-9]+) skipped.*/\1/') ;; esac
	fi
	if [ $rc -eq 0 ] && [ "$p" = 0 ] && [ "$f" = 0 ]; then
		p=1
	elif [ $rc -ne 0 ] && [ "$f" = 0 ]; then
		f=1
		echo "not ok - $name exited $rc" >>"$LOGS/$name.log"
	fi
	grep -E '^not ok - ' "$LOGS/$name.log" | sed 's/^/  /' || true
	tail -n 2 "$LOGS/$name.log" | sed 's/^/  | /'
	echo "   $name: $p passed, $f failed, $s skipped (exit $rc; log $LOGS/$name.log)"
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
}

step tree scripts/prepare-tree.sh "${WORK:-build}" "${KSRC:-}"
step series tests/test-series.sh
step apply tests/test-apply.sh
for t in tests/test-*.sh tests/test_*.py; do
	[ -e "$t" ] || continue
	case $t in
	tests/test-series.sh | tests/test-apply.sh | tests/test-faults.sh | tests/test-unprivileged.sh) ;;
	*) step "$(basename "${t%.*}")" "$t" ;;
	esac
done
step selftest-host scripts/selftest-host.sh
step kselftest-tree scripts/kselftest-tree.sh
step gate scripts/gate.sh
step mutants env ARCHES="$CHECK_MUTANT_ARCHES" scripts/mutants.sh
[ ! -x tests/test-faults.sh ] || step faults tests/test-faults.sh
[ ! -x tests/test-unprivileged.sh ] || step unprivileged tests/test-unprivileged.sh

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
