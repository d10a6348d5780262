# SPDX-License-Identifier: GPL-2.0
# make bench, guest side: drive kprobe_bench.ko (samples/kprobes/
# kprobe_bench_main.c) and print "BENCHRES ..." lines.
# Parameters come from the kernel command line: kpb_n (calls per per-hit
# row), kpb_rs (rounds of the row with 100 calls in flight), kpb_reg
# (registration sizes), kpb_mt (calls per CPU, all CPUs),
# kpb_budget (seconds of guest time a registration row may take: a size
# whose cost, extrapolated linearly from the size before it, exceeds the
# budget is skipped and reported so), kpb_attach (sizes of the attach
# and detach rows: kp_attach, one probe per perf_event_open() of the
# kprobe PMU, from one process or four, and one per kprobe_events write,
# as tools do it; the events removed one by one, by one O_TRUNC open or
# by one write of all their "-:" lines; a bpftrace-style run that exits
# with its BPF-attached events open), kpb_part
# (hit: the per-hit rows only, for a one-CPU boot; multi: the rest; all:
# everything; trace: the one-call traces of trace-hit.sh, for the rows
# of kpb_trace, comma-separated; teardown: the attach and detach rows of
# kpb_vias, for bench-teardown.sh).
. /guest/lib.sh
N=20000
RS=50
REG="1 100 1000 10000"
MT=5000
BUDGET=20
ATTACH="100 1000"
PART=all
TRACE=
VIAS="perf events trunc multi"
for a in $(cat /proc/cmdline); do
	case $a in
	kpb_n=*) N=${a#kpb_n=} ;;
	kpb_rs=*) RS=${a#kpb_rs=} ;;
	kpb_reg=none) REG= ;;
	kpb_reg=*) REG=$(echo "${a#kpb_reg=}" | tr , ' ') ;;
	kpb_mt=*) MT=${a#kpb_mt=} ;;
	kpb_budget=*) BUDGET=${a#kpb_budget=} ;;
	kpb_part=*) PART=${a#kpb_part=} ;;
	kpb_attach=none) ATTACH= ;;
	kpb_attach=*) ATTACH=$(echo "${a#kpb_attach=}" | tr , ' ') ;;
	kpb_trace=*) TRACE=$(echo "${a#kpb_trace=}" | tr , ' ') ;;
	kpb_vias=*) VIAS=$(echo "${a#kpb_vias=}" | tr , ' ') ;;
	esac
done
ctl=/sys/kernel/debug/kprobe_bench/ctl
opt=/proc/sys/debug/kprobes-optimization
insmod $KP_MOD/kprobe_bench.ko || { echo "BENCHRES error=no-module"; exit 0; }
echo "BENCHRES row=info kernel=$(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo) part=$PART"

