#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perfrun.sh FLAVOUR OUT N ROWS: one boot of run.sh (the f note's tools,
# CLK_TOOLS) with perf record sampling the QEMU process from the first
# CLKMARK for PERF_SECS seconds (default 20): where the emulator spends
# the host's time during the rows.
T=${CLK_TOOLS:?CLK_TOOLS: a copy of ../2026-11-28-x86_64-f/tools}
fl=$1 out=$2 n=$3 rows=$4
export CLK_BUILD=${CLK_BUILD:?CLK_BUILD: the build directory} CLK_WORK=${CLK_WORK:-/tmp/clk}
mkdir -p "$CLK_WORK"
( "$T/run.sh" "$fl" "$out" "$n" "$rows" "" > "$CLK_WORK/$fl-perf-res.txt" 2>&1 ) &
rp=$!
for i in $(seq 100); do
	pid=$(pgrep -n -f "qemu-system-x86_64.*initrd-$fl") && break
	sleep 0.2
done
while ! grep -q "CLKMARK start" "$out/console.log" 2>/dev/null; do sleep 0.2; done
perf record -F 999 -p "$pid" -o "$out/perf.data" -- sleep "${PERF_SECS:-20}" > /dev/null 2>&1
wait $rp
cat "$CLK_WORK/$fl-perf-res.txt"
perf report -i "$out/perf.data" --no-children --sort sym -F sample,sym --stdio 2>/dev/null |
	grep -E 'qht_lookup_custom|get_page_addr_code_hostp|qemu_ram_block_from_host|cpu_exec$'
perf report -i "$out/perf.data" --no-children --sort dso -F sample,dso --stdio 2>/dev/null |
	grep -E 'qemu-system|JIT'
