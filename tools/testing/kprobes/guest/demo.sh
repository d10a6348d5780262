# SPDX-License-Identifier: GPL-2.0
# make demo: kprobes at work in the guest.
. /guest/lib.sh
S=/guest/samples
say() { printf '\n===== %s\n' "$*"; }
run() { echo "# $*"; sh -c "$*"; }

say "kprobes on $(uname -r) ($KP_ARCH, flavour $KP_FLAVOUR)"
say "1. sample kprobe on kernel_clone: handlers print on every fork"
dmesg -c > /dev/null
run "insmod $S/kprobe_example.ko symbol=kernel_clone"
run "/bin/true; /bin/true"
dmesg -c | tail -n 6
say "2. sample kretprobe on kernel_clone: return value and duration"
run "insmod $S/kretprobe_example.ko func=kernel_clone"
run "/bin/true; /bin/true"
dmesg -c | grep -v 'p->addr' | tail -n 4
if [ -f $S/jprobe_example.ko ]; then
	say "3. sample jprobe on kernel_clone: the handler sees the arguments"
	run "insmod $S/jprobe_example.ko symbol=kernel_clone"
	run "/bin/true"
	dmesg -c | grep -i jprobe | tail -n 3
fi
say "4. registered probes: /sys/kernel/debug/kprobes/list"
run "cat $KP_DBG/list"
say "5. a kprobe event through tracefs, with arguments"
run "echo 'p:demo/openat do_sys_openat2 dfd=\$arg1 path=+0(\$arg2):string' >> $KP_TR/kprobe_events"
run "echo 'r:demo/openat_ret do_sys_openat2 fd=\$retval:s32' >> $KP_TR/kprobe_events"
run "echo 1 > $KP_TR/events/demo/enable"
run "cat /etc/hostname /guest/lib.sh > /dev/null 2>&1; ls /guest > /dev/null"
run "echo 0 > $KP_TR/events/demo/enable"
run "grep demo $KP_TR/trace | head -n 8"
run "cat $KP_TR/kprobe_profile"
run "echo > $KP_TR/kprobe_events"
run "rmmod kprobe_example kretprobe_example"
[ -f $S/jprobe_example.ko ] && run "rmmod jprobe_example"
say "done"
