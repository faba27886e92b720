#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One (variant, arch) of the gate: check the variant out and build its
# kernel where variant-build.sh says, build the suite (and, when the
# guest runs the 32-bit suite too, that arch's suite) and the initramfs
# (shared per arch, redone only when their sources change), boot with
# CLONE3_REQUIRE_CLEAR_SIGHAND=1 and write the results of every row of
# the arch (ARCH, and ARCH-ABI in compat) into results_dir VARIANT with
# ktap-report.py.  A kernel that does not build gives an "error" result
# whose reason quotes the compiler's first error, so an old result is
# never left standing for a run that failed.
#
# Environment: KERNEL, KSRC, WORK (gate_paths), JOBS, V, ACCEL,
# REBOOT (1: boot even when an identical boot was kept), BOOT_TIMEOUT,
# CLONE3_FUZZ_SECONDS (the fuzzer's budget in the guest, default 0.5, split
# between its documents: guest_args), and BOOT_ARGS: more KEY=VALUE words
# for init (e.g. CLONE3_GATE_FAULT=hang).
# Exit: 0 results written (whatever they say), 2 usage or environment,
# 130 interrupted.
#
# usage: run-variant.sh base|patched|mutant-NAME ARCH [COMMIT]
set -eu
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

[ $# -ge 2 ] && [ $# -le 3 ] ||
	die "usage: run-variant.sh base|patched|mutant-NAME ARCH [COMMIT]"
VARIANT=$1
ARCH=$2
COMMIT=${3:-}
gate_paths
S=$ROOT/scripts
BOOT_ARGS=${BOOT_ARGS:-}

load_arch "$ARCH"
case $VARIANT in
base | patched | mutant-*) ;;
*) die "variant '$VARIANT': use base, patched or mutant-NAME" ;;
esac
[[ $VARIANT =~ ^[A-Za-z0-9_.+-]+$ ]] || die "variant '$VARIANT': use letters, digits, _.+-"
[ -z "$COMMIT" ] || [ "${VARIANT#mutant-}" != "$VARIANT" ] ||
	die "COMMIT is only for mutant-* variants ($VARIANT has its own branch)"
need_python3
# The guest's command line, now: a bad budget stops the run before a build.
words=$(guest_args "$ARCH")

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

# One run per arch at a time: the build dir and initramfs are shared.
scratch=$(boot_log "$VARIANT" "$ARCH")
mkdir -p "$WORK/kbuild" "$(dirname "$scratch")"
exec 8>"$WORK/kbuild/$ARCH.lock"
flock 8

where=$(mktemp)
"$S/variant-build.sh" "$VARIANT" ${COMMIT:+"$COMMIT"} >"$where"
{ read -r src; read -r build; read -r why; } <"$where"
rm -f "$where"
[ "$VARIANT" != base ] || say "base kernel: $why"
head=$(git -C "$src" rev-parse --short HEAD)

report() {
	"$PYTHON3" "$S/ktap-report.py" --log "$scratch" --variant "$VARIANT" \
		--arch "$ARCH" --tree "$TREE_NAME" --out-dir "$(results_dir "$VARIANT")" \
		${COMPAT_ABI:+--compat "$COMPAT_ABI"} "$@"
}

build_kernel() {
	# For the ticker: the build has its slot.
	: >"$scratch.building"
	if [ "${V:-0}" = 1 ]; then
		"$S/build-kernel.sh" "$ARCH" "$src" "$(kbuild_dir "$ARCH" "$build")" \
			2> >(tee "$scratch.err" >&2)
	else
		"$S/build-kernel.sh" "$ARCH" "$src" "$(kbuild_dir "$ARCH" "$build")" \
			2>"$scratch.err"
	fi
}
# On a terminal, a kernel build says every 20 s that it is alive and how
# far it has got (objects so far, of the count of its last full build),
# or that it still waits for a slot; in a log (CI) the step's one
# closing line is enough.
ticker() {
	local dir=$1 n of s=0
	of=$(cat "$dir/.clone3-objects" 2>/dev/null || true)
	while sleep 20; do
		s=$((s + 20))
		if [ ! -e "$scratch.building" ]; then
			say "kernel build waiting for a free slot (another arch's steps hold them) after $s s"
			continue
		fi
		n=$(find "$dir" -name '*.o' 2>/dev/null | wc -l)
		say "building the kernel: $n objects${of:+ of about $of} after $s s"
	done
}
rm -f "$scratch.building"
tick=
if [ -t 1 ] && [ "${V:-0}" != 1 ]; then
	ticker "$(kbuild_dir "$ARCH" "$build")" &
	tick=$!
