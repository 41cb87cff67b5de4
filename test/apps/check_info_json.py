"""Checks hetccl-info --json (read from stdin) against expectations given as key=value.

  islands=N            number of islands
  island_sizes=A,B     island sizes in island order
  vendors=V1,V2        the set of vendors of the ranks
  grid=RxC|none        the grid, or no grid (unequal islands)
  paced=yes|no         whether the inter-island transport is paced (emulated links)
  link_source=NAME     where the link parameters came from
  setting=VAR:VALUE:SOURCE
                       a settings variable's effective value and source (default,
                       environment, config)

It also checks the shape every document must have, so a field dropped from the output
fails here before a script in the wild notices.
"""
import json
import sys

REQUIRED_RANK_FIELDS = ["rank", "host", "node", "vendor", "device", "pci_bus", "numa_node",
                        "nics", "island", "island_name", "grid", "gpu_aware_mpi"]
REQUIRED_TOP_FIELDS = ["tool", "hetccl_version", "nranks", "ranks", "islands", "grid",
                       "transport", "link_parameters", "build", "settings"]
REQUIRED_SETTINGS = ["chunk_bytes", "chunk_bytes_tuned", "pipeline_depth", "algorithm",
                     "device", "island_scope", "debug_level", "variables"]
# A few of the settings table's variables; every one must have a value and a source.
REQUIRED_VARIABLES = ["HETCCL_DEBUG", "HETCCL_ALGO", "HETCCL_CHUNK_BYTES", "HETCCL_PIPELINE_DEPTH",
                      "HETCCL_STAGING", "HETCCL_ISLAND_SCOPE", "HETCCL_EMULATE_VENDORS"]
SOURCES = ["default", "environment", "config"]
REQUIRED_BUILD = ["hetccl_version", "cuda_backend", "hip_backend", "hwloc_api_version",
                  "mpi_library_version"]


def fail(message):
    print(message)
    sys.exit(1)


def check_shape(doc):
    for key in REQUIRED_TOP_FIELDS:
        if key not in doc:
            fail(f"missing top-level field '{key}'")
    if doc["tool"] != "hetccl-info":
        fail(f"tool is {doc['tool']!r}")
    if len(doc["ranks"]) != doc["nranks"]:
        fail(f"{len(doc['ranks'])} rank entries for nranks {doc['nranks']}")
    for i, rank in enumerate(doc["ranks"]):
        for key in REQUIRED_RANK_FIELDS:
            if key not in rank:
                fail(f"rank {i} has no '{key}'")
        if rank["rank"] != i:
            fail(f"rank entry {i} says rank {rank['rank']}")
    for key in REQUIRED_SETTINGS:
        if key not in doc["settings"]:
            fail(f"settings has no '{key}'")
    variables = doc["settings"]["variables"]
    for name in REQUIRED_VARIABLES:
        if name not in variables:
            fail(f"settings.variables has no '{name}'")
    for name, setting in variables.items():
        if not name.startswith("HETCCL_"):
            fail(f"settings.variables has '{name}', not a HETCCL_* variable")
        if setting.get("source") not in SOURCES or not isinstance(setting.get("value"), str):
            fail(f"settings.variables.{name} is {setting!r}")
    for key in REQUIRED_BUILD:
        if key not in doc["build"]:
            fail(f"build has no '{key}'")
    # Islands and ranks must agree with each other.
    for island in doc["islands"]:
        for r in island["ranks"]:
            if doc["ranks"][r]["island"] != island["index"]:
                fail(f"rank {r} is listed in island {island['index']} but says {doc['ranks'][r]['island']}")


def check_expectation(doc, key, value):
    islands = doc["islands"]
    if key == "islands":
        if len(islands) != int(value):
            fail(f"{len(islands)} islands, expected {value}")
    elif key == "island_sizes":
        sizes = ",".join(str(len(i["ranks"])) for i in islands)
        if sizes != value:
            fail(f"island sizes {sizes}, expected {value}")
    elif key == "vendor_libraries":
        flags = ",".join("1" if i["vendor_library"] else "0" for i in islands)
        if flags != value:
            fail(f"islands with a vendor library {flags}, expected {value}")
    elif key == "vendors":
        vendors = sorted({r["vendor"] for r in doc["ranks"]})
        if vendors != sorted(value.split(",")):
            fail(f"vendors {vendors}, expected {value}")
    elif key == "grid":
        grid = doc["grid"]
        if value == "none":
            if grid is not None or any(r["grid"] is not None for r in doc["ranks"]):
                fail(f"grid {grid}, expected none")
        else:
            rows, columns = (int(x) for x in value.split("x"))
            if grid != {"rows": rows, "columns": columns}:
                fail(f"grid {grid}, expected {value}")
            for r in doc["ranks"]:
                if r["grid"] != {"row": r["island"], "column": islands[r["island"]]["ranks"].index(r["rank"])}:
                    fail(f"rank {r['rank']} has grid position {r['grid']}")
    elif key == "paced":
        transport = doc["transport"]["inter_island"] or ""
        if ("paced" in transport) != (value == "yes"):
            fail(f"inter-island transport {transport!r}, expected paced={value}")
    elif key == "link_source":
        if doc["link_parameters"]["source"] != value:
            fail(f"link parameters from {doc['link_parameters']['source']!r}, expected {value}")
    elif key == "setting":
        # The value may hold colons (nvidia:2,amd:2); the name and the source do not.
        name, _, rest = value.partition(":")
        expected, _, source = rest.rpartition(":")
        setting = doc["settings"]["variables"].get(name)
        if setting != {"value": expected, "source": source}:
            fail(f"{name} is {setting!r}, expected value {expected!r} from {source}")
    else:
        fail(f"unknown expectation '{key}'")


def main():
    text = sys.stdin.read()
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as error:
        fail(f"not JSON: {error}")
    check_shape(doc)
    for argument in sys.argv[1:]:
        key, _, value = argument.partition("=")
        check_expectation(doc, key, value)
    print("JSON ok")


if __name__ == "__main__":
    main()
