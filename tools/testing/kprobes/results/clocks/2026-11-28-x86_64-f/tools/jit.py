import re,sys
rows=[l.split()[-1] for l in open(sys.argv[1]+'/console.log',errors='replace') if 'CLKMARK start' in l]
t=open(sys.argv[1]+'/monitor.txt',errors='replace').read()
blocks=t.split('Translation buffer state:')[1:]
def g(b,k):
    m=re.search(k+r'\s+(\d+)',b); return int(m.group(1)) if m else -1
keys=['TB count','TB flush count','TB invalidate count','TLB full flushes','TLB partial flushes']
for i,r in enumerate(rows):
    a,b=blocks[2*i],blocks[2*i+1]
    print(r, ' '.join('%s:+%d'%(k.replace(' ',''),g(b,k)-g(a,k)) for k in keys))
