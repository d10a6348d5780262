# SPDX-License-Identifier: GPL-2.0
# Removing kprobe events in bulk: a write of several "-:" lines to
# kprobe_events or dynamic_events, and the truncating open that clears
# them.  What a user sees is upstream's (the events go, an enabled one is
# refused and the removals before it stand, the kprobes are gone when the
# write returns).  With the teardown series (patches/teardown/: the ours
# and fixes flavours) the kprobes of one write are unregistered as one
# batch, which the count of synchronize_rcu() calls the writing shell
# makes shows (a few for the batch, not one per event), and the type ids
# of the events a write removes are held until its end.
. /guest/lib.sh
insmod $KP_MOD/kp_target.ko
ev=$KP_TR/kprobe_events
de=$KP_TR/dynamic_events
# listed FUNC: probes on FUNC in kprobes/list
listed() { grep -c " $1+" $KP_DBG/list; }
# has_event NAME: the event is defined
has_event() { grep -q "^[pr][0-9]*:kpb/$1 " $ev; }
# add_events: twelve events kpb/e1..e12, three on each of four functions
FUNCS="kp_target_func kp_target_fallible vfs_read vfs_write"
add_events() {
	i=0
	for f in $FUNCS $FUNCS $FUNCS; do
		i=$((i + 1))
		echo "p:kpb/e$i $f" >> $ev || return 1
	done
}
# removal lines for kpb/e1..e12
removals() { for i in $(seq 12); do echo "-:kpb/e$i"; done; }
# nsync CMD...: NSYNC= the synchronize_rcu() calls this shell makes while
# CMD runs (the function tracer on synchronize_rcu, for this pid only:
# CMD must be a builtin or function, not a subshell).  In a trace
# instance of its own, whose buffer the removal of events does not reset.
I=$KP_TR/instances/kpbatch
mkdir -p $I
nsync() {
	echo 0 > $I/tracing_on
	echo synchronize_rcu > $I/set_ftrace_filter
	echo $$ > $I/set_ftrace_pid
	echo function > $I/current_tracer
	echo > $I/trace
	echo 1 > $I/tracing_on
	"$@"
	echo 0 > $I/tracing_on
	NSYNC=$(grep -c ': synchronize_rcu <-' $I/trace)
	# those of unregister_kprobes(): the batch's own grace period
	NUNREG=$(grep -c ': synchronize_rcu <-unregister_kprobes' $I/trace)
	echo nop > $I/current_tracer
	echo > $I/set_ftrace_filter
	echo > $I/set_ftrace_pid
}
# one write of all removal lines (a shell builtin: this pid writes)
remove_all() { printf '%s\n' $(removals) >> $ev; }
truncate_events() { : > $1; }

# enable_all, disable_all: every kpb/eN once on and off (an event that
# was ever enabled resets the trace buffers when it goes: one more
# grace period each, which the batch pays once)
enable_all() { for i in $(seq 12); do echo 1 > $KP_TR/events/kpb/e$i/enable; done; }
disable_all() { for i in $(seq 12); do echo 0 > $KP_TR/events/kpb/e$i/enable; done; }

# --- several removals in one write
check batch.add add_events
enable_all
disable_all
nsync remove_all
n=$NSYNC; echo "  synchronize_rcu() calls: $n"
gone=1
for i in $(seq 12); do has_event e$i && gone=0; done
expect_eq batch.write-removes "$gone" 1
expect_eq batch.write-unregisters "$(listed kp_target_func) $(listed kp_target_fallible)" "0 0"
if teardown; then
	# one unregister_kprobes() and one buffer reset for the batch, where
	# one by one it would be 24: exactly one grace period of
	# unregister_kprobes() (none would leave handlers running after the
	# write), and at most two for the reset (the buffer and the max
	# buffer of the top trace array)
	if [ "$NUNREG" -eq 1 ] && [ "$n" -ge 2 ] && [ "$n" -le 3 ]; then
		pass batch.write-one-grace-period; else
		fail batch.write-one-grace-period "($n synchronize_rcu() calls, $NUNREG by unregister_kprobes(), for 12 events)"; fi
