#!/bin/bash
# A test cluster on one machine: every "node" is a Linux network namespace with its own network
# stack, hostname and address, joined to a bridge by a veth pair whose both ends are shaped by
# tc's token bucket (tbf), so traffic between nodes crosses a real, rate-limited kernel link.
# With --cross-rate each vendor's nodes get their own bridge ("fabric") and the fabrics are
# joined by a slower trunk: fast inside a vendor's switch, slower across.  Needs root.
#
#   test-cluster.sh up [--name N] [--nodes 4] [--ranks-per-node 1] [--vendors nvidia:2,amd:2]
#                      [--rate 2gbit | --rates R0,R1,...] [--cross-rate 1gbit] [--mtu 1500]
#   test-cluster.sh run [--name N] [MPIRUN-OPTIONS...] [--] PROGRAM [ARGS...]
#   test-cluster.sh status [--name N]
#   test-cluster.sh down [--name N]          (idempotent)
#   test-cluster.sh link [--name N] NODE up|down      take a node's uplink down or up
#   test-cluster.sh shape [--name N] NODE RATE        reshape a node's uplink (e.g. 200mbit)
#   test-cluster.sh nodes [--name N]                  the nodes' hostnames, one per line
#
# `run` wraps mpirun: one Open MPI daemon per node, started inside the node's namespace by
# scripts/test-cluster-agent.sh (Open MPI's remote-start agent), TCP between nodes on the
# cluster's subnet, shared memory inside a node, HETCCL_EMULATE_VENDORS from the nodes' vendors
# unless already set.  mpirun itself runs in the cluster's "head" namespace (unshaped, on the
# first fabric).  Exit status 77 means "cannot run here" (not root, no namespaces).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
readonly subnet_prefix=10.99.0 subnet=10.99.0.0/24

die() { echo "test-cluster: $*" >&2; exit 1; }
cannot() { echo "test-cluster: cannot run here: $*" >&2; exit 77; }

state_root=${HETCCL_CLUSTER_DIR:-/tmp/hetccl-cluster}
name=hc
parse_name() {  # --name N may come first after the command
  if [ "${1:-}" = --name ]; then name=${2:?--name needs a value}; shifted=2; else shifted=0; fi
  [[ $name =~ ^[a-z][a-z0-9]{0,7}$ ]] || die "--name: 1-8 lower-case letters or digits, a letter first"
}
state() { echo "$state_root/$name"; }
ns() { echo "hetccl-$name-$1"; }  # namespace of a node, of "head" or of "fabric"

require_root() {
  [ "$(id -u)" -eq 0 ] || cannot "network namespaces need root"
  command -v ip >/dev/null && command -v tc >/dev/null || cannot "ip and tc (iproute2) are missing"
  command -v unshare >/dev/null || cannot "unshare (util-linux) is missing"
  local probe="hetccl-probe-$$"
  ip netns add "$probe" 2>/dev/null || cannot "ip netns add failed (no network namespaces in this kernel or container)"
  ip netns del "$probe"
}

# tbf needs a bucket of at least one timer tick of traffic: 1/500 s of the rate.  And at least
# 128 KiB: a veth sends GSO packets of up to 64 KiB, and with a bucket of exactly 64 KiB a packet
# at the head of the queue can need a few nanoseconds more tokens than the bucket holds, so the
# link stalls for good (seen at 200mbit: backlog held, overlimits climbing, nothing sent).
burst_of() {
  local rate=$1 bits
  case $rate in
    *gbit) bits=$((${rate%gbit} * 1000000000)) ;;
    *mbit) bits=$((${rate%mbit} * 1000000)) ;;
    *kbit) bits=$((${rate%kbit} * 1000)) ;;
    *) die "rate '$rate': write it as Ngbit, Nmbit or Nkbit (whole numbers)" ;;
  esac
  local bytes=$((bits / 8 / 500))
  [ $bytes -ge 131072 ] || bytes=131072
  echo $bytes
}

shape_device() {  # NAMESPACE DEVICE RATE: (re)shape one end of a link
  local burst
  burst=$(burst_of "$3")
  ip netns exec "$1" tc qdisc replace dev "$2" root tbf rate "$3" burst "$burst" latency 50ms
}

