#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the benchmark's guest logs into a table, JSON and CSV, and the
stored runs into the report.

  bench-report.py [--dest DIR] OUT SMOKE ARCH...
      bench.sh, after each configuration: the table of the boots in OUT
      (printed), results.json and results.csv in DIR (default OUT).
      SMOKE=1 (make check's smoke run): the "BENCH smoke.ARCH.ours
      PASS|FAIL" verdicts only: a smoke boot passes when its console
      shows no kernel report (kernel-reports), reaches the guest's end
      marker, and has every per-hit row (measured, where the arch has
      it: SMOKE_MEASURED), the unprobed call, registration rows and
      every attach row, complete.
  bench-report.py report [--results DIR] [--report FILE] [--readme FILE] [--check]
      bench.sh, stress.sh and archcheck.sh at their end, and make
      report: regenerate results/REPORT.md from every run stored in
      results/bench/, results/stress/ and results/archcheck/, and
      README.md's per-hit block (between the bench-table markers) from
      the benchmark's, and the per-cause tables from results/bench-steps/
      (bench-steps.sh: the per-hit rows on the kernels of steps of the
      series); --check changes nothing and fails when either is stale.
  bench-report.py cover [--results DIR] [--part PART] [--fill FILE | --lint FILE]
      series.sh, when it writes the cover letter: the cover letter's
      figure blocks (per hit, the two clocks, batch unregistration,
      where it loses, teardown, the architectures booted and built),
      each from the stored runs it names; --fill prints FILE with each
      placeholder line (@@PERHIT@@ ...) replaced by its block; --lint
      fails on a figure in FILE outside its placeholders (the
      self-test runs it on series-msgs/cover.txt).  @@CAUSES@@: what each
      measured step of the series brings to a hit; @@STEP@@, in a part's
      message (series.py fills it with --part PART): what that part's
      kernel measured against the step before it.
"""
import glob
import json
import os
import re
import statistics
import subprocess
import sys

ROWS = [('none', 'unprobed call (baseline)'),
        ('k', 'kprobe with post_handler (trap, stepped)'),
        ('b', 'kprobe, no post_handler (trap: boosted or stepped)'),
        ('o', 'kprobe, jump-optimized'),
        ('f', 'kprobe on ftrace'),
        ('r', 'kretprobe, trap entry'),
        ('ro', 'kretprobe, jump-optimized entry'),
        ('rf', 'kretprobe, ftrace entry'),
        ('rs', 'kretprobe, 100 calls in flight (default maxactive)'),
        ('j', 'jprobe')]


# The attach and detach rows (guest/kp_attach.c, one BENCHRES row=attach
# line per via and size): per via, what it measured and its timings
# shown, as (row key prefix, what, field).
ATTACH = [('perf', 'perf_event_open, one by one',
           [('attach', 'attach', 'attach_ns'), ('detach', 'detach', 'detach_ns')]),
          ('perf4', 'perf_event_open, 4 processes',
           [('attach', 'attach', 'attach_ns'), ('detach', 'detach', 'detach_ns')]),
          ('bpf', 'bpftrace-style, BPF on each',
           [('attach', 'attach', 'attach_ns'), ('exit', 'exit until reaped', 'exit_ns'),
            ('run', 'whole run', 'total_ns')]),
          ('events', 'kprobe_events, one by one',
           [('attach', 'attach', 'attach_ns'), ('detach', 'detach', 'detach_ns')]),
          ('trunc', 'kprobe_events, one write each',
           [('create', 'create', 'create_ns'), ('enable', 'enable', 'enable_ns'),
            ('disable', 'disable', 'disable_ns')]),
          ('trunc', 'kprobe_events, one O_TRUNC open',
           [('clear', 'remove all', 'clear_ns')]),
          ('multi', 'kprobe_events, one write of "-:" lines',
           [('remove', 'remove all', 'remove_ns')])]
ATTACH_VIAS = sorted({v for v, _, _ in ATTACH})


def attach_ok(r):
    """An attach row that did all it was asked: every probe attached,
    no error, nothing left behind, every BPF program run counted."""
    return (r.get('ret') == '0' and r.get('done') == r.get('n') and
            r.get('left') in ('0', None) and
            (r.get('via') != 'bpf' or r.get('hits') == r.get('n')))


# The per-hit rows the smoke boot must have measured, per arch (every
# row of ROWS must be there; these with a count, each call hit, none
# missed): arm64 has no kprobes on ftrace (configs/arm64.config), so its
# f and rf rows are refused there (n/a).
SMOKE_MEASURED = {'x86_64': ['k', 'b', 'o', 'f', 'r', 'ro', 'rf', 'rs', 'j'],
                  'arm64': ['k', 'b', 'o', 'r', 'ro', 'rs', 'j']}
HERE = os.path.dirname(os.path.abspath(__file__))


def report_patterns(path=os.path.join(HERE, 'kernel-reports')):
    """The console patterns of kernel reports (kernel-reports: its
    unindented, non-comment lines), as one regular expression."""
    pats = [line.rstrip('\n') for line in open(path)]
    pats = [p for p in pats if p and p[0] not in '# \t']
    return re.compile('|'.join('(?:%s)' % p for p in pats))


def smoke_faults(path, res, arch):
    """What is wrong with the smoke boot of PATH (parsed: RES) on ARCH:
    (reasons, kernel report lines).  Its console must show no kernel
    report, reach the guest's end marker and have every per-hit row
    (those of SMOKE_MEASURED measured), the unprobed call and every
    attach row, complete."""
    why = []
    text = open(path, errors='replace').read().replace('\r', '')
    bad = report_patterns()
    reports = [l for l in text.splitlines() if bad.search(l)]
    if reports:
        why.append('a kernel report on the console: %s' % reports[0].strip())
    if not re.search(r'^KPGUEST done', text, re.M):
        why.append('the guest did not reach its end marker')
    if per_call(res.get('none')) is None:
        why.append('no unprobed call row')
    missing = [k for k, _ in ROWS[1:] if k not in res]
    if missing:
        why.append('per-hit rows missing: %s' % ' '.join(missing))
    unmeasured = []
    for k in SMOKE_MEASURED.get(arch, [k for k, _ in ROWS[1:]]):
        kv = res.get(k)
        if kv and (per_hit(res, k) is None or
                   kv.get('hits') != kv.get('calls', kv.get('iters')) or
                   kv.get('missed') != '0'):
            unmeasured.append('%s (%s)' % (k, why_na(res, k)))
    if unmeasured:
        why.append('per-hit rows not measured: %s' % ', '.join(unmeasured))
    att = [r for r in res['reg'] if r.get('row') == 'attach']
    if not [r for r in res['reg'] if r.get('row') == 'reg']:
        why.append('no registration row')
    if sorted({r.get('via') for r in att}) != ATTACH_VIAS:
        why.append('attach rows missing: %s' % ' '.join(
            sorted(set(ATTACH_VIAS) - {r.get('via') for r in att})))
    bad_att = [r.get('via', '?') for r in att if not attach_ok(r)]
    if bad_att:
        why.append('attach rows incomplete: %s' % ' '.join(bad_att))
    return why, reports[:5]


def parse(path):
    res = {}
    regs = []
    opts = []
    try:
        text = open(path, errors='replace').read()
    except OSError:
        return None
    for line in text.splitlines():
        line = line.strip('\r')
        i = line.find('BENCHRES ')
        if i < 0:
            continue
        kv = dict(re.findall(r'(\w+)=(\S*)', line[i:]))
        if kv.get('row') in ('reg', 'attach'):
            regs.append(kv)
        elif kv.get('row') == 'opt':
            opts.append(kv)
        elif 'row' in kv:
            res[kv['row']] = kv
    if not res:
        return None
    res['reg'] = regs
    res['opt'] = opts
    return res


def per_call(kv):
    if not kv or kv.get('na') or 'ns' not in kv or not kv.get('iters'):
        return None
    it = int(kv['iters'])
    return int(kv['ns']) / it if it else None


# The unprobed row of each target function (the row's "target" field).
BASELINE = {'nt': 'none-nt', 'sleep': 'none-sleep'}


def per_hit(res, key):
    """Cost of one hit of row KEY: the row's call less the unprobed call
    of the same function (none, none-nt for kpb_target_nt, none-sleep
    for the sleepers' kpb_sleeper)."""
    if not res:
        return None
    kv = res.get(key)
    if key == 'none':
        return per_call(kv)
    c = per_call(kv)
    if c is None:
        return None
    base = per_call(res.get(BASELINE.get(kv.get('target'), 'none')))
    return None if base is None else c - base


def per_hit_norm(res, key):
    """A hit of row KEY in units of the unprobed call of the same function
    in the same boot: what a wall-clock boot's row says once the speed of
    that boot (host load, TCG) is divided out.  None for the baseline
    rows themselves."""
    if not res or key == 'none' or key not in res:
        return None
    h = per_hit(res, key)
    base = per_call(res.get(BASELINE.get(res[key].get('target'), 'none')))
    return h / base if h is not None and base else None


# Rows whose two clocks are known to disagree, and why, by (arch, row):
# printed under the per-hit table when a run's instruction ratio and its
# normalized wall ratio fall on opposite sides of 1.
CLOCK_NOTES = {
    ('x86_64', 'f'):
        'ours masks interrupts in its ftrace callback (its handlers run with '
        'interrupts off, as on the int3 path) and unmasks them with `sti` on '
        'the way out.  QEMU\'s TCG ends a translation block at `sti` and runs '
        'the next instruction alone in a block of its own (the interrupt '
        'shadow), each left through the main loop instead of a chained jump: '
        '2 guest instructions, 50-110 ns of TCG wall time per hit.  The same '
        'hit called with interrupts already off (no `sti`) costs what '
        'upstream\'s does in wall time; no exception, translation-block '
        'invalidation or store into a code page per hit on either flavour.  '
        '`sti` is neither serializing nor a trap on hardware.  Evidence: '
        '[`clocks/2026-11-28-x86_64-f/`](clocks/2026-11-28-x86_64-f/NOTES.md).',
    ('x86_64', 'o'):
        'the benchmark module\'s layout, under TCG only.  Two addresses '
        'entered on every hit outside a chained jump, kp_bench\'s '
        'pre_handler (through the retpoline thunk) and the return address '
        'of its timed loop\'s call, share a slot of QEMU\'s per-vCPU jump '
        'cache (4,096 slots hashed from the guest pc) in the build of '
        'kp_bench against ours, so every hit looks both up in QEMU\'s '
        'global hash table of translation blocks instead: the same guest '
        'instructions, 30-40 ns more of TCG wall time.  With 30 bytes of '
        'padding in a kp_bench function the loop does not call, the slot '
        'is free and the same hit costs less wall time than upstream\'s '
        '(107.6 against 113.7 ns per call over 10,000,000 hits, 90 guest '
        'instructions either way).  No exception, translation-block '
        'invalidation or TLB flush per hit on either flavour; the jump '
        'cache has no counterpart on hardware.  Evidence: '
        '[`clocks/2026-11-28-x86_64-o/`](clocks/2026-11-28-x86_64-o/NOTES.md).',
}


def why_na(res, key):
    kv = (res or {}).get(key) or {}
    if kv.get('na') and kv.get('missed', '0') != '0' and kv.get('calls') and kv.get('inflight'):
        # the row with calls in flight: its misses, per round when even
        missed, calls, fl = int(kv['missed']), int(kv['calls']), int(kv['inflight'])
        rounds = calls // fl if fl else 0
        if rounds and calls == rounds * fl and missed % rounds == 0:
            return 'n/a (%d of %d missed)' % (missed // rounds, fl)
        return 'n/a (%d of %d missed)' % (missed, calls)
    if kv.get('na'):
        return 'n/a (%s)' % kv.get('why', '?')
    return 'n/a'


def meta_lines(out, arches, flavours):
    lines = []
    seen = set()
    for arch in arches:
        for fl in flavours:
            for m in sorted(glob.glob(os.path.join(out, '%s-%s-*.meta' % (fl, arch)))):
                for line in open(m):
                    line = line.rstrip('\n')
                    if line.startswith(('log:', 'date:')):
                        continue
                    if line.startswith('host load:'):
                        line = '%s: %s' % (os.path.basename(m)[:-5], line)
                    elif line in seen:
                        continue
                    seen.add(line)
                    lines.append('# ' + line)
    return lines


def cell(r, key):
    """A registration cell: a number, 'skipped' or None."""
    if not r:
        return None
    if r.get('skipped'):
        return 'skipped'
    if r.get('na') or r.get('ret') not in ('0', None) or key not in r:
        return None
    if key == 'opt_ns' and r.get('jumps') != r.get('n'):
        return 'incomplete'
    return int(r[key])


def add_row(lines, table, arch, key, title, cells, fmt):
    def show(v):
        if isinstance(v, str):
            return v
        return 'n/a' if v is None else fmt % v
    o, u = cells.get('ours'), cells.get('upstream')
    ratio = o / u if isinstance(o, (int, float)) and isinstance(u, (int, float)) and u else None
    lines.append('%-58s %16s %16s %7s' % (title, show(o), show(u),
                                           '%.2f' % ratio if ratio else '-'))
    table.append({'arch': arch, 'row': key, 'what': title,
                  'ours': o, 'upstream': u, 'ratio': ratio})


def collect(out, arches, smoke):
    """Parse the boots of OUT; returns (data, ok) and prints the smoke
    and parse verdicts (BENCH lines)."""
    flavours = ['ours'] if smoke else ['ours', 'upstream']
    data = {}
    ok = True
    for arch in arches:
        for fl in flavours:
            ic = parse(os.path.join(out, '%s-%s-icount.log' % (fl, arch)))
            multi = parse(os.path.join(out, '%s-%s-multi.log' % (fl, arch))) or ic
            walls = [parse(p) for p in sorted(glob.glob(
                os.path.join(out, '%s-%s-wall*.log' % (fl, arch))))]
            walls = [w for w in walls if w]
            if ic is None:
                ok = False
                log = os.path.join(out, '%s-%s-icount.log' % (fl, arch))
                print('BENCH %s.%s.parse FAIL (%s)' % (
                    arch, fl, 'no BENCHRES line in %s' % log if os.path.exists(log)
                    else 'no console log %s: QEMU never started' % log))
                continue
            if smoke:
                why, reports = smoke_faults(os.path.join(out, '%s-%s-icount.log' % (fl, arch)),
                                            ic, arch)
                for r in reports:
                    print('BENCH-KERNEL-REPORT %s' % r.strip())
                if why:
                    print('BENCH smoke.%s.%s FAIL (%s)' % (arch, fl, '; '.join(why)))
                else:
                    print('BENCH smoke.%s.%s PASS' % (arch, fl))
                ok = ok and not why
            data[(arch, fl)] = (ic, walls, multi)
    return data, ok


def tables(out, arches, data):
    """The text table (lines) and its rows (dicts) of the boots in DATA."""
    flavours = ['ours', 'upstream']
    table = []
    lines = meta_lines(out, arches, flavours)
    for arch in arches:
        lines.append('')
        lines.append('%s: guest instructions per hit (-icount, -smp 1; the unprobed call subtracted), '
                     'ns per hit (TCG wall clock, median [min-max]) and the same in unprobed calls of '
                     'its boot (xcall, median)' % arch)
        lines.append('%-52s %12s %12s %7s  %22s %22s %7s  %9s %9s %7s' % (
            'row', 'ours insns', 'upstr insns', 'ratio', 'ours ns', 'upstream ns', 'ratio',
            'ours xcall', 'upstr xcall', 'ratio'))
        for key, title in ROWS:
            cells = {}
            for fl in ('ours', 'upstream'):
                ic, walls, _ = data.get((arch, fl), (None, [], None))
                insns = per_hit(ic, key)
                ws = [per_hit(w, key) for w in walls]
                ws = [w for w in ws if w is not None]
                ns = [per_hit_norm(w, key) for w in walls]
                ns = [n for n in ns if n is not None]
                kv = (ic or {}).get(key, {})
                cells[fl] = (insns, ws, kv.get('flags', ''), kv.get('state', ''),
                             why_na(ic, key), ns)
            oi, ui = cells['ours'][0], cells['upstream'][0]
            ratio = (oi / ui) if oi is not None and ui else None

            def fmt_ns(ws):
                if not ws:
                    return 'n/a'
                return '%.0f [%.0f-%.0f]' % (statistics.median(ws), min(ws), max(ws))
            ow, uw = cells['ours'][1], cells['upstream'][1]
            ns_ratio = statistics.median(ow) / statistics.median(uw) if ow and uw and statistics.median(uw) else None
            on, un = cells['ours'][5], cells['upstream'][5]
            norm_ratio = statistics.median(on) / statistics.median(un) \
                if on and un and statistics.median(un) > 0 else None
            lines.append('%-52s %12s %12s %7s  %22s %22s %7s  %9s %9s %7s' % (
                key + ' ' + title,
                '%.0f' % oi if oi is not None else cells['ours'][4],
                '%.0f' % ui if ui is not None else cells['upstream'][4],
                '%.2f' % ratio if ratio else '-',
                fmt_ns(ow), fmt_ns(uw), '%.2f' % ns_ratio if ns_ratio else '-',
                '%.1f' % statistics.median(on) if on else '-',
                '%.1f' % statistics.median(un) if un else '-',
                '%.2f' % norm_ratio if norm_ratio else '-'))
            table.append({'arch': arch, 'row': key, 'what': title,
                          'ours_insns': oi, 'upstream_insns': ui, 'ratio': ratio,
                          'ns_ratio': ns_ratio,
                          'ours_norm': on, 'upstream_norm': un, 'norm_ratio': norm_ratio,
                          'ours_ns': cells['ours'][1], 'upstream_ns': cells['upstream'][1],
                          'ours_state': cells['ours'][3], 'upstream_state': cells['upstream'][3],
                          'ours_flags': cells['ours'][2], 'upstream_flags': cells['upstream'][2]})
        # kretprobe throughput, registration and optimization
        ics = {fl: data.get((arch, fl), (None, [], None))[2] or {} for fl in ('ours', 'upstream')}
        lines.append('')
        lines.append('%s: kretprobe throughput (insns per call, -smp 2), registration and optimization (guest ns under -icount)' % arch)
        lines.append('%-58s %16s %16s %7s' % ('row', 'ours', 'upstream', 'ratio'))

        def mt_cost(ic):
            mt, base = ic.get('mt'), ic.get('mt-none')
            if not mt or 'ns' not in mt or mt.get('na') or not base or 'ns' not in base:
                return None
            if mt.get('hits') != str(int(mt['iters']) * int(mt['cpus'])):
                return None
            return (int(mt['ns']) - int(base['ns'])) / int(mt['iters'])
        add_row(lines, table, arch, 'mt', 'kretprobe, every CPU at once',
                {fl: mt_cost(ics[fl]) for fl in ics}, '%.0f')
        sizes = []
        for fl in ics:
            for r in ics[fl].get('reg', []) + ics[fl].get('opt', []):
                if r.get('n') and int(r['n']) not in sizes:
                    sizes.append(int(r['n']))
        for n in sorted(sizes):
            for mode in ('one', 'batch'):
                for what, key in (('register', 'reg_ns'), ('unregister', 'unreg_ns')):
                    cells = {}
                    for fl in ics:
                        r = [x for x in ics[fl].get('reg', [])
                             if x.get('row') == 'reg' and x.get('n') == str(n) and
                             x.get('mode') == mode]
                        cells[fl] = cell(r[0] if r else None, key)
                    add_row(lines, table, arch, 'reg-%s-%s-%d' % (what, mode, n),
                            '%s %d (%s)' % (what, n, 'one at a time' if mode == 'one' else 'batch'),
                            cells, '%.3g')
            for via, how, fields in ATTACH:
                for kname, what, key in fields:
                    cells = {}
                    for fl in ics:
                        r = [x for x in ics[fl].get('reg', [])
                             if x.get('row') == 'attach' and x.get('via') == via and
                             x.get('n') == str(n)]
                        r = r[0] if r else None
                        if r and not attach_ok(dict(r, ret='0')):
                            r = dict(r, ret='incomplete')
                        cells[fl] = cell(r, key)
                    if any(v is not None for v in cells.values()):
                        add_row(lines, table, arch, '%s-%s-%d' % (kname, via, n),
                                '%s %d (%s)' % (what, n, how), cells, '%.3g')
            cells = {}
            for fl in ics:
                r = [x for x in ics[fl].get('opt', []) if x.get('n') == str(n)]
                cells[fl] = cell(r[0] if r else None, 'opt_ns')
            add_row(lines, table, arch, 'opt-%d' % n,
                    'register %d, until all optimized' % n, cells, '%.3g')
    return lines, table


def table_main(argv):
    """bench-report.py [--dest DIR] OUT SMOKE ARCH...: the table of one
    run's boots (in OUT), printed; results.json and results.csv in DIR
    (default OUT).  SMOKE=1: the smoke verdicts only."""
    dest = None
    if argv[:1] == ['--dest']:
        dest, argv = argv[1], argv[2:]
    out, smoke, arches = argv[0], argv[1] == '1', argv[2:]
    dest = dest or out
    data, ok = collect(out, arches, smoke)
    if smoke:
        return 0 if ok else 1
    lines, table = tables(out, arches, data)
    print('\n'.join(lines))
    os.makedirs(dest, exist_ok=True)
    json.dump(table, open(os.path.join(dest, 'results.json'), 'w'), indent=1)
    with open(os.path.join(dest, 'results.csv'), 'w') as f:
        f.write('arch,row,ours,upstream,ratio,wall_ratio_normalized\n')
        for t in table:
            o = t.get('ours_insns', t.get('ours'))
            u = t.get('upstream_insns', t.get('upstream'))
            f.write('%s,%s,%s,%s,%s,%s\n' % (t['arch'], t['row'], o, u, t['ratio'],
                                            t.get('norm_ratio')))
    print('\nwrote %s/results.json and results.csv' % dest)
    return 0 if ok else 1


# ---------------------------------------------------------------------
# The report of every stored run: bench-report.py report.
#
# make bench keeps each run's raw results in RESULTS/bench/RUN/ (RUN is
# the UTC start and the arches, e.g. 2026-11-26T1630Z-x86_64-arm64):
# run.meta (date, git HEAD, knobs, host) and, per configuration, CONFIG/
# with every boot's console log (FLAVOUR-ARCH-icount.log: per hit,
# -smp 1; -multi.log: kretprobe throughput and registration, -smp 2;
# -wallN.log: wall clock) and what it ran on (the .meta beside it: base,
# config, QEMU, host load).  The report is made from those files only,
# and always the same from the same files: the current run of each arch
# (the newest stored run that has it), then the history of the others.

BEGIN = '<!-- bench-table begin: generated by tools/testing/kprobes/bench-report.py report from the stored raw results; do not edit -->'
END = '<!-- bench-table end -->'
PER_HIT = [k for k, _ in ROWS if k != 'none']


def read_meta(path):
    """The "key: value" lines of a meta file, in order."""
    kv = []
    try:
        for line in open(path, errors='replace'):
            line = line.rstrip('\n')
            if ': ' in line:
                k, v = line.split(': ', 1)
                kv.append((k, v.strip()))
    except OSError:
        pass
    return kv


def run_arches(rundir):
    """{config: [arch...]} of a stored run: the arches with an icount log."""
    found = {}
    for cfg in sorted(os.listdir(rundir)):
        d = os.path.join(rundir, cfg)
        if not os.path.isdir(d):
            continue
        arches = sorted({os.path.basename(p)[:-len('-icount.log')].split('-', 1)[1]
                         for p in glob.glob(os.path.join(d, '*-*-icount.log'))})
        if arches:
            found[cfg] = arches
    return found


def stored_runs(results):
    """[(name, path, {config: (arches, rows, data)})] oldest first."""
    runs = []
    top = os.path.join(results, 'bench')
    if not os.path.isdir(top):
        return runs
    for name in sorted(os.listdir(top)):
        path = os.path.join(top, name)
        if not os.path.isdir(path):
            continue
        cfgs = {}
        for cfg, arches in run_arches(path).items():
            d = os.path.join(path, cfg)
            with open(os.devnull, 'w') as null:
                old, sys.stdout = sys.stdout, null
                try:
                    data, _ = collect(d, arches, False)
                    _, rows = tables(d, arches, data)
                finally:
                    sys.stdout = old
            cfgs[cfg] = (arches, rows, data)
        runs.append((name, path, cfgs))
    return runs


def md_num(v, fmt='%.0f'):
    if v is None:
        return 'n/a'
    if isinstance(v, str):
        return v
    return fmt % v


def md_time(v):
    """Guest nanoseconds as ms or s."""
    if not isinstance(v, (int, float)):
        return md_num(v)
    if v >= 1e9:
        return '%.3g s' % (v / 1e9)
    return '%.3g ms' % (v / 1e6)


def md_ratio(r):
    return '%.2f' % r if r else '-'


def md_norm(ns):
    return '%.1f' % statistics.median(ns) if ns else '-'


def per_hit_md(rows, arch, why):
    """Guest instructions per hit, and beside them the TCG wall time of a
    hit in unprobed calls of its own boot (median of the wall boots):
    the second clock, with the boot's speed divided out."""
    out = ['| row | what | ours | upstream | ours/upstream | ours wall, calls | '
           'upstream wall, calls | wall ours/upstream |',
           '|-----|------|-----:|---------:|------:|-----:|-----:|------:|']
    for t in rows:
        if t['arch'] != arch or t['row'] not in PER_HIT:
            continue
        o = md_num(t['ours_insns']) if t['ours_insns'] is not None else why(arch, 'ours', t['row'])
        u = md_num(t['upstream_insns']) if t['upstream_insns'] is not None else why(arch, 'upstream', t['row'])
        out.append('| %s | %s | %s | %s | %s | %s | %s | %s |' % (
            t['row'], t['what'], o, u, md_ratio(t['ratio']), md_norm(t.get('ours_norm')),
            md_norm(t.get('upstream_norm')), md_ratio(t.get('norm_ratio'))))
    return out


def clocks_md(rows, arch):
    """The rows whose two clocks disagree (instruction ratio and
    normalized wall ratio on opposite sides of 1), each with its known
    cause or said to have none."""
    out = []
    for t in rows:
        if t['arch'] != arch or t['row'] not in PER_HIT:
            continue
        r, w = t['ratio'], t.get('norm_ratio')
        if not r or not w or (r < 1) == (w < 1):
            continue
        why = CLOCK_NOTES.get((arch, t['row']), 'not explained yet.')
        out.append('- %s: %.2f in instructions, %.2f in wall time: %s' % (t['row'], r, w, why))
    return out


def wall_md(rows, arch):
    out = ['| row | ours ns | upstream ns | ours/upstream |',
           '|-----|--------:|------------:|------:|']
    any_ns = False

    def f(ws):
        if not ws:
            return 'n/a'
        return '%.0f [%.0f-%.0f]' % (statistics.median(ws), min(ws), max(ws))
    for t in rows:
        if t['arch'] != arch or t['row'] not in PER_HIT:
            continue
        any_ns = any_ns or bool(t['ours_ns'] or t['upstream_ns'])
        out.append('| %s | %s | %s | %s |' % (t['row'], f(t['ours_ns']), f(t['upstream_ns']),
                                             md_ratio(t['ns_ratio'])))
    return out if any_ns else []


def reg_md(rows, arch):
    out = ['| row | ours | upstream | ours/upstream |',
           '|-----|-----:|---------:|------:|']
    for t in rows:
        if t['arch'] != arch or 'ours' not in t:
            continue
        fmt = md_num if t['row'] == 'mt' else md_time
        out.append('| %s | %s | %s | %s |' % (t['what'], fmt(t['ours']), fmt(t['upstream']),
                                             md_ratio(t['ratio'])))
    return out


def why_fn(data):
    def why(arch, fl, key):
        ic = data.get((arch, fl), (None, [], None))[0]
        if ic is None:
            return 'no result'
        return why_na(ic, key)
    return why


def boots_md(d, arch):
    """What the boots of ARCH in config dir D ran on, from their .meta."""
    out = []
    common = {}
    boots = []
    for m in sorted(glob.glob(os.path.join(d, '*-%s-*.meta' % arch))):
        kv = dict(read_meta(m))
        fl = m.split(os.sep)[-1].split('-')[0]
        for k in ('base', 'config options'):
            if k in kv:
                common.setdefault((k, kv[k]), []).append(fl)
        if 'flavour' in kv:
            common.setdefault(('config', kv['flavour'].split(' config: ', 1)[-1]), []).append(fl)
        q = kv.get('qemu', '')
        boots.append('| %s | %s | %s | %s |' % (
            os.path.basename(m)[:-5] + '.log', kv.get('date', '?'), q or '?',
            kv.get('host load', '?')))
    for (k, v), fls in common.items():
        out.append('- %s (%s): %s' % (k, ', '.join(sorted(set(fls))), v))
    if boots:
        out += ['', '| raw log | date | QEMU | host load |', '|---|---|---|---|'] + boots
    return out


def run_complete(path, cfg, arch):
    """Whether the stored run at PATH measured all of ARCH in config CFG:
    both flavours' per-hit and multi-CPU boots (a run narrowed by
    KP_BENCH_PARTS is not)."""
    d = os.path.join(path, cfg)
    return all(os.path.exists(os.path.join(d, '%s-%s-%s.log' % (fl, arch, part)))
               for fl in ('ours', 'upstream') for part in ('icount', 'multi'))


def newest_per_arch(runs):
    """{arch: run name}: the newest stored run that measured all of the
    arch (run_complete()), else the newest with any result for it; the
    others are the history."""
    cur, partial = {}, {}
    for name, path, cfgs in runs:
        for cfg, (arches, _, _) in cfgs.items():
            for a in arches:
                partial[a] = name
                if run_complete(path, cfg, a):
                    cur[a] = name
    return dict(partial, **cur)


def rel(path, base):
    return os.path.relpath(path, base)


def report_md(results, runs, repo, report):
    cur = newest_per_arch(runs)
    L = ['# Stored results', '',
         'Generated by `tools/testing/kprobes/bench-report.py report` from the raw result '
         'files under `%s/` (which `make bench`, `make stress` and `make archcheck` write); do not edit by hand: '
         '`make report` regenerates this file and the per-hit table of README.md.  '
         'Sections: the benchmark, stress, other architectures.'
         % rel(results, repo), '', '## Benchmark (`make bench`)', '',
         'Per hit: guest instructions per hit under QEMU `-icount shift=0`, `-smp 1`, '
         'the unprobed call of the same function subtracted; a row counts only when the '
         'text at the probe was in the state it names and the handlers saw every call '
         'with none missed (`guest/bench.sh`).  Registration: guest time under `-icount`, '
         '`-smp 2`; "kretprobe, every CPU at once" in instructions per call.  Lower is better; '
         'ours/upstream under 1 means ours is cheaper.', '']
    if not runs:
        L += ['No benchmark result is stored yet: `make bench` measures and stores one.', '']
    for arch in sorted(cur):
        name = cur[arch]
        _, path, cfgs = [r for r in runs if r[0] == name][0]
        L += ['### Current: %s, run %s' % (arch, name), '']
        meta = read_meta(os.path.join(path, 'run.meta'))
        L.append('Raw results: [`%s/`](%s/) (every figure below comes from the files there).'
                 % (rel(path, repo), rel(path, os.path.dirname(report))))
        for k, v in meta:
            L.append('- %s: %s' % (k, v))
        L.append('')
        for cfg in sorted(cfgs):
            arches, rows, data = cfgs[cfg]
            if arch not in arches:
                continue
            d = os.path.join(path, cfg)
            L += ['#### %s config' % cfg, '']
            L += boots_md(d, arch) + ['']
            L += ['Per hit, guest instructions; beside them the TCG wall time of a hit in '
                  'unprobed calls of its boot ("wall, calls": the hit less the unprobed call, '
                  'divided by the unprobed call, median of the wall boots):', '']
            L += per_hit_md(rows, arch, why_fn(data)) + ['']
            c = clocks_md(rows, arch)
            if c:
                L += ['Where the two clocks disagree:', ''] + c + ['']
            w = wall_md(rows, arch)
            if w:
                L += ['Per hit, TCG wall clock (noisy; median [min-max] of the wall boots):', ''] + w + ['']
            r = reg_md(rows, arch)
            if len(r) > 2:
                L += ['Registration, attach and detach, kretprobe throughput:', ''] + r + ['']
    hist = [(n, p, c) for n, p, c in reversed(runs) if n not in cur.values() or
            any(cur.get(a) != n for cfg in c.values() for a in cfg[0])]
    L += ['### History', '']
    if not hist:
        L += ['No earlier run is stored.', '']
    else:
        L += ['Earlier runs, newest first: per-hit ratio ours/upstream (guest instructions), '
              'per arch and config.  Each run\'s raw files are in its directory.', '',
              '| run | git | arch | config | ' + ' | '.join(PER_HIT) + ' |',
              '|---|---|---|---|' + '---:|' * len(PER_HIT)]
        for name, path, cfgs in hist:
            meta = dict(read_meta(os.path.join(path, 'run.meta')))
            git = meta.get('git', '?').split()[0][:12]
            if not cfgs:
                L.append('| [%s](%s/) | %s | - | - | %s |' % (name, rel(path, os.path.dirname(report)), git, ' | '.join(['no result'] * len(PER_HIT))))
            for cfg in sorted(cfgs):
                arches, rows, _ = cfgs[cfg]
                for a in arches:
                    if cur.get(a) == name:
                        continue
                    cells = []
                    for k in PER_HIT:
                        t = [x for x in rows if x['arch'] == a and x['row'] == k]
                        cells.append(md_ratio(t[0]['ratio']) if t else '-')
                    L.append('| [%s](%s/) | %s | %s | %s | %s |' % (
                        name, rel(path, os.path.dirname(report)), git, a, cfg, ' | '.join(cells)))
        L.append('')
    return L


# ---------------------------------------------------------------------
# The per-cause tables: bench-steps.sh's runs.
#
# bench-steps.sh keeps each run in RESULTS/bench-steps/RUN/ (RUN: the
# UTC start and the arches): run.meta, and per config and step
# CONFIG/NN-PART/ with step.meta (the step's number, part, subject,
# commit, build verdict, kprobes options) and the console logs of the
# step's kernel (ours-ARCH-icount.log: guest instructions;
# ours-ARCH-wallN.log: TCG wall time), the same per-hit boots as make
# bench's.  The report and the cover letter take, per arch, the newest
# run that has steps of it; the steps of a config are compared in their
# order, each with the one measured before it.

# The per-hit rows of a step table (the order of ROWS).
STEP_ROWS = ['k', 'b', 'r', 'o', 'ro', 'f', 'rf', 'rs']
# What each part's kernel brings to a hit, and the rows it is about:
# the per-cause lines of the cover letter and the per-part messages.
STEP_CAUSES = {
    'x86-int3': ("6.12's x86 code, driven through the compat layer", []),
    'x86': ('int3 probes of the rebuilt core, every instruction stepped, '
            'kretprobes on rethook', ['k', 'b', 'r']),
    'x86-boost': ('boosting, in a kernel without preemption', ['k', 'b', 'r']),
    'x86-boost-preempt': ('boosting in a preemptible kernel too', ['b', 'r']),
    'x86-post': ('post_handlers run from a copy', ['k']),
    'docs-x86': ('documentation only: the kernel before the kretprobe trampoline, '
                 'kretprobes on rethook', []),
    'x86-kret': ('the kretprobe trampoline instead of rethook', ['r', 'rf', 'rs']),
    'x86-opt': ('jump optimization', ['o', 'ro']),
    'x86-ftrace': ('kprobes on ftrace', ['f', 'rf']),
    'arm64-decode': ("6.12's arm64 code, driven through the compat layer", []),
    'arm64': ('BRK probes and the kretprobe trampoline of the rebuilt core, every '
              'instruction stepped', ['k', 'b', 'r', 'rs']),
    'arm64-boost': ('boosting', ['b', 'r']),
    'arm64-post': ('post_handlers run from a copy', ['k']),
    'arm64-opt': ('jump optimization', ['o', 'ro']),
}
# The rows said in prose (per-part messages).
STEP_ROW_WORDS = {
    'k': 'a kprobe with a post_handler', 'b': 'a kprobe without post_handler',
    'r': 'a kretprobe (entry by trap)', 'o': 'a jump-optimized kprobe',
    'ro': 'a kretprobe (jump-optimized entry)', 'f': 'a kprobe on ftrace',
    'rf': 'a kretprobe (entry on ftrace)',
    'rs': 'a kretprobe with 100 calls in flight (per call)'}
# A step changes a row when it moves it by at least this many guest
# instructions per hit (an -icount count of a 20,000-call row moves by
# a fraction of an instruction from one kernel to the next: timer
# interrupts at other points).
STEP_SAME = 2
# Rows whose count moves from kernel to kernel with no change of the path
# they measure: rs (per call of a function 100 kthreads sleep in, its
# scheduling and wakeups counted with it).  The step lines name them
# only for a step that is about them.
STEP_NOISY = ['rs']


def step_meta(path):
    """step.meta of a step directory as a dict (its first line split)."""
    kv = dict(read_meta(os.path.join(path, 'step.meta')))
    m = re.match(r'^(\d+) part: (\S+) arch: (\S+) config: (\S+)', kv.get('step', ''))
    if m:
        kv.update(nn=int(m.group(1)), part=m.group(2), arch=m.group(3), config=m.group(4))
    return kv


def step_cells(d, arch):
    """{row: {'insns', 'norm', 'walls', 'why'}} of a step's boots."""
    ic = parse(os.path.join(d, 'ours-%s-icount.log' % arch))
    walls = [w for w in (parse(p) for p in sorted(glob.glob(
        os.path.join(d, 'ours-%s-wall*.log' % arch)))) if w]
    cells = {}
    for key in ['none'] + STEP_ROWS:
        insns = per_hit(ic, key) if ic and key in ic and not ic[key].get('na') else None
        ns = [n for n in (per_hit_norm(w, key) for w in walls) if n is not None]
        cells[key] = {'insns': insns, 'norm': statistics.median(ns) if ns else None,
                      'walls': len(walls) if key == 'none' else len(ns),
                      'why': None if insns is not None else
                      (why_na(ic, key) if ic else 'no result')}
    return cells


def steps_runs(results):
    """[(name, path, {arch: {config: [step]}})] of RESULTS/bench-steps/,
    oldest first; a step is step_meta() with its dir and cells."""
    runs = []
    for name, path in stored_dirs(results, 'bench-steps'):
        arches = {}
        for cfg in sorted(os.listdir(path)):
            cd = os.path.join(path, cfg)
            if not os.path.isdir(cd):
                continue
            for sd in sorted(os.listdir(cd)):
                d = os.path.join(cd, sd)
                st = step_meta(d)
                if not os.path.isdir(d) or 'arch' not in st:
                    continue
                st['dir'] = d
                st['cells'] = step_cells(d, st['arch'])
                arches.setdefault(st['arch'], {}).setdefault(cfg, []).append(st)
        for a in arches:
            for cfg in arches[a]:
                arches[a][cfg].sort(key=lambda s: s['nn'])
        runs.append((name, path, arches))
    return runs


def steps_current(runs):
    """{arch: (name, path, {config: [step]})}: the newest run per arch."""
    cur = {}
    for name, path, arches in runs:
        for a, cfgs in arches.items():
            cur[a] = (name, path, cfgs)
    return cur


def step_label(st):
    return '%02d %s' % (st['nn'], st['part'])


def step_value(c):
    """A cell of the per-step table: instructions (wall, calls)."""
    if c['insns'] is None:
        return c['why'] or 'n/a'
    return '%.0f (%s)' % (c['insns'], '%.1f' % c['norm'] if c['norm'] is not None else '-')


def step_delta(a, b):
    """(delta insns, delta wall calls) of cell B against cell A, or None."""
    if a['insns'] is None or b['insns'] is None:
        return None
    dn = b['norm'] - a['norm'] if a['norm'] is not None and b['norm'] is not None else None
    return (b['insns'] - a['insns'], dn)


def step_delta_str(d):
    if d is None:
        return '-'
    return '%+.0f (%s)' % (d[0], '%+.1f' % d[1] if d[1] is not None else '-')


def step_pairs(steps):
    """(previous, step) of each measured step after the first of a config;
    each step gets the measured ones before it, nearest first
    ('earlier'), for step_base()."""
    ok = [s for s in steps if s.get('build', '').startswith('PASS') and
          s['cells']['none']['insns'] is not None]
    for i, st in enumerate(ok):
        st['earlier'] = list(reversed(ok[:i]))
    return list(zip(ok, ok[1:]))


def step_base(a, b, key):
    """The step row KEY of step B is compared with: the one before it (A),
    or where A has no such probe (a kretprobe before the step that brings
    the trampoline) the nearest earlier step that has."""
    if a['cells'][key]['insns'] is not None:
        return a
    for st in b.get('earlier', []):
        if st['cells'][key]['insns'] is not None:
            return st
    return a


def step_row_said(key, a, b):
    """One row of a step against the one before, said shortly."""
    base = step_base(a, b, key)
    at = '' if base is a else ' at %s' % step_label(base)
    ca, cb = base['cells'][key], b['cells'][key]
    d = step_delta(ca, cb)
    if d is None:
        return None
    if abs(d[0]) < STEP_SAME:
        return '%s %.0f, unchanged (%+.0f%s)' % (key, cb['insns'], d[0], at)
    pct = 100.0 * d[0] / ca['insns'] if ca['insns'] else 0
    wall = ''
    if ca['norm'] is not None and cb['norm'] is not None:
        wall = '; wall %.1f -> %.1f calls' % (ca['norm'], cb['norm'])
    return '%s %.0f%s -> %.0f (%+.0f, %+.0f%%%s)' % (key, ca['insns'], at, cb['insns'], d[0],
                                                    pct, wall)


def steps_md(results, report, repo):
    runs = steps_runs(results)
    cur = steps_current(runs)
    L = ['## Per cause (`make bench-steps`)', '',
         'The per-hit rows of `make bench` (ours only, the same module and guest side) on the '
         'kernels of chosen steps of the exported series, which moves each architecture from '
         'the compat layer to its own code one behaviour at a time: the difference between a '
         'step and the one measured before it in the same config is what that step brings to a '
         'hit.  Each cell: guest instructions per hit under `-icount shift=0`, `-smp 1`, the '
         'unprobed call subtracted, and in parentheses the TCG wall time of a hit in unprobed '
         'calls of its own boot (median of the wall boots).  "Change": the step against the one '
         'before it; a row that moves by less than %d instructions is unchanged.' % STEP_SAME, '']
    if not cur:
        return L + ['No bench-steps run is stored yet: `make bench-steps` measures and stores one.', '']
    for arch in sorted(cur):
        name, path, cfgs = cur[arch]
        L += ['### %s, run %s' % (arch, name), '',
              'Raw results: [`%s/`](%s/).' % (rel(path, repo), rel(path, os.path.dirname(report)))]
        for k, v in read_meta(os.path.join(path, 'run.meta')):
            L.append('- %s: %s' % (k, v))
        L.append('')
        for cfg in sorted(cfgs):
            steps = cfgs[cfg]
            L += ['#### %s config' % cfg, '',
                  '| step | subject | commit | build | kprobes options |',
                  '|---|---|---|---|---|']
            for st in steps:
                L.append('| %s | %s | %s | %s | %s |' % (
                    step_label(st), st.get('subject', '?'), st.get('commit', '?')[:12],
                    st.get('build', '?'), st.get('kprobes options', '?')))
            metas = [dict(read_meta(m)) for st in steps
                     for m in sorted(glob.glob(os.path.join(st['dir'], '*.meta')))
                     if not m.endswith('step.meta')]
            q = sorted({m.get('qemu', '').split(' -smp')[0] for m in metas if m.get('qemu')})
            L += ['', '- QEMU: %s; host load over the boots: %s' % (', '.join(q) or '?',
                                                                    cover_loads(metas)), '']
            L += ['| row | what | ' + ' | '.join(step_label(s) for s in steps) + ' |',
                  '|---|---|' + '---:|' * len(steps)]
            titles = dict(ROWS)
            unmeasured = [k for k in STEP_ROWS
                          if all(st['cells'][k]['insns'] is None for st in steps)]
            for key in ['none'] + STEP_ROWS:
                if key in unmeasured:
                    continue
                if key == 'none':
                    vals = ['%.0f' % s['cells']['none']['insns']
                            if s['cells']['none']['insns'] is not None else 'no result'
                            for s in steps]
                else:
                    vals = [step_value(s['cells'][key]) for s in steps]
                L.append('| %s | %s | %s |' % (key, titles[key], ' | '.join(vals)))
            if unmeasured:
                said = [s for s in steps if s['cells']['none']['insns'] is not None] or steps
                L += ['', 'Not measured at any of these steps: %s.' % ', '.join(
                    '%s (%s)' % (k, said[-1]['cells'][k]['why']) for k in unmeasured)]
            pairs = step_pairs(steps)
            if pairs:
                L += ['', 'Change, each step against the one before it (or, for a row '
                      'that one has not, the nearest earlier step that has it: "vs NN"):', '',
                      '| row | ' + ' | '.join('%s vs %02d' % (step_label(b), a['nn'])
                                              for a, b in pairs) + ' |',
                      '|---|' + '---:|' * len(pairs)]
                for key in STEP_ROWS:
                    cells = []
                    for a, b in pairs:
                        base = step_base(a, b, key)
                        d = step_delta(base['cells'][key], b['cells'][key])
                        cells.append(step_delta_str(d) + (' vs %02d' % base['nn']
                                                          if d and base is not a else ''))
                    if all(c == '-' for c in cells):
                        continue
                    L.append('| %s | %s |' % (key, ' | '.join(cells)))
                L += ['', 'What each step brings (the rows it is about, changed or not, '
                      'and any other row that changed; %s only where the step is about it: '
                      'its count includes the scheduling of the sleeping kthreads and moves by '
                      'tens to over a hundred instructions from kernel to kernel):' % ', '.join(STEP_NOISY), '']
                for a, b in pairs:
                    cause, about = STEP_CAUSES.get(b['part'], ('', []))
                    said = []
                    for key in STEP_ROWS:
                        s = step_row_said(key, a, b)
                        if s and (key in about or (key not in STEP_NOISY and not
                                                   s.split(' ', 2)[2].startswith('unchanged'))):
                            said.append(s)
                    L.append('- %s%s, against %s: %s.' % (
                        step_label(b), ' (%s)' % cause if cause else '', step_label(a),
                        '; '.join(said) if said else 'no row changed'))
            L.append('')
    older = [(n, p) for n, p, a in runs if n not in [c[0] for c in cur.values()]]
    if older:
        L += ['Earlier bench-steps runs (raw files in their directories): ' + ', '.join(
            '[%s](%s/)' % (n, rel(p, os.path.dirname(report))) for n, p in reversed(older)) + '.', '']
    return L


def stored_dirs(results, kind):
    """[(name, path)] of RESULTS/KIND/, oldest first."""
    top = os.path.join(results, kind)
    if not os.path.isdir(top):
        return []
    return [(n, os.path.join(top, n)) for n in sorted(os.listdir(top))
            if os.path.isdir(os.path.join(top, n))]


def stress_summary(path):
    """{(arch, flavour): {...}} from a stored stress run's stress.results."""
    out = {}
    try:
        lines = open(os.path.join(path, 'stress.results'), errors='replace').read().splitlines()
    except OSError:
        return out
    for line in lines:
        w = line.split()
        if len(w) >= 3 and w[0] == 'KPSTRESS' and '.' in w[1]:
            arch, fl = w[1].split('.', 1)
            d = out.setdefault((arch, fl), {'pass': 0, 'fail': [], 'errno': []})
            if w[2] == 'candidates' and len(w) >= 4:
                d['candidates'] = w[3]
                if len(w) >= 6 and w[4] == 'stride':
                    d['stride'] = w[5]
            elif w[2] in ('after', 'armed') and len(w) >= 9 and w[3] == 'accepted':
                d[w[2]] = {'accepted': w[4], 'hits': w[6], 'missed': w[8]}
            elif w[2] == 'armed' and len(w) >= 7 and w[3] == 'errno':
                d['errno'].append('E%s %s' % (w[4], w[6]))
            elif w[2].endswith('-seconds') and len(w) >= 4:
                d[w[2]] = w[3]
        elif len(w) >= 3 and w[0] == 'KPTEST' and ':' in w[1] and '.' in w[1].split(':')[0]:
            arch, fl = w[1].split(':')[0].split('.', 1)
            d = out.setdefault((arch, fl), {'pass': 0, 'fail': [], 'errno': []})
            if w[2] == 'PASS':
                d['pass'] += 1
            elif w[2] == 'FAIL':
                d['fail'].append(w[1].split(':', 1)[1])
    return out


def stress_md(results, report):
    L = ['## Stress (`make stress`)', '']
    runs = stored_dirs(results, 'stress')
    if not runs:
        return L + ['No stress result is stored yet: `make stress` runs and stores one.', '']
    L += ['Per run, newest first: for each arch and flavour the functions tried (every '
          'K-th core-kernel text symbol), the probes registration accepted, their hits and '
          'misses during the workload, the refusals by errno, the guest\'s verdicts and the '
          'functions that failed (a kernel report on the console fails `kernel-clean`).', '']
    for name, path in reversed(runs):
        meta = read_meta(os.path.join(path, 'run.meta'))
        L += ['### %s' % name, '',
              'Raw results: [`stress/%s/`](%s/) (`stress.results`, the consoles).'
              % (name, rel(path, os.path.dirname(report)))]
        L += ['- %s: %s' % kv for kv in meta] + ['']
        summ = stress_summary(path)
        if not summ:
            L += ['No result in this run.', '']
            continue
        L += ['| arch | flavour | tried (stride) | accepted | hits | missed | refused | passed | failed |',
              '|---|---|---:|---:|---:|---:|---|---:|---|']
        for (arch, fl) in sorted(summ):
            d = summ[(arch, fl)]
            after = d.get('after', d.get('armed', {}))
            L.append('| %s | %s | %s (%s) | %s | %s | %s | %s | %d | %s |' % (
                arch, fl, d.get('candidates', '-'), d.get('stride', '-'),
                after.get('accepted', '-'), after.get('hits', '-'), after.get('missed', '-'),
                ', '.join(d['errno']) or '-', d['pass'],
                ', '.join(d['fail']) if d['fail'] else '0'))
        L.append('')
    return L


def archcheck_md(results, report):
    L = ['## Other architectures (`make archcheck`)', '']
    runs = stored_dirs(results, 'archcheck')
    if not runs:
        return L + ['No archcheck result is stored yet: `make archcheck` runs and stores one.', '']
    L += ['Per run, newest first: each build (`vmlinux`: the defconfig linked with its '
          'modules; `vmlinux-small`: allnoconfig plus the kprobes options, their users, '
          'the samples and KUnit suites, linked with its modules; or `fast`: the kprobes objects '
          'only) with the kprobes options its config ended up with, and the KUnit boots '
          'counted by result.', '']
    for name, path in reversed(runs):
        meta = read_meta(os.path.join(path, 'run.meta'))
        L += ['### %s' % name, '',
              'Raw results: [`archcheck/%s/archcheck.results`](%s/archcheck.results).'
              % (name, rel(path, os.path.dirname(report)))]
        L += ['- %s: %s' % kv for kv in meta] + ['']
        try:
            lines = open(os.path.join(path, 'archcheck.results'), errors='replace').read().splitlines()
        except OSError:
            lines = []
        builds, boots, closing, boot = [], {}, None, None
        for i, line in enumerate(lines):
            w = line.split()
            if len(w) >= 3 and w[0] == 'ARCHCHECK':
                opts = lines[i + 1].strip() if i + 1 < len(lines) and lines[i + 1].startswith('    ') \
                    and w[2] == 'PASS' else ' '.join(w[3:])
                fl, arch, mode = (w[1].split(':') + ['', '', ''])[:3]
                builds.append('| %s | %s | %s | %s | %s |' % (arch, fl, mode, w[2], opts or '-'))
            elif line.startswith('# KUnit boot: '):
                boot = tuple(line[len('# KUnit boot: '):].split()[:2])
                boots.setdefault(boot, {'PASS': 0, 'FAIL': 0, 'SKIP': 0})
            elif len(w) >= 3 and w[0] == 'KUNIT' and boot and w[2] in ('PASS', 'FAIL', 'SKIP'):
                boots[boot][w[2]] += 1
            elif line.startswith('archcheck: '):
                closing = line
        if builds:
            L += ['| arch | flavour | mode | build | options or why |', '|---|---|---|---|---|'] + builds + ['']
        if boots:
            L += ['| KUnit boot | flavour | passed | failed | skipped |', '|---|---|---:|---:|---:|']
            for (fl, arch), c in sorted(boots.items(), key=lambda x: (x[0][1], x[0][0])):
                L.append('| %s | %s | %d | %d | %d |' % (arch, fl, c['PASS'], c['FAIL'], c['SKIP']))
            L.append('')
        L += ['Closing line: `%s`' % closing if closing else 'No closing line: the run did not finish.', '']
    return L


# make bench-teardown (bench-teardown.sh): per row, the kp_attach via,
# the field, and what it is.
TEARDOWN = [('perf', 'detach_ns', 'close() of N perf kprobe events, one by one'),
            ('perf', 'gone_ns', 'from the first close() until all N are unregistered'),
            ('trunc', 'clear_ns', 'clearing N kprobe events: one O_TRUNC open'),
            ('multi', 'remove_ns', 'removing N kprobe events: one write of N "-:" lines'),
            ('events', 'detach_ns', 'removing N kprobe events: one "-:" write each'),
            ('perf', 'attach_ns', 'perf_event_open() of N kprobe events (for scale)')]
TEARDOWN_FLAVOURS = [('upstream', '6.12'), ('teardown', '6.12 + teardown'), ('ours', 'ours')]


def teardown_rows(path):
    """{(arch, flavour): {via: BENCHRES dict}} of a bench-teardown run."""
    data = {}
    for log in sorted(glob.glob(os.path.join(path, '*-*.log'))):
        fl, arch = os.path.basename(log)[:-4].split('-', 1)
        rows = data.setdefault((arch, fl), {})
        for line in open(log, errors='replace'):
            i = line.find('BENCHRES row=attach ')
            if i < 0:
                continue
            kv = dict(w.split('=', 1) for w in line[i:].split()[1:] if '=' in w)
            rows[kv.get('via')] = kv
    return data


def teardown_table(path):
    """The markdown table of a bench-teardown run."""
    data = teardown_rows(path)
    L = ['| arch | N | what | %s | teardown / 6.12 | ours / 6.12 |'
         % ' | '.join(t for _, t in TEARDOWN_FLAVOURS),
         '|---|---:|---|' + '---:|' * (len(TEARDOWN_FLAVOURS) + 2)]

    def val(arch, fl, via, key):
        r = data.get((arch, fl), {}).get(via)
        if not r or r.get('ret') != '0' or r.get('done') != r.get('n') or key not in r:
            return None, r.get('n') if r else None
        return int(r[key]) / 1e9, r.get('n')

    def show(v):
        if v is None:
            return 'n/a'
        return '%.3g ms' % (v * 1e3) if v < 1 else '%.3g s' % v
    for arch in sorted({a for a, _ in data}):
        for via, key, what in TEARDOWN:
            vals = {fl: val(arch, fl, via, key) for fl, _ in TEARDOWN_FLAVOURS}
            n = next((v[1] for v in vals.values() if v[1]), '?')
            up = vals['upstream'][0]
            ratios = ['%.2g' % (vals[fl][0] / up) if vals[fl][0] is not None and up else '-'
                      for fl in ('teardown', 'ours')]
            L.append('| %s | %s | %s | %s | %s |' % (
                arch, n, what, ' | '.join(show(vals[fl][0]) for fl, _ in TEARDOWN_FLAVOURS),
                ' | '.join(ratios)))
    return L


def teardown_md(results, report):
    L = ['## Teardown on both cores (`make bench-teardown`)', '']
    runs = stored_dirs(results, 'teardown')
    if not runs:
        return L + ['No teardown run is stored yet: `make bench-teardown` runs and stores one.', '']
    # the newest run of each arch (a run may hold one arch or several)
    newest = {}
    for name, path in runs:
        for arch in {a for a, _ in teardown_rows(path)}:
            newest[arch] = (name, path)
    shown = sorted(set(newest.values()))
    L += ['The newest run of each architecture: plain 6.12, 6.12 with the teardown series '
          '(patches/teardown/) and ours, each booted once with two CPUs; guest wall time '
          'under TCG.', '']
    for name, path in shown:
        arches = sorted(a for a, r in newest.items() if r == (name, path))
        L += ['### %s (%s)' % (', '.join(arches), name), '',
              'Raw results: [`teardown/%s/`](%s/).' % (name, rel(path, os.path.dirname(report))), '']
        L += ['- %s: %s' % kv for kv in read_meta(os.path.join(path, 'run.meta'))] + ['']
        L += [ln for ln in teardown_table(path)
              if not ln.startswith('| ') or ln.startswith('| arch') or
              ln.split(' | ')[0][2:] in arches] + ['']
    older = [n for n, p in runs if (n, p) not in shown]
    if older:
        L += ['Earlier runs: %s.' % ', '.join(reversed(older)), '']
    return L


def readme_block(runs, report_link):
    cur = newest_per_arch(runs)
    L = [BEGIN]
    if not cur:
        L += ['', 'No benchmark result is stored yet: `make bench` measures ours beside '
              'upstream, stores the raw results and fills this table (see [the report](%s)).'
              % report_link, '']
    for arch in sorted(cur):
        name = cur[arch]
        _, path, cfgs = [r for r in runs if r[0] == name][0]
        cfg = 'workbench' if 'workbench' in cfgs and arch in cfgs['workbench'][0] else \
            sorted(c for c in cfgs if arch in cfgs[c][0])[0]
        arches, rows, data = cfgs[cfg]
        meta = dict(read_meta(os.path.join(path, 'run.meta')))
        L += ['', '%s, guest instructions per hit, %s config, run %s (git %s); details in [the report](%s):'
              % (arch, cfg, name, meta.get('git', '?').split()[0][:12], report_link), '']
        L += per_hit_md(rows, arch, why_fn(data))
        L.append('')
    L.append(END)
    return L


def replace_block(text, block):
    b, e = text.find(BEGIN), text.find(END)
    if b < 0 or e < b:
        return None
    return text[:b] + '\n'.join(block) + text[e + len(END):]


def report_main(argv):
    """bench-report.py report [--results DIR] [--report FILE] [--readme FILE]
    [--check]: regenerate the report and README's per-hit block from every
    stored run.  --check: change nothing, exit 1 if either is stale."""
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.normpath(os.path.join(here, '..', '..', '..'))
    opts = {'--results': os.path.join(here, 'results'), '--report': None,
            '--readme': os.path.join(repo, 'README.md')}
    check = False
    while argv:
        a = argv.pop(0)
        if a == '--check':
            check = True
        elif a in opts and argv:
            opts[a] = argv.pop(0)
        else:
            print('usage: bench-report.py report [--results DIR] [--report FILE] '
                  '[--readme FILE] [--check]', file=sys.stderr)
            return 2
    results = opts['--results']
    report = opts['--report'] or os.path.join(results, 'REPORT.md')
    readme = opts['--readme']
    base = os.path.dirname(os.path.abspath(readme))
    runs = stored_runs(results)
    new_report = '\n'.join(report_md(results, runs, base, report) +
                           steps_md(results, report, base) + stress_md(results, report) +
                           teardown_md(results, report) +
                           archcheck_md(results, report)).rstrip('\n') + '\n'
    text = open(readme).read()
    new_readme = replace_block(text, readme_block(runs, rel(report, base)))
    if new_readme is None:
        print('%s: no bench-table markers' % readme, file=sys.stderr)
        return 1
    old_report = open(report).read() if os.path.exists(report) else None
    stale = [f for f, old, new in ((report, old_report, new_report), (readme, text, new_readme))
             if old != new]
    if check:
        for f in stale:
            print('%s is not what bench-report.py report makes of the stored results' % f)
        return 1 if stale else 0
    os.makedirs(os.path.dirname(os.path.abspath(report)), exist_ok=True)
    with open(report, 'w') as f:
        f.write(new_report)
    with open(readme, 'w') as f:
        f.write(new_readme)
    print('report: %s (%d stored runs); README per-hit block: %s' % (report, len(runs), readme))
    return 0


# ---------------------------------------------------------------------
# The cover letter's figures: bench-report.py cover.
#
# series-msgs/cover.txt quotes no figure of its own: a line that is only
# a placeholder (@@PERHIT@@ ...) stands for a block this generator makes
# from the stored results, and series.sh fills them when it writes the
# cover letter.  The benchmark's blocks come from one run per
# architecture, the newest complete one (both kernels, per-hit and
# multi-CPU boots); the teardown block from the newest teardown run of
# each architecture; the architectures block from the stored
# series-check and archcheck results.  "cover --lint FILE" fails on a
# digit-bearing figure of FILE outside the placeholders that
# COVER_ALLOW does not name.

# The per-hit rows the cover letter shows, with its short names.
COVER_ROWS = [('k', 'post_handler'), ('b', 'no post_handler'),
              ('o', 'jump-optimized'), ('f', 'on ftrace'),
              ('r', 'kretprobe, trap'), ('ro', 'kretprobe, jump'),
              ('rf', 'kretprobe, ftrace')]

# Rows whose two clocks disagree, said shortly for the cover letter (the
# report's CLOCK_NOTES has the whole of it).
COVER_CLOCK_NOTES = {
    ('x86_64', 'f'):
        'this series runs the handlers with interrupts masked on every '
        'path, so its ftrace callback unmasks them with sti on the way '
        'out, where 6.12\'s leaves the flag alone.  QEMU\'s TCG ends a '
        'translation block at sti and runs the next instruction alone in '
        'a block of its own (the interrupt shadow), which costs emulator '
        'time, not guest instructions; on hardware sti is neither '
        'serializing nor a trap.  No exception, translation-block '
        'invalidation or store into a code page happens per hit on either '
        'kernel (the project\'s results/clocks/2026-11-28-x86_64-f/NOTES.md).',
    ('x86_64', 'o'):
        'the benchmark module\'s code layout meets a cache of the '
        'emulator\'s.  Two addresses every hit enters outside a chained '
        'jump, the module\'s pre_handler and the return address of its '
        'timed loop\'s call, share a slot of QEMU\'s per-vCPU jump cache in '
        'the module built against this series, so each hit looks both up '
        'in QEMU\'s hash table instead: emulator time, not guest '
        'instructions.  With the module\'s loop moved by padding it never '
        'runs, the same kernel\'s hit takes less TCG wall time than '
        '6.12\'s, with the same instructions (the project\'s '
        'results/clocks/2026-11-28-x86_64-o/NOTES.md).',
}

# Registration rows of the cover letter: batches unregistered right
# after register_kprobes() and once jump-optimized, of these sizes.
COVER_UNREG_SIZES = (100, 10000)
# A registration, attach or detach row goes under "where it loses" when
# ours costs more than this times 6.12's.
COVER_LOSS = 1.10

# The architectures with kprobes (x86 in both widths) and what the
# results call them.
COVER_ARCHES = ['x86_64', 'i386', 'arm64', 'arm', 'riscv64', 'ppc64le', 's390x',
                'mips', 'arc', 'parisc', 'sh4', 'sparc64', 'loongarch', 'csky']

# What cover.txt may hold with a digit outside its placeholders: each
# pattern with why it is not a measured figure.  Anything else that
# bears a digit belongs in a generated block.
COVER_ALLOW = [
    (r'\b6\.12(?:\.117(?:-1~deb12u1)?)?(?![\d.])', 'the version of the base'),
    (r'\b4\.15\b', 'the release that removed jprobes'),
    (r'\b(?:1|32|64) KiB\b', 'sizes of the kretprobe task storage, constants of the code'),
    (r'\b128 bytes\b', 'the jprobe stack copy, a constant of the code'),
    (r'\b3,061 lines\b', "the size of 6.12's kernel/kprobes.c, which one patch deletes"),
    (r'\b1,500 lines\b', 'the size rule the series keeps to'),
    (r'\b[A-Za-z_][A-Za-z0-9_]*', '(last) a name (x86_64, arm64, int3, kprobes_arm64, CONFIG_...)'),
]
PLACEHOLDER = re.compile(r'^@@([A-Z]+)@@$')


def cover_lint(text):
    """The digit-bearing figures of TEXT outside its placeholder lines
    that COVER_ALLOW does not name, and the unknown placeholders, as
    [(line number, what)]."""
    bad = []
    for no, line in enumerate(text.splitlines(), 1):
        m = PLACEHOLDER.match(line.strip())
        if m:
            if m.group(1) not in COVER_BLOCKS:
                bad.append((no, 'unknown placeholder %s' % line.strip()))
            continue
        if '@@' in line:
            bad.append((no, 'a placeholder must be a line of its own: %s' % line.strip()))
        rest = line
        for pat, _ in COVER_ALLOW:
            rest = re.sub(pat, lambda m: ' ' * len(m.group(0)), rest)
        for m in re.finditer(r'\S*\d\S*', rest):
            unit = re.match(r'\s+[A-Za-z%]+', line[m.end():])
            end = m.end() + (unit.end() if unit else 0)
            bad.append((no, '"%s" in: %s' % (line[m.start():end].strip(), line.strip())))
    return bad


def cover_current(runs):
    """{arch: (name, path, cfg, rows, data)}: per arch the newest stored
    run that measured all of it with both kernels (run_complete())."""
    cur = {}
    for name, path, cfgs in runs:
        for cfg, (arches, rows, data) in sorted(cfgs.items()):
            for a in arches:
                if run_complete(path, cfg, a):
                    cur[a] = (name, path, cfg, rows, data)
    return cur


def cover_run_name(name):
    """A stored run's name without its arches: its UTC start."""
    return name.split('-x86_64')[0].split('-arm64')[0]


def cover_boots(path, cfg, arch, part):
    """[meta dict] of ARCH's boots of PART (icount, multi, wall) in a run."""
    return [dict(read_meta(m)) for m in sorted(glob.glob(os.path.join(
        path, cfg, '*-%s-%s*.meta' % (arch, part))))]


def cover_wrap(text, width=72):
    """TEXT as lines of at most WIDTH columns (two spaces after a
    sentence kept)."""
    out, cur, sep = [], '', ''
    for m in re.finditer(r'(\S+)( *)', text):
        w = m.group(1)
        if cur and len(cur) + len(sep) + len(w) > width:
            out.append(cur)
            cur = w
        else:
            cur = cur + sep + w if cur else w
        sep = m.group(2) or ' '
    return out + ([cur] if cur else [])


def cover_bullet(text, width=72):
    """TEXT as an item of a list: " - " then lines indented by three."""
    lines = cover_wrap(text, width - 3)
    return [(' - ' if i == 0 else '   ') + l for i, l in enumerate(lines)]


def cover_count(n):
    """N in words up to ten, else in digits."""
    words = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight',
             'nine', 'ten']
    return words[n] if 0 <= n < len(words) else '{:,}'.format(n)


def cover_order(arches):
    """ARCHES in the order of COVER_ARCHES."""
    return sorted(arches, key=lambda a: (COVER_ARCHES.index(a) if a in COVER_ARCHES
                                         else len(COVER_ARCHES), a))


def cover_loads(metas):
    """'A to B' (or 'A'): the 1-minute host loads of these boots."""
    loads = sorted(float(m['host load'].split()[0]) for m in metas
                   if m.get('host load', '').split()[:1] and
                   re.match(r'^[\d.]+$', m['host load'].split()[0]))
    if not loads:
        return '?'
    return '%.1f' % loads[0] if loads[0] == loads[-1] else '%.1f to %.1f' % (loads[0], loads[-1])


# A boot keeps one of the host's two CPUs busy: a 1-minute load under
# this at the start of every wall boot means nothing else ran.
QUIET_LOAD = 1.5


def cover_host(metas):
    """The host the wall boots ran on, said from their loads."""
    loads = [float(m['host load'].split()[0]) for m in metas
             if re.match(r'^[\d.]+$', (m.get('host load', '').split() or [''])[0])]
    if loads and max(loads) < QUIET_LOAD:
        return 'host running nothing else (the boot itself aside)'
    return 'host shared with other builds'


def cover_runs_said(cur):
    """Which runs, said in a sentence's words."""
    parts = []
    for arch in cover_order(cur):
        name, path = cur[arch][0], cur[arch][1]
        git = dict(read_meta(os.path.join(path, 'run.meta'))).get('git', '?').split()[0][:12]
        parts.append('%s run %s (project commit %s)' % (arch, cover_run_name(name), git))
    return ', '.join(parts)


NO_BENCH = ['No complete benchmark run is stored: `make bench` makes one.']


def cover_perhit(results):
    cur = cover_current(stored_runs(results))
    if not cur:
        return NO_BENCH
    arches = cover_order(cur)
    qemu, calls, walls, wall_metas = set(), set(), set(), []
    for arch in arches:
        name, path, cfg, rows, data = cur[arch]
        for m in cover_boots(path, cfg, arch, 'icount') + cover_boots(path, cfg, arch, 'wall'):
            v = re.search(r'QEMU emulator version (\S+)', m.get('qemu', ''))
            if v:
                qemu.add(v.group(1))
        wall_metas += cover_boots(path, cfg, arch, 'wall')
        for fl in ('ours', 'upstream'):
            ic, ws, _ = data.get((arch, fl), (None, [], None))
            if ic and ic.get('none', {}).get('iters'):
                calls.add(int(ic['none']['iters']))
            walls.add(len(ws))
    said = ('Per hit (make bench, with the benchmark module of this series; one '
            'stored run per architecture, each booting 6.12.117 and this series '
            'built from one config): %s.  QEMU %s, TCG.  "insns": guest '
            'instructions per hit under -icount shift=0, one vCPU, %s calls, the '
            'unprobed call subtracted; this series / 6.12, and their ratio.  '
            '"wall": this series / 6.12 in TCG wall time, a hit counted in '
            'unprobed calls of its own boot (the hit less the unprobed call, '
            'divided by the unprobed call), so that the speed of the host is '
            'divided out (%s boot%s per kernel without -icount, one vCPU, on a '
            '%s: load %s on its two CPUs).  '
            'Under 1, this series is cheaper.'
            % (cover_runs_said(cur), ', '.join(sorted(qemu)) or '?',
               ', '.join('{:,}'.format(c) for c in sorted(calls)) or '?',
               ' or '.join(cover_count(w) for w in sorted(walls)) or '?',
               '' if walls == {1} else 's', cover_host(wall_metas),
               cover_loads(wall_metas)))
    L = cover_wrap(said) + ['']
    head1 = '  %-17s' % ''
    head2 = '  %-17s' % 'row'
    for arch in arches:
        head1 += '  %-25s' % arch
        head2 += '  %-11s %6s %6s' % ('insns', 'ratio', 'wall')
    L += [head1.rstrip(), head2.rstrip()]
    for key, what in COVER_ROWS:
        line = '  %-17s' % what
        shown = False
        for arch in arches:
            t = [x for x in cur[arch][3] if x['arch'] == arch and x['row'] == key]
            t = t[0] if t else {}
            o, u = t.get('ours_insns'), t.get('upstream_insns')
            if o is None and u is None:
                line += '  %-11s %6s %6s' % ('  - / -', '-', '-')
                continue
            shown = True
            ins = '%4s / %-4s' % ('%.0f' % o if o is not None else 'n/a',
                                  '%.0f' % u if u is not None else 'n/a')
            line += '  %-11s %6s %6s' % (ins, md_ratio(t.get('ratio')),
                                         md_ratio(t.get('norm_ratio')))
        if shown:
            L.append(line.rstrip())
    L += ['', '  ("n/a": that kernel has no such path there; "- / -": neither has)']
    return L


def cover_clocks(results):
    cur = cover_current(stored_runs(results))
    titles = dict(ROWS)
    L = []
    for arch in cover_order(cur):
        rows = cur[arch][3]
        for key, what in COVER_ROWS:
            t = [x for x in rows if x['arch'] == arch and x['row'] == key]
            if not t:
                continue
            r, w = t[0]['ratio'], t[0].get('norm_ratio')
            if not r or not w or (r < 1) == (w < 1):
                continue
            note = COVER_CLOCK_NOTES.get((arch, key))
            if L:
                L.append('')
            L += cover_wrap('On %s, the row "%s" is %.2f of 6.12 in instructions but '
                            '%.2f in wall time: %s' % (
                                arch, titles.get(key, what), r, w,
                                note or 'not explained yet; only its instruction '
                                'count stands.'))
    if not L:
        L = cover_wrap('On every row both clocks put this series and 6.12 on the '
                       'same side of 1.')
    return L


def cover_reg_rows(arch, data):
    """[(what, 6.12 ns, ours ns)]: batches unregistered right after
    registration and once optimized (COVER_UNREG_SIZES)."""
    out = []
    for n in COVER_UNREG_SIZES:
        for what, kind in (('%s at entries, just registered', 'reg'),
                           ('%s inside, once jump-optimized', 'opt')):
            v = {}
            for fl in ('upstream', 'ours'):
                ic = data.get((arch, fl), (None, [], None))[2] or {}
                if kind == 'reg':
                    r = [x for x in ic.get('reg', []) if x.get('row') == 'reg' and
                         x.get('mode') == 'batch' and x.get('n') == str(n)]
                else:
                    r = [x for x in ic.get('opt', []) if x.get('n') == str(n)]
                r = r[0] if r else {}
                ok = r.get('ret') == '0' and 'unreg_ns' in r and \
                    (kind == 'reg' or r.get('jumps') == r.get('n'))
                v[fl] = int(r['unreg_ns']) if ok else None
            if v['upstream'] is not None or v['ours'] is not None:
                out.append((what % '{:,}'.format(n), v['upstream'], v['ours']))
    return out


def cover_unregister(results):
    cur = cover_current(stored_runs(results))
    if not cur:
        return NO_BENCH
    L = cover_wrap('Unregistering a batch of kprobes with unregister_kprobes() (the '
                   'same runs; guest time under -icount, two vCPUs).  "At entries, just '
                   'registered": on the first instruction of N functions, unregistered '
                   'as soon as register_kprobes() has returned; "inside, once '
                   'jump-optimized": inside N functions, past their ftrace site, '
                   'unregistered once the text of every one of them holds a jump:') + ['']
    L.append('  %-44s %9s %9s' % ('', '6.12', 'ours'))
    for arch in cover_order(cur):
        for what, u, o in cover_reg_rows(arch, cur[arch][4]):
            L.append('  %-44s %9s %9s' % ('%s, %s' % (arch, what), md_time(u), md_time(o)))
    return L


def cover_losses(results):
    cur = cover_current(stored_runs(results))
    if not cur:
        return NO_BENCH
    L = []
    fmt = '  %-7s %-43s %8s %8s'
    for arch in cover_order(cur):
        name, path, cfg, rows, data = cur[arch]
        for key, what in COVER_ROWS:
            t = [x for x in rows if x['arch'] == arch and x['row'] == key]
            if t and t[0]['ratio'] and t[0]['ratio'] > COVER_LOSS:
                L.append(fmt % (arch, what + ', insns per hit',
                                '%.0f' % t[0]['upstream_insns'], '%.0f' % t[0]['ours_insns']))
        for t in rows:
            if t['arch'] != arch or 'ours' not in t or t['row'] == 'mt':
                continue
            if t['ratio'] and t['ratio'] > COVER_LOSS:
                L.append(fmt % (arch, t['what'], md_time(t['upstream']), md_time(t['ours'])))
        for what, u, o in cover_reg_rows(arch, data):
            if 'optimized' in what and u and o and o / u > COVER_LOSS:
                L.append(fmt % (arch, 'unregister ' + what, md_time(u), md_time(o)))
    if not L:
        return cover_wrap('No row of the same runs costs this series more than %.2f '
                          'times what it costs 6.12.' % COVER_LOSS)
    head = cover_wrap('Rows of the same runs where this series costs more than '
                      '%.2f times what 6.12 does (registration, attach and detach: guest '
                      'time under -icount, two vCPUs; "one at a time": one '
                      'register_kprobe() or unregister_kprobe() call per probe):'
                      % COVER_LOSS) + ['']
    return head + [fmt % ('', '', '6.12', 'ours')] + L


def cover_teardown(results):
    newest = {}
    for name, path in stored_dirs(results, 'teardown'):
        for arch in {a for a, _ in teardown_rows(path)}:
            newest[arch] = (name, path)
    if not newest:
        return ['No teardown run is stored: `make bench-teardown` makes one.']
    arches = cover_order(newest)
    said, ns = [], set()
    for arch in arches:
        name, path = newest[arch]
        meta = read_meta(os.path.join(path, 'run.meta'))
        d = dict(meta)
        load = [re.search(r'load at the (start|end) ([\d.]+)', v) for k, v in meta if k == 'host']
        load = ['%s %s' % (m.group(1), m.group(2)) for m in load if m]
        m = re.search(r'\bn: (\d+)', d.get('arches', ''))
        if m:
            ns.add(int(m.group(1)))
        said.append('%s run %s (project commit %s; host load at the %s)' % (
            arch, cover_run_name(name), d.get('git', '?').split()[0][:12],
            ', at the '.join(load) or '?'))
    L = cover_wrap('Measured with make bench-teardown (%s kprobes; each kernel booted '
                   'once with two vCPUs in make check\'s config; guest wall time under '
                   'TCG): %s.  Columns: 6.12.117, 6.12.117 with the teardown series, '
                   'this series.'
                   % (' or '.join('{:,}'.format(n) for n in sorted(ns)) or '?', '; '.join(said)))
    L += ['', '  %-36s %10s %10s %10s' % ('', '6.12', '+teardown', 'ours')]
    shown = {('perf', 'detach_ns'): 'closing the perf kprobe events',
             ('perf', 'gone_ns'): 'until all are unregistered',
             ('trunc', 'clear_ns'): 'clearing kprobe_events (O_TRUNC)',
             ('multi', 'remove_ns'): 'one write of all their "-:" lines',
             ('events', 'detach_ns'): 'one "-:" write per event'}
    for via, key, _ in TEARDOWN:
        if (via, key) not in shown:
            continue
        L.append('  %s' % shown[(via, key)])
        for arch in arches:
            data = teardown_rows(newest[arch][1])
            vals = []
            for fl, _ in TEARDOWN_FLAVOURS:
                r = data.get((arch, fl), {}).get(via)
                ok = r and r.get('ret') == '0' and r.get('done') == r.get('n') and key in r
                vals.append(md_time(int(r[key])) if ok else 'n/a')
            L.append('  %-36s %10s %10s %10s' % ('  ' + arch, *vals))
    return L


def cover_archlist(names):
    names = cover_order(names)
    return ', '.join(names[:-1]) + ' and ' + names[-1] if len(names) > 1 else ''.join(names)


def cover_steps(steps):
    """Sorted step numbers as ranges: 01-14, 22, 24-50."""
    out, st = [], sorted(set(steps))
    k = 0
    while k < len(st):
        e = k
        while e + 1 < len(st) and st[e + 1] == st[e] + 1:
            e += 1
        out.append('%02d' % st[k] if e == k else '%02d-%02d' % (st[k], st[e]))
        k = e + 1
    return ', '.join(out)


def sc_arch_dir(arch):
    """The arch/ directory ARCH compiles (series-same.py's arch_dir())."""
    import importlib.util
    global _series_same
    if '_series_same' not in globals():
        spec = importlib.util.spec_from_file_location(
            'series_same', os.path.join(HERE, 'series-same.py'))
        _series_same = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(_series_same)
    return _series_same.arch_dir(arch) or arch


def sc_run_stale(rev, arch):
    """Whether what ARCH compiles of the series changed since project
    revision REV: a file that feeds its steps' trees (the kernel paths
    but Documentation/ and other arches' arch/, patches/, series.map and
    their series-files/) differs between REV and HEAD (series.py, which
    also fills the messages, is left out: a change of it that changes
    trees needs its runs again).  None when REV is not a commit of this
    repository."""
    adir = sc_arch_dir(arch)
    t = 'tools/testing/kprobes/'
    paths = ['kernel', 'include', 'lib', 'samples', 'patches', 'arch/' + adir,
             t + 'series.map'] + \
        [t + 'series-files/' + d for d in ('kernel', 'include', 'lib', 'samples',
                                           'patches', 'arch/' + adir)]
    root = os.path.join(HERE, '..', '..', '..')
    try:
        r = subprocess.run(['git', 'diff', '--quiet', rev, 'HEAD', '--'] + paths,
                           cwd=root, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    except OSError:
        return None
    return {0: False, 1: True}.get(r.returncode)


def cover_arches(results):
    """Which architectures were booted, which only compiled, from the
    stored series-check (results/series/) and archcheck runs: per arch
    the newest stored run that has it."""
    booted, linked = {}, {}
    for path in sorted(glob.glob(os.path.join(results, 'series', '*.txt'))):
        name = os.path.basename(path)[:-4][:16]
        seen, linked_seen, which, carried = {}, {}, '', None
        for line in open(path, errors='replace'):
            m = re.match(r'^# series-same\.py --carry (\S+)', line)
            if m and not which:
                carried = m.group(1)[:16]
            m = re.match(r"^#.* at (\w+)'s series \((\d+) patches", line)
            if m and not which:
                which = '%s, %s patches' % (m.group(1)[:7], m.group(2))
            m = re.match(r'^SERIES (boot|build)\.(\d+)\.(\S+) (PASS|FAIL|SAME)', line)
            if m:
                kind = linked_seen if m.group(1) == 'build' else seen
                b = kind.setdefault(m.group(3), {'steps': [], 'fail': 0, 'same': 0,
                                                 'carried': carried})
                b['steps'].append(int(m.group(2)))
                b['fail'] += m.group(4) == 'FAIL'
                b['same'] += m.group(4) == 'SAME'
        for arch, b in seen.items():
            booted.setdefault(arch, []).insert(0, (name, which, b))
        # archcheck's arches: linked after every patch, never booted
        for arch, b in linked_seen.items():
            if arch not in seen and arch not in ('x86_64', 'arm64', 'riscv64'):
                linked.setdefault(arch, []).insert(0, (name, which, b))

    # The runs of the newest series (as many patches as the newest run
    # names: series-same.py --carry restates an older series' steps for
    # it); the older series' runs are only counted.
    def npatches(which):
        m = re.search(r'(\d+) patches', which)
        return int(m.group(1)) if m else 0
    everything = [(n, w) for d in (booted, linked) for runs in d.values()
                  for n, w, _ in runs if npatches(w)]
    newest = npatches(max(everything)[1]) if everything else 0

    def said_runs(d):
        said, older, nsteps = [], 0, None
        for a in cover_order(d):
            runs, steps = [], set()
            for name, which, b in d[a]:
                # an older series, or this one before a change to what the
                # arch compiles of it (the run's revision, if this
                # repository has it, against HEAD)
                if (newest and npatches(which) != newest) or \
                        sc_run_stale(which.split(',')[0], a):
                    older += 1
                    continue
                steps |= set(b['steps'])
                word = 'step' if len(set(b['steps'])) == 1 else 'steps'
                if b['carried']:
                    what = ('%s %s carried from run %s of an earlier version of the '
                            'series, whose step of the same tree passed there'
                            % (word, cover_steps(b['steps']), b['carried']))
                else:
                    what = '%s %s%s' % (word, cover_steps(b['steps']),
                                          ' (%s of them the kernel of an earlier step: '
                                          'SAME)' % cover_count(b['same'])
                                          if b['same'] else '')
                runs.append('%s%s %s, %s' % (
                    name, ' (%s)' % which if which else '', what,
                    'all passed' if not b['fail'] else '%s failed' % cover_count(b['fail'])))
            if runs:
                missing = set(range(1, newest + 1)) - steps if newest else set()
                said.append('%s: %s; %s' % (
                    a, '; '.join(runs),
                    'all %d steps covered' % newest if not missing else
                    '%s %s not covered' % ('step' if len(missing) == 1 else 'steps',
                                           cover_steps(missing))))
        return said, older

    L = []
    if booted:
        said, older = said_runs(booted)
        L += cover_bullet('Booted under QEMU (TCG), never on hardware: %s, steps of the '
                          'series linked and booted with the kprobes KUnit suites each '
                          'has (make series-check; a step whose tree an architecture '
                          'compiles is unchanged is not built again, SAME; '
                          'series-same.py carries a step of an earlier version of the '
                          'series whose tree is the same).  x86_64 and '
                          'arm64 are also what make check boots.  The stored series-check '
                          'runs of this series, newest first, and the steps they '
                          'booted: %s%s.' % (cover_archlist(booted), '.  '.join(said),
                                            ('.  One stored run of an earlier version of '
                                             'the series is not listed' if older == 1 else
                                             '.  %d stored runs of earlier versions of the '
                                             'series are not listed' % older) if older else ''))
    if linked:
        said, older = said_runs(linked)
        if said:
            L += cover_bullet('Linked after every patch, never booted (make series-check, '
                              'vmlinux and the modules in make archcheck\'s kprobes-sized '
                              'config): %s%s.' % ('.  '.join(said),
                                                  ('.  %s stored runs of earlier versions '
                                                   'are not listed' % cover_count(older).capitalize())
                                                  if older else ''))
    compiled, kunit = {}, {}
    for name, path in stored_dirs(results, 'archcheck'):
        try:
            lines = open(os.path.join(path, 'archcheck.results'), errors='replace').read().splitlines()
        except OSError:
            continue
        boot, run_kunit = None, {}
        for i, line in enumerate(lines):
            w = line.split()
            if len(w) >= 3 and w[0] == 'ARCHCHECK' and w[1].startswith('ours:'):
                arch, mode = (w[1].split(':') + ['', ''])[1:3]
                detail = ' '.join(lines[i + 1:i + 4])
                compiled[arch] = (name[:16], mode, w[2], 'samples/' in detail)
            elif line.startswith('# KUnit boot: '):
                boot = line[len('# KUnit boot: '):].split()[:2]
            elif len(w) >= 3 and w[0] == 'KUNIT' and boot and boot[0] == 'ours' and \
                    w[2] in ('PASS', 'FAIL'):
                k = run_kunit.setdefault(boot[1], {'pass': 0, 'fail': 0})
                k['pass' if w[2] == 'PASS' else 'fail'] += 1
        for arch, k in run_kunit.items():
            kunit[arch] = (name[:16], k)
    if kunit:
        L += cover_bullet('KUnit booted by make archcheck: %s.' % '; '.join(
            '%s (%s: %d passed, %d failed)' % (a, kunit[a][0], kunit[a][1]['pass'],
                                               kunit[a][1]['fail'])
            for a in cover_order(kunit)))
    only = {a: v for a, v in compiled.items() if a not in booted and a not in kunit}
    failed = {a: v for a, v in only.items() if v[2] != 'PASS'}
    only = {a: v for a, v in only.items() if v[2] == 'PASS'}
    if only:
        groups = {}
        for a in cover_order(only):
            name, mode, _, samples = only[a]
            groups.setdefault((name, mode, samples), []).append(a)
        L += cover_bullet('Compiled only, never booted (make archcheck, the newest stored '
                          'run of each): %s.' % '; '.join(
                              '%s (%s, %s%s)' % (cover_archlist(names), name,
                                                 'the kprobes objects' if mode == 'fast'
                                                 else 'vmlinux and modules linked in '
                                                 'allnoconfig plus the kprobes options '
                                                 'and their users' if mode == 'vmlinux-small'
                                                 else mode,
                                                 ' and the kprobes samples' if samples else '')
                              for (name, mode, samples), names in sorted(groups.items())))
    if failed:
        L += cover_bullet('Did not build in the newest stored make archcheck run: %s.' % '; '.join(
            '%s (%s, %s: %s)' % (a, failed[a][0], failed[a][1], failed[a][2])
            for a in cover_order(failed)))
    # x86_64 and arm64 are what make check builds and boots
    none = [a for a in COVER_ARCHES if a not in booted and a not in compiled and
            a not in kunit and a not in linked and a not in ('x86_64', 'arm64')]
    if none:
        L += cover_bullet('Never built here (no stored build): %s.' % cover_archlist(none))
    return L or ['No series-check or archcheck result is stored.']


def cover_steps_setup(cur, arches):
    """The setup of the bench-steps runs of ARCHES, in a sentence."""
    runs, qemu, calls, walls = [], set(), set(), set()
    for arch in arches:
        name, path, cfgs = cur[arch]
        git = dict(read_meta(os.path.join(path, 'run.meta'))).get('git', '?').split()[0][:12]
        runs.append('%s run %s (project commit %s)' % (arch, cover_run_name(name), git))
        for steps in cfgs.values():
            for st in steps:
                for m in glob.glob(os.path.join(st['dir'], '*.meta')):
                    v = re.search(r'QEMU emulator version (\S+)', dict(read_meta(m)).get('qemu', ''))
                    if v:
                        qemu.add(v.group(1))
                ic = parse(os.path.join(st['dir'], 'ours-%s-icount.log' % arch))
                if ic and ic.get('none', {}).get('iters'):
                    calls.add(int(ic['none']['iters']))
                if st['cells']['none']['insns'] is not None:
                    walls.add(st['cells']['none']['walls'])
    return ('make bench-steps: %s; the kernel of each step built from the series as '
            'git am applies it, with the same benchmark module, and booted under QEMU '
            '%s (TCG), one vCPU: guest instructions per hit under -icount shift=0, %s '
            'calls, the unprobed call subtracted; beside them ("wall") the TCG wall '
            'time of a hit in unprobed calls of its own boot (median of %s boot%s per '
            'step)' % ('; '.join(runs), ', '.join(sorted(qemu)) or '?',
                       ', '.join('{:,}'.format(c) for c in sorted(calls)) or '?',
                       ' or '.join(cover_count(w) for w in sorted(walls)) or '?',
                       '' if walls == {1} else 's'))


# The configs said in the cover letter and the messages.
STEP_CONFIG_WORDS = {
    'workbench': 'preemptible (CONFIG_PREEMPT)',
    'nopreempt': 'without preemption (CONFIG_PREEMPT_NONE, no PREEMPT_DYNAMIC)',
    'defaults': "the kernel's defaults plus kprobes",
}


def cover_step_lines(a, b, rows):
    """The lines of the rows ROWS of step B against step A (or the step
    step_base() names, said after the row)."""
    out = []
    for key in rows:
        base = step_base(a, b, key)
        ca, cb = base['cells'][key], b['cells'][key]
        if ca['insns'] is None and cb['insns'] is None:
            continue
        if cb['insns'] is None and base is not a:
            continue

        def v(c):
            if c['insns'] is None:
                m = re.search(r'(\d+) of (\d+) missed', c['why'] or '')
                return '%13s' % ('%s/%s missed' % m.groups() if m else 'n/a')
            return '%6.0f %6s' % (c['insns'], '%.1f' % c['norm'] if c['norm'] is not None else '-')
        d = step_delta(ca, cb)
        ds = '%6s %6s' % ('%+.0f' % d[0], '%+.1f' % d[1] if d[1] is not None else '-') if d else ''
        out.append(('    %-4s %s  %s  %s%s' % (key, v(ca), v(cb), ds,
                                          '  (before: %02d)' % base['nn'] if base is not a
                                          else '')).rstrip())
    return out


# The head of cover_step_lines()' columns.
COVER_STEP_HEAD = ['    %-4s %13s  %13s  %13s' % ('', 'before', 'after', 'change'),
                   '    %-4s %6s %6s  %6s %6s  %6s %6s' % ('row', 'insns', 'wall', 'insns',
                                                           'wall', 'insns', 'wall')]


def cover_causes(results):
    cur = steps_current(steps_runs(results))
    if not cur:
        return ['No bench-steps run is stored: make bench-steps measures the kernels '
                'of the series\' steps.']
    arches = cover_order(cur)
    L = cover_wrap('What each step brings to a hit (%s).  Per step and row: instructions '
                   'before and after the step, wall before and after, and the change of '
                   'both; "n/a": the kernel has no such probe there; "M/N missed": the '
                   'row does not count, its probe missed M of the N calls in flight; '
                   '"before: NN": the row is compared with step NN, the nearest before '
                   'that has it.  Rows: k a kprobe with '
                   'a post_handler, b without, r a kretprobe with its entry by trap, o and '
                   'ro jump-optimized, f and rf on ftrace, rs a kretprobe with 100 calls in '
                   'flight (per call).' % cover_steps_setup(cur, arches)) + ['']
    for arch in arches:
        name, path, cfgs = cur[arch]
        for cfg in sorted(cfgs, key=lambda c: (c != 'workbench', c)):
            pairs = step_pairs(cfgs[cfg])
            if not pairs:
                continue
            L += ['  %s, %s:' % (arch, STEP_CONFIG_WORDS.get(cfg, cfg))] + COVER_STEP_HEAD
            for a, b in pairs:
                cause, about = STEP_CAUSES.get(b['part'], ('', []))
                if not about:
                    continue
                head = cover_wrap('%02d %s against %02d %s: %s' % (
                    b['nn'], b['part'], a['nn'], a['part'], cause), 70)
                L += ['  ' + head[0]] + ['    ' + h for h in head[1:]]
                lines = cover_step_lines(a, b, about)
                L += lines or ['    (no result for its rows)']
            L += cover_step_shares(pairs)
            L.append('')
    return L[:-1] if L[-1] == '' else L


def cover_step_shares(pairs):
    """Per trap row (k, b, r), from the first measured step of a config to
    its last: the whole change, and the step that brings most of it."""
    if not pairs:
        return []
    first, last = pairs[0][0], pairs[-1][1]
    out = []
    for key in ('k', 'b', 'r'):
        ca, cb = first['cells'][key], last['cells'][key]
        if ca['insns'] is None or cb['insns'] is None:
            continue
        total = cb['insns'] - ca['insns']
        steps = []
        for a, b in pairs:
            d = step_delta(step_base(a, b, key)['cells'][key], b['cells'][key])
            if d is not None:
                steps.append((d[0], b))
        if not steps or abs(total) < STEP_SAME:
            continue
        d, b = min(steps, key=lambda x: x[0]) if total < 0 else max(steps, key=lambda x: x[0])
        out += cover_wrap('%s from %02d to %02d: %.0f -> %.0f (%+.0f), of which %02d %s '
                          'brings %+.0f.' % (key, first['nn'], last['nn'], ca['insns'],
                                             cb['insns'], total, b['nn'], b['part'], d), 68)
    return ['  All the steps, per trap row:'] + ['    ' + l for l in out] if out else []


# --part PART of cover --fill: the part whose message is filled
# (@@STEP@@: what the step of that part measured).
COVER_PART = [None]


def cover_step(results):
    """@@STEP@@ of the message of part COVER_PART: what the kernel of
    that part measured against the one of the step before it, per arch
    and config of the newest bench-steps run of each arch."""
    part = COVER_PART[0]
    cur = steps_current(steps_runs(results))
    L = []
    for arch in cover_order(cur):
        name, path, cfgs = cur[arch]
        for cfg in sorted(cfgs, key=lambda c: (c != 'workbench', c)):
            for a, b in step_pairs(cfgs[cfg]):
                if b['part'] != part:
                    continue
                rows, walls = [], []
                for key in STEP_CAUSES.get(part, ('', []))[1]:
                    base = step_base(a, b, key)
                    ca, cb = base['cells'][key], b['cells'][key]
                    d = step_delta(ca, cb)
                    m = re.search(r'(\d+) of (\d+) missed', ca['why'] or '')
                    if d is None and m and cb['insns'] is not None:
                        rows.append('%s misses %s of %s returns before this patch (the default '
                                    'maxactive) and none with it, at %.0f guest instructions '
                                    'per call' % (STEP_ROW_WORDS[key].replace(' (per call)', ''),
                                                  m.group(1), m.group(2), cb['insns']))
                        continue
                    if d is None:
                        continue
                    before = 'before this patch' if base is a else (
                        'in the kernel of patch %d (%s), the last one before this '
                        'to have it,' % (base['nn'], STEP_CAUSES.get(
                            base['part'], ('"%s"' % base.get('subject', '?'), []))[0]))
                    rows.append('%s runs %.0f guest instructions per hit %s and %.0f '
                                'with it%s' % (
                                    STEP_ROW_WORDS[key], ca['insns'], before, cb['insns'],
                                    ' (unchanged)' if abs(d[0]) < STEP_SAME else ''))
                    if ca['norm'] is not None and cb['norm'] is not None:
                        walls.append('%.1f and %.1f' % (ca['norm'], cb['norm']))
                if not rows:
                    continue
                qemu, calls, nw = set(), set(), set()
                for st in (a, b):
                    for m in glob.glob(os.path.join(st['dir'], '*.meta')):
                        v = re.search(r'QEMU emulator version (\S+)',
                                      dict(read_meta(m)).get('qemu', ''))
                        if v:
                            qemu.add(v.group(1))
                    ic = parse(os.path.join(st['dir'], 'ours-%s-icount.log' % arch))
                    if ic and ic.get('none', {}).get('iters'):
                        calls.add(int(ic['none']['iters']))
                    nw.add(st['cells']['none']['walls'])
                said = ('Measured on %s, %s, against the kernel of the patch before, with '
                        'the benchmark module this series adds (samples/kprobes/'
                        'kprobe_bench_main.c) under QEMU %s (TCG, one vCPU, -icount '
                        'shift=0, %s calls per row): %s.' % (
                            arch, STEP_CONFIG_WORDS.get(cfg, cfg), ', '.join(sorted(qemu)),
                            ', '.join('{:,}'.format(c) for c in sorted(calls)),
                            '; '.join(rows)))
                if walls:
                    said += ('  In TCG wall time a hit costs %s times an unprobed call '
                             '(median of %s boot%s each).' % (
                                 '; '.join(walls), ' or '.join(cover_count(w) for w in sorted(nw)),
                                 '' if nw == {1} else 's'))
                said += '  (Run %s of the project\'s make bench-steps.)' % cover_run_name(name)
                L += cover_wrap(said) + ['']
    if not L:
        return cover_wrap('Not measured: no stored bench-steps run has the kernel of '
                          'this patch and of the one before it.')
    return L[:-1]

COVER_BLOCKS = {'PERHIT': cover_perhit, 'CLOCKS': cover_clocks,
                'UNREGISTER': cover_unregister, 'LOSSES': cover_losses,
                'TEARDOWN': cover_teardown, 'ARCHES': cover_arches,
                'CAUSES': cover_causes, 'STEP': cover_step}


def cover_main(argv):
    """bench-report.py cover [--results DIR] [--fill FILE | --lint FILE]:
    print every block of the cover letter's figures; --fill: FILE with
    each placeholder line replaced by its block (exit 1 on an unknown
    placeholder); --lint: exit 1 when FILE has a figure outside its
    placeholders (COVER_ALLOW)."""
    results = os.path.join(HERE, 'results')
    fill = lint = None
    while argv:
        a = argv.pop(0)
        if a == '--results' and argv:
            results = argv.pop(0)
        elif a == '--fill' and argv:
            fill = argv.pop(0)
        elif a == '--lint' and argv:
            lint = argv.pop(0)
        elif a == '--part' and argv:
            COVER_PART[0] = argv.pop(0)
        else:
            print('usage: bench-report.py cover [--results DIR] [--part PART] '
                  '[--fill FILE | --lint FILE]',
                  file=sys.stderr)
            return 2
    if lint:
        bad = cover_lint(open(lint).read())
        for no, what in bad:
            print('%s:%d: %s: a figure belongs in a generated block (bench-report.py cover)'
                  % (lint, no, what))
        return 1 if bad else 0
    if fill:
        out, rc = [], 0
        for line in open(fill).read().splitlines():
            m = PLACEHOLDER.match(line.strip())
            if not m:
                out.append(line)
            elif m.group(1) in COVER_BLOCKS:
                out += COVER_BLOCKS[m.group(1)](results)
            else:
                print('%s: unknown placeholder %s' % (fill, line.strip()), file=sys.stderr)
                rc = 1
        print('\n'.join(out))
        return rc
    for name, fn in COVER_BLOCKS.items():
        print('@@%s@@' % name)
        print('\n'.join(fn(results)))
        print()
    return 0


def main():
    if sys.argv[1:2] == ['report']:
        return report_main(sys.argv[2:])
    if sys.argv[1:2] == ['cover']:
        return cover_main(sys.argv[2:])
    if sys.argv[1:2] == ['teardown'] and len(sys.argv) == 3:
        print('\n'.join(teardown_table(sys.argv[2])))
        return 0
    return table_main(sys.argv[1:])


if __name__ == '__main__':
    sys.exit(main())
