#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The CI files, run by the engines' own tools on this machine:
#  (a) .gitlab-ci.yml under gitlab-ci-local (shell executor) on two gate
#      shards of the default tree (6.1) and the report job: each shard's
#      artifact holds its results and meta.json, the merge passes, its
#      table is the table of one run over the same rows, its JUnit holds
#      both shards;
#  (b) the same pipeline with one shard failing (its guest panics:
#      BOOT_ARGS=CLONE3_GATE_FAULT=exit): red at the report job;
#  (c) .github/workflows/gate.yml checked by action-validator;
# and the exit codes CI acts on: the scripts keep 0/1/2, make makes every
# failure 2.
#
# The shards reuse the kernels of build/<default tree> (WORK), so each is
# a warm run: run it after the gate built CI_ENGINE_ARCHES (default x86_64
# armv7) on that tree.  The jobs run in this work tree, as on a GitLab
# shell runner, not in copies (--shell-isolation): the kernel build's CC
# names the checkout's path, and a copy would rebuild every object.  The
# tree's results directory is put back as it was afterwards, and shards/
# (the jobs' output) is removed.  The tools are installed with npm into build/ci-tools (never
# committed), or CLONE3_CI_TOOLS.  The shards get CLONE3_IMAGE_CACHE.
#
# usage: tests/test-ci-engines.sh
set -eu
cd "$(dirname "$0")/.."
. tests/lib.sh
[ $# -eq 0 ] || { echo "usage: tests/test-ci-engines.sh" >&2; exit 2; }
ROOT=$PWD
T0=$(date +%s)
ARCH_LIST=${CI_ENGINE_ARCHES:-x86_64 armv7}
# The shards are of the default tree, as make gate's are.
TREE=$(scripts/matrix.py default-tree)
read -r A1 A2 <<<"$ARCH_LIST"
[ -n "${A2:-}" ] || { echo "usage: CI_ENGINE_ARCHES needs two arches" >&2; exit 2; }
for a in $A1 $A2; do
	[ -f "$(results_dir patched)/$a.json" ] ||
		{ echo "usage: run the $TREE gate of $a first (make gate ARCHES=$a)" >&2; exit 2; }
done

# CLONE3_CI_TOOLS: where the tools are kept instead (a CI cache).
TOOLS=${CLONE3_CI_TOOLS:-$ROOT/build/ci-tools}
mkdir -p "$TOOLS" 2>/dev/null && [ -w "$TOOLS" ] ||
	{ echo "usage: CLONE3_CI_TOOLS=$TOOLS is not a directory we can write" >&2; exit 2; }
GCL=$TOOLS/node_modules/.bin/gitlab-ci-local
AV=$TOOLS/node_modules/.bin/action-validator
if [ ! -x "$GCL" ] || [ "$("$GCL" --version 2>/dev/null)" != 4.56.2 ] || [ ! -x "$AV" ]; then
	need_cmd npm npm
	echo "  installing gitlab-ci-local 4.56.2 and @action-validator/cli into $TOOLS"
	npm install --silent --no-fund --no-audit --prefix "$TOOLS" \
		gitlab-ci-local@4.56.2 @action-validator/cli >/dev/null
fi

[ ! -e shards ] || { echo "usage: $ROOT/shards exists; the pipeline's jobs write there" >&2; exit 2; }
T=$(mktemp -d)
STATE=build/ci-tools/state
SAVED=$T/results.saved
[ ! -d "$RESULTS" ] || cp -a "$RESULTS" "$SAVED"
put_back() {
	rm -rf shards "$RESULTS"
	[ ! -d "$SAVED" ] || mv "$SAVED" "$RESULTS"
	rm -rf "$T"
}
trap put_back EXIT
git status --porcelain --untracked-files=all | grep "^??" >"$T/status.before" || true

# The pipeline as the shell executor runs it: the same file without its
# one "image: debian:12" line (this machine is Debian 12; a job with an
# image needs Docker).
mkdir -p build/ci-tools
PIPE=build/ci-tools/gitlab-ci.shell.yml
n=$(grep -c '^image: debian:12$' .gitlab-ci.yml || true)
sed '/^image: debian:12$/d' .gitlab-ci.yml >"$PIPE"
[ "$n" = 1 ] && [ "$(diff .gitlab-ci.yml "$PIPE" | grep -c '^[<>]')" = 1 ] &&
	pass "gitlab: the shell executor's pipeline is .gitlab-ci.yml without its image line" ||
	fail "gitlab: the shell executor's pipeline is .gitlab-ci.yml without its image line" "$n image lines"

gcl() {
	"$GCL" --state-dir "$STATE" --file "$PIPE" --shell-executor-no-image --no-artifacts-to-source --no-color \
		--concurrency 1 --variable "WORK=$WORK" \
		${CLONE3_IMAGE_CACHE:+--variable "CLONE3_IMAGE_CACHE=$CLONE3_IMAGE_CACHE"} \
		--variable "EXPECT=$TREE:$A1 $TREE:$A2" --variable EXPECT_MUTANTS= "$@"
}
# gcl_expect NAME WANTED_STATUS [--after JOB] GCL_ARG...: expect for a
# pipeline (after running JOB alone first, when given), run again once
# when a commit landed on this shared branch meanwhile: its shards would
# be of two project commits, which the report rightly refuses, while a CI
# pipeline has one commit.
gcl_expect() {
	local name=$1 want=$2 pre='' head i
	shift 2
	if [ "$1" = --after ]; then
		pre=$2
		shift 2
	fi
	for i in 1 2; do
		head=$(git rev-parse HEAD)
		[ -z "$pre" ] || gcl "$pre" >/dev/null 2>&1 || true
		set +e
		OUT=$(gcl "$@" 2>&1)
		RC=$?
		set -e
		[ "$(git rev-parse HEAD)" != "$head" ] || break
		echo "  a commit landed during the pipeline; running it again"
	done
	[ "$RC" = "$want" ] && pass "$name" ||
		fail "$name" "exit $RC, wanted $want; output: $(echo "$OUT" | tail -3 | tr '\n' ' ')"
}
J1="gate: [$TREE,$A1]"
J2="gate: [$TREE,$A2]"
rows="$(arch_rows "$A1" | tr '\n' ' ')$(arch_rows "$A2" | tr '\n' ' ')"
ncells=$((2 * $(echo $rows | wc -w)))
ART=$STATE/artifacts/report/build/report

# (a) two shards and the report.
rm -rf "$STATE"
t0=$(date +%s)
gcl_expect "gitlab: shards $A1 and $A2 and the report pass" 0 "$J1" "$J2" report
echo "$OUT" >"$T/pipeline-a.log"
t1=$(date +%s)
echo "  pipeline (a): $((t1 - t0)) s"
grep -E '(gate|report).*(finished in|PASS|FAIL)|> gate: builds and boots done' "$T/pipeline-a.log" | sed 's/^/  | /' || true
expect_output "gitlab: the report's verdict" "^report +> $ncells passed, 0 failed$"
for j in "$J1" "$J2"; do
	a=${j#*,}
	a=${a%]}
	m=$(find "$STATE/artifacts" -path "*/shards/gate-$TREE-$a/meta.json" | head -1)
	[ -n "$m" ] && "$PYTHON3" -c 'import json,sys; m=json.load(open(sys.argv[1])); sys.exit(not (m["tree"] == sys.argv[2] and len(m["results"]) == 2 * len(m["rows"]) and not any(v.startswith("/") for v in m["results"])))' "$m" "$TREE" &&
		pass "gitlab: shard $a's artifact holds its meta.json and results" ||
		fail "gitlab: shard $a's artifact holds its meta.json and results" "${m:-no meta.json in the artifacts}"
done
if [ -f "$ART/junit.xml" ]; then
	# base's flag tests fail there by design: patched must have none
	"$PYTHON3" - "$ART/junit.xml" "$TREE" "$A1" "$A2" >"$T/junit.txt" <<'EOF' && pass "gitlab: merged JUnit holds both shards, patched without failure" ||
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = root.findall('testsuite')
names = [s.get('name') for s in suites]
bad = sum(int(s.get('failures')) + int(s.get('errors')) for s in suites
          if s.get('name').startswith(sys.argv[2] + ' patched '))
print('%s tests, %s failures (base), %d testsuites; patched failures: %d'
      % (root.get('tests'), root.get('failures'), len(names), bad))
ok = bad == 0 and all(any(n.startswith('%s %s %s.' % (sys.argv[2], v, a))
                          for n in names)
                      for v in ('base', 'patched') for a in sys.argv[3:])
sys.exit(0 if ok else 1)
EOF
		fail "gitlab: merged JUnit holds both shards, patched without failure" "$(cat "$T/junit.txt")"
	echo "  merged JUnit: $(cat "$T/junit.txt")"
else
	fail "gitlab: merged JUnit holds both shards, patched without failure" "no $ART/junit.xml"
fi
# The same rows as one run: the results the shards left in WORK.
cp -a "$RESULTS" "$T/one"
"$PYTHON3" scripts/summarize.py --results "$T/one" --mode gate --tree "$TREE" --rows "$rows" >"$T/one.txt" 2>&1 || true
if [ -f "$ART/summary.md" ] && diff <(grep '^|' "$T/one.txt") <(grep '^|' "$ART/summary.md") >/dev/null &&
	[ "$(tail -1 "$T/one.txt")" = "$(tail -1 "$ART/summary.md")" ]; then
	pass "gitlab: the merged table and verdict are those of one run over the same rows"
else
	fail "gitlab: the merged table and verdict are those of one run over the same rows" \
		"$(diff <(grep '^|' "$T/one.txt") <(grep '^|' "$ART/summary.md" 2>/dev/null) | head -3 | tr '\n' ' ')"
fi
"$PYTHON3" -c 'import sys,xml.etree.ElementTree as ET
a, b = (ET.parse(f).getroot() for f in sys.argv[1:])
key = lambda r: (r.get("tests"), r.get("failures"), r.get("errors"), [s.get("name") for s in r.findall("testsuite")])
sys.exit(key(a) != key(b))' "$T/one/junit.xml" "$ART/junit.xml" 2>/dev/null &&
	pass "gitlab: the merged JUnit is that of one run over the same rows" ||
	fail "gitlab: the merged JUnit is that of one run over the same rows" "testsuites or counts differ"

# (b) the second shard's guest panics: the shard fails, the report too.
t0=$(date +%s)
gcl_expect "gitlab: a failing shard makes the pipeline red" 1 --after "$J1" \
	--variable BOOT_ARGS=CLONE3_GATE_FAULT=exit "$J2" report
echo "$OUT" >"$T/pipeline-b.log"
echo "  pipeline (b): $(($(date +%s) - t0)) s"
grep -E '(gate|report).*(finished in|PASS|FAIL)' "$T/pipeline-b.log" | sed 's/^/  | /' || true
expect_output "gitlab: the shard exits 1 (gate.sh's code kept)" "gate: \[$TREE,$A2\] +finished in .* FAIL 1"
expect_output "gitlab: the report exits 1" "report +finished in .* FAIL 1"
expect_output "gitlab: the report names the panic" "UNEXPECTED: .*panic"
expect_output "gitlab: the other shard still holds" "^report +> \| base \| as expected"
"$PYTHON3" -c 'import sys,xml.etree.ElementTree as ET; r=ET.parse(sys.argv[1]).getroot(); sys.exit(int(r.get("errors")) + int(r.get("failures")) == 0)' "$ART/junit.xml" 2>/dev/null &&
	pass "gitlab: the merged JUnit reports the failure" ||
	fail "gitlab: the merged JUnit reports the failure" "no failure or error in $ART/junit.xml"
# a shard that never ran (bad setting: exit 2, no artifact) is missing
gcl_expect "gitlab: a shard that stopped early leaves the pipeline red" 1 --variable JOBS=0 "$J2" report
expect_output "gitlab: ... its rows are missing from the report" "no shard has a result for base/$A2"

# (c) the GitHub workflow.
expect "github: gate.yml is a valid workflow (action-validator)" 0 "$AV" .github/workflows/gate.yml
sed 's/^    runs-on:/    runs_on:/' .github/workflows/gate.yml >"$T/broken.yml"
expect "github: action-validator refuses a broken copy" 1 "$AV" "$T/broken.yml"

# Exit codes: the scripts keep 0/1/2 (0 and 1 above); make gives 2.
expect "exit: gate.sh with a bad ARCHES exits 2" 2 env ARCHES=sparc scripts/gate.sh
s1=$(dirname "$(find "$STATE/artifacts" -path "*/shards/gate-$TREE-$A1/meta.json" | head -1)")
cp -a "$s1" "$T/foreign"
sed -i 's/"project": "[^"]*"/"project": "0123abc"/' "$T/foreign/meta.json"
expect "exit: report.sh refuses a shard of another project commit: exit 2" 2 \
	env EXPECT="$TREE:$A1" OUT="$T/r" scripts/report.sh "$s1" "$T/foreign"
expect_output "exit: ... in one line" "^error: refusing to merge: shards of different project commits"
mkdir -p "$T/mut"
printf 'Subject: [PATCH] no such file\n\n---\n--- a/nope.c\n+++ b/nope.c\n@@ -1 +1 @@\n-a\n+b\n' >"$T/mut/nope.patch"
expect "exit: mutants.sh with a mutant not killed (it does not apply) exits 1" 1 \
	env MUTANTS_DIR="$T/mut" ARCHES="$A1" scripts/mutants.sh
expect "exit: make mutants with the same exits 2" 2 make -s mutants MUTANTS_DIR="$T/mut" ARCHES="$A1"
expect "exit: make report of a failing merge exits 2, report.sh 1" 2 make -s report RESULTS="$T/mut"
expect "exit: ... report.sh itself exits 1" 1 env EXPECT="$TREE:$A1" OUT="$T/r" scripts/report.sh "$T/mut"
rm -rf shards
git status --porcelain --untracked-files=all | grep "^??" >"$T/status.after" || true
diff "$T/status.before" "$T/status.after" >/dev/null &&
	pass "the engines left no file outside build/" ||
	fail "the engines left no file outside build/" "$(diff "$T/status.before" "$T/status.after" | head -3 | tr '\n' ' ')"
echo "  ci-engines: $(($(date +%s) - T0)) s in all"
[ $T_FAILED = 0 ] && echo "ci-engines: all checks passed" || echo "ci-engines: some checks failed"
exit $T_FAILED
