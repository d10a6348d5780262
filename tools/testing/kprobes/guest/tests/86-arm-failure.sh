# SPDX-License-Identifier: GPL-2.0
# Writing 1 to kprobes/enabled when a site cannot be armed: the write
# fails with the errno, the probe shows [DISABLED] (not armed) and takes
# no hit; writing 1 again once arming works arms it.  Arming is made to
# fail through the fault-injection point fail_kprobe_arm (ours only).
. /guest/lib.sh
F=/sys/kernel/debug/fail_kprobe_arm
if [ ! -d $F ]; then
	ours && fail arm.fail-point "no $F"
	exit 0
fi
hits() { awk '$1 == "kparm" { print $2 }' $KP_TR/kprobe_profile; }
insmod $KP_MOD/kp_target.ko
echo 'p:kparm kp_target:kp_target_func' >> $KP_TR/kprobe_events
echo 1 > $KP_TR/events/kprobes/kparm/enable
kcall 3
expect_eq arm.hits-before "$(hits)" 3
echo 0 > $KP_DBG/enabled
echo 0 > $F/verbose
echo 100 > $F/probability
echo -1 > $F/times
if echo 1 > $KP_DBG/enabled; then fail arm.write-fails; else pass arm.write-fails; fi
expect_eq arm.enabled-reads-1 "$(cat $KP_DBG/enabled)" 1
check arm.list-not-armed grep -qE '  k  kp_target_func\+0x[0-9a-f]+  kp_target \[DISABLED\]' $KP_DBG/list
kcall 2
expect_eq arm.no-hits-unarmed "$(hits)" 3
echo 0 > $F/probability
check arm.retry-succeeds sh -c "echo 1 > $KP_DBG/enabled"
if grep -q 'kp_target_func.*DISABLED' $KP_DBG/list; then fail arm.list-armed; else pass arm.list-armed; fi
kcall 2
expect_eq arm.hits-after "$(hits)" 5
echo 0 > $KP_TR/events/kprobes/kparm/enable
echo '-:kparm' >> $KP_TR/kprobe_events
rmmod kp_target
