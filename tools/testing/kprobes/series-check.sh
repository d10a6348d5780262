#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# series-check.sh [--quick]: the exported series as a maintainer takes it
# (make series-check).
#
#   1. export it (series.sh) and `git am` it onto a git repository of the
#      pinned base (the whole tree, made once in $KP_BUILD/series-check/);
#   2. scripts/checkpatch.pl --strict on every patch, run from the base's
#      tree (not --no-tree), less checkpatch-allow;
#   3. scripts/kernel-doc -none -Wall on every C file and header of ours
#      the series adds or rewrites;
#   4. MAINTAINERS: every file the series adds or rewrites falls under
#      KPROBES (get_maintainer.pl --sections), every F: pattern of the
#      section matches a file of the patched tree and none is outside
#      the series, and (not with --quick: minutes)
#      get_maintainer.pl --self-test=patterns reports nothing there;
#   5. (not with --quick) a build after every patch, on each arch of
#      KP_SC_ARCHES (default "x86_64 arm64 riscv64"; every step has
#      KPROBES on all three, through the compat layer until an
#      architecture's own port): defconfig
#      plus the kprobes options (KPROBES KRETPROBES OPTPROBES JPROBES
#      KPROBE_EVENTS, the KUnit suites, the samples), incremental, out of
#      tree, with ccache.  KP_SC_BUILD=fast (default) compiles the
#      kprobes objects the config enables (the core, the arch's, the
#      tests, the samples, the users: trace_kprobe, the unwinder, the
#      arm64 fault handler).  KP_SC_BUILD=vmlinux builds and links
#      vmlinux and the modules (modpost) in make check's config of the
#      arch (fragment.sh ours ARCH: the kprobes options, KUnit, a small
#      kernel) instead of defconfig, whose cold build takes an hour on
#      arm64; riscv64, which has no such config, archcheck-kunit.sh's
#      small KUnit config (lib.sh kp_small_kunit_fragment).
#      Each step's kernel then boots under QEMU and runs
#      the kprobes KUnit suites it has (kunit.py exec 'kprobes*': 6.12's
#      own kprobes_test at every step, ours from their patches on);
#      SKIP where the step's config has no KPROBES.  KP_SC_ARCHES may also
#      name archcheck's other architectures (ppc64le s390x arm mips i386
#      arc parisc sh4 sparc64): each step links vmlinux and the modules in
#      archcheck's small config (allnoconfig plus the kprobes options,
#      their callers, the samples as modules, the KUnit suites),
#      without a boot (sparc64 without fs/fcntl.c's open-flags
#      BUILD_BUG_ON, which 6.12.117 fails there, as in archcheck); a
#      step whose tree that architecture compiles is the last built
#      step's is not built again (its line names that step).
#      KP_SC_FROM / KP_SC_TO (patch numbers, 1-based) narrow the
#      steps.  KP_SC_SERIES=fixes or teardown builds (and with
#      KP_SC_BUILD=vmlinux boots) the steps of that series for the plain
#      base instead, on the plain base, in the upstream flavour's config
#      (fragment.sh upstream ARCH); its boots run 6.12's kprobes_test,
#      where the fixes add their cases.
#
#   6. the two series for the plain base (patches/fixes/ and
#      patches/teardown/, exported beside the series): git am of each on
#      the plain base alone and of both together, checkpatch --strict.
#
# --builds runs 1 and 5 only.  --quick (part of make check) runs 1-4 and 6:
# about a minute, once the base repository exists.  --apply runs 1 only
# and leaves the repository with the series' commits, tagged "series"
# (bench-steps.sh builds its steps from there).  KP_SC_SEED=REPO: make
# the base repository, the first time, by a clone of another one of the
# same base (its objects hardlinked: seconds) instead of a copy of the
# base (minutes).  Result lines:
#     SERIES apply PASS|FAIL
#     SERIES checkpatch PASS|FAIL           (the failing patches indented)
#     SERIES kernel-doc PASS|FAIL           (the failing files indented)
#     SERIES maintainers PASS|FAIL
#     SERIES fixes.apply PASS|FAIL          (6. the fixes for the plain base)
#     SERIES fixes.checkpatch PASS|FAIL
#     SERIES teardown.apply PASS|FAIL       (6. the teardown series)
#     SERIES teardown.checkpatch PASS|FAIL
#     SERIES plain.together PASS|FAIL       (6. both, fixes first)
#     SERIES build.NN.ARCH PASS|FAIL|SKIP|SAME (NN the patch; not --quick)
#     SERIES boot.NN.ARCH PASS|FAIL|SKIP|SAME (KP_SC_BUILD=vmlinux)
# Logs in $KP_BUILD/series-check/; exit status non-zero if any failed.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
quick=0 builds=1 checks=1
case ${1:-} in
--quick) quick=1 builds=0 ;;
--builds) checks=0 ;;
--apply) checks=0 builds=0 ;;
esac
sc=$KP_BUILD/series-check
repo=$sc/linux
ser=$KP_BUILD/series
mkdir -p "$sc"
rc=0
res() { echo "SERIES $*"; case $2 in FAIL) rc=1 ;; esac; }

