import re,sys,bisect,collections
nm=[]
for l in open(sys.argv[1]):
    p=l.split()
    if len(p)==3: nm.append((int(p[0],16),p[2]))
nm.sort(); addrs=[a for a,_ in nm]
def sym(a):
    i=bisect.bisect_right(addrs,a)-1
    if i<0 or a-addrs[i]>0x10000: return '?'
    return '%s+0x%x'%(nm[i][1],a-addrs[i])
def cnt(f):
    c=collections.Counter()
    for l in open(f):
        m=re.match(r'Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/([0-9a-f]+)/',l)
        if m: c[(int(m.group(1),16),m.group(2))]+=1
    return c
a=cnt(sys.argv[2]); b=cnt(sys.argv[3])
for k,v in sorted(b.items(), key=lambda kv:-kv[1]):
    d=v-a.get(k,0)
    if d>=1500: print('%6d %6d 0x%x %s flags=%s'%(d,v,k[0],sym(k[0]),k[1]))
