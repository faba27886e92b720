#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The gate needs no root once the packages are installed: run the x86_64
# gate as an ordinary user on the same tree and build directories (handed
# to that user for the run and given back afterwards; REBOOT=1, so that
# the user's QEMU boots rather than the root run's consoles being read
# again), and the suite on the host as that user.
#
# usage: tests/test-unprivileged.sh   (as root, after make gate)
set -eu
cd "$(dirname "$0")/.."
. tests/lib.sh
[ $# -eq 0 ] || { echo "usage: tests/test-unprivileged.sh" >&2; exit 2; }
ROOT=$PWD
U=clone3ci
if [ "$(id -u)" != 0 ]; then
	echo "ok - already unprivileged: the whole check ran as $(id -un)"
	exit 0
fi
id "$U" >/dev/null 2>&1 || useradd -m "$U"

# The user must reach the repository: open the way (execute bit only).
d=$ROOT
while [ "$d" != / ]; do
	if ! su "$U" -s /bin/sh -c "test -x '$d'"; then
		echo "  test-unprivileged: chmod o+x $d so that $U can reach $ROOT"
		chmod o+x "$d"
	fi
	d=$(dirname "$d")
done

owner=$(stat -c %u:%g "$WORK")
give_back() {
	chown -R "$owner" "$WORK"
}
trap give_back EXIT
chown -R "$U:$U" "$WORK"

# Root's image cache (CLONE3_IMAGE_CACHE, set by .ci/run) is not the
# user's to write: the user's kernels come from the build directory.
# Root's package cache is read as it is (the C library runtimes and
# libcap of root's runs: made already, they are only read).
expect "gate as $U (x86_64)" 0 su "$U" -s /bin/bash -c \
	"cd '$ROOT' && ARCHES=x86_64 WORK='$WORK' REBOOT=1 CLONE3_NO_INSTALL=1 CLONE3_IMAGE_CACHE= CLONE3_DEB_CACHE='$(deb_cache)' scripts/gate.sh"
r=$("$PYTHON3" -c 'import json, sys; print(json.load(open(sys.argv[1]))["programs"]["glibc_spawn"]["result"])' \
	"$WORK/results/patched/x86_64.json" 2>&1 || true)
[ "$r" = pass ] && pass "gate as $U: glibc's posix_spawn ran and passed" ||
	fail "gate as $U: glibc's posix_spawn ran and passed" "$r"
# One verdict per variant (base, patched) and row (x86_64, and its compat row).
rows=$(arch_rows x86_64 | wc -l)
expect_output "gate as $U: expectations met" "^$((2 * rows)) passed, 0 failed"
expect "selftest-host as $U" 0 su "$U" -s /bin/bash -c \
	"cd '$ROOT' && WORK='$WORK' scripts/selftest-host.sh"
exit $T_FAILED
