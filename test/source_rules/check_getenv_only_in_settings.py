"""Fails when code in lib/ or apps/ reads the environment anywhere but the settings readers.

  check_getenv_only_in_settings.py SOURCE_DIR

Every variable hetccl reads is in the settings table (lib/base/settings_table.cpp) and read
through lib/base/settings_reader.cpp, so that its type, default and errors are the same
wherever it is used.  Tests may still set and read variables.
"""
import re
import sys

from source_files import source_files

ALLOWED = {"lib/base/settings_reader.cpp"}
READS = re.compile(r"\b(secure_getenv|getenv)\s*\(")


def main():
    offenders = []
    for relative, lines in source_files(sys.argv[1], ["lib", "apps"]):
        if relative in ALLOWED:
            continue
        for number, line in enumerate(lines, 1):
            if READS.search(line.split("//")[0]):
                offenders.append(f"{relative}:{number}: {line.strip()}")
    if offenders:
        print("the environment is read outside lib/base/settings_reader.cpp (add the variable to the "
              "settings table and use its reader):")
        print("\n".join(offenders))
        sys.exit(1)
    print("getenv only in lib/base/settings_reader.cpp")


if __name__ == "__main__":
    main()
