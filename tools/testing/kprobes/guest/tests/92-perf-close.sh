# SPDX-License-Identifier: GPL-2.0
# A closed perf kprobe gets no further hit or BPF run: once close() of a
# kprobe PMU event has returned and an RCU grace period has passed (the
# handlers that had begun have ended), its BPF program runs no more,
# however the kernel unregisters the probe behind it (at once or later,
# in a batch).  kp_detach closed (guest/kp_detach.c) counts the runs in
# a BPF map while a hitter pinned to the other CPU keeps calling the
# probed function (kp_target.ko's call file), closes the event, waits
# for a grace period with membarrier(MEMBARRIER_CMD_GLOBAL), and counts
# again over 200 ms and 5000 more calls.  A kprobe and a kretprobe.
# The hitter needs a CPU of its own: on one CPU the cases fail.
# Runs unchanged on both flavours.
. /guest/lib.sh
if ! command -v kp_detach > /dev/null; then
	fail perfclose.tool-built
	return 0 2>/dev/null || exit 0
fi
insmod $KP_MOD/kp_target.ko
call=/sys/kernel/debug/kp_target/call
online=$(grep -c '^processor' /proc/cpuinfo)
if [ "$online" -ge 2 ]; then pass perfclose.two-cpus; else
	fail perfclose.two-cpus "(only $online CPU online: the hitter needs one of its own)"; fi
# field LINE NAME: the value of NAME=... in kp_detach's line
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# closed NAME [-r]
closed() {
	local name=$1 out i
	shift
	out=$(kp_detach closed "$@" kp_target_func $call)
	echo "$out" | sed 's/^/  /'
	expect_eq "$name.ran" "$(field "$out" ret) $(field "$out" hitter_err)" "0 0"
	if [ "$(field "$out" ret)" != 0 ]; then
		# what did not run did not pass
		for c in runs-while-open no-run-after-close hitter-kept-calling unregistered; do
			fail "$name.$c" "(not run: ret=$(field "$out" ret))"
		done
		return
	fi
	# the program ran while the event was open: the case can fail
	if [ "$(field "$out" open_runs)" -gt 0 ] 2>/dev/null; then pass "$name.runs-while-open"; else
		fail "$name.runs-while-open" "(open_runs=$(field "$out" open_runs))"; fi
	expect_eq "$name.no-run-after-close" "$(field "$out" after_runs)" 0
	# and the function was called all the while
	if [ "$(field "$out" after_calls)" -ge 5000 ] 2>/dev/null &&
	   [ "$(field "$out" after_ms)" -ge 200 ] 2>/dev/null; then
		pass "$name.hitter-kept-calling"
	else
		fail "$name.hitter-kept-calling" "(after_calls=$(field "$out" after_calls) after_ms=$(field "$out" after_ms))"
	fi
	# the probe itself goes too, at once or a little later
	i=0
	while grep -q ' kp_target_func' $KP_DBG/list && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if grep -q ' kp_target_func' $KP_DBG/list; then
		fail "$name.unregistered" "($(grep ' kp_target_func' $KP_DBG/list | head -n 1))"
	else
		pass "$name.unregistered"
	fi
}
closed perfclose.kprobe
closed perfclose.kretprobe -r

# A closed kretprobe diverts no more returns, even before it is
# unregistered: kp_detach inert closes eight decoy events first, so that
# the reaper of closed events is busy when the kretprobe's is closed,
# and kp_target.ko counts the calls whose return address was diverted.
# With the teardown series (patches/teardown/: ours, fixes) the closed
# event's kretprobe refuses new instances at once; on plain 6.12 close()
# waits until it is unregistered.
kt=/sys/kernel/debug/kp_target
out=$(kp_detach inert kp_target_ret $kt/retcall $kt/diverted \
	kp_target_func kp_target_fallible vfs_read vfs_write \
	vfs_open vfs_fstat vfs_getattr vfs_statx)
echo "$out" | sed 's/^/  /'
expect_eq perfclose.inert.ran "$(field "$out" ret)" 0
if [ "$(field "$out" open_diverted)" -gt 0 ] 2>/dev/null; then pass perfclose.inert.diverted-while-open; else
	fail perfclose.inert.diverted-while-open "(open_diverted=$(field "$out" open_diverted))"; fi
if [ "$(field "$out" after_calls)" -ge 5000 ] 2>/dev/null &&
   [ "$(field "$out" after_diverted)" -le 1 ] 2>/dev/null; then
	pass perfclose.inert.no-diversion-after-close
else
	fail perfclose.inert.no-diversion-after-close "(after_diverted=$(field "$out" after_diverted) of after_calls=$(field "$out" after_calls))"
fi
rmmod kp_target
