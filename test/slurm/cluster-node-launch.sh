#!/bin/bash
# cluster-node-launch.sh STATE NODE COMMAND [ARGS...]
#
# Starts COMMAND inside a node of scripts/test-cluster.sh (STATE: the cluster's state directory,
# whose `nodes` file names each node's network namespace): private-slurm.sh's
# PRIVATE_SLURM_NODE_LAUNCHER for cluster-slurm-test.sh, so that each slurmd, and every
# slurmstepd and task it forks, has the node's own network stack, address and hostname.
# nsenter joins only the network namespace: `ip netns exec` would also remount /sys for it,
# which hides /sys/fs/cgroup, and slurmd 22.05 refuses to start without it ("No filesystem
# mounted on /sys/fs/cgroup").  A new UTS namespace gives the node its own hostname.
set -euo pipefail
state=${1:?usage: cluster-node-launch.sh STATE NODE COMMAND [ARGS...]}
node=${2:?usage: cluster-node-launch.sh STATE NODE COMMAND [ARGS...]}
shift 2
[ $# -gt 0 ] || { echo "cluster-node-launch: no command" >&2; exit 2; }
node_ns=$(awk -v n="$node" '$1 == n {print $2}' "$state/nodes")
[ -n "$node_ns" ] || { echo "cluster-node-launch: no node '$node' in $state/nodes" >&2; exit 1; }
# hostname(1) inside the new UTS namespace, then the command in place of that shell.
exec nsenter --net="/run/netns/$node_ns" unshare --uts \
  /bin/bash -c 'hostname "$0" && exec "$@"' "$node" "$@"
