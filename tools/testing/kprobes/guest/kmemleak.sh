# SPDX-License-Identifier: GPL-2.0
# kmemleak.sh before|after: what the guest tests leaked, where the kernel
# has kmemleak (the debug flavour; its automatic scans are off, and its
# reports are informational messages, below the guest's console level:
# the guest asks for the scans and reads the file).
#
# kmemleak reports an object once it is at least 5 s old and unchanged
# since the previous scan: so two scans, 6 s apart.  "clear" sets aside
# only the objects a scan already reported.
#
#  before: what the boot left unreferenced (not the tests': the base
#          kernel's own boot-time allocations) is reported by two scans
#          and set aside with "clear";
#  after:  two scans, then /sys/kernel/debug/kmemleak must list nothing:
#          KPTEST kmemleak.no-leaks PASS, or FAIL with the first objects
#          listed on the console.
# A kmemleak that is off (it turns itself off on an internal error)
# cannot scan: KPTEST run.kmemleak-scan FAIL.
. /guest/lib.sh
KML=/sys/kernel/debug/kmemleak
scan2() {
	echo scan > $KML && sleep 6 && echo scan > $KML
}
case $1 in
before)
	scan2 && echo clear > $KML ||
		fail run.kmemleak-scan "(kmemleak cannot scan before the tests: off?)"
	;;
after)
	if ! scan2; then
		fail run.kmemleak-scan "(kmemleak cannot scan after the tests: off?)"
	else
		n=$(grep -c '^unreferenced object' $KML)
		if [ "$n" = 0 ]; then
			pass kmemleak.no-leaks
		else
			head -n 60 $KML
			fail kmemleak.no-leaks "($n unreferenced objects: $KML)"
		fi
	fi
	;;
esac
