# SPDX-License-Identifier: GPL-2.0
# BPF kprobe programs, attached as libbpf, bpftrace and perf attach them
# (perf_event_open() of the kprobe PMU, PERF_EVENT_IOC_SET_BPF), see what
# they see on upstream: bpf_get_func_ip() is the function's address at
# its entry, for a kprobe and for a kretprobe (from the return handler,
# where kprobe_running() must be the kretprobe's own probe), and 0 past
# the entry; the ip of the hit's pt_regs is the probed address plus one
# on x86_64 (as after the int3, on every path), the address on arm64;
# arguments and return values are the real ones; bpf_override_return()
# makes an error-injectable function return an error (it moves the ip
# from the pre_handler).  kp_bpf (guest/kp_bpf.c) loads the programs.
# Runs unchanged on both flavours.
. /guest/lib.sh
if ! command -v kp_bpf > /dev/null; then
	fail bpf.tool-built
	return 0 2>/dev/null || exit 0
fi
insmod $KP_MOD/kp_target.ko
KT=/sys/kernel/debug/kp_target
sym=$(awk '$3 == "kp_target_func" { print $1; exit }' /proc/kallsyms)
site=$(awk '$2 == "kp_target_func" { print $1; exit }' $KP_TR/available_filter_functions_addrs)
if [ "$KP_ARCH" = x86_64 ]; then ipadj=1; else ipadj=0; fi

# bpf_field LINE NAME: the value of NAME=... in kp_bpf's line
bpf_field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# hexeq A B: two hex numbers (without 0x) are equal
hexeq() { [ -n "$1" ] && [ -n "$2" ] && [ $((0x$1)) -eq $((0x$2)) ]; }
# the address kprobes/list shows for the (one) probe on kp_target_func
listed() { cut -d' ' -f1 /tmp/bpf.list | head -n 1; }
# bpf_expect NAME LINE HITS FUNC_IP: the program attached, the command
# ran to its end, the program counted HITS hits and bpf_get_func_ip()
# gave FUNC_IP (hex)
bpf_expect() {
	echo "$2" | sed 's/^/  /'
	expect_eq "$1.attach" "$(bpf_field "$2" ret) $(bpf_field "$2" status)" "0 0"
	expect_eq "$1.hits" "$(bpf_field "$2" hits)" "$3"
	if hexeq "$(bpf_field "$2" func_ip)" "$4"; then pass "$1.func_ip"; else
		fail "$1.func_ip" "(got $(bpf_field "$2" func_ip), want $4)"; fi
}

# A kprobe at the entry (x86_64: its ftrace site; arm64: a BRK).
out=$(kp_bpf kp_target_func 0 "echo 3 > $KT/call; grep ' kp_target_func' $KP_DBG/list > /tmp/bpf.list")
bpf_expect bpf.kprobe "$out" 3 "$sym"
expect_eq bpf.kprobe.arg "$(bpf_field "$out" reg)" 2
at=$(listed)
if [ -n "$at" ] && hexeq "$(bpf_field "$out" ctx_ip)" "$(printf '%x' $((0x$at + ipadj)))"; then
	pass bpf.kprobe.ctx_ip
else
	fail bpf.kprobe.ctx_ip "(got $(bpf_field "$out" ctx_ip), probe at $at)"
fi
[ -s /tmp/bpf.list ] || fail bpf.kprobe.listed
# Closing the event does not wait for its kprobe: the reaper unregisters
# it soon after (a grace period; seconds at most under TCG).
gone=0
for i in $(seq 100); do
	grep -q ' kp_target_func' $KP_DBG/list || { gone=1; break; }
	sleep 0.1
done
[ $gone = 1 ] || fail bpf.kprobe.detached "(still listed after 10 s)"

# A kretprobe: the return handler sees the function's entry address
# through bpf_get_func_ip() and the real return value (3 * 2 + 1).
out=$(kp_bpf -r kp_target_func 0 "echo 3 > $KT/call")
bpf_expect bpf.kretprobe "$out" 3 "$sym"
expect_eq bpf.kretprobe.retval "$(bpf_field "$out" reg)" 7

