#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check stopped mid-step (SIGTERM or SIGINT to scripts/check.sh, as
# a CI runner's timeout or a ^C sends): it stops the step under way,
# process group and all, says so and leaves with 130.  The step here is
# a stand-in Python (PYTHON3) that sleeps and notes its pid.
#
# usage: tests/test-check-stop.sh
set -eu
cd "$(dirname "$0")/.."
. tests/lib.sh
[ $# -eq 0 ] || { echo "usage: tests/test-check-stop.sh" >&2; exit 2; }

# Run by the make check it stops, should that check not stop.
if [ -n "${CLONE3_CHECK_STOP_TEST:-}" ]; then
	echo "ok - make check stopped # SKIP run by the check under test"
	exit 0
fi
export CLONE3_CHECK_STOP_TEST=1
D=$(mktemp -d "${TMPDIR:-/tmp}/clone3-check-stop.XXXXXX")
trap 'rm -rf "$D"' EXIT
cat >"$D/python3" <<'FAKE'
#!/bin/bash
echo $$ >>"$STOP_DIR/pids"
sleep 20 &
echo $! >>"$STOP_DIR/pids"
wait
FAKE
chmod +x "$D/python3"

# A signal ignored when a shell starts cannot be trapped in it nor in
# anything it starts: so it is for SIGINT under a background job of a
# script (nohup ... &), whose make check no ^C can reach anyway.
sigs=TERM
if (( 0x$(awk '/^SigIgn:/ { print $2 }' /proc/$$/status) & 2 )); then
	echo "ok - SIGINT # SKIP SIGINT was ignored when this test started (a background job of a script): no shell it starts can trap it"
else
	sigs="$sigs INT"
fi
for sig in $sigs; do
	: >"$D/pids"
	# Job control: a background job of a script would otherwise start
	# with SIGINT ignored, which no trap can undo.
	set -m
	STOP_DIR=$D PYTHON3=$D/python3 CHECK_LOGS=$D/logs scripts/check.sh fast >"$D/out" 2>&1 &
	pid=$!
	set +m
	# Until the stand-in runs (the steps before it take longer on a
	# loaded machine: a signal sent before would test something else).
	for _ in $(seq 1200); do
		[ "$(wc -l <"$D/pids")" -lt 2 ] || break
		sleep 0.1
	done
	kill -"$sig" "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" = 130 ] && pass "SIG$sig: exit 130" || fail "SIG$sig: exit 130" "exit $rc"
	grep -q '^make check: interrupted$' "$D/out" && pass "SIG$sig: says so" ||
		fail "SIG$sig: says so" "$(tail -2 "$D/out" | tr '\n' ' ')"
	alive=
	# A zombie is gone too: its parent died with it, and reaping it is
	# up to PID 1.
	for p in $(cat "$D/pids"); do
		case $(ps -o stat= -p "$p" 2>/dev/null) in '' | Z*) ;; *) alive="$alive $p" ;; esac
	done
	[ -z "$alive" ] && pass "SIG$sig: the step's processes are gone" ||
		fail "SIG$sig: the step's processes are gone" "still running:$alive"
	[ -z "$alive" ] || kill -KILL $alive 2>/dev/null || true
done
exit $T_FAILED
