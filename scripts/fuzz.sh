#!/usr/bin/env bash
# Fuzzes every parser of untrusted bytes (tests/fuzz/): builds the libFuzzer targets with
# clang-19 under ASan+UBSan in build-fuzz/, replays each target's regression inputs
# (tests/fuzz/regressions/TARGET/, crashes found earlier), then fuzzes it for SECONDS
# (default 60) from its seed corpus (tests/fuzz/corpus/TARGET/, plus program binaries this
# build makes; SPIR-V made from tests/spirv). Prints each target's executions and coverage; exits non-zero on a finding,
# whose reproducer is left in build-fuzz/findings/TARGET/.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_program_binary fuzz_build_options fuzz_kernel_source fuzz_properties fuzz_spirv_module)

scripts/install-deps.sh
CC=clang-19 CXX=clang++-19 cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKILN_FUZZ=ON \
  -DKILN_BUILD_TESTS=OFF > /dev/null
cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]}"

# LeakSanitizer stays on (libFuzzer reports an input that leaks); see CMakeLists.txt for
# intercept_tls_get_addr.
export ASAN_OPTIONS=intercept_tls_get_addr=0 KILN_CACHE=0
status=0
for target in "${targets[@]}"; do
  binary=build-fuzz/tests/fuzz/$target
  corpus=build-fuzz/corpus/$target findings=build-fuzz/findings/$target
  mkdir -p "$corpus" "$findings"
  [ -d "tests/fuzz/corpus/$target" ] && cp -n "tests/fuzz/corpus/$target"/* "$corpus"/ 2>/dev/null || true
  [ "$target" = fuzz_program_binary ] && KILN_FUZZ_MAKE_SEEDS="$corpus" "$binary"
  if [ "$target" = fuzz_spirv_module ]; then # the test modules, assembled here (SPIR-V 1.1: Initializer needs it)
    for asm in tests/spirv/*.spvasm; do
      spirv-as --target-env spv1.1 "$asm" -o "$corpus/$(basename "$asm" .spvasm).spv"
    done
    clang-15 -cl-std=CL2.0 -target spir64-unknown-unknown -O1 -emit-llvm -c -Xclang -finclude-default-header \
      tests/spirv/kernels.cl -o build-fuzz/kernels.bc
    llvm-spirv-15 --spirv-max-version=1.0 build-fuzz/kernels.bc -o "$corpus/kernels.spv"
  fi
  extra=()
  [ "$target" = fuzz_kernel_source ] && extra=(-dict=tests/fuzz/opencl_c.dict -max_len=16384)
  if compgen -G "tests/fuzz/regressions/$target/*" > /dev/null; then
    echo "== $target: regression inputs"
    "$binary" "${extra[@]}" tests/fuzz/regressions/"$target"/* || { status=1; continue; }
  fi
  echo "== $target: ${seconds} s"
  log=build-fuzz/findings/$target.log
  if ! "$binary" "$corpus" "${extra[@]}" -max_total_time="$seconds" -timeout=60 -rss_limit_mb=6144 \
      -print_final_stats=1 -artifact_prefix="$findings/" > "$log" 2>&1; then
    status=1
    tail -n 40 "$log"
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|cov: [0-9]+" "$log" | tail -n 3 | sed "s/^/$target: /"
done
exit $status
