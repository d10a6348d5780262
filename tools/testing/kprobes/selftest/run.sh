#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# selftest/run.sh: the harness's own test.  Feeds its parsers and its
# accounting crafted logs, and expects them to fail what must fail:
#
#  - every pattern of kernel-reports has a sample, and each sample line,
#    dropped into a clean KUnit log and a clean guest log, fails both
#    kunit-results.py and itest-results.sh (the clean logs pass);
#  - KUnit logs with a failing case (its assertion text is shown), a
#    missing case, a skipped case, a crash in the middle of a suite;
#  - guest logs without an end marker, without a boot, with kmemleak's
#    listing of a leak (guest/kmemleak.sh's verdict); itest.sh and
#    ftracetest.sh with no kernel (QEMU never starts) and the previous
#    run's logs in place (every case FAILs, none of the old PASSes);
#  - the inventory: a missing case, a case it does not list, a skip it
#    does not allow (all FAIL), an allowed skip (counted as skipped), the
#    closing line, update refusing to drop a case no --drop names, and
#    update followed by check (0 failed); every kind inventoried: a
#    result about the run (no arch) missing, as when the self-test stops
#    before its last line, a checker that printed nothing (sparse), a
#    kind of result it does not know, a counted kind (CHECKPATCH) with
#    one case fewer, or renamed, or skipped, update of a count (refusing
#    to lower it without --drop), the self-test's cases updated for both
#    flavours; sparse.sh with no file to check;
#  - the staged tree check: a surviving upstream file, a file differing
#    from ours, our file;
#  - the benchmark's parser and report (bench-report.py) on crafted
#    bench guest logs (selftest/bench/: the smoke boot of make check, and
#    two stored runs laid out as make bench stores them): the smoke
#    verdicts (every attach row there, complete; no kernel report on
#    the console, the end marker, every per-hit row of the arch), the report and README's per-hit block made from the
#    stored runs (current run, history, the raw files named), the empty
#    case, --check on a hand edit, and the repository's own README.md
#    and results/REPORT.md up to date with its stored results; the
#    report's stress and archcheck sections on crafted stored runs
#    (selftest/stress/, selftest/archcheck/); its per-cause section
#    (selftest/bench-steps/: two runs as bench-steps.sh stores them),
#    the cover letter's per-cause block and a part's @@STEP@@;
#  - the cover letter's figures (bench-report.py cover): its blocks from
#    crafted stored runs (selftest/bench/, teardown/, archcheck/,
#    series/), an unknown placeholder refused, and the lint: a figure in
#    prose fails, versions and names pass, and the repository's
#    series-msgs/cover.txt has none outside its placeholders.
#
# One "SELFTEST <name> PASS|FAIL [why]" line per check, then, at the very
# end only, "SELFTEST completed PASS (N checks, N failed)": the inventory
# expects it, so a self-test that died or exited halfway fails make check.
# Exit 1 if any failed.  Quick (seconds), so make check runs it first.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
ST=$KP_TOOLS/selftest
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nfail=0
nchecks=0
ok() {
	echo "SELFTEST $1 PASS"
	nchecks=$((nchecks + 1))
}
bad() {
	echo "SELFTEST $1 FAIL ${2:-}"
	nfail=$((nfail + 1))
	nchecks=$((nchecks + 1))
}
# expect NAME WANT_RC CMD...: CMD's exit status must be WANT_RC (0 or 1)
expect_rc() {
	local n=$1 want=$2 rc
	shift 2
	"$@" > "$tmp/out" 2>&1
	rc=$?
	[ "$rc" -gt 1 ] && rc=2
	if [ "$rc" = "$want" ]; then ok "$n"; else bad "$n" "(exit $rc, want $want: $(head -c 300 "$tmp/out" | tr '\n' ' '))"; fi
}
# has NAME REGEX: the last command's output has a line matching REGEX
has() {
	if grep -qE -- "$2" "$tmp/out"; then ok "$1"; else bad "$1" "(no line matching '$2')"; fi
}
hasnt() {
	if grep -qE -- "$2" "$tmp/out"; then bad "$1" "(a line matches '$2')"; else ok "$1"; fi
}
kunit() { python3 "$KP_TOOLS/kunit-results.py" "$@"; }
guest() { "$KP_TOOLS/itest-results.sh" "$@"; }

# 1. Kernel reports: each pattern has a sample, each sample matches its
#    pattern, and fails both parsers: kunit-results.py's parse() (one
#    Python run for all samples) and the guest side's KP_BAD_RE; then
#    each parser end to end on one sample.
mapfile -t pats < <(grep -v -e '^#' -e '^[[:space:]]' -e '^$' "$KP_REPORTS")
[ ${#pats[@]} -ge 20 ] && ok reports.patterns || bad reports.patterns "(only ${#pats[@]} patterns)"
python3 - "$KP_TOOLS" "$ST/kunit-clean.log" > "$tmp/samples" <<'EOF2' || bad reports.parse "(the check itself failed)"
import importlib.util, re, sys
spec = importlib.util.spec_from_file_location('kr', sys.argv[1] + '/kunit-results.py')
kr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(kr)
bad_re = kr.report_patterns()
clean = open(sys.argv[2]).read()
pat, counts = None, {}
for line in open(sys.argv[1] + '/kernel-reports'):
    line = line.rstrip('\n')
    if not line or line.startswith('#'):
        continue
    if line[0] not in ' \t':
        pat = line
        counts.setdefault(pat, 0)
        continue
    s = line.strip()
    counts[pat] += 1
    if not re.search(pat, s):
        st = 'nomatch'
    else:
        text = clean.replace('kpt_by_symbol: probed kpt_target2 at its entry\n',
                             'kpt_by_symbol: probed kpt_target2 at its entry\n'
                             '[    1.400050] %s\n' % s)
        st = 'ok' if kr.parse(text, bad_re)[2] else 'kunit-passes'
    print('%s\t%s\t%s' % (st, pat, s))
for p, n in counts.items():
    if not n:
        print('nosample\t%s\t' % p)
EOF2
i=0
while IFS=$'\t' read -r st pat sample; do
	i=$((i + 1))
	case $st in
	nosample) bad "reports.sample.$i" "(pattern '$pat' has no sample line)" ;;
	nomatch) bad "reports.sample.$i" "(sample '$sample' does not match its pattern '$pat')" ;;
	kunit-passes) bad "reports.sample.$i" "(kunit-results.py finds no report in '$sample')" ;;
	*)
		if echo "[    5.000000] $sample" | grep -qaE "$KP_BAD_RE"; then
			ok "reports.sample.$i"
		else
			bad "reports.sample.$i" "(KP_BAD_RE misses '$sample')"
		fi
		;;
	esac
	last=$sample
