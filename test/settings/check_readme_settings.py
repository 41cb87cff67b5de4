"""Fails when the README's "Settings" tables differ from the settings table's own.

  check_readme_settings.py HETCCL_SETTINGS README.md

HETCCL_SETTINGS --markdown prints the tables from lib/base/settings_table.cpp; the README's
"## Settings" section must hold that text exactly, so the two cannot drift apart.
"""
import difflib
import subprocess
import sys


def settings_section(readme):
    start = readme.find("\n## Settings\n")
    if start < 0:
        sys.exit("README has no '## Settings' section")
    end = readme.find("\n## ", start + 1)
    return readme[start:end if end >= 0 else len(readme)]


def main():
    tool, readme_path = sys.argv[1], sys.argv[2]
    generated = subprocess.run([tool, "--markdown"], check=True, capture_output=True, text=True).stdout
    with open(readme_path, encoding="utf-8") as f:
        section = settings_section(f.read())
    if generated in section:
        print("README settings tables match the settings table")
        return
    # Show the difference against the README's table lines, so the fix is obvious.
    readme_tables = [line for line in section.splitlines() if line.startswith("|")]
    generated_tables = [line for line in generated.splitlines() if line.startswith("|")]
    diff = difflib.unified_diff(readme_tables, generated_tables, "README.md", "hetccl-settings --markdown",
                                lineterm="")
    print("README's settings tables differ from the settings table; regenerate them with "
          "hetccl-settings --markdown:")
    print("\n".join(diff) or "(the tables match line by line; the text between them differs)")
    sys.exit(1)


if __name__ == "__main__":
    main()
