#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the gate's minimal kernel for ARCH from the source tree SRC into
# the out-of-tree build directory BUILDDIR, configured by one run of the
# tree's merge_config.sh -n (allnoconfig fills the rest) over:
#   SRC/kernel/configs/tiny-base.config, SRC/kernel/configs/tiny.config,
#   SRC/arch/SRCARCH/configs/tiny.config (if any)
#                                      tinyconfig's own fragments
#   qemu-images/common.config          what every guest needs
#   qemu-images/ARCH/config            what this arch needs
#   tools-testing-selftests-clone3/config   the suite's needs
#   qemu-images/common.<V.P>.config    what differs from Linux V.P on, for
#   qemu-images/ARCH/<V.P>.config      every guest and for this arch, if
#                                      any (the newest V.P not newer than
#                                      SRC's Makefile); last, so that they
#                                      also speak for a symbol of the
#                                      suite's that V.P renamed
# This gives the .config of `make tinyconfig` followed by merge_config.sh
# -n of our fragments, in one Kconfig run instead of four (about 4 s of
# CPU less per kernel); where tinyconfig's closing olddefconfig would
# differ, the arch's fragment says so (qemu-images/x86_64/config).
# The .config is made again only when a fragment or the arch changed, so a
# warm build stays incremental.  Every option our fragments ask for is
# checked after the merge; the build stops naming each one Kconfig did
# not keep.  Prints the image path on success; a
# failed build quotes the compiler's first error, then the log's tail.
#
# Only kernel/fork.c is compiled through ccache (scripts/kbuild-cc, the
# build's CC, which also keeps the answers of Kbuild's compiler probes),
# its cache kept in the build directory: base and patched share that
# directory and differ in kernel/fork.c, so the gate switches fork.c back
# and forth, and ccache gives each switch back its object.  The other
# objects never hit a cache, and ccache's cost on a cold build (about 40%
# here) bought nothing for them.
#
# A kernel whose inputs did not change is not built again: an image built
# from a clean checkout is kept under the key of what went into it (the
# source's git tree, the .config's fragments and arch, the compiler and
# linker, the KCFLAGS-like variables, this script), and given back while
# that key holds.  The images are kept in the build directory (the last
# 12), or, when CLONE3_IMAGE_CACHE names a directory, in its <ARCH>/
# (the last 64 per arch): a cache that every clone and work directory on
# the machine share, as a CI job's cache directory is shared by its runs.
#
# Environment: JOBS (make -j, default: the number of cores; in a slot of
# the gate's jobserver, CLONE3_SLOTS, the build takes what it can get),
# V=1 shows the build output, CLONE3_IMAGE_CACHE, CLONE3_HUGEPAGES (0:
# no huge pages for the compilers, see below).
#
# usage: build-kernel.sh ARCH SRC BUILDDIR
set -eu
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

[ $# -eq 3 ] || die "usage: build-kernel.sh ARCH SRC BUILDDIR"
ARCH=$1
SRC=$2
BUILDDIR=$3
ROOT=$(repo_root)
JOBS=${JOBS:-$(nproc)}
V=${V:-0}

[ -f "$SRC/Makefile" ] && [ -f "$SRC/kernel/fork.c" ] ||
	die "SRC=$SRC is not a kernel source tree"
case $JOBS in '' | *[!0-9]* | 0*) die "JOBS=$JOBS is not a positive integer" ;; esac
HUGEPAGES=${CLONE3_HUGEPAGES:-1}
case $HUGEPAGES in 0 | 1) ;; *) die "CLONE3_HUGEPAGES=$HUGEPAGES: use 0 or 1" ;; esac
load_arch "$ARCH"
need_cmd "${CROSS_COMPILE}gcc" "$CC_PKG"
need_cmd make make
need_cmd flex flex
need_cmd bison bison
need_cmd bc bc
need_cmd ccache ccache

