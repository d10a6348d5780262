import re,sys,glob,statistics as st
def load(f):
    r={}
    for l in open(f,errors='replace'):
        m=re.search(r'CLKRES row=(\S+) (.*)',l)
        if m: r[m.group(1)]={k:int(v) for k,v in re.findall(r'(\w+)=(\d+)',m.group(2))}
    return r
def ph(r,k): return (r[k]['ns']-r['none']['ns'])/r[k]['iters']
rows=['k','b','f','rf']
ic={fl:load('r-%s-ic.txt'%fl) for fl in ('ours','upstream')}
print('| row | ours insns | upstream insns | insns ours/upstream | ours wall ns (median of 3) | upstream wall ns | ours wall, calls | upstream wall, calls | wall ours/upstream (normalized) |')
print('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
for k in rows:
    oi,ui=ph(ic['ours'],k),ph(ic['upstream'],k)
    w={fl:[load(f) for f in sorted(glob.glob('r-%s-[123].txt'%fl))] for fl in ('ours','upstream')}
    on=[ph(r,k) for r in w['ours']]; un=[ph(r,k) for r in w['upstream']]
    onn=[ph(r,k)/(r['none']['ns']/r['none']['iters']) for r in w['ours']]; unn=[ph(r,k)/(r['none']['ns']/r['none']['iters']) for r in w['upstream']]
    print('| %s | %.0f | %.0f | %.2f | %.0f [%.0f-%.0f] | %.0f [%.0f-%.0f] | %.1f | %.1f | %.2f |'%(k,oi,ui,oi/ui,st.median(on),min(on),max(on),st.median(un),min(un),max(un),st.median(onn),st.median(unn),st.median(onn)/st.median(unn)))
for fl in ('ours','upstream'):
    print(fl,'unprobed call ns:',[round(r['none']['ns']/r['none']['iters'],1) for r in [load(f) for f in sorted(glob.glob('r-%s-[123].txt'%fl))]], 'insns', ic[fl]['none']['ns']/20000)
