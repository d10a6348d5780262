#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh [--smoke]: make bench.  Builds the ours and upstream flavours
# with one config, boots each under QEMU and runs the guest side
# (guest/bench.sh, module bench/kp_bench.c).  Two measures:
#   insns  guest instructions, with QEMU -icount shift=0 (1 ns of guest
#          time per instruction): deterministic, the headline;
#   ns     wall-clock nanoseconds under TCG: noisy, median of KP_BENCH_RUNS
#          boots with the spread.
# Prints a table and writes $KP_BUILD/bench/results.json and .csv.
# --smoke (used by make check): the ours flavour only, tiny sizes, one
# boot per arch; proves the benchmark runs and its output parses.
# Knobs: KP_BENCH_N (calls per per-hit row), KP_BENCH_MT, KP_BENCH_REG
# (registration sizes, comma-separated), KP_BENCH_BUDGET (seconds of
# guest time a registration row may take, extrapolated: bigger sizes are
# skipped), KP_BENCH_RUNS (wall-clock boots), KP_BENCH_FLAVOURS,
# KP_BENCH_TIMEOUT (seconds per boot).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
smoke=0
[ "${1:-}" = --smoke ] && smoke=1
arches=${ARCHES:-x86_64}
runs=${KP_BENCH_RUNS:-3}
out=$KP_BUILD/bench
mkdir -p "$out"
if [ $smoke = 1 ]; then
	flavours=ours
	params="kpb_n=200 kpb_reg=1,10 kpb_mt=100"
	runs=0
else
	flavours=${KP_BENCH_FLAVOURS:-ours upstream}
	params="kpb_n=${KP_BENCH_N:-20000} kpb_mt=${KP_BENCH_MT:-5000}"
fi
# Registration rows run in the -icount boot only (the table takes them
# from there); KP_BENCH_BUDGET bounds each (see guest/bench.sh).
reg="kpb_reg=${KP_BENCH_REG:-1,100,1000,10000} kpb_budget=${KP_BENCH_BUDGET:-20}"
[ $smoke = 1 ] && reg="kpb_reg=1,10"
# The guest's timeout: registration of thousands of probes is slow under TCG.
export KP_BOOT_TIMEOUT=${KP_BENCH_TIMEOUT:-3600}
for arch in $arches; do
	for fl in $flavours; do
		[ $smoke = 1 ] || "$KP_TOOLS/build.sh" "$fl" "$arch"
		log=$out/$fl-$arch-icount.log
		KP_APPEND="$params $reg" KP_SMP=2 KP_QEMU_EXTRA="-icount shift=0" \
			"$KP_TOOLS/boot.sh" "$fl" "$arch" bench "$log" > /dev/null || true
		rm -f "$out/$fl-$arch-wall"*.log
		for r in $(seq 1 "$runs"); do
			KP_APPEND="$params kpb_reg=none" "$KP_TOOLS/boot.sh" "$fl" "$arch" bench \
				"$out/$fl-$arch-wall$r.log" > /dev/null || true
		done
	done
done
python3 "$KP_TOOLS/bench-report.py" "$out" "$smoke" $arches
