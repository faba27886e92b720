#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: the gate's figures beside the tree's own KUnit runner
# (tools/testing/kunit/kunit.py run --arch=x86_64) measured in the same
# session on the same tree, as ratios, each with its wall time and its
# CPU time (user + system of every process it ran).  Works in its own
# directory (build/bench-<KERNEL>) so the user's work directory stays warm.
#   tree preparation (unpack and import), from nothing
#   kunit.py cold, and warm after touching kernel/fork.c (the median of
#   WARM_RUNS runs)
#   gate cold (ARCHES, base + patched, suites and initramfs included);
#   when ARCHES holds the 64-bit arches and more, as two gates: the
#   64-bit arches (the three-arch figure), then ARCHES, which builds the
#   rest; the figure for ARCHES is their sum
#   gate warm after an edit of kernel/fork.c in the patched tree (ARCHES,
#   and the three 64-bit arches when ARCHES holds more; the median of
#   WARM_RUNS edits, each run shown)
#   boot to verdict per arch (patched kernel, median of BOOTS boots)
#   mutant cost per arch after the first (BENCH_MUTANTS mutants)
#   the spawner's benchmark on the host and in each guest
#   glibc's posix_spawn() in each guest, patched and base, the guest's
#   glibc and Debian 12's 2.36, 0 / 8 / 64 handlers (BENCH_GLIBC_SPAWNS
#   spawns a round, default 20)
# BENCH_COLD=0 skips the tree preparation and the cold gate and works in
# the tree's own work directory, on its warm build; those rows then say
# they were not measured.  BENCH_ONLY=guests (implies BENCH_COLD=0)
# measures only what runs in the guests: boot to verdict, the spawner's
# and glibc's benches; no kunit.py, so no ratio.  Writes RESULTS/bench.md
# of that directory.
#
# usage: bench.sh
set -eu
case $0 in */*) . "${0%/*}/lib.sh" ;; *) . ./lib.sh ;; esac

[ $# -eq 0 ] || die "usage: make bench [ARCHES=...] [KERNEL=...] [BENCH_COLD=0] [BENCH_ONLY=guests]"
BENCH_ONLY=${BENCH_ONLY:-}
case $BENCH_ONLY in '' | guests) ;; *) die "BENCH_ONLY=$BENCH_ONLY: use guests, or leave it unset" ;; esac
BENCH_COLD=${BENCH_COLD:-1}
[ -z "$BENCH_ONLY" ] || BENCH_COLD=0
case $BENCH_COLD in 0 | 1) ;; *) die "BENCH_COLD=$BENCH_COLD: use 0 or 1" ;; esac
[ "$BENCH_COLD" = 0 ] || WORK=${BENCH_WORK:-build/bench-${KERNEL:-$(matrix default-tree)}}
# The figures are of builds: no image comes from a shared cache.
unset CLONE3_IMAGE_CACHE
check_gate_env
S=$ROOT/scripts
cd "$ROOT"
BOOTS=${BOOTS:-3}
BENCH_MUTANTS=${BENCH_MUTANTS:-3}
# A warm figure is a few dozen seconds of small steps, and moves from one
# run to the next by more than its target's margin: each side's is the
# median of WARM_RUNS runs.
WARM_RUNS=${WARM_RUNS:-3}
for n in "$BOOTS" "$BENCH_MUTANTS" "$WARM_RUNS"; do
	case $n in '' | *[!0-9]* | 0*) die "BOOTS, BENCH_MUTANTS and WARM_RUNS must be positive integers" ;; esac
done
mkdir -p "$WORK" "$RESULTS"
OUT=$RESULTS/bench.md
LOG=$WORK/bench.log
: >"$LOG"

# timed NAME COMMAND...: run COMMAND (output to the bench log), print and
# remember its wall time W[NAME] and CPU time C[NAME] in seconds.
declare -A W C
timed() {
	local name=$1 tf t
	shift
	echo "bench: $name ..."
	tf=$(mktemp)
	if ! { TIMEFORMAT='%R %U %S'; time "$@" >>"$LOG" 2>&1; } 2>"$tf"; then
		rm -f "$tf"
		tail -n 5 "$LOG" | sed 's/^/    /'
		die "bench: '$name' failed (log: $LOG)"
	fi
	read -r -a t <"$tf"
	rm -f "$tf"
	W[$name]=${t[0]}
	C[$name]=$(echo "${t[1]} + ${t[2]}" | bc)
	printf 'bench: %s: %.1f s wall, %.1f s CPU\n' "$name" "${W[$name]}" "${C[$name]}"
}

# median NAME: of the runs NAME_1 .. NAME_<WARM_RUNS>, the one of the
# median wall time becomes W[NAME] and C[NAME]; RUNS[NAME] lists every
# run's wall time.
declare -A RUNS
median() {
	local name=$1 i pick
	pick=$(for i in $(seq "$WARM_RUNS"); do echo "${W[${name}_$i]} $i"; done |
		sort -n -k1,1 | sed -n "$(((WARM_RUNS + 1) / 2))p" | cut -d' ' -f2)
	W[$name]=${W[${name}_$pick]}
	C[$name]=${C[${name}_$pick]}
	RUNS[$name]=$(for i in $(seq "$WARM_RUNS"); do printf '%.1f\n' "${W[${name}_$i]}"; done | paste -sd/ | sed 's|/| / |g')
	printf 'bench: %s: median of %d runs (%s s): %.1f s wall, %.1f s CPU\n' \
		"$name" "$WARM_RUNS" "${RUNS[$name]}" "${W[$name]}" "${C[$name]}"
}

ratio() {
	printf '%.2f' "$(echo "scale=4; $1 / $2" | bc)"
}

if [ "$BENCH_COLD" = 1 ]; then
	rm -rf "$WORK"
	mkdir -p "$WORK"
	: >"$LOG"
	timed tree "$S/prepare-tree.sh"
else
	"$S/prepare-tree.sh" >>"$LOG" 2>&1
fi
"$S/checkout-variant.sh" patched >/dev/null
KUNIT="$PYTHON3 $TREE/tools/testing/kunit/kunit.py run --arch=x86_64 --build_dir=$WORK/kunit --jobs=$(nproc)"

# guests: what runs in the guests only (BENCH_ONLY=guests)
guests=0
[ "$BENCH_ONLY" != guests ] || guests=1
if [ "$guests" = 0 ]; then
	rm -rf "$WORK/kunit"
	timed kunit_cold $KUNIT
	for i in $(seq "$WARM_RUNS"); do
		touch "$TREE/kernel/fork.c"
		timed "kunit_warm_$i" $KUNIT
	done
	median kunit_warm
fi

# The 64-bit arches: those whose compiler defines __LP64__ (the toolchain
# says it; no list of names here).
WARM64=$(for a in $(known_arches); do
	(
		load_arch "$a"
		"${CROSS_COMPILE}gcc" -dM -E - </dev/null | grep -q '__LP64__' && echo "$a"
	) || true
done | tr '\n' ' ')
WARM64=${WARM64% }
# more64: ARCHES holds every 64-bit arch and more.
more64=1
[ "$(echo $ARCHES | wc -w)" -gt "$(echo $WARM64 | wc -w)" ] || more64=0
for a in $WARM64; do
	case " $(echo $ARCHES) " in *" $a "*) ;; *) more64=0 ;; esac
done
if [ "$BENCH_COLD" = 1 ] && [ "$more64" = 1 ]; then
	# The second gate finds the 64-bit kernels, suites and initramfs
	# built and boots them again: the sum is a little more than one gate
	# over ARCHES would take.
	ARCHES=$WARM64 timed gate_cold64 "$S/gate.sh"
	timed gate_cold_rest "$S/gate.sh"
	W[gate_cold]=$(echo "${W[gate_cold64]} + ${W[gate_cold_rest]}" | bc)
	C[gate_cold]=$(echo "${C[gate_cold64]} + ${C[gate_cold_rest]}" | bc)
elif [ "$BENCH_COLD" = 1 ]; then
	timed gate_cold "$S/gate.sh"
else
	"$S/gate.sh" >>"$LOG" 2>&1 || die "bench: the warm-up gate failed (log: $LOG)"
fi
# The edit: a comment at the end of the patched tree's kernel/fork.c,
# committed on top of patched (prepare-tree.sh keeps such a commit), so
# that base stays as it was (its kernels are neither built nor booted
# again) and the patched kernels must be; the patched branch comes back
# after the measurement.  Measured for ARCHES and, when those are more,
# for the 64-bit arches the first target was set for.
orig=$(git -C "$TREE" rev-parse patched)
trap 'git -C "$TREE" update-ref refs/heads/patched "$orig"; "$S/checkout-variant.sh" patched >/dev/null 2>&1 || true' EXIT
# warm NAME ARCHES: WARM_RUNS times one edit, then the gate on ARCHES,
# timed as NAME_<run>; NAME is their median.
warm() {
	local i
	for i in $(seq "$WARM_RUNS"); do
		warm_once "${1}_$i" "$2"
	done
	median "$1"
}
warm_once() {
	local edit
	edit=$(
		cd "$TREE"
		idx=$TREE/.git/clone3-bench-index
		GIT_INDEX_FILE=$idx git read-tree patched
		blob=$( { git show patched:kernel/fork.c; echo "/* bench $1 $(date +%s.%N) */"; } | git hash-object -w --stdin)
		GIT_INDEX_FILE=$idx git update-index --cacheinfo "100644,$blob,kernel/fork.c"
		tree=$(GIT_INDEX_FILE=$idx git write-tree)
		rm -f "$idx"
		echo "bench: an edit of kernel/fork.c" | git commit-tree "$tree" -p patched
	)
	git -C "$TREE" update-ref refs/heads/patched "$edit"
	ARCHES=$2 timed "$1" "$S/gate.sh"
}
if [ "$guests" = 0 ]; then
	warm gate_warm "$ARCHES"
	[ "$(echo $ARCHES)" = "$WARM64" ] || [ "$(echo $ARCHES | wc -w)" -le 3 ] ||
		warm gate_warm64 "$WARM64"
