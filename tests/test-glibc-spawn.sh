#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# consumers/glibc/glibc_spawn on the running kernel, which has
# CLONE_CLEAR_SIGHAND: built for the host without a warning and run
#   (a) with the host's glibc (Debian 12, 2.36): it never asks the flag
#       (the "old glibc" column); the path it took is reported;
#   (b) with Debian 13's glibc 2.41 (scripts/glibc-runtime.sh amd64 trixie,
#       kept where the gate keeps it, glibc_runtime_dir, the program linked with that loader
#       as its interpreter): clone3 with the flag, no sigaction in the
#       child, CLONE3_GLIBC_EXPECT=clone3 passes and =fallback fails;
# then with 2.41 under two stand-ins for other kernels, built here:
#   no-clone3:     a seccomp filter fails every clone3 with EINVAL, as a
#                  kernel without the flag fails glibc's: =fallback passes;
#   keep-handlers: a tracer takes the flag out of the clone3 calls of the
#                  program's own posix_spawn(), as a kernel that accepts
#                  the flag but keeps the handlers: the pre-exec rows fail;
# and the program built by every cross compiler of qemu-images/ present
# (one at least): without a warning, dynamic, with the loader path of the
# arch's Debian runtime as its interpreter.
#
# Needs the network once (libc6:amd64 of trixie); later runs read the
# package cache only.  Skipped on a host that is not amd64.
#
# usage: tests/test-glibc-spawn.sh
set -eu
cd "$(dirname "$0")/.."
. tests/lib.sh
[ $# -eq 0 ] || { echo "usage: tests/test-glibc-spawn.sh" >&2; exit 2; }

if [ "$(dpkg --print-architecture)" != amd64 ]; then
	echo "ok - glibc-spawn # SKIP the host is $(dpkg --print-architecture), not amd64"
	exit 0
fi
SRC=consumers/glibc/glibc_spawn.c
CFLAGS="-Wall -Wextra -O2"
RUNTIME=$(glibc_runtime_dir amd64 trixie)
D=$(mktemp -d "${TMPDIR:-/tmp}/clone3-glibc-spawn.XXXXXX")
trap 'rm -rf "$D"' EXIT

# build NAME COMPILER OUTPUT [FLAGS...]: without a warning.
build() {
	local name=$1 cc=$2 out=$3
	shift 3
	# shellcheck disable=SC2086
	if ! "$cc" $CFLAGS "$@" -o "$out" "$SRC" >"$D/build.log" 2>&1; then
		fail "$name builds" "$(head -3 "$D/build.log" | tr '\n' ' ')"
		return 1
	fi
	if [ -s "$D/build.log" ]; then
		fail "$name builds without a warning" "$(head -3 "$D/build.log" | tr '\n' ' ')"
		return 1
	fi
	pass "$name builds without a warning"
}

interp() {
	readelf -lW "$1" | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p'
}

# The figures of the last run: path, sigaction and sigprocmask counts of
# the child, the program's own time.
figures() {
	local path calls ms
	path=$(echo "$OUT" | sed -n 's/^# path: //p')
	calls=$(echo "$OUT" | sed -n 's/.*child signal syscalls before exec: [0-9]* (\(.*\))$/\1/p')
	ms=$(echo "$OUT" | sed -n 's/^# [0-9]* rows, [0-9]* failed, \(.*\) ms$/\1/p')
	echo "$path; child before exec: $calls; $ms ms"
}

# under_500ms NAME: the program's own time of the last run.
under_500ms() {
	local ms
	ms=$(echo "$OUT" | sed -n 's/^# [0-9]* rows, [0-9]* failed, \([0-9]*\)\..* ms$/\1/p')
	if [ -n "$ms" ] && [ "$ms" -lt 500 ]; then
		pass "$1 takes ${ms} ms"
	else
		fail "$1 takes under 500 ms" "${ms:-no time} ms"
	fi
}

# (a) the host's glibc 2.36
if build "glibc_spawn (host, glibc $(ldd --version | sed -n '1s/.* //p'))" gcc "$D/spawn-host"; then
	expect "glibc 2.36: unset, only flag_clone3_path fails" 1 env -u CLONE3_GLIBC_EXPECT "$D/spawn-host"
	expect_output "glibc 2.36: ... it is row 2" '^not ok 2 flag_clone3_path$'
	expect_output "glibc 2.36: ... the other rows pass" '^# 11 rows, 1 failed'
	expect_output "glibc 2.36: never asks the flag" '^# path: no CLONE_CLEAR_SIGHAND asked \(old glibc\)$'
	expect_output "glibc 2.36: its child resets handlers itself" 'child signal syscalls before exec: [0-9]+ \(sigaction [1-9][0-9]*,'
	under_500ms "glibc 2.36"
	echo "# glibc 2.36: $(figures)"
	echo "$OUT" | grep '^# glibc 2'
	expect "glibc 2.36: CLONE3_GLIBC_EXPECT=clone3 fails" 1 env CLONE3_GLIBC_EXPECT=clone3 "$D/spawn-host"
	expect_output "glibc 2.36: ... on spawn_path alone" '^not ok 1 spawn_path$'
	expect "glibc 2.36: the bench (CLONE3_GLIBC_BENCH=2)" 0 env CLONE3_GLIBC_BENCH=2 "$D/spawn-host"
	expect_output "glibc 2.36: ... a row with 8 handlers: the old path, the child resets them" \
		'^\| 2\.36 \| 8 \| [0-9]+ \| no CLONE_CLEAR_SIGHAND asked \(old glibc\) \| [1-9][0-9]* \|$'
	expect "glibc 2.36: the bench refuses CLONE3_GLIBC_BENCH=0" 2 env CLONE3_GLIBC_BENCH=0 "$D/spawn-host"
	expect_output "glibc 2.36: ... saying what it wants" 'CLONE3_GLIBC_BENCH=0: want 1\.\.10000 spawns'
fi

# (b) Debian 13's glibc 2.41
if out=$(scripts/glibc-runtime.sh amd64 trixie "$RUNTIME" 2>&1); then
	pass "trixie's amd64 runtime: $(echo "$out" | tail -1 | sed 's/^glibc-runtime: //')"
else
	fail "trixie's amd64 runtime" "$(echo "$out" | tail -1)"
	exit 1
fi
LOADER=$RUNTIME/lib64/ld-linux-x86-64.so.2
B=$D/spawn-2.41
if build "glibc_spawn (host, run with glibc 2.41)" gcc "$B" \
	-Wl,--dynamic-linker="$LOADER" -Wl,-rpath="$RUNTIME/usr/lib/x86_64-linux-gnu"; then
	expect "glibc 2.41: unset (as in the guests), every row passes" 0 env -u CLONE3_GLIBC_EXPECT "$B"
	expect_output "glibc 2.41: ... flag_clone3_path among them" '^ok 2 flag_clone3_path$'
	expect "glibc 2.41: CLONE3_GLIBC_EXPECT=clone3 passes" 0 env CLONE3_GLIBC_EXPECT=clone3 "$B"
	expect_output "glibc 2.41: it is 2.41 that runs" '^# glibc 2\.41 \('
	expect_output "glibc 2.41: clone3 with the flag" '^# glibc 2\.41: clone3 flags=0x1000041[0-9a-f]{2} -> ok;'
	expect_output "glibc 2.41: no sigaction in the child" 'child signal syscalls before exec: [0-9]+ \(sigaction 0,'
	under_500ms "glibc 2.41"
	echo "# glibc 2.41: $(figures)"
	echo "$OUT" | grep '^# glibc 2'
	expect "glibc 2.41: CLONE3_GLIBC_EXPECT=fallback fails on this kernel" 1 env CLONE3_GLIBC_EXPECT=fallback "$B"
	expect_output "glibc 2.41: ... on spawn_path alone" '^not ok 1 spawn_path$'
	expect_output "glibc 2.41: ... and the other rows pass" '^# 10 rows, 1 failed'
	expect "glibc 2.41: CLONE3_GLIBC_EXPECT=bogus is refused" 1 env CLONE3_GLIBC_EXPECT=bogus "$B"
	expect_output "glibc 2.41: ... with a reason" 'SKIP CLONE3_GLIBC_EXPECT=bogus'
	expect "glibc 2.41: the bench (CLONE3_GLIBC_BENCH=2)" 0 env CLONE3_GLIBC_BENCH=2 "$B"
	expect_output "glibc 2.41: ... a row with 0 handlers: clone3 with the flag, no sigaction" \
		'^\| 2\.41 \| 0 \| [0-9]+ \| clone3 with CLONE_CLEAR_SIGHAND \| 0 \|$'
	expect_output "glibc 2.41: ... and one with every handler" \
		'^\| 2\.41 \| [1-9][0-9] \| [0-9]+ \| clone3 with CLONE_CLEAR_SIGHAND \| 0 \|$'

	# A kernel without the flag, as glibc sees it: clone3 fails with EINVAL.
	cat >"$D/no-clone3.c" <<'NOCLONE3'
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = 4, .filter = f };

	if (argc < 2)
		return 2;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("no-clone3: seccomp");
		return 2;
	}
	execv(argv[1], argv + 1);
	perror(argv[1]);
	return 2;
}
NOCLONE3
	# A kernel that takes the flag and keeps the handlers: a tracer takes
	# CLONE_CLEAR_SIGHAND out of every clone3(CLONE_VM | CLONE_VFORK) of
	# the program itself (not of its children: its own tracer's spawner
	# keeps the flag, so that only the semantic rows can tell).
	cat >"$D/keep-handlers.c" <<'KEEP'
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define CLEAR_SIGHAND 0x100000000UL

