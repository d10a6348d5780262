#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""trace-hit.py: the two halves of trace-hit.sh.

  trace-hit.py drive CONSOLE_LOG MONITOR_SOCKET OUTDIR
      Follows the guest's console while it boots in the bench's trace
      part.  At each "KPBTRACE on" it points QEMU's log at
      OUTDIR/LABEL.trace and turns on one-instruction translation blocks
      and the per-block execution log ("log exec,nochain"); at "KPBTRACE
      off" it turns both off.  LABEL comes from the "BENCHTRACE label="
      line before.  Ends when QEMU closes its monitor or the console
      says the guest is done.

  trace-hit.py report OUTDIR NM_OUTPUT CONSOLE_LOG
      For each traced call: the instructions from the entry of
      kpb_trace_one() until the pc is back at its return address, each
      attributed to the function it lies in (vmlinux symbols with their
      sizes from `nm -n -S`, the module's and the kprobe slot and detour
      pages' from the guest's /proc/kallsyms, "KPBSYM" lines), printed
      as the path (consecutive instructions in one function merged) and
      as totals per function; then, for each probed row, what it adds to
      the unprobed call of the same function ("ROW-none").
"""
import bisect
import os
import re
import socket
import sys
import time

TRACE_RE = re.compile(r'Trace \d+: 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/')


def monitor(sock, cmd):
    sock.sendall((cmd + '\n').encode())
    # let QEMU act on it before the guest's timed window goes on
    time.sleep(0.05)


def drive(console, sockpath, outdir):
    deadline = time.time() + 120
    while not os.path.exists(sockpath) or not os.path.exists(console):
        if time.time() > deadline:
            sys.exit('trace-hit: QEMU did not start')
        time.sleep(0.1)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(sockpath)
    sock.setblocking(False)
    label = None
    pos = 0
    buf = ''
    while True:
        try:
            if sock.recv(65536) == b'':
                return
        except BlockingIOError:
            pass
        except OSError:
            return
        with open(console, 'rb') as f:
            f.seek(pos)
            data = f.read()
        pos += len(data)
        buf += data.decode('utf-8', 'replace').replace('\r', '')
        lines = buf.split('\n')
        buf = lines.pop()
        for line in lines:
            m = re.search(r'BENCHTRACE label=(\S+)$', line)
            if m:
                label = m.group(1)
            elif 'KPBTRACE on' in line and label:
                monitor(sock, 'logfile %s/%s.trace' % (outdir, label))
                monitor(sock, 'singlestep on')
                monitor(sock, 'log exec,nochain')
            elif 'KPBTRACE off' in line:
                monitor(sock, 'log none')
                monitor(sock, 'singlestep off')
            elif 'KPGUEST done' in line:
                return
        time.sleep(0.02)


class Symbols:
    def __init__(self):
        self.starts = []
        self.syms = []

    def add(self, addr, size, name):
        self.syms.append((addr, size, name))

    def done(self):
        self.syms.sort()
        self.starts = [s[0] for s in self.syms]

    def name(self, pc):
        i = bisect.bisect_right(self.starts, pc) - 1
        while i >= 0:
            addr, size, name = self.syms[i]
            if size and pc < addr + size:
                return name
            if not size and pc - addr < 4096:
                # the slot and detour pages: kallsyms gives no size
                return name
            if size:
                return '?%x' % pc
            i -= 1
        return '?%x' % pc


def load_symbols(nmfile, console):
    syms = Symbols()
    with open(nmfile) as f:
        for line in f:
            p = line.split()
            if len(p) == 4 and p[2].lower() in 'tw':
                syms.add(int(p[0], 16), int(p[1], 16), p[3])
            elif len(p) == 3 and p[1].lower() in 'tw':
                syms.add(int(p[0], 16), 0, p[2])
    seen = set()
    for line in open(console, errors='replace'):
        m = re.search(r'KPBSYM ([0-9a-f]+) (\S) (\S+)\s+\[(\S+)\]', line)
        if not m or m.group(1) in seen:
            continue
        seen.add(m.group(1))
        name = m.group(3)
        # the benchmark module (kp_bench in consoles older than its move
        # to samples/kprobes/)
        if m.group(4) not in ('kprobe_bench', 'kp_bench'):
            name = '[%s]' % name
        syms.add(int(m.group(1), 16), 0, name)
    syms.done()
    return syms


def call_window(console, label):
    """fn and ret of the traced call of label, from the console."""
    fn = ret = None
    cur = None
    for line in open(console, errors='replace'):
        line = line.replace('\r', '')
        m = re.search(r'BENCHTRACE label=(\S+)$', line)
        if m:
            cur = m.group(1)
            continue
        if cur != label:
            continue
        # the result of the trace command, on the label's "done" line
        # (older consoles: on the KPBTRACE markers themselves)
        m = re.search(r'(?:KPBTRACE on| done .*) fn=([0-9a-f]+)', line)
        if m:
            fn = int(m.group(1), 16)
        m = re.search(r'(?:KPBTRACE off| done .*) ret=([0-9a-f]+)', line)
        if m:
            ret = int(m.group(1), 16)
    return fn, ret


def path(tracefile, fn, ret):
    pcs = []
    started = False
    with open(tracefile, errors='replace') as f:
        for line in f:
            m = TRACE_RE.search(line)
            if not m:
                continue
            pc = int(m.group(1), 16)
            if not started:
                started = pc == fn
                if not started:
                    continue
            elif pc == ret:
                return pcs
            pcs.append(pc)
    return None


def report(outdir, nmfile, console):
    syms = load_symbols(nmfile, console)
    labels = sorted(f[:-6] for f in os.listdir(outdir) if f.endswith('.trace'))
    totals = {}
    for label in labels:
        fn, ret = call_window(console, label)
        pcs = path(os.path.join(outdir, label + '.trace'), fn, ret) if fn and ret else None
        if pcs is None:
            print('TRACE %s: no complete call in the log' % label)
            continue
        per = {}
        runs = []
        for pc in pcs:
            n = syms.name(pc)
            per[n] = per.get(n, 0) + 1
            if runs and runs[-1][0] == n:
                runs[-1][1] += 1
            else:
                runs.append([n, 1])
        totals[label] = per
        print('TRACE %s: %d instructions' % (label, len(pcs)))
        print('  path: ' + ' '.join('%s:%d' % (n, k) for n, k in runs))
        for n, k in sorted(per.items(), key=lambda x: -x[1]):
            print('  %6d  %s' % (k, n))
    for label in labels:
        if label.endswith('-none') or label + '-none' not in totals or label not in totals:
            continue
        a, b = totals[label], totals[label + '-none']
        print('ROW %s: %d instructions per hit (%d with the probe, %d without)' %
              (label, sum(a.values()) - sum(b.values()), sum(a.values()), sum(b.values())))
        for n in sorted(set(a) | set(b), key=lambda x: -(a.get(x, 0) - b.get(x, 0))):
            d = a.get(n, 0) - b.get(n, 0)
            if d:
                print('  %+6d  %s' % (d, n))


def main():
    if len(sys.argv) == 5 and sys.argv[1] == 'drive':
        drive(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) == 5 and sys.argv[1] == 'report':
        report(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
