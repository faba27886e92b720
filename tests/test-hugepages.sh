#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/hugepage-heap.c, the preload object of the kernel builds
# (build-kernel.sh): it builds, a program that maps and fills 8 MB gets
# huge pages under it and none without it (the host gives them on
# request only), and the program's results are the same.  Skipped where
# the host does not give huge pages on request.
#
# usage: tests/test-hugepages.sh
set -eu
cd "$(dirname "$0")/.."
. tests/lib.sh
[ $# -eq 0 ] || { echo "usage: tests/test-hugepages.sh" >&2; exit 2; }

THP=/sys/kernel/mm/transparent_hugepage/enabled
if ! grep -qsF '[madvise]' "$THP"; then
	echo "ok - hugepage-heap # SKIP $THP is not 'madvise': $(cat "$THP" 2>/dev/null || echo missing)"
	exit 0
fi
D=$(mktemp -d "${TMPDIR:-/tmp}/clone3-hugepages.XXXXXX")
trap 'rm -rf "$D"' EXIT

if build_hugepage_heap "$D/heap.so" "$D/build.log"; then
	pass "hugepage-heap.c builds"
else
	fail "hugepage-heap.c builds" "$(head -3 "$D/build.log" | tr '\n' ' ')"
	exit 1
fi
[ ! -s "$D/build.log" ] && pass "hugepage-heap.c builds without a warning" ||
	fail "hugepage-heap.c builds without a warning" "$(head -3 "$D/build.log" | tr '\n' ' ')"

# Maps 8 MB as the compiler's heap does, fills it, and prints the kB of
# huge pages in that mapping (/proc/self/smaps) and a sum of the memory.
cat >"$D/probe.c" <<'PROBE'
#include <stdio.h>
#include <sys/mman.h>

int main(void)
{
	size_t len = 8UL << 20, i;
	unsigned long lo, hi, kb = 0, sum = 0, v;
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char line[256];
	FILE *f;
	int in = 0;

	if (p == MAP_FAILED)
		return 1;
	for (i = 0; i < len; i++)
		p[i] = (unsigned char)i;
	for (i = 0; i < len; i += 4093)
		sum += p[i];
	f = fopen("/proc/self/smaps", "r");
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
			in = lo <= (unsigned long)p && (unsigned long)p < hi;
		else if (in && sscanf(line, "AnonHugePages: %lu kB", &v) == 1)
			kb += v;
	}
	printf("%lu %lu\n", kb, sum);
	return 0;
}
PROBE
gcc -O2 -o "$D/probe" "$D/probe.c"
plain=$("$D/probe")
heap=$(LD_PRELOAD="$D/heap.so" "$D/probe")
[ "${plain%% *}" = 0 ] && pass "without the preload: no huge pages" ||
	fail "without the preload: no huge pages" "${plain%% *} kB"
[ "${heap%% *}" -gt 0 ] && pass "with the preload: huge pages (${heap%% *} kB)" ||
	fail "with the preload: huge pages" "0 kB"
[ "${plain#* }" = "${heap#* }" ] && pass "the same result either way" ||
	fail "the same result either way" "${plain#* } without, ${heap#* } with"
exit $T_FAILED
