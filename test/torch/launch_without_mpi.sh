#!/bin/bash
# Two ranks started as separate programs, without mpirun: each is its own MPI job of one
# process, and init_process_group("hetccl") must fail on both with an error that says how to
# launch, instead of hanging or running two one-rank jobs.
# Usage: launch_without_mpi.sh WORK_DIR
set -euo pipefail
work=$1
rm -rf "$work"
mkdir -p "$work"
program='
import datetime, sys
import torch.distributed as dist
import hetccl.torch
try:
    dist.init_process_group("hetccl", init_method="file://" + sys.argv[2], rank=int(sys.argv[1]), world_size=2,
                            timeout=datetime.timedelta(seconds=30))
except Exception as error:
    print("refused:", error)
    sys.exit(0 if "launch with mpirun or srun --mpi=pmix" in str(error) else 1)
print("not refused")
sys.exit(1)
'
timeout 60 /usr/bin/python3 -c "$program" 0 "$work/store" > "$work/rank0.log" 2>&1 &
first=$!
status=0
timeout 60 /usr/bin/python3 -c "$program" 1 "$work/store" > "$work/rank1.log" 2>&1 || status=1
wait "$first" || status=1
cat "$work/rank0.log" "$work/rank1.log"
exit $status
