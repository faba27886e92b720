#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Pack the initramfs for ARCH from what build-suite.sh left in SUITEDIR,
# with the kernel tree's usr/gen_init_cpio (built here with the host
# compiler), as an uncompressed cpio for QEMU's -initrd:
#   /dev/console (char 5,1), /proc, /sys, /tmp, /init,
#   /clone3/<programs> (stripped), /clone3/run-list, /clone3/settings
# The archive is kept apart from the kernel so that a suite change needs no
# kernel build.  It is written again only when an input changed, and only
# a complete archive ever has the name OUT.
#
# Environment: WORK (default build).
#
# usage: build-initramfs.sh ARCH SUITEDIR OUT
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -eq 3 ] || die "usage: build-initramfs.sh ARCH SUITEDIR OUT"
ARCH=$1
SUITEDIR=$2
OUT=$3
ROOT=$(repo_root)
CONF=$ROOT/qemu-images/$ARCH/qemu.conf
WORK=${WORK:-build}
case $WORK in /*) ;; *) WORK=$ROOT/$WORK ;; esac
TREE=$WORK/linux

[ -f "$CONF" ] || die "unknown arch '$ARCH' (no $CONF)"
. "$CONF"
need_cmd "${CROSS_COMPILE}strip" binutils
need_cmd cc gcc
for f in init clone3/run-list clone3/settings; do
	[ -f "$SUITEDIR/$f" ] || die "$SUITEDIR/$f is missing (run build-suite.sh first)"
done
[ -f "$TREE/usr/gen_init_cpio.c" ] || die "$TREE/usr/gen_init_cpio.c is missing"
mkdir -p "$(dirname "$OUT")"

# The tree's packer, built once for the host.
GEN=$WORK/initramfs/gen_init_cpio
if [ ! -x "$GEN" ] || [ "$TREE/usr/gen_init_cpio.c" -nt "$GEN" ]; then
	mkdir -p "$(dirname "$GEN")"
	cc -O2 -o "$GEN.partial" "$TREE/usr/gen_init_cpio.c" ||
		die "cannot build $TREE/usr/gen_init_cpio.c"
	mv "$GEN.partial" "$GEN"
fi

STAGE=$OUT.files
STAMP=$OUT.stamp
want=$(cd "$SUITEDIR" && { echo "$ARCH"; cat init clone3/*; } | cksum)
if [ -f "$OUT" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$want" ]; then
	echo "$OUT"
	exit 0
fi
rm -f "$STAMP"

rm -rf "$STAGE"
mkdir -p "$STAGE"
{
	echo "dir /dev 0755 0 0"
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "dir /proc 0755 0 0"
	echo "dir /sys 0755 0 0"
	echo "dir /tmp 1777 0 0"
	"${CROSS_COMPILE}strip" -o "$STAGE/init" "$SUITEDIR/init"
	echo "file /init $STAGE/init 0755 0 0"
	echo "dir /clone3 0755 0 0"
	for f in "$SUITEDIR"/clone3/*; do
		name=$(basename "$f")
		case $name in
		run-list | settings)
			echo "file /clone3/$name $f 0644 0 0"
			;;
		*)
			"${CROSS_COMPILE}strip" -o "$STAGE/$name" "$f"
			echo "file /clone3/$name $STAGE/$name 0755 0 0"
			;;
		esac
	done
} >"$OUT.list"
"$GEN" -t 0 "$OUT.list" >"$OUT.partial" || die "gen_init_cpio failed on $OUT.list"
mv "$OUT.partial" "$OUT"
echo "$want" >"$STAMP"
echo "$OUT"
