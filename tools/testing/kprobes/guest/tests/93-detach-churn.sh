# SPDX-License-Identifier: GPL-2.0
# Detach under load (kp_detach churn, guest/kp_detach.c): hitters pinned
# on every CPU keep calling kp_target.ko's functions while kprobe PMU
# events on them are opened and closed (kprobes and kretprobes, with and
# without a BPF program, some left to a process that exits) and kprobe
# events on them are created, enabled, disabled and removed (one by one,
# by one write of many "-:name" lines to kprobe_events or
# dynamic_events, by an O_TRUNC open of kprobe_events; an O_TRUNC open
# while one is enabled must fail with EBUSY).  Every error but that one
# fails, and so does a kernel report (the host reads the console).
# Afterwards no probe is left on them.  make stress runs it longer
# (KPCHURN_SECONDS).  Runs unchanged on both flavours.
. /guest/lib.sh
secs=${KPCHURN_SECONDS:-5}
if ! command -v kp_detach > /dev/null; then
	fail churn.tool-built
	return 0 2>/dev/null || exit 0
fi
check churn.load insmod $KP_MOD/kp_target.ko
KT=/sys/kernel/debug/kp_target
funcs="kp_target_func kp_target_fallible kp_call_write kp_fallible_write"
kp_detach churn "$secs" $KT/call $KT/fallible $funcs > /tmp/churn.out
echo "churn: exit $?"
sed 's/^/  /' /tmp/churn.out
# val LINE NAME
val() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# at_least NAME LINE KEY MIN
at_least() {
	if [ "$(val "$2" "$3")" -ge "$4" ] 2>/dev/null; then pass "$1"; else
		fail "$1" "($3=$(val "$2" "$3"), want at least $4)"; fi
}
hitters=$(grep -c '^CHURN hitter ' /tmp/churn.out)
expect_eq churn.hitter-every-cpu "$hitters" "$(grep -c '^processor' /proc/cpuinfo)"
bad=$(grep '^CHURN hitter ' /tmp/churn.out | grep -v ' errors=0 ' | grep -c .)
idle=$(grep '^CHURN hitter ' /tmp/churn.out | grep -c ' calls=0 ')
if [ "$hitters" -gt 0 ] && [ "$bad" = 0 ] && [ "$idle" = 0 ]; then pass churn.hitters-called; else
	fail churn.hitters-called "($bad with errors, $idle that made no call)"; fi
for b in 0 1; do
	l=$(grep "^CHURN perf bpf=$b " /tmp/churn.out)
	expect_eq churn.perf.bpf$b.errors "$(val "$l" errors)" 0
	at_least churn.perf.bpf$b.opened "$l" opens 8
	at_least churn.perf.bpf$b.kretprobes "$l" kretprobes 1
	at_least churn.perf.bpf$b.exited-open "$l" exits 1
done
l=$(grep '^CHURN events ' /tmp/churn.out)
expect_eq churn.events.errors "$(val "$l" errors)" 0
at_least churn.events.rounds "$l" rounds 5
for k in single multi dynamic trunc busy; do
	at_least churn.events.$k "$l" $k 1
done
expect_eq churn.kprobe-events-empty "$(grep -c . $KP_TR/kprobe_events)" 0
# what was closed or exited is unregistered, at once or a little later
re=' (kp_target_func|kp_target_fallible|kp_call_write|kp_fallible_write)'
i=0
while grep -qE "$re" $KP_DBG/list && [ $i -lt 150 ]; do
	sleep 0.1
	i=$((i + 1))
done
if grep -qE "$re" $KP_DBG/list; then
	fail churn.probes-gone "($(grep -cE "$re" $KP_DBG/list) left: $(grep -E "$re" $KP_DBG/list | head -n 1))"
else
	pass churn.probes-gone
fi
check churn.unload rmmod kp_target
