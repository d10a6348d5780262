#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bpftrace.sh FLAVOUR ARCH: boot the guest in bpftrace mode, with Debian's
# bpftrace (bpftrace-root.sh: fetched and packed once, then cached)
# appended to its initramfs, and print its "KPTEST name PASS|FAIL" lines
# with the run's verdicts (itest-results.sh: the guest started and
# reached its end, no kernel report on the console).  The scenario is
# guest/bpftrace.sh: bpftrace's kretprobe on inet_csk_accept() with more
# listeners asleep in accept() than a kretprobe's default pool holds.
# The guest has KP_BPFTRACE_MEM MiB (default 2048: the archive is some
# 200 MiB unpacked, and LLVM's work on top).  Exit 1 on any failure.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
fl=${1:-ours}
arch=${2:-x86_64}
kp_check_flavour "$fl"
log=$KP_BUILD/bpftrace-$fl-$arch.log
out=$KP_BUILD/bpftrace-$fl-$arch.results
rm -f "$log"
rc=0
extra=$("$KP_TOOLS/bpftrace-root.sh" "$arch") || rc=$?
if [ $rc = 0 ]; then
	set +e
	KP_INITRD_EXTRA=$extra KP_MEM=${KP_BPFTRACE_MEM:-2048} \
		KP_BOOT_TIMEOUT=${KP_BPFTRACE_TIMEOUT:-1200} \
		"$KP_TOOLS/boot.sh" "$fl" "$arch" bpftrace "$log"
	rc=$?
	set -e
fi
"$KP_TOOLS/itest-results.sh" "$log" "$rc" > "$out" || true
cat "$out"
! grep -q '^KPTEST [^ ]* FAIL' "$out"
