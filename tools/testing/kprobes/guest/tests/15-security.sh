# SPDX-License-Identifier: GPL-2.0
# Who sees kernel addresses and who may arm or disarm: kprobes/list and
# kprobes/blacklist print addresses only to readers kallsyms would show
# them to (kptr_restrict=2 hides them even from root); only root writes
# kprobes/enabled and the optimization sysctl.
. /guest/lib.sh
insmod $KP_MOD/kp_target.ko
insmod $KP_MOD/kp_probe.ko
addr_of() { awk '{ print $1 }' $KP_DBG/list | head -n 1; }
check sec.root-sees-address sh -c "awk '{ print \$1 }' $KP_DBG/list | head -n 1 | grep -qv '^0*$'"
old=$(cat /proc/sys/kernel/kptr_restrict)
echo 2 > /proc/sys/kernel/kptr_restrict
expect_eq sec.list-hides-address "$(addr_of | tr -d 0)" ""
check sec.list-keeps-symbol grep -q 'kp_target_func+0x' $KP_DBG/list
expect_eq sec.blacklist-hides-addresses "$(grep -cv '^0x0*-0x0*[[:space:]]' $KP_DBG/blacklist)" 0
echo "$old" > /proc/sys/kernel/kptr_restrict
# An unprivileged user: no reading of the lists, no arming or disarming.
chmod 755 /sys/kernel/debug
asuser() { su -s /bin/sh nobody -c "$*" 2>/dev/null; }
# The checks below mean something only if we really run as nobody.
expect_eq sec.runs-as-nobody "$(asuser 'id -u')" 65534
if asuser "cat $KP_DBG/list" | grep -q .; then fail sec.user-reads-list; else pass sec.user-reads-list; fi
if asuser "cat $KP_DBG/blacklist" | grep -q .; then fail sec.user-reads-blacklist; else pass sec.user-reads-blacklist; fi
if asuser "echo 0 > $KP_DBG/enabled"; then fail sec.user-writes-enabled; else pass sec.user-writes-enabled; fi
expect_eq sec.still-enabled "$(cat $KP_DBG/enabled)" 1
opt=/proc/sys/debug/kprobes-optimization
if [ -e $opt ]; then
	if asuser "echo 0 > $opt"; then fail sec.user-writes-sysctl; else pass sec.user-writes-sysctl; fi
	expect_eq sec.sysctl-unchanged "$(cat $opt)" 1
fi
chmod 700 /sys/kernel/debug
rmmod kp_probe
rmmod kp_target
