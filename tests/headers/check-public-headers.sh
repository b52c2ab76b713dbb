#!/usr/bin/env bash
# Usage: check-public-headers.sh [CC [CXX]]
# Compiles tests/headers/use_headers.c (as C and as C++) against Kiln's public headers
# (include/CL) with -Wall -Wextra -Werror, with and without CL_ENABLE_BETA_EXTENSIONS, on
# (a) the system's OpenCL headers (Debian bookworm: opencl-c-headers 3.0~2023.02.06) and
# (b) the newest Khronos headers Debian has (sid's opencl-c-headers, downloaded: this
# test needs the network and fails, never skips, without it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cc=${1:-cc}
cxx=${2:-c++}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

system_version=$(dpkg-query -W -f='${Version}' opencl-c-headers 2>/dev/null || echo "unknown (not from a package)")
if ! newest_version=$("$here/fetch-khronos-headers.sh" "$work/newest"); then
  echo "FAIL: cannot get sid's opencl-c-headers from deb.debian.org (this test needs the network)"
  exit 1
fi

failures=0
check() {  # check LABEL INCLUDE-DIR-OR-EMPTY EXTRA-FLAGS...
  local label=$1 include=$2
  shift 2
  local flags=(-Wall -Wextra -Werror -DCL_TARGET_OPENCL_VERSION=300 -I"$root/include")
  [ -n "$include" ] && flags+=(-I"$include")
  if "$cc" -std=c11 "${flags[@]}" "$@" -c "$here/use_headers.c" -o "$work/c.o" 2> "$work/log" &&
     "$cxx" -std=c++17 "${flags[@]}" "$@" -c "$here/use_headers.cpp" -o "$work/cxx.o" 2>> "$work/log"; then
    echo "ok:   $label"
  else
    echo "FAIL: $label"
    head -n 40 "$work/log"
    failures=$((failures + 1))
  fi
}

for beta in "" -DCL_ENABLE_BETA_EXTENSIONS; do
  check "system headers $system_version ${beta:-(no beta extensions)}" "" $beta
  check "Khronos headers $newest_version (Debian sid) ${beta:-(no beta extensions)}" "$work/newest/usr/include" $beta
done
[ "$failures" -eq 0 ] || { echo "$failures of 4 combinations failed"; exit 1; }
echo "public headers compile against opencl-c-headers $system_version and $newest_version, C and C++"
