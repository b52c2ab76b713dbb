#!/usr/bin/env bash
# The main job: install dependencies, build Kiln, and run the demo through the ICD loader.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)"
OCL_ICD_VENDORS="$PWD/build/vendors/kiln.icd" build/demo/kiln_demo
