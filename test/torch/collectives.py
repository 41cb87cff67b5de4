"""Every operation of the "hetccl" torch.distributed backend, checked bit-exactly against Gloo's
results (a Gloo group over the same ranks), or against a direct computation where Gloo 1.13 has
no such operation (AVG, reduce_scatter, all_gather_into_tensor, the list all_to_all); then
subgroups, Work objects and futures, and bad uses, which must raise clear errors.

Run by every rank under mpirun (the CTest entries, with emulated vendor layouts):
    mpirun -np 4 /usr/bin/python3 collectives.py STORE_FILE
Inputs are small integers, so every sum, product, min and max is exact in every dtype and the
result cannot depend on reduction order.
"""
import datetime
import math
import os
import sys
import traceback
import warnings

import torch
import torch.distributed as dist

import hetccl.torch as hetccl_torch

warnings.filterwarnings("ignore", message=".*_coalesced will be deprecated.*")

FLOAT_TYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
INT_TYPES = [torch.int8, torch.uint8, torch.int32, torch.int64]
OPS = {"sum": dist.ReduceOp.SUM, "product": dist.ReduceOp.PRODUCT, "min": dist.ReduceOp.MIN, "max": dist.ReduceOp.MAX}

failures = []
checks = 0


def record(ok, what):
    global checks
    checks += 1
    if not ok:
        failures.append(what)
        print(f"rank {RANK}: FAILED {what}", flush=True)


def same(actual, expected, what):
    ok = actual.dtype == expected.dtype and actual.shape == expected.shape and torch.equal(actual, expected)
    record(ok, f"{what}: got {actual.flatten()[:6].tolist()}..., expected {expected.flatten()[:6].tolist()}...")


def raises(fragment, what, call):
    """`call` must raise an error whose message contains `fragment` (local checks: every rank
    raises it before anything is enqueued, so no peer is left waiting)."""
    try:
        call()
    except Exception as error:  # noqa: BLE001 - any exception type is fine, the message counts
        record(fragment in str(error), f"{what}: message {str(error)[:300]!r} lacks {fragment!r}")
        return
    record(False, f"{what}: no error raised")


def wide(tensor):
    """The tensor in a type Gloo reduces in every build (Gloo 1.13 has no bfloat16); exact for
    the small integers used here."""
    return tensor.to(torch.float64 if tensor.is_floating_point() else torch.int64)


def data(rank, count, dtype, seed, op="sum"):
    """Small integers: values in -3..3 (0..3 unsigned; 1..2 for products, which stay exact)."""
    generator = torch.Generator().manual_seed(seed * 1000 + rank)
    if op == "product":
        values = torch.randint(1, 3, (count,), generator=generator)
    elif dtype == torch.uint8:
        values = torch.randint(0, 4, (count,), generator=generator)
    else:
        values = torch.randint(-3, 4, (count,), generator=generator)
    return values.to(dtype)


def counts():
    return [0, 1, 7, 1000, 70001]


def check_all_reduce(group, gloo, seed):
    rank = dist.get_rank(group)
    for dtype in FLOAT_TYPES + INT_TYPES:
        for name, op in OPS.items():
            for count in counts():
                mine = data(rank, count, dtype, seed, name)
                reference = wide(mine)
                dist.all_reduce(reference, op=op, group=gloo)
                dist.all_reduce(mine, op=op, group=group)
                same(mine, reference.to(dtype), f"all_reduce {dtype} {name} count {count}")
                seed += 1
    # AVG (Gloo has none): the sum divided once by the group size, in the tensor's dtype.
    for dtype in [torch.float32, torch.float64]:
        mine = data(rank, 1001, dtype, seed)
        summed = mine.clone()
        dist.all_reduce(summed, group=gloo)
        dist.all_reduce(mine, op=dist.ReduceOp.AVG, group=group)
        same(mine, summed / dist.get_world_size(group), f"all_reduce {dtype} avg")
        seed += 1
    return seed


