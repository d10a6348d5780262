# SPDX-License-Identifier: GPL-2.0
# Concurrency (module kp_conc): hits on every vCPU while other threads
# register, unregister, enable and disable probes on the same function and
# its neighbours, and kprobes/enabled and the optimization sysctl flip.
# Every call made while the checked probes were armed and steady is seen
# exactly once by each of them.  make stress runs it longer (KPCONC_SECONDS).
. /guest/lib.sh
secs=${KPCONC_SECONDS:-8}
check conc.load insmod $KP_MOD/kp_conc.ko
C=/sys/kernel/debug/kp_conc
# Meanwhile, how often the list shows a probe of the target optimized.
(echo "$secs" > $C/run; echo $? > /tmp/conc.rc) &
opt=0
while [ ! -f /tmp/conc.rc ]; do
	grep -q 'kpc_target+.*OPTIMIZED' $KP_DBG/list && opt=$((opt + 1))
	sleep 0.5
done
wait
expect_eq conc.run "$(cat /tmp/conc.rc)" 0
echo "KPCONC optimized-seen $opt"
sed 's/^/KPCONC /' $C/result
res() { awk -v k="$1" '$1 == k { print $2 }' $C/result; }
check conc.steady-phases test "$(res steady-phases)" -ge 3
check conc.calls-counted test "$(res calls)" -gt 0
for k in entry body ret-entry ret-return; do
	expect_eq conc.$k-equals-calls "$(res $k)" "$(res calls)"
done
expect_eq conc.ret-missed "$(res ret-missed)" 0
expect_eq conc.api-errors "$(res errors)" 0
check conc.churned test "$(res churn-ops)" -gt 10
check conc.enabled-flipped test "$(res flips-enabled)" -gt 0
expect_eq conc.enabled-restored "$(cat $KP_DBG/enabled)" 1
if grep -q 'kpc_' $KP_DBG/list; then fail conc.nothing-left "$(grep kpc_ $KP_DBG/list | head -3)"; else pass conc.nothing-left; fi
check conc.unload rmmod kp_conc