done < "$tmp/samples"
[ "$i" -ge "${#pats[@]}" ] || bad reports.samples "($i samples for ${#pats[@]} patterns)"
expect_rc reports.clean-kunit-log-passes 0 kunit "$ST/kunit-clean.log"
expect_rc reports.clean-guest-log-passes 0 guest "$ST/guest-clean.log" 0
sed "/kpt_by_symbol: probed/a [    1.400050] $last" "$ST/kunit-clean.log" > "$tmp/k.log"
expect_rc reports.kunit-log-with-report 1 kunit "$tmp/k.log"
has reports.kunit-log-with-report-named '^KUNIT run\.kernel-reports FAIL'
sed "/KPTEST events.add-p/a [    5.000000] $last" "$ST/guest-clean.log" > "$tmp/g.log"
expect_rc reports.guest-log-with-report 1 guest "$tmp/g.log" 0
has reports.guest-log-with-report-named '^KPTEST guest\.kernel-clean FAIL'

# 2. KUnit logs.
expect_rc kunit.failing-case 1 kunit "$ST/kunit-fail.log"
has kunit.failing-case-named '^KUNIT kprobes_core\.kpt_errors FAIL'
has kunit.failing-case-file-line '^    # kpt_errors: EXPECTATION FAILED at lib/test_kprobes\.c:287$'
has kunit.failing-case-expected 'Expected register_kprobe\(&kp\) == KPT_JUMP_LABEL_ERRNO'
has kunit.failing-case-actual 'register_kprobe\(&kp\) == -22'
expect_rc kunit.skipped-case 0 kunit "$ST/kunit-skip.log"
has kunit.skipped-case-reason '^KUNIT kprobes_core\.kpt_errors SKIP CONFIG_JUMP_LABEL is off$'
expect_rc kunit.crash-mid-suite 1 kunit "$ST/kunit-crash.log"
has kunit.crash-mid-suite-incomplete '^KUNIT run\.kprobes_core\.incomplete FAIL'
has kunit.crash-mid-suite-report '^KUNIT run\.kernel-reports FAIL'
expect_rc kunit.param-names 0 kunit "$ST/kunit-clean.log"
has kunit.param-names-one-word '^KUNIT kprobes_arm64\.kprobes_arm64_insn\.inside_ldxr/stxr PASS$'
printf 'boot failed\n' > "$tmp/empty.log"
expect_rc kunit.no-tests 1 kunit "$tmp/empty.log"

# 3. Guest logs.
expect_rc guest.no-end-marker 1 guest "$ST/guest-noend.log" 0
has guest.no-end-marker-not-clean '^KPTEST guest\.kernel-clean FAIL'
expect_rc guest.no-boot 1 guest "$ST/guest-noboot.log" 0
has guest.no-boot-not-clean '^KPTEST guest\.kernel-clean FAIL'
# kmemleak found a leak after the tests (guest/kmemleak.sh: a real
# listing): the case fails, and its listing on the console too
expect_rc guest.kmemleak-leak 1 guest "$ST/guest-kmemleak.log" 0
has guest.kmemleak-leak-named '^KPTEST kmemleak\.no-leaks FAIL \(1 unreferenced objects'
has guest.kmemleak-leak-not-clean '^KPTEST guest\.kernel-clean FAIL \(a kernel report'
has guest.kmemleak-leak-listing-shown '^KPTEST-KERNEL-REPORT unreferenced object 0x'
expect_rc guest.clean 0 guest "$ST/guest-clean.log" 0
has guest.clean-passes '^KPTEST guest\.kernel-clean PASS$'

# A long console with an early FAIL: the exit status must say so (with
# pipefail, "echo | grep -q" fails when grep stops at its match before
# echo is done, and "! echo | grep -q FAIL" then passes).
{
	sed -n '1,/^KPGUEST start/p' "$ST/guest-clean.log"
	echo "KPTEST early.case FAIL (selftest)"
	seq -f 'KPTEST filler.case-%g PASS' 1 30000
	sed -n '/^KPGUEST start/,$p' "$ST/guest-clean.log" | sed 1d
} > "$tmp/long.log"
expect_rc guest.long-log-early-fail 1 guest "$tmp/long.log" 0

# A boot that never started QEMU (no kernel here) with the previous
# run's logs still in place: FAIL lines, not the old PASSes.
st=$tmp/stale
mkdir -p "$st/src-ours/tools/testing/selftests/ftrace/test.d/kprobe"
: > "$st/src-ours/tools/testing/selftests/ftrace/test.d/kprobe/a.tc"
cp "$ST/guest-clean.log" "$st/itest-ours-x86_64.log"
KP_BUILD=$st expect_rc guest.stale-log 1 "$KP_TOOLS/itest.sh" ours x86_64
has guest.stale-log-no-boot '^KPTEST run\.boot FAIL \(QEMU never started'
has guest.stale-log-not-clean '^KPTEST guest\.kernel-clean FAIL'
hasnt guest.stale-log-no-pass '^KPTEST .* PASS'
printf 'KPGUEST start mode=ftracetest\nKPFTRACE kprobe/a.tc PASS\nKPGUEST done\n' \
	> "$st/ftracetest-ours-x86_64.log"