fi

# --- the truncating open clears them, the same way
add_events
enable_all
disable_all
nsync truncate_events $ev
n=$NSYNC; echo "  synchronize_rcu() calls: $n"
expect_eq batch.clear-removes "$(grep -c '^[pr][0-9]*:kpb/' $ev)" 0
expect_eq batch.clear-unregisters "$(listed kp_target_func) $(listed kp_target_fallible)" "0 0"
if teardown; then
	if [ "$NUNREG" -eq 1 ] && [ "$n" -ge 2 ] && [ "$n" -le 3 ]; then
		pass batch.clear-one-grace-period; else
		fail batch.clear-one-grace-period "($n synchronize_rcu() calls, $NUNREG by unregister_kprobes(), for 12 events)"; fi
fi

# --- an enabled event stops the write; the removals before it stand
echo 'p:kpb/a kp_target_func' >> $ev
echo 'p:kpb/b kp_target_fallible' >> $ev
echo 1 > $KP_TR/events/kpb/b/enable
if printf -- '-:kpb/a\n-:kpb/b\n' >> $ev 2>/dev/null; then
	fail batch.enabled-refused "(the write succeeded)"
else
	pass batch.enabled-refused
fi
has_event a && fail batch.enabled-earlier-removed "(kpb/a still defined)" || pass batch.enabled-earlier-removed
expect_eq batch.enabled-earlier-unregistered "$(listed kp_target_func)" 0
has_event b && pass batch.enabled-kept || fail batch.enabled-kept
echo > $KP_TR/trace
echo 1 > /sys/kernel/debug/kp_target/fallible
echo 1 > /sys/kernel/debug/kp_target/fallible
expect_eq batch.enabled-still-fires "$(grep -c ' b: ' $KP_TR/trace)" 2
# the truncating open is refused as a whole while one is enabled
echo 'p:kpb/c kp_target_func' >> $ev
if (: > $ev) 2>/dev/null; then fail batch.clear-busy-refused; else pass batch.clear-busy-refused; fi
has_event c && pass batch.clear-busy-kept || fail batch.clear-busy-kept "(kpb/c went)"
echo 0 > $KP_TR/events/kpb/b/enable
: > $ev

# --- one event of two probes: removing both in one write removes the
# event (the second removal must not count the first as its sibling)
echo 'p:kpb/m kp_target_func' >> $ev
echo 'p:kpb/m kp_target_fallible' >> $ev
expect_eq batch.multi-probes "$(grep -c '^p:kpb/m ' $ev)" 2
printf -- '-:kpb/m kp_target_fallible\n-:kpb/m kp_target_func\n' >> $ev
expect_eq batch.multi-event-gone "$(grep -c 'kpb/m' $ev)" 0
[ -d $KP_TR/events/kpb/m ] && fail batch.multi-dir-gone "(events/kpb/m remains)" || pass batch.multi-dir-gone
expect_eq batch.multi-unregistered "$(listed kp_target_func) $(listed kp_target_fallible)" "0 0"
# removing one of the two keeps the event, which still fires
echo 'p:kpb/m kp_target_func' >> $ev
echo 'p:kpb/m kp_target_fallible' >> $ev
printf -- '-:kpb/m kp_target_fallible\n' >> $ev
expect_eq batch.multi-one-left "$(grep -c '^p:kpb/m ' $ev)" 1
echo > $KP_TR/trace
echo 1 > $KP_TR/events/kpb/m/enable
kcall 3
echo 0 > $KP_TR/events/kpb/m/enable
expect_eq batch.multi-one-fires "$(grep -c ' m: ' $KP_TR/trace)" 3
: > $ev

