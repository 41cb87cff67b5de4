#!/bin/bash
# The DDP example (apps/examples/torch_ddp/train.py) trained with hetccl and with Gloo on the
# same ranks, data and initial parameters: every rank must end with bit-identical parameters,
# and the loss of every step must match Gloo's within a relative 1e-5.  Why a tolerance: the
# gradients' all-reduce sums float32 values in another order than Gloo's, which changes the last
# bit of a sum (a relative 6e-8); over tens of SGD steps the losses measured here stay within
# 2e-7 of each other, so 1e-5 leaves a wide margin while any real error (a dropped or doubled
# bucket, a wrong average) moves the loss by far more.
# Usage: ddp_matches_gloo.sh MPIEXEC NRANKS TRAIN_SCRIPT WORK_DIR [mpirun options...]
set -euo pipefail
mpiexec=$1 nranks=$2 train=$3 work=$4
shift 4
rm -rf "$work"
mkdir -p "$work"
for backend in hetccl gloo; do
  "$mpiexec" -np "$nranks" --oversubscribe "$@" /usr/bin/python3 "$train" --backend "$backend" \
    --store "$work/store-$backend" --out "$work/$backend.json" --steps 30 --bucket-kb 16
done
/usr/bin/python3 - "$work/hetccl.json" "$work/gloo.json" <<'PYTHON'
import json, sys
hetccl, gloo = (json.load(open(path)) for path in sys.argv[1:3])
worst = max(abs(h - g) / abs(g) for h, g in zip(hetccl["losses"], gloo["losses"]))
print(f"{len(hetccl['losses'])} steps: largest relative loss difference {worst:.2e}; "
      f"parameters identical on every rank: hetccl {hetccl['parameters_identical']}, "
      f"gloo {gloo['parameters_identical']}; median step {hetccl['step_ms_median']:.1f} ms (hetccl) "
      f"vs {gloo['step_ms_median']:.1f} ms (gloo)")
ok = len(hetccl["losses"]) == len(gloo["losses"]) == 30 and worst <= 1e-5 and hetccl["parameters_identical"]
sys.exit(0 if ok else 1)
PYTHON
