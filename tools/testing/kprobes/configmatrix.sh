#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# configmatrix.sh FLAVOUR ARCH [VARIANT...]: build the kernel in the
# configurations upstream supports besides the workbench's own, and run
# the KUnit suites kprobes* in each.  Prints
#   MATRIX ARCH:VARIANT.build PASS|FAIL|SKIP
#   MATRIX ARCH:VARIANT.kunit PASS|FAIL
#   KUNIT ARCH:VARIANT:suite.case PASS|FAIL|SKIP
# and exits 1 on any failure.  Each variant builds in its own directory,
# $KP_BUILD/matrix/FLAVOUR-ARCH-VARIANT or, for those one option away
# from the workbench config, $KP_BUILD/obj-FLAVOUR-ARCH-VARIANT (see
# variant_obj()), through the shared ccache.
#
# KP_MATRIX_QUICK=1 compiles only the objects kprobes and its tests are
# made of (kernel/kprobes*.o, kretprobes, jprobes, the arch's probes
# directory, lib/test_*probes*.o) after the kernel's prepare step, and
# runs nothing: "MATRIX ARCH:VARIANT.compile PASS|FAIL".  Minutes instead
# of a full kernel build, for a loaded machine; it cannot see link
# errors.
#
# Variants:
#   kunit         the kernel's own `kunit.py run --arch=ARCH` with the
#                 kunitconfig below (KUNIT, KPROBES, KPROBES_SANITY_TEST
#                 and DEBUG_KERNEL, which the test depends on: without it
#                 kunit.py refuses the config on upstream too; for ours
#                 also JPROBES and the *_KUNIT_TEST options of its
#                 suites).  Its olddefconfig has no MODULES, no
#                 FUNCTION_TRACER, no SMP and no JUMP_LABEL: it is also
#                 the "no modules" case.
#   noftrace      the workbench config without FUNCTION_TRACER (modules,
#                 no ftrace sites, no kprobes on ftrace)
#   nomodules     the workbench config without MODULES (and what needs
#                 them: samples, LIVEPATCH)
#   noopt         the workbench config without OPTPROBES
#   nokretprobes  the workbench config without KRETPROBES
#   nojprobes     the workbench config without JPROBES (ours only)
#   cfi           x86_64: the workbench config with kernel CFI
#                 (CFI_CLANG), built with clang-16 and lld (Debian 12's
#                 default clang, 14, has no kCFI): kpx_cfi_check, which a
#                 gcc build skips, runs here.  Ours only (the test is ours).
#   fp            x86_64: the workbench config with the frame pointer
#                 unwinder (UNWINDER_FRAME_POINTER) instead of ORC: stack
#                 traces from handlers walk the trampolines' encoded frame
#                 pointers (kprobes_x86_tramp).  i386 always has this
#                 unwinder (i386-kunit.sh).  Ours only (the test is ours).
#   xenpv         x86_64: the workbench config with Xen PV guest support
#                 (PARAVIRT_XXL, the trampolines' Xen PV alternatives);
#                 it boots natively here (no Xen under QEMU), so it shows
#                 that the paravirt build links and runs, not Xen PV
#                 itself.  Ours only.
#
# make check runs them all with KP_MATRIX_QUICK=1 (their compile
# warnings fail it); make matrix (matrix.sh) builds and boots them.
# Which run by default, and why: every variant is a full kernel build
# (about 10 to 20 minutes each on two cores when ccache has not seen its
# flags and headers).  The kunit variant is the configuration of the
# issue and differs most between architectures, so it runs on both.
# noopt, nokretprobes and nojprobes run on both too: arm64 has its own
# opt.c, kretprobe.c and jprobe.c, and its KUnit suites their own
# #ifdefs.  noftrace is x86_64 only (arm64 has no kprobes on ftrace, and
# MCOUNT_INSN_SIZE is x86's).  noopt, nokretprobes and nojprobes share
# the workbench config's flags, so ccache serves most of their objects
# from the main build.  nomodules is covered by kunit and is not in the
# default list.
# OPTPROBES and KRETPROBES have no prompt; ours gets one in the
# variant's copy of the tree (variant_src()).  Upstream cannot turn them
# off, so those variants are skipped (SKIP, never PASS) for
# FLAVOUR=upstream, as is nojprobes.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
fl=${1:-ours}
arch=${2:-x86_64}
shift 2 2>/dev/null || shift $#
kp_check_flavour "$fl"
kp_karch "$arch" >/dev/null
if [ $# -gt 0 ]; then
	variants=("$@")
elif [ -n "${KP_MATRIX:-}" ]; then
	read -r -a variants <<< "$KP_MATRIX"
elif [ "$arch" = x86_64 ]; then
	variants=(kunit noftrace noopt nokretprobes nojprobes)
	[ "$fl" = ours ] && variants+=(cfi fp xenpv)
else
	variants=(kunit noopt nokretprobes nojprobes)
fi

"$KP_TOOLS/stage.sh" "$fl" || kp_die "staging $fl failed"
src=$(kp_src "$fl")
cross=$(kp_cross "$arch")
mdir=$KP_BUILD/matrix
mkdir -p "$mdir"
failed=0
say() { echo "MATRIX $arch:$*"; case $* in *' FAIL'*) failed=1 ;; esac; }

