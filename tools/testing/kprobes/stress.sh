#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# stress.sh (make stress): the long stress runs, for FLAVOUR (ours,
# upstream or both) and ARCHES.  Each boots the guest in stress mode
# (guest/stress.sh: concurrency, lifetimes, then a kprobe on every
# function registration accepts, under a workload), prints its KPTEST
# verdicts, the accepted and refused counts by errno side by side, and
# fails on any kernel report.  KP_DEBUG=1 (make stress DEBUG=1) does it
# all on the debug flavour of the build (configs/debug.config: KASAN,
# lockdep, kmemleak...), in $KP_BUILD/debug, and runs the KUnit suites
# there first.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
arches=${ARCHES:-x86_64 arm64}
flavours=${FLAVOUR:-ours}
[ "$flavours" = both ] && flavours="ours upstream"
res=$KP_BUILD/stress.results
mkdir -p "$KP_BUILD"
: > "$res"
for arch in $arches; do
	for fl in $flavours; do
		"$KP_TOOLS/build.sh" "$fl" "$arch" || { echo "KPTEST $arch.$fl:build FAIL" >> "$res"; continue; }
		if [ "${KP_DEBUG:-0}" = 1 ] && [ "$fl" = ours ]; then
			KP_KUNIT_TIMEOUT=${KP_KUNIT_TIMEOUT:-2400} "$KP_TOOLS/kunit.sh" "$fl" "$arch" |
				sed "s/^KUNIT \([^ ]*\) \(PASS\|FAIL\|SKIP\)/KPTEST $arch.$fl:kunit.\1 \2/" >> "$res"
		fi
		log=$KP_BUILD/stress-$fl-$arch.log
		KP_BOOT_TIMEOUT=${KP_STRESS_TIMEOUT:-3000} "$KP_TOOLS/boot.sh" "$fl" "$arch" stress "$log"
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
[ "$failn" = 0 ] && [ "$pass" -gt 0 ]
