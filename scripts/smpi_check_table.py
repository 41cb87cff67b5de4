#!/usr/bin/env python3
"""The tables of scripts/smpi-check.sh: per shape and rank count, hetccl's all-reduce times
under SimGrid's SMPI beside hetccl-sim's predictions (ratio SMPI / sim, `!` past 25 %), and
SMPI's own MPI_Allreduce algorithms on the same platform beside hetccl's best."""
import argparse
import json
import os
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def size_name(size):
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}iB"
    return f"{size} B"


def off(ratio, limit=0.25):
    return ratio > 1 + limit or ratio < 1 / (1 + limit)


def mark(ratio):
    return " !" if off(ratio) else ""


def shape_table(out, shape, ranks, mpi_algos):
    base = os.path.join(out, f"{shape}-{ranks}")
    if not os.path.exists(base + ".hetccl.json"):
        return [], 0, 0
    sim = {r["size"]: r for r in load(base + ".sim.json")["results"]}
    measured = load(base + ".hetccl.json")
    wrong = measured.get("out_of_bounds_values", 0)
    lines = [f"### {shape}, {ranks} ranks", "",
             "| size | algorithm | SMPI (us) | hetccl-sim (us) | SMPI / sim |",
             "| ---: | --- | ---: | ---: | ---: |"]
    best = {}
    disagreements = 0
    for row in measured["rows"]:
        size, requested, ran = row["size"], row["requested_algorithm"], row["algorithm"]
        smpi = row["out_of_place"]["time_us"]
        predictions = sim.get(size, {}).get("algorithms", {})
        name = requested
        prediction = predictions.get(ran) if ran else None
        if requested == "auto":
            pick = sim.get(size, {}).get("pick", {}).get("algorithm", "?")
            name = f"auto: ran {ran}, sim picks {pick}"
        if prediction is None:
            lines.append(f"| {size_name(size)} | {name} | {smpi:.1f} | - | - |")
            continue
        ratio = smpi / prediction["time_us"]
        disagreements += off(ratio)
        lines.append(f"| {size_name(size)} | {name} | {smpi:.1f} | {prediction['time_us']:.1f} | {ratio:.2f}{mark(ratio)} |")
        best[size] = min(best.get(size, float("inf")), smpi)
    lines.append("")
    header = "| size | " + " | ".join(f"MPI {m} (us)" for m in mpi_algos) + \
        " | hetccl's best (us) | best MPI / hetccl | hetccl-sim bound (us) | hetccl's best / bound |"
    lines += [header, "|" + " ---: |" * (len(mpi_algos) + 5)]
    baselines = {}
    for m in mpi_algos:
        path = f"{base}.mpi-{m}.json"
        if not os.path.exists(path):
            continue
        document = load(path)
        wrong += document.get("out_of_bounds_values", 0)
        for row in document["rows"]:
            if row.get("baseline"):
                baselines.setdefault(row["size"], {})[m] = row["baseline"]["time_us"]
    for size in sorted(best):
        times = baselines.get(size, {})
        cells = [f"{times[m]:.1f}" if m in times else "-" for m in mpi_algos]
        mpi_best = min(times.values()) if times else None
        ratio = f"{mpi_best / best[size]:.2f}" if mpi_best else "-"
        bound = (sim.get(size, {}).get("bound") or {}).get("total_us")
        over_bound = f"{best[size] / bound:.2f}" if bound else "-"
        bound_text = f"{bound:.1f}" if bound else "-"
        lines.append(f"| {size_name(size)} | " + " | ".join(cells) +
                     f" | {best[size]:.1f} | {ratio} | {bound_text} | {over_bound} |")
    lines.append("")
    return lines, wrong, disagreements


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--shapes", default="pernode trunk")
    parser.add_argument("--ranks", default="16 64 256")
    parser.add_argument("--mpi-algos", default="lr rab_rdb default")
    parser.add_argument("--strict", action="store_true",
                        help="fail when SMPI and hetccl-sim disagree by more than 25 %% anywhere")
    args = parser.parse_args()
    wrong_total = 0
    disagreements_total = 0
    for shape in args.shapes.split():
        for ranks in args.ranks.split():
            lines, wrong, disagreements = shape_table(args.out, shape, int(ranks), args.mpi_algos.split())
            wrong_total += wrong
            disagreements_total += disagreements
            print("\n".join(lines))
    print(f"wrong values: {wrong_total}; SMPI and hetccl-sim more than 25 % apart: {disagreements_total}")
    return 1 if wrong_total or (args.strict and disagreements_total) else 0


if __name__ == "__main__":
    sys.exit(main())