# 1. export and apply
if ! "$KP_TOOLS/series.sh" "$ser" > "$sc/export.log" 2>&1; then
	res apply FAIL "(export: $(tail -n 3 "$sc/export.log" | tr '\n' ' '))"
	exit 1
fi
mapfile -t patches < <(ls "$ser"/0*.patch | grep -v '/0000-cover-letter\.patch$')
if [ ! -f "$repo/.kp-base" ]; then
	kp_log "series-check: a git repository of the base in $repo (once)"
	kp_rm_tree "$repo"
	if [ -n "${KP_SC_SEED:-}" ]; then
		git -C "$KP_SC_SEED" rev-parse -q --verify base >/dev/null &&
		git clone -q --no-checkout "$KP_SC_SEED" "$repo" &&
		git -C "$repo" checkout -q -f --detach base &&
		git -C "$repo" config user.name kprobes &&
		git -C "$repo" config user.email kprobes@localhost &&
		git -C "$repo" config gc.auto 0 ||
			kp_die "cannot clone the base repository $KP_SC_SEED"
	else
		mkdir -p "$repo"
		# the base is read-only (deps.sh), the repository must not be: for
		# a user who is not root, git init and git am could not write there
		cp -a "$KP_BASE/." "$repo/" && chmod -R u+w "$repo" &&
		(
			cd "$repo" && git init -q && git config user.name kprobes &&
			git config user.email kprobes@localhost &&
			git config gc.auto 0 && git add -A -f &&
			GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z \
				git commit -qm "Linux $(make -s kernelversion) ($(kp_base_used))"
		) || kp_die "cannot make the base repository"
	fi
	git -C "$repo" tag -f base >/dev/null
	: > "$repo/.kp-base"
	echo .kp-base >> "$repo/.git/info/exclude"
