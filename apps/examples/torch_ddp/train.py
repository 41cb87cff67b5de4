"""Data-parallel training with torch's DistributedDataParallel over the "hetccl" backend (or
"gloo", for comparison): a small multi-layer network, with small gradient buckets so that each
backward pass sends its gradients in many all-reduces.

Launch one process per rank with MPI (hetccl communicates over MPI):
    mpirun -np 4 -x HETCCL_EMULATE_VENDORS=nvidia:2,amd:2 /usr/bin/python3 train.py --store /tmp/store
Every rank prints nothing but errors; rank 0 writes a JSON summary (--out) and a line per run:
the loss of every step, the median step time, and whether every rank ends with bit-identical
parameters.
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

import hetccl.torch as hetccl_torch


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", default="hetccl", choices=["hetccl", "gloo"])
    parser.add_argument("--store", required=True, help="file for torch's FileStore (empty or absent)")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--layers", type=int, default=6)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--bucket-kb", type=float, default=64, help="DDP gradient bucket size")
    parser.add_argument("--lr", type=float, default=0.02)
    parser.add_argument("--out", help="JSON summary written by rank 0")
    return parser.parse_args()


def model(layers, width):
    torch.manual_seed(0)  # the same initial parameters on every rank (DDP also broadcasts them)
    blocks = []
    for _ in range(layers - 1):
        blocks += [torch.nn.Linear(width, width), torch.nn.Tanh()]
    blocks.append(torch.nn.Linear(width, 1))
    return torch.nn.Sequential(*blocks)


def batch(step, rank, size, args):
    """This rank's share of the step's data: the same global batch whatever the backend."""
    generator = torch.Generator().manual_seed(step * size + rank)
    inputs = torch.randn(args.batch, args.width, generator=generator)
    targets = 0.5 * inputs[:, :8].sum(dim=1, keepdim=True).sin()
    return inputs, targets


def parameters_identical(net, size):
    """Whether every rank holds bit-identical parameters (gathered over the training group)."""
    flat = torch.cat([p.detach().flatten() for p in net.parameters()])
    gathered = [torch.empty_like(flat) for _ in range(size)]
    dist.all_gather(gathered, flat)
    return all(torch.equal(gathered[0], other) for other in gathered[1:])


def main():
    args = arguments()
    rank, size = hetccl_torch.mpi_world()
    dist.init_process_group(args.backend, init_method=f"file://{args.store}", rank=rank, world_size=size)
    net = DistributedDataParallel(model(args.layers, args.width), bucket_cap_mb=args.bucket_kb / 1024)
    optimizer = torch.optim.SGD(net.parameters(), lr=args.lr)
    losses, step_seconds = [], []
    for step in range(args.steps):
        inputs, targets = batch(step, rank, size, args)
        start = time.perf_counter()
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(net(inputs), targets)
        loss.backward()  # DDP all-reduces the gradients bucket by bucket, overlapped with backward
        optimizer.step()
        step_seconds.append(time.perf_counter() - start)
        mean_loss = loss.detach().clone()
        dist.all_reduce(mean_loss)
        losses.append(mean_loss.item() / size)
    identical = parameters_identical(net.module, size)
    summary = {
        "backend": args.backend,
        "ranks": size,
        "steps": args.steps,
        "parameters": sum(p.numel() for p in net.parameters()),
        "bucket_kb": args.bucket_kb,
        "losses": losses,
        "step_ms_median": 1000 * statistics.median(step_seconds[1:] or step_seconds),
        "parameters_identical": identical,
    }
    if args.backend == "hetccl":
        summary["hetccl_algorithm"] = hetccl_torch.last_algorithm()
    if rank == 0:
        print(f"{args.backend}: {size} ranks, {args.steps} steps, loss {losses[0]:.6f} -> {losses[-1]:.6f}, "
              f"median step {summary['step_ms_median']:.2f} ms, parameters identical on every rank: {identical}",
              flush=True)
        if args.out:
            with open(args.out, "w") as out:
                json.dump(summary, out, indent=1)
    return 0 if identical else 1


if __name__ == "__main__":
    code = main()
    # torch 1.13's Gloo group can hang at interpreter exit while DDP's reducer is destroyed (its
    # worker thread waits for the GIL that the destructor holds), so leave without tearing down
    # torch, once MPI is finalised.
    sys.stdout.flush()
    hetccl_torch.finalize()
    os._exit(code)
