# SPDX-License-Identifier: GPL-2.0
# A kprobe and a kretprobe from a module on a function of another module;
# exact hit counts; global disarm through kprobes/enabled; [GONE] when the
# probed module goes away.
. /guest/lib.sh
insmod $KP_MOD/kp_target.ko || fail module.load-target
check module.load-probe insmod $KP_MOD/kp_probe.ko
kcall 10
expect_eq module.kprobe-hits "$(param kp_probe hits)" 10
check module.list-shows-probe grep -q '^[0-9a-f]*  *k  *kp_target_func+0x[0-9a-f]*  kp_target ' $KP_DBG/list
echo 0 > $KP_DBG/enabled
kcall 5
expect_eq module.disarmed-no-hits "$(param kp_probe hits)" 10
echo 1 > $KP_DBG/enabled
kcall 5
expect_eq module.rearmed-hits "$(param kp_probe hits)" 15
# The probed module goes: the probe stays registered, marked [GONE].
check module.rmmod-probed rmmod kp_target
check module.list-gone grep -q '\[GONE\]' $KP_DBG/list
check module.rmmod-prober rmmod kp_probe
if grep -q kp_target_func $KP_DBG/list; then fail module.list-empty-after; else pass module.list-empty-after; fi

# kretprobe: entry and return counted.
insmod $KP_MOD/kp_target.ko
check module.load-kretprobe insmod $KP_MOD/kp_probe.ko kind=r
kcall 7
expect_eq module.kretprobe-entries "$(param kp_probe hits)" 7
expect_eq module.kretprobe-returns "$(param kp_probe rets)" 7
check module.list-shows-kretprobe grep -q '^[0-9a-f]*  *r  *kp_target_func+0x' $KP_DBG/list
expect_eq module.result-unchanged "$(cat /sys/kernel/debug/kp_target/result)" 70
rmmod kp_probe
rmmod kp_target
