# SPDX-License-Identifier: GPL-2.0
# An arch's data (qemu-images/<arch>/qemu.conf, checked by
# scripts/matrix.py) and what follows from it: rows and guest words.
# Sourced by scripts/lib.sh, never run.

# The arch's data (qemu-images/ARCH/qemu.conf) into the caller's shell.
#   load_arch ARCH
load_arch() {
	local conf
	conf=$(repo_root)/qemu-images/$1/qemu.conf
	[ -f "$conf" ] || die "unknown arch '$1' (no qemu-images/$1/qemu.conf); choose from: $(known_arches)"
	. "$conf"
}

known_arches() {
	matrix arches
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
# required when the change gated is ours (change_is_ours: another
# change's kernels need not have it), and the guest's fuzzer budget is split between the documents
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
	if change_is_ours; then
		echo "CLONE3_REQUIRE_CLEAR_SIGHAND=1 CLONE3_FUZZ_SECONDS=$share"
	else
		echo "CLONE3_FUZZ_SECONDS=$share"
	fi
}