# --- removed and defined again in one write: the new one is live
echo 'p:kpb/r kp_target_func' >> $ev
check batch.readd sh -c "printf -- '-:kpb/r\np:kpb/r kp_target_func\n' >> $ev"
expect_eq batch.readd-listed "$(listed kp_target_func)" 1
echo > $KP_TR/trace
echo 1 > $KP_TR/events/kpb/r/enable
kcall 2
echo 0 > $KP_TR/events/kpb/r/enable
expect_eq batch.readd-fires "$(grep -c ' r: ' $KP_TR/trace)" 2
: > $ev

# --- the type id of an event removed in a write is not handed out
# before the end of the write, when the buffers holding its records are
# reset: an event defined later in the same write gets another one.
# kpb/t1 gets the lowest free id, so it is the lowest free id again once
# kpb/t1 is removed, and kpb/t3, defined after the write, gets it.
echo 'p:kpb/t1 kp_target_func' >> $ev
id1=$(cat $KP_TR/events/kpb/t1/id)
echo > $KP_TR/trace
echo 1 > $KP_TR/events/kpb/t1/enable
kcall 2
echo 0 > $KP_TR/events/kpb/t1/enable
expect_eq batch.type-recorded "$(grep -c ' t1: ' $KP_TR/trace)" 2
printf -- '-:kpb/t1\np:kpb/t2 kp_target_fallible\n' >> $ev
id2=$(cat $KP_TR/events/kpb/t2/id)
echo "  kpb/t1 id $id1, kpb/t2 defined in the write that removed it: id $id2"
expect_eq batch.type-reset "$(grep -c ' t1: ' $KP_TR/trace)" 0
if teardown; then
	if [ "$id2" != "$id1" ]; then pass batch.type-held; else
		fail batch.type-held "(kpb/t2 got kpb/t1's id $id1 while its records were in the buffer)"; fi
	echo 'p:kpb/t3 kp_target_func' >> $ev
	expect_eq batch.type-released "$(cat $KP_TR/events/kpb/t3/id)" "$id1"
fi
: > $ev

# --- a writer that waits in copy_from_user() (the page after its
# first commands faults, and kp_slowpage.ko holds the fault) holds no
# lock that other writers need: another write completes meanwhile.  The
# first write's commands have run; the rest of it runs when the page
# comes.
if command -v kp_detach > /dev/null && insmod $KP_MOD/kp_slowpage.ko; then
	SP=/sys/kernel/debug/kp_slowpage
	echo 'p:kpb/s1 kp_target_func' >> $ev
	out=$(kp_detach stall $ev $SP/page $SP/waiting $SP/release \
		'-:kpb/s1' 'p:kpb/s2 kp_target_fallible' "cat $ev > /tmp/stall.events")
	echo "  $out"
	sfield() { echo "$out" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
	expect_eq batch.stall.writer-waited "$(sfield ret) $(sfield stalled)" "0 1"
	expect_eq batch.stall.other-writer-done "$(sfield other_done) $(sfield other_status)" "1 0"
	expect_eq batch.stall.first-commands-ran "$(grep -c 'kpb/s1 ' /tmp/stall.events) $(grep -c 'kpb/s2 ' /tmp/stall.events)" "0 1"
	expect_eq batch.stall.writer-done "$(sfield writer_status)" 0
	expect_eq batch.stall.unregistered "$(listed kp_target_func)" 0
	: > $ev
	rmmod kp_slowpage
else
	fail batch.stall.setup "(kp_detach or kp_slowpage.ko missing)"
fi

# --- dynamic_events: several removals in one write, and its clear
echo 'p:kpb/d1 kp_target_func' >> $de
echo 'p:kpb/d2 kp_target_fallible' >> $de
printf -- '-:kpb/d1\n-:kpb/d2\n' >> $de
expect_eq batch.dynevents-write "$(grep -c 'kpb/' $de) $(listed kp_target_func) $(listed kp_target_fallible)" "0 0 0"
echo 'p:kpb/d1 kp_target_func' >> $de
echo 'p:kpb/d2 kp_target_fallible' >> $de
: > $de
expect_eq batch.dynevents-clear "$(grep -c 'kpb/' $de) $(listed kp_target_func) $(listed kp_target_fallible)" "0 0 0"
rmdir $I
rmmod kp_target
