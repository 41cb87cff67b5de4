#!/bin/bash
# Fails when a tracked C or C++ file differs from what clang-format makes of it with the
# project's .clang-format (run `clang-format -i` on the files it names).
set -euo pipefail
clang_format=$1
root=$2
cd "$root"
files=$(git ls-files '*.c' '*.cpp' '*.h' '*.cu' '*.hip')
if ! "$clang_format" --style=file --dry-run -Werror $files; then
  echo "format: the files above differ from .clang-format's layout (clang-format -i FILE)"
  exit 1
fi
echo "format: every C and C++ file is in .clang-format's layout"
