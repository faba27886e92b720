#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Make DEST the C library runtime of one Debian release and architecture,
# as a dynamically linked test program needs it and as it sits on a
# merged-/usr Debian system, so that it can be merged into a guest's
# initramfs root:
#   DEST/usr/lib/<triplet>/libc.so.6, the loader, and whatever libc.so.6
#                       itself needs (readelf -d: only the loader today)
#   DEST/usr/<libdir>/<loader>   the path the programs' PT_INTERP names
#                       (libc.so.6's own PT_INTERP), a relative symlink
#                       where the package has one
#   DEST/lib, DEST/lib64 (where used)   -> usr/lib, usr/lib64
#   DEST/.clone3-glibc-runtime   what was made (not part of the runtime)
# e.g. amd64: /lib64/ld-linux-x86-64.so.2, arm64: /lib/ld-linux-aarch64.so.1,
# riscv64: /lib/ld-linux-riscv64-lp64d.so.1, s390x: /lib/ld64.so.1,
# i386: /lib/ld-linux.so.2, armhf: /lib/ld-linux-armhf.so.3.
#
# The package is libc6:DEB_ARCH of SUITE, taken into the project's package
# cache by debian-package.sh (nothing installed; unpacked in
# <cache>/unpacked/SUITE/libc6-DEB_ARCH).  DEST is made whole or not at all;
# a DEST already made from the same package by this script is left as it
# is, and nothing is read from the network then.  Prints DEST's size.
#
# usage: glibc-runtime.sh DEB_ARCH SUITE DEST
#   DEB_ARCH  a Debian architecture: amd64 arm64 riscv64 s390x i386 armhf ...
#   SUITE     a Debian suite ("" = the host's release, bookworm: glibc 2.36;
#             trixie: glibc 2.41)
#   DEST      the directory to make
#
# Exit codes: 0 done; 2 on any error, with one line on stderr.
set -eu
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

usage="usage: glibc-runtime.sh DEB_ARCH SUITE DEST   (SUITE \"\": the host's release)"
if [ $# -ne 3 ] || [ -z "$1" ] || [ -z "$3" ]; then
	die "$usage"
fi
arch=$1 suite=$2 dest=$3
case $arch in *[!a-z0-9]*) die "DEB_ARCH '$arch': not a Debian architecture (such as amd64, arm64)" ;; esac
case $suite in *[!a-z0-9.-]*) die "SUITE '$suite': not a Debian suite name (such as trixie)" ;; esac
if [ -z "$suite" ]; then
	suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$suite" ] || die "$arch: no VERSION_CODENAME in /etc/os-release: name the SUITE"
fi
# Debian 12 has no riscv64 (a release architecture since Debian 13).
[ "$suite:$arch" != bookworm:riscv64 ] ||
	die "riscv64: Debian 12 (bookworm) has no riscv64 packages; take its C library from trixie (SUITE=trixie)"
need_cmd readelf binutils
need_cmd flock util-linux

ROOT=$(repo_root)
case $dest in /*) ;; *) dest=$PWD/$dest ;; esac
dest=${dest%/}
what="$suite libc6:$arch"
pkgdir=$(deb_cache)/unpacked/$suite/libc6-$arch
STAMP=.clone3-glibc-runtime

# DEST's size: the bytes of its files (what an initramfs takes), but the stamp.
print_size() {
	local bytes files
	bytes=$(find "$dest" -type f ! -name "$STAMP" -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
	files=$(find "$dest" -type f ! -name "$STAMP" | wc -l)
	echo "glibc-runtime: $dest: $what ($(sed -n 2p "$dest/$STAMP")), loader $(sed -n 4p "$dest/$STAMP"): $files files, $(((bytes + 1023) / 1024)) KiB ($bytes bytes)"
}

# Made from the unpacked package by this very script: nothing to do.
want_stamp() {
	printf '%s\n%s\n%s\n' "$what" "$(sed -n 2p "$pkgdir/.clone3-deb")" \
		"$(cksum <"${BASH_SOURCE[0]}" | cut -d' ' -f1)"
}
if [ -f "$pkgdir/.clone3-deb" ] && [ -f "$dest/$STAMP" ] &&
	[ "$(head -n3 "$dest/$STAMP")" = "$(want_stamp)" ]; then
	print_size
	exit 0
fi

"$ROOT/scripts/debian-package.sh" "$suite" "libc6:$arch" "$pkgdir" >&2 || exit 2
[ -f "$pkgdir/.clone3-deb" ] || die "$what: $pkgdir has no .clone3-deb after debian-package.sh"

# One run per parent directory at a time; the other finds DEST made.
parent=$(dirname "$dest")
mkdir -p "$parent" || die "$what: cannot make $parent"
exec {lock}<"$parent"
flock "$lock"
if [ -f "$dest/$STAMP" ] && [ "$(head -n3 "$dest/$STAMP")" = "$(want_stamp)" ]; then
	print_size
	exit 0
fi

part=
cleanup() {
	[ -z "$part" ] || rm -rf "$part"
	rm -rf "$dest.old"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
part=$(mktemp -d "$dest.partial.XXXXXX") || die "$what: cannot make a directory beside $dest"
chmod 755 "$part"

# Where a path of the installed system is in the package: merged-/usr
# packages (trixie) have it under usr/, older ones (bookworm) under /lib.
canon() {
	case $1 in
	/lib/* | /lib[0-9x]*/*) echo "/usr$1" ;;
	*) echo "$1" ;;
	esac
}
in_pkg() {
	local p
	p=$(canon "$1")
	if [ -e "$pkgdir$p" ] || [ -L "$pkgdir$p" ]; then
		echo "$pkgdir$p"
	elif [ -e "$pkgdir${p#/usr}" ] || [ -L "$pkgdir${p#/usr}" ]; then
		echo "$pkgdir${p#/usr}"
	else
		return 1
	fi
}