def check_broadcast_reduce(group, gloo, seed):
    rank, size = dist.get_rank(group), dist.get_world_size(group)
    ranks = dist.get_process_group_ranks(group) if hasattr(dist, "get_process_group_ranks") else list(range(size))
    for root in range(size):
        for dtype in [torch.float32, torch.int64, torch.bfloat16, torch.uint8]:
            mine = data(rank, 3001, dtype, seed)
            reference = wide(mine)
            dist.broadcast(reference, src=ranks[root], group=gloo)
            dist.broadcast(mine, src=ranks[root], group=group)
            same(mine, reference.to(dtype), f"broadcast {dtype} from group rank {root}")
            mine = data(rank, 3001, dtype, seed + 1)
            reference = wide(mine)
            dist.reduce(reference, dst=ranks[root], op=dist.ReduceOp.MAX, group=gloo)
            dist.reduce(mine, dst=ranks[root], op=dist.ReduceOp.MAX, group=group)
            if rank == root:
                same(mine, reference.to(dtype), f"reduce {dtype} max to group rank {root}")
            seed += 2
    return seed


def check_gathers(group, gloo, seed):
    rank, size = dist.get_rank(group), dist.get_world_size(group)
    for dtype in [torch.float32, torch.int8, torch.float16]:
        for count in [1, 257, 40000]:
            mine = data(rank, count, dtype, seed)
            gathered = [torch.empty(count, dtype=dtype) for _ in range(size)]
            reference = [torch.empty(count, dtype=wide(mine).dtype) for _ in range(size)]
            dist.all_gather(reference, wide(mine), group=gloo)
            reference = [part.to(dtype) for part in reference]
            dist.all_gather(gathered, mine, group=group)
            for r in range(size):
                same(gathered[r], reference[r], f"all_gather {dtype} count {count} part {r}")
            flat = torch.empty(count * size, dtype=dtype)
            dist.all_gather_into_tensor(flat, mine, group=group)
            same(flat, torch.cat(reference), f"all_gather_into_tensor {dtype} count {count}")
            # reduce_scatter: direct computation from every rank's inputs (Gloo 1.13 has none).
            inputs = [data(rank, count, dtype, seed + 1 + r) for r in range(size)]
            everyone = [[data(source, count, dtype, seed + 1 + r) for r in range(size)] for source in range(size)]
            expected = torch.stack([everyone[s][rank] for s in range(size)]).sum(0).to(dtype)
            out = torch.empty(count, dtype=dtype)
            dist.reduce_scatter(out, inputs, group=group)
            same(out, expected, f"reduce_scatter {dtype} count {count}")
            out = torch.empty(count, dtype=dtype)
            dist.reduce_scatter_tensor(out, torch.cat(inputs), group=group)
            same(out, expected, f"reduce_scatter_tensor {dtype} count {count}")
            seed += 2 + size
    # gather and scatter against Gloo, to and from every root.
    ranks = dist.get_process_group_ranks(group) if hasattr(dist, "get_process_group_ranks") else list(range(size))
    for root in range(size):
        mine = data(rank, 333, torch.int32, seed)
        lists = [[torch.empty(333, dtype=torch.int32) for _ in range(size)] if rank == root else None for _ in range(2)]
        dist.gather(mine, lists[0], dst=ranks[root], group=gloo)
        dist.gather(mine, lists[1], dst=ranks[root], group=group)
        if rank == root:
            for r in range(size):
                same(lists[1][r], lists[0][r], f"gather to {root} part {r}")
        parts = [data(r, 77, torch.float64, seed + 1) for r in range(size)] if rank == root else None
        out, reference = torch.empty(77, dtype=torch.float64), torch.empty(77, dtype=torch.float64)
        dist.scatter(reference, parts, src=ranks[root], group=gloo)
        dist.scatter(out, parts, src=ranks[root], group=group)
        same(out, reference, f"scatter from {root}")
        seed += 2
    return seed


def check_all_to_all(group, gloo, seed):
    rank, size = dist.get_rank(group), dist.get_world_size(group)
    # Equal splits, rows of 3 elements.
    mine = data(rank, size * 5 * 3, torch.float32, seed).reshape(size * 5, 3)
    out, reference = torch.empty_like(mine), torch.empty_like(mine)
    dist.all_to_all_single(reference, mine, group=gloo)
    dist.all_to_all_single(out, mine, group=group)
    same(out, reference, "all_to_all_single equal splits")
    # Uneven splits: rank s sends (s + d) % 3 rows to rank d (some of them empty).
    sends = [(rank + d) % 3 for d in range(size)]
    receives = [(s + rank) % 3 for s in range(size)]
    mine = data(rank, sum(sends) * 2, torch.int64, seed + 1).reshape(sum(sends), 2)
    out = torch.full((sum(receives), 2), -99, dtype=torch.int64)
    reference = out.clone()
    dist.all_to_all_single(reference, mine, receives, sends, group=gloo)
    dist.all_to_all_single(out, mine, receives, sends, group=group)
    same(out, reference, "all_to_all_single uneven splits")
    # The list form (Gloo 1.13 has none): part d of rank s is data(s, ..., seed + 2 + d).
    parts = [data(rank, 10 + d, torch.float16, seed + 2 + d) for d in range(size)]
    outs = [torch.empty(10 + rank, dtype=torch.float16) for _ in range(size)]
    dist.all_to_all(outs, parts, group=group)
    for s in range(size):
        same(outs[s], data(s, 10 + rank, torch.float16, seed + 2 + rank), f"all_to_all part from {s}")
    return seed + 2 + size