int main(int argc, char **argv)
{
	struct __ptrace_syscall_info si;
	int status, sig, stripped = 0;
	pid_t pid;
	long w;

	if (argc < 2)
		return 2;
	pid = fork();
	if (!pid) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		execv(argv[1], argv + 1);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)(PTRACE_O_TRACESYSGOOD |
	       PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL));
	ptrace(PTRACE_SYSCALL, pid, NULL, NULL);
	for (;;) {
		if (waitpid(pid, &status, 0) != pid)
			return 2;
		if (WIFEXITED(status) || WIFSIGNALED(status))
			break;
		sig = WSTOPSIG(status);
		if (sig == (SIGTRAP | 0x80)) {
			if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof(si), &si) > 0 &&
			    si.op == PTRACE_SYSCALL_INFO_ENTRY && si.entry.nr == SYS_clone3) {
				w = ptrace(PTRACE_PEEKDATA, pid, (void *)si.entry.args[0], NULL);
				if ((w & (CLONE_VM | CLONE_VFORK)) == (CLONE_VM | CLONE_VFORK) &&
				    (w & CLEAR_SIGHAND)) {
					ptrace(PTRACE_POKEDATA, pid, (void *)si.entry.args[0],
					       (void *)(w & ~CLEAR_SIGHAND));
					stripped++;
				}
			}
			sig = 0;
		} else if (status >> 16) {
			sig = 0;
		}
		ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig);
	}
	fprintf(stderr, "keep-handlers: the flag taken out of %d clone3 calls\n", stripped);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