# Past the entry (the first instruction after the ftrace site): not a
# function entry, so bpf_get_func_ip() is 0; hit as a breakpoint or,
# once optimized, through its jump: the ip is the same either way.
if [ -n "$site" ]; then
	if [ "$KP_ARCH" = x86_64 ]; then off=$((0x$site - 0x$sym + 5)); else
		off=$((0x$site - 0x$sym + 4)); fi
	out=$(kp_bpf kp_target_func $off "echo 3 > $KT/call; grep ' kp_target_func' $KP_DBG/list > /tmp/bpf.list")
	bpf_expect bpf.kprobe.body "$out" 3 0
	want=$(printf '%x' $((0x$sym + off + ipadj)))
	if hexeq "$(bpf_field "$out" ctx_ip)" "$want"; then pass bpf.kprobe.body.ctx_ip; else
		fail bpf.kprobe.body.ctx_ip "(got $(bpf_field "$out" ctx_ip), want $want)"; fi
else
	fail bpf.kprobe.body "(no ftrace site of kp_target_func)"
fi

# Stacks, as bpftrace's kstack and profilers read them (bpf_get_stack()):
# from the entry kprobe, the probed function and then its caller; from
# the kretprobe, the caller first (the real return address, not the
# trampoline) and no kprobes trampoline anywhere in the stack.
# sym_at HEX: the text symbol at an address (kallsyms, compared as
# fixed-width hex strings: awk's numbers cannot hold 64-bit addresses)
sym_at() {
	awk -v a="$(printf '%016x' $((0x$1)))" '($2 == "t" || $2 == "T") &&
		($1 "") <= a && ($1 "") > (best "") { best = $1; name = $3 }
		END { print name }' /proc/kallsyms
}
# frame N LINE: the Nth frame (from 1) of kp_bpf's line
frame() { bpf_field "$2" frames | cut -d, -f"$1"; }
# stack_has LINE SYM FIRST LAST: SYM among frames FIRST..LAST
stack_has() {
	local i f
	for i in $(seq "$3" "$4"); do
		f=$(frame "$i" "$1")
		[ -n "$f" ] && [ "$(sym_at "$f")" = "$2" ] && return 0
	done
	return 1
}
# no_trampoline LINE: no frame is a trampoline's
no_trampoline() {
	local f
	for f in $(bpf_field "$1" frames | tr ',' ' '); do
		case $(sym_at "$f") in *trampoline*) return 1 ;; esac
	done
	return 0
}
out=$(kp_bpf -s kp_target_func 0 "echo 1 > $KT/call")
echo "$out" | sed 's/^/  /'
expect_eq bpf.stack.kprobe.attach "$(bpf_field "$out" ret) $(bpf_field "$out" status)" "0 0"
expect_eq bpf.stack.kprobe.first "$(sym_at "$(frame 1 "$out")")" kp_target_func
# arm64, both flavours: at the entry the return address is still in the
# link register, in no frame record, so the unwinder goes from the
# function to its caller's caller; x86_64's return address is on the stack.
if [ "$KP_ARCH" = x86_64 ]; then
	if stack_has "$out" kp_call_write 2 4; then pass bpf.stack.kprobe.caller; else
		fail bpf.stack.kprobe.caller; fi
elif [ "$(bpf_field "$out" stack)" -gt 16 ] 2>/dev/null && no_trampoline "$out"; then
	pass bpf.stack.kprobe.caller
else
	fail bpf.stack.kprobe.caller
fi
out=$(kp_bpf -r -s kp_target_func 0 "echo 1 > $KT/call")
echo "$out" | sed 's/^/  /'
expect_eq bpf.stack.kretprobe.attach "$(bpf_field "$out" ret) $(bpf_field "$out" status)" "0 0"
expect_eq bpf.stack.kretprobe.first "$(sym_at "$(frame 1 "$out")")" kp_call_write
if [ "$(bpf_field "$out" stack)" -gt 8 ] 2>/dev/null && no_trampoline "$out"; then
	pass bpf.stack.kretprobe.no-trampoline
else
	fail bpf.stack.kretprobe.no-trampoline