fi
git -C "$TREE" update-ref refs/heads/patched "$orig"
"$S/checkout-variant.sh" patched >/dev/null
trap - EXIT

# Boot to verdict: QEMU start to the report, patched kernel, per arch,
# booted with the command line of the gate (guest_args).
for a in $ARCHES; do
	img=$("$S/build-kernel.sh" "$a" "$TREE" "$(kbuild_dir "$a" patched)")
	times=()
	words=$(guest_args "$a")
	for _ in $(seq "$BOOTS"); do
		t0=$(date +%s.%N)
		# shellcheck disable=SC2086 # words by design
		"$S/boot.sh" "$a" "$img" "$(initramfs_path "$a")" "$WORK/boot-bench-$a.log" \
			$words >>"$LOG" 2>&1
		(
			load_arch "$a"
			"$PYTHON3" "$S/ktap-report.py" --log "$WORK/boot-bench-$a.log" --variant bench \
				--arch "$a" --tree "$TREE_NAME" --out-dir "$WORK/bench-boots" \
				${COMPAT_ABI:+--compat "$COMPAT_ABI"} >>"$LOG"
		)
		t1=$(date +%s.%N)
		times+=("$(echo "$t1 - $t0" | bc)")
	done
	W[boot_$a]=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((BOOTS + 1) / 2))p")
	grep -q '"status": "pass"' "$WORK/bench-boots/$a.json" ||
		die "bench: the patched $a guest did not pass (see $WORK/bench-boots/$a.json)"
	printf 'bench: boot to verdict %s: %.1f s (median of %d)\n' "$a" "${W[boot_$a]}" "$BOOTS"