fi
stop_ticker() {
	[ -z "$tick" ] || kill "$tick" 2>/dev/null || true
	tick=
	rm -f "$scratch.building"
}
trap 'stop_ticker; exit 130' INT TERM HUP
# Each step that works takes a slot of the gate's jobserver (in_slot,
# lib/jobserver.sh): the kernel's make takes more while it can use them.
if ! image=$(in_slot build_kernel); then
	stop_ticker
	[ "${V:-0}" = 1 ] || cat "$scratch.err" >&2
	{ echo "gate: the $VARIANT kernel ($head) for $ARCH did not build:"; cat "$scratch.err"; } >"$scratch"
	rm -f "$scratch.err"
	lap
	say "kernel build FAILED ($took)"
	say "report: $(report)"
	exit 0
fi
stop_ticker
# A warning of a build that succeeded (trees/kbuild-words).
[ "${V:-0}" = 1 ] || [ ! -s "$scratch.err" ] || sed "s/^/$VARIANT $ARCH: /" "$scratch.err" >&2
rm -f "$scratch.err"
lap
case $image in
"$(kbuild_dir "$ARCH" "$build")/$IMAGE") say "kernel $head built ($took)" ;;
*) say "kernel $head: the image of the same inputs, kept from an earlier build ($took)" ;;
esac

# Prints the initramfs's path.  (In a function run by in_slot, set -e
# does not hold: each step returns its failure itself.)
suite_and_initramfs() {
	"$S/build-suite.sh" "$ARCH" >&2 || return
	[ -z "$COMPAT_ARCH" ] || "$S/build-suite.sh" "$COMPAT_ARCH" >&2 || return
	"$S/build-initramfs.sh" "$ARCH"
}
initrd=$(in_slot suite_and_initramfs)
lap
say "suite and initramfs ready ($took)"

# A boot whose inputs did not change is not run again: the console log of
# a finished boot is kept under the key of all that goes into it (the
# kernel image, the initramfs, the command line, the arch's QEMU settings,
# boot.sh and QEMU's version), and read again while the key holds; a
# change to patched alone then boots base no more.  Only a boot that
# reached a verdict on every row (pass or fail, no error or timeout) is
# kept, the last 24 per arch.  REBOOT=1 boots every guest anyway.
KEPT=$(kept_boots_dir "$ARCH")
boot_key=$( {
	sha256sum <"$image"
	sha256sum <"$initrd"
	echo "$ARCH $ACCEL $words $BOOT_ARGS"
	cat "$ROOT/qemu-images/$ARCH/qemu.conf" "$S/boot.sh"
	"$QEMU_BIN" --version | head -1
} | sha256sum | cut -c1-32)
if [ "${REBOOT:-0}" != 1 ] && [ -f "$KEPT/$boot_key.log" ]; then
	cp "$KEPT/$boot_key.log" "$scratch"
	touch "$KEPT/$boot_key.log"
	say "boot: the same kernel, initramfs and command line as a finished boot: its console is read again (REBOOT=1 boots)"
	say "report: $(report)"
	exit 0
fi

rc=0
# shellcheck disable=SC2086 # the guest's words and BOOT_ARGS are words by design
in_slot "$S/boot.sh" "$ARCH" "$image" "$initrd" "$scratch" $words $BOOT_ARGS || rc=$?
opt=()
case $rc in
0) ;;
3) opt=(--timed-out) ;;
4) ;;
*) exit "$rc" ;;
esac
verdicts=$(report "${opt[@]}")
say "report: $verdicts"
# Each line: "VARIANT ROW: STATUS: REASON".
if [ "$rc" = 0 ] && ! echo "$verdicts" | cut -d: -f2 | grep -qvx -e ' pass' -e ' fail'; then
	mkdir -p "$KEPT"
	cp "$scratch" "$KEPT/$boot_key.log.partial"
	mv "$KEPT/$boot_key.log.partial" "$KEPT/$boot_key.log"
	# shellcheck disable=SC2012 # our own file names: no odd characters
	ls -t "$KEPT"/*.log | tail -n +25 | xargs -r rm -f
fi
