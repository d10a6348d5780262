#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The expected inventory of make check, and its accounting.

tools/testing/kprobes/inventory lists every case (KUnit case, guest test,
ftrace selftest, sparse'd file, build, self-test check...) that must
run, per flavour and architecture:

    KIND  NAME  WHERE...  [# why the :skip ones may skip]

KIND is the first word of a result line, NAME its second without the
"ARCH:" prefix, and each WHERE is FLAVOUR:ARCH (the case must run there,
and pass) or FLAVOUR:ARCH:skip (it must run there but may report a
skip: KUnit's SKIP, ftracetest's UNSUPPORTED..., with the reason after a
'#' on the line).  A result whose name has no "ARCH:" prefix is about
the run, not one architecture (the self-test, checkpatch, the docs):
its WHERE is the FLAVOUR alone (or FLAVOUR:skip), and every run of that
flavour must have it, whichever ARCHES it runs.  A case that exists only
in one flavour or on one architecture lists only those.

Every kind of result line is inventoried (KINDS below); a result of a
kind not there fails.  So a checker that prints nothing, or stops
halfway, fails make check through the cases it did not print:

  KUNIT       ARCH:[VARIANT:]suite.case      kunit.sh, kunit-pnmi.sh
              ("pnmi:"), configmatrix.sh ("VARIANT:")
  KPTEST      ARCH:test.case                 itest.sh (the guest tests)
  FTRACE      ARCH:dir/test.tc               ftracetest.sh
  SPARSE      ARCH:file                      sparse.sh: each C file of ours
              the config builds, each header of ours they include
  MATRIX      ARCH:VARIANT.build|kunit       configmatrix.sh
  CHECK       [ARCH:]name                    check.sh's own steps (deps,
              build, the staged tree, the pnmi boot, ftracetest...)
  BENCH       ARCH:smoke                     bench.sh --smoke
  SELFTEST    name                           selftest/run.sh; its last
              line, "SELFTEST completed", only when it reached its end
  CHECKPATCH  patch file                     checkpatch.sh: counted (below)
  SERIES      name                           series-check.sh --quick
  DOCS        name                           docs.sh
  FIXES       ARCH:patch.with|suite.with     fixes.sh with: the fixes for
              plain 6.12, each patch's tests on the base with the series

A kind of COUNTED has names that change with no change to what runs
(CHECKPATCH's are the series' patch files, named after their subject
lines): the inventory has one line "KIND * WHERE=N..." for it, and the
number of its distinct cases that ran there must be exactly N (none may
skip).  The self-test (SELFTEST, a kind of FLAVOURLESS) runs the same in
either flavour: update from either rewrites its cases for both.

  inventory.py check --flavour F --arches "A B" RESULTS
      Appends to RESULTS one "INVENTORY ARCH:KIND:NAME FAIL (why)" line
      ("KIND:NAME" for a result about the run) per case expected there
      that did not run, per case that ran but is not listed, per kind it
      does not know, per count that is not the inventory's, and per skip
      the inventory does not allow; then prints the skipped cases, the
      failed ones and the closing line "N passed, N failed, N skipped".
      Exit 1 unless 0 failed and at least one passed.
  inventory.py update [--flavour F] [--drop PATTERN]... RESULTS...
      Rewrites the inventory from what the RESULTS files (of make check:
      build/check-FLAVOUR.results) ran: for each flavour, architecture
      (or none) and kind present in them, the cases listed there become
      exactly those that ran, and a counted kind's N their number.
      Allowed skips and their reasons are kept; a case that skipped
      without permission is listed as must-run (the next check fails on
      it until someone writes down why it may skip).
      A case the inventory lists and the run did not run is dropped only
      when a --drop PATTERN (a shell glob on "KIND NAME" or on NAME)
      names it: otherwise update lists those cases, writes nothing and
      exits 1, so that a test that quietly stopped running (an #ifdef,
      an early exit) cannot vanish from the inventory by an update.
      Likewise a counted kind's N does not go down unless a --drop
      PATTERN names "KIND *".
      Review the change with git diff.
  inventory.py lint
      Checks the file's syntax.

A result line is "KIND NAME STATUS [detail]" at the start of a line;
indented lines (diagnostics) and kinds ending in -REPORT are not
results.  PASS passes; FAIL and UNRESOLVED fail; SKIP, UNSUPPORTED,
UNTESTED and XFAIL skip.  A NAME whose case part starts with "run." is
about a run as a whole (KUNIT x86_64:run.suites-incomplete, KPTEST
x86_64:run.guest-completed...: a suite that did not finish, a guest that
did not reach its end): counted, never inventoried.
"""
import argparse
import fnmatch
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
INVENTORY = os.path.join(HERE, 'inventory')
FLAVOURS = ('ours', 'upstream')
ARCHES = ('x86_64', 'arm64')
# The kinds of result lines, all inventoried (see the top); a name is
# "ARCH:NAME" for a case about one architecture, "NAME" for the run's.
KINDS = ('KUNIT', 'KPTEST', 'FTRACE', 'SPARSE', 'MATRIX', 'CHECK', 'BENCH',
         'SELFTEST', 'CHECKPATCH', 'SERIES', 'DOCS', 'FIXES')
# Kinds inventoried by their number of cases, in one "KIND * WHERE=N" line.
COUNTED = ('CHECKPATCH',)
# Kinds that run the same in every flavour: update writes all flavours.
FLAVOURLESS = ('SELFTEST',)
# The arch of a result without "ARCH:" (about the run), in WHERE: none.
NOARCH = ''
PASS = {'PASS'}
FAIL = {'FAIL', 'UNRESOLVED'}
SKIP = {'SKIP', 'UNSUPPORTED', 'UNTESTED', 'XFAIL'}
RESULT_RE = re.compile(r'^([A-Z][A-Z0-9_-]*) (\S+) (%s)(?: (.*))?$' %
                       '|'.join(sorted(PASS | FAIL | SKIP)))
HEADER_RE = re.compile(r'^# kprobes check: (.*)$')
BASE_RE = re.compile(r'^# base: (.*)$')
NAME_COL = 52
DIAG = {}           # result line number -> the indented lines after it
MAX_DIAG = 12


def place(fl, arch):
    """The WHERE token of (flavour, arch): FLAVOUR:ARCH, or FLAVOUR for
    the results about a run."""
    return '%s:%s' % (fl, arch) if arch else fl


class Entry:
    def __init__(self, kind, name, where, reason=''):
        self.kind = kind
        self.name = name        # '*' for a COUNTED kind
        self.where = where      # {(flavour, arch): may_skip}
        self.count = {}         # {(flavour, arch): N} for a COUNTED kind
        self.reason = reason

    def line(self):
        toks = []
        for fl in FLAVOURS:
            for arch in (NOARCH,) + ARCHES:
                if (fl, arch) in self.where:
                    toks.append(place(fl, arch) +
                                (':skip' if self.where[(fl, arch)] else '') +
                                ('=%d' % self.count[(fl, arch)]
                                 if (fl, arch) in self.count else ''))
        s = '%-7s %-*s %s' % (self.kind, NAME_COL, self.name, ' '.join(toks))
        if self.reason:
            s += '  # ' + self.reason
        return s


def read_inventory(path):
    """Returns (header lines, {(kind, name): Entry}, errors)."""
    header, entries, errors = [], {}, []
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        return header, entries, ['%s: %s' % (path, e.strerror)]
    for n, line in enumerate(lines, 1):
        body, _, reason = line.partition('#')
        if not body.strip():
            if not entries:
                header.append(line)
            elif line.strip():
                errors.append('%s:%d: comments go in the header or at the end '
                              'of an entry (update rewrites the file)' % (path, n))
            continue
        toks = body.split()
        if len(toks) < 3:
            errors.append('%s:%d: want KIND NAME WHERE...: %s' % (path, n, line))
            continue
        kind, name, where, count = toks[0], toks[1], {}, {}
        if kind not in KINDS:
            errors.append('%s:%d: unknown kind %s (known: %s)' %
                          (path, n, kind, ' '.join(KINDS)))
        if (kind in COUNTED) != (name == '*'):
            errors.append('%s:%d: %s: the counted kinds (%s) have one line '
                          '"KIND * WHERE=N...", the others a line per case' %
                          (path, n, name, ' '.join(COUNTED)))
        for t in toks[2:]:
            t, eq, num = t.partition('=')
            p = t.split(':')
            if len(p) == 1 or (len(p) == 2 and p[1] == 'skip'):
                p.insert(1, NOARCH)
            if len(p) not in (2, 3) or p[0] not in FLAVOURS or \
                    p[1] not in (NOARCH,) + ARCHES or \
                    (len(p) == 3 and p[2] != 'skip') or \
                    (name == '*') != bool(eq) or (eq and not num.isdigit()) or \
                    (eq and len(p) == 3):
                errors.append('%s:%d: bad WHERE %s%s%s (want FLAVOUR:ARCH, '
                              'FLAVOUR:ARCH:skip, FLAVOUR or FLAVOUR:skip; '
                              'with =N for a counted kind, without :skip)' %
                              (path, n, t, eq, num))
                continue
            where[(p[0], p[1])] = len(p) == 3
            if eq:
                count[(p[0], p[1])] = int(num)
        if any(where.values()) and not reason.strip():
            errors.append('%s:%d: %s %s may skip somewhere: say why after "#"'
                          % (path, n, kind, name))
        if (kind, name) in entries:
            errors.append('%s:%d: %s %s listed twice' % (path, n, kind, name))
        entries[(kind, name)] = Entry(kind, name, where, reason.strip())
        entries[(kind, name)].count = count
    return header, entries, errors


def write_inventory(path, header, entries):
    order = {k: i for i, k in enumerate(KINDS)}
    keep = [e for e in entries.values() if e.where]
    keep.sort(key=lambda e: (order.get(e.kind, len(KINDS)), e.kind, e.name))
    with open(path + '.new', 'w') as f:
        for h in header:
            f.write(h + '\n')
        for e in keep:
            f.write(e.line() + '\n')
    os.replace(path + '.new', path)


def read_results(path):
    """Returns (header fields, [(kind, name, status, detail, lineno)]),
    and sets diag[lineno] to the indented lines that follow a result
    (a failed KUnit case's assertion, for one)."""
    fields, res = {}, []
    last = None
    with open(path, errors='replace') as f:
        for n, line in enumerate(f.read().splitlines(), 1):
            if line[:1] in (' ', '\t') and last is not None:
                DIAG.setdefault(last, []).append(line.strip())
                continue
            last = None
            m = BASE_RE.match(line)
            if m:
                fields['base'] = m.group(1)
                continue
            m = HEADER_RE.match(line)
            if m:
                fields.update(kv.split('=', 1) for kv in m.group(1).split()
                              if '=' in kv)
                continue
            m = RESULT_RE.match(line)
            # INVENTORY lines are this script's verdicts: made anew
            if not m or m.group(1).endswith('-REPORT') or \
                    m.group(1) == 'INVENTORY':
                continue
            res.append((m.group(1), m.group(2), m.group(3), m.group(4) or '',
                        n))
            last = n
    return fields, res


def split_arch(name):
    """(arch, case) of a result's name; arch NOARCH for one about the run."""
    arch, sep, rest = name.partition(':')
    if sep and arch in ARCHES:
        return arch, rest
    return NOARCH, name


def label(arch, kind, case):
    """How an INVENTORY line names a case."""
    return '%s:%s:%s' % (arch, kind, case) if arch else '%s:%s' % (kind, case)


def where_text(fl, arch):
    return '%s %s' % (fl, arch) if arch else '%s (the run, any arch)' % fl


def group_of(kind, name):
    """The suite a case belongs to: KUnit's suite, the guest test's
    prefix, the ftrace selftest's directory."""
    if kind == 'FTRACE':
        return name.rsplit('/', 1)[0] if '/' in name else name
    return name.split('.', 1)[0]


def is_run(case):
    """A result about a run as a whole (also of a variant: kunit:run.x)."""
    return case.rsplit(':', 1)[-1].startswith('run.')


def how_to_update(res_path):
    return ('tools/testing/kprobes/inventory.py update %s' %
            os.path.relpath(res_path))


def check(args):
    header, entries, errors = read_inventory(args.inventory)
    fields, results = read_results(args.results)
    fl = args.flavour or fields.get('flavour', 'ours')
    arches = (args.arches or fields.get('arches', ' '.join(ARCHES)))
    arches = arches.replace(',', ' ').split()
    scope = arches + [NOARCH]   # the run's arches, and the run itself
    inv_lines = []      # the INVENTORY lines this check adds
    for e in errors:
        inv_lines.append('INVENTORY file FAIL (%s)' % e)
    ran = {}            # (arch, kind, name) -> [statuses]
    counted = {}        # (arch, kind) -> {names} of a COUNTED kind
    for kind, name, status, _, _ in results:
        arch, case = split_arch(name)
        if not is_run(case):
            ran.setdefault((arch, kind, case), []).append(status)
    forbidden = set()   # result line numbers of skips that may not skip
    unknown = []        # the kinds not in KINDS, in order
    for kind, name, status, detail, n in results:
        arch, case = split_arch(name)
        if arch not in scope or is_run(case):
            continue
        if kind not in KINDS:
            if kind not in unknown:
                unknown.append(kind)
                inv_lines.append(
                    'INVENTORY %s FAIL (a kind of result the inventory does '
                    'not know, e.g. "%s %s %s": add it to KINDS in '
                    'tools/testing/kprobes/inventory.py, its cases to the '
                    'inventory)' % (label(arch, kind, case), kind, name, status))
            continue
        where = (fl, arch)
        if kind in COUNTED:
            counted.setdefault((arch, kind), set()).add(case)
            if status in SKIP:
                forbidden.add(n)
                inv_lines.append(
                    'INVENTORY %s FAIL (%s%s: the cases of %s, a counted '
                    'kind, may not skip)' %
                    (label(arch, kind, case), status,
                     ' (' + detail + ')' if detail else '', kind))
            continue
        e = entries.get((kind, case))
        if e is None or where not in e.where:
            if status in FAIL:
                continue        # a failure already, and said so
            add = ('add "%s" to its line' % place(fl, arch) if e else
                   'add the line "%s %s %s"' % (kind, case, place(fl, arch)))
            inv_lines.append(
                'INVENTORY %s FAIL (ran, but the inventory does not '
                'list it for %s: %s in tools/testing/kprobes/inventory, '
                'or run %s)' %
                (label(arch, kind, case), where_text(fl, arch), add,
                 how_to_update(args.results)))
        elif status in SKIP and not e.where[where]:
            forbidden.add(n)
            inv_lines.append(
                'INVENTORY %s FAIL (%s%s, but it must run on %s; '
                'if it may skip there, mark it "%s:skip" in the inventory, '
                'with the reason)' %
                (label(arch, kind, case), status,
                 ' (' + detail + ')' if detail else '',
                 where_text(fl, arch), place(fl, arch)))
    for (arch, kind, case), st in sorted(ran.items()):
        if arch in scope and len(st) > 1:
            inv_lines.append('INVENTORY %s FAIL (reported %d times: '
                             'names must be unique)' %
                             (label(arch, kind, case), len(st)))
    # The counted kinds: exactly N cases.
    for kind in COUNTED:
        e = entries.get((kind, '*'))
        for arch in scope:
            got = len(counted.get((arch, kind), ()))
            want = e.count.get((fl, arch)) if e else None
            if want is None and got:
                inv_lines.append(
                    'INVENTORY %s FAIL (%d cases ran, but the inventory '
                    'expects none on %s: add "%s=%d" to the line "%s *", or '
                    'run %s)' %
                    (label(arch, kind, '*'), got, where_text(fl, arch),
                     place(fl, arch), got, kind, how_to_update(args.results)))
            elif want is not None and got != want:
                inv_lines.append(
                    'INVENTORY %s FAIL (%d cases ran, the inventory expects '
                    '%d on %s)' %
                    (label(arch, kind, '*'), got, want, where_text(fl, arch)))
    # What the inventory expects and did not run, by suite.
    for arch in scope:
        want = [e for e in entries.values()
                if (fl, arch) in e.where and e.kind not in COUNTED]
        missing = [e for e in want if (arch, e.kind, e.name) not in ran]
        if not missing:
            continue
        if len(missing) == len(want):
            inv_lines.append('INVENTORY %s FAIL (none of the %d cases the '
                             'inventory expects on %s ran)' %
                             ('%s:all' % arch if arch else 'all', len(want),
                              where_text(fl, arch)))
            continue
        groups = {}
        for e in want:
            groups.setdefault((e.kind, group_of(e.kind, e.name)), []).append(e)
        for (kind, g), es in sorted(groups.items()):
            miss = [e.name for e in es if (arch, kind, e.name) not in ran]
            if not miss:
                continue
            if len(miss) == len(es) and len(es) > 1:
                inv_lines.append(
                    'INVENTORY %s FAIL (the whole suite is missing: '
                    '%d cases expected on %s: %s)' %
                    (label(arch, kind, g + '.*'), len(es),
                     where_text(fl, arch),
                     ' '.join(miss[:8]) + (' ...' if len(miss) > 8 else '')))
                continue
            for name in miss:
                inv_lines.append(
                    'INVENTORY %s FAIL (did not run; the inventory '
                    'expects it on %s)' %
                    (label(arch, kind, name), where_text(fl, arch)))
    for line in inv_lines:
        print(line)
    if not args.no_append:
        with open(args.results, errors='replace') as f:
            old = [l for l in f.read().splitlines()
                   if not l.startswith('INVENTORY ')]
        with open(args.results, 'w') as f:
            for line in old + inv_lines:
                f.write(line + '\n')
    # The accounting: every result line counts once.
    passed, failed, skipped = [], [], []
    for kind, name, status, detail, n in results:
        line = '%s %s %s%s' % (kind, name, status, ' ' + detail if detail else '')
        if status in PASS:
            passed.append(line)
        elif status in FAIL:
            failed.append(line)
            failed += ['    ' + d for d in DIAG.get(n, [])[:MAX_DIAG]]
        elif n in forbidden:
            pass                # its INVENTORY line is the failure
        else:
            arch, case = split_arch(name)
            e = entries.get((kind, case))
            why = e.reason if e and e.reason else ''
            skipped.append(line + ('   [inventory: %s]' % why if why else ''))
    nfailed = sum(1 for f in failed if not f.startswith(' ')) + len(inv_lines)
    failed += inv_lines
    print()
    if skipped:
        print('skipped:')
        for s in skipped:
            print('  ' + s)
    if failed:
        print('failed:')
        for s in failed:
            print('  ' + s)
    if fields.get('base'):
        print('base: %s' % fields['base'])
    print('%d passed, %d failed, %d skipped' %
          (len(passed), nfailed, len(skipped)))
    return 0 if not nfailed and passed else 1


def dropped(patterns, kind, name):
    """Does a --drop pattern name this case?"""
    return any(fnmatch.fnmatchcase('%s %s' % (kind, name), p) or
               fnmatch.fnmatchcase(name, p) for p in patterns or ())


def update_one(entries, drop, where, kind, cases, added, removed,
               unskipped, refused):
    """Makes the inventory of KIND at WHERE the CASES ({name: status}) of
    a run, telling in the lists what changed or may not."""
    fl, arch = where
    if kind in COUNTED:
        e = entries.get((kind, '*'))
        if e is None:
            e = entries[(kind, '*')] = Entry(kind, '*', {})
        old, new = e.count.get(where), len(cases)
        tok = '%s * %s' % (kind, place(fl, arch))
        if old is not None and new < old and not dropped(drop, kind, '*'):
            refused.append('%s=%d (this run: %d)' % (tok, old, new))
        elif old != new:
            e.where[where] = False
            e.count[where] = new
            added.append('%s=%d%s' % (tok, new, '' if old is None else
                                      ' (was %d)' % old))
        return
    for e in entries.values():
        if e.kind == kind and where in e.where and e.name not in cases:
            gone = '%s %s %s' % (kind, e.name, place(fl, arch))
            if not dropped(drop, kind, e.name):
                refused.append(gone)
                continue
            del e.where[where]
            removed.append(gone)
    for case, status in sorted(cases.items()):
        e = entries.get((kind, case))
        if e is None:
            e = entries[(kind, case)] = Entry(kind, case, {})
        if where not in e.where:
            e.where[where] = False
            added.append('%s %s %s%s' % (
                kind, case, place(fl, arch),
                ' (it FAILED in this run)' if status in FAIL else ''))
        if status in SKIP and not e.where[where]:
            unskipped.append('%s %s %s' % (kind, case, place(fl, arch)))


def update(args):
    header, entries, errors = read_inventory(args.inventory)
    if errors:
        for e in errors:
            print(e, file=sys.stderr)
        return 1
    added, removed, unskipped, refused = [], [], [], []
    for path in args.results:
        fields, results = read_results(path)
        fl = args.flavour or fields.get('flavour')
        if fl not in FLAVOURS:
            print('%s: which flavour? (no "# kprobes check: flavour=..." '
                  'header; pass --flavour)' % path, file=sys.stderr)
            return 1
        ran = {}        # (arch, kind) -> {name: status}
        for kind, name, status, _, _ in results:
            arch, case = split_arch(name)
            if kind in KINDS and not is_run(case):
                ran.setdefault((arch, kind), {})[case] = status
        for (arch, kind), cases in sorted(ran.items()):
            for f in (FLAVOURS if kind in FLAVOURLESS else (fl,)):
                update_one(entries, args.drop, (f, arch), kind, cases,
                           added, removed, unskipped, refused)
    if refused:
        for r in refused:
            print('not run, and no --drop names it: ' + r)
        print('%s: unchanged: %d listed cases did not run (or counts went '
              'down); if they are gone on purpose, repeat with --drop for '
              'each (a glob on "KIND NAME" or NAME; "KIND *" for a count), '
              'else find out why they did not run' %
              (os.path.relpath(args.inventory), len(refused)))
        return 1
    for e in entries.values():
        if not any(e.where.values()):
            e.reason = ''
        for w in list(e.count):
            if w not in e.where:
                del e.count[w]
    write_inventory(args.inventory, header, entries)
    for a in added:
        print('added:   ' + a)
    for r in removed:
        print('removed: ' + r)
    for u in unskipped:
        print('skipped without permission (kept as must-run): ' + u)
    print('%s: %d added, %d removed; review with git diff' %
          (os.path.relpath(args.inventory), len(added), len(removed)))
    return 0


def lint(args):
    _, entries, errors = read_inventory(args.inventory)
    for e in errors:
        print(e)
    print('%d entries, %d errors' % (len(entries), len(errors)))
    return 1 if errors else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--inventory', default=INVENTORY)
    sub = ap.add_subparsers(dest='cmd', required=True)
    c = sub.add_parser('check')
    c.add_argument('--flavour')
    c.add_argument('--arches')
    c.add_argument('--no-append', action='store_true',
                   help='print the INVENTORY lines, do not append them')
    c.add_argument('results')
    u = sub.add_parser('update')
    u.add_argument('--flavour')
    u.add_argument('--drop', action='append', default=[], metavar='PATTERN',
                   help='let update drop the listed cases this glob names '
                   '(on "KIND NAME" or NAME) that did not run')
    u.add_argument('results', nargs='+')
    sub.add_parser('lint')
    args = ap.parse_args()
    return {'check': check, 'update': update, 'lint': lint}[args.cmd](args)


if __name__ == '__main__':
    sys.exit(main())
