#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the benchmark's guest logs into a table, JSON and CSV."""
import glob
import json
import os
import re
import statistics
import sys

ROWS = [('none', 'unprobed call (baseline)'),
        ('k', 'kprobe with post_handler (trap, stepped)'),
        ('b', 'kprobe, no post_handler (trap: boosted or stepped)'),
        ('o', 'kprobe, jump-optimized'),
        ('f', 'kprobe on ftrace'),
        ('r', 'kretprobe, trap entry'),
        ('ro', 'kretprobe, jump-optimized entry'),
        ('rf', 'kretprobe, ftrace entry'),
        ('j', 'jprobe')]


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


def per_hit(res, key):
    """Cost of one hit of row KEY: the row's call less the unprobed call
    of the same function (none, or none-nt for kpb_target_nt)."""
    if not res:
        return None
    kv = res.get(key)
    if key == 'none':
        return per_call(kv)
    c = per_call(kv)
    if c is None:
        return None
    base = per_call(res.get('none-nt' if kv.get('target') == 'nt' else 'none'))
    return None if base is None else c - base


def why_na(res, key):
    kv = (res or {}).get(key) or {}
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
    lines.append('%-44s %16s %16s %7s' % (title, show(o), show(u),
                                           '%.2f' % ratio if ratio else '-'))
    table.append({'arch': arch, 'row': key, 'what': title,
                  'ours': o, 'upstream': u, 'ratio': ratio})


def main():
    out, smoke, arches = sys.argv[1], sys.argv[2] == '1', sys.argv[3:]
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
                print('BENCH %s.%s.parse FAIL' % (arch, fl))
                continue
            if smoke:
                att = [r for r in ic['reg'] if r.get('row') == 'attach']
                good = (per_call(ic.get('none')) is not None and ic['reg'] and att and
                        all(r.get('ret') == '0' and r.get('done') == r.get('n') for r in att))
                print('BENCH smoke.%s.%s %s' % (arch, fl, 'PASS' if good else 'FAIL'))
                ok = ok and bool(good)
            data[(arch, fl)] = (ic, walls, multi)
    if smoke:
        return 0 if ok else 1
    table = []
    lines = meta_lines(out, arches, flavours)
    for arch in arches:
        lines.append('')
        lines.append('%s: guest instructions per hit (-icount, -smp 1; the unprobed call subtracted), '
                     'ns per hit (TCG wall clock, median [min-max])' % arch)
        lines.append('%-52s %12s %12s %7s  %22s %22s %7s' % ('row', 'ours insns', 'upstr insns', 'ratio',
                                                          'ours ns', 'upstream ns', 'ratio'))
        for key, title in ROWS:
            cells = {}
            for fl in ('ours', 'upstream'):
                ic, walls, _ = data.get((arch, fl), (None, [], None))
                insns = per_hit(ic, key)
                ws = [per_hit(w, key) for w in walls]
                ws = [w for w in ws if w is not None]
                kv = (ic or {}).get(key, {})
                cells[fl] = (insns, ws, kv.get('flags', ''), kv.get('state', ''),
                             why_na(ic, key))
            oi, ui = cells['ours'][0], cells['upstream'][0]
            ratio = (oi / ui) if oi is not None and ui else None

            def fmt_ns(ws):
                if not ws:
                    return 'n/a'
                return '%.0f [%.0f-%.0f]' % (statistics.median(ws), min(ws), max(ws))
            ow, uw = cells['ours'][1], cells['upstream'][1]
            ns_ratio = statistics.median(ow) / statistics.median(uw) if ow and uw and statistics.median(uw) else None
            lines.append('%-52s %12s %12s %7s  %22s %22s %7s' % (
                key + ' ' + title,
                '%.0f' % oi if oi is not None else cells['ours'][4],
                '%.0f' % ui if ui is not None else cells['upstream'][4],
                '%.2f' % ratio if ratio else '-',
                fmt_ns(ow), fmt_ns(uw), '%.2f' % ns_ratio if ns_ratio else '-'))
            table.append({'arch': arch, 'row': key, 'what': title,
                          'ours_insns': oi, 'upstream_insns': ui, 'ratio': ratio,
                          'ns_ratio': ns_ratio,
                          'ours_ns': cells['ours'][1], 'upstream_ns': cells['upstream'][1],
                          'ours_state': cells['ours'][3], 'upstream_state': cells['upstream'][3],
                          'ours_flags': cells['ours'][2], 'upstream_flags': cells['upstream'][2]})
        # kretprobe throughput, registration and optimization
        ics = {fl: data.get((arch, fl), (None, [], None))[2] or {} for fl in ('ours', 'upstream')}
        lines.append('')
        lines.append('%s: kretprobe throughput (insns per call, -smp 2), registration and optimization (guest ns under -icount)' % arch)
        lines.append('%-44s %16s %16s %7s' % ('row', 'ours', 'upstream', 'ratio'))

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
            for via, how in (('perf', 'perf_event_open, one by one'),
                             ('events', 'kprobe_events, one by one')):
                for what, key in (('attach', 'attach_ns'), ('detach', 'detach_ns')):
                    cells = {}
                    for fl in ics:
                        r = [x for x in ics[fl].get('reg', [])
                             if x.get('row') == 'attach' and x.get('via') == via and
                             x.get('n') == str(n)]
                        r = r[0] if r else None
                        if r and r.get('done') != r.get('n'):
                            r = dict(r, ret='incomplete')
                        cells[fl] = cell(r, key)
                    if any(v is not None for v in cells.values()):
                        add_row(lines, table, arch, '%s-%s-%d' % (what, via, n),
                                '%s %d (%s)' % (what, n, how), cells, '%.3g')
            cells = {}
            for fl in ics:
                r = [x for x in ics[fl].get('opt', []) if x.get('n') == str(n)]
                cells[fl] = cell(r[0] if r else None, 'opt_ns')
            add_row(lines, table, arch, 'opt-%d' % n,
                    'register %d, until all optimized' % n, cells, '%.3g')
    print('\n'.join(lines))
    json.dump(table, open(os.path.join(out, 'results.json'), 'w'), indent=1)
    with open(os.path.join(out, 'results.csv'), 'w') as f:
        f.write('arch,row,ours,upstream,ratio\n')
        for t in table:
            o = t.get('ours_insns', t.get('ours'))
            u = t.get('upstream_insns', t.get('upstream'))
            f.write('%s,%s,%s,%s,%s\n' % (t['arch'], t['row'], o, u, t['ratio']))
    print('\nwrote %s/results.json and results.csv' % out)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
