#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# no-upstream.sh [SRC [ROOT [LIST]]]: look at a staged `ours` tree (SRC,
# default build/src-ours) and check that no file of upstream's kprobes
# implementation survived: every path matching a glob of LIST (default
# tools/testing/kprobes/upstream-files) is absent, or is our file, with
# the same content as ROOT's (default: this repository's working tree)
# at that path.  Prints "CHECK staging.no-upstream-files PASS|FAIL".
set -uo pipefail
. "$(dirname "$0")/lib.sh"
src=${1:-$(kp_src ours)}
root=${2:-$KP_ROOT}
list=${3:-$KP_TOOLS/upstream-files}
name=staging.no-upstream-files
if [ ! -f "$src/.kp-staged" ]; then
	echo "CHECK $name FAIL (no staged tree in $src)"
	exit 1
fi
mapfile -t globs < <(grep -v '^#' "$list" | grep .)
if [ ${#globs[@]} = 0 ]; then
	echo "CHECK $name FAIL (no globs in $list)"
	exit 1
fi
bad=()
ours=0
for f in "${globs[@]}"; do
	for g in "$src"/$f; do
		[ -e "$g" ] || continue
		while read -r p; do
			rel=${p#"$src"/}
			if [ -f "$root/$rel" ] && cmp -s "$p" "$root/$rel"; then
				ours=$((ours + 1))
			else
				bad+=("$rel")
			fi
		done < <(find "$g" -type f)
	done
done
if [ ${#bad[@]} = 0 ]; then
	echo "CHECK $name PASS ($ours files there are ours)"
	exit 0
fi
for b in "${bad[@]:0:10}"; do
	if [ -f "$root/$b" ]; then
		echo "  $b: differs from ours"
	else
		echo "  $b: not ours (upstream's, or a stray file)"
	fi
done
echo "CHECK $name FAIL (${#bad[@]} files of upstream-files in $src are not ours)"
exit 1
