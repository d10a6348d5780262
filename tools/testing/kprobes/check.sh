#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check.sh: the test command (make check).  For each architecture of
# ARCHES and the flavour FLAVOUR: build, KUnit, guest integration tests;
# for `ours` also checkpatch --strict over the exported series and sparse
# over our C files.  Every check prints "<KIND> <name> PASS|FAIL"; the run
# ends with "N passed, N failed" and exits non-zero on any failure.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
fl=${FLAVOUR:-ours}
arches=${ARCHES:-x86_64 arm64}
kp_check_flavour "$fl"
res=$KP_BUILD/check-$fl.results
mkdir -p "$KP_BUILD"
: > "$res"
say() { echo "$*" | tee -a "$res"; }
t0=$(date +%s)

if ! "$KP_TOOLS/deps.sh"; then
	say "CHECK deps FAIL"
else
	say "CHECK deps PASS"
fi

for arch in $arches; do
	kp_log "=== $fl $arch"
	if "$KP_TOOLS/build.sh" "$fl" "$arch"; then
		say "CHECK build.$fl.$arch PASS"
	else
		say "CHECK build.$fl.$arch FAIL"
		continue
	fi
	if [ "$fl" = ours ]; then
		say "CHECK staging.no-upstream-files.$arch PASS"
	fi
	"$KP_TOOLS/kunit.sh" "$fl" "$arch" | sed "s/^KUNIT /KUNIT $arch:/" | tee -a "$res"
	"$KP_TOOLS/itest.sh" "$fl" "$arch" | sed "s/^KPTEST /KPTEST $arch:/" | tee -a "$res"
	if [ "$fl" = ours ]; then
		"$KP_TOOLS/sparse.sh" "$arch" | tee -a "$res"
	fi
	# Other configurations (configmatrix.sh says which, per arch, and
	# why); KP_MATRIX=none skips them.
	if [ "${KP_MATRIX:-}" != none ]; then
		"$KP_TOOLS/configmatrix.sh" "$fl" "$arch" | tee -a "$res"
	fi
	kp_log "$fl $arch done at +$(( $(date +%s) - t0 ))s"
done

if [ "$fl" = ours ]; then
	ser=$KP_BUILD/series
	if "$KP_TOOLS/series.sh" "$ser" > /dev/null; then
		say "CHECK series.export PASS"
		for p in "$ser"/0*.patch; do
			case $p in */0000-cover-letter.patch) continue ;; esac
			n=$(basename "$p" .patch)
			# FILE_PATH_CHANGES: MAINTAINERS is updated by its own patch.
			# Less the reports tools/testing/kprobes/checkpatch-allow
			# accepts, each for a stated reason.
			out=$("$KP_BASE/scripts/checkpatch.pl" --strict --no-tree --no-summary \
				--show-types --ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG \
				-q "$p" 2>&1 | python3 "$KP_TOOLS/checkpatch-filter.py")
			if [ -z "$out" ]; then
				say "CHECKPATCH $n PASS"
			else
				echo "$out" | head -30 | sed 's/^/  /'
				say "CHECKPATCH $n FAIL"
			fi
		done
	else
		say "CHECK series.export FAIL"
	fi
	# Documentation: kernel-doc of our files, Documentation/trace build.
	docs=$("$KP_TOOLS/docs.sh" 2>&1)
	echo "$docs" | grep '^DOCS ' | tee -a "$res"
	echo "$docs" | grep -q '^DOCS htmldocs' ||
		say "DOCS run FAIL ($(echo "$docs" | tail -n 1))"
	"$KP_TOOLS/bench.sh" --smoke 2>/dev/null | grep '^BENCH ' | tee -a "$res" || true
fi

pass=$(grep -c ' PASS' "$res")
failn=$(grep -c ' FAIL' "$res")
echo
grep ' FAIL' "$res" | sed 's/^/failed: /'
kp_log "check of $fl (${arches}) took $(( $(date +%s) - t0 ))s"
echo "$pass passed, $failn failed"
[ "$failn" = 0 ] && [ "$pass" -gt 0 ]
