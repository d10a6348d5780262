#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fixes.sh [ARCH] [with|without|both]: the bug fixes of patches/fixes/
# (a series for the plain base, see patches/fixes/README) and their
# tests.
#
#  with:    the base with the whole series (flavour "fixes", built with
#           the upstream flavour's config), and its kprobes_test suite:
#           the base's own cases and those the fixes add.
#  without: the base with the tests of every patch and none of the fixes
#           (KP_FIXES_NOFIX='*'); each case a patch adds runs in a boot
#           of its own (one case's failure cannot change another's
#           result) and must fail there.
#
# Both builds use one build directory ($KP_BUILD/obj-fixes-ARCH), so the
# second one is incremental.  KP_FIXES_BUILD=0: no build, test the kernel
# that is there (built by an earlier run in the same variant).  Prints, per patch of the series:
#
#   FIXES ARCH:<patch>.with PASS|FAIL|SKIP         its cases pass with the series
#   FIXES ARCH:<patch>.without-fix PASS|FAIL|SKIP  its cases fail without the fixes
#
# then "FIXES ARCH:suite.with" for the whole suite.  A fix whose test
# loads modules has a guest test instead (guest_test_of; itest.sh with
# kponly=), in the same two builds.  SKIP: the patch has no test, or
# the code it fixes does not exist on ARCH in 6.12 (not_on_arch).  Logs:
# $KP_BUILD/fixes-*.log.  Exit 1 on any FAIL.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
arch=${1:-x86_64}
mode=${2:-both}
dir=$KP_ROOT/patches/fixes
suite=kprobes_test
mapfile -t series < <(grep -v '^#' "$dir/series" | grep .)
rc=0

# the KUnit cases a patch adds
cases_of() {
	sed -n 's/^+[[:space:]]*KUNIT_CASE\(_SLOW\)\?(\([a-z0-9_]*\)).*/\2/p' "$dir/$1"
}
name_of() { echo "${1%.patch}"; }
# kunit_run FILTER LOG: the KUnit lines of a boot running FILTER, its
# console in $KP_BUILD/LOG.  A boot that died before KUnit started (no
# KTAP: TCG under load has failed the IO-APIC timer check) runs again,
# once.
kunit_run() {
	local out i
	for i in 1 2; do
		out=$("$KP_TOOLS/kunit.sh" fixes "$arch" "$1" 2>&1 || true)
		cp "$KP_BUILD/kunit-fixes-$arch.log" "$KP_BUILD/$2"
		grep -q 'KTAP version' "$KP_BUILD/$2" && break
		kp_log "$1: the boot died before KUnit started; once more"
	done
	printf '%s\n' "$out"
}

# A patch whose test is a guest test of the workbench (it loads modules,
# which a KUnit boot cannot): the test's name, and its KPTEST check that
# must fail without the fix (the others set the case up and must pass).
guest_test_of() {
	case $1 in
	*-Do-not-arm-a-probe-in-module-text-*) echo "95-fixes-modrace fixes.modrace-refused" ;;
	esac
}
# Why a patch's test cannot run on ARCH, or nothing: the code it fixes
# exists there only with a feature 6.12 has on x86 alone of the two.
not_on_arch() {
	[ "$2" = arm64 ] || return 0
	case $1 in
	*-x86-kprobes-*)	echo "an x86 fix" ;;
	*-on-ftrace-*)		echo "6.12 has no kprobes on ftrace on arm64" ;;
	*-Optimize-a-probe-*|*-jump-optimizer-*)
				echo "6.12 has no kprobe jump optimization on arm64" ;;
	esac
}
# guest PATCH without|with: run the patch's guest test, print its result
guest() {
	local p=$1 how=$2 t key out status=PASS detail=() l n r
	read -r t key <<< "$(guest_test_of "$p")"
	out=$(KP_APPEND="${KP_APPEND:-} kponly=$t" "$KP_TOOLS/itest.sh" fixes "$arch" 2>&1 || true)
	cp "$KP_BUILD/itest-fixes-$arch.log" "$KP_BUILD/fixes-$how-$t.log"
	while read -r l; do
		set -- $l
		n=${2#*:} r=$3
		case $how:$n in
		without:"$key")
			if [ "$r" = FAIL ]; then
				detail+=("$n FAIL without the fix, as expected")
			else
				status=FAIL
				detail+=("$n $r without the fix")
			fi ;;
		*)
			[ "$r" = PASS ] || status=FAIL
			detail+=("$n $r") ;;
		esac
	done < <(printf '%s\n' "$out" | grep '^KPTEST ')
	[ ${#detail[@]} -gt 0 ] || { status=FAIL; detail=("no result: see $KP_BUILD/fixes-$how-$t.log"); }
	if [ "$how" = without ]; then
		result "FIXES $arch:$(name_of "$p").without-fix $status (${detail[*]})"
	else
		result "FIXES $arch:$(name_of "$p").with $status (${detail[*]})"
	fi
}
result() {	# result LINE: print it, remember a failure
	echo "$1"
	set -- $1
	case $3 in FAIL) rc=1 ;; esac
}