fi
git -C "$repo" am --abort >/dev/null 2>&1
git -C "$repo" checkout -q -f --detach base && git -C "$repo" clean -qfdx -e .kp-base
# The series sits on the teardown series for the plain base (exported
# beside it): that first, tagged "teardown", where the series' steps
# begin.
mapfile -t tpatches < <(ls "$ser-teardown"/0*.patch 2>/dev/null | grep -v '/0000-cover-letter\.patch$')
if [ ${#tpatches[@]} = 0 ] ||
   ! git -C "$repo" am -q "${tpatches[@]}" > "$sc/am.log" 2>&1; then
	res apply FAIL "(the teardown series does not apply: see $sc/am.log)"
	git -C "$repo" am --abort >/dev/null 2>&1
	exit 1
fi
git -C "$repo" tag -f teardown >/dev/null
# The fixes series alone on the plain base, tagged "fixes", for its
# steps (KP_SC_SERIES=fixes); the repository goes back to "teardown".
mapfile -t fpatches < <(ls "$ser-fixes"/0*.patch 2>/dev/null | grep -v '/0000-cover-letter\.patch$')
if [ "${KP_SC_SERIES:-rebuild}" = fixes ]; then
	git -C "$repo" checkout -q -f --detach base &&
	git -C "$repo" am -q "${fpatches[@]}" > "$sc/fixes-steps-am.log" 2>&1 &&
	git -C "$repo" tag -f fixes >/dev/null || {
		res apply FAIL "(the fixes series does not apply: see $sc/fixes-steps-am.log)"
		git -C "$repo" am --abort >/dev/null 2>&1
		exit 1
	}
	git -C "$repo" checkout -q -f --detach teardown
fi
if git -C "$repo" am -q "${patches[@]}" >> "$sc/am.log" 2>&1; then
	git -C "$repo" tag -f series >/dev/null
	res apply PASS "(${#patches[@]} patches, on the ${#tpatches[@]} of the teardown series)"
else
	res apply FAIL "(see $sc/am.log)"
	sed 's/^/    /' "$sc/am.log" | head -20
	git -C "$repo" am --abort >/dev/null 2>&1
	exit 1
fi
# the files the series adds or rewrites, as git am left them
mapfile -t ourfiles < <(cd "$KP_ROOT" && git ls-files -- kernel include arch lib samples Documentation)

case ${KP_SC_SERIES:-rebuild} in
rebuild) mapfile -t commits < <(git -C "$repo" rev-list --reverse teardown..series) ;;
fixes) mapfile -t commits < <(git -C "$repo" rev-list --reverse base..fixes) ;;
teardown) mapfile -t commits < <(git -C "$repo" rev-list --reverse base..teardown) ;;
*) kp_die "series-check: KP_SC_SERIES is rebuild, fixes or teardown" ;;
esac
if [ $checks = 1 ]; then
# 2. checkpatch --strict, from the base's tree (KP_SC_CHECKPATCH=0: not
#    here; make check has checkpatch.sh's per-patch lines instead)
fails=()
[ "${KP_SC_CHECKPATCH:-1}" = 0 ] && patches_cp=() || patches_cp=("${patches[@]}")
for p in "${patches_cp[@]}"; do
	n=$(basename "$p" .patch)
	out=$(cd "$KP_BASE" && ./scripts/checkpatch.pl --strict --no-summary \
		--show-types --ignore FILE_PATH_CHANGES -q "$p" 2>&1 |
		python3 "$KP_TOOLS/checkpatch-filter.py")
	if [ -n "$out" ]; then
		fails+=("$n")
		{ echo "== $n"; echo "$out"; } >> "$sc/checkpatch.log.new"
	fi
