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
        ('k', 'kprobe with post_handler'),
        ('b', 'kprobe, boosted'),
        ('o', 'kprobe, optimized'),
        ('f', 'kprobe on ftrace'),
        ('r', 'kretprobe'),
        ('ro', 'kretprobe, optimized/ftrace entry'),
        ('j', 'jprobe')]


def parse(path):
    res = {}
    regs = []
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
        if kv.get('row') == 'reg':
            regs.append(kv)
        elif 'row' in kv:
            res[kv['row']] = kv
    if not res:
        return None
    res['reg'] = regs
    return res


def per_call(kv):
    if not kv or kv.get('na') or 'ns' not in kv or not kv.get('iters'):
        return None
    it = int(kv['iters'])
    return int(kv['ns']) / it if it else None


def main():
    out, smoke, arches = sys.argv[1], sys.argv[2] == '1', sys.argv[3:]
    flavours = ['ours'] if smoke else ['ours', 'upstream']
    data = {}
    ok = True
    for arch in arches:
        for fl in flavours:
            ic = parse(os.path.join(out, '%s-%s-icount.log' % (fl, arch)))
            walls = [parse(p) for p in sorted(glob.glob(
                os.path.join(out, '%s-%s-wall*.log' % (fl, arch))))]
            walls = [w for w in walls if w]
            if ic is None:
                ok = False
                print('BENCH %s.%s.parse FAIL' % (arch, fl))
                continue
            if smoke:
                good = per_call(ic.get('none')) is not None and ic['reg']
                print('BENCH smoke.%s.%s %s' % (arch, fl, 'PASS' if good else 'FAIL'))
                ok = ok and bool(good)
            data[(arch, fl)] = (ic, walls)
    if smoke:
        return 0 if ok else 1
    table = []
    lines = []
    for arch in arches:
        lines.append('')
        lines.append('%s: guest instructions per call (-icount), ns per call (TCG wall clock, median [min-max])' % arch)
        lines.append('%-36s %12s %12s %7s  %22s %22s' % ('row', 'ours insns', 'upstr insns', 'ratio', 'ours ns', 'upstream ns'))
        for key, title in ROWS:
            cells = {}
            for fl in ('ours', 'upstream'):
                ic, walls = data.get((arch, fl), (None, []))
                insns = per_call(ic.get(key)) if ic else None
                ws = [per_call(w.get(key)) for w in walls]
                ws = [w for w in ws if w is not None]
                cells[fl] = (insns, ws, (ic or {}).get(key, {}).get('flags', ''))
            oi, ui = cells['ours'][0], cells['upstream'][0]
            ratio = (oi / ui) if oi and ui else None

            def fmt_ns(ws):
                if not ws:
                    return 'n/a'
                return '%.0f [%.0f-%.0f]' % (statistics.median(ws), min(ws), max(ws))
            lines.append('%-36s %12s %12s %7s  %22s %22s' % (
                key + ' ' + title,
                '%.0f' % oi if oi else 'n/a', '%.0f' % ui if ui else 'n/a',
                '%.2f' % ratio if ratio else '-',
                fmt_ns(cells['ours'][1]), fmt_ns(cells['upstream'][1])))
            table.append({'arch': arch, 'row': key, 'what': title,
                          'ours_insns': oi, 'upstream_insns': ui, 'ratio': ratio,
                          'ours_ns': cells['ours'][1], 'upstream_ns': cells['upstream'][1],
                          'ours_flags': cells['ours'][2], 'upstream_flags': cells['upstream'][2]})
        # kretprobe throughput and registration
        for fl in ('ours', 'upstream'):
            ic, _ = data.get((arch, fl), (None, []))
            if not ic:
                continue
            mt = ic.get('mt')
            if mt and 'ns' in mt:
                n = int(mt['iters']) * int(mt['cpus'])
                lines.append('%s %s: kretprobe, every CPU at once: %.0f insns per call (%s calls on %s CPUs)'
                             % (arch, fl, int(mt['ns']) / n, n, mt['cpus']))
                table.append({'arch': arch, 'row': 'mt', 'flavour': fl,
                              'insns_per_call': int(mt['ns']) / n})
            for r in ic['reg']:
                lines.append('%s %s: register %s probes (%s): %s insns, unregister: %s insns, ret=%s'
                             % (arch, fl, r.get('n'), r.get('mode'), r.get('reg_ns'),
                                r.get('unreg_ns'), r.get('ret')))
                table.append({'arch': arch, 'row': 'reg', 'flavour': fl, 'n': int(r.get('n', 0)),
                              'mode': r.get('mode'), 'reg_insns': int(r.get('reg_ns', 0)),
                              'unreg_insns': int(r.get('unreg_ns', 0)), 'ret': r.get('ret')})
    print('\n'.join(lines))
    json.dump(table, open(os.path.join(out, 'results.json'), 'w'), indent=1)
    with open(os.path.join(out, 'results.csv'), 'w') as f:
        f.write('arch,row,ours_insns,upstream_insns,ratio\n')
        for t in table:
            if 'ours_insns' in t:
                f.write('%s,%s,%s,%s,%s\n' % (t['arch'], t['row'], t['ours_insns'],
                                             t['upstream_insns'], t['ratio']))
    print('\nwrote %s/results.json and results.csv' % out)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
