# SPDX-License-Identifier: GPL-2.0
# perf's side band sees kprobes' text changes, as upstream reports them
# (Intel PT decoders rely on them): PERF_RECORD_TEXT_POKE for arming and
# disarming a breakpoint probe (and for the copy in its slot), and
# PERF_RECORD_KSYMBOL for an instruction slot page when one is made.
# kp_perfsb (guest/kp_perfsb.c) records while a kprobe event comes and
# goes.  Runs unchanged on both flavours.
. /guest/lib.sh
if ! command -v kp_perfsb > /dev/null; then
	fail perf.tool-built
	return 0 2>/dev/null || exit 0
fi
insmod $KP_MOD/kp_target.ko
# A breakpoint probe: on x86_64 past the ftrace site (a probe on the site
# goes through ftrace, which reports its own changes), elsewhere the entry.
sym=$(awk '$3 == "kp_target_func" { print $1; exit }' /proc/kallsyms)
site=$(awk '$2 == "kp_target_func" { print $1; exit }' $KP_TR/available_filter_functions_addrs)
off=0
if [ "$KP_ARCH" = x86_64 ] && [ -n "$site" ]; then
	off=$(( 0x$site - 0x$sym + 5 ))
fi
pages_before=$(grep -c -w 'kprobe_insn_page' /proc/kallsyms)
kp_perfsb "echo 'p:kp_sb kp_target_func+$off' >> $KP_TR/kprobe_events &&
	echo 1 > $KP_TR/events/kprobes/kp_sb/enable &&
	grep kp_target_func $KP_DBG/list > /tmp/sb.list;
	grep -w kprobe_insn_page /proc/kallsyms > /tmp/sb.ksyms;
	echo 3 > /sys/kernel/debug/kp_target/call;
	echo 0 > $KP_TR/events/kprobes/kp_sb/enable;
	echo '-:kp_sb' >> $KP_TR/kprobe_events" > /tmp/sb.out
check perf.recorded grep -q '^DONE cpus [1-9][0-9]* status 0' /tmp/sb.out
addr=$(cut -d' ' -f1 /tmp/sb.list | head -n 1)
# Upstream 6.12 reports text pokes on x86 only; ours on arm64 too.
if [ "$KP_ARCH" = x86_64 ] || ours; then
	grep "^POKE $addr " /tmp/sb.out > /tmp/sb.pokes
	n=$(wc -l < /tmp/sb.pokes)
	if [ "$n" -ge 2 ]; then pass perf.poke.arm-and-disarm; else
		fail perf.poke.arm-and-disarm "($n records at $addr)"; fi
	# The last change puts back what the first one found.
	first_old=$(head -n 1 /tmp/sb.pokes | cut -d' ' -f5)
	last_new=$(tail -n 1 /tmp/sb.pokes | cut -d' ' -f6)
	if [ -n "$first_old" ] && [ "${last_new#"$first_old"}" != "$last_new" ]; then
		pass perf.poke.restored
	else
		fail perf.poke.restored "(first old $first_old, last new $last_new)"
	fi
	# The copy of the probed instruction in its slot is new text too.
	if grep -q '^POKE [0-9a-f]* 0 [1-9]' /tmp/sb.out; then pass perf.poke.slot; else
		fail perf.poke.slot; fi
fi
if [ "$pages_before" = 0 ]; then
	check perf.ksymbol.insn-page grep -q '^KSYM .* kprobe_insn_page$' /tmp/sb.out
else
	echo "KPTEST perf.ksymbol.insn-page SKIP (a slot page existed already)"
fi
# The slot pages in /proc/kallsyms, as tools parse them (perf reads the
# module column): "ADDR t kprobe_insn_page\t[__builtin__kprobes]".
if [ -s /tmp/sb.ksyms ] && ! grep -qvE \
	'^[0-9a-f]+ t kprobe_insn_page[[:space:]]+\[__builtin__kprobes\]$' /tmp/sb.ksyms; then
	pass kallsyms.insn-page-line
else
	fail kallsyms.insn-page-line "($(head -n 1 /tmp/sb.ksyms))"
fi
grep -q '^LOST' /tmp/sb.out && fail perf.no-lost-records

# Jump optimization (x86_64 on both flavours; arm64 ours only, upstream
# 6.12 has none there): the jump written over an optimized probe and
# taken away again are text pokes, and a detour buffer page made for it
# is a KSYMBOL.  Recorded: kprobe events on the instruction boundaries
# past vfs_read's entry, one at a time, until one is optimized; it is
# hit, disabled and removed.
if [ "$KP_ARCH" = x86_64 ] || ours; then
	offs=$(opt_offsets)
	cat > /tmp/sbo.sh <<EOS
: > /tmp/sbo.list
for off in $offs; do
	echo "p:kp_sbo vfs_read+\$off" >> $KP_TR/kprobe_events 2>/dev/null || continue
	echo 1 > $KP_TR/events/kprobes/kp_sbo/enable
	# kprobes/list shows the offset in hex
	at=\$(printf 'vfs_read+0x%x' \$off)
	for i in \$(seq 30); do
		grep -q " \$at .*OPTIMIZED" $KP_DBG/list && break
		sleep 0.1
	done
	if grep -q " \$at .*OPTIMIZED" $KP_DBG/list; then
		# listed when queued (as upstream does): the optimizer still
		# waits for an RCU-tasks grace period, seconds under TCG
		sleep 5
		grep " \$at " $KP_DBG/list > /tmp/sbo.list
		dd if=/proc/version of=/dev/null 2>/dev/null
	fi
	echo 0 > $KP_TR/events/kprobes/kp_sbo/enable
	sleep 1
	echo '-:kp_sbo' >> $KP_TR/kprobe_events
	[ -s /tmp/sbo.list ] && break
done
EOS
	opages_before=$(grep -c -w 'kprobe_optinsn_page' /proc/kallsyms)
	kp_perfsb "sh /tmp/sbo.sh" > /tmp/sbo.out
	check perf.opt.recorded grep -q '^DONE cpus [1-9][0-9]* status 0' /tmp/sbo.out
	check perf.opt.optimized grep -q 'OPTIMIZED' /tmp/sbo.list
	oaddr=$(cut -d' ' -f1 /tmp/sbo.list | head -n 1)
	# The jump's first byte: x86 e9; an arm64 B has 0x14 to 0x17 in
	# its top byte, the last of the four in memory order.
	if [ "$KP_ARCH" = x86_64 ]; then jre='e9[0-9a-f]*'
	else jre='[0-9a-f]{6}1[4-7]'; fi
	check perf.opt.poke-jump grep -qE "^POKE ${oaddr:-none} [0-9]+ [0-9]+ [0-9a-f]* $jre\$" /tmp/sbo.out
	check perf.opt.poke-unjump grep -qE "^POKE ${oaddr:-none} [0-9]+ [0-9]+ $jre " /tmp/sbo.out
	grep -qE "^POKE ${oaddr:-none} [0-9]+ [0-9]+ [0-9a-f]* $jre\$" /tmp/sbo.out ||
		grep "^POKE ${oaddr:-none} " /tmp/sbo.out | sed 's/^/perf.opt: /'
	if [ "$opages_before" = 0 ]; then
		check perf.ksymbol.optinsn-page grep -q '^KSYM .* kprobe_optinsn_page$' /tmp/sbo.out
	else
		echo "KPTEST perf.ksymbol.optinsn-page SKIP (a detour page existed already)"
	fi
	grep -q '^LOST' /tmp/sbo.out && fail perf.opt.no-lost-records
fi
rmmod kp_target
