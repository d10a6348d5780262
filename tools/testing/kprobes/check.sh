#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check.sh: the test command (make check).  For each architecture of
# ARCHES and the flavour FLAVOUR: build, KUnit, guest integration tests,
# Debian's bpftrace in the guest, the base's ftrace selftests, the config
# matrix's variants compiled (make matrix boots them); for `ours` also
# the staged tree's check, sparse over our C files and headers, a debug-flavour boot (KASAN,
# lockdep: the KUnit suites and the lifetime tests), the bug fixes for
# plain 6.12 with their tests (fixes.sh), checkpatch --strict
# over the exported series, the docs.  First of all, the harness's own
# self-test.  At the end, the time each phase took.
#
# Every check prints "<KIND> <name> PASS|FAIL|SKIP [detail]" and lands in
# $KP_BUILD/check-FLAVOUR.results; a check about one architecture names
# it first ("CHECK arm64:build").  At the end inventory.py compares the
# cases that ran, of every kind, with tools/testing/kprobes/inventory (a
# case expected and missing fails, so does a checker that printed
# nothing or stopped early; a case that ran and is not listed fails, a
# skip the inventory does not allow fails), lists the skipped and failed
# cases and prints the closing line "N passed, N failed, N skipped"; the
# exit status is non-zero unless 0 failed.
#
# Both flavours run the pseudo-NMI KUnit boot on arm64: for upstream it
# runs the base's kprobes_test there, the reference for ours.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
fl=${FLAVOUR:-ours}
arches=${ARCHES:-x86_64 arm64}
# The guest tests of the teardown series (patches/teardown/): run again
# under the checkers (the debug flavour, and the fixes flavour: 6.12's
# core with the series).
KP_TEARDOWN_TESTS=32-*,33-*,91-*,92-*,93-*
export ARCHES=$arches
kp_check_flavour "$fl"
res=$KP_BUILD/check-$fl.results
mkdir -p "$KP_BUILD"
echo "# kprobes check: flavour=$fl arches=${arches// /,} started=$(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$res"
say() { echo "$*" | tee -a "$res"; }
# prefix ARCH KIND...: put "ARCH:" before the names of these kinds' lines
prefix() {
	local arch=$1 kinds
	shift
	kinds=$(IFS='|'; echo "$*")
	sed -E "s/^($kinds) /\\1 $arch:/"
}
t0=$(date +%s)
# The time of each phase, printed at the end: "phase NAME" closes the
# phase that ran since the previous call (or the start) under NAME.
phases=()
tp=$t0
phase() {
	local now
	now=$(date +%s)
	phases+=("$(printf '%6ds  %s' $(( now - tp )) "$1")")
	tp=$now
}

# The harness itself: its parsers and its accounting, on crafted logs.
"$KP_TOOLS/selftest/run.sh" 2>&1 | grep -E '^(SELFTEST |  )' | tee -a "$res"

if ! "$KP_TOOLS/deps.sh"; then
	say "CHECK deps FAIL"
else
	say "CHECK deps PASS"
fi
echo "# base: $(kp_base_used)" >> "$res"
kp_log "base: $(kp_base_used)"
phase "selftest, deps and base"

