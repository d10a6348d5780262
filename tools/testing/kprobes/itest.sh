#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# itest.sh FLAVOUR ARCH: boot the guest in test mode and print its
# "KPTEST name PASS|FAIL|SKIP" lines.  KPTEST guest.kernel-clean passes
# only when the guest booted, ran its tests to the end marker, and the
# console shows no kernel report (the patterns of kernel-reports: oops,
# WARN, lockdep, KASAN, RCU stalls, hung tasks...).  Exit 1 on any failure.
# The log is removed before the boot: when QEMU never starts (no kernel,
# initramfs.sh failed) there is none, and KPTEST run.boot FAILs, rather
# than the previous run's log being read as this one.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
fl=${1:-ours}
arch=${2:-x86_64}
log=$KP_BUILD/itest-$fl-$arch.log
rm -f "$log"
set +e
"$KP_TOOLS/boot.sh" "$fl" "$arch" test "$log"
rc=$?
set -e
out=$KP_BUILD/itest-$fl-$arch.results
"$KP_TOOLS/itest-results.sh" "$log" "$rc" > "$out" || true
cat "$out"
! grep -q '^KPTEST [^ ]* FAIL' "$out"
