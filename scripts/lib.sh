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

# Apply PATCH... on top of COMMIT in git tree TREE without touching its
# work tree or index (a scratch index is used); print the new commit id.
# Each commit keeps its patch's author; committer and date are fixed so
# that the same patches always give the same commit ids.
#   commit_patches TREE COMMIT PATCH...
commit_patches() {
	local tree_dir commit=$2 p info msg tree err
	tree_dir=$(cd "$1" && pwd)
	local idx=$tree_dir/.git/clone3-scratch-index
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
		msg=$(mktemp)
		info=$(git mailinfo "$msg" /dev/null <"$p")
		commit=$( { echo "$info" | sed -n 's/^Subject: //p'; echo; cat "$msg"; } |
			GIT_AUTHOR_NAME=$(echo "$info" | sed -n 's/^Author: //p') \
			GIT_AUTHOR_EMAIL=$(echo "$info" | sed -n 's/^Email: //p') \
			GIT_AUTHOR_DATE=$(echo "$info" | sed -n 's/^Date: //p') \
			GIT_COMMITTER_NAME="clone3 gate" \
			GIT_COMMITTER_EMAIL="gate@localhost" \
			GIT_COMMITTER_DATE="2019-11-14 00:00:00 +0000" \
			git -C "$tree_dir" commit-tree "$tree" -p "$commit" -F -)
		rm -f "$msg"
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