# Keep PATH (of the installed system) in DEST at its merged-/usr place: a
# file as it is, a symlink as a relative one to its target, kept too.
keep() {
	local p src t hops=0
	p=$(canon "$1")
	while :; do
		[ ! -e "$part$p" ] && [ ! -L "$part$p" ] || return 0
		src=$(in_pkg "$p") || die "$what: the package has no $p"
		mkdir -p "$part$(dirname "$p")"
		if [ -L "$src" ]; then
			t=$(readlink "$src")
			case $t in /*) ;; *) t=$(dirname "$p")/$t ;; esac
			t=$(canon "$(realpath -m -s "$t")")
			ln -s "$(realpath -m -s --relative-to="$(dirname "$p")" "$t")" "$part$p"
			p=$t
			hops=$((hops + 1))
			[ $hops -lt 10 ] || die "$what: too many symlinks from $1"
		elif [ -f "$src" ]; then
			cp "$src" "$part$p"
			chmod 755 "$part$p"
			return 0
		else
			die "$what: $p in the package is not a file"
		fi
	done
}

mapfile -t libcs < <(cd "$pkgdir" && ls -d usr/lib/*/libc.so.6 lib/*/libc.so.6 2>/dev/null)
[ ${#libcs[@]} = 1 ] || die "$what: want one libc.so.6 in the package, found ${#libcs[@]}: ${libcs[*]}"
libc=/${libcs[0]}
triplet=$(basename "$(dirname "$libc")")
# The loader the programs name is the one libc.so.6 names.
interp=$(readelf -lW "$pkgdir$libc" | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
[ -n "$interp" ] || die "$what: $libc names no program interpreter (readelf -l)"
loader_soname=$(readelf -dW "$(in_pkg "$interp")" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')

keep "$interp"
keep "/usr/lib/$triplet/libc.so.6"
# What libc.so.6 needs, and what that needs, from the package's libdir.
queue=("/usr/lib/$triplet/libc.so.6")
while [ ${#queue[@]} -gt 0 ]; do
	obj=${queue[0]}
	queue=("${queue[@]:1}")
	while read -r need; do
		case $need in "$loader_soname" | "${interp##*/}") continue ;; esac
		[ ! -e "$part/usr/lib/$triplet/$need" ] || continue
		in_pkg "/usr/lib/$triplet/$need" >/dev/null ||
			die "$what: $obj needs $need, which the package does not have"
		keep "/usr/lib/$triplet/$need"
		queue+=("/usr/lib/$triplet/$need")
	done < <(readelf -dW "$part$obj" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p')
done

# Merged /usr: the top-level lib directories are symlinks into usr.
for d in "$part"/usr/lib*; do
	ln -s "usr/${d##*/}" "$part/${d##*/}"
done
[ -f "$part$interp" ] || die "$what: $interp does not lead to the loader in $dest"
{
	want_stamp
	echo "$interp"
} >"$part/$STAMP"

rm -rf "$dest.old"
[ ! -e "$dest" ] || mv "$dest" "$dest.old"
mv "$part" "$dest"
part=
rm -rf "$dest.old"
print_size
