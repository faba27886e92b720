# SPDX-License-Identifier: GPL-2.0
# What every script needs first: die, the repository, the disk,
# the Python that runs our scripts, and the matrix (scripts/matrix.py).
# Sourced by scripts/lib.sh, never run.

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

# scripts/matrix.py, the one owner of the arches, trees and their
# defaults: it checks every data file before it answers (a bad one is
# one line and exit 2).
#   matrix check|arches|trees|default-tree|check-plan
matrix() {
	"$PYTHON3" "$(repo_root)/scripts/matrix.py" "$@"
}

# Directory holding this repository (scripts/lib/../..).  Every script
# sources scripts/lib.sh and finds it without dirname: a process start
# costs milliseconds here, and a gate starts some 200 scripts.
repo_root() {
	cd "${BASH_SOURCE[0]%/*}/../.." && pwd
}
