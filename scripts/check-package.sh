#!/usr/bin/env bash
# Usage: scripts/check-package.sh [BUILD_DIR]
# Builds the Debian package (scripts/package.sh, with BUILD_DIR if given) and checks it:
# its control fields (Provides: opencl-icd, no -dev package in Depends, no conffiles);
# installed for real with apt when run as root (CI), else unpacked with dpkg -x into a
# temporary root: the library's ldd resolves and names no library of a -dev package, the
# .icd names a library the loader finds, and clinfo through ocl-icd, reading that .icd
# only, lists the Kiln platform. As root it then removes the package and checks that
# none of its files is left, /etc/OpenCL/vendors/kiln.icd included, then purges it.
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "check-package: FAIL: $*" >&2; exit 1; }

deb=$(scripts/package.sh "$@" | tail -n 1)
deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")
echo "check-package: $deb"
control=$(dpkg-deb -f "$deb")
echo "$control" | grep -E '^(Package|Version|Architecture|Depends|Recommends|Provides):'
[ "$(dpkg-deb -f "$deb" Package)" = kiln-opencl-icd ] || fail "package name"
dpkg-deb -f "$deb" Provides | grep -qw opencl-icd || fail "no Provides: opencl-icd"
dpkg-deb -f "$deb" Recommends | grep -qw llvm-spirv-15 || fail "no Recommends: llvm-spirv-15 (SPIR-V programs)"
depends=$(dpkg-deb -f "$deb" Depends)
[ -n "$depends" ] || fail "empty Depends (dpkg-shlibdeps did not run?)"
if echo "$depends" | tr ',|' '\n\n' | awk '{print $1}' | grep -E -- '-dev$'; then fail "Depends names a -dev package"; fi
# The .icd is deliberately not a conffile: a plain remove must delete it (docs/install.md).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dpkg-deb -e "$deb" "$work/control"
[ ! -s "$work/control/conffiles" ] || fail "the package has conffiles: $(cat "$work/control/conffiles")"

installed_by_apt=0
if [ "$(id -u)" -eq 0 ] && command -v apt-get > /dev/null; then
  [ ! -e /etc/OpenCL/vendors/kiln.icd ] || dpkg -S /etc/OpenCL/vendors/kiln.icd > /dev/null 2>&1 ||
    fail "/etc/OpenCL/vendors/kiln.icd exists and belongs to no package (a cmake --install?); remove it first"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb"
  installed_by_apt=1
  root=
  files=$(dpkg -L kiln-opencl-icd)
else
  root=$work/root
  dpkg-deb -x "$deb" "$root"
  files=$(dpkg-deb -c "$deb" | awk '{print substr($6, 2)}')
fi

library=$(echo "$files" | grep -E '/libkiln\.so\.[0-9]+$' | head -n 1)
[ -n "$library" ] || fail "no libkiln.so.N in the package"
echo "check-package: library $library"
ldd_out=$(ldd "$root$library")
echo "$ldd_out"
if echo "$ldd_out" | grep -q 'not found'; then fail "ldd: unresolved libraries"; fi
# Every library ldd names belongs to a run-time package.
for lib in $(echo "$ldd_out" | awk '$2 == "=>" && $3 ~ /^\// {print $3}'); do
  owner=$(dpkg -S "$(readlink -f "$lib")" 2> /dev/null || dpkg -S "$lib" 2> /dev/null || true)
  owner=${owner%%:*}
  [ -n "$owner" ] || fail "$lib belongs to no package"
  case $owner in *-dev) fail "$lib comes from $owner, a -dev package" ;; esac
  echo "check-package: $lib <- $owner"
done

icd=$(echo "$files" | grep -E '/OpenCL/vendors/kiln\.icd$')
[ -n "$icd" ] || fail "no OpenCL/vendors/kiln.icd in the package"
named=$(cat "$root$icd")
echo "check-package: $icd names $named"
if [ -z "$root" ]; then
  # Loaded as ocl-icd loads it (dlopen of exactly that name).
  python3 -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1])' "$named" || fail "the loader cannot open $named"
  vendors=$icd
else
  # Unpacked, not installed: a bare SONAME must name the packaged library in a directory
  # the loader searches by default; clinfo then reads a copy naming it by full path.
  case $named in
    /*) [ -e "$root$named" ] || fail "$named is not in the package" ;;
    *) [ "$(basename "$library")" = "$named" ] || fail "the .icd names $named, the package holds $library" ;;
  esac
  vendors=$work/kiln.icd
  echo "$root$library" > "$vendors"
fi
OCL_ICD_VENDORS=$vendors clinfo -l | tee "$work/clinfo"
grep -q 'Platform #0: Kiln' "$work/clinfo" || fail "clinfo does not list the Kiln platform"

if [ "$installed_by_apt" -eq 1 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq kiln-opencl-icd
  for f in $files; do
    [ -d "$f" ] || [ ! -e "$f" ] || fail "$f is left after apt-get remove"
  done
  [ ! -e /etc/OpenCL/vendors/kiln.icd ] || fail "/etc/OpenCL/vendors/kiln.icd is left after apt-get remove"
  # dpkg still lists the package as removed ("rc") because it has a postrm (CPack's
  # ldconfig call) to run at purge; it holds no file. Purge clears that record.
  DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq kiln-opencl-icd
  if dpkg-query -W -f='${Status}\n' kiln-opencl-icd 2> /dev/null | grep -qv 'not-installed'; then
    fail "kiln-opencl-icd still known to dpkg after purge: $(dpkg-query -W -f='${Status}' kiln-opencl-icd)"
  fi
fi
echo "check-package: ok"
