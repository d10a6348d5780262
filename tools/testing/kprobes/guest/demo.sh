# SPDX-License-Identifier: GPL-2.0
# make demo: kprobes at work in the guest.  Every step says what it shows
# and checks that it showed it: a failed step prints "KPDEMO FAILED what",
# and the demo ends with "KPDEMO ok" only if none failed (the host's
# boot.sh turns that into make demo's exit status).
. /guest/lib.sh
S=/guest/samples
nfail=0
say() { printf '\n===== %s\n' "$*"; }
failed() {
	echo "KPDEMO FAILED $*"
	nfail=$((nfail + 1))
}
# run CMD: show it, run it; a non-zero exit fails the step
run() {
	echo "# $*"
	sh -c "$*" || failed "$* (exit $?)"
}
# expect WHAT CMD...: the step's claim WHAT must hold (CMD succeeds)
expect() {
	w=$1
	shift
	"$@" || failed "$w"
}

say "kprobes on $(uname -r) ($KP_ARCH, flavour $KP_FLAVOUR)"
say "1. sample kprobe on kernel_clone: handlers print on every fork"
dmesg -c > /dev/null
run "insmod $S/kprobe_example.ko symbol=kernel_clone"
run "/bin/true; /bin/true"
dmesg -c > /tmp/demo.out
tail -n 6 /tmp/demo.out
expect "the kprobe's handlers printed" grep -q '<kernel_clone>' /tmp/demo.out
say "2. sample kretprobe on kernel_clone: return value and duration"
run "insmod $S/kretprobe_example.ko func=kernel_clone"
run "/bin/true; /bin/true"
dmesg -c > /tmp/demo.out
grep -v 'p->addr' /tmp/demo.out | tail -n 4
expect "the kretprobe's handler printed" grep -q 'kernel_clone returned' /tmp/demo.out
if ours || [ -f $S/jprobe_example.ko ]; then
	say "3. sample jprobe on kernel_clone: the handler sees the arguments"
	run "insmod $S/jprobe_example.ko symbol=kernel_clone"
	run "/bin/true"
	dmesg -c > /tmp/demo.out
	grep -i jprobe /tmp/demo.out | tail -n 3
	expect "the jprobe's handler printed the arguments" \
		grep -q '<kernel_clone> called: args' /tmp/demo.out
fi
say "4. registered probes: /sys/kernel/debug/kprobes/list"
run "cat $KP_DBG/list"
expect "the list shows the sample probes" grep -q 'kernel_clone' $KP_DBG/list
say "5. a kprobe event through tracefs, with arguments"
run "echo > $KP_TR/trace"
run "echo 'p:demo/openat do_sys_openat2 dfd=\$arg1 path=+0(\$arg2):string' >> $KP_TR/kprobe_events"
run "echo 'r:demo/openat_ret do_sys_openat2 fd=\$retval:s32' >> $KP_TR/kprobe_events"
run "echo 1 > $KP_TR/events/demo/enable"
run "cat /etc/hostname /guest/lib.sh > /dev/null 2>&1; ls /guest > /dev/null"
run "echo 0 > $KP_TR/events/demo/enable"
echo "# the events the probes wrote (every line of $KP_TR/trace):"
grep -v '^#' $KP_TR/trace
nent=$(grep -c ' openat:' $KP_TR/trace)
nret=$(grep -c ' openat_ret:' $KP_TR/trace)
echo "# $nent entry events (openat), $nret return events (openat_ret)"
expect "entry events were written" test "$nent" -gt 0
expect "return events were written" test "$nret" -gt 0
run "cat $KP_TR/kprobe_profile"
run "echo > $KP_TR/kprobe_events"
run "rmmod kprobe_example kretprobe_example"
[ -f $S/jprobe_example.ko ] && run "rmmod jprobe_example"
if [ $nfail = 0 ]; then
	say "done"
	echo "KPDEMO ok"
else
	say "done: $nfail steps FAILED"
fi
