# SPDX-License-Identifier: GPL-2.0
# A [GONE] probe whose breakpoint is still in mapped text: kp_initfail's
# init fails after kp_gonehit put a kprobe in its text, and kp_gonehit
# calls the probed function from the module's GOING notification, after
# kprobes made the probe GONE and before the text is freed.  The trap
# must still be recognised (no oops: the console is checked for kernel
# reports), and the GONE probe's handler must not run.  Twice, so that
# the second module may land where the first one's text was.
. /guest/lib.sh
# Ours only: upstream 6.12 frees a gone probe's instruction slot and
# leaves its breakpoint, so the call from GOING oopses there (a NULL
# instruction fetch in kp_gonehit_module) and hangs the guest: a hazard
# of upstream's that ours closes (Documentation/trace/kprobes.rst).
ours || exit 0
check gone.load-helper insmod $KP_MOD/kp_gonehit.ko
# busybox insmod may try a second way after a failed init: each load
# counts one init call (a hit) and one call from GOING (no hit, GONE).
prev=0
for round in 1 2; do
	if insmod $KP_MOD/kp_initfail.ko 2>/dev/null; then
		fail gone.init-fails-$round
		rmmod kp_initfail
	else
		pass gone.init-fails-$round
	fi
	calls=$(param kp_gonehit going_calls)
	check gone.going-call-$round test "$calls" -gt "$prev"
	prev=$calls
	expect_eq gone.gone-at-going-$round "$(param kp_gonehit gone_seen)" "$calls"
	expect_eq gone.handler-not-run-$round "$(param kp_gonehit hits)" "$calls"
done
check gone.list-gone grep -q '\[GONE\]' $KP_DBG/list
check gone.rmmod-helper rmmod kp_gonehit
if grep -q '\[GONE\]' $KP_DBG/list; then fail gone.list-empty-after; else pass gone.list-empty-after; fi
