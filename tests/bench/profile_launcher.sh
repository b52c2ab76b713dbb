#!/usr/bin/env bash
# Where a kernel's time goes inside its JIT-compiled launcher, instruction by instruction:
# perf sees JIT code only as anonymous addresses, so this runs the command once under gdb
# (ASLR off), stops at the first launcher call (ndrange_executor.c's run_groups) and dumps
# that launcher's code, then records the command with perf, also with ASLR off, so the code
# sits at the same address, and prints the launcher's share of the samples and its
# disassembly around the hottest instructions (sample skid: the cost is often one
# instruction before the one charged). Needs gdb, perf, objdump, python3 and a build with
# debug info (RelWithDebInfo, the default). The command's first launch must be the kernel of
# interest (kiln_bench --only CASE); KILN_NUM_WORKERS=1 makes the samples one thread's.
#
#   OCL_ICD_VENDORS=build/vendors/kiln.icd tests/bench/profile_launcher.sh build/tests/kiln_bench --only stencil
set -eu
[ $# -ge 1 ] || { echo "usage: $0 COMMAND [ARGS...]" >&2; exit 2; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cat > "$work/dump.py" <<PY
import gdb
a = int(gdb.parse_and_eval('(unsigned long)launch->launcher'))
n = 0x10000
while n > 0:  # up to the end of the mapping that holds the code
    try:
        m = gdb.selected_inferior().read_memory(a, n); break
    except gdb.MemoryError:
        n -= 0x400
open('$work/code.bin', 'wb').write(bytes(m)); open('$work/code.addr', 'w').write(hex(a))
PY
gdb -q -batch -ex "set breakpoint pending on" -ex "break ndrange_executor.c:run_groups" -ex run \
  -ex "source $work/dump.py" -ex kill --args "$@" > "$work/gdb.log" 2>&1 || true
[ -s "$work/code.bin" ] || { echo "no launcher dumped (see gdb's output):" >&2; tail -5 "$work/gdb.log" >&2; exit 1; }
setarch -R perf record -F 20000 -q -o "$work/perf.data" "$@" > /dev/null 2>&1
perf script -i "$work/perf.data" -F ip > "$work/ips.txt" 2>/dev/null
objdump -D -b binary -mi386:x86-64 --no-show-raw-insn "$work/code.bin" > "$work/code.dis"
python3 - "$work" <<'PY'
import collections, re, sys
work = sys.argv[1]
base = int(open(work + '/code.addr').read(), 16)
size = len(open(work + '/code.bin', 'rb').read())
ips = [int(t, 16) for t in open(work + '/ips.txt').read().split()]
hist = collections.Counter(ip - base for ip in ips if base <= ip < base + size)
inside = sum(hist.values())
print(f"{len(ips)} samples, {inside} in the launcher ({100 * inside / max(len(ips), 1):.1f} %)")
lines = {}
for l in open(work + '/code.dis'):
    m = re.match(r'\s*([0-9a-f]+):\s*(.*)', l)
    if m: lines[int(m.group(1), 16)] = m.group(2)
hot = [o for o, c in hist.items() if c * 100 >= inside]  # instructions with 1 % or more
for off in sorted(lines):
    if any(abs(off - h) < 40 for h in hot):
        print(f"{100 * hist.get(off, 0) / max(inside, 1):5.1f}%  {off:6x}:  {lines[off]}")
PY
