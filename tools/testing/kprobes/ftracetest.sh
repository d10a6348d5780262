#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ftracetest.sh FLAVOUR ARCH: boot the guest in ftracetest mode, where the
# base's own ftracetest runs its kprobe selftests
# (tools/testing/selftests/ftrace/test.d/kprobe/*.tc, unchanged), and print
# one line per case:
#
#   FTRACE ARCH:kprobe/NAME.tc PASS|FAIL|UNSUPPORTED|UNRESOLVED
#
# then "FTRACE ARCH:kernel-clean PASS|FAIL" (no kernel report on the
# console).  A case of the staged tree with no result is a FAIL.  Exit 1
# on any FAIL or UNRESOLVED.  Whether an UNSUPPORTED case may skip on
# this architecture is the inventory's call (tools/testing/kprobes/
# inventory, FLAVOUR:ARCH:skip with the reason): one list, not two.  The
# log of each case that did not pass is in
# $KP_BUILD/ftracetest-FLAVOUR-ARCH.log (KPFTLOG lines).  That log is
# removed before the boot: when QEMU never starts (no kernel, initramfs.sh
# failed) "FTRACE ARCH:run.boot FAIL" says so, and every case FAILs,
# rather than the previous run's log being read as this one.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
fl=${1:-ours}
arch=${2:-x86_64}
kp_check_flavour "$fl"

log=$KP_BUILD/ftracetest-$fl-$arch.log
export KP_BOOT_TIMEOUT=${KP_FTRACE_TIMEOUT:-1800}
rm -f "$log"
set +e
"$KP_TOOLS/boot.sh" "$fl" "$arch" ftracetest "$log" > /dev/null
rc=$?
set -e
bad=0
con=$log
if [ ! -f "$log" ]; then
	echo "FTRACE $arch:run.boot FAIL (QEMU never started, boot rc=$rc: no console log $log)"
	bad=1
	con=/dev/null
fi
declare -A got=()
while read -r tag name res _; do
	got[$name]=$res
done < <(tr -d '\r' < "$con" | grep -a '^KPFTRACE kprobe/')
ft=$(kp_src "$fl")/tools/testing/selftests/ftrace/test.d
for t in "$ft"/kprobe/*.tc; do
	n=kprobe/${t##*/}
	r=${got[$n]:-}
	case $r in
	PASS) echo "FTRACE $arch:$n PASS" ;;
	UNSUPPORTED|UNTESTED)
		echo "FTRACE $arch:$n $r (see the inventory)" ;;
	UNRESOLVED)
		echo "FTRACE $arch:$n UNRESOLVED"
		bad=1 ;;
	'') echo "FTRACE $arch:$n FAIL (no result, boot rc=$rc; see $log)"; bad=1 ;;
	*) echo "FTRACE $arch:$n FAIL ($r)"; bad=1 ;;
	esac
done
if grep -aE "$KP_BAD_RE" "$con" > /dev/null; then
	grep -aE "$KP_BAD_RE" "$con" | head -5 | sed 's/^/FTRACE-KERNEL-REPORT /'
	echo "FTRACE $arch:kernel-clean FAIL"
	bad=1
elif ! grep -aq '^KPGUEST done' "$con"; then
	echo "FTRACE $arch:kernel-clean FAIL (the guest did not finish, rc=$rc)"
	bad=1
else
	echo "FTRACE $arch:kernel-clean PASS"
fi
exit $bad
