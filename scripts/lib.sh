# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the gate's scripts.  Sourced, never run.

# Print a one-line reason and leave with the "usage or environment" code.
die() {
	echo "error: $*" >&2
	exit 2
}

# The disk space the big steps write, in MiB, from the larger tree (6.12,
# 2026-12-07), rounded up: a prepared tree (build/<tree>/linux, 2.2 GB)
# and its kselftest work tree (build/<tree>/kselftest-tree, 1.7 GB with
# the suite built).  The kernels, initramfs and logs of a gate take less
# than GATE_MIB.
TREE_MIB=2600
KSELFTEST_TREE_MIB=2000
GATE_MIB=1024

# need_space DIR MIB WHAT: stop with a one-line reason, before anything
# is written, when the file system holding DIR (or its nearest existing
# parent) has less than MIB MiB free.  A full disk would otherwise show
# as a write error in the middle of a step.
need_space() {
	local d=$1 free
	while [ ! -d "$d" ]; do d=$(dirname "$d"); done
	free=$(df -Pm "$d" | awk 'NR == 2 { print $4 }')
	[ "$free" -ge "$2" ] || die "$3 needs about $2 MiB free in $d, which has $free MiB"
}

# The Python that runs our scripts (standard library only): that of
# Debian's python3 package, the one the gate installs, rather than
# whatever comes first in PATH; a version manager's shim there (pyenv's
# costs 0.3 s a call on this machine) would be paid on every boot's
# report.  PYTHON3 chooses another (need_python3 checks it).
PYTHON3_GIVEN=${PYTHON3:-}
PYTHON3=${PYTHON3:-python3}
[ -n "$PYTHON3_GIVEN" ] || [ ! -x /usr/bin/python3 ] || PYTHON3=/usr/bin/python3

# A PYTHON3 the user named must run as it is (nothing is installed for
# it); the default one is installed when missing.
need_python3() {
	if [ -n "$PYTHON3_GIVEN" ]; then
		command -v "$PYTHON3" >/dev/null 2>&1 || die "PYTHON3=$PYTHON3 is not a command"
	else
		need_cmd "$PYTHON3" python3
	fi
}

# The gate's paths, made here and nowhere else.  From the environment:
# KERNEL (the tree: a directory of trees/, default 6.1), KSRC (a kernel
# tree of the user's, which replaces KERNEL) and WORK (the work
# directory; by default build/<KERNEL>, or build/ksrc-<hash of KSRC's
# path> for KSRC).  Sets and exports KERNEL, KSRC and WORK (absolute), and
# sets ROOT (this repository), TREE (WORK/linux, the prepared git tree),
# TREE_NAME (what results call the tree: KERNEL, or "ksrc") and RESULTS.
# Every path under WORK comes from the functions below it.
gate_paths() {
	ROOT=$(repo_root)
	KERNEL=${KERNEL:-6.1}
	KSRC=${KSRC:-}
	if [ -n "$KSRC" ]; then
		[ -f "$KSRC/Makefile" ] && [ -f "$KSRC/kernel/fork.c" ] ||
			die "KSRC=$KSRC is not a kernel source tree (no Makefile or kernel/fork.c)"
		KSRC=$(cd "$KSRC" && pwd)
		TREE_NAME=ksrc
		WORK=${WORK:-build/ksrc-$(printf '%s' "$KSRC" | cksum | cut -d' ' -f1)}
	else
		[ -f "$ROOT/trees/$KERNEL/source.conf" ] ||
			die "KERNEL=$KERNEL: unknown tree; choose from: $(known_trees)"
		TREE_NAME=$KERNEL
		WORK=${WORK:-build/$KERNEL}
	fi
	case $WORK in /*) ;; *) WORK=$ROOT/$WORK ;; esac
	TREE=$WORK/linux
	RESULTS=$WORK/results
	export KERNEL KSRC WORK
}

# The cache of packages taken from other Debian releases
# (debian-package.sh): CLONE3_DEB_CACHE, by default shared by every
# clone when run as root, else this clone's build/debs.
deb_cache() {
	if [ -n "${CLONE3_DEB_CACHE:-}" ]; then
		echo "$CLONE3_DEB_CACHE"
	elif [ "$(id -u)" = 0 ]; then
		echo /var/cache/clone3-clear-sighand/debs
	else
		echo "$(repo_root)/build/debs"
	fi
}

known_trees() {
	(cd "$(repo_root)/trees" && ls -d */source.conf | sed 's|/source.conf||' | tr '\n' ' ')
}

