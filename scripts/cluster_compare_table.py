#!/usr/bin/env python3
"""Merges the runs of scripts/cluster-compare.sh (OUT/tuned.json, han.json, torch.json) into two
markdown tables: measured against predicted per hetccl algorithm, and hetccl against Open MPI
(tuned, han) and Gloo.  Times are out-of-place medians in microseconds.

    cluster_compare_table.py OUT_DIR
"""
import json
import os
import sys


def load(directory, name):
    path = os.path.join(directory, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def by_size_and_algorithm(document):
    """{size: {requested algorithm: row}}"""
    table = {}
    for row in document["rows"]:
        table.setdefault(row["size"], {})[row.get("requested_algorithm") or row.get("algorithm")] = row
    return table


def human(nbytes):
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale and nbytes % scale == 0:
            return "%d %s" % (nbytes // scale, unit)
    return "%d B" % nbytes


def us(value):
    return "-" if value is None else "{:,.0f}".format(value)


def ratio(a, b):
    return "-" if a is None or b is None or b <= 0 else "%.2f" % (a / b)


def main():
    directory = sys.argv[1]
    tuned, han, torch = (load(directory, n) for n in ("tuned.json", "han.json", "torch.json"))
    if tuned is None:
        sys.exit("cluster_compare_table: no tuned.json in " + directory)
    rows = by_size_and_algorithm(tuned)
    algorithms = [a for a in ("ring", "hier", "torus", "auto") if any(a in r for r in rows.values())]
    print("Measured / predicted by the cost model (hetccl-perf --model), per algorithm:\n")
    print("| size | " + " | ".join("%s meas (us) | model (us) | meas/model" % a for a in algorithms) + " |")
    print("| ---: " * (1 + 3 * len(algorithms)) + "|")
    for size in sorted(rows):
        cells = [human(size)]
        for a in algorithms:
            row = rows[size].get(a)
            measured = row["out_of_place"]["time_us"] if row else None
            model = (row.get("model") or {}).get("predicted_us") if row else None
            name = "%s" % us(measured)
            if a == "auto" and row and row.get("algorithm"):
                name += " (%s)" % row["algorithm"]
            cells += [name, us(model), ratio(measured, model)]
        print("| " + " | ".join(cells) + " |")

    han_rows = by_size_and_algorithm(han) if han else {}
    torch_rows = {r["bytes"]: r for r in torch["rows"]} if torch else {}
    print("\nhetccl against Open MPI and Gloo on the same wires (x = their time / hetccl's auto):\n")
    print("| size | hetccl auto (us) | MPI tuned (us) | x | MPI han (us) | x | torch hetccl (us) "
          "| Gloo (us) | x |")
    print("| ---: " * 10 + "|")
    for size in sorted(rows):
        auto = rows[size].get("auto")
        mine = auto["out_of_place"]["time_us"] if auto else None
        mpi = (auto.get("baseline") or {}).get("time_us") if auto else None
        han_auto = han_rows.get(size, {}).get("auto")
        han_mpi = (han_auto.get("baseline") or {}).get("time_us") if han_auto else None
        t = torch_rows.get(size)
        t_mine, t_gloo = (t["hetccl_us"], t["gloo_us"]) if t else (None, None)
        print("| " + " | ".join([human(size), us(mine), us(mpi), ratio(mpi, mine), us(han_mpi),
                                  ratio(han_mpi, mine), us(t_mine), us(t_gloo), ratio(t_gloo, t_mine)]) + " |")
    wrong = tuned.get("out_of_bounds_values", 0) + (han.get("out_of_bounds_values", 0) if han else 0)
    print("\n%d wrong values (hetccl-perf's bit-exact check; the torch bench exits on any wrong element)." % wrong)


if __name__ == "__main__":
    main()
