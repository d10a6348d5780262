#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# archcheck.sh: the architectures other than x86_64 and arm64 keep
# kprobes.  For each architecture of ARCHES and each flavour of
# FLAVOURS: the arch's defconfig plus KPROBES, KRETPROBES, KPROBE_EVENTS,
# UPROBE_EVENTS and OPTPROBES where it has them, modules and the kprobes
# samples (SAMPLE_KPROBES=m, SAMPLE_KRETPROBES=m, SAMPLE_KPROBE_BENCH=m
# where the flavour has it), cross built with
# Debian's cross compiler.
#
#   KP_ARCHCHECK_FAST=1  compile only the kprobes objects (kernel/kprobes*.o,
#                        kernel/kretprobes*.o, the arch's kprobes objects,
#                        kernel/trace/trace_kprobe.o, the samples); link
#                        nothing
#   otherwise            build vmlinux and the modules
#   KP_ARCHCHECK_CONFIG=defconfig   start from the arch's defconfig (above)
#   KP_ARCHCHECK_CONFIG=small       (default) start from allnoconfig plus
#                        what the kprobes code and its callers need: modules,
#                        perf, BPF kprobes and override, fail_function,
#                        kprobe and uprobe events, the samples as modules
#                        and the kprobes KUnit suites (ac_small_config).
#                        It links the same kprobes code and its users
#                        (modpost checks every export the modules use) in
#                        minutes, where ppc64le's or arm's defconfig takes
#                        more than an hour on two cores.
#
# ARCHES (default: riscv64 ppc64le s390x arm mips i386 arc parisc sh4
# sparc64), FLAVOURS (default:
# "ours upstream").  Build directories: $KP_BUILD/archcheck/FLAVOUR-ARCH.
# One line per build: "ARCHCHECK FLAVOUR:ARCH:MODE PASS|FAIL", the
# options the config ended up with, and the log on failure.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
arches=${ARCHES:-riscv64 ppc64le s390x arm mips i386 arc parisc sh4 sparc64}
flavours=${FLAVOURS:-ours upstream}
fast=${KP_ARCHCHECK_FAST:-0}
cfg=${KP_ARCHCHECK_CONFIG:-small}
case $cfg in small|defconfig) ;; *) kp_die "KP_ARCHCHECK_CONFIG: small or defconfig, not '$cfg'" ;; esac
mode=vmlinux
[ "$cfg" = small ] && mode=vmlinux-small
[ "$fast" = 1 ] && mode=fast

# What the run prints is kept (to be committed) in
# $KP_RESULTS/archcheck/RUN/ (RUN: UTC start and mode) as
# archcheck.results, with run.meta; bench-report.py report adds it to
# results/REPORT.md.  The run itself is this script again, underneath.
if [ -z "${KP_ARCHCHECK_RUN:-}" ]; then
	started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	store=$KP_RESULTS/archcheck/$(date -u +%Y-%m-%dT%H%MZ)-$mode
	out=$(mktemp)
	KP_ARCHCHECK_RUN=1 "$0" "$@" | tee "$out"
	rc=${PIPESTATUS[0]}
	mkdir -p "$store"
	{
		echo "date: $started"
		kp_git_state
		echo "arches: $arches flavours: $flavours mode: $mode"
		echo "base: $(kp_base_used)"
		echo "host: $(nproc) cpus, load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
	} > "$store/run.meta"
	sed "s|$KP_ROOT/||g" "$out" > "$store/archcheck.results"
	rm -f "$out"
	python3 "$KP_TOOLS/bench-report.py" report --results "$KP_RESULTS" >&2 ||
		kp_log "the report was not regenerated"
	kp_log "results in $store: commit them with the report"
	exit "$rc"
fi