KP_BUILD=$st expect_rc ftrace.stale-log 1 "$KP_TOOLS/ftracetest.sh" ours x86_64
has ftrace.stale-log-no-boot '^FTRACE x86_64:run\.boot FAIL \(QEMU never started'
has ftrace.stale-log-case-fails '^FTRACE x86_64:kprobe/a\.tc FAIL'
has ftrace.stale-log-not-clean '^FTRACE x86_64:kernel-clean FAIL'
hasnt ftrace.stale-log-no-pass ' PASS'

# 4. The inventory and the accounting.  results FLAVOUR KUNIT_LOG GUEST_LOG
results() {
	{
		echo "# kprobes check: flavour=$1 arches=x86_64"
		echo "# base: Debian linux-source-6.12 6.12.117-1~deb12u1"
		echo "SELFTEST something PASS"
		echo "CHECK deps PASS"
		echo "CHECK x86_64:build PASS"
		kunit "$2" | sed -E 's/^KUNIT /KUNIT x86_64:/'
		guest "$3" 0 | sed -E 's/^KPTEST /KPTEST x86_64:/'
		echo "SPARSE x86_64:kernel/kprobes.c PASS"
		echo "CHECKPATCH 0001-kprobes-a.patch PASS"
		echo "CHECKPATCH 0002-kprobes-b.patch PASS"
		echo "SELFTEST completed PASS (2 checks, 0 failed)"
	} > "$tmp/res"
}
inv() { python3 "$KP_TOOLS/inventory.py" --inventory "$tmp/inv" "$@"; }
cp "$ST/inventory.test" "$tmp/inv"
expect_rc inventory.lint-real 0 python3 "$KP_TOOLS/inventory.py" lint
results ours "$ST/kunit-clean.log" "$ST/guest-clean.log"
expect_rc inventory.clean 0 inv check "$tmp/res"
has inventory.closing-line '^17 passed, 0 failed, 0 skipped$'
has inventory.base-named '^base: Debian linux-source-6.12 6\.12\.117-1~deb12u1$'
results ours "$ST/kunit-missing.log" "$ST/guest-clean.log"
expect_rc inventory.missing-case 1 inv check "$tmp/res"
has inventory.missing-case-named '^INVENTORY x86_64:KUNIT:kprobes_core\.kpt_by_symbol FAIL \(did not run'
has inventory.missing-case-counted '^16 passed, 1 failed, 0 skipped$'
if tail -n 1 "$tmp/res" | grep -q '^INVENTORY x86_64:KUNIT:kprobes_core.kpt_by_symbol FAIL'; then
	ok inventory.missing-case-appended
else
	bad inventory.missing-case-appended "(not appended to the results)"
fi
results ours "$ST/kunit-clean.log" "$ST/guest-noend.log"
expect_rc inventory.guest-died 1 inv check "$tmp/res"
has inventory.guest-died-named '^INVENTORY x86_64:KPTEST:opt\.add-entry FAIL \(did not run'
# a suite gone: one line for it, naming its cases
sed -e '/# Subtest: kprobes_arm64$/,/ok 2 kprobes_arm64$/d' -e 's/^\(\[[ 0-9.]*\]\) 1\.\.2$/\1 1..1/' \
	"$ST/kunit-clean.log" > "$tmp/k.log"
sed -i '/^KPTEST  debugfs/d' "$tmp/inv"
results ours "$tmp/k.log" "$ST/guest-clean.log"
expect_rc inventory.suite-missing 1 inv check "$tmp/res"
has inventory.suite-missing-one-line '^INVENTORY x86_64:KUNIT:kprobes_arm64\.\* FAIL \(the whole suite is missing: 3 cases'
has inventory.unexpected-case '^INVENTORY x86_64:KPTEST:debugfs\.list-exists FAIL \(ran, but the inventory does not list it'
has inventory.unexpected-says-how 'inventory\.py update'
cp "$ST/inventory.test" "$tmp/inv"
results ours "$ST/kunit-skip.log" "$ST/guest-clean.log"
expect_rc inventory.forbidden-skip 1 inv check "$tmp/res"
has inventory.forbidden-skip-named '^INVENTORY x86_64:KUNIT:kprobes_core\.kpt_errors FAIL \(SKIP \(CONFIG_JUMP_LABEL is off\), but it must run on ours x86_64'
has inventory.forbidden-skip-counted '^16 passed, 1 failed, 0 skipped$'
sed -i 's|^\(KUNIT   kprobes_core.kpt_errors  *\)ours:x86_64$|\1ours:x86_64:skip  # selftest: allowed here|' "$tmp/inv"
results ours "$ST/kunit-skip.log" "$ST/guest-clean.log"
expect_rc inventory.allowed-skip 0 inv check "$tmp/res"
has inventory.allowed-skip-listed '^  KUNIT x86_64:kprobes_core\.kpt_errors SKIP CONFIG_JUMP_LABEL is off   \[inventory: selftest: allowed here\]$'
has inventory.allowed-skip-counted '^16 passed, 0 failed, 1 skipped$'
printf 'KUNIT kprobes_core.x ours:x86_64:skip\n' > "$tmp/inv"
expect_rc inventory.skip-needs-reason 1 inv lint
results ours "$ST/kunit-fail.log" "$ST/guest-clean.log"
cp "$ST/inventory.test" "$tmp/inv"
expect_rc inventory.failing-case 1 inv check "$tmp/res"
has inventory.failing-case-assertion '^      # kpt_errors: EXPECTATION FAILED at lib/test_kprobes\.c:287$'
has inventory.failing-case-counted '^16 passed, 1 failed, 0 skipped$'
# update from a run, then the same run checks clean; the other flavour's
# entries stay.
printf '# header\n' > "$tmp/inv"
printf 'KUNIT kprobes_core.kpt_gone ours:x86_64 upstream:x86_64\n' >> "$tmp/inv"
results ours "$ST/kunit-clean.log" "$ST/guest-clean.log"
cp "$tmp/inv" "$tmp/inv.before"
expect_rc inventory.update-refuses-removal 1 inv update "$tmp/res"
has inventory.update-refusal-names '^not run, and no --drop names it: KUNIT kprobes_core\.kpt_gone ours:x86_64$'
if cmp -s "$tmp/inv" "$tmp/inv.before"; then
	ok inventory.update-refusal-writes-nothing
