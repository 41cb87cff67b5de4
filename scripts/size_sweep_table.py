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


def main(folder):
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
    names = sorted({k.rsplit(" ", 1)[0] for c in cells.values() for k in c})
    for collective, np in sorted(order):
        print(f"\n### {collective}, {np} ranks\n")
        head = "| size |" + "".join(f" {n}: out / in place (us) | {n}: MPI (us) | {n}: vs MPI |" for n in names)
        print(head)
        print("| ---: |" + " ---: | ---: | ---: |" * len(names))
        for size in sorted(s for c, p, s in cells if (c, p) == (collective, np)):
            cell = cells[(collective, np, size)]
            line = f"| {size} |"
            for n in names:
                if not cell.get(n + " out"):
                    line += " | | |"
                    continue
                med = lambda k: statistics.median(cell[n + " " + k])
                line += f" {med('out'):.2f} / {med('in'):.2f} | {med('mpi'):.2f} | {med('ratio'):.2f} |"
            print(line)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