def check_point_to_point(group, seed):
    rank, size = dist.get_rank(group), dist.get_world_size(group)
    ranks = dist.get_process_group_ranks(group) if hasattr(dist, "get_process_group_ranks") else list(range(size))
    right, left = (rank + 1) % size, (rank - 1) % size
    out = torch.empty(4097, dtype=torch.float64)
    works = [dist.isend(data(rank, 4097, torch.float64, seed), ranks[right], group=group),
             dist.irecv(out, ranks[left], group=group)]
    for work in works:
        work.wait()
    same(out, data(left, 4097, torch.float64, seed), "isend/irecv ring")
    # batch_isend_irecv: a pairwise exchange with everyone, itself included.
    outs = [torch.empty(31, dtype=torch.int32) for _ in range(size)]
    operations = []
    for peer in range(size):
        operations.append(dist.P2POp(dist.isend, data(rank, 31, torch.int32, seed + 1 + peer), ranks[peer], group))
        operations.append(dist.P2POp(dist.irecv, outs[peer], ranks[peer], group))
    for work in dist.batch_isend_irecv(operations):
        work.wait()
    for peer in range(size):
        same(outs[peer], data(peer, 31, torch.int32, seed + 1 + rank), f"batch_isend_irecv from {peer}")
    return seed + 1 + size


def check_all_gather_coalesced(group, gloo, seed):
    """Tensors of different sizes and shapes in one call (one of them empty), against Gloo's
    all_gather_coalesced and against each rank's known inputs."""
    rank, size = dist.get_rank(group), dist.get_world_size(group)
    shapes = [(1,), (3, 5), (0,), (70001,), (2, 2, 2)]
    for dtype in [torch.float32, torch.int8, torch.float64, torch.bfloat16]:
        mine = [data(rank, math.prod(shape), dtype, seed + j).reshape(shape) for j, shape in enumerate(shapes)]
        outs = [[torch.full(shape, -7, dtype=dtype) for shape in shapes] for _ in range(size)]
        dist.all_gather_coalesced(outs, mine, group=group)
        for r in range(size):
            for j, shape in enumerate(shapes):
                expected = data(r, math.prod(shape), dtype, seed + j).reshape(shape)
                same(outs[r][j], expected, f"all_gather_coalesced {dtype} from {r} tensor {j} {shape}")
        if dtype != torch.bfloat16:  # Gloo 1.13 has no bfloat16
            reference = [[torch.full(shape, -7, dtype=dtype) for shape in shapes] for _ in range(size)]
            dist.all_gather_coalesced(reference, mine, group=gloo)
            for r in range(size):
                for j in range(len(shapes)):
                    same(outs[r][j], reference[r][j], f"all_gather_coalesced {dtype} as Gloo's, from {r} tensor {j}")
        seed += len(shapes)
    return seed