SRC=$(cd "$SRC" && pwd)
VP=$(sed -n 's/^VERSION = //p; s/^PATCHLEVEL = //p' "$SRC/Makefile" | paste -sd.)
# tinyconfig's fragments are the tree's: they name options of every arch
# (CONFIG_KERNEL_XZ, CONFIG_NOHIGHMEM), which Kconfig drops where the arch
# lacks them, as tinyconfig itself does.  Only ours are checked.
TINY="$SRC/kernel/configs/tiny-base.config $SRC/kernel/configs/tiny.config"
[ ! -f "$SRC/arch/$SRCARCH/configs/tiny.config" ] || TINY="$TINY $SRC/arch/$SRCARCH/configs/tiny.config"
OURS="$ROOT/qemu-images/common.config $ROOT/qemu-images/$ARCH/config"
OURS="$OURS $ROOT/tools-testing-selftests-clone3/config"
# The fragments for this tree's version, every guest's and the arch's:
# of DIR's PREFIX<VERSION>.<PATCHLEVEL>.config, the newest not newer than
# the tree, so that one written for 6.12 holds for every later tree too.
# Merged last, so that they also speak for a symbol of the suite's
# config that a release renamed or folded.
#   version_fragment DIR PREFIX
version_fragment() {
	local v
	v=$(cd "$1" && ls | sed -n "s/^$2\([0-9]*\.[0-9]*\)\.config\$/\1/p" |
		{ cat; echo "$VP tree"; } | sort -t. -k1,1n -k2,2n -s |
		awk '$2 == "tree" { print v; exit } { v = $1 }')
	[ -z "$v" ] || echo "$1/$2$v.config"
}
OURS="$OURS $(version_fragment "$ROOT/qemu-images" common.) $(version_fragment "$ROOT/qemu-images/$ARCH" '')"
FRAGMENTS="$TINY $OURS"
for f in $FRAGMENTS; do
	[ -f "$f" ] || die "kconfig fragment $f is missing"
done
[ -f "$ROOT/trees/kbuild-words" ] || die "$ROOT/trees/kbuild-words is missing"
mkdir -p "$BUILDDIR"
BUILDDIR=$(cd "$BUILDDIR" && pwd)
LOG=$BUILDDIR/clone3-build.log
STAMP=$BUILDDIR/.clone3-config-stamp

