#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# summarize.py KPD.LOG: the KPD lines of decoder-diff.sh, with each
# sampled encoding disassembled (aarch64-linux-gnu-objdump) and the
# changes of class grouped by mnemonic.
import re, subprocess, sys, tempfile, struct, collections

def disasm(words):
    with tempfile.NamedTemporaryFile(suffix='.bin') as f:
        f.write(b''.join(struct.pack('<I', w) for w in words))
        f.flush()
        out = subprocess.run(['aarch64-linux-gnu-objdump', '-D', '-b', 'binary',
                              '-m', 'aarch64', f.name], capture_output=True,
                             text=True).stdout
    res = {}
    for line in out.splitlines():
        m = re.match(r'\s*([0-9a-f]+):\s+([0-9a-f]{8})\s+(\S+)\s*(.*)', line)
        if m:
            res[int(m.group(2), 16)] = (m.group(3), m.group(4))
    return res

rows = []
for line in open(sys.argv[1]):
    m = re.match(r'KPD (\w+) old=(\S+) (\S+) new=(\S+) (\S+) group=(\w+) count=(\d+) run=(\d+) mismatch=(\d+) bad=(\w+) ex=(\w*)', line)
    if not m:
        continue
    kind, oc, oh, nc, nh, group, count, run, mism, bad, ex = m.groups()
    b = bytes.fromhex(ex)
    words = [struct.unpack('<I', b[i:i + 4])[0] for i in range(0, len(b), 4)]
    rows.append((kind, oc, oh, nc, nh, int(count), int(run), int(mism), bad, words))
allw = sorted({w for r in rows for w in r[9]})
dis = disasm(allw)
summary = collections.defaultdict(lambda: [0, set(), []])
for kind, oc, oh, nc, nh, count, run, mism, bad, words in rows:
    if oc == nc:
        print(f'{kind}: both {oc}: {oh} -> {nh}: {count} encodings; handlers run {run}, disagreed {mism}' + (f' (first {bad})' if mism else ''))
        continue
    for w in words:
        mn = dis.get(w, ('?', ''))[0]
        s = summary[(kind, oc, oh, nc, nh, mn)]
        s[1].add(w)
        if len(s[2]) < 3:
            s[2].append(f'{w:08x} {" ".join(dis.get(w, ("?", ""))).strip()}')
    # the count spread over the sampled mnemonics
    for w in words:
        summary[(kind, oc, oh, nc, nh, dis.get(w, ('?', ''))[0])][0] += count / len(words)
for (kind, oc, oh, nc, nh, mn), (cnt, ws, exs) in sorted(summary.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][3], -kv[1][0])):
    print(f'{kind}: {oc} {oh} -> {nc} {nh}: {mn}: ~{int(cnt)} encodings; e.g. ' + '; '.join(exs))