# Expand "a:2,b" into one word per item (the same list syntax as HETCCL_EMULATE_VENDORS).
expand_list() {
  local item word count out=()
  IFS=, read -ra items <<<"$1"
  for item in "${items[@]}"; do
    word=${item%%:*}
    count=1
    [ "$word" = "$item" ] || count=${item#*:}
    [[ $count =~ ^[0-9]+$ ]] || die "bad count in '$item'"
    for ((k = 0; k < count; ++k)); do out+=("$word"); done
  done
  echo "${out[@]}"
}

cmd_up() {
  local nodes=4 per_node=1 vendors="" rate=2gbit rates="" cross="" mtu=1500
  while [ $# -gt 0 ]; do
    case $1 in
      --nodes) nodes=$2; shift 2 ;;
      --ranks-per-node) per_node=$2; shift 2 ;;
      --vendors) vendors=$2; shift 2 ;;
      --rate) rate=$2; shift 2 ;;
      --rates) rates=$2; shift 2 ;;
      --cross-rate) cross=$2; shift 2 ;;
      --mtu) mtu=$2; shift 2 ;;
      *) die "up: unknown option '$1'" ;;
    esac
  done
  [[ $nodes =~ ^[0-9]+$ ]] && [ "$nodes" -ge 1 ] && [ "$nodes" -le 64 ] || die "--nodes: 1 to 64"
  [[ $per_node =~ ^[0-9]+$ ]] && [ "$per_node" -ge 1 ] || die "--ranks-per-node: a positive number"
  require_root
  [ ! -e "$(state)" ] || die "a cluster named '$name' is up already (test-cluster.sh down --name $name)"
  local vendor_of rate_of
  if [ -z "$vendors" ]; then vendors="nvidia:$(((nodes + 1) / 2))"; [ "$nodes" -lt 2 ] || vendors+=",amd:$((nodes / 2))"; fi
  read -ra vendor_of <<<"$(expand_list "$vendors")"
  [ ${#vendor_of[@]} -eq "$nodes" ] || die "--vendors names ${#vendor_of[@]} nodes, --nodes is $nodes"
  if [ -n "$rates" ]; then read -ra rate_of <<<"$(expand_list "$rates")"; else read -ra rate_of <<<"$(expand_list "$rate:$nodes")"; fi
  [ ${#rate_of[@]} -eq "$nodes" ] || die "--rates names ${#rate_of[@]} nodes, --nodes is $nodes"
  for r in "${rate_of[@]}" ${cross:+"$cross"}; do burst_of "$r" >/dev/null; done

  # A half-made cluster is taken down again.
  trap 'echo "test-cluster: up failed; cleaning up" >&2; cmd_down >/dev/null 2>&1 || true' ERR
  mkdir -p "$(state)"
  local fabric_ns
  fabric_ns=$(ns fabric)
  ip netns add "$fabric_ns"
  ip -n "$fabric_ns" link set lo up
  # One fabric, or one per vendor (in order of first appearance) joined to fabric 0 by trunks.
  local fabric_names=() fabric_of=()
  for v in "${vendor_of[@]}"; do
    local f=0
    if [ -n "$cross" ]; then
      f=-1
      for i in "${!fabric_names[@]}"; do [ "${fabric_names[$i]}" = "$v" ] && f=$i; done
      if [ $f -lt 0 ]; then f=${#fabric_names[@]}; fabric_names+=("$v"); fi
    else
      fabric_names=(all)
    fi
    fabric_of+=("$f")
  done
  for f in "${!fabric_names[@]}"; do
    ip -n "$fabric_ns" link add "fab$f" type bridge
    ip -n "$fabric_ns" link set "fab$f" mtu "$mtu" up
    if [ "$f" -gt 0 ]; then  # trunk fab0 <-> fabF, shaped both ways
      ip -n "$fabric_ns" link add "trunk${f}a" mtu "$mtu" type veth peer name "trunk${f}b" mtu "$mtu"
      ip -n "$fabric_ns" link set "trunk${f}a" master fab0 up
      ip -n "$fabric_ns" link set "trunk${f}b" master "fab$f" up
      shape_device "$fabric_ns" "trunk${f}a" "$cross"
      shape_device "$fabric_ns" "trunk${f}b" "$cross"
    fi
  done
  # The head namespace runs mpirun: on fabric 0, unshaped.
  local head_ns
  head_ns=$(ns head)
  ip netns add "$head_ns"
  ip -n "$head_ns" link set lo up
  ip -n "$fabric_ns" link add uphead mtu "$mtu" type veth peer name eth0 netns "$head_ns" mtu "$mtu"
  ip -n "$fabric_ns" link set uphead master fab0 up
  ip -n "$head_ns" addr add "$subnet_prefix.254/24" dev eth0
  ip -n "$head_ns" link set eth0 up
  : >"$(state)/nodes"
  for ((i = 0; i < nodes; ++i)); do
    local node="$name-n$i" node_ns
    node_ns=$(ns "n$i")
    ip netns add "$node_ns"
    ip -n "$node_ns" link set lo up
    ip -n "$fabric_ns" link add "up$i" mtu "$mtu" type veth peer name eth0 netns "$node_ns" mtu "$mtu"
    ip -n "$fabric_ns" link set "up$i" master "fab${fabric_of[$i]}" up
    ip -n "$node_ns" addr add "$subnet_prefix.$((i + 1))/24" dev eth0
    ip -n "$node_ns" link set eth0 up
    shape_device "$node_ns" eth0 "${rate_of[$i]}"       # what the node sends
    shape_device "$fabric_ns" "up$i" "${rate_of[$i]}"   # what it receives
    mkdir -p "$(state)/$node/tmp" "$(state)/$node/shm"
    echo "$node $node_ns $subnet_prefix.$((i + 1)) ${vendor_of[$i]} ${rate_of[$i]} fab${fabric_of[$i]} up$i" >>"$(state)/nodes"
  done
  echo "$per_node" >"$(state)/ranks-per-node"
  echo "${cross:-none}" >"$(state)/cross-rate"
  trap - ERR
  cmd_status
}

cmd_down() {
  local n
  for n in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^hetccl-$name-" || true); do
    # Processes left in a node (a killed job's daemons) would keep the namespace's links alive.
    ip netns pids "$n" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
    ip netns del "$n" 2>/dev/null || true
  done
  rm -rf "$(state)"
  echo "test-cluster: '$name' is down"
}

need_up() { [ -f "$(state)/nodes" ] || die "no cluster named '$name' is up (test-cluster.sh up --name $name)"; }

cmd_status() {
  need_up
  echo "test-cluster '$name': $(wc -l <"$(state)/nodes") nodes x $(cat "$(state)/ranks-per-node") ranks," \
       "subnet $subnet, cross-fabric trunk: $(cat "$(state)/cross-rate")"
  printf '  %-10s %-12s %-8s %-8s %-6s %s\n' node address vendor uplink fabric link
  local node node_ns address vendor rate fabric port
  while read -r node node_ns address vendor rate fabric port; do
    local link
    link=$(ip -n "$(ns fabric)" -o link show "$port" 2>/dev/null | grep -q 'state UP\|,UP' && echo up || echo down)
    local shaped
    shaped=$(ip netns exec "$node_ns" tc qdisc show dev eth0 | sed -n 's/.* rate \([^ ]*\).*/\1/p')
    printf '  %-10s %-12s %-8s %-8s %-6s %s\n' "$node" "$address" "$vendor" "${shaped:-$rate}" "$fabric" "$link"
  done <"$(state)/nodes"
}

node_field() {  # NODE FIELD-NUMBER
  need_up
  local line
  line=$(awk -v n="$1" '$1 == n' "$(state)/nodes")
  [ -n "$line" ] || die "no node '$1' in cluster '$name' (nodes: $(awk '{printf "%s ", $1}' "$(state)/nodes"))"
  echo "$line" | awk -v f="$2" '{print $f}'
}

cmd_link() {
  local node=${1:?link NODE up|down} how=${2:?link NODE up|down}
  [ "$how" = up ] || [ "$how" = down ] || die "link: up or down, not '$how'"
  ip -n "$(ns fabric)" link set "$(node_field "$node" 7)" "$how"
}

cmd_shape() {
  local node=${1:?shape NODE RATE} rate=${2:?shape NODE RATE}
  shape_device "$(node_field "$node" 2)" eth0 "$rate"
  shape_device "$(ns fabric)" "$(node_field "$node" 7)" "$rate"
}

cmd_nodes() { need_up; awk '{print $1}' "$(state)/nodes"; }

cmd_run() {
  need_up
  # Without `--` every word goes to mpirun as it is (the cluster then stands in for mpiexec in
  # scripts that build their own mpiexec command lines).
  local mpirun_args=() scanned
  if printf '%s\n' "$@" | grep -qx -- --; then
    while [ "$1" != -- ]; do mpirun_args+=("$1"); shift; done
    shift
    scanned=("${mpirun_args[@]}")  # the program's own arguments are not mpirun's
  else
    scanned=("$@")
  fi
  [ $# -gt 0 ] || die "run: no program"
  local per_node hosts="" vendors="" own_hosts=0 own_binding=0 own_yield=0 a
  for a in "${scanned[@]}"; do
    case $a in
      -H | --host | -host | --hostfile | -hostfile) own_hosts=1 ;;
      --bind-to | -bind-to) own_binding=1 ;;
      mpi_yield_when_idle) own_yield=1 ;;
    esac
  done
  per_node=$(cat "$(state)/ranks-per-node")
  local node node_ns address vendor rest
  while read -r node node_ns address vendor rest; do
    hosts+="${hosts:+,}$node:$per_node"
    vendors+="${vendors:+,}$vendor:$per_node"
  done <"$(state)/nodes"
  export HETCCL_EMULATE_VENDORS=${HETCCL_EMULATE_VENDORS-$vendors}
  export HETCCL_CLUSTER_STATE
  HETCCL_CLUSTER_STATE=$(state)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # mpirun's own session directory, apart from the daemons' (test-cluster-agent.sh).
  mkdir -p "$(state)/head"
  export OMPI_MCA_orte_tmpdir_base="$(state)/head"
  # rsh launch through the agent, no tree spawn (every daemon is started from the head);
  # TCP between nodes on the cluster's subnet only, vader inside a node.
  # A caller's own -H (a subset of the nodes) replaces the default of every node's slots.
  local host_args=(-H "$hosts")
  [ $own_hosts -eq 0 ] || host_args=()
  # Every node's daemon sees the whole machine as its own and would bind its first rank to core
  # 0, so every node's rank would share one core: a rank that polls then holds it for a
  # scheduler tick (4 ms) while its peer waits -- ms-long small messages for Open MPI and
  # hetccl alike.  The nodes share the host's cores unbound unless the caller binds.
  local placement=(--bind-to none)
  [ $own_binding -eq 0 ] || placement=()
  # Nor does a daemon know that the other nodes' ranks share its cores: where the cluster's
  # ranks outnumber the host's cores, tell Open MPI so (waiting ranks then yield the core, as
  # Open MPI does on a node it knows is oversubscribed; 8 B MPI_Allreduce on 4 nodes and 2
  # cores: 4-6 ms -> 0.15 ms).
  local ranks
  ranks=$(($(wc -l <"$(state)/nodes") * per_node))
  [ $own_yield -eq 1 ] || [ "$ranks" -le "$(nproc)" ] || placement+=(--mca mpi_yield_when_idle 1)
  exec ip netns exec "$(ns head)" mpirun "${host_args[@]}" \
    "${placement[@]}" --mca plm rsh --mca plm_rsh_agent "$here/test-cluster-agent.sh" --mca plm_rsh_no_tree_spawn 1 \
    --mca pml ob1 --mca btl tcp,vader,self --mca btl_tcp_if_include "$subnet" --mca oob_tcp_if_include "$subnet" \
    "${mpirun_args[@]}" "$@"
}

command=${1:-}
[ $# -gt 0 ] && shift
parse_name "$@"
shift "$shifted"
case $command in
  up) cmd_up "$@" ;;
  down) cmd_down ;;
  status) cmd_status ;;
  run) cmd_run "$@" ;;
  link) cmd_link "$@" ;;
  shape) cmd_shape "$@" ;;
  nodes) cmd_nodes ;;
  *) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
