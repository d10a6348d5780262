# SPDX-License-Identifier: GPL-2.0
# make stress, guest side:
#  1. concurrency (tests/60-concurrency.sh) for kpconc=SECONDS (default 120);
#  2. lifetimes (tests/70-lifetimes.sh) for kplife=ROUNDS (default 20);
#  3. detach under load (tests/93-detach-churn.sh) for kpchurn=SECONDS
#     (default 60): hitters on every CPU while perf kprobes (with and
#     without BPF, kprobes and kretprobes) are opened and closed and
#     kprobe events created, enabled, disabled and removed (one by one,
#     many in one write, O_TRUNC) on the same functions;
#  4. a kprobe on the entry of every function of the core kernel that
#     registration accepts (kpstress_stride=K: every K-th only;
#     kpstress_max=N: the first N only), while a workload runs (processes,
#     file I/O, module load and unload, loopback networking); then all of
#     them removed in one batch;
#  5. with kmemleak in the kernel (the debug flavour), a scan: any leak
#     fails.
# kpstress_chunk=N: names per write in phase 4 (default 2000).
# kpstress_sysrq=1: on an RCU-tasks stall report, the holdouts' task lines
# and stacks (info level: the console shows warnings only) and every
# task's state (sysrq-t) go to the console, once.
# Prints "KPSTRESS key value" lines and KPTEST verdicts; the host counts
# kernel reports.
. /guest/lib.sh
S=/sys/kernel/debug/kp_stress
KML=/sys/kernel/debug/kmemleak
export KPCONC_SECONDS=120 KPLIFE_ROUNDS=20 KPCHURN_SECONDS=60
stride=1
chunk=2000
sysrq=
verbose=
for a in $(cat /proc/cmdline); do
	case $a in
	kpconc=*) KPCONC_SECONDS=${a#kpconc=} ;;
	kplife=*) KPLIFE_ROUNDS=${a#kplife=} ;;
	kpchurn=*) KPCHURN_SECONDS=${a#kpchurn=} ;;
	kpstress_stride=*) stride=${a#kpstress_stride=} ;;
	kpstress_chunk=*) chunk=${a#kpstress_chunk=} ;;
	kpstress_sysrq=1) sysrq=1 ;;
	kpstress_verbose=1) verbose=verbose=1 ;;
	kpstress_noopt=1) echo 0 > /proc/sys/debug/kprobes-optimization ;;
	esac
done
if [ -n "$sysrq" ]; then
	(
		while sleep 5; do
			dmesg | grep -q 'detected stalls on tasks' || continue
			echo 8 > /proc/sys/kernel/printk
			echo "KPSTRESS rcu-tasks stall: the report, at every level"
			dmesg | sed -n '/detected stalls on tasks/,$p' | head -300
			echo t > /proc/sysrq-trigger
			echo 5 > /proc/sys/kernel/printk
			break
		done
	) &
fi
# Leaks from before the stress (boot) are not ours to report: a scan
# must have reported them before "clear" sets them aside.
[ -w $KML ] && sh ./kmemleak.sh before
if [ "$KPCONC_SECONDS" != 0 ]; then
	t0=$(date +%s)
	sh tests/60-concurrency.sh | sed 's/^KPTEST conc\./KPTEST stress.conc./'
	echo "KPSTRESS concurrency-seconds $(( $(date +%s) - t0 ))"
fi
if [ "$KPLIFE_ROUNDS" != 0 ]; then
	t0=$(date +%s)
	sh tests/70-lifetimes.sh | sed 's/^KPTEST life\./KPTEST stress.life./'
	echo "KPSTRESS lifetimes-seconds $(( $(date +%s) - t0 ))"
fi
if [ "$KPCHURN_SECONDS" != 0 ]; then
	t0=$(date +%s)
	sh tests/93-detach-churn.sh | sed 's/^KPTEST churn\./KPTEST stress.churn./'
	echo "KPSTRESS churn-seconds $(( $(date +%s) - t0 ))"
