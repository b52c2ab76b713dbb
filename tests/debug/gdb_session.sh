#!/bin/sh
# gdb_session.sh GDB TARGET SCRIPT: runs TARGET (kernel_for_gdb.c) under gdb in batch
# mode with SCRIPT (kernel_session.gdb) and checks that gdb stopped in the JIT-compiled
# kernel: a breakpoint by kernel name, `next` over `int twice = x * 2;`, `print twice`
# = 42, the frame at program.cl:3, the kernel in the backtrace, its source listed; then
# in a kernel with a barrier (a fiber per work-item in debug builds), a conditional
# breakpoint on one work-item and its variables after the barrier.
# Exit 77 (skipped) when gdb is missing or cannot trace processes here.
gdb=$1 target=$2 script=$3
if [ -z "$gdb" ] || ! command -v "$gdb" >/dev/null 2>&1; then
  echo "gdb not found: skipped (scripts/install-deps.sh installs it)"
  exit 77
fi
output=$("$gdb" -nx -batch -x "$script" --args "$target" 2>&1)
status=$?
printf '%s\n' "$output"
if printf '%s\n' "$output" | grep -q "ptrace: Operation not permitted\|Could not trace the inferior"; then
  echo "gdb cannot trace processes on this machine: skipped"
  exit 77
fi
failed=0
check() {  # check WHAT REGEX: one line of gdb's output matches REGEX
  if printf '%s\n' "$output" | grep -Eq "$2"; then
    echo "ok: $1"
  else
    echo "FAILED: $1 (no line matches: $2)"
    failed=1
  fi
}
check "stopped at the kernel's breakpoint" '(^Thread .* hit |^)Breakpoint 1(\.[0-9]+)?, twice_kernel \(.*\) at .*program\.cl:2'
check "print twice after next" '^\$1 = 42$'
check "print x (an argument)" '^\$2 = 21$'
check "info line names program.cl:3" '^Line 3 of ".*program\.cl"'
check "frame at program.cl:3" '^#0  twice_kernel \(.*\) at .*program\.cl:3'
check "backtrace: the kernel, inlined into its launcher" '^#1  .*kiln_launcher_0'
check "source listed" '^3[[:space:]]+out\[0\] = twice \+ 1;'
check "barrier kernel: stopped where gid == 2" '(^Thread .* hit |^)Breakpoint 2(\.[0-9]+)?, group_sum \(.*\) at .*program\.cl:10'
check "barrier kernel: print sum after next" '^\$3 = 90$'
check "barrier kernel: print gid" '^\$4 = 2$'
check "barrier kernel: a fiber's frames" '^#1  .*kiln_launcher_[0-9]+\.fiber_item'
check "the program ran to its end" 'kernel results: 43 90 90 90 90'
[ $status -eq 0 ] || { echo "FAILED: gdb exited with $status"; failed=1; }
exit $failed
