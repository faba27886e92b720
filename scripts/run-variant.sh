#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One (variant, arch) of the gate: check the variant out, build its kernel,
# build the suite and the initramfs (shared per arch, redone only when
# their sources change), boot with CLONE3_REQUIRE_CLEAR_SIGHAND=1 and write
# WORK/results/VARIANT/ARCH.{log,ktap,xml,json} with ktap-report.py.
#   base       when the series changes only kernel/fork.c's code (see
#              base_build_commit in lib.sh): WORK/linux at patched with
#              base's fork.c, build dir WORK/kbuild/ARCH/patched;
#              otherwise source WORK/linux-base, build dir WORK/kbuild/ARCH/base
#   patched    source WORK/linux,      build dir WORK/kbuild/ARCH/patched
#   mutant-*   source WORK/linux as checked out (or at COMMIT when given),
#              build dir WORK/kbuild/ARCH/patched
# A kernel that does not build gives an "error" result whose log says why,
# so an old result is never left standing for a run that failed.
#
# Environment: WORK (default build), JOBS, V, ACCEL, BOOT_TIMEOUT,
# CLONE3_FUZZ_SECONDS (the fuzzer's budget in the guest, default 1), and
# BOOT_ARGS: more KEY=VALUE words for init (e.g. CLONE3_GATE_FAULT=hang).
# Exit: 0 results written (whatever they say), 2 usage or environment,
# 130 interrupted.
#
# usage: run-variant.sh base|patched|mutant-NAME ARCH [COMMIT]
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] && [ $# -le 3 ] ||
	die "usage: run-variant.sh base|patched|mutant-NAME ARCH [COMMIT]"
VARIANT=$1
ARCH=$2
COMMIT=${3:-}
ROOT=$(repo_root)
WORK=${WORK:-build}
case $WORK in /*) ;; *) WORK=$ROOT/$WORK ;; esac
S=$ROOT/scripts
BOOT_ARGS=${BOOT_ARGS:-}

[ -f "$ROOT/qemu-images/$ARCH/qemu.conf" ] || die "unknown arch '$ARCH' (no qemu-images/$ARCH/qemu.conf)"
case $VARIANT in
base | patched) build=$VARIANT ;;
mutant-*) build=patched ;;
*) die "variant '$VARIANT': use base, patched or mutant-NAME" ;;
esac
[[ $VARIANT =~ ^[A-Za-z0-9_.+-]+$ ]] || die "variant '$VARIANT': use letters, digits, _.+-"
[ -z "$COMMIT" ] || [ "${VARIANT#mutant-}" != "$VARIANT" ] ||
	die "COMMIT is only for mutant-* variants ($VARIANT has its own branch)"
need_cmd python3 python3

say() {
	echo "$VARIANT $ARCH: $*"
}
t0=$(date +%s)
# Seconds since the previous step, in $took (no subshell: t0 must move).
lap() {
	local now
	now=$(date +%s)
	took="$((now - t0)) s"
	t0=$now
}

# Interrupted: leave at once, before anything is written to the results.
trap 'exit 130' INT TERM HUP

# One run per arch at a time: the build dir, suite and initramfs are shared.
mkdir -p "$WORK/kbuild" "$WORK/boot/$VARIANT"
exec 8>"$WORK/kbuild/$ARCH.lock"
flock 8

hybrid=
if [ "$VARIANT" = base ] && [ "${GATE_SEPARATE_BASE:-0}" != 1 ]; then
	hybrid=$(base_build_commit "$WORK/linux") ||
		die "could not make the base build commit in $WORK/linux"
	[ -n "$hybrid" ] ||
		say "base kernel: the series changes more than kernel/fork.c uses; separate base tree and build dir"
fi
if [ -n "$hybrid" ]; then
	# See base_build_commit in lib.sh: same kernel, no full rebuild.
	build=patched
	src=$("$S/checkout-variant.sh" "$hybrid")
	say "base kernel: patched tree with base's kernel/fork.c, in the patched build dir"
elif [ "$VARIANT" = base ] || [ "$VARIANT" = patched ]; then
	src=$("$S/checkout-variant.sh" "$VARIANT")
elif [ -n "$COMMIT" ]; then
	src=$("$S/checkout-variant.sh" "$COMMIT")
else
	src=$WORK/linux
fi
head=$(git -C "$src" rev-parse --short HEAD)

scratch=$WORK/boot/$VARIANT/$ARCH.log
report() {
	python3 "$S/ktap-report.py" --log "$scratch" --variant "$VARIANT" \
		--arch "$ARCH" --out-dir "$WORK/results/$VARIANT" "$@"
}

build_kernel() {
	if [ "${V:-0}" = 1 ]; then
		"$S/build-kernel.sh" "$ARCH" "$src" "$WORK/kbuild/$ARCH/$build" \
			2> >(tee "$scratch.err" >&2)
	else
		"$S/build-kernel.sh" "$ARCH" "$src" "$WORK/kbuild/$ARCH/$build" \
			2>"$scratch.err"
	fi
}
if ! image=$(build_kernel); then
	[ "${V:-0}" = 1 ] || cat "$scratch.err" >&2
	{ echo "gate: the $VARIANT kernel ($head) for $ARCH did not build:"; cat "$scratch.err"; } >"$scratch"
	rm -f "$scratch.err"
	lap
	say "kernel build FAILED ($took)"
	say "report: $(report)"
	exit 0
fi
rm -f "$scratch.err"
lap
say "kernel $head built ($took)"

suite=$("$S/build-suite.sh" "$ARCH" "$WORK/suite/$ARCH")
initrd=$("$S/build-initramfs.sh" "$ARCH" "$suite" "$WORK/initramfs/$ARCH.cpio")
lap
say "suite and initramfs ready ($(grep -c . "$suite/clone3/run-list") programs, $(grep -c ' SKIP ' "$suite/clone3/run-list" || true) not built) ($took)"

# shellcheck disable=SC2086 # BOOT_ARGS are words by design
rc=0
"$S/boot.sh" "$ARCH" "$image" "$initrd" "$scratch" \
	CLONE3_REQUIRE_CLEAR_SIGHAND=1 CLONE3_FUZZ_SECONDS=${CLONE3_FUZZ_SECONDS:-1} $BOOT_ARGS 2>"$scratch.err" || rc=$?
msg=$(tail -n 1 "$scratch.err")
head -n -1 "$scratch.err" >&2
rm -f "$scratch.err"
case $rc in
0) say "booted (${msg#*: *: })" ;;
3) say "booted, host timeout: ${msg#*: *: }" ;;
4) say "QEMU failed: ${msg#*: *: }" ;;
*) echo "$msg" >&2; exit "$rc" ;;
esac
opt=()
[ "$rc" != 3 ] || opt=(--timed-out)
say "report: $(report "${opt[@]}")"
