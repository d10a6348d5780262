# SPDX-License-Identifier: GPL-2.0
# Jump optimization and kprobes on ftrace, seen from user space: kprobe
# events on an ftrace site ([FTRACE]) and on an optimized site
# ([OPTIMIZED]) fire; debug.kprobes-optimization unoptimizes and
# optimizes again; the detour pages are in /proc/kallsyms.
. /guest/lib.sh
# Upstream 6.12 has no jump optimization on arm64 (no OPTPROBES, no
# sysctl): there it is ours only.
if [ "$KP_ARCH" = aarch64 ] && ! ours; then
	exit 0
fi
ev=$KP_TR/kprobe_events
sysctl=/proc/sys/debug/kprobes-optimization
check opt.sysctl-exists test -w $sysctl
check opt.sysctl-is-1 grep -qx 1 $sysctl

# An entry event goes through ftrace where the arch has kprobes on ftrace
# (x86_64; arm64 has none, upstream or ours).
if [ "$KP_ARCH" = x86_64 ]; then
	echo > $KP_TR/trace
	check opt.add-entry sh -c "echo 'p:kpo/entry vfs_read' >> $ev"
	echo 1 > $KP_TR/events/kpo/entry/enable
	dd if=/proc/version of=/dev/null 2>/dev/null
	echo 0 > $KP_TR/events/kpo/entry/enable
	check opt.list-ftrace sh -c "grep ' vfs_read+0x' $KP_DBG/list | grep -q '\[FTRACE\]'"
	check opt.entry-fires grep -q 'entry:' $KP_TR/trace
	echo '-:kpo/entry' >> $ev
fi

# Find an optimizable site: the first instruction boundaries after the
# entry of a few functions that reading a file runs, all probed at once
# (different functions cannot block each other).
offs=$(opt_offsets)
n=0
for fn in vfs_read ksys_read rw_verify_area __x64_sys_read __arm64_sys_read; do
	grep -q " $fn$" /proc/kallsyms || continue
	for off in $offs; do
		if echo "p:kpo/o$n $fn+$off" >> $ev 2>/dev/null; then
			n=$((n + 1))
			break
		fi
	done
done
check opt.candidates test "$n" -gt 0
echo 1 > $KP_TR/events/kpo/enable
optimized() { grep -c '\[OPTIMIZED\]' $KP_DBG/list; }
i=0
while [ "$(optimized)" = 0 ] && [ $i -lt 20 ]; do
	sleep 1
	i=$((i + 1))
done
cnt=$(optimized)
if [ "$cnt" -gt 0 ]; then pass opt.optimized; else fail opt.optimized "$(cat $KP_DBG/list)"; fi
check opt.kallsyms-optinsn grep -q ' kprobe_optinsn_page' /proc/kallsyms

# The optimized events fire: one line per read at least.
echo > $KP_TR/trace
dd if=/proc/version of=/dev/null 2>/dev/null
dd if=/proc/version of=/dev/null 2>/dev/null
check opt.events-fire sh -c "grep -q ' o[0-9]*:' $KP_TR/trace"

# The sysctl: 0 unoptimizes all of them at once, events still fire.
echo 0 > $sysctl
expect_eq opt.sysctl-0-unoptimizes "$(optimized)" 0
echo > $KP_TR/trace
dd if=/proc/version of=/dev/null 2>/dev/null
check opt.unoptimized-events-fire sh -c "grep -q ' o[0-9]*:' $KP_TR/trace"
echo 1 > $sysctl
i=0
while [ "$(optimized)" != "$cnt" ] && [ $i -lt 20 ]; do
	sleep 1
	i=$((i + 1))
done
expect_eq opt.sysctl-1-reoptimizes "$(optimized)" "$cnt"

echo 0 > $KP_TR/events/kpo/enable
check opt.remove sh -c "echo > $ev"
expect_eq opt.list-clean "$(grep -c '\[OPTIMIZED\]' $KP_DBG/list)" 0
