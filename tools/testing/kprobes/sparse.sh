#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sparse.sh ARCH: run sparse (C=2) over each of our C files that the ours
# kernel of ARCH builds; one "SPARSE <file> PASS|FAIL" line per file.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
arch=$1
obj=$(kp_obj ours "$arch")
cd "$KP_ROOT"
mapfile -t cfiles < <(git ls-files -- 'kernel/*.c' 'arch/*.c' 'lib/*.c' 'samples/kprobes/*.c' |
	while read -r f; do
		case $f in
		arch/x86/*) [ "$arch" = x86_64 ] || continue ;;
		arch/arm64/*) [ "$arch" = arm64 ] || continue ;;
		arch/*) continue ;;
		esac
		# only what this config builds
		[ -f "$obj/${f%.c}.o" ] && echo "$f"
	done)
for f in "${cfiles[@]}"; do
	log=$(kp_kmake ours "$arch" C=2 "${f%.c}.o" 2>&1)
	w=$(echo "$log" | grep -E "^[^ ]*${f##*/}:[0-9]+:[0-9]+: (warning|error)" || true)
	# No CHECK line: sparse did not run on the file, which proves nothing.
	echo "$log" | grep -qE "^ +CHECK +.*/$f\$" ||
		w="sparse did not check $f: $(echo "$log" | tail -n 2)"
	if [ -z "$w" ]; then
		echo "SPARSE $arch:$f PASS"
	else
		echo "$w" | head -10 | sed 's/^/  /'
		echo "SPARSE $arch:$f FAIL"
	fi
done
