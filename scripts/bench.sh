#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: the gate's figures beside the tree's own KUnit runner
# (tools/testing/kunit/kunit.py run --arch=x86_64) measured in the same
# session on the same tree, as ratios.  Works in its own directory
# (BENCH_WORK, default build/bench) so the user's build/ stays warm.
#   kunit.py cold, and warm after touching kernel/fork.c
#   gate cold (ARCHES, base + patched) and warm after touching fork.c
#   boot to verdict per arch (patched kernel, median of BOOTS boots)
#   mutant cost per arch after the first (first BENCH_MUTANTS mutants)
#   the spawner's benchmark on the host and in each guest
# BENCH_COLD=0 skips the cold gate and works in WORK (default build) on
# the warm build instead; that row then says it was not measured.
# Writes build/results/bench.md.
#
# usage: bench.sh
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || die "usage: make bench [ARCHES=...]"
ROOT=$(repo_root)
S=$ROOT/scripts
cd "$ROOT"
BENCH_COLD=${BENCH_COLD:-1}
case $BENCH_COLD in 0) BW=${WORK:-build} ;; 1) BW=${BENCH_WORK:-build/bench} ;;
*) die "BENCH_COLD=$BENCH_COLD: use 0 or 1" ;; esac
case $BW in /*) ;; *) BW=$ROOT/$BW ;; esac
ARCHES=${ARCHES:-x86_64 arm64 riscv64}
BOOTS=${BOOTS:-3}
BENCH_MUTANTS=${BENCH_MUTANTS:-3}
OUT=$ROOT/build/results/bench.md
LOG=$BW/bench.log
export WORK=$BW ARCHES

need_packages qemu-system-x86 python3 flex bison bc libelf-dev libssl-dev
mkdir -p "$BW" "$(dirname "$OUT")"
: >"$LOG"

# timed NAME COMMAND...: run COMMAND (output to the bench log), print
# and remember its wall time in seconds.
declare -A T
timed() {
	local name=$1 t0 t1
	shift
	echo "bench: $name ..."
	t0=$(date +%s.%N)
	if ! "$@" >>"$LOG" 2>&1; then
		tail -n 5 "$LOG" | sed 's/^/    /'
		die "bench: '$name' failed (log: $LOG)"
	fi
	t1=$(date +%s.%N)
	T[$name]=$(echo "$t1 - $t0" | bc)
	printf 'bench: %s: %.1f s\n' "$name" "${T[$name]}"
}

ratio() {
	echo "scale=2; $1 / $2" | bc
}

"$S/prepare-tree.sh" "$BW" "${KSRC:-}" >>"$LOG" 2>&1
"$S/checkout-variant.sh" patched >/dev/null
KUNIT="python3 $BW/linux/tools/testing/kunit/kunit.py run --arch=x86_64 --build_dir=$BW/kunit --jobs=$(nproc)"

rm -rf "$BW/kunit"
timed kunit_cold $KUNIT
touch "$BW/linux/kernel/fork.c"
timed kunit_warm $KUNIT

if [ "$BENCH_COLD" = 1 ]; then
	rm -rf "$BW/kbuild" "$BW/suite" "$BW/initramfs" "$BW/results"
	timed gate_cold "$S/gate.sh"
else
	"$S/gate.sh" >>"$LOG" 2>&1 || die "bench: the warm-up gate failed (log: $LOG)"
fi
# linux-base/ exists only when the base cannot be built in linux/ (see
# base_build_commit in lib.sh).
for f in "$BW/linux/kernel/fork.c" "$BW/linux-base/kernel/fork.c"; do
	[ ! -f "$f" ] || touch "$f"
done
timed gate_warm "$S/gate.sh"

# Boot to verdict: QEMU start to the report, patched kernel, per arch.
for a in $ARCHES; do
	. "qemu-images/$a/qemu.conf"
	img=$BW/kbuild/$a/patched/$IMAGE
	times=()
	for i in $(seq "$BOOTS"); do
		t0=$(date +%s.%N)
		"$S/boot.sh" "$a" "$img" "$BW/initramfs/$a.cpio" "$BW/boot-bench-$a.log" \
			CLONE3_REQUIRE_CLEAR_SIGHAND=1 >>"$LOG" 2>&1
		python3 "$S/ktap-report.py" --log "$BW/boot-bench-$a.log" --variant bench \
			--arch "$a" --out-dir "$BW/results/bench" >>"$LOG"
		t1=$(date +%s.%N)
		times+=("$(echo "$t1 - $t0" | bc)")
	done
	T[boot_$a]=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((BOOTS + 1) / 2))p")
	grep -q '"status": "pass"' "$BW/results/bench/$a.json" ||
		die "bench: the patched $a guest did not pass (see $BW/results/bench/$a.json)"
	printf 'bench: boot to verdict %s: %.1f s (median of %d)\n' "$a" "${T[boot_$a]}" "$BOOTS"
done

# Mutants: the first one pays for the switch from patched, the rest are
# what each further mutant costs.
md=$BW/bench-mutants
rm -rf "$md"
mkdir -p "$md"
for p in $(ls patches/mutants/*.patch | head -n "$BENCH_MUTANTS"); do
	cp "$p" "$md/"
done
MUTANTS_DIR=$md "$S/mutants.sh" >"$BW/mutants.log" 2>&1 || true
n_arches=$(echo $ARCHES | wc -w)
after_first=$(grep -E '^mutant-.*: [0-9]+ s for' "$BW/mutants.log" | tail -n +2 |
	awk -v n="$n_arches" '{ s += $(NF-4); k++ } END { if (k) printf "%.1f", s / k / n; else print "n/a" }')
T[mutant]=$after_first

"$S/spawn-bench.sh" >>"$LOG" 2>&1 || echo "bench: spawn bench failed (log: $LOG)"

# The spawner's benchmark inside each guest (patched kernel): init runs
# only that program; its markdown table is read back from the console.
for a in $ARCHES; do
	. "qemu-images/$a/qemu.conf"
	echo "bench: spawn bench in the $a guest ..."
	BOOT_TIMEOUT=300 "$S/boot.sh" "$a" "$BW/kbuild/$a/patched/$IMAGE" \
		"$BW/initramfs/$a.cpio" "$BW/spawn-bench-$a.log" \
		CLONE3_GATE_RUN=clone3_spawn_bench CLONE3_BENCH_SPAWNS=${BENCH_SPAWNS:-20} \
		CLONE3_BENCH_ROUNDS=${BENCH_ROUNDS:-3} >>"$LOG" 2>&1 ||
		echo "bench: the $a spawn bench did not finish (log: $BW/spawn-bench-$a.log)"
	sed -n 's/^    \(|.*|\)\r\{0,1\}$/\1/p' "$BW/spawn-bench-$a.log" >"$BW/spawn-bench-$a.md"
done

# DESIGN.md sets each target beside kunit.py's time on the reference
# machine (178 s cold, 17 s warm): the ratio target / kunit.py is what
# holds on any machine, so both the target and that ratio are shown.
KUNIT_REF_COLD=178
KUNIT_REF_WARM=17
# row FIGURE OURS KUNIT_CELL RATIO TARGET_S KUNIT_REF
row() {
	local target_ratio=""
	[ -z "$6" ] || target_ratio="<= $(ratio "$5" "$6")"
	printf '| %s | %s | %s | %s | <= %s s | %s |\n' "$1" "$2" "$3" "$4" "$5" "$target_ratio"
}
{
	echo "| figure | ours | kunit.py run --arch=x86_64 | ratio (ours / kunit) | target | target ratio |"
	echo "|---|---|---|---|---|---|"
	if [ "$BENCH_COLD" = 1 ]; then
		row "cold, $ARCHES, base + patched" "$(printf '%.0f s' "${T[gate_cold]}")" \
			"$(printf '%.0f s (cold)' "${T[kunit_cold]}")" \
			"$(ratio "${T[gate_cold]}" "${T[kunit_cold]}")" 360 $KUNIT_REF_COLD
	else
		row "cold, $ARCHES, base + patched" "not measured (BENCH_COLD=0)" \
			"$(printf '%.0f s (cold)' "${T[kunit_cold]}")" "" 360 $KUNIT_REF_COLD
	fi
	row "warm after touching kernel/fork.c" "$(printf '%.0f s' "${T[gate_warm]}")" \
		"$(printf '%.0f s (warm)' "${T[kunit_warm]}")" \
		"$(ratio "${T[gate_warm]}" "${T[kunit_warm]}")" 30 $KUNIT_REF_WARM
	for a in $ARCHES; do
		row "boot to verdict, $a (TCG)" "$(printf '%.1f s' "${T[boot_$a]}")" "" "" 3 ""
	done
	row "each mutant after the first, per arch" "${T[mutant]} s" \
		"$(printf '%.0f s (warm)' "${T[kunit_warm]}")" \
		"$( [ "${T[mutant]}" = n/a ] && echo n/a || ratio "${T[mutant]}" "${T[kunit_warm]}")" \
		15 $KUNIT_REF_WARM
	echo
	echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores, $(uname -r) host, ACCEL=${ACCEL:-tcg}."
	if [ -f build/results/spawn-bench-host.md ]; then
		echo
		cat build/results/spawn-bench-host.md
	fi
	for a in $ARCHES; do
		[ -s "$BW/spawn-bench-$a.md" ] || continue
		echo
		echo "Spawn bench in the $a guest (patched kernel, TCG):"
		echo
		cat "$BW/spawn-bench-$a.md"
	done
} >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
cat "$OUT"
