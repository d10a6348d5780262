# SPDX-License-Identifier: GPL-2.0
# hot.py ROW.int NONE.int: the blocks QEMU entered outside a chain at least
# 1,000 times in a window of 2,000 calls (-d exec), with their count in the
# window without a probe and their slot in QEMU 7.2's per-vCPU jump cache
# (accel/tcg/tb-hash.h, tb_jmp_cache_hash_func(), 4,096 slots, 4 KiB
# target pages); then the slots that two of them share.
import collections, re, sys


def slot(pc):
    tmp = pc ^ (pc >> 6)
    return ((tmp >> 6) & (4096 - 64)) | (tmp & 63)


def count(path):
    c = collections.Counter()
    for line in open(path, errors='replace'):
        m = re.match(r'Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/([0-9a-f]+)/', line)
        if m:
            c[(int(m.group(1), 16), m.group(2))] += 1
    return c


row, none = count(sys.argv[1]), count(sys.argv[2])
hot = [(k, v) for k, v in sorted(row.items(), key=lambda kv: -kv[1]) if v >= 1000]
by_slot = collections.defaultdict(list)
print('pc                 flags     window  no-probe  slot')
for (pc, fl), v in hot:
    print('0x%x %s %6d %8d %5d' % (pc, fl, v, none.get((pc, fl), 0), slot(pc)))
    if v >= 1500:
        by_slot[slot(pc)].append('0x%x' % pc)
for s, pcs in sorted(by_slot.items()):
    if len(pcs) > 1:
        print('slot %d shared by %s' % (s, ' and '.join(pcs)))