# arch -> kernel ARCH, cross compiler prefix, defconfig target, and the
# arch's kprobes objects ("SYMS:object": built when each CONFIG_SYM of the
# comma-separated SYMS is y or m, or is neither when written !SYM).
ac_arch() {
	local d
	case $1 in
	riscv64|s390x) d=defconfig ;;
	ppc64le) d=ppc64le_defconfig ;;
	arm) d=multi_v7_defconfig ;;
	mips) d=32r2el_defconfig ;;
	# i386: our own x86 code in 32-bit mode, the host's gcc with -m32
	i386) d=i386_defconfig ;;
	arc) d=haps_hs_smp_defconfig ;;
	parisc) d=generic-32bit_defconfig ;;
	sh4) d=shx3_defconfig ;;
	sparc64) d=sparc64_defconfig ;;
	# ours' own arches, for a quick look that they stay out of the compat layer
	x86_64) echo "x86 x86_64-linux-gnu- x86_64_defconfig"; return ;;
	arm64) echo "arm64 aarch64-linux-gnu- defconfig"; return ;;
	*) kp_die "archcheck: unknown arch '$1' (riscv64 ppc64le s390x arm mips i386 arc parisc sh4 sparc64 x86_64 arm64)" ;;
	esac
	# the kernel ARCH and cross compiler: lib.sh's table
	echo "$(kp_other_arch "$1") $d"
}
ac_objs() {
	case $1 in
	riscv64) echo "KPROBES:arch/riscv/kernel/probes/kprobes.o
		KPROBES:arch/riscv/kernel/probes/decode-insn.o
		KPROBES:arch/riscv/kernel/probes/simulate-insn.o
		RETHOOK:arch/riscv/kernel/probes/rethook.o" ;;
	ppc64le) echo "KPROBES:arch/powerpc/kernel/kprobes.o
		KPROBES_ON_FTRACE:arch/powerpc/kernel/kprobes-ftrace.o
		OPTPROBES:arch/powerpc/kernel/optprobes.o
		RETHOOK:arch/powerpc/kernel/rethook.o" ;;
	s390x) echo "KPROBES:arch/s390/kernel/kprobes.o
		RETHOOK:arch/s390/kernel/rethook.o
		KPROBES:arch/s390/kernel/ftrace.o" ;;
	arm) echo "KPROBES:arch/arm/probes/kprobes/core.o
		KPROBES:arch/arm/probes/kprobes/actions-common.o
		KPROBES:arch/arm/probes/kprobes/checkers-common.o
		OPTPROBES:arch/arm/probes/kprobes/opt-arm.o" ;;
	mips) echo "KPROBES:arch/mips/kernel/kprobes.o" ;;
	arc) echo "KPROBES:arch/arc/kernel/kprobes.o" ;;
	parisc) echo "KPROBES:arch/parisc/kernel/kprobes.o
		KPROBES_ON_FTRACE:arch/parisc/kernel/ftrace.o" ;;
	sh4) echo "KPROBES:arch/sh/kernel/kprobes.o" ;;
	sparc64) echo "KPROBES:arch/sparc/kernel/kprobes.o" ;;
	x86_64) echo "KPROBES:arch/x86/kernel/kprobes/core.o" ;;
	i386) echo "KPROBES:arch/x86/kernel/kprobes/core.o
		OPTPROBES:arch/x86/kernel/kprobes/opt.o
		KPROBES_ON_FTRACE:arch/x86/kernel/kprobes/ftrace.o" ;;
	arm64) echo "KPROBES:arch/arm64/kernel/probes/kprobes.o" ;;
	esac
	# The core: upstream's, or ours and its compat layer.
	echo "KPROBES:kernel/kprobes.o
		KPROBES_COMPAT:kernel/kprobes_compat.o
		KRETPROBES,!KRETPROBE_ON_RETHOOK:kernel/kretprobes.o
		KRETPROBE_ON_RETHOOK:kernel/kretprobes_rethook.o
		KPROBES_ON_FTRACE:kernel/kprobes_ftrace.o
		OPTPROBES:kernel/kprobes_opt.o
		JPROBES:kernel/jprobes.o
		KPROBE_EVENTS:kernel/trace/trace_kprobe.o
		SAMPLE_KPROBES:samples/kprobes/kprobe_example.o
		SAMPLE_KRETPROBES:samples/kprobes/kretprobe_example.o
		SAMPLE_KPROBE_BENCH:samples/kprobes/kprobe_bench_main.o
		SAMPLE_KPROBE_BENCH:samples/kprobes/kprobe_bench_funcs.o"
}
ac_want="KPROBES KRETPROBES KPROBE_EVENTS UPROBE_EVENTS OPTPROBES"

