#!/usr/bin/env python3
"""update_cli_doc.py REALM_SHADOW [DOC]: write `REALM_SHADOW help --markdown`
(the command list and option tables, from the command table in
tools/commands.cc) into docs/cli.md, in place of the block it wrote there
before: from its first line ("<!-- Written by `realm-shadow help
--markdown`...") to its end line.  The test Cli.DocsHoldTheCommandTable
fails until this is run after a change to the table."""

import os
import subprocess
import sys

BEGIN = "<!-- Written by `realm-shadow help --markdown`"
END = "<!-- End of `realm-shadow help --markdown`. -->"


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    doc = sys.argv[2] if len(sys.argv) == 3 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "cli.md")
    block = subprocess.run([sys.argv[1], "help", "--markdown"], check=True,
                           capture_output=True, text=True).stdout
    lines = open(doc).read().split("\n")
    begin = [i for i, line in enumerate(lines) if line.startswith(BEGIN)]
    end = [i for i, line in enumerate(lines) if line == END]
    if len(begin) != 1 or len(end) != 1 or end[0] < begin[0]:
        sys.exit("%s: expected one block from a line starting %r to %r" %
                 (doc, BEGIN, END))
    lines[begin[0]:end[0] + 1] = block.rstrip("\n").split("\n")
    with open(doc, "w") as out:
        out.write("\n".join(lines))


if __name__ == "__main__":
    main()
