#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# itest.sh FLAVOUR ARCH: boot the guest in test mode and print its
# "KPTEST name PASS|FAIL" lines; kernel reports (oops, WARN, lockdep,
# KASAN...) on the console count as failures.  Exit 1 on any failure.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
fl=${1:-ours}
arch=${2:-x86_64}
log=$KP_BUILD/itest-$fl-$arch.log
set +e
"$KP_TOOLS/boot.sh" "$fl" "$arch" test "$log"
rc=$?
set -e
out=$KP_BUILD/itest-$fl-$arch.results
tr -d '\r' < "$log" | grep -a '^KPTEST ' > "$out" || true
grep -aq '^KPGUEST done' "$log" ||
	echo "KPTEST guest.completed FAIL (no end marker, boot rc=$rc; see $log)" >> "$out"
bad=$KP_BAD_RE
if grep -aE "$bad" "$log" > /dev/null; then
	grep -aE "$bad" "$log" | head -5 | sed 's/^/KPTEST-KERNEL-REPORT /' >> "$out"
	echo "KPTEST guest.kernel-clean FAIL" >> "$out"
else
	echo "KPTEST guest.kernel-clean PASS" >> "$out"
fi
cat "$out"
! grep -q '^KPTEST .* FAIL' "$out"
