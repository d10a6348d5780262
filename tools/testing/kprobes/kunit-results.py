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
                 r'KASAN|UBSAN|possible circular locking|lockdep|'
                 r'kmemleak|stack-protector|kretprobe BUG)')


def main(path):
    lines = open(path, errors='replace').read().splitlines()
    stack = []          # names of suites being run, innermost last
    results = []
    bad = []
    plans = {}
    for raw in lines:
        line = re.sub(r'^\[[ 0-9.]+\] ', '', raw)
        if BAD.search(line):
            bad.append(line.strip())
        s = line.lstrip()
        indent = len(line) - len(s)
        m = re.match(r'# Subtest: (\S+)', s)
        if m:
            depth = indent // 4
            del stack[depth:]
            stack.append(m.group(1))
            continue
        m = re.match(r'(not ok|ok) (\d+) (\S+)(.*)', s)
        if m:
            depth = indent // 4
            status = 'PASS' if m.group(1) == 'ok' else 'FAIL'
            if '# SKIP' in m.group(4):
                status = 'SKIP'
            if depth == 0:
                # a whole suite: its cases were reported already
                if stack and stack[0] == m.group(3):
                    plans[m.group(3)] = status
                continue
            name = '.'.join(stack[:depth] + [m.group(3)])
            results.append((name, status, depth))
    # Only leaves: drop parameterised parents whose children we have.
    leaves = []
    names = [r[0] for r in results]
    for name, status, depth in results:
        if any(n.startswith(name + '.') for n in names):
            continue
        leaves.append((name, status))
    for name, status in leaves:
        print('KUNIT %s %s' % (name, status))
    failed = sum(1 for _, s in leaves if s == 'FAIL')
    for b in bad[:20]:
        print('KUNIT-KERNEL-REPORT %s' % b)
    if bad:
        print('KUNIT kernel-reports FAIL')
        failed += 1
    if not leaves:
        print('KUNIT no-tests-ran FAIL')
        return 1
    if 'Testing complete.' not in open(path, errors='replace').read() and \
       not any('kunit_shutdown' in l or 'reboot: ' in l for l in lines):
        print('KUNIT run-incomplete FAIL')
        return 1
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
