"""Fails when a file in lib/ includes a folder above its own layer.

  check_layering.py SOURCE_DIR

The layers (docs/ARCHITECTURE.md), each allowed to include only itself and what is listed:
  base        nothing else of the project (not even the public header)
  algorithms  base; and no MPI, no threads: plans are pure data
  device      base
  transport   base, device
  runtime     base, algorithms, device, transport
  core        everything below, and the public header
  client      the public header only (helpers the two clients below share, over the C API)
  nccl        the public header, client, base and core (the NCCL drop-in sits on top)
  torch       the public header and client only (the torch backend is a client of the C API)
"""
import re
import sys

from source_files import source_files

ALLOWED = {
    "base": {"base"},
    "algorithms": {"base", "algorithms"},
    "device": {"base", "device"},
    "transport": {"base", "device", "transport"},
    "runtime": {"base", "algorithms", "device", "transport", "runtime"},
    "core": {"base", "algorithms", "device", "transport", "runtime", "core", "hetccl"},
    "client": {"client", "hetccl"},
    "nccl": {"base", "core", "client", "nccl", "hetccl"},
    "torch": {"torch", "client", "hetccl"},
}
# System headers a layer must not use, whatever it includes of the project.
FORBIDDEN_SYSTEM = {
    "algorithms": {"mpi.h", "thread", "mutex", "condition_variable", "atomic", "hwloc.h"},
    "base": {"mpi.h"},
    "device": {"mpi.h"},
}
PROJECT = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SYSTEM = re.compile(r"^\s*#\s*include\s+<([^>]+)>")


def main():
    offenders = []
    for relative, lines in source_files(sys.argv[1], ["lib"]):
        layer = relative.split("/")[1]
        allowed = ALLOWED.get(layer)
        if allowed is None:
            continue
        for number, line in enumerate(lines, 1):
            project = PROJECT.match(line)
            if project and "/" in project.group(1) and project.group(1).split("/")[0] not in allowed:
                offenders.append(f"{relative}:{number}: {layer} includes {project.group(1)}")
            system = SYSTEM.match(line)
            if system and system.group(1) in FORBIDDEN_SYSTEM.get(layer, ()):
                offenders.append(f"{relative}:{number}: {layer} includes <{system.group(1)}>")
    if offenders:
        print("includes that point up the layers (see docs/ARCHITECTURE.md):")
        print("\n".join(offenders))
        sys.exit(1)
    print("every include in lib/ points down the layers")


if __name__ == "__main__":
    main()