else
	bad inventory.update-refusal-writes-nothing "(the inventory changed)"
fi
expect_rc inventory.update 0 inv update --drop 'kprobes_core.kpt_gone' "$tmp/res"
has inventory.update-removes '^removed: KUNIT kprobes_core\.kpt_gone ours:x86_64$'
expect_rc inventory.update-then-check 0 inv check --no-append "$tmp/res"
if grep -q '^KUNIT   kprobes_core.kpt_gone  *upstream:x86_64$' "$tmp/inv" &&
   grep -q '^# header$' "$tmp/inv"; then
	ok inventory.update-keeps-others
else
	bad inventory.update-keeps-others "($(tr '\n' '|' < "$tmp/inv" | head -c 300))"
fi
if grep -q '^SELFTEST something  *ours upstream$' "$tmp/inv"; then
	ok inventory.update-selftest-both-flavours
else
	bad inventory.update-selftest-both-flavours "($(grep '^SELFTEST' "$tmp/inv" | tr '\n' '|'))"
fi
# Every kind of result is inventoried.  The self-test stopped before its
# last line (a case of the run, no arch):
cp "$ST/inventory.test" "$tmp/inv"
results ours "$ST/kunit-clean.log" "$ST/guest-clean.log"
sed -i '/^SELFTEST completed /d' "$tmp/res"
expect_rc inventory.selftest-stopped 1 inv check "$tmp/res"
has inventory.selftest-stopped-named '^INVENTORY SELFTEST:completed FAIL \(did not run; the inventory expects it on ours \(the run'
# a checker that printed nothing:
results ours "$ST/kunit-clean.log" "$ST/guest-clean.log"
sed -i '/^SPARSE /d' "$tmp/res"
expect_rc inventory.checker-silent 1 inv check "$tmp/res"
has inventory.checker-silent-named '^INVENTORY x86_64:SPARSE:kernel/kprobes\.c FAIL \(did not run'
# a kind nobody inventoried:
results ours "$ST/kunit-clean.log" "$ST/guest-clean.log"
echo "NEWKIND x86_64:thing PASS" >> "$tmp/res"
expect_rc inventory.unknown-kind 1 inv check "$tmp/res"
has inventory.unknown-kind-named '^INVENTORY x86_64:NEWKIND:thing FAIL \(a kind of result the inventory does not know'
# a counted kind: its number, not its names
results ours "$ST/kunit-clean.log" "$ST/guest-clean.log"
sed -i 's/^CHECKPATCH 0002-kprobes-b/CHECKPATCH 0002-kprobes-renamed/' "$tmp/res"
expect_rc inventory.counted-renamed 0 inv check "$tmp/res"
sed -i '/^CHECKPATCH 0002/d' "$tmp/res"
expect_rc inventory.counted-fewer 1 inv check "$tmp/res"
has inventory.counted-fewer-named '^INVENTORY CHECKPATCH:\* FAIL \(1 cases ran, the inventory expects 2 on ours'
cp "$tmp/inv" "$tmp/inv.before"
expect_rc inventory.update-refuses-lower-count 1 inv update "$tmp/res"
has inventory.update-lower-count-named '^not run, and no --drop names it: CHECKPATCH \* ours=2 \(this run: 1\)$'
if cmp -s "$tmp/inv" "$tmp/inv.before"; then
	ok inventory.update-lower-count-writes-nothing
else
	bad inventory.update-lower-count-writes-nothing "(the inventory changed)"
fi
expect_rc inventory.update-count 0 inv update --drop 'CHECKPATCH *' "$tmp/res"
has inventory.update-count-says '^added:   CHECKPATCH \* ours=1 \(was 2\)$'
expect_rc inventory.update-count-then-check 0 inv check --no-append "$tmp/res"
results ours "$ST/kunit-clean.log" "$ST/guest-clean.log"
sed -i 's/^\(CHECKPATCH 0002-kprobes-b.patch\) PASS/\1 SKIP/' "$tmp/res"
cp "$ST/inventory.test" "$tmp/inv"
expect_rc inventory.counted-skip 1 inv check "$tmp/res"
has inventory.counted-skip-named '^INVENTORY CHECKPATCH:0002-kprobes-b\.patch FAIL \(SKIP: the cases of CHECKPATCH, a counted kind, may not skip\)$'
# sparse.sh with no built file of ours to check says so, and fails
KP_BUILD=$tmp/nobuild expect_rc sparse.no-files 1 "$KP_TOOLS/sparse.sh" x86_64
has sparse.no-files-named '^SPARSE x86_64:files FAIL \(no C file of ours has its \.o'

# 5. The staged tree: only our files where upstream's were.
mkdir -p "$tmp/root/kernel" "$tmp/src/kernel" "$tmp/src/include/linux"
printf 'kernel/kprobes.c\ninclude/linux/kprobes.h\narch/x86/kernel/kprobes/*\n' > "$tmp/list"
echo ours > "$tmp/root/kernel/kprobes.c"
echo ours > "$tmp/src/kernel/kprobes.c"
: > "$tmp/src/.kp-staged"
expect_rc staged.ours-only 0 "$KP_TOOLS/no-upstream.sh" "$tmp/src" "$tmp/root" "$tmp/list"
echo upstream > "$tmp/src/include/linux/kprobes.h"
expect_rc staged.upstream-survivor 1 "$KP_TOOLS/no-upstream.sh" "$tmp/src" "$tmp/root" "$tmp/list"
has staged.upstream-survivor-named 'include/linux/kprobes\.h: not ours'
rm "$tmp/src/include/linux/kprobes.h"
echo stale > "$tmp/src/kernel/kprobes.c"
expect_rc staged.differs 1 "$KP_TOOLS/no-upstream.sh" "$tmp/src" "$tmp/root" "$tmp/list"
rm "$tmp/src/.kp-staged"
expect_rc staged.not-staged 1 "$KP_TOOLS/no-upstream.sh" "$tmp/src" "$tmp/root" "$tmp/list"

