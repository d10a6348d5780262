#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# i386-kunit.sh [FLAVOUR] [FILTER]: build the i386 (ARCH=i386) KUnit kernel
# of a flavour (default ours) and run its KUnit suites (default kprobes*:
# the base's kprobes_test and ours but the x86_64- and arm64-only ones)
# under qemu-system-i386, TCG single-threaded.  Prints "KUNIT
# i386:<suite>.<case> PASS|FAIL|SKIP" lines; exit status 1 if any failed
# or none ran.
#
# The config is configs/i386.config (and configs/i386-FLAVOUR.config)
# given to allnoconfig: a small kernel
# with only what the suites need (no PCI, ACPI, networking...), which
# builds several times faster than the x86_64 workbench kernel.  No
# out-of-tree modules.  KP_BUILD and KP_JOBS as for the other scripts;
# KP_NICE (default 0) lowers the priority of the whole run.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
fl=${1:-ours}
filter=${2:-${KP_KUNIT_FILTER:-kprobes*}}
kp_check_flavour "$fl"
command -v qemu-system-i386 >/dev/null ||
	kp_die "no qemu-system-i386: apt-get install qemu-system-x86"
[ "${KP_NICE:-0}" = 0 ] || renice -n "$KP_NICE" $$ >/dev/null

"$KP_TOOLS/stage.sh" "$fl"
obj=$(kp_obj "$fl" i386)
mkdir -p "$obj"
# configs/i386.config, plus configs/i386-FLAVOUR.config (the suites of
# ours).  kunit.sh hands it to kunit.py exec, which only reads it.
frag=$KP_BUILD/kunitconfig-$fl-i386
cat "$KP_TOOLS/configs/i386.config" > "$frag.new"
[ -f "$KP_TOOLS/configs/i386-$fl.config" ] &&
	cat "$KP_TOOLS/configs/i386-$fl.config" >> "$frag.new"
cmp -s "$frag.new" "$frag" && rm -f "$frag.new" || mv "$frag.new" "$frag"

log=$KP_BUILD/build-$fl-i386.log
kp_log "building $fl i386 kernel in $obj (log: $log)"
start=$(date +%s)
kp_kmake "$fl" i386 KCONFIG_ALLCONFIG="$frag" allnoconfig > "$log" 2>&1 ||
	kp_die "allnoconfig failed: see $log"
missing=$(grep '^CONFIG_' "$frag" | grep -vxF -f "$obj/.config" || true)
[ -z "$missing" ] || kp_die "config options not set (dependencies?): $missing"
if ! kp_kmake "$fl" i386 >> "$log" 2>&1; then
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
