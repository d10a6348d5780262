import re,sys,glob,statistics as st
def load(pat):
    rs=[]
    for f in sorted(glob.glob(pat)):
        for l in open(f,errors='replace'):
            if 'CLKRES rep=' in l:
                rs.append({k:int(v) for k,v in re.findall(r'(\w+)=(\d+)',l.split('CLKRES')[1])})
    return rs
for name,pat in (('ours',sys.argv[1]),('upstream',sys.argv[2])):
    rs=load(pat); n=rs[0]['n']
    def ph(r,k,base): return (r[k]-r[base])/n
    out=[]
    for k,b in (('f_on','none_on'),('f_off','none_off')):
        v=[ph(r,k,b) for r in rs]; nv=[(r[k]-r[b])/r[b] for r in rs]
        out.append('%s: %.0f ns/hit median [min %.0f] (%.1fx unprobed call, median) '%(k,st.median(v),min(v),st.median(nv)))
    pv=[(r['pair_on']-r['pair_off'])/n for r in rs]
    out.append('cli/sti pair minus cli alone: %.1f ns median'%st.median(pv))
    print('%s (%d reps): '%(name,len(rs))+'; '.join(out))
