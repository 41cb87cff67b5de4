# shellcheck shell=bash
# shellcheck disable=SC2154  # here, say: set by cluster-slurm-test.sh
# The second phase of cluster-slurm-test.sh, sourced by it inside the cluster's head namespace
# with its arguments: --in-head BUILD_DIR SOURCE_DIR CLUSTER_STATE.  Starts the private Slurm
# over the cluster's nodes, runs the checks, stops Slurm.  The first phase takes the cluster
# down afterwards, which also ends anything of Slurm's still running in its namespaces.
build=$2
source_dir=$3
state=$4
scripts=$source_dir/slurm
started=$SECONDS
# shellcheck source=private-slurm.sh
source "$here/private-slurm.sh"
# shellcheck source=slurm-test-jobs.sh
source "$here/slurm-test-jobs.sh"  # run_job, time_left, check_perf_tables, show_output

# Each job ends within job_timeout, the whole phase within budget: CTest's TIMEOUT would kill
# the test without its clean-up.
# shellcheck disable=SC2034  # both read by slurm-test-jobs.sh
job_timeout=${HETCCL_SLURM_TEST_JOB_TIMEOUT:-60}
# shellcheck disable=SC2034
budget=${HETCCL_SLURM_TEST_BUDGET:-240}

while IFS='=' read -r var _; do
  case $var in SLURM_* | SBATCH_* | SRUN_* | SALLOC_*) unset "$var" ;; esac
done < <(env)

work=$(mktemp -d "${TMPDIR:-/tmp}/hetccl-cluster-slurm.XXXXXX")
chmod 0755 "$work"  # munged runs as user munge and must reach the cluster's files inside
failures=0
fail() { say "FAIL: $*"; failures=$((failures + 1)); }
pass() { say "ok: $*"; }

finish() {
  local status=$?
  private_slurm_stop || true
  if [ "$status" -eq 0 ] && [ "${HETCCL_SLURM_TEST_KEEP:-0}" != 1 ]; then
    rm -rf "$work"
  else
    say "files kept in $work"
  fi
}
trap finish EXIT
trap 'say interrupted; exit 130' INT TERM HUP

# The layout: one Slurm node per cluster node, named and addressed as the cluster names it;
# partitions "nv" and "amd" by vendor, "all" (the default) for every node; one fake GPU each.
layout=""
declare -A address_of=()
while read -r node _ address vendor _; do
  case $vendor in
    nvidia) layout+="$node $address all,nv gpu:nv:1 $node"$'\n' ;;
    amd) layout+="$node $address all,amd gpu:amd:1 $node"$'\n' ;;
    *) say "FAIL: node $node: vendor '$vendor' is neither nvidia nor amd"; exit 1 ;;
  esac
  address_of[$node]=$address
done <"$state/nodes"
nodes=$(awk '{print $1}' "$state/nodes" | tr '\n' ' ')

# Open MPI inside the jobs: every node's daemons and ranks get their own session and
# shared-memory directories (the nodes share one file system; daemons whose files collide crash
# their ranks in vader), from a TaskProlog, which runs in each task's node.
mkdir -p "$work/node-tmp"
cat >"$work/task-prolog.sh" <<EOF
#!/bin/sh
d="$work/node-tmp/\$SLURMD_NODENAME"
mkdir -p "\$d/tmp" "\$d/shm"
echo "export TMPDIR=\$d/tmp"
echo "export OMPI_MCA_orte_tmpdir_base=\$d/tmp"
echo "export OMPI_MCA_btl_vader_backing_directory=\$d/shm"
EOF
chmod 0755 "$work/task-prolog.sh"

export PRIVATE_SLURM_LAYOUT=$layout
export PRIVATE_SLURM_CTLD_ADDR=10.99.0.254
export PRIVATE_SLURM_NODE_LAUNCHER="$here/cluster-node-launch.sh $state"
export PRIVATE_SLURM_CONF_EXTRA="TaskProlog=$work/task-prolog.sh"
say "starting Slurm: slurmctld at 10.99.0.254 (head), slurmd in each of $nodes"
mkdir -p "$work/cluster" "$work/out"
private_slurm_start "$work/cluster" \
  || { say "FAIL: Slurm did not start: $PRIVATE_SLURM_ERROR"; exit 1; }
say "Slurm up after $((SECONDS - started)) s"

# Open MPI between the nodes over the cluster's subnet only (each node also has a loopback).
export OMPI_MCA_btl_tcp_if_include=10.99.0.0/24 OMPI_MCA_oob_tcp_if_include=10.99.0.0/24
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export HETCCL_BUILD=$build PERF_ARGS="-b 8 -e 256K -f 8 -n 5 -w 2"

