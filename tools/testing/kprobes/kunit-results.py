#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a KUnit (KTAP) console log into one line per test case.

Prints "KUNIT <suite>.<case> PASS|FAIL|SKIP"; exits 1 if any case failed,
if a suite did not finish, or if no case ran at all.  Kernel warnings,
oopses and lockdep/KASAN reports seen in the log count as failures too.
"""
import re
import sys

BAD = re.compile(r'(BUG:|WARNING:|Oops|Kernel panic|general protection|'
                 r'KASAN:|UBSAN|circular locking|INFO: possible|'
                 r'inconsistent lock state|suspected memory leak|ODEBUG:|'
                 r'stack-protector|kretprobe BUG)')


def main(path):
    text = open(path, errors='replace').read()
    lines = text.splitlines()
    stack = []          # suite (and parameterised case) names, outermost first
    results = []
    bad = []
    plans = {}          # suite path -> cases announced by its "1..N"
    seen = {}           # suite path -> result lines seen at its level
    done = set()        # suites whose own "ok N name" line came
    top_plan = None
    for raw in lines:
        line = re.sub(r'^\[[ 0-9.]+\] ', '', raw)
        if BAD.search(line):
            bad.append(line.strip())
        s = line.lstrip()
        depth = (len(line) - len(s)) // 4
        m = re.match(r'# Subtest: (\S+)', s)
        if m:
            # a suite at depth 1, a parameterised case at depth 2 ...
            del stack[max(depth - 1, 0):]
            stack.append(m.group(1))
            continue
        m = re.match(r'1\.\.(\d+)$', s)
        if m:
            if depth == 0:
                top_plan = int(m.group(1))
            elif stack:
                plans['.'.join(stack[:depth])] = int(m.group(1))
            continue
        m = re.match(r'(not ok|ok) (\d+) (\S+)(.*)', s)
        if not m:
            continue
        status = 'PASS' if m.group(1) == 'ok' else 'FAIL'
        if '# SKIP' in m.group(4):
            status = 'SKIP'
        if depth == 0:
            done.add(m.group(3))
            continue
        parent = '.'.join(stack[:depth])
        seen[parent] = seen.get(parent, 0) + 1
        results.append(('.'.join(stack[:depth] + [m.group(3)]), status))
    # Only leaves: drop parameterised parents whose children we have.
    names = [r[0] for r in results]
    leaves = [(n, st) for n, st in results
              if not any(o.startswith(n + '.') for o in names)]
    for name, status in leaves:
        print('KUNIT %s %s' % (name, status))
    failed = sum(1 for _, st in leaves if st == 'FAIL')
    # A case that never reported (a hang, a crash) fails its suite.
    for suite, n in plans.items():
        if seen.get(suite, 0) < n:
            print('KUNIT %s.incomplete FAIL (%d of %d cases reported)' %
                  (suite, seen.get(suite, 0), n))
            failed += 1
    if top_plan is not None and len(done) < top_plan:
        print('KUNIT suites-incomplete FAIL (%d of %d suites finished)' %
              (len(done), top_plan))
        failed += 1
    for b in bad[:20]:
        print('KUNIT-KERNEL-REPORT %s' % b)
    if bad:
        print('KUNIT kernel-reports FAIL')
        failed += 1
    if not leaves:
        print('KUNIT no-tests-ran FAIL')
        return 1
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