KEEP
	if gcc -O2 -o "$D/no-clone3" "$D/no-clone3.c" 2>"$D/build.log" &&
		gcc -O2 -o "$D/keep-handlers" "$D/keep-handlers.c" 2>>"$D/build.log"; then
		expect "no clone3: glibc 2.41 with CLONE3_GLIBC_EXPECT=fallback passes" 0 \
			env CLONE3_GLIBC_EXPECT=fallback "$D/no-clone3" "$B"
		expect_output "no clone3: clone3 refused, then clone()" \
			'^# glibc 2\.41: clone3 flags=0x1000041[0-9a-f]{2} -> -EINVAL; clone flags=0x[0-9a-f]+ -> ok;'
		expect_output "no clone3: the child resets handlers itself" \
			'child signal syscalls before exec: [0-9]+ \(sigaction [1-9][0-9]*,'
		echo "# no clone3, glibc 2.41: $(figures)"
		expect "no clone3: CLONE3_GLIBC_EXPECT=clone3 fails" 1 \
			env CLONE3_GLIBC_EXPECT=clone3 "$D/no-clone3" "$B"

		expect "handlers kept: glibc 2.41's rows fail" 1 \
			env CLONE3_GLIBC_EXPECT=clone3 "$D/keep-handlers" "$B"
		for row in pre_exec_sigchld pre_exec_sigwinch pre_exec_sigurg pre_exec_sigusr1; do
			expect_output "handlers kept: $row fails" "^not ok [0-9]+ $row$"
		done
		expect_output "handlers kept: a handler of ours ran in the child" \
			'^# pre_exec_sigusr1: a handler of ours ran in the child: 1 times, last signal 10$'
		expect_output "handlers kept: the path rows still pass" '^ok 1 spawn_path$'
		expect "handlers kept: glibc 2.36 does not mind" 1 "$D/keep-handlers" "$D/spawn-host"
		expect_output "handlers kept: ... only flag_clone3_path fails" '^# 11 rows, 1 failed'
		expect_output "handlers kept: ... the old path's flag row" '^not ok 2 flag_clone3_path$'
	else
		fail "the kernel stand-ins build" "$(head -3 "$D/build.log" | tr '\n' ' ')"
	fi
