# SPDX-License-Identifier: GPL-2.0
# A return probe on a function with many more callers asleep inside it
# than a kretprobe's default pool holds (a server's threads in accept(),
# readers of a pipe): N writers of kp_target's "block" file sleep in
# kp_target_block() until it is released.  Through a kretprobe event
# (kprobe_events, no maxactive) and through a perf kretprobe with a BPF
# program (perf_event_open() of the kprobe PMU, which cannot pass
# maxactive, as bpftrace and libbpf attach one).  Ours takes the
# instances the pool lacks from the tasks' own storage: every return is
# reported and none is missed.  Upstream's pool misses all but its
# default number: the run shows it.
. /guest/lib.sh
N=200
insmod $KP_MOD/kp_target.ko 2>/dev/null
KT=/sys/kernel/debug/kp_target
[ -e $KT/block ] || { fail kretsleep.module; exit 0; }

# sleepers_run: N writers into kp_target_block(), all inside at once,
# then released; prints how many were inside at once
cat > /tmp/sleepers.sh <<SH
echo 0 > $KT/release
i=0
while [ \$i -lt $N ]; do echo 1 > $KT/block & i=\$((i + 1)); done
t=0
while [ "\$(cat $KT/blocked)" -lt $N ] && [ \$t -lt 600 ]; do sleep 0.1; t=\$((t + 1)); done
cat $KT/blocked > /tmp/sleepers.inside
echo 1 > $KT/release
wait
SH

# 1. A kretprobe event, no maxactive given.
echo 'r:kpsleep kp_target_block' >> $KP_TR/kprobe_events ||
	{ fail kretsleep.events.add; exit 0; }
echo > $KP_TR/trace
echo 1 > $KP_TR/events/kprobes/kpsleep/enable
sh /tmp/sleepers.sh
echo 0 > $KP_TR/events/kprobes/kpsleep/enable
inside=$(cat /tmp/sleepers.inside)
returns=$(grep -c ' kpsleep: ' $KP_TR/trace)
missed=$(awk '$1 == "kpsleep" { print $3 }' $KP_TR/kprobe_profile)
echo "  events: $inside inside at once, $returns returns reported, $missed missed"
echo '-:kpsleep' >> $KP_TR/kprobe_events
expect_eq kretsleep.events.all-inside "$inside" $N
if ours; then
	expect_eq kretsleep.events.all-returns "$returns" $N
	expect_eq kretsleep.events.no-miss "$missed" 0
elif [ "$missed" -gt 0 ] && [ $((returns + missed)) -eq $N ]; then
	pass kretsleep.events.misses-shown
else
	fail kretsleep.events.misses-shown "($returns returns, $missed missed)"
fi

# 2. A perf kretprobe with a BPF program, as bpftrace attaches one.
if command -v kp_bpf > /dev/null; then
	out=$(kp_bpf -r kp_target_block 0 "sh /tmp/sleepers.sh")
	echo "  bpf: $out"
	hits=$(echo "$out" | tr ' ' '\n' | sed -n 's/^hits=//p')
	expect_eq kretsleep.bpf.attach "$(echo "$out" | tr ' ' '\n' | grep -E '^(ret|status)=' | tr '\n' ' ')" "ret=0 status=0 "
	expect_eq kretsleep.bpf.all-inside "$(cat /tmp/sleepers.inside)" $N
	if ours; then
		expect_eq kretsleep.bpf.all-returns "$hits" $N
	elif [ -n "$hits" ] && [ "$hits" -lt $N ]; then
		pass kretsleep.bpf.misses-shown
	else
		fail kretsleep.bpf.misses-shown "($hits of $N returns)"
	fi
else
	fail kretsleep.bpf.tool-built
fi
rmmod kp_target

# 3. Returns pending across exec: a kretprobe event with maxactive 1 on
# begin_new_exec(), through which every exec of an ELF binary passes,
# and execs from several processes at once, so that most instances come
# from the tasks' storage; each task execs with its instance pending.
echo 'r1:kpexec begin_new_exec' >> $KP_TR/kprobe_events ||
	{ fail kretsleep.exec.add; exit 0; }
echo > $KP_TR/trace
echo 1 > $KP_TR/events/kprobes/kpexec/enable
i=0
while [ $i -lt 20 ]; do /bin/true & /bin/true & /bin/true & i=$((i + 1)); done
wait
echo 0 > $KP_TR/events/kprobes/kpexec/enable
returns=$(grep -c ' kpexec: ' $KP_TR/trace)
missed=$(awk '$1 == "kpexec" { print $3 }' $KP_TR/kprobe_profile)
echo "  exec: $returns returns reported, $missed missed"
echo '-:kpexec' >> $KP_TR/kprobe_events
if ours; then
	if [ "$returns" -ge 60 ]; then pass kretsleep.exec.returns; else
		fail kretsleep.exec.returns "($returns of at least 60)"; fi
	expect_eq kretsleep.exec.no-miss "$missed" 0
elif [ "$missed" -gt 0 ]; then
	pass kretsleep.exec.misses-shown
else
	fail kretsleep.exec.misses-shown "($returns returns, $missed missed)"
fi