# The build directory of one kernel: kbuild_dir ARCH base|patched
kbuild_dir() {
	echo "$WORK/kbuild/$1/$2"
}

# The static suite and init of one arch: suite_dir ARCH
suite_dir() {
	echo "$WORK/suite/$1"
}

# The uapi headers of one source arch (SRCARCH: x86 serves x86_64 and
# i386), as `make headers_install` gives them: headers_dir SRCARCH
headers_dir() {
	echo "$WORK/headers/$1"
}

# The initramfs of one arch: initramfs_path ARCH
initramfs_path() {
	echo "$WORK/initramfs/$1.cpio"
}

# The console log of one boot while it runs: boot_log VARIANT ARCH
boot_log() {
	echo "$WORK/boot/$1/$2.log"
}

# The console logs of finished boots of one arch, each kept under the key
# of what went into it (run-variant.sh): kept_boots_dir ARCH
kept_boots_dir() {
	echo "$WORK/boot-kept/$1"
}

# The results of one variant: results_dir VARIANT
results_dir() {
	echo "$RESULTS/$1"
}

# The arch's data (qemu-images/ARCH/qemu.conf) into the caller's shell.
#   load_arch ARCH
load_arch() {
	local conf
	conf=$(repo_root)/qemu-images/$1/qemu.conf
	[ -f "$conf" ] || die "unknown arch '$1' (no qemu-images/$1/qemu.conf); choose from: $(known_arches)"
	. "$conf"
}

known_arches() {
	(cd "$(repo_root)/qemu-images" && ls -d */qemu.conf | sed 's|/qemu.conf||' | tr '\n' ' ')
}

# The result rows of an arch: the arch itself, and ARCH-ABI when its
# guest also runs the 32-bit suite (compat).
#   arch_rows ARCH
arch_rows() {
	(
		load_arch "$1"
		echo "$1"
		[ -z "$COMPAT_ABI" ] || echo "$1-$COMPAT_ABI"
	)
}

# The fuzzer's budget in one guest, in seconds: CLONE3_FUZZ_SECONDS,
# default 0.5 (1,000 to 13,000 inputs under TCG, by arch: every mutant the
# fuzzer kills disagrees with its model on a large share of them; the
# budget is a sixth of a boot).  Checked here, so that a bad value stops
# the run before any kernel is built.
fuzz_budget() {
	local b=${CLONE3_FUZZ_SECONDS:-0.5}
	[[ $b =~ ^[0-9]+(\.[0-9]+)?$ ]] && [ "$(echo "$b > 0" | bc)" = 1 ] ||
		die "CLONE3_FUZZ_SECONDS=$b: want a positive number of seconds, such as 1 or 0.5"
	echo "$b"
}

# The words the gate puts on the kernel command line of an ARCH guest
# (boot.sh hands them to init, init to every program): the flag is
# required, and the guest's fuzzer budget is split between the documents
# it runs (native, and the 32-bit suite when the arch has compat), so that
# a compat guest takes no longer to fuzz than the others.  Call it in an
# assignment of its own, so that a bad budget stops the caller.
#   guest_args ARCH
guest_args() {
	local budget docs share
	budget=$(fuzz_budget) || exit 2
	docs=$(arch_rows "$1" | wc -l)
	share=$(echo "scale=3; $budget / $docs" | bc | sed 's/^\./0./')
	[ "$(echo "$share > 0" | bc)" = 1 ] ||
		die "CLONE3_FUZZ_SECONDS=$budget is too small to split between $docs documents"
	echo "CLONE3_REQUIRE_CLEAR_SIGHAND=1 CLONE3_FUZZ_SECONDS=$share"
}