done

if [ "$guests" = 0 ]; then
	# Mutants: the first one pays for the switch from patched and is run on
	# its own; the next BENCH_MUTANTS are what each further mutant costs.
	mapfile -t all < <(find patches/mutants -maxdepth 1 -name '*.patch' | sort)
	for d in first further; do
		rm -rf "$WORK/bench-mutants-$d"
		mkdir -p "$WORK/bench-mutants-$d"
	done
	cp "${all[0]}" "$WORK/bench-mutants-first/"
	cp "${all[@]:1:$BENCH_MUTANTS}" "$WORK/bench-mutants-further/"
	n_arches=$(echo $ARCHES | wc -w)
	# Each mutant is measured as a new one: an earlier bench (or make
	# mutants) may have kept its kernels, boots and fork.c object, which
	# would make the figure that of a rerun.  The kept images of the patched
	# builds are dropped (a cache: the next gate relinks), and the mutants
	# run with REBOOT=1 and ccache off.
	for a in $ARCHES; do
		rm -rf "$(kbuild_dir "$a" patched)/.clone3-images"
	done
	run_mutants() {
		MUTANTS_DIR=$1 REBOOT=1 CCACHE_DISABLE=1 "$S/mutants.sh" || [ $? = 1 ]
	}
	timed mutant_first run_mutants "$WORK/bench-mutants-first"
	timed mutants_further run_mutants "$WORK/bench-mutants-further"
	W[mutant]=$(echo "scale=1; ${W[mutants_further]} / $BENCH_MUTANTS / $n_arches" | bc)
	C[mutant]=$(echo "scale=1; ${C[mutants_further]} / $BENCH_MUTANTS / $n_arches" | bc)

	"$S/spawn-bench.sh" >>"$LOG" 2>&1 || echo "bench: spawn bench failed (log: $LOG)"
