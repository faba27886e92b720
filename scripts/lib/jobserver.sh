# SPDX-License-Identifier: GPL-2.0
# Every arch at once, sharing JOBS slots through a jobserver of GNU
# make's kind, and the interrupt that stops them all.
# Sourced by scripts/lib.sh, never run.

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
	# Gone when the run that owns it was stopped: this job stops too.
	if ! { exec {fd}<>"$CLONE3_SLOTS"; } 2>/dev/null; then
		echo "stopped: the gate's jobserver ($CLONE3_SLOTS) is gone; the run that started this job was interrupted" >&2
		exit 130
	fi
	read -r -N1 -u "$fd" tok
	"$@" || rc=$?
	printf %s "$tok" >&"$fd"
	exec {fd}>&-
	return $rc
}
