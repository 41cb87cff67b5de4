#!/bin/bash
# test-cluster-agent.sh NODE COMMAND...
#
# Open MPI's remote-start agent for scripts/test-cluster.sh (mpirun --mca plm_rsh_agent THIS):
# called like ssh with a node's hostname and the daemon's command line, it runs that command in
# the node's network namespace, under the node's own hostname (a UTS namespace, so hwloc's and
# hetccl's node identity is the node's), with the node's own Open MPI session directory and
# shared-memory backing directory: daemons of one host that share these collide, and their
# ranks crash in vader's fragment handling.
set -eu
while [ "${1:-}" != "${1#-}" ]; do shift; done  # ssh-style options, if Open MPI adds any
node=${1:?usage: test-cluster-agent.sh NODE COMMAND...}
shift
state=${HETCCL_CLUSTER_STATE:?test-cluster-agent.sh runs under test-cluster.sh run}
node_ns=$(awk -v n="$node" '$1 == n {print $2}' "$state/nodes")
[ -n "$node_ns" ] || { echo "test-cluster-agent: no node '$node' in $state/nodes" >&2; exit 1; }
export OMPI_MCA_orte_tmpdir_base="$state/$node/tmp" OMPI_MCA_btl_vader_backing_directory="$state/$node/shm"
exec ip netns exec "$node_ns" unshare --uts /bin/bash -c "hostname '$node' && exec $*"
