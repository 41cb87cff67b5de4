# shellcheck shell=bash
# A private, throw-away Slurm cluster on this host, for tests.  Source this file, then:
#
#   private_slurm_start DIR     start munged, slurmctld and the slurmd "nodes" under DIR (a new
#                               or empty directory whose parents everyone may search) and wait until the nodes
#                               are idle; returns non-zero with the reason in
#                               PRIVATE_SLURM_ERROR if it cannot (call private_slurm_stop then
#                               too: some daemons may be up)
#   private_slurm_stop          cancel the jobs, stop every daemon by the pid in its pid file,
#                               then any process of this cluster left behind (a slurmstepd or
#                               a job's process); safe to call twice or after a failed start:
#                               made for `trap ... EXIT`
#
# The default cluster (Slurm 22.05 as Debian 12 ships it; needs root: slurmd starts job steps as
# the submitting user, and munged runs as the `munge` user):
#   node     partition   GRES (fake GPUs)          devices (gres.conf File=)
#   nvnode   nv          gpu:nv:2                  /dev/null, /dev/zero
#   amdnode  amd         gpu:amd:2                 /dev/null, /dev/zero
#   mixnode  mix         gpu:nv:1,gpu:amd:1        /dev/null (nv), /dev/zero (amd)
#   partition "all" (default) = nvnode + amdnode
# Every node has this host's CPUs.  All nodes are this host: one slurmd per node
# (`slurmd -N NAME`), each on its own port with its own spool directory and TmpFS.  A gpu GRES
# needs a device file (Slurm drops one without), any existing file will do: a node's GPUs get
# /dev/null, /dev/zero, /dev/full, ... in the order of its GRES.  Everything (munge key and
# socket, configuration, state, spool, logs, pid files) lives under DIR; the ports are picked
# free at start.  The host's own Slurm and munge, if any, are not touched.
#
# Another layout (scripts/test-cluster.sh's namespace nodes: test/slurm/cluster-slurm-test.sh)
# is set before private_slurm_start by
#   PRIVATE_SLURM_LAYOUT         one node a line: NAME ADDRESS PARTITIONS GRES [HOSTNAME]
#                                (PARTITIONS: comma-separated, the first one named is the
#                                default partition; GRES as in slurm.conf, "-" for none;
#                                HOSTNAME: the node's hostname, default this host's)
#   PRIVATE_SLURM_CTLD_ADDR      the address slurmctld is reached at (default 127.0.0.1)
#   PRIVATE_SLURM_NODE_LAUNCHER  a command that starts a node's daemon where the node is:
#                                called as LAUNCHER NAME slurmd OPTIONS... (default: none, the
#                                slurmd runs here)
#   PRIVATE_SLURM_CONF_EXTRA     lines added to the end of slurm.conf
#
# After a successful start these are exported for the caller and the jobs it submits:
#   SLURM_CONF            the private slurm.conf (every Slurm command reads it)
#   PRIVATE_SLURM_DIR     DIR
#   PRIVATE_SLURM_NODES   the nodes' names ("nvnode amdnode mixnode")
# The daemons (and so every slurmstepd) carry PRIVATE_SLURM_TAG=<DIR/tag> in their environment;
# a job submitted with that variable set carries it too.  private_slurm_stop finds leftovers by
# it, and only those: the caller's own shell does not carry it.

PRIVATE_SLURM_DEFAULT_LAYOUT="nvnode 127.0.0.1 all,nv gpu:nv:2
amdnode 127.0.0.1 all,amd gpu:amd:2
mixnode 127.0.0.1 mix gpu:nv:1,gpu:amd:1"
PRIVATE_SLURM_NODES=""
PRIVATE_SLURM_ERROR=""

_private_slurm_log() { echo "private-slurm: $*" >&2; }

# N distinct TCP ports nothing listens on, below Linux's ephemeral range (32768-60999).
_private_slurm_free_ports() {
  local want=$1 used picked="" port tries=0
  used=$(ss -Htan 2>/dev/null | awk '{n = split($4, a, ":"); print a[n]}')
  while [ "$(wc -w <<<"$picked")" -lt "$want" ]; do
    tries=$((tries + 1))
    [ "$tries" -lt 1000 ] || return 1
    port=$((20000 + RANDOM % 12000))
    grep -qx "$port" <<<"$used" && continue
    grep -qw "$port" <<<"$picked" && continue
    picked="$picked $port"
  done
  echo $picked
}