if [ "$mode" = without ] || [ "$mode" = both ]; then
	[ "${KP_FIXES_BUILD:-1}" = 0 ] || KP_FIXES_NOFIX='*' "$KP_TOOLS/build.sh" fixes "$arch" >&2
	for p in "${series[@]}"; do
		why=$(not_on_arch "$p" "$arch")
		if [ -n "$why" ]; then
			result "FIXES $arch:$(name_of "$p").without-fix SKIP ($why)"
			continue
		fi
		mapfile -t cases < <(cases_of "$p")
		if [ ${#cases[@]} = 0 ]; then
			if [ -n "$(guest_test_of "$p")" ]; then
				guest "$p" without
			else
				result "FIXES $arch:$(name_of "$p").without-fix SKIP (the patch has no test)"
			fi
			continue
		fi
		status=PASS detail=()
		for c in "${cases[@]}"; do
			out=$(kunit_run "$suite.$c" "fixes-without-$c.log")
			r=$(printf '%s\n' "$out" | sed -n "s/^KUNIT $suite\\.$c \\([A-Z]*\\).*/\\1/p" | head -1)
			# the case must have run and failed
			if [ "${r:-none}" = FAIL ]; then
				detail+=("$c FAIL without the fix, as expected")
			else
				status=FAIL
				detail+=("$c ${r:-gave no result} without the fix")
			fi
		done
		result "FIXES $arch:$(name_of "$p").without-fix $status (${detail[*]})"
	done
fi

if [ "$mode" = with ] || [ "$mode" = both ]; then
	[ "${KP_FIXES_BUILD:-1}" = 0 ] || "$KP_TOOLS/build.sh" fixes "$arch" >&2
	out=$(kunit_run "$suite" fixes-with.log)
	printf '%s\n' "$out" | grep '^KUNIT ' | sed "s/^KUNIT /KUNIT $arch:/" >&2 || true
	for p in "${series[@]}"; do
		why=$(not_on_arch "$p" "$arch")
		if [ -n "$why" ]; then
			result "FIXES $arch:$(name_of "$p").with SKIP ($why)"
			continue
		fi
		mapfile -t cases < <(cases_of "$p")
		if [ ${#cases[@]} = 0 ]; then
			if [ -n "$(guest_test_of "$p")" ]; then
				guest "$p" with
			else
				result "FIXES $arch:$(name_of "$p").with SKIP (the patch has no test)"
			fi
			continue
		fi
		status=PASS detail=()
		for c in "${cases[@]}"; do
			r=$(printf '%s\n' "$out" | sed -n "s/^KUNIT $suite\\.$c \\([A-Z]*\\).*/\\1/p" | head -1)
			[ "${r:-none}" = PASS ] || status=FAIL
			detail+=("$c ${r:-did not run}")
		done
		result "FIXES $arch:$(name_of "$p").with $status (${detail[*]})"
	done
	# the whole suite (the base's cases too), and a clean console
	if printf '%s\n' "$out" | grep -q '^KUNIT .* FAIL' ||
	   ! printf '%s\n' "$out" | grep -q "^KUNIT $suite\\."; then
		result "FIXES $arch:suite.with FAIL (see $KP_BUILD/fixes-with.log)"
	else
		result "FIXES $arch:suite.with PASS"
	fi
fi
exit $rc
