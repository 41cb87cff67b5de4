#!/bin/bash
# Builds libhetccl and hetccl-perf with SimGrid's smpicxx into DIR (default build-smpi), for
# running hetccl's real code under smpirun (scripts/smpi-check.sh, docs/SIM.md).  Only what
# smpirun runs is built: no tests, no GPU modules, no torch backend.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build-smpi}
CC=smpicc CXX=smpicxx cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHETCCL_BUILD_TESTS=OFF -DHETCCL_BUILD_BENCH=OFF >/dev/null
cmake --build "$dir" -j "$(nproc)" --target hetccl-perf