# The workbench fragment less the lines of options a variant turns off,
# plus its own lines.
variant_config() {
	local v=$1 drop=() add=()
	case $v in
	noftrace)	drop=(FUNCTION_TRACER DYNAMIC_FTRACE KPROBES_ON_FTRACE
			      STACK_TRACER LIVEPATCH SAMPLE_LIVEPATCH FPROBE)
			add=('# CONFIG_FUNCTION_TRACER is not set') ;;
	nomodules)	drop=(MODULES MODULE_UNLOAD SAMPLE_KPROBES SAMPLE_KRETPROBES
			      SAMPLE_JPROBES SAMPLE_KPROBE_BENCH LIVEPATCH SAMPLE_LIVEPATCH
			      SAMPLE_TRACE_PRINTK)
			add=('# CONFIG_MODULES is not set') ;;
	noopt)		drop=(OPTPROBES)
			add=('# CONFIG_OPTPROBES is not set') ;;
	nokretprobes)	drop=(KRETPROBES SAMPLE_KRETPROBES KRETPROBES_KUNIT_TEST)
			add=('# CONFIG_KRETPROBES is not set') ;;
	nojprobes)	drop=(JPROBES SAMPLE_JPROBES JPROBES_KUNIT_TEST)
			add=('# CONFIG_JPROBES is not set') ;;
	cfi)		drop=(CFI_CLANG)
			add=('CONFIG_CFI_CLANG=y') ;;
	fp)		drop=(UNWINDER_ORC UNWINDER_FRAME_POINTER)
			add=('# CONFIG_UNWINDER_ORC is not set'
			     'CONFIG_UNWINDER_FRAME_POINTER=y') ;;
	xenpv)		drop=(HYPERVISOR_GUEST PARAVIRT XEN XEN_PV)
			add=('CONFIG_HYPERVISOR_GUEST=y' 'CONFIG_PARAVIRT=y'
			     'CONFIG_XEN=y' 'CONFIG_XEN_PV=y') ;;
	*)		return 1 ;;
	esac
	local re
	re="^(# )?CONFIG_($(IFS='|'; echo "${drop[*]}"))[= ]"
	"$KP_TOOLS/fragment.sh" "$fl" "$arch" | grep -vE "$re"
	printf '%s\n' "${add[@]}"
}

# The objects of kprobes and its tests in the config of $1, for
# KP_MATRIX_QUICK=1 (the ones the config does not build are left out).
quick_objs() {
	local o=(kernel/kprobes.o lib/test_kprobes.o)
	local f c

	for f in kernel/kprobes_opt:OPTPROBES kernel/kprobes_ftrace:KPROBES_ON_FTRACE \
		 kernel/kretprobes:KRETPROBES kernel/jprobes:JPROBES \
		 lib/test_kprobes_core:KPROBES_KUNIT_TEST \
		 lib/test_kretprobes:KRETPROBES_KUNIT_TEST \
		 lib/test_jprobes:JPROBES_KUNIT_TEST \
		 lib/test_kprobes_opt:OPTPROBES_KUNIT_TEST; do
		c=${f#*:}
		f=${f%%:*}
		[ -f "$src/$f.c" ] && grep -q "^CONFIG_$c=y" "$1/.config" && o+=("$f.o")
	done
	case $arch in
	x86_64) o+=(arch/x86/kernel/kprobes/) ;;
	arm64) o+=(arch/arm64/kernel/probes/) ;;
	esac
	printf '%s\n' "${o[@]}"
}

