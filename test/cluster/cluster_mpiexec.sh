#!/bin/bash
# cluster_mpiexec.sh MPIRUN-ARGUMENTS...: mpiexec on the test cluster that on_cluster.sh brought
# up, for scripts that take an mpiexec and build their own command lines (every argument goes
# to mpirun as it is; the cluster adds its hosts, launch agent and interfaces).
exec "${HETCCL_CLUSTER:?runs under on_cluster.sh}" run --name "${HETCCL_CLUSTER_NAME:?runs under on_cluster.sh}" "$@"
