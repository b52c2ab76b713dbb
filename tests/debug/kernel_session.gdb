# The gdb session of test_debug_gdb_kernel (gdb_session.sh checks its output).
set pagination off
set confirm off
set debuginfod enabled off
set disable-randomization off
set breakpoint pending on
break twice_kernel
run
next
print twice
print x
info line
frame
bt
list 1,3
continue
