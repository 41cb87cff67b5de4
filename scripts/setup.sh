#!/bin/bash
# Installs hetccl's build and test dependencies from Debian's packages (idempotent: apt is
# only called when something is missing).  CUDA and HIP are optional and not installed here.
set -euo pipefail
packages=(build-essential cmake pkg-config clang-format git openmpi-bin libopenmpi-dev libhwloc-dev hwloc
          libgtest-dev libbenchmark-dev nlohmann-json3-dev python3-matplotlib slurm-wlm munge
          clang libclang-rt-dev  # clang and its libFuzzer/sanitizer runtimes: scripts/run-fuzz.sh
          python3-torch libtorch-dev python3-dev pybind11-dev  # the torch.distributed backend
          iproute2 util-linux  # scripts/test-cluster.sh: ip, tc, unshare
          libsimgrid-dev simgrid)  # SimGrid's SMPI: scripts/smpi-check.sh
# HIP is optional: HETCCL_SETUP_HIP=1 (CI sets it) adds Debian's hipcc (~650 MB) so that the
# HIP device module is compiled too.
if [ "${HETCCL_SETUP_HIP:-0}" = 1 ]; then packages+=(hipcc libamdhip64-dev rocm-device-libs); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
