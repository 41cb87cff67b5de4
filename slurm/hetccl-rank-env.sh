#!/bin/bash
# hetccl-rank-env.sh COMMAND [ARGS...]
#
# Runs COMMAND (one MPI rank) with the environment hetccl needs to pick this rank's device in a
# job that may mix GPU vendors.  Put it between the launcher and the program:
#     srun --mpi=pmix hetccl-rank-env.sh hetccl-perf allreduce ...
#     mpirun ... hetccl-rank-env.sh hetccl-perf allreduce ...
# It prints one line per rank on stderr (the job's rank -> vendor map) and then execs COMMAND:
#     hetccl-rank-env: rank 2/4 node amdnode local 0 het-group 1: vendor amd device host id 0 ...
#
# What it exports:
#   HETCCL_DEVICE         cuda (NVIDIA rank with an NVIDIA GPU on its node), hip (AMD rank with
#                         an AMD GPU), host (HETCCL_FORCE_HOST=1, or no GPU of the rank's vendor:
#                         a CPU test cluster whose GPUs are fake GRES).  A value other than auto
#                         that the user set is kept.
#   HETCCL_DEVICE_ID      the local rank (SLURM_LOCALID under srun, OMPI_COMM_WORLD_LOCAL_RANK
#                         under mpirun) modulo the number of devices the rank can see
#   HETCCL_EMULATE_VENDORS  on host devices only, and only if not set already: the job's vendor
#                         list (HETCCL_JOB_VENDORS, or made from the het job's components), the
#                         same on every rank, so a CPU-only cluster forms the same islands as
#                         the real mixed cluster would
#   HETCCL_RANK_VENDOR    the vendor it worked out (below), for programs that want to know
#   CUDA_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES / GPU_DEVICE_ORDINAL: see the pitfall below
#
# The rank's vendor, first that applies:
#   1. HETCCL_RANK_VENDOR (nvidia|amd|host) set for this rank by the user;
#   2. HETCCL_JOB_VENDORS, the vendors of all ranks in world-rank order (`nvidia:4,amd:4`, the
#      syntax of HETCCL_EMULATE_VENDORS), indexed by this rank's world rank;
#   3. the Slurm heterogeneous job component of the rank -- SLURM_HET_JOB_COMPONENT where Slurm
#      sets it, else worked out from the world rank and SLURM_NTASKS_HET_GROUP_<i> (a step over
#      --het-group=0,1,... numbers group 0's tasks first, then group 1's, ...) -- mapped through
#      HETCCL_HET_VENDORS (vendor of each component, default `nvidia,amd`);
#   4. the GPUs on the node (PCI vendor 0x10de NVIDIA, 0x1002 AMD); none: host.
#
# PITFALL -- CUDA_VISIBLE_DEVICES and ROCR_VISIBLE_DEVICES.  Slurm's gpu GRES plugin does not
# know which vendor a GPU is: for the GPUs a step gets it sets CUDA_VISIBLE_DEVICES,
# ROCR_VISIBLE_DEVICES and GPU_DEVICE_ORDINAL all to the same list of indices, counted over all
# GPUs of the node in gres.conf order (seen with Slurm 22.05, test/slurm).  Consequences:
#   * on a node with both vendors (Gres=gpu:nv:1,gpu:amd:1) the AMD GPU is index 1 for Slurm,
#     index 0 for ROCm: a job given the AMD GPU gets ROCR_VISIBLE_DEVICES=1 (no such GPU) and
#     CUDA_VISIBLE_DEVICES=1; a job given both GPUs gets 0,1 in all three variables.  gres.conf's
#     Flags=nvidia_gpu_env / amd_gpu_env cannot fix it: Slurm 22.05 refuses different env flags
#     for the GPUs of one node (slurmd exits).
#   * on an AMD rank the extra variables do harm even on an AMD-only node: HIP also honours
#     CUDA_VISIBLE_DEVICES (and GPU_DEVICE_ORDINAL) and applies them after ROCR's selection, to
#     GPUs ROCR has already renumbered from 0 -- a job given GPUs 2,3 would ask HIP for 2,3 of
#     its 2 visible GPUs (ROCm's documented behaviour; no AMD GPU here to run it on).
# So this script keeps only the rank's own vendor's variable and removes the others (an NVIDIA
# rank: CUDA_VISIBLE_DEVICES; an AMD rank: ROCR_VISIBLE_DEVICES), and on mixed nodes renumbers:
#   HETCCL_GRES_ORDER   vendors in the order gres.conf lists a mixed node's GPUs (`nvidia,amd`).
#                       Set it for jobs on mixed nodes: Slurm's indices are shifted by the
#                       number of GPUs of the vendors listed before the rank's (counted on the
#                       node) and indices that are not the rank's vendor's are dropped.
#
# Other settings:
#   HETCCL_FORCE_HOST=1        host devices even where GPUs exist (the CPU path, for testing)
#   HETCCL_RANK_ENV_QUIET=1    no per-rank line
#   HETCCL_PCI_DEVICES_DIR     where to count GPUs (default /sys/bus/pci/devices; tests point it
#                              at a fake tree)
set -u