staged=0
for arch in $arches; do
	kp_log "=== $fl $arch"
	if "$KP_TOOLS/build.sh" "$fl" "$arch"; then
		say "CHECK $arch:build PASS"
	else
		say "CHECK $arch:build FAIL"
		phase "$arch: build (failed)"
		continue
	fi
	phase "$arch: build"
	# The debug flavour's kernel builds meanwhile, niced: the boots below
	# run QEMU single-threaded, which leaves a core to the compiler, and
	# a nice 19 compile takes no time from a guest that wants it.
	dbg_pid=
	if [ "$fl" = ours ] && [ "${KP_CHECK_DEBUG:-1}" = 1 ]; then
		dbg_log=$KP_BUILD/check-build-debug-$arch.log
		KP_DEBUG=1 nice -n 19 "$KP_TOOLS/build.sh" "$fl" "$arch" \
			> "$dbg_log" 2>&1 &
		dbg_pid=$!
	fi
	# The bug fixes for plain 6.12 (patches/fixes/, flavour "fixes"):
	# built after the debug flavour, in the same niced background, and
	# tested at the end of the architecture.  On x86_64 only, where all
	# seven fixes apply: a third debug kernel on arm64 too would take a
	# cold make check past an hour (arm64's run: fixes.sh arm64 with,
	# then itest.sh fixes arm64 with kponly=$KP_TEARDOWN_TESTS; README).
	# KP_CHECK_FIXES=0 skips it.
	fix_pid=
	if [ "$fl" = ours ] && [ "$arch" = x86_64 ] && [ "${KP_CHECK_FIXES:-1}" = 1 ]; then
		fix_log=$KP_BUILD/check-build-fixes-$arch.log
		(
			while [ -n "$dbg_pid" ] && kill -0 "$dbg_pid" 2>/dev/null; do
				sleep 5
			done
			nice -n 19 "$KP_TOOLS/build.sh" fixes "$arch"
		) > "$fix_log" 2>&1 &
		fix_pid=$!
	fi
	if [ "$fl" = ours ] && [ $staged = 0 ]; then
		"$KP_TOOLS/no-upstream.sh" | tee -a "$res"
		staged=1
	fi
	"$KP_TOOLS/kunit.sh" "$fl" "$arch" | prefix "$arch" KUNIT | tee -a "$res"
	# arm64 with pseudo-NMIs (a GICv3 machine, irqchip.gicv3_pseudo_nmi=1):
	# the same suites, with interrupts masked through the GIC's PMR.
	if [ "$arch" = arm64 ]; then
		"$KP_TOOLS/kunit-pnmi.sh" "$fl" |
			sed -E 's/^KUNIT-PNMI pnmi\.enabled /CHECK arm64:kunit-pnmi.enabled /;
				s/^KUNIT-PNMI /KUNIT arm64:pnmi:/' | tee -a "$res"
	fi
	phase "$arch: KUnit"
	"$KP_TOOLS/itest.sh" "$fl" "$arch" | prefix "$arch" KPTEST | tee -a "$res"
	phase "$arch: guest tests"
	# Debian's bpftrace, unchanged, in a boot of its own (bpftrace.sh:
	# the packages fetched once and cached): its kretprobe on
	# inet_csk_accept() with more listeners asleep in accept() than a
	# kretprobe's default pool holds.  KP_CHECK_BPFTRACE=0 skips it.
	if [ "${KP_CHECK_BPFTRACE:-1}" = 1 ]; then
		"$KP_TOOLS/bpftrace.sh" "$fl" "$arch" |
			sed -E "s/^KPTEST /KPTEST $arch:bpftrace:/" | tee -a "$res"
		phase "$arch: bpftrace"
	fi
	# The base's own tests of kprobes: its KUnit suite (kprobes_test, run
	# above with ours) and its ftrace selftests for kprobes.
	if grep -q "^KUNIT $arch:kprobes_test\." "$res"; then
		say "CHECK $arch:kunit.base-suite-ran PASS"
	else
		say "CHECK $arch:kunit.base-suite-ran FAIL"
	fi
	if "$KP_TOOLS/ftracetest.sh" "$fl" "$arch" | tee -a "$res"; then
		say "CHECK $arch:ftracetest PASS"
	else
		say "CHECK $arch:ftracetest FAIL"
	fi
	phase "$arch: ftrace selftests"
	if [ "$fl" = ours ]; then
		"$KP_TOOLS/sparse.sh" "$arch" | tee -a "$res"
		phase "$arch: sparse"
	fi
	# Other configurations (configmatrix.sh says which, per arch, and
	# why), compiled only: the objects of kprobes and its tests in each,
	# minutes instead of a kernel build each.  make matrix builds and
	# boots them (KUnit in each): run it before an issue that touches
	# configuration is resolved.  KP_MATRIX=none skips them.
	if [ "${KP_MATRIX:-}" != none ]; then
		KP_MATRIX_QUICK=1 "$KP_TOOLS/configmatrix.sh" "$fl" "$arch" | tee -a "$res"
		phase "$arch: config matrix (compile)"
	fi
	# The debug flavour (configs/debug.config: KASAN, lockdep, kmemleak,
	# debug objects): the KUnit suites, the lifetime guest tests
	# (load, probe, unload, in every order) and the return probes with
	# hundreds of calls in flight (tests/94: returns pending across
	# sleep, exit and exec, taken from the tasks' storage) under the
	# kernel's checkers; any report of theirs on the console fails the boot.  kmemleak
	# neither scans by itself nor shows its findings on the guest's
	# console: the guest scans after the lifetime tests and reads the
	# list (guest/kmemleak.sh, KPTEST debug:kmemleak.no-leaks).  The
	# KUnit boot has no user space to ask for a scan.
	# KP_CHECK_DEBUG=0 skips it.
	if [ -n "$dbg_pid" ]; then
		if wait "$dbg_pid"; then
			say "CHECK $arch:build.debug PASS"
			phase "$arch: debug build (the rest of it)"
			KP_DEBUG=1 KP_KUNIT_TIMEOUT=${KP_KUNIT_TIMEOUT:-2400} \
				"$KP_TOOLS/kunit.sh" "$fl" "$arch" |
				sed -E "s/^KUNIT /KUNIT $arch:debug:/" | tee -a "$res"
			KP_DEBUG=1 KP_APPEND="${KP_APPEND:+$KP_APPEND }kponly=70-*,94-*,$KP_TEARDOWN_TESTS" \
				"$KP_TOOLS/itest.sh" "$fl" "$arch" |
				sed -E "s/^KPTEST /KPTEST $arch:debug:/" | tee -a "$res"
			phase "$arch: debug KUnit and lifetimes"
		else
			tail -n 20 "$dbg_log" >&2
			say "CHECK $arch:build.debug FAIL (see $dbg_log)"
			phase "$arch: debug build (failed)"
		fi
	fi
	# The fixes: 6.12's kprobes_test suite with the cases the fixes add,
	# and the guest tests of those a KUnit case cannot show, on the base
	# with the series (fixes.sh with).  That each test fails without its
	# fix is fixes.sh both's to show (a build and a boot per test).  The
	# fixes flavour also has the teardown series (patches/teardown/):
	# its tests run there too.
	if [ -n "$fix_pid" ]; then
		if wait "$fix_pid"; then
			say "CHECK $arch:build.fixes PASS"
			KP_FIXES_BUILD=0 "$KP_TOOLS/fixes.sh" "$arch" with 2>/dev/null |
				grep '^FIXES ' | tee -a "$res"
			# The teardown series on 6.12's own core: its guest
			# tests on the fixes flavour, a debug kernel (KASAN,
			# lockdep, kmemleak).
			KP_APPEND="${KP_APPEND:+$KP_APPEND }kponly=$KP_TEARDOWN_TESTS" \
				"$KP_TOOLS/itest.sh" fixes "$arch" |
				sed -E "s/^KPTEST /KPTEST $arch:teardown:/" | tee -a "$res"
		else
			tail -n 20 "$fix_log" >&2
			say "CHECK $arch:build.fixes FAIL (see $fix_log)"
		fi
		phase "$arch: fixes for 6.12"
	fi
	kp_log "$fl $arch done at +$(( $(date +%s) - t0 ))s"
