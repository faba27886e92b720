#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the suite and the gate's init statically for ARCH into its
# suite_dir (lib/paths.sh), OUTDIR below:
#   OUTDIR/init              the static PID 1 (qemu-images/init)
#   OUTDIR/clone3/<program>  every TEST_GEN_PROGS and TEST_GEN_PROGS_EXTENDED
#   OUTDIR/clone3/run-list   TEST_GEN_PROGS in order; a program that does
#                            not build is "<name> SKIP <reason>"
#   OUTDIR/clone3/settings   the suite's settings
#   OUTDIR/clone3/glibc_spawn  consumers/glibc, linked dynamically against
#                            Debian 12's C library, last in the run-list;
#                            glibc_spawn_target, its static build, is the
#                            program it spawns (no loader: faster)
#   OUTDIR/glibc-runtime     the path of the C library it runs with in the
#                            guest: GLIBC_SUITE's glibc for DEB_ARCH
#                            (glibc-runtime.sh), which build-initramfs.sh
#                            puts into the archive
# The suite is staged with stage-selftests.sh and built by the tree's
# lib.mk, one program at a time, against the uapi headers that
# `make headers_install` gives from the kernel tree for that arch's
# SRCARCH (headers_dir, shared by the arches of one SRCARCH: x86_64 and
# i386 have the same uapi headers; a new SRCARCH starts from another's
# install, see below).
# Nothing is done when the sources and headers are unchanged.  One build
# per arch at a time: an arch's suite is also the compat suite of another.
#
# Environment: KERNEL, KSRC, WORK (gate_paths), V=1 shows the compiler
# output.
#
# usage: build-suite.sh ARCH
set -eu
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

