#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# itest-results.sh LOG [BOOT_RC]: the KPTEST lines of a guest test boot's
# console log, then the run's own verdicts: KPTEST run.guest-started and
# run.guest-completed FAIL when the guest did not boot or did not reach
# its end marker, and KPTEST guest.kernel-clean, which passes only when
# the guest booted, reached its end marker and the console has no kernel
# report.  No LOG at all means QEMU never started (boot.sh removes the
# log before anything else): KPTEST run.boot FAILs, with the verdicts
# above.  Exit 1 if any line FAILs.  (itest.sh, and the self-test.)
set -uo pipefail
. "$(dirname "$0")/lib.sh"
log=$1
rc=${2:-?}
con=$log
if [ -f "$log" ]; then
	out=$(tr -d '\r' < "$log" | grep -a '^KPTEST ')
else
	out="KPTEST run.boot FAIL (QEMU never started, boot rc=$rc: no console log $log)"
	con=/dev/null
fi
started=1
completed=1
if ! grep -aq '^KPGUEST start' "$con"; then
	started=0
	out+=$'\n'"KPTEST run.guest-started FAIL (the guest never started its init, boot rc=$rc; see $log)"
fi
if ! grep -aq '^KPGUEST done' "$con"; then
	completed=0
	out+=$'\n'"KPTEST run.guest-completed FAIL (no end marker, boot rc=$rc; see $log)"
fi
reports=$(tr -d '\r' < "$con" | grep -aE "$KP_BAD_RE" | head -5)
if [ -n "$reports" ]; then
	out+=$'\n'$(echo "$reports" | sed 's/^/KPTEST-KERNEL-REPORT /')
	out+=$'\n'"KPTEST guest.kernel-clean FAIL (a kernel report on the console; see $log)"
elif [ $started = 0 ] || [ $completed = 0 ]; then
	out+=$'\n'"KPTEST guest.kernel-clean FAIL (the guest did not run its tests to the end)"
else
	out+=$'\n'"KPTEST guest.kernel-clean PASS"
fi
echo "$out" | grep .
# (a here-string: with pipefail, "echo | grep -q" fails when grep stops
# reading at its match before echo is done)
! grep -q '^KPTEST [^ ]* FAIL' <<< "$out"
