#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh [--smoke]: make bench.  Builds the ours and upstream flavours
# with one config, boots each under QEMU and runs the guest side
# (guest/bench.sh, module samples/kprobes/kprobe_bench_main.c).  Two measures:
#   insns  guest instructions, with QEMU -icount shift=0 (1 ns of guest
#          time per instruction): deterministic, the headline;
#   ns     wall-clock nanoseconds under TCG: noisy, median of KP_BENCH_RUNS
#          boots with the spread.
# The per-hit rows run in one-CPU boots (-smp 1); throughput on every CPU
# and registration in a two-CPU boot.  A per-hit row counts only when the
# text at the probe is in the state the row names (guest/bench.sh) and
# the handlers saw every call with no miss.
#
# Each configuration of KP_BENCH_CONFIGS (default: both) is measured
# apart: "workbench" (the config of make check) and "defaults" (the
# kernel's defaults plus kprobes: configs/bench-defaults.config, built in
# $KP_BUILD/bench-defaults).
#
# The raw results are kept, to be committed: one directory per run,
# $KP_RESULTS/bench/RUN/ (KP_RESULTS default tools/testing/kprobes/results;
# RUN is the UTC start and the arches, e.g. 2026-11-26T1630Z-x86_64-arm64)
# with run.meta (date, git HEAD, knobs, host) and per configuration
# CONFIG/: every boot's console log and what it ran on (*.meta: base,
# config, QEMU, host load).  At the end bench-report.py report rewrites
# $KP_RESULTS/REPORT.md and README.md's per-hit table from all stored
# runs.  What is derived and not kept, in $KP_BUILD/bench/CONFIG/:
# raw.txt (every BENCHRES line of every boot, with its boot), the table
# (table.txt), results.json and results.csv.
# --smoke (used by make check): the ours flavour only, tiny sizes, one
# boot per arch, in $KP_BUILD/bench/smoke (nothing kept); proves the
# benchmark runs and its output parses: bench-report.py fails it unless
# its console shows no kernel report (kernel-reports), reaches the
# guest's end marker and has every per-hit row the arch has measured.
# Knobs: KP_BENCH_N (calls per per-hit row), KP_BENCH_RS (rounds of the
# row with 100 calls in flight), KP_BENCH_MT, KP_BENCH_REG
# (registration sizes, comma-separated), KP_BENCH_BUDGET (seconds of
# guest time a registration row may take, extrapolated: bigger sizes are
# skipped), KP_BENCH_ATTACH (attach/detach sizes, comma-separated),
# KP_BENCH_RUNS (wall-clock boots), KP_BENCH_FLAVOURS,
# KP_BENCH_CONFIGS, KP_BENCH_TIMEOUT (seconds per boot), KP_BENCH_PARTS
# (the boots: any of "hit multi wall", default all; a run without the
# multi boots is stored but the report takes its current tables from
# the newest run that has them all, and lists it in the history).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
smoke=0
[ "${1:-}" = --smoke ] && smoke=1
arches=${ARCHES:-x86_64}
runs=${KP_BENCH_RUNS:-3}
top=$KP_BUILD
results=$KP_RESULTS
run=$(date -u +%Y-%m-%dT%H%MZ)-$(echo $arches | tr ' ' '-')
if [ $smoke = 1 ]; then
	flavours=ours
	configs=workbench
	params="kpb_n=200 kpb_rs=2 kpb_reg=1,10 kpb_mt=100 kpb_attach=10"
	runs=0
else
	flavours=${KP_BENCH_FLAVOURS:-ours upstream}
	configs=${KP_BENCH_CONFIGS:-workbench defaults}
	params="kpb_n=${KP_BENCH_N:-20000} kpb_rs=${KP_BENCH_RS:-50} kpb_mt=${KP_BENCH_MT:-5000}"
	params="$params kpb_attach=${KP_BENCH_ATTACH:-100,1000}"
fi
parts=" ${KP_BENCH_PARTS:-hit multi wall} "
# Registration rows run in the -icount boot only (the table takes them
# from there); KP_BENCH_BUDGET bounds each (see guest/bench.sh).
reg="kpb_reg=${KP_BENCH_REG:-1,100,1000,10000} kpb_budget=${KP_BENCH_BUDGET:-20}"
[ $smoke = 1 ] && reg="kpb_reg=1,10"
# The guest's timeout: registration of thousands of probes is slow under TCG.
export KP_BOOT_TIMEOUT=${KP_BENCH_TIMEOUT:-3600}
# What the whole run measured: the tree, the knobs, the host.
run_meta() {
	{
		echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		kp_git_state
		echo "arches: $arches flavours: $flavours configs: $configs boots: $(echo $parts) wall boots: $runs"
		echo "guest parameters: $params $reg"
		echo "host: $(nproc) cpus, load at start $(cut -d' ' -f1-3 /proc/loadavg)"
	} > "$1/run.meta"
}
if [ $smoke = 0 ]; then
	mkdir -p "$results/bench/$run"
	run_meta "$results/bench/$run"
fi

for cfg in $configs; do
	(
	case $cfg in
	workbench) ;;
	defaults) export KP_CONFIG_SET=defaults KP_BUILD=$top/bench-defaults ;;
	*) kp_die "unknown bench config $cfg (workbench or defaults)" ;;
	esac
	out=$results/bench/$run/$cfg
	dest=$top/bench/$cfg
	[ $smoke = 1 ] && out=$top/bench/smoke dest=$out
	mkdir -p "$out" "$dest"
	for arch in $arches; do
		for fl in $flavours; do
			[ $smoke = 1 ] || "$KP_TOOLS/build.sh" "$fl" "$arch"
			rm -f "$out/$fl-$arch-"*.log "$out/$fl-$arch-"*.meta
			if [ $smoke = 1 ]; then
				kp_bench_boot "$fl" "$arch" "$cfg" "$out/$fl-$arch-icount.log" 2 \
					"-icount shift=0" "$params $reg"
				continue
			fi
			case $parts in *" hit "*)
				kp_bench_boot "$fl" "$arch" "$cfg" "$out/$fl-$arch-icount.log" 1 \
					"-icount shift=0" "$params kpb_part=hit" ;;
			esac
			case $parts in *" multi "*)
				kp_bench_boot "$fl" "$arch" "$cfg" "$out/$fl-$arch-multi.log" 2 \
					"-icount shift=0" "$params $reg kpb_part=multi" ;;
			esac
			case $parts in *" wall "*) ;; *) continue ;; esac
			for r in $(seq 1 "$runs"); do
				kp_bench_boot "$fl" "$arch" "$cfg" "$out/$fl-$arch-wall$r.log" 1 "" \
					"$params kpb_reg=none kpb_part=hit"
			done
		done
	done
	# Every result line of every boot, with the boot it came from.
	for l in "$out"/*.log; do
		tr -d '\r' < "$l" | grep -a 'BENCHRES ' | sed "s|^.*BENCHRES |$(basename "$l" .log) |"
	done > "$dest/raw.txt"
	if [ $smoke = 1 ]; then
		python3 "$KP_TOOLS/bench-report.py" "$out" "$smoke" $arches | tee "$out/table.txt"
	else
		python3 "$KP_TOOLS/bench-report.py" --dest "$dest" "$out" "$smoke" $arches | tee "$dest/table.txt"
	fi
	)
done
# The report and README's per-hit table, from every stored run.
if [ $smoke = 0 ]; then
	python3 "$KP_TOOLS/bench-report.py" report --results "$results"
	kp_log "raw results in $results/bench/$run: commit them with the report and README.md"
fi
