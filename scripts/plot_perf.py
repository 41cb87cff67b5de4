#!/usr/bin/env python3
"""Plots bus bandwidth against message size from hetccl-perf JSON results (hetccl-perf -J).

    plot_perf.py RESULT.json [RESULT.json ...] -o busbw.png [--metric busbw|algbw|time]
                 [--in-place] [--title TEXT]

One line per algorithm (each --algo entry of a run, or the run's single choice) and one for
the MPI baseline when the run measured it (--baseline mpi); with several files, each line's
label starts with its file's name.  Sizes go on a log2 axis, as nccl-tests' sweeps double.

Needs matplotlib.  On Debian: apt-get install python3-matplotlib, and run this script with
/usr/bin/python3 when another python3 (pyenv, a venv) comes first on PATH.
"""
import argparse
import json
import os
import sys

# Exit status when matplotlib is missing, so a test can report "skipped" instead of "failed".
EXIT_NO_MATPLOTLIB = 77

METRICS = {
    "busbw": ("busbw", "Bus bandwidth (GB/s)"),
    "algbw": ("algbw", "Algorithm bandwidth (GB/s)"),
    "time": ("time_us", "Time (us)"),
}


def human_size(nbytes):
    """1024 -> '1K', as nccl-tests' -b/-e arguments are written."""
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if nbytes >= scale and nbytes % scale == 0:
            return "%d%s" % (nbytes // scale, unit)
    return "%d" % nbytes


def first_present(row, *keys):
    """The first non-empty value among keys: field names differ between hetccl-perf versions
    (older rows have neither, newer ones 'algorithm' and 'requested_algorithm', or 'algo')."""
    for key in keys:
        value = row.get(key)
        if value not in (None, "", "-"):
            return value
    return None


def load(path):
    with open(path) as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or "rows" not in doc:
        raise ValueError("%s: not a hetccl-perf JSON result (no 'rows')" % path)
    return doc


def series_of(doc, metric, place):
    """{label: {size: value}} for one result file.  hetccl rows are grouped by the --algo entry
    they ran under (or by algorithm, see below).  The MPI baseline, repeated on every --algo
    entry's row, is averaged into one line."""
    field = METRICS[metric][0]
    bus_factor = (doc.get("settings") or {}).get("bus_factor")
    combos = {(r.get("type"), r.get("redop")) for r in doc["rows"]}
    # Without --algo entries, a run that still has several rows per size ran several
    # algorithms side by side (one 'algo' each): a line per algorithm.  Otherwise it is one
    # line, even if 'auto' chose differently at different sizes.
    seen, by_algorithm = set(), False
    for r in doc["rows"]:
        if first_present(r, "requested_algorithm", "request") is None:
            point = (r.get("size"), r.get("type"), r.get("redop"))
            by_algorithm = by_algorithm or point in seen
            seen.add(point)
    hetccl, chosen, baseline = {}, {}, {}
    for row in doc["rows"]:
        size = row.get("size")
        if not isinstance(size, int) or size <= 0:
            continue  # a log axis has no place for size 0
        # Several types or ops in one run: one line each, named by them.
        suffix = " %s/%s" % (row.get("type"), row.get("redop")) if len(combos) > 1 else ""
        algorithm = first_present(row, "algo", "algorithm")
        request = first_present(row, "requested_algorithm", "request")
        key = (request or (algorithm if by_algorithm else None), suffix)
        value = (row.get(place) or {}).get(field)
        if value is not None:
            hetccl.setdefault(key, {})[size] = value
            if algorithm and algorithm not in chosen.setdefault(key, []):
                chosen[key].append(algorithm)
        base = row.get("baseline")
        if isinstance(base, dict):
            base_value = base.get(field)
            # The baseline has no algbw of its own; it is busbw over the bus factor.
            if base_value is None and field == "algbw" and base.get("busbw") is not None and bus_factor:
                base_value = base["busbw"] / bus_factor
            if base_value is not None:
                baseline.setdefault(suffix, {}).setdefault(size, []).append(base_value)
    lines = {}
    for (name, suffix), points in hetccl.items():
        picks = chosen.get((name, suffix), [])
        if name and picks and picks != [name]:
            label = "hetccl %s (ran %s)" % (name, ", ".join(picks))  # e.g. auto (ran small, ring)
        elif name:
            label = "hetccl " + name
        elif picks:
            label = "hetccl (%s)" % ", ".join(picks)
        else:
            label = "hetccl"
        lines[label + suffix] = points
    for suffix, points in baseline.items():
        lines["MPI" + suffix] = {s: sum(v) / len(v) for s, v in points.items()}
    return lines


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results", nargs="+", help="hetccl-perf -J output files")
    p.add_argument("-o", "--output", required=True, help="PNG to write")
    p.add_argument("--metric", choices=sorted(METRICS), default="busbw")
    p.add_argument("--in-place", action="store_true", help="plot the in-place columns")
    p.add_argument("--title", help="figure title (default: collective and rank count)")
    return p.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    try:
        import matplotlib
        matplotlib.use("Agg")  # files only: no display needed, works on a headless node
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FixedLocator, FuncFormatter
    except ImportError:
        sys.stderr.write("plot_perf.py: matplotlib is not installed for %s "
                         "(Debian: apt-get install python3-matplotlib, then use /usr/bin/python3)\n"
                         % sys.executable)
        return EXIT_NO_MATPLOTLIB

    docs = []
    for path in args.results:
        try:
            docs.append((path, load(path)))
        except (OSError, ValueError) as e:
            sys.stderr.write("plot_perf.py: %s\n" % e)
            return 1

    place = "in_place" if args.in_place else "out_of_place"
    fig, ax = plt.subplots(figsize=(7.0, 4.2), dpi=100)
    sizes = set()
    plotted = 0
    for path, doc in docs:
        prefix = os.path.splitext(os.path.basename(path))[0] + ": " if len(docs) > 1 else ""
        lines = series_of(doc, args.metric, place)
        # A lone MPI line is drawn grey and dashed, a reference rather than a contender; with
        # several (files, types) each needs its own colour to be told apart.
        lone_mpi = len(docs) == 1 and sum(label.startswith("MPI") for label in lines) == 1
        for label, points in lines.items():
            xs = sorted(points)
            if not xs:
                continue
            mpi = label.startswith("MPI")
            ax.plot(xs, [points[x] for x in xs], label=prefix + label, marker="o", markersize=3.5,
                    linewidth=1.6, linestyle="--" if mpi else "-", color="0.35" if mpi and lone_mpi else None)
            sizes.update(xs)
            plotted += 1
    if plotted == 0:
        sys.stderr.write("plot_perf.py: no rows with a %s value to plot\n" % args.metric)
        return 1

    ax.set_xscale("log", base=2)
    # A tick at every measured size when there are few, else at every other power of four, so
    # the labels never overlap.
    ticks = sorted(sizes)
    while len(ticks) > 10:
        ticks = ticks[::2]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(FixedLocator([]))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: human_size(int(round(x)))))
    if args.metric == "time":
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    ax.set_xlabel("Message size (bytes)")
    ax.set_ylabel(METRICS[args.metric][1] + (", in place" if args.in_place else ""))
    first = docs[0][1]
    ax.set_title(args.title or "%s, %s ranks" % (first.get("collective", "?"), first.get("nranks", "?")))
    ax.grid(True, which="major", linewidth=0.5, alpha=0.5)
    ax.legend(fontsize="small", frameon=False)
    fig.tight_layout()
    fig.savefig(args.output)
    print("plot_perf.py: wrote %s (%d lines)" % (args.output, plotted))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
