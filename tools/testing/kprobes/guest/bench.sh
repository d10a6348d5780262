# SPDX-License-Identifier: GPL-2.0
# make bench, guest side: drive kp_bench.ko and print "BENCHRES ..." lines.
# Parameters come from the kernel command line: kpb_n (calls per per-hit
# row), kpb_reg (registration sizes), kpb_mt (calls per CPU, all CPUs).
. /guest/lib.sh
N=20000
REG="1 100 1000 10000"
MT=5000
for a in $(cat /proc/cmdline); do
	case $a in
	kpb_n=*) N=${a#kpb_n=} ;;
	kpb_reg=*) REG=$(echo "${a#kpb_reg=}" | tr , ' ') ;;
	kpb_mt=*) MT=${a#kpb_mt=} ;;
	esac
done
ctl=/sys/kernel/debug/kp_bench/ctl
opt=/proc/sys/debug/kprobes-optimization
insmod $KP_MOD/kp_bench.ko || { echo "BENCHRES error=no-module"; exit 0; }

# flags of the planted probe, from kprobes/list
probe_flags() {
	grep ' kpb_target+' $KP_DBG/list | grep -o '\[[A-Z]*\]' | tr -d '[]' | tr '\n' ',' 
}
# row NAME KIND: arm KIND, time N calls, disarm
row() {
	if ! echo "arm $2" > $ctl 2>/dev/null; then
		echo "BENCHRES row=$1 na=1 $(cat $ctl)"
		return
	fi
	arm=$(cat $ctl)
	if [ "$1" = o ]; then
		i=0
		while ! probe_flags | grep -q OPTIMIZED && [ $i -lt 100 ]; do
			sleep 0.1
			i=$((i + 1))
		done
	fi
	fl=$(probe_flags)
	if [ "$1" = o ] && ! echo "$fl" | grep -q OPTIMIZED; then
		echo "BENCHRES row=o na=1 flags=$fl"
		echo disarm > $ctl
		return
	fi
	echo "run $N" > $ctl
	echo "BENCHRES row=$1 $(cat $ctl) flags=$fl $arm" | tr '\n' ' '
	echo
	echo disarm > $ctl
}

echo "run $N" > $ctl
echo "BENCHRES row=none $(cat $ctl)"
row k k
[ -w $opt ] && echo 0 > $opt
row b b
[ -w $opt ] && echo 1 > $opt
if [ -w $opt ]; then row o b; else echo "BENCHRES row=o na=1"; fi
row f f
[ -w $opt ] && echo 0 > $opt
row r r
[ -w $opt ] && echo 1 > $opt
row ro r
row j j
# kretprobe throughput, every CPU at once
if echo "arm r" > $ctl 2>/dev/null; then
	echo "mt $MT" > $ctl
	echo "BENCHRES row=mt $(cat $ctl)"
	echo disarm > $ctl
fi
echo "mt $MT" > $ctl
echo "BENCHRES row=mt-none $(cat $ctl)"
for n in $REG; do
	for mode in one batch; do
		echo "reg $n $mode" > $ctl
		echo "BENCHRES row=reg $(cat $ctl)"
	done
done
rmmod kp_bench