# 1. Where srun's tasks run: a line per task with its hostname, Slurm's node name, its network
#    namespace and the IPv4 addresses of its eth0.
out=$work/out/where.out
head_ns=$(readlink /proc/self/ns/net)
if timeout "$(time_left)" srun -N 4 --ntasks-per-node=1 --mpi=none bash -c \
  'echo "$(hostname) $SLURMD_NODENAME $(readlink /proc/self/ns/net) $(ip -o -4 addr show dev eth0 | awk "{print \$4}")"' \
  >"$out" 2>&1; then
  ok=1
  for node in $nodes; do
    line=$(awk -v n="$node" '$2 == n' "$out")
    want="$node $node "
    [[ $line == "$want"* && $line == *" ${address_of[$node]}/24" ]] \
      || { fail "srun: node $node: want hostname $node, address ${address_of[$node]}: '${line:-no line}'"; ok=0; }
  done
  namespaces=$(awk '{print $3}' "$out" | sort -u)
  [ "$(wc -l <<<"$namespaces")" -eq 4 ] || { fail "srun: the 4 tasks are not in 4 network namespaces"; ok=0; }
  ! grep -qxF "$head_ns" <<<"$namespaces" || { fail "srun: a task runs in the head's namespace"; ok=0; }
  [ "$ok" -eq 0 ] || pass "srun -N 4: 4 hostnames, 4 network namespaces, each node on its own address"
  [ "$ok" -eq 1 ] || show_output "$out"
else
  fail "srun -N 4 failed"
  show_output "$out"
fi

# hetccl-perf's header names each rank's host ("#  Rank  0 Pid  123 on HOST"): the 4 ranks of
# a job must be on the 4 nodes, one each.
check_ranks_on_nodes() {
  local name=$1 file=$2 hosts
  hosts=$(sed -n 's/^#  Rank *[0-9]* Pid *[0-9]* on \(.*\)$/\1/p' "$file" | sort -u | tr '\n' ' ')
  [ "$hosts" = "$nodes" ] && pass "$name: hetccl-perf's ranks on $hosts" \
    || fail "$name: hetccl-perf's ranks should be on $nodes, are on '$hosts'"
}

# 2. A batch job over all 4 nodes, with each launcher: srun --mpi=pmix (Slurm's PMIx plugin
#    wires the ranks up between the nodes' slurmstepds) and mpirun (Open MPI starts a daemon per
#    node through srun; daemons and ranks connect back over the subnet).
for launcher in srun mpirun; do
  name=perf-$launcher
  if run_job "$name" -N 4 --ntasks-per-node=1 "$scripts/perf-sweep.sbatch" --launcher "$launcher" --colls allreduce; then
    check_perf_tables "$name" "$work/out/$name.out" 1
    check_ranks_on_nodes "$name" "$work/out/$name.out"
    grep -q "^# hetccl-slurm: perf-sweep: 1 collective(s) on 4 tasks via $launcher: OK" "$work/out/$name.out" \
      || fail "$name: no OK summary line"
  else
    fail "$name: job failed"
    show_output "$work/out/$name.out"
  fi
done

# 3. The mixed-vendor heterogeneous job: component 0 on the nvidia fabric's nodes, component 1
#    on the amd fabric's, one MPI job over both (mpirun, daemons started by srun in each
#    component), so hetccl's cross-vendor traffic crosses the 1 Gbit/s trunk.  An island per
#    vendor across nodes (HETCCL_ISLAND_SCOPE=job): each fabric is one island.
# srun too only when asked: an srun heterogeneous step with PMIx now and then hangs after its
# tasks have ended (slurm/README.md, "The Slurm test").
het_launchers=mpirun
[ "${HETCCL_SLURM_TEST_HET_SRUN:-0}" != 1 ] || het_launchers="mpirun srun"
for launcher in $het_launchers; do
  name=mixed-$launcher
  if HETCCL_ISLAND_SCOPE=job run_job "$name" -p nv -N 2 --ntasks-per-node=1 --gres=gpu:nv:1 \
    : -p amd -N 2 --ntasks-per-node=1 --gres=gpu:amd:1 "$scripts/mixed-vendor.sbatch" --launcher "$launcher" --colls allreduce; then
    file=$work/out/$name.out
    ok=1
    for rank in 0 1 2 3; do
      line=$(grep -m1 "^hetccl-rank-env: rank $rank/4 " "$file" || true)
      case $rank in 0 | 1) want=nvidia ;; *) want=amd ;; esac
      node=$(awk -v v="$want" '$4 == v' "$state/nodes" | awk -v i=$((rank % 2 + 1)) 'NR == i {print $1}')
      [[ $line == *" node $node "* && $line == *" vendor $want "* ]] \
        || { fail "$name: rank $rank should be vendor $want on $node: '${line:-no line}'"; ok=0; }
    done
    [ "$ok" -eq 0 ] || pass "$name: ranks 0-1 nvidia on the nvidia nodes, 2-3 amd on the amd nodes"
    grep -q '4 ranks in 2 islands' "$file" && pass "$name: hetccl-info sees 2 islands" \
      || fail "$name: hetccl-info does not report '4 ranks in 2 islands'"
    grep -q "nvidia:2,amd:2 via $launcher: OK" "$file" || fail "$name: no OK summary line"
    check_perf_tables "$name" "$file" 1
    check_ranks_on_nodes "$name" "$file"
  else
    fail "$name: job failed"
    show_output "$work/out/$name.out"
  fi
done

say "$failures failure(s) in $((SECONDS - started)) s"
[ "$failures" -eq 0 ]