# ac_small_config ARCH: lib.sh's kp_archcheck_small_config.
ac_small_config() { kp_archcheck_small_config "$1"; }

ac_config() {	# ac_config FLAVOUR ARCH: the config's kprobes options, one line
	local o=$1 s v out=
	for s in $ac_want KPROBES_COMPAT KRETPROBE_ON_RETHOOK KPROBES_ON_FTRACE; do
		v=$(sed -n "s/^CONFIG_$s=//p" "$o/.config")
		out+=" $s=${v:-n}"
	done
	echo "${out# }"
}

ac_wanted() {	# ac_wanted CONFIG SYMS (y or m: the samples are modules)
	local s
	for s in ${2//,/ }; do
		case $s in
		!*) ! grep -qE "^CONFIG_${s#!}=[ym]" "$1" || return 1 ;;
		*) grep -qE "^CONFIG_$s=[ym]" "$1" || return 1 ;;
		esac
	done
}

# sparc64 builds from a hard-linked copy of the staged tree whose
# fs/fcntl.c lacks the check 6.12.117 fails there (lib.sh's
# kp_sparc64_fcntl; the kernel is never booted); ac_one says so in its
# result.
ac_sparc64_src() {	# ac_sparc64_src SRC: the copy, made when SRC changed
	local src=$1 copy=$1-sparc64
	if [ ! -f "$copy/.kp-stamp" ] || [ "$src" -nt "$copy/.kp-stamp" ] ||
	   [ -n "$(find "$src" -newer "$copy/.kp-stamp" -type f -print -quit)" ]; then
		rm -rf "$copy"
		cp -al "$src" "$copy"
		rm -f "$copy/fs/fcntl.c"	# a file of its own, not a link
		kp_sparc64_fcntl "$src/fs/fcntl.c" "$copy/fs/fcntl.c"
		touch "$copy/.kp-stamp"
	fi
	echo "$copy"
}

