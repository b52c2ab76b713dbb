#!/usr/bin/env bash
# Builds Kiln with warnings as errors and runs every test suite through the ICD loader,
# then again under AddressSanitizer + UndefinedBehaviorSanitizer, then under
# ThreadSanitizer; then fuzzes every parser of untrusted bytes for a minute each
# (scripts/fuzz.sh; longer runs: scripts/fuzz.sh SECONDS). After the first test run it
# packages that build as a Debian package, installs, checks and removes it
# (scripts/check-package.sh; docs/install.md).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc)

# Prefix /usr: scripts/check-package.sh packages this build (no compiled file depends on it).
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKILN_WERROR=ON -DCMAKE_INSTALL_PREFIX=/usr
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"
scripts/check-package.sh build

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DKILN_WERROR=ON -DKILN_SANITIZE=ON
cmake --build build-asan -j"$jobs"
ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE via-spirv

cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKILN_WERROR=ON -DKILN_SANITIZE_THREAD=ON
cmake --build build-tsan -j"$jobs"
ctest --test-dir build-tsan --output-on-failure -j"$jobs" -LE via-spirv

scripts/fuzz.sh 60
