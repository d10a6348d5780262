# SPDX-License-Identifier: GPL-2.0
# Closing perf kprobe events: kp_attach opens N events of the kprobe PMU
# (one per function of kprobe_bench.ko) and closes them one by one.  With
# the teardown series (patches/teardown/: the ours and fixes flavours)
# the closing process waits for no grace period, and the reaper
# unregisters the kprobes in a few batches; on every flavour the kprobes
# go from kprobes/list soon after.  The function tracer on the waits
# (synchronize_rcu(), synchronize_rcu_tasks_trace(), synchronize_srcu())
# tells who waited and how often.
. /guest/lib.sh
N=40
# wait_gone: gone=1 once no probe on kprobe_bench.ko's functions is left in
# kprobes/list (the reaper: a few grace periods, seconds at most), else 0
wait_gone() {
	gone=0
	for i in $(seq 100); do
		grep -q ' kpb_fn_' $KP_DBG/list || { gone=1; break; }
		sleep 0.1
	done
}
insmod $KP_MOD/kprobe_bench.ko || { fail perfreap.module; exit 0; }
WAITS="synchronize_rcu synchronize_rcu_tasks_trace synchronize_srcu"
echo 0 > $KP_TR/tracing_on
echo "$WAITS" | tr ' ' '\n' > $KP_TR/set_ftrace_filter
echo function > $KP_TR/current_tracer
echo > $KP_TR/trace
echo 1 > $KP_TR/tracing_on
out=$(kp_attach perf $N)
echo "  $out"
# every kprobe of the run leaves kprobes/list (the reaper: a few grace
# periods, seconds at most under TCG)
wait_gone
echo 0 > $KP_TR/tracing_on
grep ': synchronize_' $KP_TR/trace > /tmp/perfreap.waits
echo nop > $KP_TR/current_tracer
echo > $KP_TR/set_ftrace_filter
echo 1 > $KP_TR/tracing_on
expect_eq perfreap.attached "$(echo "$out" | tr ' ' '\n' | grep -E '^(ret|done)=' | tr '\n' ' ')" "ret=0 done=$N "
expect_eq perfreap.unregistered "$gone" 1
if teardown; then
	# the closing process (comm kp_attach) waited for nothing
	expect_eq perfreap.close-no-wait "$(grep -c '^ *kp_attach-' /tmp/perfreap.waits)" 0
	# the reaper's unregister_kprobes() calls: a few batches, not N
	n=$(grep -c ': synchronize_rcu <-unregister_kprobes' /tmp/perfreap.waits)
	echo "  reaper batches: $n for $N events"
	if [ "$n" -ge 1 ] && [ "$n" -le $((N / 4)) ]; then pass perfreap.reaped-in-batches; else
		fail perfreap.reaped-in-batches "($n unregister_kprobes() waits for $N events)"; fi
fi

# close() takes no mutex with the teardown series: event_mutex, which
# others hold across grace periods, was taken for a TRACE_REG_PERF_CLOSE
# that does nothing for a kprobe event.  The function tracer on the
# mutex_lock() entries, by this shell and its children, with the stack
# of each call: none may come from perf_kprobe_destroy().
if teardown; then
	echo 0 > $KP_TR/tracing_on
	echo > $KP_TR/set_ftrace_filter
	for f in mutex_lock mutex_lock_nested mutex_lock_killable \
		mutex_lock_interruptible mutex_lock_killable_nested \
		mutex_lock_interruptible_nested; do
		echo $f >> $KP_TR/set_ftrace_filter 2>/dev/null
	done
	echo $$ > $KP_TR/set_ftrace_pid
	echo 1 > $KP_TR/options/function-fork
	echo 1 > $KP_TR/options/func_stack_trace
	echo function > $KP_TR/current_tracer
	echo > $KP_TR/trace
	echo 1 > $KP_TR/tracing_on
	out=$(kp_attach perf 5)
	echo 0 > $KP_TR/tracing_on
	nlock=$(grep -c ': mutex_lock' $KP_TR/trace)
	ndestroy=$(grep -c '=> perf_kprobe_destroy' $KP_TR/trace)
	echo nop > $KP_TR/current_tracer
	echo 0 > $KP_TR/options/func_stack_trace
	echo 0 > $KP_TR/options/function-fork
	echo > $KP_TR/set_ftrace_pid
	echo > $KP_TR/set_ftrace_filter
	echo 1 > $KP_TR/tracing_on
	echo "  $out; mutex_lock calls traced: $nlock, from perf_kprobe_destroy: $ndestroy"
	# the tracer saw the attach's mutex_lock calls: it can see some
	if [ "$nlock" -gt 0 ] && [ "$ndestroy" = 0 ]; then pass perfreap.close-no-mutex; else
		fail perfreap.close-no-mutex "($ndestroy of $nlock mutex_lock calls from perf_kprobe_destroy)"; fi
	wait_gone
	expect_eq perfreap.close-no-mutex-reaped "$gone" 1
fi

# The probed module goes while its closed events may still wait for the
# reaper: kprobes marks their probes gone at the module's removal, and
# the reaper unregisters them later without touching the freed text
# (the debug boots run this under KASAN).  Loaded again, the module's
# functions take new events, and every probe goes again.
out=$(kp_attach perf $N)
echo "  $out"
check perfreap.rmmod-pending rmmod kprobe_bench
wait_gone
expect_eq perfreap.rmmod-reaped "$gone" 1
check perfreap.reload insmod $KP_MOD/kprobe_bench.ko
out=$(kp_attach perf $N)
echo "  $out"
expect_eq perfreap.reload-attached "$(echo "$out" | tr ' ' '\n' | grep -E '^(ret|done)=' | tr '\n' ' ')" "ret=0 done=$N "
wait_gone
expect_eq perfreap.reload-unregistered "$gone" 1
rmmod kprobe_bench