fi
insmod $KP_MOD/kp_stress.ko $verbose || fail stress.load
insmod $KP_MOD/kp_target.ko

# Core kernel text symbols (module symbols carry a [module] column).
awk 'NF == 3 && ($2 == "t" || $2 == "T") { print $3 }' /proc/kallsyms |
	sort -u | awk -v k="$stride" '(NR - 1) % k == 0' > /tmp/funcs
# kpstress_max=N on the kernel command line takes the first N only.
for a in $(cat /proc/cmdline); do
	case $a in kpstress_max=*) head -n "${a#kpstress_max=}" /tmp/funcs > /tmp/f2 && mv /tmp/f2 /tmp/funcs ;; esac
done
echo "KPSTRESS candidates $(wc -l < /tmp/funcs) stride $stride"
t0=$(date +%s)
# In chunks, with progress on the console.
awk -v n="$chunk" '{ print > ("/tmp/chunk." int((NR - 1) / n)) }' /tmp/funcs
for c in $(ls /tmp/chunk.* | sort -t. -k2 -n); do
	cat "$c" > $S/probe
	echo "KPSTRESS progress $c $(head -n 1 $S/stats) at +$(( $(date +%s) - t0 ))s"
	rm -f "$c"
done
echo "KPSTRESS register-seconds $(( $(date +%s) - t0 ))"
sed 's/^/KPSTRESS armed /' $S/stats
accepted=$(awk '/^accepted/ { print $2 }' $S/stats)
# Many take a probe: about half of the text symbols are the __pfx_
# padding in front of functions (refused), the rest of the refusals are
# the blacklist, entry and noinstr text...
check stress.accepted-many test "${accepted:-0}" -gt $(( $(wc -l < /tmp/funcs) / 3 ))
check stress.list-lines test "$(wc -l < $KP_DBG/list)" -ge "${accepted:-0}"

# The workload, every probe armed.
t0=$(date +%s)
i=0
while [ $i -lt 20 ]; do
	sh -c 'echo $$ > /dev/null'
	i=$((i + 1))
done
check stress.workload-fork /bin/true
dd if=/dev/zero of=/tmp/stress.f bs=4k count=64 2>/dev/null
check stress.workload-file cmp /tmp/stress.f /tmp/stress.f
rm -f /tmp/stress.f
check stress.workload-rmmod rmmod kp_target
check stress.workload-insmod insmod $KP_MOD/kp_target.ko
kcall 3
# kp_target_func(i) = 3i + 1 for i = 0, 1, 2
expect_eq stress.workload-module-result "$(cat /sys/kernel/debug/kp_target/result)" 12
(nc -l -p 5555 > /tmp/nc.out 2>/dev/null &)
sleep 1
echo kprobes | nc 127.0.0.1 5555 2>/dev/null
sleep 1
check stress.workload-loopback grep -qx kprobes /tmp/nc.out
echo "KPSTRESS workload-seconds $(( $(date +%s) - t0 ))"
sed 's/^/KPSTRESS after /' $S/stats
hits=$(awk '/^accepted/ { print $4 }' $S/stats)
check stress.hits-counted test "${hits:-0}" -gt 0

# All of them go in one batch; nothing of them is left.
t0=$(date +%s)
echo 1 > $S/clear
echo "KPSTRESS unregister-seconds $(( $(date +%s) - t0 ))"
expect_eq stress.list-empty "$(wc -l < $KP_DBG/list)" 0
check stress.unload rmmod kp_stress
rmmod kp_target

# No console noise from the probes that were refused optimization: the
# arm64 optimizer asks a branch's reach itself (with KASAN the detour
# buffers are out of reach), rather than through the encoder, which
# logs every refusal.
check stress.no-encoder-noise sh -c "! dmesg | grep -q 'label_imm_common'"

[ -w $KML ] && sh ./kmemleak.sh after | sed 's/ kmemleak\.no-leaks / stress.kmemleak /'
