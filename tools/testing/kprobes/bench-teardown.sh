#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-teardown.sh: make bench-teardown.  The teardown series for the
# plain base (patches/teardown/) measured on both cores: for each arch of
# ARCHES (default "x86_64 arm64") three kernels, built with make check's
# config (build.sh):
#
#   upstream  plain 6.12.117
#   teardown  6.12.117 with the teardown series
#   ours      the rebuild, which sits on the teardown series
#
# each booted once with two CPUs (guest/bench.sh, kpb_part=teardown) to
# run the attach and detach rows of kp_attach (guest/kp_attach.c) with
# KP_TD_N probes (default 1000) on the functions of kprobe_bench.ko, for the
# ways of KP_TD_VIAS (default perf,events,trunc,multi):
#
#   perf    N perf_event_open() of the kprobe PMU, then close() of each:
#           detach_ns is what close() costs the tool, gone_ns the time
#           until the last kprobe left kprobes/list
#   events  N kprobe events, each enabled, then each disabled and
#           removed by a "-:" write of its own (perf probe -d)
#   trunc   N kprobe events removed by one O_TRUNC open of kprobe_events
#   multi   N kprobe events removed by one write of N "-:" lines
#
# Guest wall time under TCG (CLOCK_MONOTONIC), one boot per kernel.  The
# run is kept, to be committed: $KP_RESULTS/teardown/RUN/ (RUN: UTC
# start and arches) with each boot's console log and run.meta; at the
# end bench-report.py report rewrites results/REPORT.md, which shows the
# newest run's table.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
arches=${ARCHES:-x86_64 arm64}
n=${KP_TD_N:-1000}
vias=${KP_TD_VIAS:-perf,events,trunc,multi}
flavours="upstream teardown ours"
run=$(date -u +%Y-%m-%dT%H%MZ)-$(echo $arches | tr ' ' '-')
store=$KP_RESULTS/teardown/$run
mkdir -p "$store"
{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	kp_git_state
	echo "arches: $arches flavours: $flavours n: $n vias: $vias"
	echo "base: $(kp_base_used)"
	echo "boot: 2 CPUs, make check's config, guest wall time under TCG"
	echo "host: $(nproc) cpus, load at the start $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$store/run.meta"
export KP_BOOT_TIMEOUT=${KP_TD_TIMEOUT:-3600}
for arch in $arches; do
	for fl in $flavours; do
		"$KP_TOOLS/build.sh" "$fl" "$arch"
		log=$store/$fl-$arch.log
		kp_log "teardown bench: $fl $arch ($log)"
		KP_SMP=2 KP_APPEND="kpb_part=teardown kpb_attach=$n kpb_vias=$vias" \
			"$KP_TOOLS/boot.sh" "$fl" "$arch" bench "$log" > /dev/null || true
		grep '^BENCHRES row=attach' "$log" | sed "s/^/$fl $arch: /" || true
	done
done
echo "host: load at the end $(cut -d' ' -f1-3 /proc/loadavg)" >> "$store/run.meta"
python3 "$KP_TOOLS/bench-report.py" report --results "$KP_RESULTS" >&2 ||
	kp_log "the report was not regenerated"
python3 "$KP_TOOLS/bench-report.py" teardown "$store"
kp_log "results in $store: commit them with the report"
