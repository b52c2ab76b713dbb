#!/bin/sh
# A translator that answers the probe like llvm-spirv-15 and then dies of SIGSEGV on every
# module (test_spirv --crashing-translator): a translator that crashes must make a build
# failure with a log, nothing more.
if [ "$1" = "--help" ]; then exec llvm-spirv-15 --help; fi
kill -SEGV $$