export CCACHE_DIR=$BUILDDIR/.clone3-ccache CCACHE_MAXSIZE=200M
CC_WRAP="$ROOT/scripts/kbuild-cc ${CROSS_COMPILE}gcc"
# nm and ar are given the compiler's own LTO plugin, as gcc-nm and gcc-ar
# give it.  Without --plugin, binutils loads every plugin of its
# bfd-plugins directory in each run: where LLVM is installed that holds
# LLVMgold, and each nm or ar loads libLLVM (69 ms of CPU a run here
# against 6 ms).  6.1 runs nm on every object it compiles
# (check-local-export), some 600 per kernel; ar makes each directory's
# built-in.a.  The output is the same: no object of ours is LTO.
BINUTILS=()
lto=$("${CROSS_COMPILE}gcc" -print-file-name=liblto_plugin.so)
case $lto in
/*) BINUTILS=(NM="${CROSS_COMPILE}nm --plugin $lto" AR="${CROSS_COMPILE}ar --plugin $lto") ;;
esac
# PAHOLE_FLAGS: 6.1's top Makefile exports it as a $(shell) that make
# runs again for every command (a process start, milliseconds here, some
# 40 per arch in a rebuild); only BTF, which no fragment enables, reads it.
#
# More words come from trees/kbuild-words, each only where the tree's
# Kbuild has the very definition it replaces (6.1's; later trees have
# none of them): some 5500 process starts fewer in a cold x86_64 build of
# 6.1 (416 s of CPU here instead of 481 with the first two).
KBUILD_FIXES=()
while IFS=$'\037' read -r kfile kline kexpect kword; do
	if grep -sqxF -- "$kline" "$SRC/$kfile"; then
		KBUILD_FIXES+=("$kword")
	else
		case " $kexpect " in
		*" $VP "*) echo "build-kernel.sh: warning: $SRC/$kfile no longer holds the line trees/kbuild-words expects of $VP: built without $kword" >&2 ;;
		esac
	fi
done < <(kbuild_words)
# In a slot of the gate's jobserver (run_arches, lib/jobserver.sh), the build's make
# takes further slots from it instead of running JOBS jobs of its own.
MAKE_JOBS=(-j"$JOBS")
if [ -n "${CLONE3_SLOTS:-}" ]; then
	[ -p "$CLONE3_SLOTS" ] ||
		die "CLONE3_SLOTS=$CLONE3_SLOTS is not the gate's jobserver (a fifo; the gate sets it): unset it"
	exec {slots_fd}<>"$CLONE3_SLOTS"
	export MAKEFLAGS="-j --jobserver-auth=$slots_fd,$slots_fd"
	MAKE_JOBS=()
fi
kmake() {
	if [ "$V" = 1 ]; then
		# stderr: stdout only carries the image path.
		make -C "$SRC" O="$BUILDDIR" ARCH="$KARCH" CROSS_COMPILE="$CROSS_COMPILE" \
			CC="$CC_WRAP" PAHOLE_FLAGS= "${BINUTILS[@]}" "${KBUILD_FIXES[@]}" "$@" >&2
	else
		make -s -C "$SRC" O="$BUILDDIR" ARCH="$KARCH" CROSS_COMPILE="$CROSS_COMPILE" \
			CC="$CC_WRAP" PAHOLE_FLAGS= "${BINUTILS[@]}" "${KBUILD_FIXES[@]}" "$@" >>"$LOG" 2>&1
	fi
}

fail_with_log() {
	local first
	first=$(grep -m1 -E '(error|Error):' "$LOG" || true)
	[ -z "$first" ] || echo "first error: $first" >&2
	if [ "$V" != 1 ]; then
		tail -n 20 "$LOG" | sed 's/^/    /' >&2
	fi
	die "$1 (full output: $LOG)"
}

# Print each option of our fragments that .config does not hold as asked
# (a later fragment overrides an earlier one, as in merge_config.sh).
config_mismatches() {
	local line sym
	grep -h -e '^CONFIG_' -e '^# CONFIG_.* is not set' $OURS |
		awk '{ s = $0; sub(/^# /, "", s); sub(/[= ].*/, "", s)
		       if (!(s in last)) order[++n] = s; last[s] = $0 }
		     END { for (i = 1; i <= n; i++) print last[order[i]] }' |
		while read -r line; do
			case $line in
			'#'*)
				sym=${line#\# }
				sym=${sym%% *}
				grep -q "^$sym=[ym]" "$BUILDDIR/.config" &&
					echo "$sym (asked: not set, got: $(grep "^$sym=" "$BUILDDIR/.config"))"
				;;
			*)
				sym=${line%%=*}
				grep -qxF "$line" "$BUILDDIR/.config" ||
					echo "$sym (asked: ${line#*=}, got: $(grep "^$sym=" "$BUILDDIR/.config" || echo 'not set'))"
				;;
			esac
		done
	return 0
}

want=$( { echo "$ARCH $KARCH $CROSS_COMPILE"; cat $FRAGMENTS; } | cksum)
: >"$LOG"
# The image of a clean checkout, keyed by what goes into it.
if [ -n "${CLONE3_IMAGE_CACHE:-}" ]; then
	mkdir -p "$CLONE3_IMAGE_CACHE/$ARCH" 2>/dev/null ||
		die "CLONE3_IMAGE_CACHE=$CLONE3_IMAGE_CACHE: cannot create $ARCH/ there"
	IMAGES=$(cd "$CLONE3_IMAGE_CACHE/$ARCH" && pwd)
	KEEP=64
else
	IMAGES=$BUILDDIR/.clone3-images
	KEEP=12