fi

# Every cross compiler present: dynamic, the arch's Debian loader.
declare -A LOADERS=(
	[amd64]=/lib64/ld-linux-x86-64.so.2 [arm64]=/lib/ld-linux-aarch64.so.1
	[riscv64]=/lib/ld-linux-riscv64-lp64d.so.1 [s390x]=/lib/ld64.so.1
	[i386]=/lib/ld-linux.so.2 [armhf]=/lib/ld-linux-armhf.so.3
)
built=0
for conf in qemu-images/*/qemu.conf; do
	arch=$(basename "$(dirname "$conf")")
	(
		T_FAILED=0
		load_arch "$arch"
		command -v "${CROSS_COMPILE}gcc" >/dev/null || exit 3
		build "glibc_spawn ($arch, ${CROSS_COMPILE}gcc)" "${CROSS_COMPILE}gcc" "$D/spawn-$arch" || exit 1
		want=${LOADERS[$DEB_ARCH]:-}
		got=$(interp "$D/spawn-$arch")
		if [ -n "$want" ] && [ "$got" = "$want" ]; then
			pass "glibc_spawn ($arch): interpreter $got"
		else
			fail "glibc_spawn ($arch): interpreter" "$got, wanted ${want:-one known for $DEB_ARCH}"
		fi
		readelf -dW "$D/spawn-$arch" | grep -q '(NEEDED).*\[libc\.so\.6\]' &&
			pass "glibc_spawn ($arch): needs libc.so.6" ||
			fail "glibc_spawn ($arch): needs libc.so.6" "$(readelf -dW "$D/spawn-$arch" | grep NEEDED | tr -s ' ')"
		exit $T_FAILED
	) && rc=0 || rc=$?
	case $rc in
	0) built=$((built + 1)) ;;
	3) echo "ok - glibc_spawn ($arch) # SKIP no ${arch} cross compiler" ;;
	*) T_FAILED=1 ;;
	esac
done
[ $built -gt 0 ] && pass "glibc_spawn cross-built for $built arches" ||
	fail "glibc_spawn cross-built" "no cross compiler of qemu-images/ is installed"
exit $T_FAILED
