# SPDX-License-Identifier: GPL-2.0
# The sample modules of samples/kprobes load, fire and unload.
. /guest/lib.sh
S=/guest/samples
dmesg -c > /dev/null
check samples.kprobe-load insmod $S/kprobe_example.ko symbol=kernel_clone
/bin/true
check samples.kprobe-fires sh -c "dmesg | grep -q '<kernel_clone>'"
check samples.kprobe-unload rmmod kprobe_example
dmesg -c > /dev/null
check samples.kretprobe-load insmod $S/kretprobe_example.ko func=kernel_clone
/bin/true
check samples.kretprobe-fires sh -c "dmesg | grep -q 'kernel_clone returned'"
check samples.kretprobe-unload rmmod kretprobe_example
# Ours has jprobes: the sample must be there.  Upstream has none.
if ours || [ -f $S/jprobe_example.ko ]; then
	dmesg -c > /dev/null
	check samples.jprobe-load insmod $S/jprobe_example.ko symbol=kernel_clone
	check samples.jprobe-listed sh -c "grep -q '  j  *kernel_clone+0x' $KP_DBG/list"
	/bin/true
	check samples.jprobe-fires sh -c "dmesg | grep -q '<kernel_clone> called: args'"
	check samples.jprobe-counts test "$(param jprobe_example hits)" -gt 0
	check samples.jprobe-unload rmmod jprobe_example
fi