ac_one() {	# ac_one FLAVOUR ARCH: 0 when it builds
	local fl=$1 a=$2 karch cross defc src obj log objs=() line f
	read -r karch cross defc < <(ac_arch "$a")
	command -v "${cross}gcc" >/dev/null || {
		echo "ARCHCHECK $fl:$a:$mode FAIL no ${cross}gcc (ARCHES=$a tools/testing/kprobes/deps.sh)"
		return 1
	}
	src=$(kp_src "$fl")
	[ "$a" = sparc64 ] && src=$(ac_sparc64_src "$src")
	obj=$KP_BUILD/archcheck/$fl-$a
	log=$KP_BUILD/archcheck-$fl-$a.log
	mkdir -p "$obj"
	# shellcheck disable=SC2317
	mk() {
		nice -n 19 make -C "$src" O="$obj" ARCH="$karch" CROSS_COMPILE="$cross" \
			CC="ccache ${cross}gcc" -j"$KP_JOBS" "$@"
	}
	if [ "$cfg" = small ] && [ "$fast" != 1 ]; then
		obj=$KP_BUILD/archcheck/$fl-$a-small
		mkdir -p "$obj"
		ac_small_config "$a" > "$obj/kprobes.fragment"
		defc="allnoconfig KCONFIG_ALLCONFIG=$obj/kprobes.fragment"
	fi
	{
		# shellcheck disable=SC2086 # defc may carry its KCONFIG_ALLCONFIG
		mk $defc &&
		"$src/scripts/config" --file "$obj/.config" \
			-e KPROBES -e KRETPROBES -e FTRACE -e KPROBE_EVENTS \
			-e UPROBES -e UPROBE_EVENTS -e OPTPROBES \
			-e MODULES -e SAMPLES -m SAMPLE_KPROBES -m SAMPLE_KRETPROBES \
			-e DEBUG_FS -m SAMPLE_KPROBE_BENCH &&
		mk olddefconfig
	} > "$log" 2>&1 || {
		echo "ARCHCHECK $fl:$a:$mode FAIL config (see $log)"
		return 1
	}
	if [ "$fast" = 1 ]; then
		while read -r line; do
			f=${line#*:}
			ac_wanted "$obj/.config" "${line%%:*}" && objs+=("$f")
		done < <(ac_objs "$a" | tr -d '\t')
		# Only the flavour's own files: upstream has no kprobes_compat.c.
		for f in "${!objs[@]}"; do
			[ -f "$src/${objs[$f]%.o}.c" ] || [ -f "$src/${objs[$f]%.o}.S" ] ||
				unset 'objs[f]'
		done
		mk prepare "${objs[@]}" >> "$log" 2>&1
	else
		mk vmlinux modules >> "$log" 2>&1
	fi || {
		echo "ARCHCHECK $fl:$a:$mode FAIL build (see $log)"
		grep -E 'error:|Error [0-9]|undefined reference' "$log" | head -20 | sed 's/^/    /'
		return 1
	}
	echo "ARCHCHECK $fl:$a:$mode PASS"
	[ "$a" != sparc64 ] ||
		echo "    fs/fcntl.c without its open-flags BUILD_BUG_ON, which the base fails on sparc64"
	echo "    $(ac_config "$obj")"
	[ "$fast" = 1 ] && echo "    compiled: ${objs[*]}"
	[ "$fast" = 1 ] || echo "    modules: $(find "$obj" -name '*.ko' | wc -l), of them" \
		"$(find "$obj/samples/kprobes" "$obj/lib" -name '*.ko' 2>/dev/null |
			sed "s|^$obj/||" | sort | tr '\n' ' ')"
	return 0
}

passes=0 fails=0
for fl in $flavours; do
	kp_check_flavour "$fl"
	"$KP_TOOLS/stage.sh" "$fl" || kp_die "staging $fl failed"
	for a in $arches; do
		kp_log "archcheck: $fl $a ($mode)"
		if ac_one "$fl" "$a"; then
			passes=$((passes + 1))
		else
			fails=$((fails + 1))
		fi
	done
done

# The boots: KUnit on riscv64, arm and ppc64le (archcheck-kunit.sh) and
# on i386 (i386-kunit.sh), ours and upstream (not in the fast mode).
ac_boot() {	# ac_boot LABEL COMMAND...: run one boot, count its cases
	local out rc p f
	kp_log "archcheck: $1 KUnit boot"
	echo "# KUnit boot: $1"
	shift
	out=$("$@")
	rc=$?
	echo "$out"
	p=$(grep -c ' PASS' <<< "$out")
	f=$(grep -c ' FAIL' <<< "$out")
	passes=$((passes + p))
	fails=$((fails + f))
	[ $rc != 0 ] && [ "$f" = 0 ] && fails=$((fails + 1))
}
if [ "$fast" != 1 ] && [ "${KP_ARCHCHECK_KUNIT:-1}" = 1 ]; then
	for fl in $flavours; do
		for a in riscv64 arm ppc64le; do
			case " $arches " in *" $a "*)
				ac_boot "$fl $a" "$KP_TOOLS/archcheck-kunit.sh" "$fl" "$a" ;;
			esac
		done
		case " $arches " in *" i386 "*)
			ac_boot "$fl i386" "$KP_TOOLS/i386-kunit.sh" "$fl" ;;
		esac
	done
fi
echo "archcheck: $passes passed, $fails failed"
[ $fails = 0 ]