# value of KEY in "key=value ..." $2
kv() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
# flags of the planted probe, from kprobes/list (for the record only)
probe_flags() {
	grep ' kpb_target' $KP_DBG/list | grep -o '\[[A-Z]*\]' | tr -d '[]' | tr '\n' ',' 
}
# the text at the planted probe: "state=trap|jump|ftrace|other text=..."
text_state() {
	echo state > $ctl && cat $ctl
}
# optimization on (1) or off (0), where the sysctl exists
optimize() {
	[ -w $opt ] && echo "$1" > $opt
}
# row NAME KIND STATE [COMMAND]: arm KIND, wait (at most 10 s) until
# the text at the probe is in STATE, time N calls (or what COMMAND
# says), disarm.  A row counts only when the probe was in STATE before
# and after the calls, its handlers counted every call and it missed
# none.
row() {
	if ! echo "arm $2" > $ctl 2>/dev/null; then
		echo "BENCHRES row=$1 na=1 why=arm $(cat $ctl)"
		return
	fi
	arm=$(cat $ctl)
	i=0
	st=$(text_state)
	while [ "$(kv state "$st")" != "$3" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
		st=$(text_state)
	done
	fl=$(probe_flags)
	if [ "$(kv state "$st")" != "$3" ]; then
		echo "BENCHRES row=$1 na=1 why=state want=$3 $st flags=$fl $arm"
		echo disarm > $ctl
		return
	fi
	echo "${4:-run $N}" > $ctl
	res=$(cat $ctl)
	after=$(text_state)
	calls=$(kv calls "$res")
	why=
	[ "$(kv ret "$res")" = "" ] || [ "$(kv ret "$res")" = 0 ] || why=ret
	[ "$(kv state "$after")" = "$3" ] || why="$why,state-changed"
	[ "$(kv hits "$res")" = "${calls:-$N}" ] || why="$why,hits"
	[ "$(kv missed "$res")" = 0 ] || why="$why,missed"
	if [ -n "$why" ]; then
		echo "BENCHRES row=$1 na=1 why=${why#,} want=$3 $res $after flags=$fl $arm"
	else
		echo "BENCHRES row=$1 $res $st flags=$fl $arm"
	fi
	echo disarm > $ctl
}

# trace ROW: one call of ROW's function under QEMU's per-instruction log
# (trace-hit.sh), framed by "BENCHTRACE label=..." lines: first the
# unprobed call of the same function, then the call with ROW's probe in
# its state (as row() arms and checks it).  The host names the logs.
trace_row() {
	case $1 in
	k) kind=k want=trap o=0 nt= ;;
	b) kind=b want=trap o=0 nt= ;;
	r) kind=r want=trap o=0 nt=nt ;;
	o) kind=b want=jump o=1 nt= ;;
	ro) kind=r want=jump o=1 nt=nt ;;
	f) kind=f want=ftrace o=1 nt= ;;
	rf) kind=rf want=ftrace o=1 nt= ;;
	*) echo "BENCHTRACE row=$1 na=1 why=unknown"; return ;;
	esac
	optimize $o
	echo "BENCHTRACE label=$1-none"
	echo "trace 2000 $nt" > $ctl
	echo "BENCHTRACE label=$1-none done $(cat $ctl)"
	if ! echo "arm $kind" > $ctl 2>/dev/null; then
		echo "BENCHTRACE row=$1 na=1 why=arm $(cat $ctl)"
		return
	fi
	i=0
	while [ "$(kv state "$(text_state)")" != "$want" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	st=$(text_state)
	echo "BENCHTRACE label=$1"
	echo "trace 2000" > $ctl
	echo "BENCHTRACE label=$1 done $(cat $ctl) $st want=$want"
	# symbols of the module and of the slot and detour pages, now
	grep -E '\[(kprobe_bench|__builtin__kprobes)\]' /proc/kallsyms | sed 's/^/KPBSYM /'
	echo disarm > $ctl
}
# teardown (bench-teardown.sh): the attach and detach rows of kpb_attach
# for kpb_vias only (comma-separated, default perf,events,trunc,multi)
if [ "$PART" = teardown ]; then
	for n in $ATTACH; do
		for via in $VIAS; do
			kp_attach $via $n
		done
	done
	rmmod kprobe_bench
	exit 0
fi
if [ "$PART" = trace ]; then
	for r in $TRACE; do
		trace_row $r
	done
	rmmod kprobe_bench
	exit 0
fi

if [ "$PART" != multi ]; then
	# the unprobed calls of both functions, subtracted from their rows
	echo "run $N" > $ctl
	echo "BENCHRES row=none $(cat $ctl)"
	echo "run $N nt" > $ctl
	echo "BENCHRES row=none-nt $(cat $ctl)"
	optimize 0
	row k k trap
	row b b trap
	row r r trap
	optimize 1
	if [ -w $opt ]; then
		row o b jump
		row ro r jump
	else
		echo "BENCHRES row=o na=1 why=no-optprobes"
		echo "BENCHRES row=ro na=1 why=no-optprobes"
	fi
	row f f ftrace
	row rf rf ftrace
	# A kretprobe with the default maxactive on a function 100 kthreads
	# sleep in at once, RS rounds; the same without the probe first.
	optimize 0
	echo "sleep $RS" > $ctl
	echo "BENCHRES row=none-sleep $(cat $ctl)"
	row rs rs trap "sleep $RS"
	optimize 1
	# jprobes (ours only): whatever the entry is, the row says it
	if echo "arm j" > $ctl 2>/dev/null; then
		st=$(text_state)
		echo "run $N" > $ctl
		echo "BENCHRES row=j $(cat $ctl) $st"
		echo disarm > $ctl
	else
		echo "BENCHRES row=j na=1 why=arm"
	fi
fi
if [ "$PART" = hit ]; then
	rmmod kprobe_bench
	exit 0
fi
# kretprobe throughput, every CPU at once (entry as the sysctl says)
if echo "arm r" > $ctl 2>/dev/null; then
	echo "mt $MT" > $ctl
	echo "BENCHRES row=mt $(cat $ctl) $(text_state)"
	echo disarm > $ctl
fi
echo "mt $MT nt" > $ctl
echo "BENCHRES row=mt-none $(cat $ctl)"
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
# Attach and detach as tools do: kp_attach (guest/kp_attach.c) on the
# module's functions, through the kprobe PMU (one process, four at once,
# a BPF tracer that exits) and through kprobe_events (removed one by
# one, by an O_TRUNC open, by one write of many "-:" lines).
for n in $ATTACH; do
	for via in perf perf4 bpf events trunc multi; do
		if command -v kp_attach > /dev/null; then
			kp_attach $via $n
		else
			echo "BENCHRES row=attach via=$via n=$n na=1 why=no-kp_attach"
		fi
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
rmmod kprobe_bench