# 6. The benchmark: bench-report.py on crafted guest logs (selftest/bench/).
br() { python3 "$KP_TOOLS/bench-report.py" "$@"; }
expect_rc bench.smoke 0 br "$ST/bench/smoke" 1 x86_64
has bench.smoke-verdict '^BENCH smoke\.x86_64\.ours PASS$'
mkdir -p "$tmp/smoke"
sed 's/done=10 attach_ns/done=9 attach_ns/' "$ST/bench/smoke/ours-x86_64-icount.log" > "$tmp/smoke/ours-x86_64-icount.log"
expect_rc bench.smoke-attach-incomplete 1 br "$tmp/smoke" 1 x86_64
has bench.smoke-attach-incomplete-named '^BENCH smoke\.x86_64\.ours FAIL \(attach rows incomplete: perf perf4 events\)$'
expect_rc bench.smoke-no-log 1 br "$tmp/smoke" 1 arm64
has bench.smoke-no-log-named '^BENCH arm64\.ours\.parse FAIL'
# the smoke console: a kernel report (each of a WARN, a KASAN report, a
# panic), no end marker, a per-hit row missing or not measured, no log
sm=$ST/bench/smoke/ours-x86_64-icount.log
for c in 'warning:/row=k /i [   10.100000] WARNING: CPU: 1 PID: 212 at kernel/kprobes.c:1234 kprobe_arm+0x5a/0x70' \
	 'kasan:/row=attach via=perf /i [   11.200000] BUG: KASAN: slab-use-after-free in kprobe_free_insn_slot+0x3c/0x120' \
	 'panic:/row=opt n=10 /a [   12.300000] Kernel panic - not syncing: Fatal exception in interrupt' \
	 'no-end:/^KPGUEST done/d' 'row-missing:/row=rf /d' 'row-not-measured:s/^BENCHRES row=o .*/BENCHRES row=o na=1 why=state want=jump state=trap/' \
	 'sleepers-missing:/row=rs /d'; do
	sed "${c#*:}" "$sm" > "$tmp/smoke/ours-x86_64-icount.log"
	expect_rc "bench.smoke-console-${c%%:*}" 1 br "$tmp/smoke" 1 x86_64
	has "bench.smoke-console-${c%%:*}-named" '^BENCH smoke\.x86_64\.ours FAIL \('
done
# the row with 100 calls in flight: one return missed fails it, and says so
sed 's/^BENCHRES row=rs .* hits=300 missed=0 /BENCHRES row=rs na=1 why=hits,missed iters=200 calls=300 inflight=100 rounds=2 ns=850000 hits=299 missed=1 /' \
	"$sm" > "$tmp/smoke/ours-x86_64-icount.log"
expect_rc bench.smoke-sleepers-missed 1 br "$tmp/smoke" 1 x86_64
has bench.smoke-sleepers-missed-named '^BENCH smoke\.x86_64\.ours FAIL \(per-hit rows not measured: rs \(n/a \(1 of 300 missed\)\)\)$'
sed '/WARNING/d' "$sm" | sed '/row=k /i [   10.100000] WARNING: CPU: 1 PID: 212 at kernel/kprobes.c:1234 kprobe_arm+0x5a/0x70' \
	> "$tmp/smoke/ours-x86_64-icount.log"
br "$tmp/smoke" 1 x86_64 > "$tmp/out" 2>&1
has bench.smoke-console-report-shown '^BENCH-KERNEL-REPORT \[ +10\.100000\] WARNING: CPU: 1 PID: 212 '
has bench.smoke-console-report-why '^BENCH smoke\.x86_64\.ours FAIL \(a kernel report on the console: \[ +10\.100000\] WARNING: CPU'
# arm64 has no kprobes on ftrace: its f and rf rows refused pass there,
# and fail on x86_64; its j row must still be measured
sed -e 's/^BENCHRES row=\(r\?f\) .*/BENCHRES row=\1 na=1 why=arm kind=\1 ret=-95 offset=0/' "$sm" \
	> "$tmp/smoke/ours-arm64-icount.log"
cp "$tmp/smoke/ours-arm64-icount.log" "$tmp/smoke/ours-x86_64-icount.log"
expect_rc bench.smoke-arm64-no-ftrace 0 br "$tmp/smoke" 1 arm64
expect_rc bench.smoke-x86_64-needs-ftrace 1 br "$tmp/smoke" 1 x86_64
has bench.smoke-x86_64-needs-ftrace-named '^BENCH smoke\.x86_64\.ours FAIL \(per-hit rows not measured: f \(n/a \(arm\)\), rf '
sed -i 's/^BENCHRES row=j .*/BENCHRES row=j na=1 why=arm/' "$tmp/smoke/ours-arm64-icount.log"
expect_rc bench.smoke-arm64-needs-j 1 br "$tmp/smoke" 1 arm64
rm -f "$tmp/smoke/"*.log
br "$tmp/smoke" 1 x86_64 > "$tmp/out" 2>&1
has bench.smoke-no-log-says-why '^BENCH x86_64\.ours\.parse FAIL \(no console log .*: QEMU never started\)$'
# the attach rows: a BPF run not counted, an event left behind, a row missing
for c in 'bpf-hits-short:s/ hits=10 / hits=9 /' 'events-left:s/ clear_ns=5000000 left=0/ clear_ns=5000000 left=1/' \
	 'via-missing:/ via=multi /d'; do
	sed "${c#*:}" "$ST/bench/smoke/ours-x86_64-icount.log" > "$tmp/smoke/ours-x86_64-icount.log"
	expect_rc "bench.smoke-attach-${c%%:*}" 1 br "$tmp/smoke" 1 x86_64