done

if [ "$fl" = ours ]; then
	"$KP_TOOLS/checkpatch.sh" | tee -a "$res"
	phase "checkpatch"
	# The series as a maintainer takes it (series-check.sh --quick): git
	# am on a git repository of the base, kernel-doc -Wall on every file
	# of ours, MAINTAINERS.  Its checkpatch is checkpatch.sh's above; its
	# per-patch builds are too long for here (make series-check).
	KP_SC_CHECKPATCH=0 "$KP_TOOLS/series-check.sh" --quick 2>/dev/null |
		grep -E '^(SERIES |    )' | tee -a "$res"
	phase "series (quick)"
	# Documentation: kernel-doc of our files, Documentation/trace build.
	docs=$("$KP_TOOLS/docs.sh" 2>&1)
	echo "$docs" | grep '^DOCS ' | tee -a "$res"
	grep -q '^DOCS htmldocs' <<< "$docs" ||
		say "DOCS run FAIL ($(echo "$docs" | tail -n 1))"
	phase "docs"
	# bench-report.py names the arch inside ("smoke.ARCH.ours",
	# "ARCH.ours.parse"): first, like every per-arch name here.
	# Its verdict covers the boot's console too: no kernel report
	# (BENCH-KERNEL-REPORT lines), the guest's end marker, every per-hit
	# row of the arch.
	"$KP_TOOLS/bench.sh" --smoke 2>/dev/null | grep -E '^BENCH[ -]' |
		sed -E 's/^BENCH smoke\.([^.]+)\.ours /BENCH \1:smoke /;
			s/^BENCH ([^.]+)\.ours\.parse /BENCH \1:parse /' | tee -a "$res" || true
	phase "bench smoke"
fi

echo
echo "Time by phase (seconds):"
printf '%s\n' "${phases[@]}" | tee "$KP_BUILD/check-$fl.times"
kp_log "check of $fl (${arches}) took $(( $(date +%s) - t0 ))s"
# The inventory's verdicts (appended to the results), the skipped and
# failed cases by name, the base, and the closing line.
python3 "$KP_TOOLS/inventory.py" check --flavour "$fl" --arches "$arches" "$res"
