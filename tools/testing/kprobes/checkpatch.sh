#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch.sh [DIR]: export the series into DIR (default
# $KP_BUILD/series) and run checkpatch --strict over each patch, from
# the base's tree.  Prints
# "CHECK series.export PASS|FAIL" and "CHECKPATCH <patch> PASS|FAIL";
# exit status non-zero if any failed.  Part of make check; `make lint`
# runs it alone (seconds), as a gate before a commit.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
ser=${1:-$KP_BUILD/series}
rc=0
if ! "$KP_TOOLS/series.sh" "$ser" > /dev/null; then
	echo "CHECK series.export FAIL"
	exit 1
fi
echo "CHECK series.export PASS"
for p in "$ser"/0*.patch; do
	case $p in */0000-cover-letter.patch) continue ;; esac
	n=$(basename "$p" .patch)
	# FILE_PATH_CHANGES: MAINTAINERS is updated by its own patch.
	# Less the reports tools/testing/kprobes/checkpatch-allow accepts,
	# each for a stated reason.
	# Run from the base's tree, as a maintainer runs it (not --no-tree:
	# the tree checks, INCLUDE_LINUX and ARCH_INCLUDE_LINUX among them,
	# look at the headers the tree has).
	out=$(cd "$KP_BASE" && ./scripts/checkpatch.pl --strict --no-summary \
		--show-types --ignore FILE_PATH_CHANGES \
		-q "$p" 2>&1 | python3 "$KP_TOOLS/checkpatch-filter.py")
	if [ -z "$out" ]; then
		echo "CHECKPATCH $n PASS"
	else
		echo "$out" | head -30 | sed 's/^/  /'
		echo "CHECKPATCH $n FAIL"
		rc=1
	fi
done
exit $rc
