"""Fails when code in lib/ or apps/ reads the environment anywhere but the settings readers.

  check_getenv_only_in_settings.py SOURCE_DIR

Every variable hetccl reads is in the settings table (lib/base/settings_table.cpp) and read
through lib/base/settings_reader.cpp, so that its type, default and errors are the same
wherever it is used.  Tests may still set and read variables.
"""
import os
import re
import sys

ALLOWED = {os.path.join("lib", "base", "settings_reader.cpp")}
READS = re.compile(r"\b(secure_getenv|getenv)\s*\(")
SOURCES = (".c", ".cc", ".cpp", ".cu", ".h", ".hpp", ".hip")


def main():
    root = sys.argv[1]
    offenders = []
    for top in ("lib", "apps"):
        for directory, _, files in os.walk(os.path.join(root, top)):
            for name in files:
                if not name.endswith(SOURCES):
                    continue
                path = os.path.join(directory, name)
                relative = os.path.relpath(path, root)
                if relative in ALLOWED:
                    continue
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        code = line.split("//")[0]
                        if READS.search(code):
                            offenders.append(f"{relative}:{number}: {line.strip()}")
    if offenders:
        print("the environment is read outside lib/base/settings_reader.cpp (add the variable to the "
              "settings table and use its reader):")
        print("\n".join(offenders))
        sys.exit(1)
    print("getenv only in lib/base/settings_reader.cpp")


if __name__ == "__main__":
    main()
