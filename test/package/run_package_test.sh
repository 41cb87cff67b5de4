#!/bin/bash
# Installs the built hetccl into a temporary prefix, then builds and runs a small C program
# against it twice: through the CMake package and through pkg-config.
# Usage: run_package_test.sh BUILD_DIR SOURCE_DIR MPIEXEC [SANITIZERS]
# SANITIZERS (e.g. address,undefined): the library was built with -fsanitize=SANITIZERS, so the
# program is too.
set -euo pipefail
build_dir=$1 source_dir=$2 mpiexec=$3
cflags=()
if [ -n "${4:-}" ]; then cflags=(-fsanitize="$4" -fno-omit-frame-pointer); fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
launch=("$mpiexec" -n 2 --oversubscribe)

echo "== find_package(hetccl)"
cmake -S "$source_dir/test/package/consumer_project" -B "$work/cmake-build" \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_C_FLAGS="${cflags[*]}" >/dev/null
cmake --build "$work/cmake-build" >/dev/null
LD_LIBRARY_PATH="$work/prefix/lib:${LD_LIBRARY_PATH:-}" "${launch[@]}" "$work/cmake-build/consumer"

echo "== pkg-config hetccl"
libdir=$(ls -d "$work"/prefix/lib*/pkgconfig | head -1)
export PKG_CONFIG_PATH="$libdir:${PKG_CONFIG_PATH:-}"
cc -std=c99 -Wall -Werror "${cflags[@]}" "$source_dir/test/package/consumer.c" -o "$work/consumer-pc" \
  $(pkg-config --cflags --libs hetccl)
LD_LIBRARY_PATH="$(pkg-config --variable=libdir hetccl):${LD_LIBRARY_PATH:-}" "${launch[@]}" "$work/consumer-pc"
# The torch.distributed backend, when it was built: installed in Debian's layout and found by
# the interpreter with no LD_LIBRARY_PATH (the extension finds libhetccl through its RPATH).
if [ -d "$work/prefix/lib/python3/dist-packages/hetccl" ]; then
  echo "== python3 -c 'import hetccl.torch'"
  PYTHONPATH="$work/prefix/lib/python3/dist-packages" "${launch[@]}" /usr/bin/python3 -c '
import os, sys, torch, torch.distributed as dist, hetccl.torch as h
rank, size = h.mpi_world()
dist.init_process_group("hetccl", init_method="file://" + sys.argv[1], rank=rank, world_size=size)
t = torch.ones(5) * (rank + 1)
dist.all_reduce(t)
assert t.tolist() == [3.0] * 5, t
print("rank", rank, "all_reduce through the installed hetccl.torch:", t.tolist())
' "$work/torch-store"
fi
echo "package test passed"
