# SPDX-License-Identifier: GPL-2.0
# Helpers for the project's own tests.  Sourced, never run.
# A test script prints one line per check: "ok - NAME" or
# "not ok - NAME: what was seen"; scripts/check.sh counts them.

T_FAILED=0

pass() {
	echo "ok - $1"
}

fail() {
	echo "not ok - $1: $2"
	T_FAILED=1
}

# expect NAME WANTED_STATUS COMMAND...: run COMMAND, keep its output in
# $OUT and its exit status in $RC, and check the status.
expect() {
	local name=$1 want=$2
	shift 2
	set +e
	OUT=$("$@" 2>&1)
	RC=$?
	set -e
	if [ "$RC" = "$want" ]; then
		pass "$name"
	else
		fail "$name" "exit $RC, wanted $want; output: $(echo "$OUT" | tail -3 | tr '\n' ' ')"
	fi
}

# expect_output NAME PATTERN: the last expect's output matches PATTERN.
expect_output() {
	if echo "$OUT" | grep -qE -- "$2"; then
		pass "$1"
	else
		fail "$1" "output does not match /$2/: $(echo "$OUT" | tail -3 | tr '\n' ' ')"
	fi
}

# A fingerprint of a directory: every file's content and mode, and for a
# git tree also HEAD, the index and the status.
tree_state() {
	local d=$1
	(cd "$d" && find . -path ./.git -prune -o -type f -print0 | sort -z |
		xargs -0 sha256sum && find . -path ./.git -prune -o -printf '%m %p\n' | sort)
	if [ -d "$d/.git" ]; then
		git -C "$d" rev-parse HEAD
		git -C "$d" ls-files -s
		git -C "$d" status --porcelain
	fi
}

# The gate's paths as the scripts make them (gate_paths in scripts/lib.sh):
# WORK, TREE, RESULTS of the tree KERNEL names (default 6.1).
# shellcheck source=../scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
gate_paths