# quick_variant VARIANT OBJ FRAGMENT LOG KUNIT.PY-ARGS...: the config as
# kunit.py makes it (with the make options of $mkopts), then the objects.
quick_variant() {
	local v=$1 obj=$2 frag=$3 log=$4 t0
	shift 4
	t0=$(date +%s)
	kp_log "matrix: $fl $arch $v: compiling kprobes in $obj (log: $log)"
	if ! (cd "$vsrc" && python3 tools/testing/kunit/kunit.py config \
			--build_dir="$obj" --kunitconfig="$frag" "$@" \
			"${mkargs[@]}" ${cross:+--cross_compile="$cross"}) > "$log" 2>&1 ||
	   ! make -C "$vsrc" O="$obj" ARCH="$(kp_karch "$arch")" \
			CROSS_COMPILE="$cross" "${mkopts[@]}" -j"$KP_JOBS" \
			$(quick_objs "$obj") >> "$log" 2>&1; then
		grep -E 'error|Error|ERROR|Missing' "$log" | head -20 >&2
		say "$v.compile FAIL ($(( $(date +%s) - t0 ))s, see $log)"
		return
	fi
	if grep -E '(kprobes|probes|kretprobes|jprobes)[^ ]*\.[ch]:[0-9]+:[0-9]+: warning' "$log" >&2; then
		say "$v.compile FAIL (warnings, see $log)"
		return
	fi
	say "$v.compile PASS ($(( $(date +%s) - t0 ))s)"
}

# Where a variant builds.  Those that differ from the workbench config
# by one option (noopt, nokretprobes, nojprobes) build beside the main
# tree, at its depth, so that their compiles name the sources by the same
# relative paths: ccache's preprocessor mode can then serve every object
# whose preprocessed source the option leaves unchanged from the main
# build (fewer than one would hope: <linux/kprobes.h>, which tests these
# options, reaches most files through <linux/ftrace.h>).  The others (a
# config of their own, or other compiler flags) gain nothing: matrix/.
variant_obj() {
	case $1 in
	noopt|nokretprobes|nojprobes) echo "$(kp_obj "$fl" "$arch")-$1" ;;
	*) echo "$mdir/$fl-$arch-$1" ;;
	esac
}

# The source tree of a variant.  KRETPROBES and OPTPROBES have no
# prompt (on where the architecture has them), so no fragment can turn
# them off: noopt and nokretprobes build a copy of the staged tree
# (hard links, remade at every run) whose kernel/Kconfig.kprobes gives
# the option a prompt.  Only the workbench does this; the series does not.
variant_src() {
	local v=$1 sym vs
	case $v in
	noopt) sym=OPTPROBES ;;
	nokretprobes) sym=KRETPROBES ;;
	*) echo "$src"; return ;;
	esac
	vs=$src-$v
	rm -rf "$vs"
	cp -al "$src" "$vs" || return 1
	rm -f "$vs/kernel/Kconfig.kprobes"
	python3 - "$src/kernel/Kconfig.kprobes" "$sym" > "$vs/kernel/Kconfig.kprobes" <<'PY' || return 1
import sys
text = open(sys.argv[1]).read()
old = 'config %s\n\tdef_bool y\n' % sys.argv[2]
if old not in text:
    sys.exit('no "%s" in %s' % (old, sys.argv[1]))
sys.stdout.write(text.replace(old, 'config %s\n\tbool "%s"\n\tdefault y\n'
                              % (sys.argv[2], sys.argv[2]), 1))
PY
	echo "$vs"
}