done
run=2026-11-25T1200Z-x86_64
expect_rc bench.table 0 br --dest "$tmp/table" "$ST/bench/$run/workbench" 0 x86_64
has bench.table-per-hit '^k kprobe with post_handler \(trap, stepped\) +300 +600 +0\.50 '
has bench.table-na-reason '^j jprobe +350 +n/a \(arm\) '
has bench.table-sleepers '^rs kretprobe, 100 calls in flight \(default maxactive\) +600 +n/a \(90 of 100 missed\) '
# the report: two stored runs, a README with the markers
mkdir -p "$tmp/rep/results/bench"
cp -r "$ST/bench/2026-"* "$tmp/rep/results/bench/"
begin=$(python3 -c 'import importlib.util as u, sys; s = u.spec_from_file_location("b", sys.argv[1]); m = u.module_from_spec(s); s.loader.exec_module(m); print(m.BEGIN)' "$KP_TOOLS/bench-report.py")
printf '# readme\n\n%s\nwhatever was here\n<!-- bench-table end -->\n\nthe rest\n' "$begin" > "$tmp/rep/README.md"
rep() { br report --results "$tmp/rep/results" --readme "$tmp/rep/README.md" "$@"; }
expect_rc bench.report-stale 1 rep --check
expect_rc bench.report 0 rep
cp "$tmp/rep/README.md" "$tmp/out"
has bench.readme-per-hit '^\| k \| kprobe with post_handler \(trap, stepped\) \| 300 \| 600 \| 0\.50 \| 10\.0 \| 20\.0 \| 0\.50 \|$'
has bench.readme-sleepers '^\| rs \| kretprobe, 100 calls in flight \(default maxactive\) \| 600 \| n/a \(90 of 100 missed\) \| - \| - \| - \| - \|$'
has bench.readme-current-run "run $run \\(git 222222222222\\)"
has bench.readme-links-report '\(results/REPORT\.md\)'
hasnt bench.readme-block-replaced 'whatever was here'
has bench.readme-rest-kept '^the rest$'
cp "$tmp/rep/results/REPORT.md" "$tmp/out"
has bench.report-names-raw-files "^Raw results: \\[\`results/bench/$run/\`\\]"
has bench.report-names-raw-log '^\| ours-x86_64-icount\.log \| 2026-11-25T12:00:00Z \| QEMU emulator version 7\.2\.19 .* -smp 1 -icount shift=0 \| 1\.00 0\.90 0\.80 on 2 cpus \|$'
has bench.report-base '^- base \(ours, upstream\): Debian linux-source-6\.12 6\.12\.117-1~deb12u1$'
has bench.report-registration '^\| register 100 \(batch\) \| 100 ms \| 500 ms \| 0\.20 \|$'
has bench.report-perf4 '^\| detach 100 \(perf_event_open, 4 processes\) \| 200 ms \| 2 s \| 0\.10 \|$'
has bench.report-bpf-exit '^\| exit until reaped 100 \(bpftrace-style, BPF on each\) \| 300 ms \| 6 s \| 0\.05 \|$'
has bench.report-events-trunc '^\| remove all 100 \(kprobe_events, one O_TRUNC open\) \| 50 ms \| 2 s \| 0\.0[23] \|$'
has bench.report-events-multi '^\| remove all 100 \(kprobe_events, one write of "-:" lines\) \| 60 ms \| 2 s \| 0\.03 \|$'
has bench.report-wall-clock '^\| k \| 1350 \[1200-1500\] \| 2700 \[2400-3000\] \| 0\.50 \|$'
has bench.report-history '^\| \[2026-11-20T1000Z-x86_64\]\(bench/2026-11-20T1000Z-x86_64/\) \| 111111111111 \| x86_64 \| workbench \| 0\.55 \| 0\.55 \| - \| 0\.90 '
expect_rc bench.report-up-to-date 0 rep --check
cp "$tmp/rep/results/REPORT.md" "$tmp/out"
hasnt bench.report-clocks-agree 'Where the two clocks disagree'
sed -i 's/| 300 | 600 | 0.50 |/| 290 | 600 | 0.48 |/' "$tmp/rep/README.md"
expect_rc bench.report-hand-edit-caught 1 rep --check
# the two clocks: a wall boot whose f and k hits cost more than
# upstream's in unprobed calls while their instructions cost less is
# listed, with its known cause (f on x86_64) or said to have none
cp -r "$tmp/rep/results/bench/$run" "$tmp/clocks-run"
for w in 1 2; do
	sed -i -e 's/^\(BENCHRES row=f iters=20000 ns=\)[0-9]*/\130000000/' \
	       -e 's/^\(BENCHRES row=k iters=20000 ns=\)[0-9]*/\190000000/' \
		"$tmp/rep/results/bench/$run/workbench/ours-x86_64-wall$w.log"