# Waits up to $2 seconds for the shell command "$1" to succeed.
_private_slurm_wait_for() {
  local deadline=$((SECONDS + $2))
  until eval "$1" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.5
  done
}

_private_slurm_fail() {
  PRIVATE_SLURM_ERROR=$1
  _private_slurm_log "$1"
  local log
  for log in "$PRIVATE_SLURM_DIR"/log/*.log "$PRIVATE_SLURM_DIR"/munge/munged.log; do
    [ -s "$log" ] || continue
    _private_slurm_log "--- last lines of ${log##*/}:"
    tail -n 10 "$log" | sed 's/^/    /' >&2
  done
  return 1
}

# Reads the layout into _private_slurm_layout (NAME ADDRESS PARTITIONS GRES HOSTNAME per line)
# and PRIVATE_SLURM_NODES.
_private_slurm_read_layout() {
  local host=$1 name address partitions gres hostname rest
  _private_slurm_layout=""
  PRIVATE_SLURM_NODES=""
  while read -r name address partitions gres hostname rest; do
    [ -n "$name" ] || continue
    [ -n "$gres" ] && [ -z "$rest" ] \
      || { PRIVATE_SLURM_ERROR="PRIVATE_SLURM_LAYOUT: bad line '$name $address $partitions $gres $hostname $rest'"; return 1; }
    _private_slurm_layout+="$name $address $partitions $gres ${hostname:-$host}"$'\n'
    PRIVATE_SLURM_NODES+="${PRIVATE_SLURM_NODES:+ }$name"
  done <<<"${PRIVATE_SLURM_LAYOUT:-$PRIVATE_SLURM_DEFAULT_LAYOUT}"
  [ -n "$PRIVATE_SLURM_NODES" ] || { PRIVATE_SLURM_ERROR="PRIVATE_SLURM_LAYOUT names no node"; return 1; }
}

