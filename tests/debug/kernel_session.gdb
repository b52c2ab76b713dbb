# The gdb session of test_debug_gdb_kernel (gdb_session.sh checks its output).
set pagination off
set confirm off
set debuginfod enabled off
set disable-randomization off
set breakpoint pending on
break twice_kernel
break program.cl:10 if gid == 2
run
next
print twice
print x
info line
frame
bt
list 1,3
continue
next
print sum
print gid
bt 2
continue