[ $# -eq 1 ] || die "usage: build-suite.sh ARCH"
ARCH=$1
gate_paths
SUITE=$ROOT/tools-testing-selftests-clone3
CONSUMERS=$ROOT/consumers/glibc
INIT=$ROOT/qemu-images/init
V=${V:-0}

load_arch "$ARCH"
need_cmd "${CROSS_COMPILE}gcc" "$CC_PKG"
need_cmd make make
[ -f "$INIT/Makefile" ] || die "$INIT/Makefile is missing"
git -C "$TREE" rev-parse -q --verify upstream >/dev/null 2>&1 ||
	die "$TREE is not a prepared tree (run: make tree)"
OUT=$(suite_dir "$ARCH")
mkdir -p "$OUT"
LOG=$OUT/build.log
STAMP=$OUT/.clone3-suite-stamp
exec 7>"$OUT.lock"
flock 7

# What the output depends on: our sources, the tree's selftests (patched
# branch) and uapi headers (checked-out commit), the compiler.
# The tree's cap test links libcap statically.  Debian 12 has libcap.a
# for the host's arch only (libcap-dev); for another arch the same
# release's libcap-dev:DEB_ARCH (or DEB_SUITE's, for an arch Debian 12
# does not have) is unpacked into the package cache
# (debian-package.sh: nothing is installed) and its headers and archive
# are handed to the build.  Where that cannot be had, the test is
# reported as a skip with the reason, as before.
CAP_FLAGS=
if [ "$("${CROSS_COMPILE}gcc" -print-file-name=libcap.a)" = libcap.a ]; then
	# The arch's Debian release (DEB_SUITE), by default the host's.
	suite=${DEB_SUITE:-$(. /etc/os-release && echo "${VERSION_CODENAME:-}")}
	capdir=$(deb_cache)/unpacked/$suite/libcap-dev-$DEB_ARCH
	if [ -n "$suite" ] && out=$("$ROOT/scripts/debian-package.sh" "$suite" \
		"libcap-dev:$DEB_ARCH" "$capdir" 2>&1); then
		lib=$(find "$capdir/usr/lib" -name libcap.a | head -1)
		[ -z "$lib" ] || CAP_FLAGS="-I$capdir/usr/include -L${lib%/*}"
	else
		echo "  suite: $ARCH: no libcap.a: ${out:-no VERSION_CODENAME in /etc/os-release}" >&2
	fi
fi

# glibc_spawn's C library in the guest: GLIBC_SUITE's, unpacked into the
# package cache (nothing installed).  Where it cannot be had the program
# is a skip with the reason.
RUNTIME=$(glibc_runtime_dir "$DEB_ARCH" "$GLIBC_SUITE")
if ! out=$("$ROOT/scripts/glibc-runtime.sh" "$DEB_ARCH" "$GLIBC_SUITE" "$RUNTIME" 2>&1); then
	echo "  suite: $ARCH: no $GLIBC_SUITE glibc: ${out##*error: }" >&2
	RUNTIME=
fi

want=$( {
	echo "$ARCH $CROSS_COMPILE $CAP_FLAGS $RUNTIME"
	"${CROSS_COMPILE}gcc" --version | head -1
	# Static libraries a program may need: installing one changes the build.
	"${CROSS_COMPILE}gcc" -print-file-name=libcap.a
	git -C "$TREE" rev-parse patched:tools/testing/selftests "HEAD:include/uapi" \
		"HEAD:arch/$SRCARCH/include/uapi"
	cat "$SUITE"/* "$INIT"/* "$CONSUMERS"/*.c
} | cksum)
if [ "$(cat "$STAMP" 2>/dev/null)" = "$want" ] && [ -f "$OUT/clone3/run-list" ]; then
	exit 0
fi
rm -f "$STAMP"
: >"$LOG"
# A build killed half-way may have left a truncated program newer than
# its source; start the programs afresh whenever anything changed.
rm -rf "$OUT/clone3"

run() {
	if [ "$V" = 1 ]; then
		"$@" 2>&1 | tee -a "$LOG" >&2
		return "${PIPESTATUS[0]}"
	fi
	"$@" >>"$LOG" 2>&1
}

# The uapi headers, as the kselftest build would use them, installed
# again only when the checked-out uapi sources change: locked alone for
# the install, then shared until the programs are built (another arch may
# copy them meanwhile, no one may install).  flock's change from alone
# to shared is not atomic: an install waiting at that moment would go
# first; in one run every arch of a SRCARCH wants the same headers, so
# such an install finds the stamp right and installs nothing.
HDR=$(headers_dir "$SRCARCH")
mkdir -p "$HDR"
exec 6>"$HDR.lock"
flock 6
hwant=$(git -C "$TREE" rev-parse HEAD:include/uapi "HEAD:arch/$SRCARCH/include/uapi" \
	HEAD:scripts/headers_install.sh | cksum)
if [ "$(cat "$HDR/.clone3-stamp" 2>/dev/null)" != "$hwant" ]; then
	rm -rf "${HDR:?}/usr" "$HDR/.clone3-stamp"
	# The headers of include/uapi are the same for every arch, and each
	# costs some eight process starts here (33 s of CPU for an install):
	# a build directory that has none yet starts as a copy of another
	# arch's finished one, not being installed, and make installs only what
	# differs (Makefile.headersinst replaces the asm headers, whose source
	# changed, and removes those this arch does not export): some 4 s.
	if [ ! -d "$HDR/build" ]; then
		for other in "${HDR%/*}"/*/build; do
			other=${other%/build}
			[ "$other" != "$HDR" ] && [ -f "$other/.clone3-stamp" ] || continue
			rm -rf "$HDR/build.seed"
			# shellcheck disable=SC2094 # the lock file is only locked
			if (flock -s -n 5 && cp -a "$other/build" "$HDR/build.seed") 5>>"$other.lock"; then
				mv "$HDR/build.seed" "$HDR/build"
				echo "headers: $HDR/build starts as a copy of $other/build" >>"$LOG"
				break
			fi
		done
		rm -rf "$HDR/build.seed"
	fi
	run make -s -C "$TREE" O="$HDR/build" ARCH="$KARCH" \
		CROSS_COMPILE="$CROSS_COMPILE" INSTALL_HDR_PATH="$HDR/usr" headers_install ||
		die "$ARCH: make headers_install failed (see $LOG)"
	echo "$hwant" >"$HDR/.clone3-stamp"
fi
flock -s 6

"$ROOT/scripts/stage-selftests.sh" "$TREE" "$OUT/stage"
DIR=$OUT/stage/tools/testing/selftests/clone3
# lib.mk prefixes the programs with $(OUTPUT)/; list them bare.
progs() {
	make -s -C "$DIR" OUTPUT=/ -f Makefile -f - clone3-print-progs <<'MK'
clone3-print-progs:
	@echo $(notdir $(TEST_GEN_PROGS)) / $(notdir $(TEST_GEN_PROGS_EXTENDED))
MK
}
list=$(progs) || die "cannot read the program list from $DIR/Makefile"
tests=${list%%/*}
extended=${list#*/}

# The most telling line of a failed build, the root cause first.
first_cause() {
	local pat line
	for pat in 'No rule to make target' 'fatal error' 'cannot find' \
		'undefined reference' 'error:'; do
		line=$(echo "$1" | grep -m1 -e "$pat") || continue
		echo "$line" | sed -e "s/^.*\\($pat\\)/\\1/" |
			tr -s ' ' | cut -c1-160
		return 0
	done
}

mkdir -p "$OUT/clone3"
runlist=$OUT/clone3/run-list.partial
: >"$runlist"
for p in $tests $extended; do
	out=$(CFLAGS="-static -O2 $CAP_FLAGS" LDFLAGS="-static $CAP_FLAGS" make -C "$DIR" \
		OUTPUT="$OUT/clone3" CROSS_COMPILE="$CROSS_COMPILE" \
		KHDR_INCLUDES="-isystem $HDR/usr/include" "$OUT/clone3/$p" 2>&1) &&
		ok=1 || ok=0
	echo "$out" >>"$LOG"
	[ "$V" != 1 ] || echo "$out" >&2
	case " $tests " in *" $p "*) ;; *) continue ;; esac
	if [ $ok = 1 ]; then
		echo "$p" >>"$runlist"
		continue
	fi
	# A program that no longer builds must not run from an old binary.
	rm -f "$OUT/clone3/$p"
	reason=$(first_cause "$out")
	echo "$p SKIP ${reason:-build failed}" >>"$runlist"
	echo "  suite: $ARCH: $p not built: ${reason:-build failed}" >&2
done
# glibc's own posix_spawn(), run by the guest's newer glibc: linked
# against Debian 12's (the cross C library, LIBC_PKG), the loader the
# runtime has at the path it names.
if [ -z "$RUNTIME" ]; then
	echo "glibc_spawn SKIP no $GLIBC_SUITE glibc for $DEB_ARCH" >>"$runlist"
elif out=$("${CROSS_COMPILE}gcc" -Wall -Wextra -O2 -o "$OUT/clone3/glibc_spawn" \
	"$CONSUMERS/glibc_spawn.c" 2>&1 &&
	"${CROSS_COMPILE}gcc" -Wall -Wextra -O2 -static -o "$OUT/clone3/glibc_spawn_target" \
		"$CONSUMERS/glibc_spawn.c" 2>&1); then
	echo "$out" >>"$LOG"
	echo glibc_spawn >>"$runlist"
else
	echo "$out" >>"$LOG"
	reason=$(first_cause "$out")
	echo "glibc_spawn SKIP ${reason:-build failed}" >>"$runlist"
	echo "  suite: $ARCH: glibc_spawn not built: ${reason:-build failed}" >&2
fi
echo "$RUNTIME" >"$OUT/glibc-runtime"
cp "$SUITE/settings" "$OUT/clone3/settings"
mv "$runlist" "$OUT/clone3/run-list"

run make -C "$INIT" CC="${CROSS_COMPILE}gcc" OUT="$OUT" ||
	die "$ARCH: the init does not build (see $LOG)"
echo "$want" >"$STAMP"
