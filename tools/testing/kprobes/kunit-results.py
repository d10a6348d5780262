#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a KUnit (KTAP) console log into one line per test case.

Prints "KUNIT <suite>.<case> PASS|FAIL|SKIP [reason]"; a failed case is
followed by what KUnit said about it (the assertion, its file:line, the
expected and actual values), indented.  Exits 1 if any case failed, if a
suite did not finish, or if no case ran at all.  A kernel report in the
log (the patterns of tools/testing/kprobes/kernel-reports: oops, WARN,
lockdep, KASAN, RCU stalls, hung tasks, lockups...) counts as a failure.

Names are made of one word each: blanks in a parameterised case's
description become '_'.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_DIAG = 16           # lines of KUnit's messages shown per failed case


def report_patterns(path=os.path.join(HERE, 'kernel-reports')):
    """The console patterns of kernel reports (the file's unindented,
    non-comment lines), as one compiled regular expression."""
    pats = []
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if not line or line.startswith('#') or line[0] in ' \t':
                continue
            pats.append(line)
    return re.compile('|'.join('(?:%s)' % p for p in pats))


def word(s):
    return re.sub(r'\s+', '_', s.strip())


def parse(text, bad_re):
    """Returns (leaves, problems, reports): leaves are (name, status,
    reason, diagnostics); problems are the lines of run-level failures."""
    stack = []          # suite (and parameterised case) names, outermost first
    results = []
    reports = []
    plans = {}          # suite path -> cases announced by its "1..N"
    seen = {}           # suite path -> result lines seen at its level
    done = set()        # suites whose own "ok N name" line came
    top_plan = None
    diag = []           # KUnit's messages since the last result line
    in_failure = False  # inside the indented text of a failed assertion
    for raw in text.splitlines():
        line = re.sub(r'^\[[ 0-9.]+\] ', '', raw.rstrip('\r'))
        if bad_re.search(line):
            reports.append(line.strip())
        s = line.lstrip()
        depth = (len(line) - len(s)) // 4
        m = re.match(r'# Subtest: (.+)', s)
        if m:
            # a suite at depth 1, a parameterised case at depth 2 ...
            del stack[max(depth - 1, 0):]
            stack.append(word(m.group(1)))
            diag = []
            in_failure = False
            continue
        m = re.match(r'1\.\.(\d+)$', s)
        if m:
            if depth == 0:
                top_plan = int(m.group(1))
            elif stack:
                plans['.'.join(stack[:depth])] = int(m.group(1))
            continue
        m = re.match(r'(not ok|ok) (\d+) ([^#]*)(#.*)?$', s)
        if not m:
            if s.startswith('# '):
                in_failure = 'FAILED at' in s or 'try faulted' in s or \
                    'try timed out' in s
                if not re.match(r'# \S+: pass:\d+ fail:\d+', s):
                    diag.append(s)
            elif in_failure and s and line[0] in ' \t' and \
                    not s.startswith('KTAP'):
                diag.append('  ' + s)
            else:
                in_failure = False
            continue
        in_failure = False
        status = 'PASS' if m.group(1) == 'ok' else 'FAIL'
        directive = (m.group(4) or '').lstrip('#').strip()
        reason = ''
        if directive.upper().startswith('SKIP'):
            status = 'SKIP'
            reason = directive[4:].strip()
        name = word(m.group(3))
        if depth == 0:
            done.add(name)
            diag = []
            continue
        parent = '.'.join(stack[:depth])
        seen[parent] = seen.get(parent, 0) + 1
        results.append(('.'.join(stack[:depth] + [name]), status, reason,
                        diag))
        diag = []
    # Only leaves: drop parameterised parents whose children we have.
    names = [r[0] for r in results]
    leaves = [r for r in results
              if not any(o.startswith(r[0] + '.') for o in names)]
    problems = []
    # A case that never reported (a hang, a crash) fails its suite.
    for suite, n in plans.items():
        if seen.get(suite, 0) < n:
            problems.append('KUNIT run.%s.incomplete FAIL (%d of %d cases reported)'
                            % (suite, seen.get(suite, 0), n))
    if top_plan is not None and len(done) < top_plan:
        problems.append('KUNIT run.suites-incomplete FAIL (%d of %d suites finished)'
                        % (len(done), top_plan))
    return leaves, problems, reports


def main(path):
    with open(path, errors='replace') as f:
        text = f.read()
    leaves, problems, reports = parse(text, report_patterns())
    failed = 0
    for name, status, reason, diag in leaves:
        print('KUNIT %s %s%s' % (name, status, ' ' + reason if reason else ''))
        if status == 'FAIL':
            failed += 1
            for d in diag[:MAX_DIAG]:
                print('    ' + d)
            if len(diag) > MAX_DIAG:
                print('    ... (%d more lines in %s)' % (len(diag) - MAX_DIAG,
                                                       path))
    for p in problems:
        print(p)
        failed += 1
    for b in reports[:20]:
        print('KUNIT-KERNEL-REPORT %s' % b)
    if reports:
        print('KUNIT run.kernel-reports FAIL (%d report lines; see %s)'
              % (len(reports), path))
        failed += 1
    if not leaves:
        print('KUNIT run.no-tests-ran FAIL (see %s)' % path)
        return 1
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
