. /guest/lib.sh
insmod $KP_MOD/kprobe_bench.ko
ctl=/sys/kernel/debug/kprobe_bench/ctl
opt=/proc/sys/debug/kprobes-optimization
for o in 1 0; do
	echo $o > $opt
	for n in 1000 3000 10000; do
		echo "reg $n batch" > $ctl
		echo "URRES opt=$o $(cat $ctl)"
	done
done
echo 1 > $opt
rmmod kprobe_bench
