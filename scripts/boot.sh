#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot KERNEL with INITRD under QEMU as qemu-images/ARCH/qemu.conf says and
# write the guest's serial console to LOG.  KEY=VALUE arguments go on the
# kernel command line; the kernel hands them to init as its environment.
#
#   console=<arch console> panic=-1 oops=panic quiet rdinit=/init <arch CMDLINE> KEY=VALUE...
#
# QEMU runs in its own session with -no-reboot, so the guest's reboot (or a
# panic, with panic=-1) ends it.  A guest that hangs is stopped when its
# console has been silent for BOOT_SILENCE seconds (a boot that works
# prints within a second or two of starting each program) or when
# BOOT_TIMEOUT runs out.  A host timeout, or SIGINT/SIGTERM/SIGHUP
# of this script, kills QEMU's whole process group; if this script is
# killed outright, QEMU gets SIGKILL as its parent dies.  The console goes
# to LOG.partial and is renamed to LOG at the end in every case.
#
# Environment: ACCEL=tcg|kvm (default tcg), BOOT_TIMEOUT seconds (default
# 120), BOOT_SILENCE seconds (default 15).
# Exit: 0 QEMU ended by itself, 3 host timeout (QEMU killed), 4 QEMU failed
# (non-zero status), 2 usage or environment, 130 interrupted.
#
# usage: boot.sh ARCH KERNEL INITRD LOG [KEY=VALUE...]
set -eu
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

[ $# -ge 4 ] || die "usage: boot.sh ARCH KERNEL INITRD LOG [KEY=VALUE...]"
ARCH=$1
KERNEL=$2
INITRD=$3
LOG=$4
shift 4
ACCEL=${ACCEL:-tcg}
BOOT_TIMEOUT=${BOOT_TIMEOUT:-120}
BOOT_SILENCE=${BOOT_SILENCE:-15}

load_arch "$ARCH"
[ -f "$KERNEL" ] || die "no kernel image at $KERNEL"
[ -f "$INITRD" ] || die "no initramfs at $INITRD"
case $BOOT_TIMEOUT in '' | *[!0-9]* | 0*) die "BOOT_TIMEOUT=$BOOT_TIMEOUT is not a positive integer" ;; esac
case $BOOT_SILENCE in '' | *[!0-9]* | 0*) die "BOOT_SILENCE=$BOOT_SILENCE is not a positive integer" ;; esac
case $ACCEL in
tcg) ;;
kvm) [ -w /dev/kvm ] || die "ACCEL=kvm but /dev/kvm is missing or not writable" ;;
*) die "ACCEL=$ACCEL: use tcg or kvm" ;;
esac
for kv in "$@"; do
	[[ $kv =~ ^[A-Za-z_][A-Za-z0-9_.]*=[^[:space:]\"]*$ ]] ||
		die "'$kv' is not KEY=VALUE (no spaces or quotes) for the kernel command line"
done
need_cmd "$QEMU_BIN" "$QEMU_PKG"
need_cmd setpriv util-linux
mkdir -p "$(dirname "$LOG")"

args=(-machine "$MACHINE" -cpu "$CPU" -m "$MEM" -smp "$SMP" -accel "$ACCEL"
	-nodefaults -no-user-config -display none -nic none -no-reboot
	-serial "file:$LOG.partial"
	-kernel "$KERNEL" -initrd "$INITRD"
	-append "console=$CONSOLE panic=-1 oops=panic quiet rdinit=/init $CMDLINE $*")
[ -z "$BIOS" ] || args+=(-bios "$BIOS")
# shellcheck disable=SC2206 # extra arguments are words by design
[ -z "$QEMU_ARGS" ] || args+=($QEMU_ARGS)

qemu_pid=
timer_pid=
finish() {
	[ -f "$LOG.partial" ] && mv -f "$LOG.partial" "$LOG"
	[ -s "$LOG.qemu" ] && sed 's/^/  qemu: /' "$LOG.qemu" >&2
	rm -f "$LOG.qemu"
	return 0
}
stop() {
	[ -z "$timer_pid" ] || kill "$timer_pid" 2>/dev/null || true
	[ -z "$qemu_pid" ] || kill -KILL -- "-$qemu_pid" 2>/dev/null || true
	[ -z "$qemu_pid" ] || wait "$qemu_pid" 2>/dev/null || true
	finish
	echo "boot: $ARCH: interrupted, QEMU killed; console kept in $LOG" >&2
	exit 130
}
trap stop INT TERM HUP

rm -f "$LOG.partial"
: >"$LOG.partial"
start=$(date +%s.%N)
# setsid: QEMU leads its own process group (pid = pgid), out of reach of
# the terminal's ^C, which this script forwards; pdeathsig: a SIGKILL of
# this script still takes QEMU down.
setsid setpriv --pdeathsig KILL -- "$QEMU_BIN" "${args[@]}" \
	</dev/null >"$LOG.qemu" 2>&1 &
qemu_pid=$!
# The watchdog: ends when BOOT_TIMEOUT runs out or the console has not
# grown for BOOT_SILENCE seconds, and says which in LOG.why.
watchdog() {
	local size last=-1 quiet=0 t=0
	while [ "$t" -lt "$BOOT_TIMEOUT" ]; do
		sleep 1
		t=$((t + 1))
		size=$(stat -c %s "$LOG.partial" 2>/dev/null || echo 0)
		if [ "$size" = "$last" ]; then
			quiet=$((quiet + 1))
			if [ "$quiet" -ge "$BOOT_SILENCE" ]; then
				echo "no console output for $BOOT_SILENCE s (BOOT_SILENCE=$BOOT_SILENCE)" >"$LOG.why"
				return 0
			fi
		else
			quiet=0
			last=$size
		fi
	done
	echo "BOOT_TIMEOUT=$BOOT_TIMEOUT" >"$LOG.why"
}
rm -f "$LOG.why"
watchdog &
timer_pid=$!

ended=
wait -n -p ended "$qemu_pid" "$timer_pid" && rc=0 || rc=$?
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
if [ "$ended" = "$timer_pid" ]; then
	timer_pid=
	kill -TERM -- "-$qemu_pid" 2>/dev/null || true
	sleep 1
	kill -KILL -- "-$qemu_pid" 2>/dev/null || true
	wait "$qemu_pid" 2>/dev/null || true
	finish
	printf 'boot: %s: host timeout: QEMU killed after %.1f s (%s)\n' \
		"$ARCH" "$elapsed" "$(cat "$LOG.why" 2>/dev/null)" >&2
	rm -f "$LOG.why"
	exit 3
fi
kill "$timer_pid" 2>/dev/null || true
wait "$timer_pid" 2>/dev/null || true
timer_pid=
rm -f "$LOG.why"
finish
if [ "$rc" != 0 ]; then
	echo "boot: $ARCH: QEMU failed with status $rc after ${elapsed}s" >&2
	exit 4
fi
printf 'boot: %s: QEMU ended after %.2f s\n' "$ARCH" "$elapsed" >&2
