#!/bin/bash
# hetccl-mpirun-agent.sh NODE COMMAND...
#
# Open MPI's remote-start agent (mpirun --mca plm rsh --mca plm_rsh_agent THIS) inside a Slurm
# heterogeneous job, used by hetccl_run_het (hetccl-slurm-lib.sh) when LAUNCHER=mpirun.  Open
# MPI calls it like ssh: a node name, then the daemon's command line for a shell.  It starts
# that command on NODE as a one-task step of the het job component that holds NODE (a plain
# srun only reaches component 0), overlapping the job's other steps.
set -u
node=${1:?usage: hetccl-mpirun-agent.sh NODE COMMAND...}
shift
group=""
for ((g = 0; g < ${SLURM_HET_SIZE:-0}; g++)); do
  if scontrol show hostnames "$(printenv "SLURM_JOB_NODELIST_HET_GROUP_$g")" | grep -qx "$node"; then
    group=$g
    break
  fi
done
[ -n "$group" ] || { echo "hetccl-mpirun-agent: node $node is in no component of job ${SLURM_JOB_ID:-?}" >&2; exit 1; }
# Each daemon gets its own session directory base (Open MPI's and its PMIx server's files):
# daemons of one job on one host -- on a test cluster whose "nodes" share a host -- otherwise
# race to create the same directories and one of them fails ("A call to mkdir was unable to
# create the desired directory").  It is removed when the daemon ends.
base="${TMPDIR:-/tmp}/hetccl-orte.${SLURM_JOB_ID:-0}.$node"
# --cpu-bind=none: the daemon's binding would be inherited by every rank it starts.  (Where
# Slurm binds nothing, TaskPlugin=task/none, srun says "cluster configuration lacks support for
# cpu binding": harmless.)
exec srun --het-group="$group" --nodelist="$node" --nodes=1 --ntasks=1 --overlap --mpi=none \
  --kill-on-bad-exit=1 --cpu-bind=none \
  bash -c "mkdir -p '$base' && export OMPI_MCA_orte_tmpdir_base='$base' && ( $* ); status=\$?; rm -rf '$base'; exit \$status"
