# SPDX-License-Identifier: GPL-2.0
# Errnos of the public kprobes API for bad inputs (module kp_errno; the
# expected values are upstream 6.12's, and the table is in
# Documentation/trace/kprobes.rst).  Runs unchanged on both flavours.
. /guest/lib.sh
if ! insmod $KP_MOD/kp_errno.ko; then
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
