#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Pack the initramfs for ARCH (initramfs_path in lib/paths.sh) from what
# build-suite.sh left in the arch's suite_dir, with the kernel tree's
# usr/gen_init_cpio (built here with the host compiler), as an
# uncompressed cpio for QEMU's -initrd:
#   /dev/console (char 5,1), /proc, /sys, /tmp, /init,
#   /clone3/<programs> (stripped), /clone3/run-list, /clone3/settings
#   /clone3-compat/...   the same from the suite of the arch's COMPAT_ARCH,
#                        and /clone3-compat/abi holding COMPAT_ABI
#   the C library runtimes of both suites (their glibc-runtime files:
#   glibc-runtime.sh's directories, merged-/usr: /lib -> usr/lib, the
#   loaders, libc.so.6), for consumers/glibc's glibc_spawn
# The archive is kept apart from the kernel so that a suite change needs no
# kernel build.  It is written again only when an input changed, and only
# a complete archive ever has the name OUT.
#
# Environment: KERNEL, KSRC, WORK (gate_paths).  Prints the archive's path.
#
# usage: build-initramfs.sh ARCH
set -eu
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

[ $# -eq 1 ] || die "usage: build-initramfs.sh ARCH"
ARCH=$1
gate_paths
OUT=$(initramfs_path "$ARCH")
load_arch "$ARCH"
SUITEDIR=$(suite_dir "$ARCH")
COMPATDIR=
[ -z "$COMPAT_ARCH" ] || COMPATDIR=$(suite_dir "$COMPAT_ARCH")
STRIP=${CROSS_COMPILE}strip
COMPAT_STRIP=$(
	[ -z "$COMPAT_ARCH" ] && exit
	load_arch "$COMPAT_ARCH"
	echo "${CROSS_COMPILE}strip"
)
need_cmd cc gcc
for d in "$SUITEDIR" $COMPATDIR; do
	for f in init clone3/run-list clone3/settings; do
		[ -f "$d/$f" ] || die "$d/$f is missing (run build-suite.sh first)"
	done
done
[ -f "$TREE/usr/gen_init_cpio.c" ] || die "$TREE/usr/gen_init_cpio.c is missing"
mkdir -p "$(dirname "$OUT")"

# The tree's packer, built once for the host.
GEN=$WORK/initramfs/gen_init_cpio
if [ ! -x "$GEN" ] || [ "$TREE/usr/gen_init_cpio.c" -nt "$GEN" ]; then
	mkdir -p "$(dirname "$GEN")"
	cc -O2 -o "$GEN.partial.$$" "$TREE/usr/gen_init_cpio.c" ||
		die "cannot build $TREE/usr/gen_init_cpio.c"
	mv "$GEN.partial.$$" "$GEN"
fi

STAGE=$OUT.files
STAMP=$OUT.stamp
# The runtimes the suites' glibc_spawn runs with ("" where none).
RUNTIMES=
for d in "$SUITEDIR" $COMPATDIR; do
	r=$(cat "$d/glibc-runtime" 2>/dev/null || true)
	[ -z "$r" ] || RUNTIMES="$RUNTIMES $r"
done
want=$( {
	echo "$ARCH $COMPAT_ABI $RUNTIMES"
	cat "$SUITEDIR"/init "$SUITEDIR"/clone3/*
	[ -z "$COMPATDIR" ] || cat "$COMPATDIR"/clone3/*
	for r in $RUNTIMES; do cat "$r/.clone3-glibc-runtime"; done
} | cksum)
if [ -f "$OUT" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$want" ]; then
	echo "$OUT"
	exit 0
fi
rm -f "$STAMP"

# The programs of one suite under DIR in the archive, stripped with STRIP.
#   suite_files DIR SUITEDIR STRIP
suite_files() {
	local f name
	mkdir -p "$STAGE$1"
	echo "dir $1 0755 0 0"
	for f in "$2"/clone3/*; do
		name=$(basename "$f")
		case $name in
		run-list | settings)
			echo "file $1/$name $f 0644 0 0"
			;;
		*)
			"$3" -o "$STAGE$1/$name" "$f"
			echo "file $1/$name $STAGE$1/$name 0755 0 0"
			;;
		esac
	done
}

# The entries of the runtimes, each path once (both have /lib, /usr/lib).
#   runtime_entries RUNTIME...
runtime_entries() {
	local r odd
	# checked here, in this shell: a die inside the pipeline below would
	# end only its subshell
	for r in "$@"; do
		odd=$(find "$r" -mindepth 1 ! -type d ! -type f ! -type l -print -quit)
		[ -z "$odd" ] || die "$odd: not a file, directory or symlink (a broken glibc runtime: remove $r)"
	done
	for r in "$@"; do
		(cd "$r" && find . -mindepth 1 ! -name .clone3-glibc-runtime -printf '%y %P %l\n') |
			while read -r type path link; do
				case $type in
				d) echo "dir /$path 0755 0 0" ;;
				f) echo "file /$path $r/$path 0755 0 0" ;;
				l) echo "slink /$path $link 0777 0 0" ;;
				esac
			done
	done | LC_ALL=C sort -k2,2 -u
}

rm -rf "$STAGE"
mkdir -p "$STAGE"
{
	echo "dir /dev 0755 0 0"
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "dir /proc 0755 0 0"
	echo "dir /sys 0755 0 0"
	echo "dir /tmp 1777 0 0"
	"$STRIP" -o "$STAGE/init" "$SUITEDIR/init"
	echo "file /init $STAGE/init 0755 0 0"
	suite_files /clone3 "$SUITEDIR" "$STRIP"
	if [ -n "$COMPATDIR" ]; then
		suite_files /clone3-compat "$COMPATDIR" "$COMPAT_STRIP"
		echo "$COMPAT_ABI" >"$STAGE/compat-abi"
		echo "file /clone3-compat/abi $STAGE/compat-abi 0644 0 0"
	fi
	# shellcheck disable=SC2086 # directory paths of ours, no spaces
	runtime_entries $RUNTIMES
} >"$OUT.list"
"$GEN" -t 0 "$OUT.list" >"$OUT.partial" || die "gen_init_cpio failed on $OUT.list"
mv "$OUT.partial" "$OUT"
echo "$want" >"$STAMP"
echo "$OUT"