done
mv -f "$sc/checkpatch.log.new" "$sc/checkpatch.log" 2>/dev/null || : > "$sc/checkpatch.log"
if [ ${#patches_cp[@]} = 0 ]; then
	:
elif [ ${#fails[@]} = 0 ]; then
	res checkpatch PASS "(${#patches[@]} patches, --strict, from the base tree)"
else
	res checkpatch FAIL "(${#fails[@]} of ${#patches[@]} patches; $sc/checkpatch.log)"
	head -40 "$sc/checkpatch.log" | sed 's/^/    /'
fi

# 3. kernel-doc -Wall on every C file and header of ours
fails=()
: > "$sc/kernel-doc.log"
nkd=0
for f in "${ourfiles[@]}"; do
	case $f in *.c|*.h) ;; *) continue ;; esac
	nkd=$((nkd + 1))
	out=$(cd "$repo" && ./scripts/kernel-doc -none -Wall "$f" 2>&1)
	[ -z "$out" ] && continue
	fails+=("$f")
	{ echo "== $f"; echo "$out"; } >> "$sc/kernel-doc.log"
done
if [ ${#fails[@]} = 0 ]; then
	res kernel-doc PASS "($nkd files, -Wall)"
else
	res kernel-doc FAIL "(${#fails[@]} of $nkd files; $sc/kernel-doc.log)"
	head -40 "$sc/kernel-doc.log" | sed 's/^/    /'
fi

# 4. MAINTAINERS: the KPROBES section's patterns all match, and it
#    covers every file of ours and nothing outside the series.
mfail=()
# --self-test=patterns reads the whole file (minutes): not with --quick,
# where the loop below checks the section's own patterns.
if [ $quick = 0 ]; then
	st=$(cd "$repo" && ./scripts/get_maintainer.pl --self-test=patterns 2>&1)
	echo "$st" > "$sc/get_maintainer-self-test.log"
	kl=$(awk '/^KPROBES$/{s=1} s&&/^$/{exit} s{print NR}' "$repo/MAINTAINERS" | paste -sd '|')
	bad=$(echo "$st" | grep -E "^\./MAINTAINERS:($kl):" || true)
	[ -z "$bad" ] || mfail+=("self-test: $bad")
fi
section=$(awk '/^KPROBES$/{s=1} s&&/^$/{exit} s&&/^F:/{print $2}' "$repo/MAINTAINERS")
for f in "${ourfiles[@]}"; do
	out=$(cd "$repo" && ./scripts/get_maintainer.pl --nogit --nogit-fallback \
		--sections -f "$f" 2>&1)
	# a here-string: with pipefail, "echo | grep -q" fails whenever grep
	# stops reading at its match before echo is done (a long listing)
	grep -qx KPROBES <<< "$out" || mfail+=("$f: not under KPROBES")
done
while read -r pat; do
	[ -n "$pat" ] || continue
	m=$(cd "$repo" && git ls-files -- "$pat" ":(glob)$pat" 2>/dev/null | head -1)
	[ -n "$m" ] || mfail+=("F: $pat matches no file of the tree")
	case $pat in tools/*) mfail+=("F: $pat is not in the series") ;; esac
done <<< "$section"
if [ ${#mfail[@]} = 0 ]; then
	res maintainers PASS "(${#ourfiles[@]} files under KPROBES, every F: of it matches$([ $quick = 1 ] || echo '; self-test=patterns clean there'))"
else
	res maintainers FAIL
	printf '    %s\n' "${mfail[@]}"
fi

# 6. The two series for the plain base (series.sh exported them beside
#    the series): fixes and teardown each apply with git am to the whole
#    base, alone and together (fixes first), and pass checkpatch
#    --strict as the series does.  The repository is left at the
#    series, for the builds below.
plain_am() {	# plain_am NAME PATCHES...: git am on the plain base
	local name=$1
	shift
	git -C "$repo" checkout -q -f --detach base && git -C "$repo" clean -qfdx -e .kp-base
	if git -C "$repo" am -q "$@" > "$sc/$name-am.log" 2>&1; then
		return 0
	fi
	git -C "$repo" am --abort >/dev/null 2>&1
	return 1
}
for name in fixes teardown; do
	if [ $name = fixes ]; then pp=("${fpatches[@]}"); else pp=("${tpatches[@]}"); fi
	if [ ${#pp[@]} = 0 ]; then
		res $name.apply FAIL "(nothing exported in $ser-$name)"
		continue
	fi
	if plain_am $name "${pp[@]}"; then
		res $name.apply PASS "(${#pp[@]} patches on the plain base)"
	else
		res $name.apply FAIL "(see $sc/$name-am.log)"
	fi
	fails=()
	for p in "${pp[@]}"; do
		# UNKNOWN_COMMIT_ID: the base tree has no history to look
		# the Fixes: commits up in.  MISSING_FIXES_TAG: a fix whose
		# introducing commit is not pinned down names the release
		# it was found in instead (patches/fixes/README).
		out=$(cd "$KP_BASE" && ./scripts/checkpatch.pl --strict --no-summary \
			--show-types --ignore UNKNOWN_COMMIT_ID,MISSING_FIXES_TAG \
			-q "$p" 2>&1 | python3 "$KP_TOOLS/checkpatch-filter.py")
		[ -z "$out" ] || { fails+=("$(basename "$p")"); echo "$out" | head -20 | sed 's/^/    /'; }
	done
	if [ ${#fails[@]} = 0 ]; then
		res $name.checkpatch PASS "(${#pp[@]} patches, --strict)"
	else
		res $name.checkpatch FAIL "(${fails[*]})"
	fi
done
if [ ${#fpatches[@]} -gt 0 ] && [ ${#tpatches[@]} -gt 0 ]; then
	if plain_am together "${fpatches[@]}" "${tpatches[@]}"; then
		res plain.together PASS "(fixes then teardown on the plain base)"
	else
		res plain.together FAIL "(see $sc/together-am.log)"
	fi
fi
git -C "$repo" checkout -q -f --detach series

fi
[ $builds = 1 ] || exit $rc

# 5. a build after every patch
arches=${KP_SC_ARCHES:-x86_64 arm64 riscv64}
mode=${KP_SC_BUILD:-fast}
from=${KP_SC_FROM:-1}
to=${KP_SC_TO:-${#commits[@]}}
# the steps of a series for the plain base: their own build directories
# and result names (fixes.build.NN.ARCH, teardown.boot.NN.ARCH)
plain=
case ${KP_SC_SERIES:-rebuild} in
fixes|teardown)
	plain=$KP_SC_SERIES
	arches=${KP_SC_ARCHES:-x86_64 arm64}
	;;
esac
# The builds run in a worktree of their own, so that a --quick run can
# use the repository meanwhile.
# KP_SC_WORK: where the worktree and the build directories are (default
# $KP_BUILD/series-check; another one lets two build runs go at once).
work=${KP_SC_WORK:-$sc}
src=$work/src
if [ ! -d "$src" ]; then
	git -C "$repo" worktree prune
	git -C "$repo" worktree add -q --detach "$src" base || kp_die "no worktree $src"
fi
sc_arch() {	# kernel ARCH, cross prefix
	kp_sc_arch "$1" || kp_die "series-check: unknown arch $1"
}
# An architecture other than x86_64, arm64 and riscv64 (archcheck's):
# each step links vmlinux and the modules in archcheck's small config
# (kp_archcheck_small_config), in either mode, and does not boot.
# On every architecture, a step whose tree is, outside Documentation/,
# MAINTAINERS and the other architectures' arch/ directories, the tree
# of the step last built (and in the vmlinux mode booted) there with
# success gives the same kernel: it is not built again, and its lines
# say SAME and name that step (KP_SC_SAME=0: build every step).
sc_other() { case $1 in x86_64|arm64|riscv64) return 1 ;; esac; }
sc_tree_key() {	# sc_tree_key KARCH: the tree the arch's compiler sees
	local d=$1
	[ "$d" = i386 ] && d=x86
	git -C "$src" ls-tree -r HEAD | grep -v -P "\t(Documentation/|MAINTAINERS$|arch/(?!$d/)[^/]+/)" |
		sha1sum | cut -c1-12
}
declare -A sc_last_key sc_last_step
sc_objs() {	# "SYMS:object" (built when every SYM is y and the source exists)
	case $1 in
	x86_64) echo "KPROBES:arch/x86/kernel/kprobes/core.o
		KPROBES:arch/x86/kernel/kprobes/step_trampoline.o
		KRETPROBES:arch/x86/kernel/kprobes/kretprobe.o
		KRETPROBES:arch/x86/kernel/kprobes/kretprobe_trampoline.o
		OPTPROBES:arch/x86/kernel/kprobes/opt.o
		OPTPROBES:arch/x86/kernel/kprobes/opt_trampoline.o
		KPROBES_ON_FTRACE:arch/x86/kernel/kprobes/ftrace.o
		JPROBES:arch/x86/kernel/kprobes/jprobe.o
		JPROBES:arch/x86/kernel/kprobes/jprobe_trampoline.o
		KPROBES_KUNIT_TEST:arch/x86/kernel/kprobes/test-kprobes-insn.o
		KPROBES_KUNIT_TEST:arch/x86/kernel/kprobes/test-kprobes-x86.o
		KPROBES_KUNIT_TEST:arch/x86/kernel/kprobes/test-kprobes-ctx.o
		UNWINDER_ORC:arch/x86/kernel/unwind_orc.o
		UNWINDER_FRAME_POINTER:arch/x86/kernel/unwind_frame.o
		X86_64:arch/x86/kernel/traps.o
		X86_64:arch/x86/kernel/alternative.o
		X86_64:arch/x86/mm/fault.o" ;;
	arm64) echo "KPROBES:arch/arm64/kernel/probes/kprobes.o
		KPROBES:arch/arm64/kernel/probes/decode-insn.o
		KPROBES:arch/arm64/kernel/probes/simulate-insn.o
		KPROBES:arch/arm64/kernel/probes/kprobes_trampoline.o
		UPROBES:arch/arm64/kernel/probes/decode-insn.o
		UPROBES:arch/arm64/kernel/probes/simulate-insn.o
		KRETPROBES:arch/arm64/kernel/probes/kretprobe.o
		OPTPROBES:arch/arm64/kernel/probes/opt.o
		JPROBES:arch/arm64/kernel/probes/jprobe.o
		JPROBES:arch/arm64/kernel/probes/jprobe_trampoline.o
		KPROBES_KUNIT_TEST:arch/arm64/kernel/probes/test-kprobes-arm64.o
		KPROBES_KUNIT_TEST:arch/arm64/kernel/probes/test-kprobes-insn.o
		UPROBES:arch/arm64/kernel/probes/uprobes.o
		ARM64:arch/arm64/mm/fault.o
		ARM64:arch/arm64/kernel/debug-monitors.o
		ARM64:arch/arm64/kernel/stacktrace.o" ;;
	riscv64) echo "KPROBES:arch/riscv/kernel/probes/kprobes.o
		KPROBES:arch/riscv/kernel/probes/decode-insn.o
		KPROBES:arch/riscv/kernel/probes/simulate-insn.o
		RETHOOK:arch/riscv/kernel/probes/rethook.o" ;;
	esac
	echo "KPROBES:kernel/kprobes.o
		KPROBES_COMPAT:kernel/kprobes_compat.o
		KRETPROBES,!KRETPROBE_ON_RETHOOK:kernel/kretprobes.o
		KRETPROBE_ON_RETHOOK:kernel/kretprobes_rethook.o
		KPROBES_ON_FTRACE:kernel/kprobes_ftrace.o
		OPTPROBES:kernel/kprobes_opt.o
		JPROBES:kernel/jprobes.o
		KPROBE_EVENTS:kernel/trace/trace_kprobe.o
		DYNAMIC_EVENTS:kernel/trace/trace_dynevent.o
		PERF_EVENTS,EVENT_TRACING:kernel/trace/trace_event_perf.o
		BPF_EVENTS:kernel/trace/bpf_trace.o
		KPROBES_SANITY_TEST:lib/test_kprobes.o
		KPROBES_KUNIT_TEST:lib/test_kprobes_core.o
		KRETPROBES_KUNIT_TEST:lib/test_kretprobes.o
		OPTPROBES_KUNIT_TEST:lib/test_kprobes_opt.o
		JPROBES_KUNIT_TEST:lib/test_jprobes.o
		SAMPLE_KPROBES:samples/kprobes/kprobe_example.o
		SAMPLE_KRETPROBES:samples/kprobes/kretprobe_example.o
		SAMPLE_JPROBES:samples/kprobes/jprobe_example.o
		SAMPLE_KPROBE_BENCH:samples/kprobes/kprobe_bench_main.o
		SAMPLE_KPROBE_BENCH:samples/kprobes/kprobe_bench_funcs.o
		SAMPLE_KPROBE_BENCH,JPROBES:samples/kprobes/kprobe_bench_jprobe.o"
}
sc_image() {	# the boot image kunit.py's QEMU config boots
	case $1 in
	x86_64) echo bzImage ;;
	arm64|riscv64) echo Image ;;
	esac
}
# riscv64 has no config of make check: the small KUnit config of
# archcheck-kunit.sh, with the options of its QEMU machine
sc_riscv64_config() {
	kp_small_kunit_fragment ours
	grep -o '^CONFIG_[A-Z0-9_]*=[ym]' "$KP_TOOLS/qemu/riscv64.py"
}
sc_boot() {	# sc_boot NN ARCH OBJ: boot the step, run its kprobes KUnit suites
	local nn=$1 a=$2 obj=$3 klog=$work/boot-${plain:+$plain-}$1-$2.log t0 out rcb
	if ! grep -q '^CONFIG_KPROBES=y' "$obj/.config"; then
		res "${plain:+$plain.}boot.$nn.$a" SKIP "(no KPROBES in this step's config)"
		return 1
	fi
	t0=$(date +%s)
	(cd "$src" && timeout 960 python3 tools/testing/kunit/kunit.py exec \
		--build_dir="$obj" --qemu_config="$KP_TOOLS/qemu/$a.py" \
		${cross:+--cross_compile="$cross"} --timeout=900 \
		--kernel_args=test_kprobes_opt.workbench=0 \
		--raw_output=all 'kprobes*') > "$klog" 2>&1
	out=$(python3 "$KP_TOOLS/kunit-results.py" "$klog")
	rcb=$?
	if [ $rcb = 0 ]; then
		res "${plain:+$plain.}boot.$nn.$a" PASS "(KUnit: $(grep -c ' PASS' <<< "$out") passed, $(grep -c ' SKIP' <<< "$out") skipped, suites $(sed -n 's/^KUNIT \([^.]*\)\..*/\1/p' <<< "$out" | sort -u | paste -sd ' '); $(( $(date +%s) - t0 ))s)"
	else
		res "${plain:+$plain.}boot.$nn.$a" FAIL "(see $klog)"
		grep -E ' FAIL|^    ' <<< "$out" | head -12 | sed 's/^/    /'
		return 1
	fi
}
sc_wanted() {	# sc_wanted CONFIG SYMS
	local s
	for s in ${2//,/ }; do
		case $s in
		!*) ! grep -qE "^CONFIG_${s#!}=[ym]" "$1" || return 1 ;;
		*) grep -qE "^CONFIG_$s=[ym]" "$1" || return 1 ;;
		esac
	done
}
for ((i = from; i <= to; i++)); do
	nn=$(printf '%02d' "$i")
	git -C "$src" checkout -q -f --detach "${commits[$((i - 1))]}" || {
		res "${plain:+$plain.}build.$nn" FAIL "(checkout)"
		continue
	}
	for a in $arches; do
		read -r karch cross < <(sc_arch "$a")
		obj=$work/obj-$a
		log=$work/build-$nn-$a.log
		if [ "$mode" = vmlinux ]; then
			obj=$work/obj-$a-vmlinux
			log=$work/build-$nn-$a-vmlinux.log
		fi
		if [ -n "$plain" ]; then
			obj=$obj-plain
			log=${log%.log}-$plain.log
		fi
		if sc_other "$a"; then
			obj=$work/obj-$a-small
			log=$work/build-$nn-$a-small.log
		fi
		key=$(sc_tree_key "$karch")
		if [ "${KP_SC_SAME:-1}" = 1 ] && [ "${sc_last_key[$a]:-}" = "$key" ]; then
			res "${plain:+$plain.}build.$nn.$a" SAME "(the tree of step ${sc_last_step[$a]} outside Documentation/, MAINTAINERS and other arches' arch/: not built again)"
			if [ "$mode" = vmlinux ] && ! sc_other "$a"; then
				res "${plain:+$plain.}boot.$nn.$a" SAME "(step ${sc_last_step[$a]}'s kernel, booted there)"
			fi
			continue
		fi
		mkdir -p "$obj"
		mk() {
			nice -n 10 make -C "$src" O="$obj" ARCH="$karch" CROSS_COMPILE="$cross" \
				CC="ccache ${cross}gcc" -j"$KP_JOBS" "$@"
		}
		t0=$(date +%s)
		objs=()
		# sparc64 builds without the check of fs/fcntl.c that 6.12.117
		# fails there (lib.sh's kp_sparc64_fcntl), in the worktree only:
		# the line after the build puts the file back.
		note=
		if [ "$a" = sparc64 ]; then
			kp_sparc64_fcntl "$src/fs/fcntl.c" "$src/fs/fcntl.c" ||
				kp_die "series-check: fs/fcntl.c has no sparc64 check to leave out"
			note="; fs/fcntl.c without its open-flags BUILD_BUG_ON, which the base fails on sparc64"
		fi
		{
			if sc_other "$a"; then
				kp_archcheck_small_config "$a" > "$obj/kprobes.fragment" &&
				mk allnoconfig KCONFIG_ALLCONFIG="$obj/kprobes.fragment"
			elif [ "$mode" = vmlinux ] && [ "$a" = riscv64 ]; then
				sc_riscv64_config > "$obj/.config"
			elif [ "$mode" = vmlinux ]; then
				"$KP_TOOLS/fragment.sh" "$([ -n "$plain" ] && echo upstream || echo ours)" "$a" > "$obj/.config"
			else
				mk defconfig
			fi &&
			"$src/scripts/config" --file "$obj/.config" "${KP_SC_CONFIG_ARGS[@]}" &&
			mk olddefconfig &&
			if sc_other "$a"; then
				mk vmlinux modules
			elif [ "$mode" = vmlinux ]; then
				mk vmlinux modules $(sc_image "$a")
			else
				mk prepare
			fi
		} > "$log" 2>&1
		ok=$?
		[ "$a" != sparc64 ] || git -C "$src" checkout -q -- fs/fcntl.c
		if [ $ok = 0 ]; then
			while read -r line; do
				[ -n "$line" ] || continue
				f=${line#*:}
				sf=$src/${f%.o}
				[ -f "$sf.c" ] || [ -f "$sf.S" ] || continue
				# a file the series brings before the patch that
				# builds it (the rebuilt core before its switch)
				grep -qwF "$(basename "$f")" "$src/$(dirname "$f")/Makefile" || continue
				sc_wanted "$obj/.config" "${line%%:*}" && objs+=("$f")
			done < <(sc_objs "$a" | sed 's/^[[:space:]]*//')
			[ ${#objs[@]} = 0 ] || mk "${objs[@]}" >> "$log" 2>&1 || ok=1
		fi
		opts=$(for s in KPROBES KRETPROBES OPTPROBES KPROBES_ON_FTRACE JPROBES KPROBES_COMPAT; do
			v=$(sed -n "s/^CONFIG_$s=//p" "$obj/.config"); echo -n " $s=${v:-n}"; done)
		if [ $ok = 0 ]; then
			if sc_other "$a"; then
				sc_last_key[$a]=$key sc_last_step[$a]=$nn
				res "${plain:+$plain.}build.$nn.$a" PASS "(vmlinux and $(find "$obj" -name '*.ko' | wc -l) modules, small config, $(( $(date +%s) - t0 ))s;$opts$note)"
				continue
			fi
			res "${plain:+$plain.}build.$nn.$a" PASS "($mode, ${#objs[@]} objects, $(( $(date +%s) - t0 ))s;$opts)"
			if [ "$mode" != vmlinux ] || sc_boot "$nn" "$a" "$obj"; then
				sc_last_key[$a]=$key sc_last_step[$a]=$nn
			fi
		else
			res "${plain:+$plain.}build.$nn.$a" FAIL "($mode; $log)"
			grep -E 'error|Error' "$log" | head -10 | sed 's/^/    /'
		fi
	done
done
exit $rc
