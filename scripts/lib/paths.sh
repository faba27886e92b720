# SPDX-License-Identifier: GPL-2.0
# The gate's paths: the work directory of a tree and every path
# under it, made here and nowhere else.
# Sourced by scripts/lib.sh, never run.

# The gate's paths, made here and nowhere else.  From the environment:
# KERNEL (the tree: a directory of trees/, default the one whose
# source.conf says DEFAULT=1: matrix default-tree), KSRC (a kernel
# tree of the user's, which replaces KERNEL) and WORK (the work
# directory; by default build/<KERNEL>, or build/ksrc-<hash of KSRC's
# path> for KSRC).  Sets and exports KERNEL, KSRC and WORK (absolute), and
# sets ROOT (this repository), TREE (WORK/linux, the prepared git tree),
# TREE_NAME (what results call the tree: KERNEL, or "ksrc"), PORT_TREE
# (the tree whose ports apply: KERNEL, or for KSRC the tree of its
# VERSION.PATCHLEVEL, or the one whose recipe prepare-tree.sh chose for
# it, or nothing; see tree_patch) and RESULTS.
# CHANGE (a change directory, default patches: see change_paths) selects
# the change gated; WORK's default then is build/<KERNEL>-<its name>.
# Every path under WORK comes from the functions below it.
gate_paths() {
	ROOT=$(repo_root)
	change_paths
	[ -n "${KERNEL:-}" ] || KERNEL=$(matrix default-tree) || exit 2
	KSRC=${KSRC:-}
	if [ -n "$KSRC" ]; then
		[ -f "$KSRC/Makefile" ] && [ -f "$KSRC/kernel/fork.c" ] ||
			die "KSRC=$KSRC is not a kernel source tree (no Makefile or kernel/fork.c)"
		KSRC=$(cd "$KSRC" && pwd)
		TREE_NAME=ksrc
		WORK=${WORK:-build/ksrc-$(printf '%s' "$KSRC" | cksum | cut -d' ' -f1)${CHANGE_NAME:+-$CHANGE_NAME}}
		PORT_TREE=$(source_version "$KSRC")
		# A release without a trees/ entry: the tree whose recipe
		# prepare-tree.sh chose for it, if it did.
		[ -d "$ROOT/trees/$PORT_TREE" ] ||
			PORT_TREE=$(cat "$(case $WORK in /*) echo "$WORK" ;; *) echo "$ROOT/$WORK" ;; esac)/linux/.git/clone3-recipe" 2>/dev/null || true)
	else
		[ -f "$ROOT/trees/$KERNEL/source.conf" ] ||
			die "KERNEL=$KERNEL: unknown tree; choose from: $(known_trees)"
		TREE_NAME=$KERNEL
		PORT_TREE=$KERNEL
		WORK=${WORK:-build/$KERNEL${CHANGE_NAME:+-$CHANGE_NAME}}
	fi
	case $WORK in /*) ;; *) WORK=$ROOT/$WORK ;; esac
	TREE=$WORK/linux
	RESULTS=$WORK/results
	export KERNEL KSRC WORK
}

known_trees() {
	matrix trees
}

# The change gated (Documentation/extending.md, "Gate another change"): a
# directory shaped like patches/ (series and its patches, abi-change,
# mutants/, and base/<tree>/ for each tree it supports).  From the
# environment's CHANGE (default patches; relative to this repository).
# Sets and exports CHANGE (absolute), sets CHANGE_NAME (empty for ours,
# patches/; else the directory's name: work directories and results say
# it).  Cheap checks only; `matrix.py change DIR` checks the rest (the
# declaration parses, every patch is there), in check_gate_env.
#   change_paths
change_paths() {
	local root
	root=$(repo_root)
	CHANGE=${CHANGE:-patches}
	case $CHANGE in /*) ;; *) CHANGE=$root/$CHANGE ;; esac
	[ -d "$CHANGE" ] || die "CHANGE=$CHANGE: no such directory"
	[ -f "$CHANGE/series" ] || die "CHANGE: $CHANGE/series: missing (a change lists its patches there)"
	CHANGE=$(cd "$CHANGE" && pwd)
	CHANGE_NAME=
	[ "$CHANGE" = "$root/patches" ] || CHANGE_NAME=$(basename "$CHANGE")
	export CHANGE
}

# Whether the change gated is ours, CLONE_CLEAR_SIGHAND (patches/): only
# then do the flag's own tests have to fail on base.
#   change_is_ours
change_is_ours() {
	[ -z "${CHANGE_NAME:-}" ]
}

# The one rule for "the base of the change on tree PORT_TREE": the
# directory of the series that takes the change out of the tree as found
# (an empty series, or none listed: the tree as found is base).  Ours:
# trees/<tree>/revert/; another change: <change>/base/<tree>/, which
# must exist for every tree the change is gated on.
#   base_recipe_dir
base_recipe_dir() {
	if change_is_ours; then
		echo "$ROOT/trees/$PORT_TREE/revert"
	else
		echo "$CHANGE/base/$PORT_TREE"
	fi
}

# VERSION.PATCHLEVEL of the kernel source in DIR, from its Makefile.
#   source_version DIR
source_version() {
	sed -n 's/^VERSION = //p; s/^PATCHLEVEL = //p' "$1/Makefile" | paste -sd.
}

# A tree's ports (Documentation/extending.md, "Add a tree"): a patch of
# patches/ or patches/mutants/ is replaced on tree PORT_TREE by the file
# of the same name in trees/PORT_TREE/port/, and the series patches that
# trees/PORT_TREE/port/drop names are not applied there.  Every place
# that applies a series or mutant patch takes it through these two, and
# scripts/matrix.py checks that each port and drop names a patch.
# PATCH as tree PORT_TREE applies it (a patch of another directory, such
# as a MUTANTS_DIR of the user's, is never ported).
#   tree_patch PATCH
tree_patch() {
	local name dir port
	name=$(basename "$1")
	dir=$(cd "$(dirname "$1")" && pwd)
	port=$ROOT/trees/${PORT_TREE:-}/port/$name
	if [ -n "${PORT_TREE:-}" ] && [ -f "$port" ] &&
		{ [ "$dir" = "$ROOT/patches" ] || [ "$dir" = "$ROOT/patches/mutants" ]; }; then
		echo "$port"
	else
		echo "$1"
	fi
}

# patches/series as tree PORT_TREE applies it, one path a line: the
# dropped patches left out, the others through tree_patch.
#   tree_series
tree_series() {
	local drop=$ROOT/trees/${PORT_TREE:-}/port/drop p dropped=
	change_is_ours || drop=/nonexistent
	[ -z "${PORT_TREE:-}" ] || [ ! -f "$drop" ] ||
		dropped=$(sed 's/#.*//' "$drop" | awk 'NF { print $1 }')
	series_patches "${CHANGE:-$ROOT/patches}" | while IFS= read -r p; do
		! echo "$dropped" | grep -qxF "$(basename "$p")" || continue
		tree_patch "$p"
	done
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

# The C library runtime of Debian release SUITE for Debian arch DEB_ARCH,
# as scripts/glibc-runtime.sh makes it: shared by every work directory,
# beside the packages it comes from.
#   glibc_runtime_dir DEB_ARCH SUITE
glibc_runtime_dir() {
	echo "$(deb_cache)/glibc-runtime/$2-$1"
}
