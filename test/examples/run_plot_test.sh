#!/usr/bin/env bash
# Runs scripts/plot_perf.py on a checked-in hetccl-perf result and checks that a PNG came out:
#   run_plot_test.sh PYTHON PLOT_SCRIPT SAMPLE_JSON OUTPUT_DIR
# Exits 77 (CTest's SKIP_RETURN_CODE) when PYTHON has no matplotlib, so a machine without it
# reports the test as skipped, with the reason, rather than failed.
set -u
python=$1 script=$2 sample=$3 outdir=$4

if ! "$python" -c "import matplotlib" 2>/dev/null; then
  echo "SKIP: $python has no matplotlib (scripts/setup.sh installs python3-matplotlib)"
  exit 77
fi
mkdir -p "$outdir"
png="$outdir/sample-busbw.png"
rm -f "$png"
"$python" "$script" "$sample" -o "$png" || { echo "FAILED: plot_perf.py exited $?"; exit 1; }
# A PNG starts with the 8-byte signature \x89PNG\r\n\x1a\n; check it, not just that a file exists.
signature=$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')
if [[ "$signature" != "89504e470d0a1a0a" ]]; then
  echo "FAILED: $png is not a PNG (signature '$signature')"
  exit 1
fi
echo "ok: $png ($(wc -c <"$png") bytes)"
