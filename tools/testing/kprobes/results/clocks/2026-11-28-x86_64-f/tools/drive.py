#!/usr/bin/env python3
# drive.py CONSOLE SOCK OUTDIR [LOGMASK]: at "CLKMARK start R": info jit, log LOGMASK into OUTDIR/R.int;
# at "CLKMARK end R": log none, info jit.  Monitor output in OUTDIR/monitor.txt
import os, re, socket, sys, time
console, sockpath, outdir = sys.argv[1:4]
mask = sys.argv[4] if len(sys.argv) > 4 else ''
dl = time.time() + 120
while not os.path.exists(sockpath):
    if time.time() > dl: sys.exit('no qemu')
    time.sleep(0.1)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(sockpath); s.setblocking(False)
mon = open(os.path.join(outdir, 'monitor.txt'), 'wb')
def cmd(c):
    mon.write(('\n### %s\n' % c).encode()); s.sendall((c + '\n').encode()); time.sleep(0.3); drain()
def drain():
    while True:
        try:
            d = s.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            return
        if not d: raise SystemExit
        mon.write(d)
pos = 0; buf = ''
while True:
    drain()
    try:
        with open(console, 'rb') as f:
            f.seek(pos); data = f.read()
    except FileNotFoundError:
        data = b''
    pos += len(data)
    buf += data.decode('utf-8', 'replace').replace('\r', '')
    lines = buf.split('\n'); buf = lines.pop()
    for l in lines:
        m = re.search(r'CLKMARK (start|end) (\S+)', l)
        if m and m.group(1) == 'start':
            cmd('info jit')
            if mask:
                cmd('logfile %s/%s.int' % (outdir, m.group(2)))
                cmd('log ' + mask)
        elif m:
            if mask: cmd('log none')
            cmd('info jit')
        if 'KPGUEST done' in l:
            mon.close(); sys.exit(0)
    time.sleep(0.02)