run_variant() {
	local v=$1 obj frag log json rc t0 step=build o qemu=() args=() mkopts=() mkargs=()
	local vsrc=$src
	[ "${KP_MATRIX_QUICK:-0}" = 1 ] && step=compile
	obj=$(variant_obj "$v")
	if [ "$fl" = ours ] && ! vsrc=$(variant_src "$v"); then
		say "$v.$step FAIL (cannot make its source tree)"
		return
	fi
	frag=$obj.kunitconfig
	log=$obj.log
	json=$obj.json
	mkdir -p "$obj"
	case $v in
	kunit)
		printf '%s\n' CONFIG_KUNIT=y CONFIG_DEBUG_KERNEL=y CONFIG_KPROBES=y \
			CONFIG_KPROBES_SANITY_TEST=y > "$frag"
		# ours: its own suites too (jprobes are off by default)
		[ "$fl" = ours ] && printf '%s\n' CONFIG_KPROBES_KUNIT_TEST=y \
			CONFIG_KRETPROBES_KUNIT_TEST=y CONFIG_OPTPROBES_KUNIT_TEST=y \
			CONFIG_JPROBES=y CONFIG_JPROBES_KUNIT_TEST=y >> "$frag"
		qemu=(--arch="$arch")
		;;
	noopt|nokretprobes|nojprobes)
		if [ "$fl" = upstream ]; then
			say "$v.$step SKIP (upstream has no such option on $arch)"
			return
		fi
		;&
	*)
		if ! variant_config "$v" > "$frag"; then
			say "$v.$step FAIL (unknown variant)"
			return
		fi
		qemu=(--qemu_config="$KP_TOOLS/qemu/$arch.py")
		;;
	esac
	args=(--build_dir="$obj" --kunitconfig="$frag" "${qemu[@]}"
	      --jobs="$KP_JOBS")
	# The host programs (kconfig, fixdep, objtool...) through ccache
	# too: each variant's directory builds its own, the same ones.
	if [ "$v" = cfi ]; then
		mkopts=(LLVM=-16 "CC=ccache clang-16" "HOSTCC=ccache clang-16")
	else
		mkopts=("CC=ccache ${cross}gcc" "HOSTCC=ccache gcc")
	fi
	mkargs=()
	for o in "${mkopts[@]}"; do
		mkargs+=(--make_options "$o")
	done
	args+=("${mkargs[@]}")
	[ -n "$cross" ] && args+=(--cross_compile="$cross")
	t0=$(date +%s)
	if [ "${KP_MATRIX_QUICK:-0}" = 1 ]; then
		quick_variant "$v" "$obj" "$frag" "$log" "${qemu[@]}"
		return
	fi
	kp_log "matrix: $fl $arch $v: building in $obj (log: $log)"
	if ! (cd "$vsrc" && python3 tools/testing/kunit/kunit.py build "${args[@]}") \
			> "$log" 2>&1; then
		grep -E 'error|Error|ERROR|Missing' "$log" | head -20 >&2
		say "$v.build FAIL ($(( $(date +%s) - t0 ))s, see $log)"
		return
	fi
	say "$v.build PASS ($(( $(date +%s) - t0 ))s)"
	t0=$(date +%s)
	rm -f "$json"
	(cd "$vsrc" && timeout $(( ${KP_KUNIT_TIMEOUT:-900} + 60 )) \
		python3 tools/testing/kunit/kunit.py exec "${args[@]:0:3}" \
		${cross:+--cross_compile="$cross"} --timeout="${KP_KUNIT_TIMEOUT:-900}" \
		--kernel_args=test_kprobes_opt.workbench=0 \
		--json="$json" --raw_output=all 'kprobes*') > "$log.kunit" 2>&1
	python3 "$KP_TOOLS/kunit-results.py" "$log.kunit" | sed "s/^KUNIT /KUNIT $arch:$v:/"
	rc=${PIPESTATUS[0]}
	if [ "$rc" = 0 ]; then
		say "$v.kunit PASS ($(( $(date +%s) - t0 ))s)"
	else
		say "$v.kunit FAIL ($(( $(date +%s) - t0 ))s, see $log.kunit)"
	fi
}

for v in "${variants[@]}"; do
	run_variant "$v"
done
exit $failed
