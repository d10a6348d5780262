# SPDX-License-Identifier: GPL-2.0
# make bench, guest side: drive kp_bench.ko and print "BENCHRES ..." lines.
# Parameters come from the kernel command line: kpb_n (calls per per-hit
# row), kpb_reg (registration sizes), kpb_mt (calls per CPU, all CPUs),
# kpb_budget (seconds of guest time a registration row may take: a size
# whose cost, extrapolated linearly from the size before it, exceeds the
# budget is skipped and reported so).
. /guest/lib.sh
N=20000
REG="1 100 1000 10000"
MT=5000
BUDGET=20
for a in $(cat /proc/cmdline); do
	case $a in
	kpb_n=*) N=${a#kpb_n=} ;;
	kpb_reg=none) REG= ;;
	kpb_reg=*) REG=$(echo "${a#kpb_reg=}" | tr , ' ') ;;
	kpb_mt=*) MT=${a#kpb_mt=} ;;
	kpb_budget=*) BUDGET=${a#kpb_budget=} ;;
	esac
done
ctl=/sys/kernel/debug/kp_bench/ctl
opt=/proc/sys/debug/kprobes-optimization
insmod $KP_MOD/kp_bench.ko || { echo "BENCHRES error=no-module"; exit 0; }

# flags of the planted probe, from kprobes/list
probe_flags() {
	grep ' kpb_target+' $KP_DBG/list | grep -o '\[[A-Z]*\]' | tr -d '[]' | tr '\n' ',' 
}
# does the text of the planted probe hold a jump (written by the optimizer)
jumps() {
	echo jumps > $ctl && [ "$(cat $ctl)" = jumps=1 ]
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
		# [OPTIMIZED] shows once the probe is queued: wait for the jump.
		while ! { probe_flags | grep -q OPTIMIZED && jumps; } &&
			[ $i -lt 100 ]; do
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
# value of KEY in "key=value ..." $2
kv() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
# skip KIND N: is N too big, extrapolating from the last size of KIND?
# (last_KIND_n and last_KIND_ns hold it: the cost that grows with the
# size; last_KIND_fixed what does not, like the optimizer's delay)
skip() {
	eval "ln=\${last_$1_n:-0} lns=\${last_$1_ns:-0} lfix=\${last_$1_fixed:-0}"
	[ "$ln" -gt 0 ] || return 1
	predicted=$((lns / ln * $2 + lfix))
	[ $predicted -gt $((BUDGET * 1000000000)) ]
}
for n in $REG; do
	for mode in one batch; do
		if skip $mode $n; then
			echo "BENCHRES row=reg n=$n mode=$mode skipped=1 predicted_ns=$predicted budget_s=$BUDGET"
			continue
		fi
		echo "reg $n $mode" > $ctl
		res=$(cat $ctl)
		echo "BENCHRES row=reg $res"
		eval "last_${mode}_n=$n last_${mode}_ns=$(( $(kv reg_ns "$res") + $(kv unreg_ns "$res") ))"
	done
done
# Time until all of N probes (registered in one batch, at optimizable
# offsets) are optimized; the module watches the text, kprobes/list
# confirms.
if [ -z "$REG" ]; then
	:
elif [ -w $opt ] && [ "$(cat $opt)" = 1 ]; then
	for n in $REG; do
		if skip opt $n; then
			echo "BENCHRES row=opt n=$n skipped=1 predicted_ns=$predicted budget_s=$BUDGET"
			continue
		fi
		echo "opt $n $BUDGET" > $ctl 2>/dev/null
		res=$(cat $ctl)
		if [ "$(kv ret "$res")" != 0 ]; then
			echo "BENCHRES row=opt $res"
			continue
		fi
		listed=$(grep -c 'OPTIMIZED' $KP_DBG/list)
		echo optfree > $ctl
		free=$(cat $ctl)
		echo "BENCHRES row=opt $res listed=$listed unreg_ns=$(kv unreg_ns "$free")"
		r=$(kv reg_ns "$res")
		eval "last_opt_n=$n last_opt_ns=$r last_opt_fixed=$(( $(kv opt_ns "$res") - r ))"
	done
else
	echo "BENCHRES row=opt na=1"
fi
rmmod kp_bench
