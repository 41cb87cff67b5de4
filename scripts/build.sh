#!/bin/bash
# Configures and builds hetccl into ${HETCCL_BUILD_DIR:-build} (Release-with-debug-info).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${HETCCL_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
