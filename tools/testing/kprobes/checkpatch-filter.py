#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Drop the checkpatch reports that checkpatch-allow accepts.

Reads `checkpatch.pl --show-types` output (blank-line separated reports,
"LEVEL:TYPE: message" then "#N: FILE: path:line:") on stdin and prints
the reports that remain.
"""
import os
import re
import sys

allow = set()
with open(os.path.join(os.path.dirname(__file__), 'checkpatch-allow')) as f:
    for line in f:
        line = line.strip()
        if line and not line.startswith('#'):
            path, typ = line.split()
            allow.add((path, typ))

for report in re.split(r'\n\s*\n', sys.stdin.read()):
    if not report.strip():
        continue
    m = re.search(r'^(?:ERROR|WARNING|CHECK):(\w+):', report, re.M)
    f = re.search(r'FILE: ([^:\s]+):', report)
    if m and f and (f.group(1), m.group(1)) in allow:
        continue
    print(report.strip() + '\n')