fi

# The spawner's benchmark inside each guest (patched kernel): init runs
# only that program; its markdown table is read back from the console.
# A guest whose clock moves in steps coarser than a spawn (the spawner
# says so) is booted once more: an x86 guest under TCG falls back to
# jiffies (4 ms) when its TSC calibration against the PIT fails, which
# it does now and then on a busy host.
# The clock's step in a spawn bench's console log, in ns, when coarse
# here: over 50 us, a twentieth of a spawn in a guest under TCG.  (The
# spawner warns from 1 us on, where it takes the mean of a round instead
# of the median; armv7's arch timer reads in steps of some 1.4 us under
# TCG, fine for spawns of a millisecond.)
coarse_clock() {
	local ns
	ns=$(sed -n 's/.* clock_ns=\([0-9]*\).*/\1/p' "$1" | head -1)
	[ -n "$ns" ] && [ "$ns" -gt 50000 ] && echo "$ns"
}
for a in $ARCHES; do
	echo "bench: spawn bench in the $a guest ..."
	img=$("$S/build-kernel.sh" "$a" "$TREE" "$(kbuild_dir "$a" patched)")
	for try in 1 2; do
		BOOT_TIMEOUT=300 BOOT_SILENCE=120 "$S/boot.sh" "$a" "$img" \
			"$(initramfs_path "$a")" "$WORK/spawn-bench-$a.log" \
			CLONE3_GATE_RUN=clone3_spawn_bench CLONE3_BENCH_SPAWNS=${BENCH_SPAWNS:-20} \
			CLONE3_BENCH_ROUNDS=${BENCH_ROUNDS:-3} >>"$LOG" 2>&1 ||
			echo "bench: the $a spawn bench did not finish (log: $WORK/spawn-bench-$a.log)"
		step=$(coarse_clock "$WORK/spawn-bench-$a.log") || break
		echo "bench: the $a guest's clock moved in steps of $step ns (boot $try of 2)"
	done
	sed -n 's/^    \(|.*|\)\r\{0,1\}$/\1/p' "$WORK/spawn-bench-$a.log" >"$WORK/spawn-bench-$a.md"
done

# glibc's posix_spawn() in each guest, on patched and on base: the
# guest's glibc (GLIBC_SUITE's) and Debian 12's 2.36, statically linked
# into glibc_spawn_target, with 0, 8 and 64 handlers installed; each row
# the microseconds per spawn, the path glibc took and the child's
# sigaction calls before exec (consumers/glibc/glibc_spawn.c).
for a in $ARCHES; do
	: >"$WORK/glibc-bench-$a.md"
	for v in patched base; do
		echo "bench: glibc's posix_spawn in the $a guest, $v kernel ..."
		# the gate's own choice of source and build for the variant
		{ read -r src; read -r build; read -r _; } < <("$S/variant-build.sh" "$v")
		img=$("$S/build-kernel.sh" "$a" "$src" "$(kbuild_dir "$a" "$build")")
		BOOT_TIMEOUT=300 BOOT_SILENCE=120 "$S/boot.sh" "$a" "$img" \
			"$(initramfs_path "$a")" "$WORK/glibc-bench-$a-$v.log" \
			CLONE3_GATE_RUN=glibc_spawn CLONE3_GLIBC_BENCH=${BENCH_GLIBC_SPAWNS:-20} >>"$LOG" 2>&1 ||
			echo "bench: the $a glibc bench on $v did not finish (log: $WORK/glibc-bench-$a-$v.log)"
		sed -n 's/^    \(| [0-9].*|\)\r\{0,1\}$/\1/p' "$WORK/glibc-bench-$a-$v.log" |
			sed "s/^/| $v /" >>"$WORK/glibc-bench-$a.md"
	done
done
"$S/checkout-variant.sh" patched >/dev/null

