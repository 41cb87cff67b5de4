#!/usr/bin/env python3
"""The table of scripts/size-sweep.sh: per build, rank count, collective and size, the median over
runs of hetccl's out-of-place and in-place times, MPI's time, and of each run's ratio MPI time /
hetccl time (the in-place time for broadcast, whose MPI call has one buffer)."""
import collections
import glob
import json
import os
import statistics
import sys


def read_cells(folder):
    cells = collections.defaultdict(lambda: collections.defaultdict(list))
    order = []
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        name, np, collective, _run, _ = os.path.basename(path).split(".")
        key = (collective, int(np))
        if key not in order:
            order.append(key)
        for row in json.load(open(path))["rows"]:
            if not row.get("baseline"):
                continue
            mpi = row["baseline"]["time_us"]
            own = row["in_place"]["time_us"] if collective == "broadcast" else row["out_of_place"]["time_us"]
            cell = cells[(collective, int(np), row["size"])]
            cell[name + " out"].append(row["out_of_place"]["time_us"])
            cell[name + " in"].append(row["in_place"]["time_us"])
            cell[name + " mpi"].append(mpi)
            cell[name + " ratio"].append(mpi / own if own > 0 else 0.0)
    return cells, order


def main(folder):
    cells, order = read_cells(folder)
    names = sorted({k.rsplit(" ", 1)[0] for c in cells.values() for k in c})
    for collective, np in sorted(order):
        print(f"\n### {collective}, {np} ranks\n")
        head = "| size |" + "".join(f" {n}: out / in place (us) | {n}: MPI (us) | {n}: vs MPI |" for n in names)
        print(head)
        print("| ---: |" + " ---: | ---: | ---: |" * len(names))
        # A size under one element per rank (8 B all-gather on 4 ranks) is a zero-count call:
        # nothing to compare, as in the matrix.
        for size in sorted(s for c, p, s in cells if (c, p) == (collective, np) and s > 0):
            cell = cells[(collective, np, size)]
            line = f"| {size} |"
            for n in names:
                if not cell.get(n + " out"):
                    line += " | | |"
                    continue
                med = lambda k: statistics.median(cell[n + " " + k])
                line += f" {med('out'):.2f} / {med('in'):.2f} | {med('mpi'):.2f} | {med('ratio'):.2f} |"
            print(line)


def size_label(size):
    for unit, factor in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {unit}"
    return f"{size} B"


def matrix(folders):
    ratios = {}  # (collective, np, name) -> {size: median ratio}
    for folder in folders:
        cells, _ = read_cells(folder)
        for (collective, np, size), cell in cells.items():
            for key, values in cell.items():
                name, what = key.rsplit(" ", 1)
                if what != "ratio" or size == 0:
                    continue
                ratios.setdefault((collective, np, name), {}).setdefault(size, statistics.median(values))
    sizes = sorted({size for row in ratios.values() for size in row})
    print("| collective, ranks |" + "".join(f" {size_label(s)} |" for s in sizes))
    print("| --- |" + " ---: |" * len(sizes))
    names = {name for _, _, name in ratios}
    for collective, np, name in sorted(ratios):
        label = f"{collective}, {np}" + (f" ({name})" if len(names) > 1 else "")
        row = ratios[(collective, np, name)]
        print(f"| {label} |" + "".join(f" {row[s]:.2f} |" if s in row else " |" for s in sizes))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--matrix":
        matrix(sys.argv[2:])
    else:
        main(sys.argv[1] if len(sys.argv) > 1 else ".")
