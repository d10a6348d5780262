. /guest/lib.sh
insmod $KP_MOD/kp_bench.ko
I=$KP_TR/instances/tmp
mkdir -p $I
echo 0 > $I/tracing_on
for f in synchronize_rcu synchronize_rcu_expedited synchronize_rcu_tasks synchronize_rcu_tasks_trace synchronize_rcu_tasks_rude synchronize_srcu stop_machine stop_machine_cpuslocked aarch64_insn_patch_text aarch64_insn_patch_text_nosync text_poke_bp text_poke_bp_batch ftrace_modify_all_code kick_all_cpus_sync flush_icache_range caches_clean_inval_pou; do echo $f >> $I/set_ftrace_filter 2>/dev/null; done
cat $I/set_ftrace_filter | tr '\n' ' '; echo
echo function > $I/current_tracer
echo > $I/trace
echo 1 > $I/tracing_on
kp_attach events 20
echo 0 > $I/tracing_on
grep -v '^#' $I/trace | sed 's/.*: \([a-zA-Z_0-9.]*\) <-\([a-zA-Z_0-9.]*\).*/\1 <- \2/' | sort | uniq -c | sort -rn | head -20
echo nop > $I/current_tracer
rmdir $I
rmmod kp_bench
pass tmp.done
