#!/usr/bin/env bash
# Usage: scripts/package.sh [BUILD_DIR]
# Builds the Debian package kiln-opencl-icd with CPack (cmake/packaging.cmake) and prints
# the path of the .deb (the last line of its output; everything else goes to stderr).
#  - Without BUILD_DIR: configures build-package, a separate Release build with
#    CMAKE_INSTALL_PREFIX=/usr and without the test suites, builds it and packages it.
#  - With BUILD_DIR, an existing build tree (CI passes its `build`): sets
#    CMAKE_INSTALL_PREFIX=/usr there (no compiled file depends on it) and packages that
#    build, which saves a whole Release build.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${JOBS:-$(nproc)}
# The package holds the library and files made at configure time, so only `kiln` is built;
# CMAKE_SKIP_INSTALL_ALL_DEPENDENCY stops cpack's preinstall step from building `all`
# (every test suite, in a tree configured with them).
common=(-DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON)
if [ $# -eq 0 ]; then
  build=build-package
  cmake -S . -B "$build" "${common[@]}" -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_TESTS=OFF -DKILN_WERROR=ON >&2
else
  build=$1
  [ -f "$build/CMakeCache.txt" ] || { echo "package.sh: $build is not a configured build tree" >&2; exit 1; }
  cmake -S . -B "$build" "${common[@]}" >&2
fi
cmake --build "$build" -j"$jobs" --target kiln >&2
out=$(cd "$build" && pwd)/package
rm -rf "$out"
(cd "$build" && cpack -G DEB -B "$out") >&2
ls "$out"/kiln-opencl-icd_*.deb