private_slurm_start() {
  local dir=$1
  PRIVATE_SLURM_DIR=$dir
  export PRIVATE_SLURM_DIR PRIVATE_SLURM_NODES
  local tool
  # The daemons live in sbin, which a non-login root shell (CI) may not have on its PATH.
  case ":$PATH:" in *:/usr/sbin:*) ;; *) PATH=$PATH:/usr/sbin:/sbin ;; esac
  for tool in munged slurmctld slurmd slurmstepd sbatch srun sinfo squeue scancel scontrol ss; do
    command -v "$tool" >/dev/null 2>&1 \
      || { PRIVATE_SLURM_ERROR="$tool not found (Debian: apt-get install slurm-wlm munge)"; return 1; }
  done
  [ "$(id -u)" -eq 0 ] \
    || { PRIVATE_SLURM_ERROR="needs root (slurmd starts job steps as the submitting user; munged runs as user munge)"; return 1; }
  id munge >/dev/null 2>&1 || { PRIVATE_SLURM_ERROR="no 'munge' user (install the munge package)"; return 1; }
  local host
  host=$(hostname -s)
  _private_slurm_read_layout "$host" || return 1

  local tag="private-slurm-$$-$RANDOM$RANDOM" node
  mkdir -p "$dir" && echo "$tag" >"$dir/tag" || { PRIVATE_SLURM_ERROR="cannot write to $dir"; return 1; }
  mkdir -p "$dir"/{munge,munge-socket,etc,state,log,run}
  for node in $PRIVATE_SLURM_NODES; do mkdir -p "$dir/spool/$node" "$dir/tmp/$node"; done

  # munged runs as `munge`: it must reach its files through DIR (mktemp makes it 0700), insists
  # on a key only it can read in a directory only it can write, and its socket's directory must
  # be reachable by every user of Slurm's commands.  The socket is a file: daemons in other
  # network namespaces reach it as well.
  chmod 0755 "$dir"
  su -s /bin/sh munge -c "test -x '$dir'" 2>/dev/null \
    || { PRIVATE_SLURM_ERROR="user munge cannot reach $dir (a parent directory is not searchable)"; return 1; }
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chown -R munge: "$dir/munge" "$dir/munge-socket"
  chmod 0700 "$dir/munge" && chmod 0400 "$dir/munge/munge.key" && chmod 0755 "$dir/munge-socket"
  local socket="$dir/munge-socket/munge.socket"
  PRIVATE_SLURM_TAG=$tag su -s /bin/sh munge -c "exec munged --socket='$socket' \
      --key-file='$dir/munge/munge.key' --pid-file='$dir/munge/munged.pid' \
      --log-file='$dir/munge/munged.log' --seed-file='$dir/munge/munged.seed'" \
      >"$dir/log/munged-start.log" 2>&1 \
    || { _private_slurm_fail "munged did not start"; return; }
  _private_slurm_wait_for "[ -S '$socket' ]" 10 || { _private_slurm_fail "munged's socket did not appear"; return; }

  local cpus ports ctld_port ctld_addr=${PRIVATE_SLURM_CTLD_ADDR:-127.0.0.1} count
  cpus=$(nproc)
  count=$(wc -w <<<"$PRIVATE_SLURM_NODES")
  ports=$(_private_slurm_free_ports $((count + 1))) || { _private_slurm_fail "no free TCP ports"; return; }
  read -r ctld_port ports <<<"$ports"

  # slurm.conf's node and partition lines and gres.conf from the layout: every node on its own
  # port (nodes may share an address), its GPUs backed by the next spare device files; one
  # partition per name, of the nodes that name it, the first name the default partition.
  local node_lines="" gres_lines="" partition_lines="" partition_order="" address partitions gres
  local hostname port item type number files p items spare
  local -A partition_nodes=()
  while read -r node address partitions gres hostname; do
    [ -n "$node" ] || continue
    read -r port ports <<<"$ports"
    local gres_opt=""
    [ "$gres" = - ] || gres_opt=" Gres=$gres"
    node_lines+="NodeName=$node NodeHostname=$hostname NodeAddr=$address Port=$port CPUs=$cpus$gres_opt State=UNKNOWN"$'\n'
    # The order of a node's gres.conf lines is Slurm's GPU numbering on that node.
    spare=(/dev/null /dev/zero /dev/full /dev/random /dev/urandom)
    if [ "$gres" != - ]; then
      IFS=, read -ra items <<<"$gres"
      for item in "${items[@]}"; do
        IFS=: read -r _ type number <<<"$item"
        [ "${#spare[@]}" -ge "$number" ] || { _private_slurm_fail "node $node: more than ${#spare[@]} GPUs"; return; }
        files=$(IFS=,; echo "${spare[*]:0:$number}")
        spare=("${spare[@]:$number}")
        gres_lines+="NodeName=$node Name=gpu Type=$type File=$files"$'\n'
      done
    fi
    IFS=, read -ra items <<<"$partitions"
    for p in "${items[@]}"; do
      [ -n "${partition_nodes[$p]:-}" ] || partition_order+=" $p"
      partition_nodes[$p]+="${partition_nodes[$p]:+,}$node"
    done
  done <<<"$_private_slurm_layout"
  local default=" Default=YES"
  for p in $partition_order; do
    partition_lines+="PartitionName=$p Nodes=${partition_nodes[$p]}$default MaxTime=30 State=UP"$'\n'
    default=""
  done

  export SLURM_CONF="$dir/etc/slurm.conf"
  cat >"$SLURM_CONF" <<EOF