fi

# Error injection: bpf_override_return(ctx, -ENOMEM) on an
# ALLOW_ERROR_INJECTION function; the write that calls it fails with
# ENOMEM, and works again once the program is gone.
out=$(kp_bpf -o 12 kp_target_fallible 0 "echo 1 > $KT/fallible")
echo "$out" | sed 's/^/  /'
expect_eq bpf.override.attach "$(bpf_field "$out" ret)" 0
expect_eq bpf.override.hits "$(bpf_field "$out" hits)" 1
if [ "$(bpf_field "$out" status)" != 0 ]; then pass bpf.override.write-failed; else
	fail bpf.override.write-failed; fi
expect_eq bpf.override.errno "$(cat $KT/fallible_errno)" 12
check bpf.override.gone sh -c "echo 1 > $KT/fallible"
expect_eq bpf.override.gone.errno "$(cat $KT/fallible_errno)" 0

# The event holds the last reference to its program when it is closed.
# The program is freed in the end on every flavour.  With the teardown
# series (patches/teardown/: ours, fixes) the reference goes after an
# RCU grace period, without close() waiting for it, so right after
# close() the program still exists (a run that began before may still be
# executing it): seen in at least one of five tries, where a reference
# dropped at once is never seen.
alive=0 gone=1
for try in 1 2 3 4 5; do
	out=$(kp_bpf -l kp_target_func 0 "echo 3 > $KT/call")
	echo "$out" | sed 's/^/  /'
	line=$(echo "$out" | tail -n 1)
	[ "$(bpf_field "$line" last_ref_alive)" = 1 ] && alive=$((alive + 1))
	[ "$(bpf_field "$line" gone)" = 1 ] || gone=0
done
expect_eq bpf.last-ref.freed "$gone" 1
if teardown; then
	if [ "$alive" -ge 1 ]; then pass bpf.last-ref.after-grace-period; else
		fail bpf.last-ref.after-grace-period "(the program was gone when close() returned, 5 of 5)"; fi
fi

# Who waits for an RCU-tasks-trace grace period at the detach: a uprobe
# event runs its programs under rcu_read_lock_trace() and must (every
# flavour); a kprobe event need not, and with the teardown series does
# not.  The function tracer on synchronize_rcu_tasks_trace() called by
# perf_event_detach_bpf_prog() (the uprobe's own unregistration waits
# too: uprobe_unregister_sync()).  The uprobe sits at kp_bpf's own
# main(), which has run by then: registered, never hit.
echo 0 > $KP_TR/tracing_on
echo synchronize_rcu_tasks_trace > $KP_TR/set_ftrace_filter
echo function > $KP_TR/current_tracer
echo > $KP_TR/trace
echo 1 > $KP_TR/tracing_on
out=$(kp_bpf kp_target_func 0 "echo 1 > $KT/call")
echo 0 > $KP_TR/tracing_on
kwaits=$(grep -c 'synchronize_rcu_tasks_trace <-perf_event_detach_bpf_prog' $KP_TR/trace)
echo > $KP_TR/trace
echo 1 > $KP_TR/tracing_on
out=$(kp_bpf -u self 0 true)
echo "$out" | sed 's/^/  /'
echo 0 > $KP_TR/tracing_on
uwaits=$(grep -c 'synchronize_rcu_tasks_trace <-perf_event_detach_bpf_prog' $KP_TR/trace)
echo nop > $KP_TR/current_tracer
echo > $KP_TR/set_ftrace_filter
echo 1 > $KP_TR/tracing_on
echo "  tasks-trace waits at detach: kprobe $kwaits, uprobe $uwaits"
expect_eq bpf.uprobe.attach "$(bpf_field "$out" ret)" 0
if [ "$uwaits" -ge 1 ]; then pass bpf.uprobe.detach-waits-tasks-trace; else
	fail bpf.uprobe.detach-waits-tasks-trace "(no synchronize_rcu_tasks_trace() at the detach)"; fi
if teardown; then
	expect_eq bpf.kprobe.detach-no-tasks-trace "$kwaits" 0
fi
rmmod kp_target
