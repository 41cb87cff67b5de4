# shellcheck shell=bash
# Helpers shared by the sbatch scripts in this folder (sourced, not run).  They launch one MPI
# job over the whole allocation, or over every component of a heterogeneous job, with each rank
# going through hetccl-rank-env.sh.
#
# Settings (environment):
#   LAUNCHER       auto (default): srun --mpi=pmix if Slurm's srun has the pmix plugin, else
#                  mpirun.  srun | mpirun to choose.
#   SRUN_ARGS      extra srun options (word-split), e.g. "--overcommit"
#   MPIRUN_ARGS    extra mpirun options (word-split), e.g. "--mca btl self,tcp"
#   HETCCL_HET_VENDORS  vendor of each het job component, in component order (nvidia,amd)
#
# Functions:
#   hetccl_launcher            prints the launcher to use (srun or mpirun)
#   hetccl_run CMD...          CMD on every task of a (homogeneous) allocation
#   hetccl_run_het CMD...      CMD as ONE MPI job over all components of a heterogeneous job,
#                              ranks numbered component 0 first, then 1, ...
#   hetccl_export_job_vendors  exports HETCCL_JOB_VENDORS (e.g. nvidia:2,amd:2) from the het
#                              job's components and HETCCL_HET_VENDORS
# HETCCL_SLURM_DIR must name this folder (the sbatch scripts find it before sourcing this).

hetccl_die() { echo "hetccl-slurm: error: $*" >&2; exit 2; }

hetccl_launcher() {
  case ${LAUNCHER:-auto} in
    srun | mpirun) echo "$LAUNCHER" ;;
    auto)
      if [ -n "${SLURM_JOB_ID:-}" ] && command -v srun >/dev/null 2>&1 && srun --mpi=list 2>&1 | grep -qw pmix; then
        echo srun
      elif command -v mpirun >/dev/null 2>&1; then
        echo mpirun
      else
        hetccl_die "neither srun with the pmix plugin nor mpirun is available"
      fi
      ;;
    *) hetccl_die "LAUNCHER=$LAUNCHER: expected auto, srun or mpirun" ;;
  esac
}

hetccl_run() {
  local launcher
  launcher=$(hetccl_launcher) || exit
  local wrapper=$HETCCL_SLURM_DIR/hetccl-rank-env.sh
  # shellcheck disable=SC2086  # the *_ARGS are lists of options
  case $launcher in
    srun) srun --mpi=pmix ${SRUN_ARGS:-} "$wrapper" "$@" ;;
    # Open MPI reads the allocation (tasks per node) from Slurm itself.
    mpirun) mpirun ${MPIRUN_ARGS:-} "$wrapper" "$@" ;;
  esac
}

# Expands Slurm's tasks-per-node form "2(x3),1" into one count per line.
hetccl_expand_tasks_per_node() {
  local entry
  local IFS=,
  for entry in $1; do
    if [[ $entry =~ ^([0-9]+)\(x([0-9]+)\)$ ]]; then
      for ((i = 0; i < BASH_REMATCH[2]; i++)); do echo "${BASH_REMATCH[1]}"; done
    else
      echo "$entry"
    fi
  done
}

hetccl_het_size() {
  [ -n "${SLURM_HET_SIZE:-}" ] || hetccl_die "not a heterogeneous job (no SLURM_HET_SIZE): submit with '#SBATCH hetjob' components"
  echo "$SLURM_HET_SIZE"
}

hetccl_export_job_vendors() {
  local groups g n list=""
  groups=$(hetccl_het_size) || exit
  local -a vendors
  IFS=, read -r -a vendors <<<"${HETCCL_HET_VENDORS:-nvidia,amd}"
  [ "${#vendors[@]}" -ge "$groups" ] \
    || hetccl_die "HETCCL_HET_VENDORS=${HETCCL_HET_VENDORS:-nvidia,amd} names ${#vendors[@]} vendors for $groups components"
  for ((g = 0; g < groups; g++)); do
    n=$(printenv "SLURM_NTASKS_HET_GROUP_$g") || hetccl_die "no SLURM_NTASKS_HET_GROUP_$g"
    list=${list:+$list,}${vendors[$g]}:$n
  done
  export HETCCL_JOB_VENDORS=$list
}

# One MPI job over all components.  srun: a heterogeneous step (--het-group=0,1,...) with PMIx.
# mpirun: a hostfile of every component's nodes and task counts (component order = rank order),
# and Open MPI's daemons started by hetccl-mpirun-agent.sh through srun in the component that
# owns each node -- Open MPI does not know heterogeneous jobs: left alone it would see only
# component 0's nodes and start its daemons there.
hetccl_run_het() {
  local launcher groups g wrapper=$HETCCL_SLURM_DIR/hetccl-rank-env.sh
  launcher=$(hetccl_launcher) || exit
  groups=$(hetccl_het_size) || exit
  case $launcher in
    srun)
      local list=0
      for ((g = 1; g < groups; g++)); do list+=",$g"; done
      # shellcheck disable=SC2086
      srun --het-group="$list" --mpi=pmix ${SRUN_ARGS:-} "$wrapper" "$@"
      ;;
    mpirun)
      local hostfile total=0 nodes counts i
      hostfile=$(mktemp "${TMPDIR:-/tmp}/hetccl-hosts.XXXXXX") || exit
      for ((g = 0; g < groups; g++)); do
        mapfile -t nodes < <(scontrol show hostnames "$(printenv "SLURM_JOB_NODELIST_HET_GROUP_$g")")
        mapfile -t counts < <(hetccl_expand_tasks_per_node "$(printenv "SLURM_TASKS_PER_NODE_HET_GROUP_$g")")
        [ "${#nodes[@]}" -eq "${#counts[@]}" ] || hetccl_die "het group $g: ${#nodes[@]} nodes but ${#counts[@]} task counts"
        for ((i = 0; i < ${#nodes[@]}; i++)); do
          echo "${nodes[$i]} slots=${counts[$i]}" >>"$hostfile"
          total=$((total + counts[i]))
        done
      done
      # plm rsh + our agent instead of Open MPI's Slurm launcher; ras ^slurm so that the
      # hostfile, not component 0's node list, is the allocation; ranks fill the hostfile's
      # slots in order.
      local rc=0
      # shellcheck disable=SC2086
      mpirun -np "$total" --hostfile "$hostfile" --map-by slot \
        --mca plm rsh --mca plm_rsh_agent "$HETCCL_SLURM_DIR/hetccl-mpirun-agent.sh" --mca ras ^slurm \
        ${MPIRUN_ARGS:-} "$wrapper" "$@" || rc=$?
      rm -f "$hostfile"
      return $rc
      ;;
  esac
}
