#!/usr/bin/env bash
# The "few heavy work-groups" scaling table of docs/performance.md: kiln_bench --only heavy
# with 1..16 workers, Kiln and PoCL alternating, medians. Runs on the 16-core device
# machine after ../shared/tools/device-bundle.sh has packed both drivers (kiln_bench in the
# Kiln bundle) and .device/unpack.sh has unpacked them to /opt/kiln and /opt/pocl:
#
#   tests/bench/heavy_scaling.sh [ROUNDS] [EXTRA]   (EXTRA more pairs at 1 and 16 workers)
#
# Writes heavy.txt and trace.txt to $OUT (or /tmp) and prints the table.
set -u
rounds=${1:-3}; extra=${2:-0}
out=${OUT:-/tmp}
bench=/opt/kiln/bin/kiln_bench
kiln() { (. /opt/kiln/env.sh; "$@"); }
pocl() { (. /opt/pocl/env.sh; "$@"); }
pair() {  # workers round
  kiln env KILN_NUM_WORKERS=$1 $bench --platform Kiln --only heavy | sed "s/^/n=$1 r=$2 /"
  pocl env POCL_MAX_PTHREAD_COUNT=$1 $bench --platform Portable --only heavy | sed "s/^/n=$1 r=$2 /"
}
{
  for n in $(seq 1 16); do for r in $(seq 1 "$rounds"); do pair "$n" "$r"; done; done
  for r in $(seq 1 "$extra"); do pair 1 "x$r"; pair 16 "x$r"; done
} > "$out/heavy.txt" 2>&1
kiln env KILN_TRACE=sched $bench --platform Kiln --only heavy 2>&1 | grep -m2 heavy > "$out/trace.txt"
python3 - "$out/heavy.txt" <<'PY'
import sys, re, statistics, collections
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r"n=(\d+) r=\S+ (\S+)\s+256 heavy groups x (\d+) work-items\s+([\d.]+) ms", line)
    if m: d[(m[2], int(m[3]), int(m[1]))].append(float(m[4]))
for local in (64, 1):
    print(f"256 groups x {local}: n  Kiln ms (x)  PoCL ms (x)  [runs]")
    for n in range(1, 17):
        k, p = statistics.median(d[("Kiln", local, n)] or [0]), statistics.median(d[("PoCL", local, n)] or [0])
        k1, p1 = statistics.median(d[("Kiln", local, 1)] or [1]), statistics.median(d[("PoCL", local, 1)] or [1])
        print(f"  {n:2d}  {k:8.2f} ({k1/k if k else 0:5.2f})  {p:8.2f} ({p1/p if p else 0:5.2f})  [{len(d[('Kiln', local, n)])}]")
PY
