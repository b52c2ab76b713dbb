#!/usr/bin/env bash
# Same-run comparison of two Kiln builds: runs `kiln_bench --only LIST` against the ICD
# file of build A, then of build B, RUNS times in turn (A B A B ...), and prints each
# figure's median for both. Usage:
#   tests/bench/compare_builds.sh A.icd B.icd RUNS LIST [kiln_bench]
# e.g. tests/bench/compare_builds.sh build/vendors/kiln.icd ../old/build/vendors/kiln.icd 30 latency,throughput
# Check that the machine is quiet first (uptime): on 2 cores any other job halves the figures.
set -euo pipefail
a=$1 b=$2 runs=$3 only=$4 bench=${5:-build/tests/kiln_bench}
out=$(mktemp -d)
for ((i = 0; i < runs; i++)); do
  echo "=== run" >>"$out/a"
  OCL_ICD_VENDORS=$a "$bench" --only "$only" >>"$out/a" 2>&1
  echo "=== run" >>"$out/b"
  OCL_ICD_VENDORS=$b "$bench" --only "$only" >>"$out/b" 2>&1
done
python3 - "$out/a" "$out/b" <<'PY'
import re, statistics, sys
def figures(path):
    # A label printed twice in one run (two sections measure the same thing) gets " (2)".
    rows, seen = {}, {}
    for line in open(path):
        if line.startswith("=== run"): seen = {}
        m = re.match(r'^Kiln\s+(.*?)\s{2,}([0-9.]+) (\S+)\s*$', line)
        if not m: continue
        label = m.group(1).strip()
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1: label += f" ({seen[label]})"
        rows.setdefault((label, m.group(3)), []).append(float(m.group(2)))
    return rows
a, b = figures(sys.argv[1]), figures(sys.argv[2])
print(f"{'figure':<58} {'A median':>10} {'B median':>10}  unit (runs)")
for key in a:
    if key in b:
        print(f"{key[0]:<58} {statistics.median(a[key]):>10.3f} {statistics.median(b[key]):>10.3f}  {key[1]} ({len(a[key])}/{len(b[key])})")
PY
rm -r "$out"
