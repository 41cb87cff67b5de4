#!/bin/bash
# on_cluster.sh NAME [UP-OPTIONS...] -- COMMAND [ARGS...]
#
# Brings up the namespace test cluster NAME (scripts/test-cluster.sh up NAME UP-OPTIONS), runs
# COMMAND with HETCCL_CLUSTER_NAME=NAME and HETCCL_CLUSTER=<test-cluster.sh> in its environment,
# and takes the cluster down however COMMAND ends.  Exit status 77 (CTest's skip) when this
# machine cannot run a cluster (not root, no namespaces), with the reason on stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export HETCCL_CLUSTER="$here/../../scripts/test-cluster.sh"
export HETCCL_CLUSTER_NAME=${1:?usage: on_cluster.sh NAME [UP-OPTIONS...] -- COMMAND...}
shift
up_options=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do up_options+=("$1"); shift; done
[ "${1:-}" = -- ] && [ $# -gt 1 ] || { echo "on_cluster.sh: no command after --" >&2; exit 2; }
shift
# A cluster of this name left by a killed run would make `up` refuse.
"$HETCCL_CLUSTER" down --name "$HETCCL_CLUSTER_NAME" >/dev/null
set +e
"$HETCCL_CLUSTER" up --name "$HETCCL_CLUSTER_NAME" "${up_options[@]}"
up=$?
set -e
[ $up -eq 0 ] || exit $up
trap '"$HETCCL_CLUSTER" down --name "$HETCCL_CLUSTER_NAME" >/dev/null' EXIT
"$@"
