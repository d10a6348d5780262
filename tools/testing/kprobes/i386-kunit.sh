#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# i386-kunit.sh [FLAVOUR] [FILTER]: build the i386 (ARCH=i386) kernel of a
# flavour (default ours) and run its KUnit suites (default kprobes*: the
# base's kprobes_test and ours but the x86_64- and arm64-only ones) under
# qemu-system-i386, TCG single-threaded.  Prints "KUNIT i386:<suite>.<case>
# PASS|FAIL|SKIP" lines; exit status 1 if any failed or none ran.
#
# The config is common.config + i386.config (+ ours.config for ours,
# without jprobes, which i386 does not have), made the way kunit.py makes
# configs.  No out-of-tree modules are built.  KP_BUILD and KP_JOBS as for
# the other scripts; KP_NICE (default 0) lowers the build's priority.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
fl=${1:-ours}
filter=${2:-${KP_KUNIT_FILTER:-kprobes*}}
kp_check_flavour "$fl"
command -v qemu-system-i386 >/dev/null ||
	kp_die "no qemu-system-i386: apt-get install qemu-system-x86"

"$KP_TOOLS/stage.sh" "$fl"
src=$(kp_src "$fl")
obj=$(kp_obj "$fl" i386)
mkdir -p "$obj"
frag=$KP_BUILD/kunitconfig-$fl-i386
"$KP_TOOLS/fragment.sh" "$fl" i386 | grep -v 'JPROBES' > "$frag.new"
cmp -s "$frag.new" "$frag" || mv "$frag.new" "$frag"
rm -f "$frag.new"

log=$KP_BUILD/build-$fl-i386.log
kp_log "building $fl i386 kernel in $obj (log: $log)"
start=$(date +%s)
if ! (cd "$src" && nice -n "${KP_NICE:-0}" python3 tools/testing/kunit/kunit.py build \
	--build_dir="$obj" --kunitconfig="$frag" \
	--qemu_config="$KP_TOOLS/qemu/i386.py" --jobs="$KP_JOBS" \
	--make_options "CC=ccache gcc") > "$log" 2>&1; then
	grep -E 'error|Error|ERROR' "$log" | head -40 >&2 || true
	tail -20 "$log" >&2
	kp_die "kernel build failed: $fl i386"
fi
kp_log "built $fl i386 in $(( $(date +%s) - start ))s"

set +e
"$KP_TOOLS/kunit.sh" "$fl" i386 "$filter" | sed 's/^KUNIT /KUNIT i386:/'
rc=${PIPESTATUS[0]}
set -e
exit "$rc"
