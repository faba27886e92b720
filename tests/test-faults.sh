#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Faults of the gate itself, on the x86_64 guest the gate has built: a
# guest that hangs, a kernel that panics, KTAP cut off or inconsistent,
# bad settings, missing tools, and runs interrupted by SIGINT or SIGKILL.
# Each check asserts the verdict, the message and the exit code, and that
# no QEMU is left behind.
#
# usage: tests/test-faults.sh   (after make gate ARCHES=x86_64 or more)
set -eu
cd "$(dirname "$0")/.."
. tests/lib.sh
[ $# -eq 0 ] || { echo "usage: tests/test-faults.sh" >&2; exit 2; }
export WORK
D=$WORK/test-faults
A=x86_64
load_arch "$A"
IMG=$(kbuild_dir "$A" patched)/$IMAGE
INITRD=$(initramfs_path "$A")
# The faults need x86_64's own build directory: a build to interrupt, an
# image to boot.  A gate whose kernels came from an image cache
# (CLONE3_IMAGE_CACHE) left it empty: build it here, and keep the cache
# out of every run below, which must build.
unset CLONE3_IMAGE_CACHE
if [ ! -f "$IMG" ] && [ -f "$INITRD" ]; then
	echo "  building the patched $A kernel in $(kbuild_dir "$A" patched) for the faults"
	src=$(scripts/checkout-variant.sh patched)
	scripts/build-kernel.sh "$A" "$src" "$(kbuild_dir "$A" patched)" >/dev/null ||
		{ echo "usage: the patched $A kernel does not build" >&2; exit 2; }
fi
[ -f "$IMG" ] && [ -f "$INITRD" ] ||
	{ echo "usage: run make gate (x86_64) first: no $IMG or $INITRD" >&2; exit 2; }
rm -rf "$D"
mkdir -p "$D"

no_qemu_for() {
	local i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		pgrep -f "qemu-system.*$1" >/dev/null || return 0
		sleep 0.5
	done
	return 1
}

# json_field FILE KEY: one top-level string field of a result.
json_field() {
	"$PYTHON3" -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}

# fault NAME KNOB BOOT_STATUS REASON_PATTERN [TIMED_OUT]
fault() {
	local name=$1 knob=$2 want=$3 pattern=$4 t0 t1 rc=0 opt=()
	t0=$(date +%s)
	BOOT_TIMEOUT=10 scripts/boot.sh $A "$IMG" "$INITRD" "$D/$name.log" \
		CLONE3_REQUIRE_CLEAR_SIGHAND=1 "CLONE3_GATE_FAULT=$knob" 2>"$D/$name.err" || rc=$?
	t1=$(date +%s)
	[ "$rc" = "$want" ] && pass "$name: boot.sh exits $want" ||
		fail "$name: boot.sh exits $want" "exit $rc: $(tail -1 "$D/$name.err")"
	[ $((t1 - t0)) -le 18 ] && pass "$name: over within the timeout plus a few seconds" ||
		fail "$name: over within the timeout plus a few seconds" "$((t1 - t0)) s"
	no_qemu_for "$D/$name" && pass "$name: no QEMU left" ||
		fail "$name: no QEMU left" "$(pgrep -af "qemu-system.*$D/$name")"
	[ "$rc" != 3 ] || opt=(--timed-out)
	"$PYTHON3" scripts/ktap-report.py --log "$D/$name.log" --variant fault-$name \
		--arch $A --out-dir "$D/results" "${opt[@]}" >/dev/null
	local j=$D/results/$A.json status reason
	status=$(json_field "$j" status)
	reason=$(json_field "$j" reason)
	[ "$status" = error ] && pass "$name: verdict is error" ||
		fail "$name: verdict is error" "status $status"
	echo "$reason" | grep -qE -- "$pattern" && pass "$name: reason says so" ||
		fail "$name: reason says so" "reason: $reason"
	[ -s "$D/results/$A.log" ] && pass "$name: console log kept" ||
		fail "$name: console log kept" "no log"
	mv "$D/results" "$D/results-$name"
}

fault hang hang 3 'host timeout fired: document cut off'
fault panic exit 0 'kernel panic .*Attempted to kill init'
fault cut cut 0 'no CLONE3-GATE-END marker: document cut off'

# A plan that does not match: a real log with one result line dropped.
good=$(results_dir patched)/$A.log
if [ -f "$good" ]; then
	awk '/^ok 2 / && !done { done = 1; next } { print }' "$good" >"$D/mismatch.log"
	"$PYTHON3" scripts/ktap-report.py --log "$D/mismatch.log" --variant fault-mismatch \
		--arch $A --out-dir "$D/results-mismatch" >/dev/null
	st=$(json_field "$D/results-mismatch/$A.json" status)
	[ "$st" = error ] && pass "plan mismatch: verdict is error" ||
		fail "plan mismatch: verdict is error" "status $st: $(json_field "$D/results-mismatch/$A.json" reason)"
fi

# Bad settings: exit 2 and a single line that names the value.
bad() {
	local name=$1 pattern=$2
	shift 2
	expect "$name: exit 2" 2 env "$@"
	[ "$(echo "$OUT" | grep -c .)" = 1 ] && pass "$name: one line" ||
		fail "$name: one line" "$(echo "$OUT" | grep -c .) lines: $OUT"
	expect_output "$name: names the problem" "$pattern"
}
bad "ARCHES=sparc" "unknown arch 'sparc'" ARCHES=sparc scripts/gate.sh
bad "ARCHES empty" "ARCHES is empty" ARCHES=" " scripts/gate.sh
bad "ARCHES twice" "given twice" ARCHES="x86_64 x86_64" scripts/gate.sh
bad "KSRC missing" "KSRC=/nonexistent" KSRC=/nonexistent scripts/gate.sh
bad "KERNEL=9.9" "KERNEL=9.9: unknown tree; choose from: $(scripts/matrix.py trees)" KERNEL=9.9 scripts/gate.sh
bad "ACCEL=xen" "ACCEL=xen" ACCEL=xen scripts/gate.sh
bad "tree-diff without FROM" "FROM is not set" -u FROM TO=6.12 scripts/tree-diff.sh
bad "tree-diff TO=9.9" "TO=9.9: unknown tree; choose from: $(scripts/matrix.py trees)" FROM=6.1 TO=9.9 scripts/tree-diff.sh
bad "tree-diff one tree" "FROM and TO are both 6.1" FROM=6.1 TO=6.1 scripts/tree-diff.sh
bad "tree-diff ARCHES=sparc" "unknown arch 'sparc'" FROM=6.1 TO=6.12 ARCHES=sparc scripts/tree-diff.sh
bad "JOBS=0" "JOBS=0" JOBS=0 scripts/gate.sh
bad "JOBS=two" "JOBS=two" JOBS=two scripts/gate.sh
bad "REBOOT=yes" "REBOOT=yes: use 0 or 1" REBOOT=yes scripts/gate.sh
bad "CLONE3_FULL_WALK=yes" "CLONE3_FULL_WALK=yes: use 0 or 1" CLONE3_FULL_WALK=yes scripts/gate.sh
bad "CLONE3_HUGEPAGES=yes" "CLONE3_HUGEPAGES=yes: use 0 or 1" CLONE3_HUGEPAGES=yes scripts/gate.sh
bad "CLONE3_SLOTS not a fifo" "CLONE3_SLOTS=$D is not the gate's jobserver" CLONE3_SLOTS="$D" scripts/gate.sh
bad "build-kernel CLONE3_SLOTS" "CLONE3_SLOTS=$D is not the gate's jobserver" \
	CLONE3_SLOTS="$D" scripts/build-kernel.sh $A "$(scripts/checkout-variant.sh patched)" "$D/no-build"
bad "CLONE3_IMAGE_CACHE unwritable" "CLONE3_IMAGE_CACHE=/proc/clone3 is not a directory" \
	CLONE3_IMAGE_CACHE=/proc/clone3 scripts/gate.sh
bad "CLONE3_FUZZ_SECONDS=abc" "CLONE3_FUZZ_SECONDS=abc: want a positive number" \
	CLONE3_FUZZ_SECONDS=abc scripts/gate.sh
bad "CLONE3_FUZZ_SECONDS=0" "CLONE3_FUZZ_SECONDS=0: want a positive number" \
	CLONE3_FUZZ_SECONDS=0 scripts/gate.sh
bad "PYTHON3 missing" "PYTHON3=/nonexistent is not a command" PYTHON3=/nonexistent scripts/gate.sh
bad "MUTANTS_DIR missing" "MUTANTS_DIR=/nonexistent" MUTANTS_DIR=/nonexistent scripts/mutants.sh
mkdir -p "$D/empty"
bad "MUTANTS_DIR empty" "holds no \*.patch" MUTANTS_DIR="$D/empty" scripts/mutants.sh
bad "mutants ARCHES=mips" "unknown arch 'mips'" ARCHES=mips MUTANTS_DIR=patches/mutants scripts/mutants.sh
bad "kselftest without a tree" "is not a prepared tree \(run: make tree\)" \
	WORK="$D/no-work" scripts/kselftest-tree.sh

# Missing tools: a PATH without the arm64 compiler, then without QEMU.
shim() {
	local dir=$D/path-$1 f
	mkdir -p "$dir"
	for f in /usr/local/bin/* /usr/bin/* /usr/sbin/*; do
		[ "$(basename "$f")" = "$1" ] || ln -sf "$f" "$dir/" 2>/dev/null || true
	done
	rm -f "$dir/$1"
	echo "$dir"
}
p=$(shim aarch64-linux-gnu-gcc)
bad "no arm64 compiler" "apt-get install gcc-aarch64-linux-gnu" \
	PATH="$p" CLONE3_NO_INSTALL=1 ARCHES=arm64 scripts/gate.sh
p=$(shim qemu-system-aarch64)
bad "no arm64 QEMU" "apt-get install qemu-system-arm" \
	PATH="$p" CLONE3_NO_INSTALL=1 ARCHES=arm64 scripts/gate.sh

# Interrupted runs.  result_ok: every result there is whole JSON.
results_whole() {
	"$PYTHON3" - "$WORK/results" <<'PY'
import glob, json, sys
for p in glob.glob(sys.argv[1] + '/*/*.json'):
    json.load(open(p))
PY
}
# descendant PATTERN PID: a process whose command line matches PATTERN
# runs below PID (a make of this run, not one another run left).
descendant() {
	local p pp
	for p in $(pgrep -f "$1"); do
		pp=$p
		while [ "${pp:-1}" -gt 1 ]; do
			[ "$pp" = "$2" ] && return 0
			pp=$(awk '{ print $4 }' "/proc/$pp/stat" 2>/dev/null) || break
		done
	done
	return 1
}

# interrupt NAME SIGNAL WHAT: start a one-arch gate, wait for WHAT
# (a process pattern) below it, send SIGNAL to its whole process group.
interrupt() {
	local name=$1 sig=$2 what=$3 pid i rc=0
	# Job control: the gate leads its own process group, and SIGINT is
	# not ignored in it as it would be in a plain background job.  A
	# SIGINT this test inherited ignored (a CI started with nohup ... &)
	# would stay ignored across exec: the gate gets the default back, as
	# from a terminal.
	set -m
	perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV or die "exec: $!\n"' \
		env ARCHES=$A REBOOT=1 scripts/gate.sh >"$D/$name.out" 2>&1 &
	pid=$!
	set +m
	for i in $(seq 600); do
		descendant "$what" "$pid" && break
		sleep 0.2
	done
	if ! descendant "$what" "$pid"; then
		fail "$name: reached '$what'" "never seen"
		wait "$pid" || true
		return
	fi
	kill "-$sig" -- "-$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || rc=$?
	[ "$rc" != 0 ] && pass "$name: the run stops (exit $rc)" ||
		fail "$name: the run stops" "exit 0: $(tail -n 4 "$D/$name.out" | tr '\n' ' ')"
	if [ "$sig" = INT ]; then
		no_qemu_for "$WORK/boot" && pass "$name: no QEMU left" ||
			fail "$name: no QEMU left" "$(pgrep -af qemu-system)"
		sleep 1
		pgrep -f "make.*$WORK/kbuild/$A" >/dev/null &&
			fail "$name: no make left" "$(pgrep -af "make.*$WORK/kbuild")" ||
			pass "$name: no make left"
	fi
	results_whole && pass "$name: every result is whole" ||
		fail "$name: every result is whole" "a result does not parse"
	[ -z "$(git -C "$WORK/linux" status --porcelain --untracked-files=no)" ] &&
		pass "$name: tree intact" || fail "$name: tree intact" "modified files"
	expect "$name: the next run recovers" 0 env ARCHES=$A scripts/gate.sh
	no_qemu_for "$WORK/boot" && pass "$name: no QEMU left after the next run" ||
		fail "$name: no QEMU left after the next run" "$(pgrep -af qemu-system)"
}
# force_build: the next gate must compile: touch fork.c and drop the
# images kept by their inputs, which would otherwise be given back.
force_build() {
	touch "$WORK/linux/kernel/fork.c"
	rm -rf "$(kbuild_dir "$A" patched)/.clone3-images"
}
force_build
interrupt "SIGINT in a build" INT "make.*$WORK/kbuild/$A/patched"
interrupt "SIGKILL in a boot" KILL "qemu-system-x86_64.*$WORK/boot"
force_build
interrupt "SIGKILL in a build" KILL "make.*$WORK/kbuild/$A/patched"

# A boot whose kernel, initramfs and command line are those of a finished
# boot is not run again: its console is read again, no QEMU starts.  A
# change of the command line boots.
reused() {
	local n
	n=$(echo "$OUT" | grep -c 'console is read again' || true)
	[ "$n" = "$1" ] && pass "$2" || fail "$2" "$n boots read again, wanted $1: $(echo "$OUT" | grep -E '^(base|patched) ' | tr '\n' ' ')"
}
env ARCHES=$A scripts/gate.sh >/dev/null 2>&1 || true
expect "boot reuse: a repeated gate passes" 0 env ARCHES=$A scripts/gate.sh
reused 2 "boot reuse: base and patched read again"
expect "boot reuse: REBOOT=1 boots" 0 env ARCHES=$A REBOOT=1 scripts/gate.sh
reused 0 "boot reuse: REBOOT=1 reads nothing again"
expect "boot reuse: another fuzzer budget boots" 0 env ARCHES=$A CLONE3_FUZZ_SECONDS=0.25 scripts/gate.sh
reused 0 "boot reuse: another command line reads nothing again"

# Bad mutants, each an error or a result of its own while the rest of the
# matrix runs: a plain diff (no mail header), a file that is no patch,
# and a mutant whose kernel does not build.
M=$D/mutants
mkdir -p "$M"
sed -n '/^diff --git/,$p' patches/mutants/03-no-reset.patch | sed '/^-- $/,$d' >"$M/a-plain-diff.patch"
echo "this is not a patch" >"$M/b-not-a-patch.patch"
sed -e 's/^Subject: .*/Subject: [PATCH] mutant: does-not-build/' \
	-e 's/^-\t\tflush_signal_handlers(tsk, 0);$/&\n+#error clone3 gate: this mutant must not build/' \
	-e 's/^@@ -\([0-9]*\),8 +\([0-9]*\),6 @@/@@ -\1,8 +\2,7 @@/' \
	patches/mutants/03-no-reset.patch >"$M/c-does-not-build.patch"
expect "bad mutants: the matrix runs to its end (exit 1)" 1 \
	env ARCHES=$A MUTANTS_DIR="$M" scripts/mutants.sh
st() { json_field "$(results_dir "mutant-$1")/$A.json" "$2"; }
[ "$(st a-plain-diff status)" = fail ] && pass "a plain diff is taken, and killed" ||
	fail "a plain diff is taken, and killed" "status $(st a-plain-diff status): $(st a-plain-diff reason)"
[ "$(st b-not-a-patch status)" = error ] && st b-not-a-patch reason | grep -q 'does not apply' &&
	pass "a file that is no patch is an error: does not apply" ||
	fail "a file that is no patch is an error: does not apply" "$(st b-not-a-patch status): $(st b-not-a-patch reason)"
[ "$(st c-does-not-build status)" = error ] &&
	st c-does-not-build reason | grep -q 'kernel did not build: .*error: #error clone3 gate' &&
	pass "a mutant that does not build: the reason quotes the compiler" ||
	fail "a mutant that does not build: the reason quotes the compiler" "$(st c-does-not-build status): $(st c-does-not-build reason)"

rm -rf "$D"
exit $T_FAILED
