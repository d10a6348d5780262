# SPDX-License-Identifier: GPL-2.0
# Errnos of the public kprobes API for bad inputs (module kp_errno; the
# expected values are upstream 6.12's, and the table is in
# Documentation/trace/kprobes.rst).  Runs on both flavours, less the
# steps that oops upstream 6.12 (upstream_crashes=1 on ours only).
. /guest/lib.sh
if ours; then crash_steps=upstream_crashes=1; else crash_steps=; fi
if ! insmod $KP_MOD/kp_errno.ko $crash_steps; then
	fail errno.load
	return 0 2>/dev/null || exit 0
fi
# The module's own ftrace site, as ftrace lists it ("ADDR NAME [MOD]").
site=$(grep ' kp_errno_traced ' $KP_TR/available_filter_functions_addrs 2>/dev/null |
	head -n 1 | cut -d' ' -f1)
[ -n "$site" ] && echo "0x$site" > /sys/module/kp_errno/parameters/ftrace_site
out=$(cat /sys/kernel/debug/kp_errno/results)
echo "$out" | grep '^KPTEST '
# A skip is reported as a skip, never as a pass; no case at all fails.
echo "$out" | grep -q '^KPTEST errno\.' || fail errno.ran
check errno.unload rmmod kp_errno