done
expect_rc bench.report-clocks 0 rep
cp "$tmp/rep/results/REPORT.md" "$tmp/out"
has bench.report-clocks-f-explained '^- f: 0\.75 in instructions, 1\.[0-9][0-9] in wall time: ours masks interrupts'
has bench.report-clocks-k-unexplained '^- k: 0\.50 in instructions, 1\.[0-9][0-9] in wall time: not explained yet\.$'
rm -rf "$tmp/rep/results/bench/$run"
mv "$tmp/clocks-run" "$tmp/rep/results/bench/$run"
expect_rc bench.report-clocks-restored 0 rep
# a newer run narrowed to the per-hit boots (KP_BENCH_PARTS=hit) goes to
# the history: the current run stays the newest complete one
part=$tmp/rep/results/bench/2026-11-26T0000Z-x86_64
mkdir -p "$part/workbench"
cp "$ST/bench/$run/run.meta" "$part/"
cp "$ST/bench/$run/workbench/"*-icount.* "$part/workbench/"
expect_rc bench.report-partial 0 rep
cp "$tmp/rep/README.md" "$tmp/out"
has bench.readme-partial-not-current "run $run \\(git 222222222222\\)"
cp "$tmp/rep/results/REPORT.md" "$tmp/out"
has bench.report-partial-in-history '^\| \[2026-11-26T0000Z-x86_64\]\(bench/2026-11-26T0000Z-x86_64/\) \| 222222222222 \| x86_64 \| workbench \| 0\.50 '
rm -rf "$tmp/rep/results/bench"
expect_rc bench.report-empty 0 rep
cp "$tmp/rep/README.md" "$tmp/out"
has bench.readme-empty 'No benchmark result is stored yet: `make bench`'
hasnt bench.readme-empty-no-table '^\| k \|'
# the stress and archcheck sections, from runs stored as stress.sh and
# archcheck.sh store them (selftest/stress/, selftest/archcheck/)
mkdir -p "$tmp/rep2/results"
cp -r "$ST/stress" "$ST/archcheck" "$tmp/rep2/results/"
printf '%s\n<!-- bench-table end -->\n' "$begin" > "$tmp/rep2/README.md"
expect_rc report.stress-archcheck 0 br report --results "$tmp/rep2/results" --readme "$tmp/rep2/README.md"
cp "$tmp/rep2/results/REPORT.md" "$tmp/out"
has report.stress-row '^\| x86_64 \| ours \| 1000 \(50\) \| 500 \| 90000 \| 0 \| E22 500 \| 17 \| 0 \|$'
has report.stress-failed '^\| arm64 \| ours \| 400 \(50\) \| 380 \| .* \| 16 \| kernel-clean \|$'
has report.stress-raw-files '^Raw results: \[`stress/2026-11-25T1800Z-x86_64-arm64/`\]'
has report.archcheck-build-pass '^\| riscv64 \| ours \| vmlinux \| PASS \| KPROBES=y .*KPROBES_COMPAT=y'
has report.archcheck-build-fail '^\| mips \| ours \| vmlinux \| FAIL \| build '
has report.archcheck-kunit '^\| riscv64 \| ours \| 15 \| 1 \| 1 \|$'
has report.archcheck-closing '^Closing line: `archcheck: 23 passed, 2 failed`$'
# the per-cause section, from two runs stored as bench-steps.sh stores
# them (selftest/bench-steps/): the newest run per arch, a column per
# step in the series' order, the change each step brings, a step whose
# build failed, the rows no step measured, the older run named
mkdir -p "$tmp/rep3/results"
cp -r "$ST/bench-steps" "$tmp/rep3/results/"
printf '%s\n<!-- bench-table end -->\n' "$begin" > "$tmp/rep3/README.md"
expect_rc steps.report 0 br report --results "$tmp/rep3/results" --readme "$tmp/rep3/README.md"
cp "$tmp/rep3/results/REPORT.md" "$tmp/out"
has steps.report-run '^### x86_64, run 2026-11-27T1000Z-x86_64$'
has steps.report-columns '^\| row \| what \| 14 x86-int3 \| 15 x86 \| 18 x86-boost \| 19 x86-boost-preempt \| 20 x86-post \| 22 x86-kret \|$'
has steps.report-cells '^\| b \| kprobe, no post_handler \(trap: boosted or stepped\) \| 210 \(7\.0\) \| 201 \(6\.7\) \| 200 \(6\.7\) \| 100 \(3\.3\) \| no result \| 100 \(3\.3\) \|$'
has steps.report-build-failed '^\| 20 x86-post \| x86/kprobes: Run post_handlers from a copy of the instruction \| 202020202020 \| FAIL \|'
has steps.report-change '^\| b \| -9 \(-0\.3\) \| -1 \(-0\.0\) \| -100 \(-3\.3\) \| \+0 \(\+0\.0\) \|$'
has steps.report-change-nearest '^\| r \| - \| - \| - \| -200 \(-5\.7\) vs 14 \|$'
has steps.report-cause-nearest '^- 22 x86-kret \(the kretprobe trampoline instead of rethook\), against 19 x86-boost-preempt: r 500 at 14 x86-int3 -> 300 \(-200, -40%; wall'
has steps.report-cause '^- 19 x86-boost-preempt \(boosting in a preemptible kernel too\), against 18 x86-boost: b 200 -> 100 \(-100, -50%; wall 6\.7 -> 3\.3 calls\)\.$'
has steps.report-unchanged '^- 18 x86-boost \(boosting, in a kernel without preemption\), against 15 x86: k 300, unchanged \(\+0\); b 200, unchanged \(-1\)\.$'
has steps.report-nopreempt '^- 18 x86-boost \(boosting, in a kernel without preemption\), against 15 x86: k 300, unchanged \(\+0\); b 200 -> 90 \(-110, -55%'
has steps.report-unmeasured '^Not measured at any of these steps: r \(n/a \(arm\)\), o \(n/a \(no-optprobes\)\)'
has steps.report-older-run '^Earlier bench-steps runs .*\[2026-11-26T1000Z-x86_64\]'
hasnt steps.report-older-not-current '999'
expect_rc steps.report-up-to-date 0 br report --results "$tmp/rep3/results" --readme "$tmp/rep3/README.md" --check
# the cover letter's per-cause block and a part's message (@@STEP@@)
printf 'x\n\n@@CAUSES@@\n' > "$tmp/rep3/cover.txt"
expect_rc steps.cover 0 br cover --results "$tmp/rep3/results" --fill "$tmp/rep3/cover.txt"
has steps.cover-setup '^calls of its own boot \(median of one boot per step\)\)\.  Per step and row:$'
has steps.cover-config '^  x86_64, without preemption \(CONFIG_PREEMPT_NONE, no PREEMPT_DYNAMIC\):$'
has steps.cover-row '^    b +200 +6\.7 +100 +3\.3 +-100 +-3\.3$'
has steps.cover-missed '^    rs   90/100 missed     400      -$'
has steps.cover-share '^    b from 14 to 22: 210 -> 100 \(-110\), of which 19 x86-boost-preempt$'
printf 'x\n\n@@STEP@@\n' > "$tmp/rep3/msg.txt"
expect_rc steps.message 0 br cover --results "$tmp/rep3/results" --part x86-boost --fill "$tmp/rep3/msg.txt"
has steps.message-figure '^post_handler runs 200 guest instructions per hit before this patch and$'
has steps.message-unchanged '^per hit before this patch and 200 with it \(unchanged\)\.  In TCG wall time$'
expect_rc steps.message-nearest 0 br cover --results "$tmp/rep3/results" --part x86-kret --fill "$tmp/rep3/msg.txt"
has steps.message-nearest-said '^500 guest instructions per hit in the kernel of patch 14 \(6\.12.s x86$'
has steps.message-missed '^it, and 300 with it; a kretprobe with 100 calls in flight misses 90 of$'
expect_rc steps.message-unmeasured 0 br cover --results "$tmp/rep3/results" --part x86-opt --fill "$tmp/rep3/msg.txt"
has steps.message-unmeasured-said '^Not measured: no stored bench-steps run has the kernel of this patch'
rm -rf "$tmp/rep3/results/bench-steps"
expect_rc steps.report-empty 0 br report --results "$tmp/rep3/results" --readme "$tmp/rep3/README.md"
cp "$tmp/rep3/results/REPORT.md" "$tmp/out"
has steps.report-empty-said '^No bench-steps run is stored yet: `make bench-steps`'
# 7. The cover letter's figures (bench-report.py cover): its blocks made
# from crafted stored runs (selftest/bench/, teardown/, archcheck/,
# series/), the placeholders filled, and the lint that keeps figures out
# of series-msgs/cover.txt.
mkdir -p "$tmp/cov/results"
cp -r "$ST/bench" "$ST/teardown" "$ST/archcheck" "$ST/series" "$tmp/cov/results/"
printf 'Subject\n\nprose\n\n@@PERHIT@@\n\n@@CLOCKS@@\n\n@@UNREGISTER@@\n\n@@LOSSES@@\n\n@@TEARDOWN@@\n\n@@ARCHES@@\nend\n' \
	> "$tmp/cov/cover.txt"
