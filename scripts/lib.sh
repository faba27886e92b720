# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the gate's scripts.  Sourced, never run.

# Print a one-line reason and leave with the "usage or environment" code.
die() {
	echo "error: $*" >&2
	exit 2
}

note() {
	echo "  $*"
}

# Name the Debian package that provides a missing command, and either
# install it (root) or print the exact line to run.
#   need_cmd COMMAND PACKAGE
need_cmd() {
	command -v "$1" >/dev/null 2>&1 && return 0
	if [ "$(id -u)" = 0 ] && [ "${CLONE3_NO_INSTALL:-}" != 1 ]; then
		echo "  installing Debian package $2 for $1"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null ||
			die "apt-get install $2 failed (try: apt-get update)"
		command -v "$1" >/dev/null 2>&1 && return 0
	fi
	die "$1 not found; install it with: apt-get install $2"
}

# Directory holding this repository (scripts/..).
repo_root() {
	cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd
}

# The patches a directory's series file lists, in order, as paths.
series_patches() {
	local dir=$1
	[ -f "$dir/series" ] || die "$dir/series is missing"
	grep -v '^[[:space:]]*\(#\|$\)' "$dir/series" | sed "s|^|$dir/|"
}

# Commit TREE_ID on top of PARENT in git tree TREE with the message and
# author of the mail PATCH; committer and date are fixed so that the same
# input always gives the same commit id.  Prints the commit id.
#   commit_as_patch TREE TREE_ID PARENT PATCH
commit_as_patch() {
	local msg info
	msg=$(mktemp)
	info=$(git mailinfo "$msg" /dev/null <"$4")
	{ echo "$info" | sed -n 's/^Subject: //p'; echo; cat "$msg"; } |
		GIT_AUTHOR_NAME=$(echo "$info" | sed -n 's/^Author: //p') \
		GIT_AUTHOR_EMAIL=$(echo "$info" | sed -n 's/^Email: //p') \
		GIT_AUTHOR_DATE=$(echo "$info" | sed -n 's/^Date: //p') \
		GIT_COMMITTER_NAME="clone3 gate" \
		GIT_COMMITTER_EMAIL="gate@localhost" \
		GIT_COMMITTER_DATE="2019-11-14 00:00:00 +0000" \
		git -C "$1" commit-tree "$2" -p "$3" -F -
	rm -f "$msg"
}

# Apply PATCH... on top of COMMIT in git tree TREE without touching its
# work tree or index (a scratch index is used); print the new commit id.
# Each commit keeps its patch's author; committer and date are fixed so
# that the same patches always give the same commit ids.
#   commit_patches TREE COMMIT PATCH...
commit_patches() {
	local tree_dir commit=$2 p tree err
	tree_dir=$(cd "$1" && pwd)
	local idx=$tree_dir/.git/clone3-scratch-index.$$
	shift 2
	for p in "$@"; do
		rm -f "$idx"
		GIT_INDEX_FILE=$idx git -C "$tree_dir" read-tree "$commit"
		if ! err=$(GIT_INDEX_FILE=$idx git -C "$tree_dir" apply --cached "$p" 2>&1); then
			rm -f "$idx"
			die "$(basename "$p") does not apply: $(echo "$err" | head -1)"
		fi
		tree=$(GIT_INDEX_FILE=$idx git -C "$tree_dir" write-tree)
		rm -f "$idx"
		commit=$(commit_as_patch "$tree_dir" "$tree" "$commit" "$p")
	done
	echo "$commit"
}

# Make sure Debian packages are installed: as root install the missing
# ones (once per run, after an apt-get update), otherwise name the exact
# command to run and leave with exit 2.
#   need_packages PACKAGE...
need_packages() {
	local p missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	if [ "$(id -u)" != 0 ] || [ "${CLONE3_NO_INSTALL:-}" = 1 ]; then
		die "missing Debian packages; install them with: apt-get install ${missing[*]}"
	fi
	echo "  installing Debian packages: ${missing[*]}"
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1; then
		apt-get update -qq >/dev/null 2>&1 || true
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null ||
			die "apt-get install ${missing[*]} failed"
	fi
}

# Check the gate's settings from the environment (ARCHES, JOBS, ACCEL, V,
# KSRC) and that each arch's cross compiler, static C library and QEMU
# are there.  Arches are whatever qemu-images/ holds a qemu.conf for.
check_gate_env() {
	local root a known seen=" "
	root=$(repo_root)
	known=$(cd "$root/qemu-images" && ls -d */qemu.conf 2>/dev/null | sed 's|/qemu.conf||' | tr '\n' ' ')
	ARCHES=${ARCHES-x86_64 arm64 riscv64}
	JOBS=${JOBS:-2}
	ACCEL=${ACCEL:-tcg}
	V=${V:-0}
	[ -n "$(echo $ARCHES)" ] || die "ARCHES is empty; choose from: $known"
	for a in $ARCHES; do
		case " $known " in *" $a "*) ;; *) die "ARCHES: unknown arch '$a'; choose from: $known" ;; esac
		case $seen in *" $a "*) die "ARCHES: '$a' is given twice" ;; esac
		seen="$seen$a "
	done
	case $JOBS in '' | *[!0-9]* | 0*) die "JOBS=$JOBS is not a positive integer" ;; esac
	case $ACCEL in tcg | kvm) ;; *) die "ACCEL=$ACCEL: use tcg or kvm" ;; esac
	case $V in 0 | 1) ;; *) die "V=$V: use 0 or 1" ;; esac
	if [ -n "${KSRC:-}" ]; then
		[ -f "$KSRC/Makefile" ] && [ -f "$KSRC/kernel/fork.c" ] ||
			die "KSRC=$KSRC is not a kernel source tree (no Makefile or kernel/fork.c)"
	fi
	export ARCHES JOBS ACCEL V
	need_cmd python3 python3
	need_cmd git git
	need_cmd make make
	need_cmd flock util-linux
	need_packages flex bison bc libelf-dev libssl-dev cpio ccache
	for a in $ARCHES; do
		(
			. "$root/qemu-images/$a/qemu.conf"
			need_cmd "${CROSS_COMPILE}gcc" "$CC_PKG"
			need_cmd "$QEMU_BIN" "$QEMU_PKG"
			[ -z "${FIRMWARE_PKG:-}" ] || need_packages "$FIRMWARE_PKG"
			[ "$("${CROSS_COMPILE}gcc" -print-file-name=libc.a)" != libc.a ] ||
				need_packages "$LIBC_PKG"
		)
	done
}