def check_recv_any_source(group, gloo, seed):
    """recv and irecv with src=None: every other rank sends group rank 0 two tensors; rank 0
    takes the first of each from any source and the second from the sender it learnt, so a
    later receive from any source must not take a notice meant for a known-source receive.  A
Gloo barrier ends each round: a sender's next sends would be just as valid a match."""
    rank, size = dist.get_rank(group), dist.get_world_size(group)
    ranks = dist.get_process_group_ranks(group) if hasattr(dist, "get_process_group_ranks") else list(range(size))
    counts = {k: [0, 1, 70001][k % 3] for k in range(size)}  # empty, tiny and large messages
    # Rank 0 cannot know which sender comes first, so all senders use one size per round.
    for k in range(1, size):
        count = counts[k]
        if rank == 0:
            got = []
            for i in range(1, size):
                out = torch.full((count,), -1.0)
                if i % 2:
                    sender = dist.recv(out, group=group)  # the sender's global rank
                else:
                    work = dist.irecv(out, group=group)
                    work.wait()
                    sender = ranks[work._source_rank()]
                record(sender in ranks[1:], f"recv from any source: sender {sender} outside {ranks[1:]}")
                source = ranks.index(sender) if sender in ranks else 0
                same(out, data(source, count, torch.float32, seed + k), f"recv any source round {k} from {source}")
                second = torch.full((count,), -1.0)
                dist.recv(second, ranks[source], group=group)
                same(second, data(source, count, torch.float32, seed + k + size),
                     f"recv from the learnt sender {source}, round {k}")
                got.append(source)
            record(sorted(got) == list(range(1, size)), f"round {k}: senders {sorted(got)}, expected each once")
        else:
            dist.send(data(rank, count, torch.float32, seed + k), ranks[0], group=group)
            dist.send(data(rank, count, torch.float32, seed + k + size), ranks[0], group=group)
        dist.barrier(group=gloo)
    # Rings of isend and irecv from any source, large enough that a send completes only once its
    # receive is posted: waiting for the receive first, then for the send first.
    right, left = (rank + 1) % size, (rank - 1) % size
    for order in ["receive first", "send first"]:
        out = torch.empty(300000, dtype=torch.int64)
        send = dist.isend(data(rank, 300000, torch.int64, seed + 2 * size), ranks[right], group=group)
        receive = dist.irecv(out, group=group)
        for work in [receive, send] if order == "receive first" else [send, receive]:
            work.wait()
        record(receive._source_rank() == left, f"irecv ring ({order}): source {receive._source_rank()}, not {left}")
        same(out, data(left, 300000, torch.int64, seed + 2 * size), f"irecv from any source in a ring ({order})")
    return seed + 2 * size + 1


def check_any_source_timeout():
    """A receive from any source nobody sends to: wait(timeout) says so instead of hanging."""
    group = dist.new_group(backend="hetccl")
    if dist.get_rank() == 0:
        work = dist.irecv(torch.empty(3), group=group)
        raises("did not complete within 500 ms", "irecv from any source with no sender",
               lambda: work.wait(datetime.timedelta(milliseconds=500)))
    dist.destroy_process_group(group)


def check_works(group, seed):
    rank, size = dist.get_rank(group), dist.get_world_size(group)
    # Many operations in flight, then waited for in reverse order; the future carries the tensor.
    tensors = [data(rank, 5000, torch.float32, seed + i) for i in range(20)]
    expected = [sum(data(r, 5000, torch.float32, seed + i) for r in range(size)) for i in range(20)]
    works = [dist.all_reduce(t, group=group, async_op=True) for t in tensors]
    for work in reversed(works):
        work.wait()
    for i in range(20):
        same(tensors[i], expected[i], f"queued all_reduce {i}")
    record(all(work.is_completed() for work in works), "works report completion")
    t = data(rank, 100, torch.float32, seed + 21)
    future = dist.all_reduce(t, group=group, async_op=True).get_future()
    result = future.wait()
    same(result[0], sum(data(r, 100, torch.float32, seed + 21) for r in range(size)), "future's value")
    dist.barrier(group=group)
    coalesced = [data(rank, 9, torch.int32, seed + 22), data(rank, 5, torch.int32, seed + 23)]
    dist.all_reduce_coalesced(coalesced, group=group)
    for i, count in enumerate([9, 5]):
        same(coalesced[i], sum(data(r, count, torch.int32, seed + 22 + i) for r in range(size)).to(torch.int32),
             f"all_reduce_coalesced tensor {i}")
    return seed + 24


def check_wait_timeout(group):
    """wait(timeout) gives up while a peer is late: rank 0 starts an all-reduce the others join
    only after its wait has timed out.  Above HETCCL_INLINE_BYTES (64 KiB), so that the call is
    queued rather than run on the calling thread."""
    rank, size = dist.get_rank(group), dist.get_world_size(group)
    if size < 2:
        return
    t = torch.ones(100000)
    if rank == 0:
        work = dist.all_reduce(t, group=group, async_op=True)
        raises("did not complete within 300 ms", "wait(timeout) while a peer is late",
               lambda: work.wait(datetime.timedelta(milliseconds=300)))
        dist.barrier(group=GLOO)
        work.wait()
    else:
        dist.barrier(group=GLOO)
        dist.all_reduce(t, group=group)
    same(t, torch.full((100000,), float(size)), "the late all-reduce completes")


