# SPDX-License-Identifier: GPL-2.0
# Lifetimes: a probed module unloaded under live probes, round after round
# ([GONE], and no hit once it is back, even at the same address);
# kretprobes unregistered while instances sleep on tasks' stacks (every
# task returns correctly); tasks exiting with instances pending.  make
# stress runs more rounds (KPLIFE_ROUNDS).
. /guest/lib.sh
rounds=${KPLIFE_ROUNDS:-2}

good=0
gone=0
i=0
while [ $i -lt "$rounds" ]; do
	for kind in k r; do
		insmod $KP_MOD/kp_target.ko
		insmod $KP_MOD/kp_probe.ko kind=$kind
		kcall 3
		h1=$(param kp_probe hits)
		rmmod kp_target
		grep -q '\[GONE\]' $KP_DBG/list && gone=$((gone + 1))
		insmod $KP_MOD/kp_target.ko
		kcall 3
		h2=$(param kp_probe hits)
		rmmod kp_probe
		rmmod kp_target
		[ "$h1" = 3 ] && [ "$h2" = 3 ] && good=$((good + 1))
	done
	i=$((i + 1))
done
expect_eq life.unload-gone "$gone" $((rounds * 2))
expect_eq life.unload-no-hit-after "$good" $((rounds * 2))
if grep -q kp_target_func $KP_DBG/list; then fail life.unload-list-empty; else pass life.unload-list-empty; fi

# kretprobes unregistered while tasks sleep in the probed function.
sym=hrtimer_nanosleep
grep -q " $sym\$" /proc/kallsyms || sym=do_nanosleep
good=0
entered=0
i=0
while [ $i -lt "$rounds" ]; do
	insmod $KP_MOD/kp_probe.ko kind=r symbol=$sym
	pids=
	for j in 1 2 3 4 5 6; do
		sleep 2 &
		pids="$pids $!"
	done
	sleep 1
	[ "$(param kp_probe hits)" -ge 6 ] && entered=$((entered + 1))
	rmmod kp_probe
	for p in $pids; do
		wait "$p" && good=$((good + 1))
	done
	i=$((i + 1))
done
expect_eq life.sleepers-entered "$entered" "$rounds"
expect_eq life.sleepers-returned "$good" $((rounds * 6))

# Tasks exiting with instances pending: do_exit never returns.
insmod $KP_MOD/kp_probe.ko kind=r symbol=do_exit
i=0
while [ $i -lt $((rounds * 10)) ]; do
	/bin/true
	sh -c 'exit 3'
	i=$((i + 1))
done
# (instances come back when the dead task is freed: some may be missed)
check life.exit-entered test $(( $(param kp_probe hits) + $(param kp_probe missed) )) -ge $((rounds * 20))
check life.exit-some-ran test "$(param kp_probe hits)" -gt 0
expect_eq life.exit-no-return "$(param kp_probe rets)" 0
check life.exit-unregister rmmod kp_probe
# and tasks killed in the middle of a probed function
insmod $KP_MOD/kp_probe.ko kind=r symbol=$sym
pids=
for j in 1 2 3 4; do
	sleep 30 &
	pids="$pids $!"
done
sleep 1
kill -9 $pids
for p in $pids; do wait "$p"; done
check life.killed-returned test "$(param kp_probe rets)" -ge 4
check life.killed-unregister rmmod kp_probe
