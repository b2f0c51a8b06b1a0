#!/usr/bin/env python3
"""help_matches_docs.py TLC DOC — `tlc --help` and docs/cli.md list the same
options.

From the help: every -x and --long-name in the left column of the
"options:" section.  From the doc: every -x and --long-name in the first
column of the table under "## Options".  The two sets must be equal, and
each must be non-empty (a test that compares nothing passes nothing).
"""
import re
import subprocess
import sys

OPT = re.compile(r"(?<![\w-])(--[a-z][a-z-]*|-[A-Za-z])(?![\w-])")

tlc, doc = sys.argv[1], sys.argv[2]
help_text = subprocess.run([tlc, "--help"], capture_output=True, text=True, check=True).stdout
section = help_text.split("\noptions:\n", 1)[1].split("\n\n", 1)[0]
from_help = set()
for line in section.splitlines():
    left = line.strip().split("  ", 1)[0]  # the column before the explanation
    from_help.update(OPT.findall(left))

text = open(doc).read()
table = text.split("\n## Options\n", 1)[1].split("\n## ", 1)[0]
from_doc = set()
for line in table.splitlines():
    if line.startswith("| `"):
        from_doc.update(OPT.findall(line.split("|")[1]))

print("help:", " ".join(sorted(from_help)))
print("doc: ", " ".join(sorted(from_doc)))
ok = bool(from_help) and from_help == from_doc
if not ok:
    print("only in tlc --help:", sorted(from_help - from_doc))
    print("only in docs/cli.md:", sorted(from_doc - from_help))
print("help_matches_docs:", "ok" if ok else "FAIL")
sys.exit(0 if ok else 1)