fi
# What goes into the image besides the source: the .config's fragments
# and arch, the compiler and linker, the KCFLAGS-like variables and the
# scripts that drive the build.
inputs=$( {
	echo "$want"
	"${CROSS_COMPILE}gcc" --version | head -1
	"${CROSS_COMPILE}ld" --version | head -1
	env | grep -E '^(KCFLAGS|KCPPFLAGS|KAFLAGS|KBUILD_[A-Z_]+)=' | sort
	cat "$0" "$ROOT/scripts/kbuild-cc" "$ROOT/scripts/kbuild-scope.sh" "$ROOT/trees/kbuild-words"
} | sha256sum | cut -d' ' -f1)
# The answers of Kbuild's compiler probes (scripts/kbuild-cc), kept for
# these inputs only.
export CLONE3_PROBE_CACHE=$BUILDDIR/.clone3-probes/$inputs
find "$BUILDDIR" -maxdepth 2 -path "$BUILDDIR/.clone3-probes/*" ! -name "$inputs" -exec rm -rf {} +
# The source's git tree, when the checkout is clean: as checkout-variant.sh
# found it earlier in this run (verified_head, lib/git.sh), or as git says.
tree=
if head=$(verified_head "$SRC"); then
	tree=$(git -C "$SRC" rev-parse "$head^{tree}")
elif [ -z "$(git -C "$SRC" status --porcelain --untracked-files=no 2>/dev/null || echo dirty)" ]; then
	tree=$(git -C "$SRC" rev-parse 'HEAD^{tree}')
fi
# The image's key holds the source tree without tools/testing: the
# selftests (our suite among them) go into no kernel, so a change of the
# suite alone is given the images of before (objtool and the rest of
# tools/ stay in the key: the build uses them).
image_tree() {
	local tools
	set -o pipefail
	tools=$(git -C "$SRC" ls-tree "$1:tools" | awk -F'\t' '$2 != "testing"' |
		git -C "$SRC" mktree) &&
		git -C "$SRC" ls-tree "$1" | swap_entry tools "$tools" | git -C "$SRC" mktree
}
key=
if [ -n "$tree" ]; then
	tree=$(image_tree "$tree") || die "git cannot read the tree of $SRC"
	key=$(echo "$tree $inputs" | sha256sum | cut -d' ' -f1)
fi
if [ -n "$key" ] && [ -f "$IMAGES/$key" ]; then
	touch "$IMAGES/$key"
	echo "$IMAGES/$key"
	exit 0
fi
keep_image() {
	[ -n "$key" ] || return 0
	mkdir -p "$IMAGES"
	cp "$BUILDDIR/$IMAGE" "$IMAGES/$key.partial.$$"
	mv "$IMAGES/$key.partial.$$" "$IMAGES/$key"
	# shellcheck disable=SC2010,SC2012 # our own file names: no odd characters
	ls -t "$IMAGES" | grep -v '\.partial\.' | tail -n +$((KEEP + 1)) |
		sed "s|^|$IMAGES/|" | xargs -r rm -f
}

# Huge pages for the compilers' heaps (scripts/hugepage-heap.c, preloaded
# into every process of the build, and glibc's malloc tunable): a cold
# build about 30% faster here (Documentation/gate.md).  Only where the
# kernel gives transparent huge pages on request ("madvise"; with
# "always" they come unasked, with "never" not at all);
# CLONE3_HUGEPAGES=0 builds without.  Not part of the image's key: it
# changes how memory is mapped, never what is built.  LD_PRELOAD splits
# at spaces and colons: a build directory whose path holds one builds
# without.
heap_so=$BUILDDIR/.clone3-hugepage-heap.so
case $heap_so in *[' :']*) HUGEPAGES=0 ;; esac
if [ "$HUGEPAGES" = 1 ] && grep -qsF '[madvise]' /sys/kernel/mm/transparent_hugepage/enabled; then
	if build_hugepage_heap "$heap_so" "$LOG"; then
		export LD_PRELOAD="$heap_so${LD_PRELOAD:+ $LD_PRELOAD}"
		export GLIBC_TUNABLES="glibc.malloc.hugetlb=1${GLIBC_TUNABLES:+:$GLIBC_TUNABLES}"
	else
		echo "build-kernel.sh: note: scripts/hugepage-heap.c does not build (see $LOG): building without huge pages" >&2
	fi
fi