def check_bad_uses(group):
    rank, size = dist.get_rank(group), dist.get_world_size(group)
    raises("not contiguous", "non-contiguous tensor",
           lambda: dist.all_reduce(torch.ones(4, 4).t(), group=group))
    raises("dtype Bool", "bool tensor", lambda: dist.all_reduce(torch.ones(4, dtype=torch.bool), group=group))
    raises("PREMUL_SUM", "PREMUL_SUM",
           lambda: dist.all_reduce(torch.ones(4), op=dist._make_nccl_premul_sum(2.0), group=group))
    raises("bitwise", "BAND", lambda: dist.all_reduce(torch.ones(4, dtype=torch.int32), op=dist.ReduceOp.BAND,
                                                     group=group))
    raises("not the group size times", "all_gather_into_tensor output of the wrong size",
           lambda: dist.all_gather_into_tensor(torch.empty(size * 4 + 1), torch.ones(4), group=group))
    raises("elements, not", "all_gather list with a wrong-sized part",
           lambda: dist.all_gather([torch.empty(5) for _ in range(size)], torch.ones(4), group=group))
    raises("add up to", "all_to_all_single splits that do not add up",
           lambda: dist.all_to_all_single(torch.empty(size), torch.ones(size), [1] * size, [2] * size, group=group))
    # Nothing was enqueued by the refusals: the group still works.
    t = torch.ones(8)
    dist.all_reduce(t, group=group)
    same(t, torch.full((8,), float(size)), "all_reduce after the refusals")


def check_wrong_device():
    """CPU tensors while hetccl's device is not the host device (here the strict host device,
    whose memory the host cannot touch: the CPU-only stand-in for a GPU device)."""
    raises("host-strict serves only memory from hetcclMemAlloc", "CPU tensor on a device that is not the host",
           lambda: dist.all_reduce(torch.ones(4)))


def check_mismatched_sizes():
    """With HETCCL_CHECK_CALLS=1, ranks passing different sizes get an error instead of a hang
    or a silent truncation (on a group of its own: the failure makes it unusable)."""
    group = dist.new_group(backend="hetccl")
    t = torch.ones(100 + RANK)
    raises("ranks disagree on the call", "all_reduce of different sizes on different ranks",
           lambda: dist.all_reduce(t, group=group))


def run_suite(group, gloo, label, seed):
    for check in [check_all_reduce, check_broadcast_reduce, check_gathers, check_all_to_all]:
        seed = check(group, gloo, seed)
    seed = check_point_to_point(group, seed)
    seed = check_all_gather_coalesced(group, gloo, seed)
    seed = check_recv_any_source(group, gloo, seed)
    seed = check_works(group, seed)
    check_bad_uses(group)
    return seed


def main():
    global RANK, GLOO
    RANK, size = hetccl_torch.mpi_world()
    store = sys.argv[1]
    dist.init_process_group("hetccl", init_method=f"file://{store}", rank=RANK, world_size=size,
                            timeout=datetime.timedelta(seconds=60))
    GLOO = dist.new_group(backend="gloo")
    if os.environ.get("HETCCL_DEVICE") == "host-strict":
        check_wrong_device()
        return finish(size)
    seed = run_suite(dist.group.WORLD, GLOO, "world", 1)
    check_wait_timeout(dist.group.WORLD)
    check_any_source_timeout()
    # Subgroups: even and odd ranks, and a group of the last rank alone (new_group is called by
    # every rank; non-members get no group).
    for members in [list(range(0, size, 2)), list(range(1, size, 2)), [size - 1]]:
        if not members:
            continue
        group = dist.new_group(members, backend="hetccl")
        gloo = dist.new_group(members, backend="gloo")
        if RANK in members:
            seed = run_suite(group, gloo, f"group {members}", seed)
    if os.environ.get("HETCCL_CHECK_CALLS") == "1" and size > 1:
        check_mismatched_sizes()
    return finish(size)


def finish(size):
    algorithm = hetccl_torch.last_algorithm()
    totals = torch.tensor([checks, len(failures)])
    dist.all_reduce(totals, group=GLOO)
    if RANK == 0:
        print(f"torch collectives on {size} ranks: {totals[0]} checks, {totals[1]} failed "
              f"(last hetccl algorithm on the world group: {algorithm})", flush=True)
    dist.destroy_process_group()
    return 0 if totals[1] == 0 else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:  # noqa: BLE001 - an unexpected error fails the test with its trace
        traceback.print_exc()
        sys.stdout.flush()
        os._exit(2)
