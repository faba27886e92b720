#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bring one binary package of another Debian release into the project's
# own cache and unpack it, leaving the host's apt and dpkg state alone:
# /etc/apt is only read, nothing is installed, apt's own lists and
# caches under /var are not used.
#
# usage: debian-package.sh SUITE PACKAGE[:ARCH][=VERSION] DESTDIR
#   SUITE     a suite of the host's Debian mirror (trixie, trixie-backports,
#             sid; a *-security suite is taken from the host's security
#             mirror); only its main component is read
#   PACKAGE   a binary package; :ARCH for another architecture than the
#             host's (libc6:arm64), =VERSION for one version (by default
#             the newest the suite has when the package is first taken)
#   DESTDIR   the directory the package's files are unpacked into
#             (dpkg-deb -x); it is made whole or not at all
#
# e.g.  debian-package.sh trixie-backports linux-source-7.3 build/pkg/linux-7.3
#       debian-package.sh trixie libc6:arm64 build/pkg/libc6-arm64
#
# The cache is CLONE3_DEB_CACHE, by default
# /var/cache/clone3-clear-sighand/debs when run as root and build/debs of
# this repository otherwise:
#   apt/SUITE_ARCH/   apt's state for one suite and architecture: sources.list
#                     (one "deb [signed-by=...] MIRROR SUITE main" line) and
#                     an empty sources.list.d (the host's sources are not
#                     read; "-" for it makes apt warn about /etc/apt/-/),
#                     lists/ (the signed indexes), cache/, an empty dpkg
#                     status (so that the host's installed packages and
#                     pins play no part)
#   pool/             the .deb files, as apt-get download names them; a file
#                     gets there only whole, after apt checked it against
#                     the signed index
# DESTDIR/.clone3-deb names what was unpacked there (SUITE, PACKAGE as
# given, the .deb): a run whose DESTDIR already holds what it asks for
# does nothing, and reads nothing from the network.  apt-get update runs
# only when the suite's indexes are missing or do not know the package.
#
# The mirror is that of the host's sources (the URIs of the stanza of its
# own release in /etc/apt/sources.list.d/*.sources, or its sources.list
# line); CLONE3_DEBIAN_MIRROR names another.  Its Release file must be
# signed by a key of /usr/share/keyrings/debian-archive-keyring.gpg.
#
# Exit codes: 0 done; 2 on any error (bad usage, mirror unreachable or
# unsigned, package or version unknown, no space), with one line on
# stderr that starts with "error: " and names the suite and package.
# Nothing half-written is left behind: no partial .deb in pool/, no
# partial DESTDIR (an earlier complete DESTDIR stays as it was).
set -eu
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

[ $# -eq 3 ] && [ -n "$1" ] && [ -n "$2" ] && [ -n "$3" ] ||
	die "usage: debian-package.sh SUITE PACKAGE[:ARCH][=VERSION] DESTDIR"
suite=$1 spec=$2 dest=$3
case $suite in *[!a-z0-9.-]*) die "SUITE '$suite': not a Debian suite name (such as trixie-backports)" ;; esac
pkg=${spec%%[:=]*}
version=
case $spec in *=*) version=${spec#*=} ;; esac
arch=
case ${spec%%=*} in *:*) arch=${spec%%=*} arch=${arch#*:} ;; esac
case $pkg in '' | *[!a-z0-9.+-]*) die "$suite: '$spec' is not PACKAGE[:ARCH][=VERSION]" ;; esac
case $arch in *[!a-z0-9-]*) die "$suite: $spec: bad architecture '$arch'" ;; esac
native=$(dpkg --print-architecture)
arch=${arch:-$native}
what="$suite: $spec"