cov() { br cover --results "$tmp/cov/results" "$@"; }
expect_rc cover.fill 0 cov --fill "$tmp/cov/cover.txt"
has cover.fill-runs-named 'x86_64 run 2026-11-25T1200Z \(project commit'
has cover.fill-setup-said 'one vCPU, 20,000 calls, the unprobed call'
has cover.fill-per-hit '^  post_handler +300 / 600 +0\.50 +0\.50$'
has cover.fill-clocks-agree '^On every row both clocks put this series and 6\.12 on the'
has cover.fill-unregister '^  x86_64, 100 at entries, just registered +500 ms +20 ms$'
has cover.fill-no-loss '^No row of the same runs costs this series more than'
has cover.fill-teardown '^    x86_64 +4 s +1\.3 ms +0\.6 ms$'
has cover.fill-teardown-run 'x86_64 run 2026-11-25T2100Z \(project commit 333333333333;'
has cover.fill-booted-run '^   riscv64: 2026-11-25T2200Z \(abc1234, 2 patches\) steps 01-03 \(one of$'
has cover.fill-booted '^   them the kernel of an earlier step: SAME\), one failed; all 2 steps$'
has cover.fill-booted-failed 'SAME\), one failed; all 2 steps$'
has cover.fill-booted-older '^   covered\.  One stored run of an earlier version of the series is not$'
has cover.fill-carried '^   2026-11-26T0000Z \(abc1234, 2 patches\) step 02 carried from run$'
has cover.fill-not-covered '^   the same tree passed there, all passed; step 01 not covered\.$'
has cover.fill-linked '^ - Linked after every patch, never booted \(make series-check, vmlinux$'
has cover.fill-linked-run '^   2026-11-25T2300Z \(abc1234, 2 patches\) steps 01-02 \(one of them the$'
has cover.fill-build-failed '^ - Did not build in the newest stored make archcheck run: mips'
hasnt cover.fill-placeholders-gone '@@'
# a wall boot where the f hit costs more than 6.12's while its
# instructions cost less: said, with its cause
for w in 1 2; do
	sed -i 's/^\(BENCHRES row=f iters=20000 ns=\)[0-9]*/\130000000/' \
		"$tmp/cov/results/bench/2026-11-25T1200Z-x86_64/workbench/ours-x86_64-wall$w.log"
done
expect_rc cover.clocks 0 cov --fill "$tmp/cov/cover.txt"
has cover.clocks-f-explained '^On x86_64, the row "kprobe on ftrace" is 0\.75 of 6\.12 in instructions'
printf 'x\n\n@@NOPE@@\n' > "$tmp/cov/bad.txt"
expect_rc cover.fill-unknown-placeholder 1 cov --fill "$tmp/cov/bad.txt"
expect_rc cover.lint-unknown-placeholder 1 br cover --lint "$tmp/cov/bad.txt"
printf 'x\n\nsee @@PERHIT@@ below\n' > "$tmp/cov/inline.txt"
expect_rc cover.lint-inline-placeholder 1 br cover --lint "$tmp/cov/inline.txt"
printf 'x\n\n6.12.117 (6.12.117-1~deb12u1), x86_64, arm64, int3, CONFIG_X86_64,\n32 KiB, removed in 4.15\n@@PERHIT@@\n' \
	> "$tmp/cov/ok.txt"
expect_rc cover.lint-allowed 0 br cover --lint "$tmp/cov/ok.txt"
printf 'x\n\none grace period per batch: 17.2 ms for 100\n' > "$tmp/cov/fig.txt"
expect_rc cover.lint-figure-caught 1 br cover --lint "$tmp/cov/fig.txt"
has cover.lint-figure-named ':3: "17\.2 ms" in: one grace period per batch'
# the repository's cover letter quotes no figure outside the placeholders
expect_rc cover.repository-figures-generated 0 br cover --lint "$KP_TOOLS/series-msgs/cover.txt"
# the repository's own: README.md and results/REPORT.md are what the
# stored results make (nobody edited them by hand)
expect_rc bench.repository-report-up-to-date 0 br report --check

# Reached the end (nothing may follow this line).
echo "SELFTEST completed PASS ($nchecks checks, $nfail failed)"
[ $nfail = 0 ]
