. /guest/lib.sh
insmod $KP_MOD/kprobe_bench.ko
ctl=/sys/kernel/debug/kprobe_bench/ctl
echo "arm f" > $ctl
echo "run 10" > $ctl
grep -E 'kpb_hits|kpb_target$|kpb_kp$|ftrace_trampoline|kprobe_ftrace_sets|kprobe_ftrace_dead|kprobe_table$' /proc/kallsyms | sed 's/^/KSYM /'
echo disarm > $ctl
rmmod kprobe_bench
