"""torch.distributed all-reduce time over the "hetccl" backend and over Gloo, in one job on the
same ranks: both process groups live in every process and the two backends alternate size by
size and repetition by repetition, so machine noise falls on both alike.

Launch one process per rank with MPI (hetccl communicates over MPI; Gloo rendezvouses through
torch's FileStore, so the file must be on a filesystem every rank sees):
    mpirun -np 4 /usr/bin/python3 bench/torch_allreduce.py --store /tmp/store -e 32M
On several hosts (or namespace nodes) set GLOO_SOCKET_IFNAME to the interface between them.
Rank 0 prints a table (median microseconds per all-reduce of float32 sums, and the ratio) and
writes it as JSON with --json.  Every result is checked: the inputs are small integers, so the
exact sum is known and any wrong element fails the run.
"""
import argparse
import json
import statistics
import sys
import time

import torch
import torch.distributed as dist

import hetccl.torch as hetccl_torch


def size_bytes(text):
    units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.upper().rstrip("B")
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", required=True, help="file for torch's FileStore (empty or absent)")
    parser.add_argument("-b", "--begin", default="8", help="smallest size in bytes (8, 4K, 1M)")
    parser.add_argument("-e", "--end", default="32M", help="largest size in bytes")
    parser.add_argument("-f", "--factor", type=int, default=4, help="size multiplier between rows")
    parser.add_argument("-n", "--iters", type=int, default=10, help="timed all-reduces per backend and size")
    parser.add_argument("-w", "--warmup", type=int, default=2, help="untimed all-reduces before them")
    parser.add_argument("--json", help="also write the table as JSON (rank 0)")
    return parser.parse_args()


def timed_all_reduce(tensor, group, rank, size):
    """Seconds for one all-reduce as the slowest rank saw it (start aligned by a barrier)."""
    tensor.fill_(rank + 1)
    dist.barrier(group=group)
    start = time.perf_counter()
    dist.all_reduce(tensor, group=group)
    elapsed = time.perf_counter() - start
    expected = size * (size + 1) / 2  # exact in float32 for any rank count here
    if not bool((tensor == expected).all()):
        wrong = int((tensor != expected).sum())
        sys.exit(f"torch_allreduce: rank {rank}: {wrong} of {tensor.numel()} elements wrong")
    slowest = torch.tensor([elapsed], dtype=torch.float64)
    dist.all_reduce(slowest, op=dist.ReduceOp.MAX, group=group)
    return float(slowest)


def main():
    args = arguments()
    rank, size = hetccl_torch.mpi_world()
    dist.init_process_group("hetccl", init_method=f"file://{args.store}", rank=rank, world_size=size)
    groups = {"hetccl": dist.group.WORLD, "gloo": dist.new_group(backend="gloo")}
    rows = []
    nbytes = size_bytes(args.begin)
    while nbytes <= size_bytes(args.end):
        tensor = torch.empty(max(1, nbytes // 4), dtype=torch.float32)
        times = {name: [] for name in groups}
        for i in range(args.warmup + args.iters):
            for name, group in groups.items():
                seconds = timed_all_reduce(tensor, group, rank, size)
                if i >= args.warmup:
                    times[name].append(seconds)
        row = {"bytes": tensor.numel() * 4}
        row.update({f"{name}_us": statistics.median(t) * 1e6 for name, t in times.items()})
        rows.append(row)
        nbytes *= args.factor
    if rank == 0:
        print(f"# torch.distributed all_reduce (float32 sum), {size} ranks, median of {args.iters} after "
              f"{args.warmup} warm-up, both backends alternating in one job; time of the slowest rank")
        print(f"# {'bytes':>10} {'hetccl(us)':>12} {'gloo(us)':>12} {'gloo/hetccl':>12}")
        for row in rows:
            print(f"  {row['bytes']:>10} {row['hetccl_us']:>12.1f} {row['gloo_us']:>12.1f} "
                  f"{row['gloo_us'] / row['hetccl_us']:>12.2f}")
        if args.json:
            with open(args.json, "w") as out:
                json.dump({"ranks": size, "iters": args.iters, "rows": rows}, out, indent=1)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
