#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# trace-hit.sh FLAVOUR ARCH [ROWS]: where one probe hit spends its
# instructions.  Boots the bench guest (one CPU, no KASLR) in its trace
# part: for each row of ROWS (comma-separated bench rows, default
# k,b,o,f,r,ro,rf) one unprobed call of the row's function and one call
# with the row's probe armed in its state, each under QEMU's
# per-instruction execution log, switched on and off through the QEMU
# monitor around that one call (trace-hit.py drive).  Then prints, per
# call, the instructions by function along the path and, per row, what
# the probe adds (trace-hit.py report).  Output in
# $KP_BUILD/trace/FLAVOUR-ARCH/ (the traces, console.log, report.txt).
# Not part of make check or make bench: a tool for reading the hit path,
# on both flavours alike (the guest drives the public API only).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
fl=${1:-ours}
arch=${2:-x86_64}
rows=${3:-k,b,o,f,r,ro,rf}
kp_check_flavour "$fl"
"$KP_TOOLS/build.sh" "$fl" "$arch"
obj=$(kp_obj "$fl" "$arch")
out=$KP_BUILD/trace/$fl-$arch
rm -rf "$out"
mkdir -p "$out"
sock=$out/monitor.sock
log=$out/console.log
: > "$log"
"$(kp_cross "$arch")nm" -n -S "$obj/vmlinux" > "$out/vmlinux.nm"
KP_SMP=1 KP_APPEND="nokaslr kpb_part=trace kpb_trace=$rows" \
	KP_QEMU_EXTRA="-icount shift=0 -monitor unix:$sock,server=on,wait=off" \
	KP_BOOT_TIMEOUT=${KP_TRACE_TIMEOUT:-1800} \
	"$KP_TOOLS/boot.sh" "$fl" "$arch" bench "$log" > /dev/null &
qemu=$!
python3 "$KP_TOOLS/trace-hit.py" drive "$log" "$sock" "$out" || true
wait $qemu || true
python3 "$KP_TOOLS/trace-hit.py" report "$out" "$out/vmlinux.nm" "$log" | tee "$out/report.txt"