# The targets, as ratios to kunit.py's figure of the same run (DESIGN.md).
n=$(echo $ARCHES | wc -w)
cold_target=1.5
[ "$n" -le 3 ] || cold_target=2.5
# cell NAME: "W s (C s CPU)", and each run of a median
cell() {
	printf '%.0f s (%.0f s CPU)' "${W[$1]}" "${C[$1]}"
	[ -z "${RUNS[$1]:-}" ] || printf ', median of %s s' "${RUNS[$1]}"
}
# row FIGURE OURS KUNIT RATIO TARGET
row() {
	printf '| %s | %s | %s | %s | %s |\n' "$@"
}
# verdict FIGURE TARGET: "met" when FIGURE <= TARGET, else "not met"
verdict() {
	[ "$(echo "$1 <= $2" | bc)" = 1 ] && echo met || echo "not met"
}
{
	echo "| figure | ours: wall (CPU) | kunit.py run --arch=x86_64 | ratio | target |"
	echo "|---|---|---|---|---|"
	if [ "$guests" = 1 ]; then
		:
	elif [ "$BENCH_COLD" = 1 ]; then
		row "tree preparation (unpack, import, base, patched)" "$(cell tree)" "" "" \
			"60 s: $(verdict "${W[tree]}" 60)"
		if [ -n "${W[gate_cold64]:-}" ]; then
			r=$(ratio "${W[gate_cold64]}" "${W[kunit_cold]}")
			row "cold gate, $WARM64, base + patched" "$(cell gate_cold64)" \
				"$(cell kunit_cold) cold" "$r" "1.5x: $(verdict "$r" 1.5)"
			row "the same, then the gate on $n arches (builds the rest)" "$(cell gate_cold_rest)" "" "" ""
		fi
		r=$(ratio "${W[gate_cold]}" "${W[kunit_cold]}")
		row "cold gate, $n arches, base + patched" "$(cell gate_cold)" "$(cell kunit_cold) cold" \
			"$r" "${cold_target}x: $(verdict "$r" "$cold_target")"
	else
		row "cold gate, $n arches" "not measured (BENCH_COLD=0)" "$(cell kunit_cold) cold" "" ""
	fi
	[ "$guests" = 1 ] || r=$(ratio "${W[gate_warm]}" "${W[kunit_warm]}")
	[ "$guests" = 1 ] || row "warm gate after an edit of patched kernel/fork.c, $n arches" "$(cell gate_warm)" \
		"$(cell kunit_warm) warm" "$r" "1.2x: $(verdict "$r" 1.2)"
	if [ -n "${W[gate_warm64]:-}" ]; then
		r=$(ratio "${W[gate_warm64]}" "${W[kunit_warm]}")
		row "warm gate after an edit of patched kernel/fork.c, $WARM64" "$(cell gate_warm64)" \
			"$(cell kunit_warm) warm" "$r" "1.2x: $(verdict "$r" 1.2)"
	fi
	for a in $ARCHES; do
		row "boot to verdict, $a (TCG)" "$(printf '%.1f s' "${W[boot_$a]}")" "" "" \
			"3 s: $(verdict "${W[boot_$a]}" 3)"
	done
	if [ "$guests" = 0 ]; then
		r=$(ratio "${W[mutant]}" "${W[kunit_warm]}")
		row "each mutant after the first, per arch" "${W[mutant]} s (${C[mutant]} s CPU)" \
			"$(cell kunit_warm) warm" "$r" "0.4x: $(verdict "$r" 0.4)"
	fi
	echo
	echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores, $(uname -r) host, tree $TREE_NAME, ACCEL=$ACCEL."
	if [ "$guests" = 0 ] && [ -f "$RESULTS/spawn-bench-host.md" ]; then
		echo
		echo "Spawn bench on the host (its runs one by one: $(basename "$RESULTS")/spawn-bench-host.md):"
		sed -e '1d' -e '/^## Each run/,$d' "$RESULTS/spawn-bench-host.md"
	fi
	for a in $ARCHES; do
		[ -s "$WORK/spawn-bench-$a.md" ] || continue
		echo
		echo "Spawn bench in the $a guest (patched kernel, TCG):"
		echo
		if step=$(coarse_clock "$WORK/spawn-bench-$a.log"); then
			echo "Its clock moved in steps of $step ns, coarser than a spawn: each figure is the mean of a round's spawns, rough, and a ratio near 1 says nothing."
			echo
		fi
		cat "$WORK/spawn-bench-$a.md"
	done
	for a in $ARCHES; do
		[ -s "$WORK/glibc-bench-$a.md" ] || continue
		echo
		echo "glibc's posix_spawn() in the $a guest (TCG; us per spawn and waitpid, the median of 3 rounds of ${BENCH_GLIBC_SPAWNS:-20}):"
		echo
		echo "| kernel | glibc | handlers | us per spawn | path | child's sigaction calls |"
		echo "|---|---|---|---|---|---|"
		cat "$WORK/glibc-bench-$a.md"
	done
} >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
cat "$OUT"
