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