# Private test cluster made by private-slurm.sh: slurmd "nodes" $PRIVATE_SLURM_NODES.
ClusterName=hetccltest
SlurmctldHost=$host($ctld_addr)
SlurmctldPort=$ctld_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
# Per node, because the nodes may be one host: the PMIx plugin makes its client directory
# TmpFS/spmix_appdir_UID_JOB.STEP, and a step spanning two nodes would make it twice (the
# second slurmstepd fails with "File exists").
TmpFS=$dir/tmp/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$dir/etc/plugstack.conf
# No cgroups or systemd here: track processes by parent pid, bind nothing.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
# Heterogeneous jobs are started by the backfill scheduler only: every second, not every 30.
SchedulerParameters=bf_interval=1
MpiDefault=pmix
GresTypes=gpu
ReturnToService=2
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
MinJobAge=30
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
${node_lines}${partition_lines}${PRIVATE_SLURM_CONF_EXTRA:-}
EOF
  printf '%s' "$gres_lines" >"$dir/etc/gres.conf"
  : >"$dir/etc/plugstack.conf"

  PRIVATE_SLURM_TAG=$tag slurmctld -f "$SLURM_CONF" >"$dir/log/slurmctld-start.log" 2>&1 \
    || { _private_slurm_fail "slurmctld did not start"; return; }
  _private_slurm_wait_for "scontrol ping | grep -q UP" 30 || { _private_slurm_fail "slurmctld does not answer"; return; }
  local launcher=()
  # shellcheck disable=SC2206  # a command and its options
  [ -z "${PRIVATE_SLURM_NODE_LAUNCHER:-}" ] || launcher=($PRIVATE_SLURM_NODE_LAUNCHER "NODE")
  for node in $PRIVATE_SLURM_NODES; do
    [ ${#launcher[@]} -eq 0 ] || launcher[-1]=$node
    PRIVATE_SLURM_TAG=$tag "${launcher[@]}" slurmd -f "$SLURM_CONF" -N "$node" \
      >"$dir/log/slurmd-$node-start.log" 2>&1 \
      || { _private_slurm_fail "slurmd -N $node did not start"; return; }
  done
  _private_slurm_wait_for "[ \"\$(sinfo -h -N -o '%N %t' | sort -u | grep -c ' idle$')\" -eq $count ]" 60 \
    || { _private_slurm_fail "nodes not idle after 60 s: $(sinfo -h -N -o '%N %t %E' 2>&1 | sort -u | tr '\n' ';')"; return; }
  _private_slurm_log "up: slurmctld at $ctld_addr:$ctld_port, nodes $PRIVATE_SLURM_NODES"
}

# Pids of the processes that carry the tag in their environment.
_private_slurm_tagged_pids() {
  local tag=$1 environ pid
  for environ in /proc/[0-9]*/environ; do
    pid=${environ#/proc/}
    pid=${pid%/environ}
    [ "$pid" != "$$" ] && [ "$pid" != "${BASHPID:-}" ] || continue
    grep -qxzF "PRIVATE_SLURM_TAG=$tag" "$environ" 2>/dev/null && echo "$pid"
  done
}

# SIGTERM to the pid in a pid file, SIGKILL if it is still there after 10 s.
_private_slurm_kill_pidfile() {
  local file=$1 pid
  [ -s "$file" ] || return 0
  pid=$(cat "$file")
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  _private_slurm_log "pid $pid (${file##*/}) still there 10 s after SIGTERM: SIGKILL"
  kill -KILL "$pid" 2>/dev/null
}

private_slurm_stop() {
  local dir=${PRIVATE_SLURM_DIR:-}
  [ -n "$dir" ] && [ -d "$dir" ] || return 0
  local tag node pids
  tag=$(cat "$dir/tag" 2>/dev/null)
  # Jobs first, while slurmctld and the slurmds can still end them properly.
  if [ -s "$dir/run/slurmctld.pid" ] && kill -0 "$(cat "$dir/run/slurmctld.pid")" 2>/dev/null \
     && [ -n "$(SLURM_CONF=$dir/etc/slurm.conf squeue -h -o %i 2>/dev/null)" ]; then
    SLURM_CONF=$dir/etc/slurm.conf scancel --full 2>/dev/null
    _private_slurm_wait_for "[ -z \"\$(SLURM_CONF=$dir/etc/slurm.conf squeue -h -o %i)\" ]" 15 || true
  fi
  # The slurmds in parallel (each takes a moment to shut down), then slurmctld and munged.
  for node in $PRIVATE_SLURM_NODES; do _private_slurm_kill_pidfile "$dir/run/slurmd-$node.pid" & done
  wait
  _private_slurm_kill_pidfile "$dir/run/slurmctld.pid"
  _private_slurm_kill_pidfile "$dir/munge/munged.pid"
  # Whatever is left: a slurmstepd or job process whose step did not end, slurmctld's script
  # helper.  Found by the tag, so nothing of anybody else's is touched.
  if [ -n "$tag" ]; then
    pids=$(_private_slurm_tagged_pids "$tag")
    if [ -n "$pids" ]; then
      _private_slurm_log "stopping processes left behind: $(echo $pids)"
      # shellcheck disable=SC2086
      kill -TERM $pids 2>/dev/null
      sleep 1
      pids=$(_private_slurm_tagged_pids "$tag")
      # shellcheck disable=SC2086
      [ -z "$pids" ] || kill -KILL $pids 2>/dev/null
    fi
  fi
  PRIVATE_SLURM_DIR=""
}
