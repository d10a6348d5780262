# SPDX-License-Identifier: GPL-2.0
# Kprobes on ftrace beside a live patch: the base's livepatch-sample.ko
# patches cmdline_proc_show(); a kprobe event (no post_handler) on that
# function shares its ftrace site with the live patch, in both orders,
# as upstream allows.  /proc/cmdline shows the patched text and the
# event counts the hit.  Runs unchanged on both flavours.
. /guest/lib.sh
LP=/sys/kernel/livepatch/livepatch_sample
lpmod=/guest/samples/livepatch-sample.ko
if [ ! -f $lpmod ]; then
	# arm64 6.12 has no live patching (no HAVE_LIVEPATCH); x86_64 builds
	# the sample (configs/x86_64.config), so a skip there fails the run.
	echo "KPTEST livepatch SKIP (no livepatch-sample.ko on $KP_ARCH)"
	return 0 2>/dev/null || exit 0
fi

# lp_wait: the patch's transition is over
lp_wait() {
	i=0
	while [ "$(cat $LP/transition 2>/dev/null)" != 0 ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "$(cat $LP/transition 2>/dev/null)" = 0 ]
}
lp_on() { insmod $lpmod && lp_wait; }
lp_off() {
	echo 0 > $LP/enabled && lp_wait
	i=0
	while [ -d $LP ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	rmmod livepatch_sample
}
patched() { grep -q 'this has been live patched' /proc/cmdline; }
ev_on() {
	echo 'p:kp_lp cmdline_proc_show' >> $KP_TR/kprobe_events &&
		echo 1 > $KP_TR/events/kprobes/kp_lp/enable
}
ev_off() {
	echo 0 > $KP_TR/events/kprobes/kp_lp/enable
	echo '-:kp_lp' >> $KP_TR/kprobe_events
}
hits() { awk '$1 == "kp_lp" { print $2 }' $KP_TR/kprobe_profile; }

# 1. The live patch first, then the probe.
check livepatch.first.load lp_on
check livepatch.first.patched patched
check livepatch.first.then-kprobe ev_on
before=$(hits)
check livepatch.first.still-patched patched
expect_eq livepatch.first.kprobe-hit "$(( $(hits) - ${before:-0} ))" 1
ev_off
check livepatch.first.unload lp_off
if patched; then fail livepatch.first.unpatched; else pass livepatch.first.unpatched; fi

# 2. The probe first, then the live patch.
check livepatch.second.kprobe ev_on
check livepatch.second.then-load lp_on
before=$(hits)
check livepatch.second.patched patched
expect_eq livepatch.second.kprobe-hit "$(( $(hits) - ${before:-0} ))" 1
check livepatch.second.unload lp_off
before=$(hits)
if patched; then fail livepatch.second.unpatched; else pass livepatch.second.unpatched; fi
expect_eq livepatch.second.kprobe-hit-unpatched "$(( $(hits) - ${before:-0} ))" 1
ev_off
