#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The gate: base and patched kernels for every arch in ARCHES, each booted
# under QEMU with the suite; summarize.py holds the results against the
# expectations and gives the closing line and the exit code.
#
# Environment (from the Makefile): ARCHES (x86_64 arm64 riscv64), JOBS
# (make -j of each kernel build; JOBS+1 arch jobs run in parallel: a boot
# under TCG or a link is one thread, so one arch more than JOBS keeps the
# cores busy; on 2 cores JOBS=2 runs all three arches at once), ACCEL
# (tcg|kvm), V (0|1: 1 shows the build output), KSRC (a kernel tree to use
# instead of Debian's linux-source-6.1), WORK (build, or build/ksrc-<hash>
# for KSRC).
# Exit: 0 every expectation met, 1 one was not, 2 usage or environment,
# 130 interrupted (earlier results and the tree stay as they were).
#
# usage: gate.sh
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || die "usage: gate.sh (settings come from the environment: ARCHES JOBS ACCEL V KSRC WORK)"
ROOT=$(repo_root)
S=$ROOT/scripts
ARCHES=${ARCHES-x86_64 arm64 riscv64}
JOBS=${JOBS:-2}
ACCEL=${ACCEL:-tcg}
V=${V:-0}
KSRC=${KSRC:-}
WORK=${WORK:-build}

[ -n "$(echo $ARCHES)" ] || die "ARCHES is empty; choose from: x86_64 arm64 riscv64"
seen=" "
for a in $ARCHES; do
	case $a in
	x86_64 | arm64 | riscv64) ;;
	*) die "ARCHES: unknown arch '$a'; choose from: x86_64 arm64 riscv64" ;;
	esac
	case $seen in *" $a "*) die "ARCHES: '$a' is given twice" ;; esac
	seen="$seen$a "
done
case $JOBS in '' | *[!0-9]* | 0*) die "JOBS=$JOBS is not a positive integer" ;; esac
case $ACCEL in tcg | kvm) ;; *) die "ACCEL=$ACCEL: use tcg or kvm" ;; esac
case $V in 0 | 1) ;; *) die "V=$V: use 0 or 1" ;; esac
[ -n "$WORK" ] || die "WORK is empty"
if [ -n "$KSRC" ]; then
	[ -f "$KSRC/Makefile" ] && [ -f "$KSRC/kernel/fork.c" ] ||
		die "KSRC=$KSRC is not a kernel source tree (no Makefile or kernel/fork.c)"
fi
case $WORK in /*) ;; *) WORK=$ROOT/$WORK ;; esac
export JOBS ACCEL V WORK

need_cmd python3 python3
need_cmd git git
need_cmd make make
need_cmd flock util-linux
for a in $ARCHES; do
	(
		. "$ROOT/qemu-images/$a/qemu.conf"
		need_cmd "${CROSS_COMPILE}gcc" "$CC_PKG"
		need_cmd "$QEMU_BIN" "$QEMU_PKG"
		libc=$("${CROSS_COMPILE}gcc" -print-file-name=libc.a)
		[ "$libc" != libc.a ] || die "$a: no static C library for ${CROSS_COMPILE}gcc; install it with: apt-get install $LIBC_PKG"
	)
done

start=$(date +%s)
echo "gate: arches: $ARCHES; make -j$JOBS, up to $((JOBS + 1)) arches at once; accel: $ACCEL; work: $WORK"
"$S/prepare-tree.sh" "$WORK" "$KSRC"
# Both worktrees are set once here; the arch jobs then find them in place.
"$S/checkout-variant.sh" base >/dev/null
"$S/checkout-variant.sh" patched >/dev/null

arch_job() {
	local v rc=0
	for v in base patched; do
		"$S/run-variant.sh" "$v" "$1" || rc=$?
		[ "$rc" = 0 ] || return "$rc"
	done
}

pids=()
failed=0
reap() {
	local rc=0
	wait -n "${pids[@]}" || rc=$?
	[ "$rc" = 0 ] || failed=$rc
	local live=() p
	for p in "${pids[@]}"; do
		kill -0 "$p" 2>/dev/null && live+=("$p")
	done
	pids=("${live[@]}")
}
interrupted() {
	trap - INT TERM HUP
	# Each arch job leads its own process group: TERM reaches its make
	# and its boot.sh, which kills QEMU and keeps the console log.
	for p in "${pids[@]}"; do
		kill -TERM -- "-$p" 2>/dev/null || true
	done
	wait
	echo "gate: interrupted; earlier results are kept, the next run picks up from here" >&2
	exit 130
}
trap interrupted INT TERM HUP

# Job control: every arch job gets its own process group (see interrupted).
set -m
for a in $ARCHES; do
	while [ "${#pids[@]}" -gt "$JOBS" ]; do
		reap
	done
	arch_job "$a" &
	pids+=($!)
done
while [ "${#pids[@]}" -gt 0 ]; do
	reap
done
set +m
trap - INT TERM HUP
echo "gate: builds and boots done in $(($(date +%s) - start)) s"
[ "$failed" = 0 ] || echo "gate: an arch job stopped with status $failed (see above)" >&2

rc=0
python3 "$S/summarize.py" --results "$WORK/results" --mode gate --arches "$ARCHES" || rc=$?
[ "$failed" = 0 ] || [ "$rc" = 1 ] || rc=2
exit "$rc"