say() { [ "${HETCCL_RANK_ENV_QUIET:-0}" = 1 ] || echo "hetccl-rank-env: $*" >&2; }
die() { echo "hetccl-rank-env: error: $*" >&2; exit 2; }

[ $# -ge 1 ] || die "usage: hetccl-rank-env.sh COMMAND [ARGS...]"

# World rank, size and local rank.  Under mpirun the Open MPI variables come first: processes
# started through Slurm's srun (orted) also inherit SLURM_PROCID/SLURM_LOCALID of that srun,
# which are the daemon's, not the rank's.
rank=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${SLURM_PROCID:-${PMI_RANK:-0}}}}
size=${OMPI_COMM_WORLD_SIZE:-${SLURM_STEP_NUM_TASKS:-${SLURM_NTASKS:-${PMI_SIZE:-1}}}}
local_rank=${OMPI_COMM_WORLD_LOCAL_RANK:-${SLURM_LOCALID:-${MPI_LOCALRANKID:-0}}}
node=${SLURMD_NODENAME:-$(hostname -s)}

# Expands "a:2,b,c:3" into one name per line.
expand_list() {
  local entry name count
  local IFS=,
  for entry in $1; do
    name=${entry%%:*}
    count=1
    [ "$name" = "$entry" ] || count=${entry#*:}
    [[ $count =~ ^[0-9]+$ ]] || die "bad count in '$entry' of '$1'"
    for ((i = 0; i < count; i++)); do echo "$name"; done
  done
}

# The heterogeneous job component of a world rank from SLURM_NTASKS_HET_GROUP_<i>; empty if
# this is not a heterogeneous job.
het_group_of_rank() {
  local r=$1 g=0 first=0 n
  [ -n "${SLURM_HET_SIZE:-}" ] || return 0
  while [ "$g" -lt "$SLURM_HET_SIZE" ]; do
    n=$(printenv "SLURM_NTASKS_HET_GROUP_$g") || return 0
    if [ "$r" -lt $((first + n)) ]; then echo "$g"; return 0; fi
    first=$((first + n))
    g=$((g + 1))
  done
}

# Number of GPUs of a vendor on this node (PCI display/3D/processing-accelerator class 0x03).
pci_dir=${HETCCL_PCI_DEVICES_DIR:-/sys/bus/pci/devices}
count_gpus() {
  local want count=0 dev
  case $1 in nvidia) want=0x10de ;; amd) want=0x1002 ;; *) echo 0; return ;; esac
  for dev in "$pci_dir"/*; do
    [ -r "$dev/vendor" ] && [ -r "$dev/class" ] || continue
    [ "$(cat "$dev/vendor")" = "$want" ] || continue
    case $(cat "$dev/class") in 0x03*) count=$((count + 1)) ;; esac
  done
  echo "$count"
}

vendor_source=""
het_group=""
if [ -n "${HETCCL_RANK_VENDOR:-}" ]; then
  vendor=$HETCCL_RANK_VENDOR; vendor_source="HETCCL_RANK_VENDOR"
elif [ -n "${HETCCL_JOB_VENDORS:-}" ]; then
  mapfile -t job_vendors < <(expand_list "$HETCCL_JOB_VENDORS")
  [ "${#job_vendors[@]}" -eq "$size" ] \
    || die "HETCCL_JOB_VENDORS=$HETCCL_JOB_VENDORS names ${#job_vendors[@]} ranks, the job has $size"
  vendor=${job_vendors[$rank]}; vendor_source="HETCCL_JOB_VENDORS"
  het_group=$(het_group_of_rank "$rank")
else
  het_group=${SLURM_HET_JOB_COMPONENT:-$(het_group_of_rank "$rank")}
  if [ -n "$het_group" ]; then
    IFS=, read -r -a het_vendors <<<"${HETCCL_HET_VENDORS:-nvidia,amd}"
    [ "$het_group" -lt "${#het_vendors[@]}" ] \
      || die "het group $het_group has no vendor in HETCCL_HET_VENDORS=${HETCCL_HET_VENDORS:-nvidia,amd}"
    vendor=${het_vendors[$het_group]}; vendor_source="het group $het_group"
    # The whole job's list, the same on every rank, for emulation below.
    for ((g = 0; g < ${SLURM_HET_SIZE:-0}; g++)); do
      n=$(printenv "SLURM_NTASKS_HET_GROUP_$g") || break
      HETCCL_JOB_VENDORS=${HETCCL_JOB_VENDORS:+$HETCCL_JOB_VENDORS,}${het_vendors[$g]:-unknown}:$n
    done
  else
    nv=$(count_gpus nvidia); amd=$(count_gpus amd)
    if [ "$nv" -gt 0 ] && [ "$amd" -gt 0 ]; then
      die "node $node has NVIDIA and AMD GPUs: say which this rank uses (HETCCL_JOB_VENDORS or HETCCL_RANK_VENDOR)"
    elif [ "$nv" -gt 0 ]; then vendor=nvidia
    elif [ "$amd" -gt 0 ]; then vendor=amd
    else vendor=host
    fi
    vendor_source="GPUs on the node"
  fi
fi
case $vendor in nvidia | amd | host) ;; *) die "unknown vendor '$vendor' ($vendor_source): expected nvidia, amd or host" ;; esac

# Device kind.
gpus=$(count_gpus "$vendor")
device_reason=""
if [ -n "${HETCCL_DEVICE:-}" ] && [ "$HETCCL_DEVICE" != auto ]; then
  device=$HETCCL_DEVICE; device_reason="set by the user"
elif [ "${HETCCL_FORCE_HOST:-0}" = 1 ]; then
  device=host; device_reason="HETCCL_FORCE_HOST=1"
elif [ "$vendor" = host ]; then
  device=host; device_reason="no GPU"
elif [ "$gpus" -eq 0 ]; then
  device=host; device_reason="no $vendor GPU on the node"
else
  case $vendor in nvidia) device=cuda ;; amd) device=hip ;; esac
  device_reason="$gpus $vendor GPU(s) on the node"
fi

# Visible devices (see the pitfall above).  Slurm's list, whichever variable carries it.
slurm_list=${CUDA_VISIBLE_DEVICES:-${ROCR_VISIBLE_DEVICES:-${GPU_DEVICE_ORDINAL:-}}}
own_list=""
case $vendor in
  nvidia) own_var=CUDA_VISIBLE_DEVICES; own_list=${CUDA_VISIBLE_DEVICES:-} ;;
  amd) own_var=ROCR_VISIBLE_DEVICES; own_list=${ROCR_VISIBLE_DEVICES:-} ;;
  *) own_var="" ;;
esac
if [ -n "$own_var" ] && [ -n "${HETCCL_GRES_ORDER:-}" ] && [ -n "$slurm_list" ]; then
  base=0
  IFS=, read -r -a order <<<"$HETCCL_GRES_ORDER"
  for v in "${order[@]}"; do
    [ "$v" = "$vendor" ] && break
    base=$((base + $(count_gpus "$v")))
  done
  own_list=""
  IFS=, read -r -a indices <<<"$slurm_list"
  for index in "${indices[@]}"; do
    [[ $index =~ ^[0-9]+$ ]] || continue
    local_index=$((index - base))
    if [ "$local_index" -ge 0 ] && [ "$local_index" -lt "$gpus" ]; then
      own_list=${own_list:+$own_list,}$local_index
    fi
  done
fi
unset GPU_DEVICE_ORDINAL
case $vendor in
  nvidia) unset ROCR_VISIBLE_DEVICES ;;
  amd) unset CUDA_VISIBLE_DEVICES ;;
esac
if [ -n "$own_var" ]; then
  if [ -n "$own_list" ]; then export "$own_var=$own_list"; else unset "$own_var"; fi
fi

# Device index: the local rank, wrapped over the devices the rank sees.
visible=0
if [ -n "$own_list" ]; then
  IFS=, read -r -a entries <<<"$own_list"
  visible=${#entries[@]}
elif [ "$device" != host ]; then
  visible=$gpus
fi
device_id=$local_rank
[ "$visible" -gt 0 ] && device_id=$((local_rank % visible))

export HETCCL_DEVICE=$device HETCCL_DEVICE_ID=$device_id HETCCL_RANK_VENDOR=$vendor
emulated=""
if [ "$device" = host ] && [ -z "${HETCCL_EMULATE_VENDORS:-}" ] && [ -n "${HETCCL_JOB_VENDORS:-}" ]; then
  export HETCCL_EMULATE_VENDORS=$HETCCL_JOB_VENDORS
  emulated=" HETCCL_EMULATE_VENDORS=$HETCCL_EMULATE_VENDORS"
fi

say "rank $rank/$size node $node local $local_rank${het_group:+ het-group $het_group}:" \
  "vendor $vendor ($vendor_source) device $device id $device_id ($device_reason)" \
  "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-<unset>} ROCR_VISIBLE_DEVICES=${ROCR_VISIBLE_DEVICES-<unset>}$emulated"
exec "$@"
