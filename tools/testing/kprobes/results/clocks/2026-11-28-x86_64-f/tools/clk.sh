# clock investigation guest script: rows of kprobe_bench under host markers
. /guest/lib.sh
N=20000
ROWS="none f"
for a in $(cat /proc/cmdline); do
	case $a in
	kpc_n=*) N=${a#kpc_n=} ;;
	kpc_rows=*) ROWS=$(echo "${a#kpc_rows=}" | tr , ' ') ;;
	esac
done
ctl=/sys/kernel/debug/kprobe_bench/ctl
opt=/proc/sys/debug/kprobes-optimization
insmod $KP_MOD/kprobe_bench.ko || exit 0
kv() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
# warm-up
echo "run $N" > $ctl
for r in $ROWS; do
	case $r in
	none) kind= want= nt= ;;
	none-nt) kind= want= nt=nt ;;
	f) kind=f want=ftrace nt= ;;
	rf) kind=rf want=ftrace nt= ;;
	k) kind=k want=trap nt= ;;
	b) kind=b want=trap nt= ;;
	o) kind=b want=jump nt= ;;
	ro) kind=r want=jump nt=nt ;;
	r) kind=r want=trap nt=nt ;;
	esac
	case $r in k|b|r) echo 0 > $opt ;; *) echo 1 > $opt ;; esac
	if [ -n "$kind" ]; then
		echo "arm $kind" > $ctl || { echo "CLKRES row=$r na"; continue; }
		i=0
		while [ "$(echo state > $ctl; kv state "$(cat $ctl)")" != "$want" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
	fi
	echo "run 200 $nt" > $ctl
	echo "CLKMARK start $r"
	sleep 2
	echo "run $N $nt" > $ctl
	res=$(cat $ctl)
	echo "CLKMARK end $r"
	sleep 2
	echo "CLKRES row=$r $res"
	[ -n "$kind" ] && echo disarm > $ctl
done
rmmod kprobe_bench
