# SPDX-License-Identifier: GPL-2.0
# Helpers of the guest-side tests: each check prints one line
# "KPTEST <name> PASS|FAIL|SKIP [why]" that the host counts.  Every name
# that runs must be in tools/testing/kprobes/inventory for the flavour
# and arch, and a SKIP fails the check unless the inventory allows it
# there, with its reason.
KP_DBG=/sys/kernel/debug/kprobes
KP_TR=/sys/kernel/tracing
KP_MOD=/guest/modules

pass() { echo "KPTEST $1 PASS"; }
fail() { echo "KPTEST $1 FAIL ${2:-}"; }
skip() { echo "KPTEST $1 SKIP ${2:-}"; }
# check NAME CMD...: PASS if CMD succeeds
check() {
	n=$1
	shift
	if "$@"; then pass "$n"; else fail "$n" "($*)"; fi
}
# expect_eq NAME GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '$2' want '$3'"; fi
}
ours() { [ "$KP_FLAVOUR" = ours ]; }
# The teardown series for the plain base (patches/teardown/): in ours,
# which sits on it, in fixes (the plain base with both of its series) and
# in teardown (the plain base with it alone).
teardown() { case $KP_FLAVOUR in ours|fixes|teardown) true ;; *) false ;; esac; }
param() { cat "/sys/module/$1/parameters/$2"; }
kcall() { echo "$1" > /sys/kernel/debug/kp_target/call; }
# the list line of a probe on SYMBOL
list_line() { grep " $1" "$KP_DBG/list"; }
# Offsets past a function's entry where an optimizable probe may sit:
# x86_64 has ENDBR + fentry call (9 bytes) there, arm64 fixed 4-byte
# instructions.
opt_offsets() {
	if [ "$KP_ARCH" = aarch64 ]; then echo 4 8 12 16 20 24 28 32
	else echo 9 10 11 12 13 14 15 16 17 18; fi
}
