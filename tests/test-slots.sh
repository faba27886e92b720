#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run_arches and in_slot (scripts/lib/jobserver.sh), the gate's jobserver: every
# job runs, never more at once than JOBS slots, a job's failure is the
# status, and no file is left behind, not even by a run killed outright.
#
# usage: tests/test-slots.sh
set -eu
cd "$(dirname "$0")/.."
. tests/lib.sh
[ $# -eq 0 ] || { echo "usage: tests/test-slots.sh" >&2; exit 2; }

D=$(mktemp -d "${TMPDIR:-/tmp}/clone3-slots-test.XXXXXX")
trap 'rm -rf "$D"' EXIT
mkdir "$D/tmp"

# A job: one step in a slot, which notes how many steps run at once.
cat >"$D/job.sh" <<'JOB'
#!/bin/bash
set -eu
. scripts/lib.sh
step() {
	local n
	n=$(flock "$D/count.lock" sh -c 'n=$(($(cat "$D/count") + 1)); echo $n >"$D/count"; echo $n')
	echo "$n" >>"$D/seen"
	sleep 0.3
	flock "$D/count.lock" sh -c 'echo $(($(cat "$D/count") - 1)) >"$D/count"'
	[ "$1" != bad ]
}
in_slot step "$1"
JOB
chmod +x "$D/job.sh"
export D
echo 0 >"$D/count"

expect "four jobs, two slots" 0 env TMPDIR="$D/tmp" JOBS=2 \
	bash -c '. scripts/lib.sh; run_arches "a b c d" "$D/job.sh" @ARCH@'
[ "$(wc -l <"$D/seen")" = 4 ] && pass "every job ran its step" || fail "every job ran its step" "$(wc -l <"$D/seen") steps"
most=$(sort -n "$D/seen" | tail -1)
[ "$most" = 2 ] && pass "two steps at once, never more" || fail "two steps at once, never more" "at most $most at once"
left=$(ls -A "$D/tmp")
[ -z "$left" ] && pass "nothing left in TMPDIR" || fail "nothing left in TMPDIR" "$left"

expect "a job that fails: its status" 1 env TMPDIR="$D/tmp" JOBS=2 \
	bash -c '. scripts/lib.sh; run_arches "a bad" "$D/job.sh" @ARCH@'

# Stopped (SIGTERM) while the jobs run: every job's group is stopped,
# the run says so and leaves with 130 (stop_groups).
: >"$D/seen"
set -m
TMPDIR="$D/tmp" JOBS=1 bash -c '. scripts/lib.sh; run_arches "a b c d e f" "$D/job.sh" @ARCH@' >"$D/out" 2>&1 &
pid=$!
set +m
sleep 0.5
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" = 130 ] && pass "SIGTERM: exit 130" || fail "SIGTERM: exit 130" "exit $rc"
grep -q '^interrupted; earlier results are kept' "$D/out" && pass "SIGTERM: says so" ||
	fail "SIGTERM: says so" "$(tail -2 "$D/out" | tr '\n' ' ')"
sleep 0.5
n=$(wc -l <"$D/seen")
[ "$n" -le 2 ] && pass "SIGTERM: no job goes on" || fail "SIGTERM: no job goes on" "$n steps ran"

# Killed outright while the jobs wait for slots.
: >"$D/seen"
TMPDIR="$D/tmp" JOBS=1 setsid bash -c '. scripts/lib.sh; run_arches "a b c d e f" "$D/job.sh" @ARCH@' &
pid=$!
sleep 0.5
kill -KILL -- "-$pid"
wait "$pid" 2>/dev/null || true
# The jobs lead process groups of their own: they end by themselves.
for _ in $(seq 100); do
	pgrep -f "$D/job.sh" >/dev/null || break
	sleep 0.1
done
left=$(ls -A "$D/tmp")
[ -z "$left" ] && pass "killed with SIGKILL: nothing left in TMPDIR" ||
	fail "killed with SIGKILL: nothing left in TMPDIR" "$left"
# A job whose jobserver is gone (its run was stopped first): one line,
# 130, and the step never runs.
: >"$D/seen"
rc=0
CLONE3_SLOTS=/proc/$$/fd/999 "$D/job.sh" a >"$D/out" 2>&1 || rc=$?
[ "$rc" = 130 ] && [ "$(wc -l <"$D/out")" = 1 ] && grep -q "^stopped: the gate's jobserver" "$D/out" &&
	[ ! -s "$D/seen" ] && pass "jobserver gone: one line, exit 130" ||
	fail "jobserver gone: one line, exit 130" "exit $rc: $(tr '\n' ' ' <"$D/out")"
exit $T_FAILED
