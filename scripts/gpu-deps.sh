#!/bin/bash
# Fetches (here, with apt) and unpacks the Debian 12 packages that scripts/gpu-check.sh needs on
# a GPU machine that lacks them and cannot reach a package mirror: Open MPI with the libraries
# it loads, hwloc, GoogleTest and Google Benchmark. About 8 MB of packages, 36 MB unpacked.
#
#   scripts/gpu-deps.sh DIR        # then, there: scripts/gpu-check.sh --mpi DIR --deps DIR
#
# The packages are unpacked with dpkg-deb -x (nothing is installed); gpu-check.sh relocates
# Open MPI with OPAL_PREFIX and rewrites the pkg-config files. The folder must travel with the
# tree (an ignored path named in the device run's carry, or the shared folder).
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dir=$1
packages=(openmpi-bin openmpi-common libopenmpi3 libopenmpi-dev libpmix2 libevent-core-2.1-7
          libevent-pthreads-2.1-7 libhwloc15 libhwloc-dev libfabric1 libucx0 libibverbs1
          librdmacm1 libnl-3-200 libnl-route-3-200 libpsm2-2 libpsm-infinipath1 libmunge2
          libnuma1 libpciaccess0 libxnvctrl0 libgtest-dev libbenchmark-dev libbenchmark1debian)
mkdir -p "$dir/debs"
dir=$(cd "$dir" && pwd)
(cd "$dir/debs" && apt-get download "${packages[@]}")
for deb in "$dir"/debs/*.deb; do dpkg-deb -x "$deb" "$dir"; done
rm -rf "$dir/debs"
echo "gpu-deps: $(du -sh "$dir" | cut -f1) in $dir"
