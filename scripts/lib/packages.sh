# SPDX-License-Identifier: GPL-2.0
# Debian packages and commands: install them as root, or name the
# exact apt-get line; the gate's settings and tools checked up front.
# Sourced by scripts/lib.sh, never run.

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

# Check the gate's settings from the environment (ARCHES, JOBS, ACCEL, V,
# REBOOT, CLONE3_FUZZ_SECONDS, CLONE3_FULL_WALK, CLONE3_HUGEPAGES,
# CLONE3_SLOTS, CLONE3_IMAGE_CACHE, KERNEL, KSRC), make the paths
# (gate_paths) and check that each arch's cross compiler, static C
# library and QEMU are there, and those of the arch whose programs its
# guest runs in compat.  The arches are those of qemu-images/, all of
# them by default, as matrix.py reads and checks them.
check_gate_env() {
	local root a known seen=" "
	root=$(repo_root)
	need_python3
	known=$(known_arches) || exit 2
	ARCHES=${ARCHES-$known}
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
	matrix change "$CHANGE" || exit 2
	if [ -d "$TREE/.git" ]; then
		need_space "$WORK" "$GATE_MIB" "the gate's kernels"
	else
		need_space "$WORK" $((TREE_MIB + GATE_MIB)) "the tree and the gate's kernels"
	fi
	export ARCHES JOBS ACCEL V REBOOT
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
