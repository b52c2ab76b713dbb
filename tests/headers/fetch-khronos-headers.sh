#!/usr/bin/env bash
# Usage: fetch-khronos-headers.sh DIR
# Unpacks Debian sid's opencl-c-headers (the newest Khronos OpenCL headers Debian ships)
# into DIR (DIR/usr/include/CL/...) and prints its version. The package is found in sid's
# Packages index on deb.debian.org and checked against the index's SHA256. Fails (exit 1)
# when it cannot get them: check-public-headers.sh must not pass without testing them.
set -euo pipefail
dir=$1
mirror=${KILN_DEBIAN_MIRROR:-https://deb.debian.org/debian}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

curl -fsSL --retry 3 -o "$tmp/Packages.xz" "$mirror/dists/sid/main/binary-all/Packages.xz"
xz -dc "$tmp/Packages.xz" > "$tmp/Packages"
# The opencl-c-headers stanza: Version, Filename and SHA256.
read -r version filename sha256 < <(awk '
  /^Package: / { in_pkg = ($2 == "opencl-c-headers") }
  in_pkg && /^Version: / { v = $2 }
  in_pkg && /^Filename: / { f = $2 }
  in_pkg && /^SHA256: / { s = $2 }
  /^$/ { if (in_pkg && f != "") { print v, f, s; exit } in_pkg = 0 }' "$tmp/Packages")
if [ -z "${filename:-}" ] || [ -z "${sha256:-}" ]; then
  echo "fetch-khronos-headers: no opencl-c-headers in sid's Packages index" >&2
  exit 1
fi
curl -fsSL --retry 3 -o "$tmp/headers.deb" "$mirror/$filename"
echo "$sha256  $tmp/headers.deb" | sha256sum -c --quiet -
mkdir -p "$dir"
dpkg-deb -x "$tmp/headers.deb" "$dir"
test -f "$dir/usr/include/CL/cl_ext.h"
echo "$version"
