#!/usr/bin/env bash
# Installs Kiln's build and test dependencies from Debian bookworm (needs root or sudo).
set -euo pipefail
packages=(build-essential cmake pkg-config git gdb
  llvm-19-dev libclang-19-dev libclang-cpp19-dev clang-19
  opencl-c-headers ocl-icd-opencl-dev ocl-icd-libopencl1 libhwloc-dev libcmocka-dev libsleef-dev libboost-context1.74-dev clinfo
  python3 llvm-19 llvm-19-tools libclang-rt-19-dev
  spirv-tools llvm-spirv-15 clang-15  # SPIR-V: validation (linked), the translator (run), test modules
  curl ca-certificates xz-utils file dpkg-dev)  # the last line: tests/headers and the package check
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
