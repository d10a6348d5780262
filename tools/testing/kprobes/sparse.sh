#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sparse.sh ARCH: run sparse (C=2) over each of our C files that the ours
# kernel of ARCH builds.  One "SPARSE ARCH:<file> PASS|FAIL" line per C
# file (FAIL: make failed, sparse did not run, or sparse warned in any of
# our files while checking it), then one per header of ours that those
# files include (FAIL: sparse warned in it, whichever file included it).
# No C file of ours built (no .o: the kernel is not built, or elsewhere)
# is "SPARSE ARCH:files FAIL", exit 1: a check of nothing is no pass.
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
if [ ${#cfiles[@]} = 0 ]; then
	echo "SPARSE $arch:files FAIL (no C file of ours has its .o in $obj: nothing to check)"
	exit 1
fi
mapfile -t hfiles < <(git ls-files -- 'include/*.h' 'arch/*.h' 'kernel/*.h' 'lib/*.h' |
	while read -r f; do
		case $f in
		arch/x86/*) [ "$arch" = x86_64 ] || continue ;;
		arch/arm64/*) [ "$arch" = arm64 ] || continue ;;
		arch/*) continue ;;
		esac
		echo "$f"
	done)
# A diagnostic in one of our files: "<path>/<our file>:L:C: warning|error: ..."
ours_re=$(printf '%s\n' "${cfiles[@]}" "${hfiles[@]}" | sed 's/[.]/\\./g' | paste -sd '|')
diag_re="^([^ :]*/)?($ours_re):[0-9]+:[0-9]+: (warning|error)"
hwarn=$(mktemp)
trap 'rm -f "$hwarn"' EXIT
included=()
for f in "${cfiles[@]}"; do
	log=$(kp_kmake ours "$arch" C=2 "${f%.c}.o" 2>&1)
	rc=$?
	# Seen once (2026-11-25, arm64, lib/test_kprobes.c): make exited 0
	# without running sparse on the file, and did on the next call.  Ask
	# once more before calling it a failure; diagnostics are never
	# retried away (they come with a CHECK line).
	if [ $rc = 0 ] && ! grep -qE "^ +CHECK +.*/$f\$" <<< "$log"; then
		log=$(kp_kmake ours "$arch" C=2 "${f%.c}.o" 2>&1)
		rc=$?
	fi
	w=$(echo "$log" | grep -E "$diag_re" | sort -u || true)
	# No CHECK line: sparse did not run on the file, which proves nothing.
	if [ $rc != 0 ]; then
		w="make C=2 ${f%.c}.o failed (exit $rc): $(echo "$log" | tail -n 3)"$'\n'"$w"
	elif ! grep -qE "^ +CHECK +.*/$f\$" <<< "$log"; then
		w="sparse did not check $f: $(echo "$log" | tail -n 2)"$'\n'"$w"
	fi
	for h in "${hfiles[@]}"; do
		grep -qF "/$h" "$obj/$(dirname "$f")/.$(basename "${f%.c}").o.cmd" 2>/dev/null &&
			included+=("$h")
	done
	echo "$w" | grep -E "$diag_re" | grep -E '\.h:[0-9]+:' >> "$hwarn"
	w=$(echo "$w" | grep .)
	if [ -z "$w" ]; then
		echo "SPARSE $arch:$f PASS"
	else
		echo "$w" | head -10 | sed 's/^/  /'
		echo "SPARSE $arch:$f FAIL"
	fi
done
for h in $(printf '%s\n' "${included[@]}" | sort -u); do
	w=$(grep -E "^([^ :]*/)?${h//./\\.}:" "$hwarn" | sort -u)
	if [ -z "$w" ]; then
		echo "SPARSE $arch:$h PASS"
	else
		echo "$w" | head -10 | sed 's/^/  /'
		echo "SPARSE $arch:$h FAIL"
	fi
done
