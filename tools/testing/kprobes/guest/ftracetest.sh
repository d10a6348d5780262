# SPDX-License-Identifier: GPL-2.0
# kpmode=ftracetest: the base's own ftrace selftests for kprobes
# (tools/testing/selftests/ftrace/test.d/kprobe/, unchanged), run by the
# base's ftracetest, one case per run so that each result has its file's
# name.  Prints "KPFTRACE kprobe/NAME.tc PASS|FAIL|UNSUPPORTED|UNRESOLVED|
# UNTESTED|XFAIL|UNDEFINED|NORESULT", and the log of every case that did
# not pass as "KPFTLOG kprobe/NAME.tc ..." lines.
FT=/guest/ftrace
# kprobe_module.tc loads the trace-printk sample with modprobe.
depmod 2>/dev/null || echo "KPFTLOG depmod failed"
echo "KPFTRACE-START $(ls $FT/test.d/kprobe/*.tc | wc -l) cases"
for t in $FT/test.d/kprobe/*.tc; do
	n=kprobe/${t##*/}
	rm -rf /tmp/ftlog
	out=$(cd $FT && ./ftracetest -l /tmp/ftlog "$t" 2>&1)
	r=$(echo "$out" | sed -n 's/^\[1\].*\[\([A-Z]*\)\][[:space:]]*$/\1/p' | tail -n 1)
	echo "KPFTRACE $n ${r:-NORESULT}"
	[ "$r" = PASS ] && continue
	{
		echo "$out"
		cat /tmp/ftlog/*-log.* 2>/dev/null
	} | tail -n 60 | sed "s|^|KPFTLOG $n |"
done
