#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# stress.sh (make stress): the long stress runs, for FLAVOUR (ours,
# upstream or both) and ARCHES.  Each boots the guest in stress mode
# (guest/stress.sh: concurrency, lifetimes, detach under load, then a
# kprobe on every function registration accepts, under a workload), prints its KPTEST
# verdicts, the accepted and refused counts by errno side by side, and
# fails on any kernel report.  KP_DEBUG=1 (make stress DEBUG=1) does it
# all on the debug flavour of the build (configs/debug.config: KASAN,
# lockdep, kmemleak...), in $KP_BUILD/debug, and runs the KUnit suites
# there first.  The results and the consoles are kept in
# $KP_RESULTS/stress/RUN/ (RUN: UTC start, arches, -debug) with run.meta,
# to be committed; bench-report.py report adds them to results/REPORT.md.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
arches=${ARCHES:-x86_64 arm64}
flavours=${FLAVOUR:-ours}
[ "$flavours" = both ] && flavours="ours upstream"
res=$KP_BUILD/stress.results
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
run=$(date -u +%Y-%m-%dT%H%MZ)-$(echo $arches | tr ' ' '-')
[ "${KP_DEBUG:-0}" = 1 ] && run=$run-debug
mkdir -p "$KP_BUILD"
: > "$res"
# Under the debug flavour a probed function costs tens of times more
# per hit (KASAN, lockdep, the handlers' own checks), and a probe on
# every function leaves the guest with little time for anything else:
# the every-function phase takes every KP_STRESS_DEBUG_STRIDE-th
# function there (10 by default; kpstress_stride= in KP_APPEND wins).
# The plain flavour tries them all.
if [ "${KP_DEBUG:-0}" = 1 ]; then
	case " ${KP_APPEND:-} " in
	*" kpstress_stride="*) ;;
	*) export KP_APPEND="${KP_APPEND:+$KP_APPEND }kpstress_stride=${KP_STRESS_DEBUG_STRIDE:-10}" ;;
	esac
fi
for arch in $arches; do
	for fl in $flavours; do
		"$KP_TOOLS/build.sh" "$fl" "$arch" || { echo "KPTEST $arch.$fl:build FAIL" >> "$res"; continue; }
		if [ "${KP_DEBUG:-0}" = 1 ] && [ "$fl" = ours ]; then
			KP_KUNIT_TIMEOUT=${KP_KUNIT_TIMEOUT:-2400} "$KP_TOOLS/kunit.sh" "$fl" "$arch" |
				sed "s/^KUNIT \([^ ]*\) \(PASS\|FAIL\|SKIP\)/KPTEST $arch.$fl:kunit.\1 \2/" >> "$res"
		fi
		# no log after the boot: QEMU never started (not the last run's log)
		log=$KP_BUILD/stress-$fl-$arch.log
		rm -f "$log"
		KP_BOOT_TIMEOUT=${KP_STRESS_TIMEOUT:-3000} "$KP_TOOLS/boot.sh" "$fl" "$arch" stress "$log"
		if [ ! -f "$log" ]; then
			echo "KPTEST $arch.$fl:boot FAIL (QEMU never started: no console log $log)" >> "$res"
			continue
		fi
		tr -d '\r' < "$log" | grep -a '^KPTEST ' | sed "s/^KPTEST /KPTEST $arch.$fl:/" >> "$res"
		tr -d '\r' < "$log" | grep -a '^KPSTRESS ' | sed "s/^KPSTRESS /KPSTRESS $arch.$fl /" >> "$res"
		grep -aq '^KPGUEST done' "$log" ||
			echo "KPTEST $arch.$fl:completed FAIL (no end marker: see $log)" >> "$res"
		if grep -aE "$KP_BAD_RE" "$log" > /dev/null; then
			grep -aE "$KP_BAD_RE" "$log" | head -5 | sed 's/^/  /'
			echo "KPTEST $arch.$fl:kernel-clean FAIL" >> "$res"
		else
			echo "KPTEST $arch.$fl:kernel-clean PASS" >> "$res"
		fi
	done
done
grep '^KPSTRESS' "$res"
echo
printf '%-8s %-9s %9s %9s  %s\n' arch flavour accepted hits refused-by-errno
for arch in $arches; do
	for fl in $flavours; do
		acc=$(awk -v k="$arch.$fl" '$2 == k && $3 == "after" && $4 == "accepted" { print $5 }' "$res")
		hits=$(awk -v k="$arch.$fl" '$2 == k && $3 == "after" && $4 == "accepted" { print $7 }' "$res")
		ref=$(awk -v k="$arch.$fl" '$2 == k && $3 == "armed" && $4 == "errno" { printf "E%s:%s ", $5, $7 }' "$res")
		printf '%-8s %-9s %9s %9s  %s\n' "$arch" "$fl" "${acc:--}" "${hits:--}" "${ref:--}"
	done
done
echo
grep '^KPTEST' "$res"
pass=$(grep -c '^KPTEST .* PASS' "$res")
failn=$(grep -c '^KPTEST .* FAIL' "$res")
echo "$pass passed, $failn failed"
# Keep the raw results (to be committed): the results file and every
# boot's console, with what the run ran on; then the report.
store=$KP_RESULTS/stress/$run
mkdir -p "$store"
{
	echo "date: $started"
	kp_git_state
	echo "arches: $arches flavours: $flavours debug: ${KP_DEBUG:-0}"
	echo "guest parameters: ${KP_APPEND:-none (the defaults of guest/stress.sh)}"
	echo "base: $(kp_base_used)"
	for arch in $arches; do
		case $arch in x86_64) q=qemu-system-x86_64 ;; *) q=qemu-system-aarch64 ;; esac
		echo "qemu $arch: $($q --version 2>/dev/null | head -n 1)"
	done
	echo "host: $(nproc) cpus, load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$store/run.meta"
sed "s|$KP_ROOT/||g" "$res" > "$store/stress.results"
for arch in $arches; do
	for fl in $flavours; do
		[ -f "$KP_BUILD/stress-$fl-$arch.log" ] && cp "$KP_BUILD/stress-$fl-$arch.log" "$store/"
	done
done
python3 "$KP_TOOLS/bench-report.py" report --results "$KP_RESULTS" >&2 ||
	kp_log "the report was not regenerated"
kp_log "raw results in $store: commit them with the report"
[ "$failn" = 0 ] && [ "$pass" -gt 0 ]