# Name the Debian package that provides a missing command, and either
# install it (root) or print the exact line to run.
#   need_cmd COMMAND PACKAGE
need_cmd() {
	command -v "$1" >/dev/null 2>&1 && return 0
	if [ "$(id -u)" = 0 ] && [ "${CLONE3_NO_INSTALL:-}" != 1 ]; then
		echo "  installing Debian package $2 for $1"
		apt_install "$2" || die "apt-get install $2 failed (try: apt-get update)"
		command -v "$1" >/dev/null 2>&1 && return 0
	fi
	die "$1 not found; install it with: apt-get install $2"
}

# Directory holding this repository (scripts/..).  Every script sources
# this file and finds it without dirname: a process start costs
# milliseconds here, and a gate starts some 200 scripts.
repo_root() {
	case ${BASH_SOURCE[0]} in
	*/*) cd "${BASH_SOURCE[0]%/*}/.." && pwd ;;
	*) cd .. && pwd ;;
	esac
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
	local subject name email date
	msg=$(mktemp)
	info=$(git mailinfo "$msg" /dev/null <"$4")
	# A plain diff has no mail header: its file name is its subject.
	subject=$(echo "$info" | sed -n 's/^Subject: //p')
	[ -n "$subject" ] || subject="$(basename "$4") (a plain diff)"
	name=$(echo "$info" | sed -n 's/^Author: //p')
	email=$(echo "$info" | sed -n 's/^Email: //p')
	date=$(echo "$info" | sed -n 's/^Date: //p')
	{ echo "$subject"; echo; cat "$msg"; } |
		GIT_AUTHOR_NAME=${name:-clone3 gate} \
		GIT_AUTHOR_EMAIL=${email:-gate@localhost} \
		GIT_AUTHOR_DATE=${date:-2019-11-14 00:00:00 +0000} \
		GIT_COMMITTER_NAME="clone3 gate" \
		GIT_COMMITTER_EMAIL="gate@localhost" \
		GIT_COMMITTER_DATE="2019-11-14 00:00:00 +0000" \
		git -C "$1" commit-tree "$2" -p "$3" -F -
	rm -f "$msg"
}

# One check of a work tree per run.  Looking for modified tracked files
# stats every file of the tree (some 0.4 CPU-s for a kernel here); a gate
# run asked it three times per arch and variant.  checkout-variant.sh
# checks, checks out and then notes "RUN COMMIT" in the worktree's git
# directory, RUN being CLONE3_RUN, which gate.sh and mutants.sh set to an
# id of their own run; later calls of the same run trust that note while
# HEAD is still COMMIT.  The work tree is the gate's: only our checkouts
# change it while a run goes, and an edit of it made meanwhile is seen by
# the next run.  Without CLONE3_RUN every call checks.
#   verified_note DIR        the note's path
#   verified_head DIR        print HEAD when this run noted DIR clean there
#   note_verified DIR COMMIT note it (nothing without CLONE3_RUN)
verified_note() {
	echo "$(git -C "$1" rev-parse --absolute-git-dir)/clone3-verified"
}
verified_head() {
	local out
	[ -n "${CLONE3_RUN:-}" ] || return 1
	out=$(git -C "$1" rev-parse --absolute-git-dir HEAD 2>/dev/null) || return 1
	[ "$(cat "${out%%$'\n'*}/clone3-verified" 2>/dev/null)" = "$CLONE3_RUN ${out##*$'\n'}" ] || return 1
	echo "${out##*$'\n'}"
}
note_verified() {
	[ -n "${CLONE3_RUN:-}" ] || return 0
	echo "$CLONE3_RUN $2" >"$(verified_note "$1")"
}
# Start a run: a fresh CLONE3_RUN for this script and what it calls
# (gate.sh, mutants.sh).
start_run() {
	CLONE3_RUN=$(basename "$0")-$$-$(date +%s%N)
	export CLONE3_RUN
}

# Fill the index file IDX with COMMIT's tree.  Reading a kernel's tree
# into an index takes some 0.6 s here: the index of the last commit asked
# is kept in TREE's .git, and a copy of it takes a few milliseconds (the
# mutants are all applied on the same commit).
#   scratch_index TREE COMMIT IDX
scratch_index() {
	local id kept
	id=$(git -C "$1" rev-parse --verify -q "$2^{commit}") || id=
	kept=$1/.git/clone3-index-of-$id
	[ -z "$id" ] || ! cp "$kept" "$3" 2>/dev/null || return 0
	GIT_INDEX_FILE=$3 git -C "$1" read-tree "$2" || return 1
	[ -n "$id" ] || return 0
	find "$1/.git" -maxdepth 1 -name 'clone3-index-of-*' ! -name "*$id*" -delete 2>/dev/null || true
	{ cp "$3" "$kept.$$" && mv "$kept.$$" "$kept"; } 2>/dev/null || rm -f "$kept.$$"
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
		scratch_index "$tree_dir" "$commit" "$idx"
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
	if ! apt_install "${missing[@]}"; then
		apt-get update -qq >/dev/null 2>&1 || true
		apt_install "${missing[@]}" || die "apt-get install ${missing[*]} failed"
	fi
}

# apt-get install PACKAGE... quietly: apt's chatter (debconf's "delaying
# package configuration", ...) is shown only when the install fails.
# Another install under way (make check prepares both trees at once) is
# waited for, up to five minutes, not failed on.
apt_install() {
	local out rc=0
	out=$(DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 "$@" 2>&1 >/dev/null) || rc=$?
	[ $rc = 0 ] || echo "$out" | tail -n 5 >&2
	return $rc
}

# The stanzas of trees/kbuild-words (build-kernel.sh, and its test), one
# per line: the file, the line it must hold, the trees expected to hold
# it and the make word, separated by the ASCII unit separator (037; no
# Kbuild line holds one, and an empty field stays a field).
#   kbuild_words
kbuild_words() {
	local l file='' line='' expect=''
	while IFS= read -r l; do
		case $l in
		'file '*) file=${l#file } expect= ;;
		'line '*) line=${l#line } ;;
		'expect '*) expect=${l#expect } ;;
		'word '*) printf '%s\037%s\037%s\037%s\n' "$file" "$line" "$expect" "${l#word }" ;;
		esac
	done <"$(repo_root)/trees/kbuild-words"
}

# Build scripts/hugepage-heap.c, the preload object that asks huge pages
# for big anonymous mappings, into SO unless SO is newer than it; the
# compiler's output goes to LOG.  Fails when it does not build.
#   build_hugepage_heap SO LOG
build_hugepage_heap() {
	local src
	src=$(repo_root)/scripts/hugepage-heap.c
	[ ! "$1" -nt "$src" ] || return 0
	if gcc -O2 -Wall -shared -fPIC -o "$1.$$" "$src" -ldl >>"$2" 2>&1; then
		mv -f "$1.$$" "$1"
	else
		rm -f "$1.$$" "$1"
		return 1
	fi
}

# The arches a gate runs when ARCHES is not given.
DEFAULT_ARCHES="x86_64 arm64 riscv64 i386 armv7"

# Check the gate's settings from the environment (ARCHES, JOBS, ACCEL, V,
# REBOOT, CLONE3_FUZZ_SECONDS, CLONE3_FULL_WALK, CLONE3_HUGEPAGES,
# CLONE3_SLOTS, CLONE3_IMAGE_CACHE, KERNEL, KSRC), make the paths
# (gate_paths) and check that each arch's cross compiler, static C
# library and QEMU are there, and those of the arch whose programs its
# guest runs in compat.  Arches are whatever qemu-images/ holds a
# qemu.conf for.
check_gate_env() {
	local root a known seen=" "
	root=$(repo_root)
	known=$(known_arches)
	ARCHES=${ARCHES-$DEFAULT_ARCHES}
	JOBS=${JOBS:-$(nproc)}
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
	REBOOT=${REBOOT:-0}
	case $REBOOT in 0 | 1) ;; *) die "REBOOT=$REBOOT: use 0 or 1" ;; esac
	case ${CLONE3_FULL_WALK:-0} in 0 | 1) ;; *) die "CLONE3_FULL_WALK=$CLONE3_FULL_WALK: use 0 or 1" ;; esac
	case ${CLONE3_HUGEPAGES:-1} in 0 | 1) ;; *) die "CLONE3_HUGEPAGES=$CLONE3_HUGEPAGES: use 0 or 1" ;; esac
	# Set by run_arches for its jobs only.
	[ -z "${CLONE3_SLOTS:-}" ] || [ -p "$CLONE3_SLOTS" ] ||
		die "CLONE3_SLOTS=$CLONE3_SLOTS is not the gate's jobserver (a fifo; the gate sets it): unset it"
	fuzz_budget >/dev/null
	# A relative cache directory is one of the caller's directory.
	if [ -n "${CLONE3_IMAGE_CACHE:-}" ]; then
		case $CLONE3_IMAGE_CACHE in /*) ;; *) CLONE3_IMAGE_CACHE=$PWD/$CLONE3_IMAGE_CACHE ;; esac
		mkdir -p "$CLONE3_IMAGE_CACHE" 2>/dev/null && [ -w "$CLONE3_IMAGE_CACHE" ] ||
			die "CLONE3_IMAGE_CACHE=$CLONE3_IMAGE_CACHE is not a directory we can write"
		export CLONE3_IMAGE_CACHE
	fi
	gate_paths
	if [ -d "$TREE/.git" ]; then
		need_space "$WORK" "$GATE_MIB" "the gate's kernels"
	else
		need_space "$WORK" $((TREE_MIB + GATE_MIB)) "the tree and the gate's kernels"
	fi
	export ARCHES JOBS ACCEL V REBOOT
	need_python3
	need_cmd git git
	need_cmd make make
	need_cmd flock util-linux
	need_packages flex bison bc libelf-dev libssl-dev cpio ccache libcap-dev
	for a in $ARCHES; do
		need_arch_tools "$a" qemu
		(
			load_arch "$a"
			[ -z "$COMPAT_ARCH" ] || need_arch_tools "$COMPAT_ARCH"
		)
	done
}

# The cross compiler and static C library of ARCH's programs, and with
# "qemu" its QEMU.
#   need_arch_tools ARCH [qemu]
need_arch_tools() {
	(
		load_arch "$1"
		need_cmd "${CROSS_COMPILE}gcc" "$CC_PKG"
		[ "${2:-}" != qemu ] || need_cmd "$QEMU_BIN" "$QEMU_PKG"
		[ "$("${CROSS_COMPILE}gcc" -print-file-name=libc.a)" != libc.a ] ||
			need_packages "$LIBC_PKG"
	)
}

# Run COMMAND once per arch, every arch at once, sharing JOBS slots: a
# slot is one core's worth of work (a compiler, a guest, a step of a
# script), handed out by a jobserver of GNU make's kind, a pipe holding a
# token per free slot (CLONE3_SLOTS, its path).  A job takes a slot for
# each step that works (in_slot), and a kernel's make, started in that
# slot, takes more from the same pipe while it can use them
# (build-kernel.sh): one arch building alone gets every core, and several
# never run more compilers and guests than there are slots.  Running
# JOBS+1 arches with make -jJOBS each, as before, ran three times as many
# compilers as cores: three kernels took 20% more CPU (gate.md).
# @ARCH@ in the arguments stands for the arch.  Every job leads its own
# process group, so that an interrupt of the caller (SIGINT/SIGTERM/
# SIGHUP) can stop a job's make and boot.sh (which kills QEMU and keeps
# the console log): then the caller leaves with 130.  Returns the last
# non-zero status.
#   run_arches "ARCHES" COMMAND ARG...
run_arches() {
	local arches=$1 a p rc=0 st own="" dir
	local -a pids=() args=()
	shift
	trap 'stop_groups "interrupted; earlier results are kept, the next run picks up from here" "${pids[@]}"' INT TERM HUP
	if [ -z "${CLONE3_SLOTS:-}" ]; then
		own=1
		dir=$(mktemp -d "${TMPDIR:-/tmp}/clone3-slots.XXXXXX")
		mkfifo "$dir/jobserver"
		# Opened for reading and writing: the pipe never sees an end.
		exec {SLOTS_FD}<>"$dir/jobserver"
		# The pipe lives on in that descriptor, and the jobs open it
		# through /proc: no name is left behind, not even by a run
		# killed outright (SIGKILL).
		rm -rf "$dir"
		printf "%${JOBS}s" '' | tr ' ' + >&"$SLOTS_FD"
		export CLONE3_SLOTS=/proc/$BASHPID/fd/$SLOTS_FD
	fi
	set -m
	for a in $arches; do
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
	if [ -n "$own" ]; then
		exec {SLOTS_FD}>&-
		unset CLONE3_SLOTS
	fi
	return $rc
}

# An interrupt's end: SIGTERM to each process group PGID (jobs started
# under set -m, each leading its own), wait for them, say MESSAGE, leave
# with 130.  For run_arches's jobs and make check's steps.
#   stop_groups MESSAGE PGID...
stop_groups() {
	local p msg=$1
	shift
	trap - INT TERM HUP
	for p in "$@"; do
		kill -TERM -- "-$p" 2>/dev/null || true
	done
	wait
	echo "$msg" >&2
	exit 130
}

# Run COMMAND in a slot of run_arches's jobserver: wait for a token, run,
# give the token back (also when COMMAND fails).  Outside run_arches
# (CLONE3_SLOTS unset), just run COMMAND.
#   in_slot COMMAND ARG...
in_slot() {
	local fd tok rc=0
	if [ -z "${CLONE3_SLOTS:-}" ]; then
		"$@"
		return
	fi
	# A description of the pipe of our own: make sets its own to
	# non-blocking.
	exec {fd}<>"$CLONE3_SLOTS"
	read -r -N1 -u "$fd" tok
	"$@" || rc=$?
	printf %s "$tok" >&"$fd"
	exec {fd}>&-
	return $rc
}

# Describe RESULTS for a later merge of shards (results_meta.py): the
# tree, the rows and variants asked for, and the commits of the series
# (the patched branch), the suite (its directory's git tree) and this
# project.
#   write_results_meta MODE "ROWS" "VARIANTS"
write_results_meta() {
	local root suite project
	root=$(repo_root)
	suite=$(git -C "$root" rev-parse -q --verify HEAD:tools-testing-selftests-clone3 2>/dev/null || echo unknown)
	project=$(git -C "$root" rev-parse -q --verify HEAD 2>/dev/null || echo unknown)
	"$PYTHON3" "$root/scripts/results_meta.py" --results "$RESULTS" --mode "$1" \
		--tree "$TREE_NAME" --rows "$2" --variants "$3" \
		--series "$(git -C "$TREE" rev-parse patched)" --suite "$suite" --project "$project"
}
