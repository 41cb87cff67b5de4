#!/bin/bash
# cluster-slurm-test.sh BUILD_DIR SOURCE_DIR
#
# A multi-node Slurm whose nodes are real network nodes: scripts/test-cluster.sh makes 4
# namespace "nodes" (2 nvidia on one fabric, 2 amd on another, 2 Gbit/s uplinks, 1 Gbit/s
# between the fabrics), private-slurm.sh starts slurmctld in the cluster's head namespace
# (10.99.0.254) and one slurmd in each node's namespace (cluster-node-launch.sh: own address,
# own hostname).  Every step, srun and sbatch below crosses the namespaces over TCP.  Checks:
#   1. srun -N 4: four tasks, each in its own network namespace (not the head's), whose
#      hostname is its node's name and whose eth0 holds its node's 10.99.0.x address;
#   2. perf-sweep.sbatch on 4 nodes (srun --mpi=pmix across the namespaces): 0 wrong values;
#   3. mixed-vendor.sbatch as a heterogeneous job, component 0 on the nvidia fabric, 1 on the
#      amd fabric (mpirun through hetccl-mpirun-agent.sh): ranks 0-1 nvidia on n0/n1, 2-3 amd
#      on n2/n3, hetccl-info sees 2 islands, hetccl-perf reports 0 wrong values.
# Exit 77 (CTest: skipped) when this machine cannot: not root, no namespaces, no Slurm.
# The cluster and every daemon are taken down on exit, whatever happened.
# Settings: HETCCL_CLUSTER_DIR (cluster state; CTest puts it in the build directory),
# HETCCL_SLURM_CLUSTER_NAME (default sltest), HETCCL_SLURM_TEST_KEEP=1 keeps the logs,
# HETCCL_SLURM_TEST_REQUIRED=1 makes "cannot run here" a failure.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
say() { echo "cluster-slurm-test: $*"; }

# Second phase, inside the head namespace (see the end of this file).
if [ "${1:-}" = --in-head ]; then
  # shellcheck source=cluster-slurm-checks.sh
  source "$here/cluster-slurm-checks.sh"
  exit
fi

[ $# -eq 2 ] || { echo "usage: $0 BUILD_DIR SOURCE_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
started=$SECONDS
skip() {
  if [ "${HETCCL_SLURM_TEST_REQUIRED:-0}" = 1 ]; then
    say "FAIL (HETCCL_SLURM_TEST_REQUIRED=1): $*"
    exit 1
  fi
  say "SKIPPED: $*"
  exit 77
}

[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, slurmd)"
case ":$PATH:" in *:/usr/sbin:*) ;; *) PATH=$PATH:/usr/sbin:/sbin ;; esac
for tool in nsenter unshare ip slurmctld slurmd srun sbatch munged mpirun; do
  command -v "$tool" >/dev/null || skip "$tool not found (Debian: util-linux iproute2 slurm-wlm munge openmpi-bin)"
done
for app in apps/perf/hetccl-perf apps/info/hetccl-info; do
  [ -x "$build/$app" ] || { say "FAIL: $build/$app not built"; exit 1; }
done

name=${HETCCL_SLURM_CLUSTER_NAME:-sltest}
export HETCCL_CLUSTER_DIR=${HETCCL_CLUSTER_DIR:-$build/slurm-cluster}
cluster=$source_dir/scripts/test-cluster.sh
state=$HETCCL_CLUSTER_DIR/$name
up=0
cleanup() {
  local status=$?
  [ "$up" -eq 0 ] || "$cluster" down --name "$name" >/dev/null 2>&1 || true
  say "finished in $((SECONDS - started)) s"
  exit "$status"
}
trap cleanup EXIT
trap 'say interrupted; exit 130' INT TERM HUP

# A run killed outright (SIGKILL) leaves its cluster behind; the name is this test's own, so a
# leftover (its state or its namespaces) is taken down first.
if [ -e "$state" ] || ip netns list 2>/dev/null | grep -q "^hetccl-$name-"; then
  "$cluster" down --name "$name" >/dev/null
fi
up=1
rc=0
"$cluster" up --name "$name" --nodes 4 --vendors nvidia:2,amd:2 --rate 2gbit --cross-rate 1gbit || rc=$?
[ "$rc" -ne 77 ] || skip "no network namespaces here (scripts/test-cluster.sh exit 77)"
[ "$rc" -eq 0 ] || { say "FAIL: test-cluster.sh up: exit $rc"; exit 1; }
say "cluster '$name' up after $((SECONDS - started)) s"

# Slurm's commands, slurmctld and munged run in the head namespace, as a login node would.
rc=0
nsenter --net="/run/netns/hetccl-$name-head" "$0" --in-head "$build" "$source_dir" "$state" || rc=$?
exit "$rc"