# Run COMMAND once per arch, at most MAX at a time; @ARCH@ in the
# arguments stands for the arch.  Every job leads its own process group,
# so that an interrupt of the caller (SIGINT/SIGTERM/SIGHUP) can stop a
# job's make and boot.sh (which kills QEMU and keeps the console log):
# then the caller leaves with 130.  Returns the last non-zero status.
#   run_arches MAX "ARCHES" COMMAND ARG...
run_arches() {
	local max=$1 arches=$2 a p rc=0 st
	local -a pids=() args=()
	shift 2
	trap '_run_arches_stop "${pids[@]}"' INT TERM HUP
	set -m
	for a in $arches; do
		while [ "$(jobs -rp | wc -l)" -ge "$max" ]; do
			wait -n || true
		done
		args=("${@//@ARCH@/$a}")
		"${args[@]}" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		st=0
		wait "$p" || st=$?
		[ $st = 0 ] || rc=$st
	done
	set +m
	trap - INT TERM HUP
	return $rc
}

_run_arches_stop() {
	local p
	trap - INT TERM HUP
	for p in "$@"; do
		kill -TERM -- "-$p" 2>/dev/null || true
	done
	wait
	echo "interrupted; earlier results are kept, the next run picks up from here" >&2
	exit 130
}

# The commit the gate builds for the base kernel.  base and patched
# differ in include/uapi/linux/sched.h, which nearly every object
# includes; when the values the series adds there are used nowhere but
# kernel/fork.c, the patched tree with base's kernel/fork.c builds the
# base kernel object for object (the other objects only lose an unused
# #define), incrementally in the patched build directory.  Prints that
# commit, or nothing when the series touches more than that; fails only
# on a git error.  The answer is kept in the tree's .git for the pair of
# base and patched commits it was found for: finding it searches the
# whole tree (some 15 s), which every arch job of every run would repeat.
#   base_build_commit TREE
base_build_commit() {
	local tree key cache
	tree=$(cd "$1" && pwd)
	key=$(git -C "$tree" rev-parse base patched | tr '\n' ' ') || return 1
	cache=$tree/.git/clone3-base-build-commit
	(
		flock 9
		set -- $(cat "$cache" 2>/dev/null)
		if [ $# -eq 3 ] && [ "$1 $2 " = "$key" ] &&
			{ [ "$3" = - ] || git -C "$tree" cat-file -e "$3^{commit}" 2>/dev/null; }; then
			[ "$3" = - ] || echo "$3"
			exit 0
		fi
		found=$(find_base_build_commit "$tree") || exit 1
		echo "$key${found:--}" >"$cache.tmp" && mv "$cache.tmp" "$cache"
		echo "$found"
	) 9>"$tree/.git/clone3-base-build.lock"
}

find_base_build_commit() {
	local tree=$1 files names n users idx blob t msg
	files=$(git -C "$tree" diff --name-only base patched -- . ':!tools/testing/selftests' | sort | tr '\n' ' ')
	[ "$files" = "include/uapi/linux/sched.h kernel/fork.c " ] || return 0
	git -C "$tree" diff base patched -- include/uapi/linux/sched.h |
		grep '^[-+][^-+]' | grep -vq '^[-+]#define ' && return 0
	names=$(git -C "$tree" diff base patched -- include/uapi/linux/sched.h |
		sed -n 's/^[-+]#define \([A-Za-z0-9_]*\).*/\1/p' | sort -u)
	for n in $names; do
		users=$(git -C "$tree" grep -l -w "$n" patched -- . ':!tools' ':!Documentation' |
			sed 's/^patched://' | grep -v -x -e kernel/fork.c -e include/uapi/linux/sched.h || true)
		[ -z "$users" ] || return 0
	done
	# A scratch index of this process's own: arch jobs ask at the same
	# time, and all get the same commit id.
	idx=$tree/.git/clone3-base-build-index.$$
	rm -f "$idx"
	GIT_INDEX_FILE=$idx git -C "$tree" read-tree patched
	blob=$(git -C "$tree" rev-parse base:kernel/fork.c)
	GIT_INDEX_FILE=$idx git -C "$tree" update-index --cacheinfo "100644,$blob,kernel/fork.c"
	t=$(GIT_INDEX_FILE=$idx git -C "$tree" write-tree)
	rm -f "$idx"
	msg="gate: base kernel = patched with base's kernel/fork.c"
	echo "$msg" | GIT_AUTHOR_NAME="clone3 gate" GIT_AUTHOR_EMAIL="gate@localhost" \
		GIT_AUTHOR_DATE="2019-11-14 00:00:00 +0000" \
		GIT_COMMITTER_NAME="clone3 gate" GIT_COMMITTER_EMAIL="gate@localhost" \
		GIT_COMMITTER_DATE="2019-11-14 00:00:00 +0000" \
		git -C "$tree" commit-tree "$t" -p patched -F -
}
