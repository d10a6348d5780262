# SPDX-License-Identifier: GPL-2.0
# The fixes flavour only (patches/fixes, fixes.sh): a kprobe registration
# held between register_kprobe()'s module check and kprobe_mutex while
# the probed module's load fails (kp_fx_modrace.c says how).  The
# registration must fail: the module's text is being freed and kprobes'
# GOING notifier has already passed.  The base without the fix registers
# and arms the probe in that text.
. /guest/lib.sh
[ "$KP_FLAVOUR" = fixes ] || exit 0
check fixes.modrace-load-helper insmod $KP_MOD/kp_fx_modrace.ko
if insmod $KP_MOD/kp_fx_modtarget.ko val=x 2>/dev/null; then
	fail fixes.modrace-load-fails
else
	pass fixes.modrace-load-fails
fi
expect_eq fixes.modrace-window-held "$(param kp_fx_modrace held)" 1
ret=$(param kp_fx_modrace reg_ret)
if [ "$ret" = 0 ]; then
	fail fixes.modrace-refused "register_kprobe() returned 0: a probe armed in freed module text"
	grep kp_fx "$KP_DBG/list" 2>/dev/null
	head -5 "$KP_DBG/list"
else
	expect_eq fixes.modrace-refused "$ret" -2
fi
