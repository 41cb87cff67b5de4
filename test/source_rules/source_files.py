"""The project's C and C++ sources below some top folders, for the source-rule checks."""
import os

SOURCES = (".c", ".cc", ".cpp", ".cu", ".h", ".hpp", ".hip")


def source_files(root, tops):
    """Yields (path relative to root, list of lines) for every source file below root/top."""
    for top in tops:
        for directory, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if name.endswith(SOURCES):
                    path = os.path.join(directory, name)
                    with open(path, encoding="utf-8", errors="replace") as f:
                        yield os.path.relpath(path, root), f.read().split("\n")