if [ ! -f "$BUILDDIR/.config" ] || [ "$(cat "$STAMP" 2>/dev/null)" != "$want" ]; then
	rm -f "$STAMP" "$BUILDDIR/clone3-tiny.config"
	# -n: what no fragment asks for stays off (olddefconfig would give
	# the symbols a fragment makes visible their defaults, e.g. VT and
	# INPUT with TTY).  Run from the build directory, whose Makefile
	# outputmakefile writes, so that merge_config.sh's temporary files
	# never land in the source tree.
	kmake outputmakefile || fail_with_log "make outputmakefile failed"
	(cd "$BUILDDIR" && ARCH=$KARCH CROSS_COMPILE=$CROSS_COMPILE \
		"$SRC/scripts/kconfig/merge_config.sh" -n $FRAGMENTS) >>"$LOG" 2>&1 ||
		fail_with_log "merge_config.sh failed"
	bad=$(config_mismatches)
	if [ -n "$bad" ]; then
		echo "$bad" | sed 's/^/    not as asked: /' >&2
		die "$ARCH: Kconfig did not keep $(echo "$bad" | wc -l) option(s) of the fragments (a missing dependency?)"
	fi
	echo "$want" >"$STAMP"
fi

# The mark of the last good build in BUILDDIR: its source directory and
# inputs, then its git tree (or "-": not a clean checkout).  Its time is
# that build's start.
MARK=$BUILDDIR/.clone3-built
mark="$SRC $inputs"
# shellcheck disable=SC2034 # read's first field: the mark line
{ read -r built_mark; read -r built_tree; } 2>/dev/null <"$MARK" || built_mark=
# The source is what that build had: make would only walk the tree to
# find that out (several seconds per arch), so skip it.  Known from the
# two git trees when both are; otherwise nothing in the source tree may be
# newer than the start of that build (a touched, checked-out or deleted
# file, whose directory changes, makes make run).
same_source() {
	if [ -n "$tree" ] && [ "${built_tree:--}" != - ]; then
		[ "$tree" = "$built_tree" ]
	else
		[ -z "$(find "$SRC" -path "$SRC/.git" -prune -o -newer "$MARK" -print -quit)" ]
	fi
}
if [ -f "$BUILDDIR/$IMAGE" ] && [ "$built_mark" = "$mark" ] && same_source; then
	keep_image
	echo "$BUILDDIR/$IMAGE"
	exit 0
fi
# A change whose reach kbuild-scope.sh can tell: make walks only the
# directories that hold it (Kbuild's subdir-ym, the subdirectories a
# directory's make descends into, is set on the command line for every
# make, to DIR's subdirectories among them).
scope=()
if [ -f "$BUILDDIR/$IMAGE" ] && [ "$built_mark" = "$mark" ] && [ -n "$tree" ] &&
	[ "${built_tree:--}" != - ] && [ "${CLONE3_FULL_WALK:-0}" != 1 ]; then
	if dirs=$("$ROOT/scripts/kbuild-scope.sh" "$SRC" "$BUILDDIR" "$built_tree"); then
		echo "walking only $(echo "$dirs" | paste -sd' ') (kbuild-scope.sh)" >>"$LOG"
		[ "$V" != 1 ] || echo "$ARCH: walking only $(echo "$dirs" | paste -sd' ')" >&2
		# shellcheck disable=SC2016 # make's variables, expanded by make
		scope=("subdir-ym=\$(foreach d,$(echo "$dirs" | paste -sd' '),\$(if \$(filter \$(obj),\$(patsubst %/,%,\$(dir \$(d)))),\$(obj)/\$(notdir \$(d))))")
	else
		echo "walking the whole tree: $dirs" >>"$LOG"
	fi
fi
rm -f "$MARK"
printf '%s\n%s\n' "$mark" "${tree:--}" >"$MARK.partial"
kmake "${MAKE_JOBS[@]}" "${scope[@]}" "$(basename "$IMAGE")" || fail_with_log "$ARCH kernel build failed"
[ -f "$BUILDDIR/$IMAGE" ] || die "build finished but $BUILDDIR/$IMAGE is missing"
mv "$MARK.partial" "$MARK"
keep_image
# For the progress line of the next build from scratch (a scoped walk
# changes no object's name).
[ ${#scope[@]} -gt 0 ] || find "$BUILDDIR" -name '*.o' | wc -l >"$BUILDDIR/.clone3-objects"
echo "$BUILDDIR/$IMAGE"
