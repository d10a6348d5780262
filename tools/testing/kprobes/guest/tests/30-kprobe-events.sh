# SPDX-License-Identifier: GPL-2.0
# kprobe events through tracefs (kernel/trace/trace_kprobe.c, unchanged):
# p: on a symbol with fetch arguments, p: at an offset, r: with $retval,
# r100: with a maxactive prefix, enable/disable and kprobe_profile.
. /guest/lib.sh
insmod $KP_MOD/kp_target.ko
ev=$KP_TR/kprobe_events
echo > $KP_TR/trace
check events.add-p sh -c "echo 'p:kpt/entry kp_target_func x=\$arg1:s32' >> $ev"
check events.add-r sh -c "echo 'r:kpt/ret kp_target_func ret=\$retval:s32' >> $ev"
check events.add-r100 sh -c "echo 'r100:kpt/ret100 kp_target_func' >> $ev"
check events.listed grep -q 'kpt/entry' $ev
echo 1 > $KP_TR/events/kpt/enable
kcall 3
echo 0 > $KP_TR/events/kpt/enable
check events.entry-args sh -c "grep 'entry:' $KP_TR/trace | grep -q 'x=2'"
check events.retval sh -c "grep 'ret:' $KP_TR/trace | grep -q 'ret=7'"
expect_eq events.entry-count "$(grep -c 'entry:' $KP_TR/trace)" 3
expect_eq events.ret-count "$(grep -c ' ret:' $KP_TR/trace)" 3
expect_eq events.ret100-count "$(grep -c 'ret100:' $KP_TR/trace)" 3
# kprobe_profile: "event  hits  misses"
expect_eq events.profile-hits "$(awk '$1=="entry"{print $2}' $KP_TR/kprobe_profile)" 3
# disabled events do not fire
echo > $KP_TR/trace
kcall 2
expect_eq events.disabled-silent "$(grep -c 'kpt' $KP_TR/trace)" 0
# an event at an offset inside the function: the first offset registration
# accepts (an instruction boundary after the entry) must fire on each call.
ok=
for off in 4 8 9 12 13 16; do
	if sh -c "echo 'p:kpt/off kp_target_func+$off' >> $ev" 2>/dev/null; then
		ok=$off
		break
	fi
done
if [ -n "$ok" ]; then
	pass events.add-offset
	echo > $KP_TR/trace
	echo 1 > $KP_TR/events/kpt/off/enable
	kcall 4
	echo 0 > $KP_TR/events/kpt/off/enable
	expect_eq events.offset-count "$(grep -c 'off:' $KP_TR/trace)" 4
else
	fail events.add-offset "no offset accepted"
fi
# As `perf probe -a vfs_read` writes it (from vmlinux, without debuginfo):
# _text plus the function's offset from it, in decimal.  It must land on
# the function and fire (issue 18.1: ours once refused any offset past
# the end of the symbol).
text=$(awk '$3 == "_text" { print $1; exit }' /proc/kallsyms)
vfs=$(awk '$3 == "vfs_read" { print $1; exit }' /proc/kallsyms)
off=$(( 0x$vfs - 0x$text ))
if sh -c "echo 'p:probe/vfs_read _text+$off' >> $ev" 2>/dev/null; then
	pass events.add-perf-form
	echo > $KP_TR/trace
	echo 1 > $KP_TR/events/probe/vfs_read/enable
	# read(2), as dd does (busybox cat would use sendfile)
	dd if=/proc/version of=/dev/null 2>/dev/null
	echo 0 > $KP_TR/events/probe/vfs_read/enable
	check events.perf-form-fires grep -q 'vfs_read:' $KP_TR/trace
	check events.perf-form-listed grep -q ' vfs_read+0x' $KP_DBG/list
else
	fail events.add-perf-form "(_text+$off refused)"
fi
check events.remove sh -c "echo > $ev"
check events.list-clean sh -c "! grep -q kp_target_func $KP_DBG/list"
rmmod kp_target