cache=$(deb_cache)
case $dest in /*) ;; *) dest=$PWD/$dest ;; esac
dest=${dest%/}
stamp="$suite $spec"

# Already there: nothing to do, nothing read from the network.
if [ "$(head -n1 "$dest/.clone3-deb" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi

mkdir -p "$cache/pool" "$cache/apt" || die "$what: cannot make the cache $cache"
# One run at a time per cache: make check prepares trees at once.
exec {lock}>"$cache/.lock"
flock "$lock"
# Another run may have made it while this one waited.
if [ "$(head -n1 "$dest/.clone3-deb" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi

tmp=
cleanup() {
	[ -z "$tmp" ] || rm -rf "$tmp"
	rm -rf "$dest.partial" "$dest.old"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
tmp=$(mktemp -d "$cache/.run.XXXXXX")

# The host's mirror for SUITE: the first URI of the host's entry for its
# own release, or its security entry for a *-security suite.
host_mirror() {
	local want codename
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || return 1
	want=$codename
	case $suite in *-security) want=$codename-security ;; esac
	{
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			awk -v want="$want" '
				function flush() {
					if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " want " ") && enabled != "no")
						print uri
					types = ""; suites = ""; uri = ""; enabled = ""
				}
				/^[ \t]*#/ { next }
				/^[ \t]*$/ { flush(); next }
				tolower($1) == "types:" { $1 = ""; types = $0 }
				tolower($1) == "suites:" { $1 = ""; suites = $0 }
				tolower($1) == "uris:" { uri = $2 }
				tolower($1) == "enabled:" { enabled = tolower($2) }
				END { flush() }' "$f"
		done
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -f "$f" ] || continue
			sed 's/\[[^]]*\]//' "$f" | awk -v want="$want" '$1 == "deb" && $3 == want { print $2 }'
		done
	} | head -n1 | grep .
}
mirror=${CLONE3_DEBIAN_MIRROR:-}
[ -n "$mirror" ] || mirror=$(host_mirror) ||
	die "$what: no Debian mirror found in /etc/apt's sources (set CLONE3_DEBIAN_MIRROR)"

aptdir=$cache/apt/${suite}_$arch
apt_opts() {
	local d=$1
	printf '%s\n' \
		-o "Dir::Etc::sourcelist=$d/sources.list" -o "Dir::Etc::sourceparts=$d/sources.list.d" \
		-o "Dir::Etc::preferences=$d/preferences" -o "Dir::Etc::preferencesparts=$d/preferences.d" \
		-o "Dir::State::Lists=$d/lists" -o "Dir::State::status=$d/status" \
		-o "Dir::Cache=$d/cache" -o "Dir::State=$d/state" \
		-o "APT::Architectures::=$native"
	[ "$arch" = "$native" ] || [ "$arch" = all ] || printf '%s\n' -o "APT::Architectures::=$arch"
}

# The first error or warning apt printed, as one line.
apt_reason() {
	{
		grep -m1 '^E:' "$1" || grep -m1 '^W: Failed to fetch' "$1" ||
			grep -m1 '^W:' "$1" || tail -n1 "$1"
	} | sed 's/^[EW]: //' | tr -s ' \t' ' ' | cut -c1-300
}

# apt-get update into apt/SUITE_ARCH; the first time it is made under
# another name and renamed, so that a failed first update leaves nothing.
updated=
update_lists() {
	local d=$aptdir fresh=
	if [ ! -d "$aptdir" ] || [ "$(cat "$aptdir/mirror" 2>/dev/null)" != "$mirror" ]; then
		fresh=1
		d=$tmp/apt
		mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/state" "$d/preferences.d" "$d/sources.list.d"
		: >"$d/status"
		: >"$d/preferences"
		echo "$mirror" >"$d/mirror"
		echo "deb [signed-by=$KEYRING] $mirror $suite main" >"$d/sources.list"
	fi
	local -a o
	mapfile -t o < <(apt_opts "$d")
	echo "  debian-package: apt-get update of $suite ($arch) from $mirror"
	if ! apt-get -q "${o[@]}" update >"$tmp/update.log" 2>&1 ||
		grep -q -E '^(E:|W: (Failed to fetch|Some index files failed))' "$tmp/update.log"; then
		die "$what: apt-get update of $suite from $mirror failed: $(apt_reason "$tmp/update.log")"
	fi
	if [ -n "$fresh" ]; then
		rm -rf "$aptdir"
		mv "$d" "$aptdir"
	fi
	updated=1
}

# The version and Architecture: field the indexes give for the package.
resolve() {
	local -a o
	local v
	mapfile -t o < <(apt_opts "$aptdir")
	[ -d "$aptdir/lists" ] || return 1
	v=$version
	if [ -z "$v" ]; then
		v=$(apt-cache "${o[@]}" policy "$pkg:$arch" 2>/dev/null | sed -n 's/^  Candidate: //p')
		[ -n "$v" ] && [ "$v" != "(none)" ] || return 1
	fi
	debarch=$(apt-cache "${o[@]}" show "$pkg:$arch=$v" 2>/dev/null | sed -n '1,/^$/s/^Architecture: //p' | head -n1)
	[ -n "$debarch" ] || return 1
	ver=$v
}

ver='' debarch=''
if ! resolve; then
	update_lists
	resolve || die "$what: $suite has no package $pkg${version:+ version $version} for $arch (at $mirror)"
fi
deb=$cache/pool/${pkg}_${ver//:/%3a}_$debarch.deb

if [ ! -f "$deb" ]; then
	need_space "$cache" 1024 "$what: the download"
	mkdir "$tmp/dl"
	# apt's downloads run as _apt where it exists: give it the directory.
	[ "$(id -u)" != 0 ] || ! id _apt >/dev/null 2>&1 || chown _apt "$tmp" "$tmp/dl"
	mapfile -t o < <(apt_opts "$aptdir")
	echo "  debian-package: downloading $pkg $ver ($debarch) from $suite"
	if ! (cd "$tmp/dl" && apt-get -q "${o[@]}" download "$pkg:$arch=$ver") >"$tmp/download.log" 2>&1; then
		if [ -z "$updated" ]; then
			# Indexes too old for the mirror's pool: once more, fresh.
			update_lists
			resolve || die "$what: $suite has no package $pkg${version:+ version $version} for $arch (at $mirror)"
			deb=$cache/pool/${pkg}_${ver//:/%3a}_$debarch.deb
			(cd "$tmp/dl" && apt-get -q "${o[@]}" download "$pkg:$arch=$ver") >"$tmp/download.log" 2>&1 ||
				die "$what: apt-get download of $pkg $ver failed: $(apt_reason "$tmp/download.log")"
		else
			die "$what: apt-get download of $pkg $ver failed: $(apt_reason "$tmp/download.log")"
		fi
	fi
	got=("$tmp"/dl/*.deb)
	[ ${#got[@]} = 1 ] && [ -f "${got[0]}" ] ||
		die "$what: apt-get download left no single .deb in $tmp/dl"
	[ "$(id -u)" != 0 ] || chown 0:0 "${got[0]}"
	chmod 644 "${got[0]}"
	mv "${got[0]}" "$deb"
fi

# Unpack beside DESTDIR and rename: DESTDIR is whole or absent.
part=$dest.partial
mkdir -p "$(dirname "$dest")"
need_space "$(dirname "$dest")" $(($(stat -c %s "$deb") * 3 / 1048576 + 64)) "$what: unpacking"
echo "  debian-package: unpacking $(basename "$deb") to $dest"
rm -rf "$part"
mkdir "$part"
dpkg-deb -x "$deb" "$part" 2>"$tmp/unpack.log" ||
	die "$what: dpkg-deb -x $(basename "$deb") failed: $(head -n1 "$tmp/unpack.log")"
printf '%s\n%s\n' "$stamp" "$(basename "$deb")" >"$part/.clone3-deb"
rm -rf "$dest.old"
[ ! -e "$dest" ] || mv "$dest" "$dest.old"
mv "$part" "$dest"
rm -rf "$dest.old"
