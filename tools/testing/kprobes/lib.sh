# SPDX-License-Identifier: GPL-2.0
# Common settings of the kprobes workbench; sourced by the other scripts.

KP_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
KP_TOOLS=$KP_ROOT/tools/testing/kprobes
KP_BUILD=${KP_BUILD:-$KP_ROOT/build}
case $KP_BUILD in /*) ;; *) KP_BUILD=$KP_ROOT/$KP_BUILD ;; esac
KP_BASE_PKG=linux-source-6.12
KP_BASE_VERSION=6.12.117-1~deb12u1
KP_BASE_TARBALL=/usr/src/linux-source-6.12.tar.xz
KP_BASE_DIR=${KP_BASE_DIR:-$KP_ROOT/build/base}
KP_BASE=$KP_BASE_DIR/linux-source-6.12
KP_JOBS=${KP_JOBS:-$(nproc)}
KP_BOOT_TIMEOUT=${KP_BOOT_TIMEOUT:-600}

export CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kprobes-ccache}
# make stress DEBUG=1: the debug flavour (configs/debug.config) builds
# apart, in $KP_BUILD/debug.
if [ "${KP_DEBUG:-0}" = 1 ]; then
	case $KP_BUILD in */debug) ;; *) KP_BUILD=$KP_BUILD/debug ;; esac
fi
export KP_BUILD
export CCACHE_BASEDIR=$KP_BUILD
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
export CCACHE_NOHASHDIR=1

# What a kernel report looks like on the console (oops, WARN, lockdep,
# KASAN, RCU stalls, hung tasks, lockups...): the patterns of the file
# kernel-reports, one alternation; any match fails a boot.
# kunit-results.py reads the same file.
KP_REPORTS=$KP_TOOLS/kernel-reports
KP_BAD_RE=$(grep -v -e '^#' -e '^[[:space:]]' -e '^$' "$KP_REPORTS" | paste -sd '|')

# The base actually extracted (deps.sh records it; it differs from
# KP_BASE_VERSION only when Debian no longer serves the pinned version).
kp_base_used() {
	local v
	v=$(cat "$KP_BASE_DIR/.version" 2>/dev/null) || v="$KP_BASE_VERSION (not extracted)"
	case $v in
	"$KP_BASE_VERSION"*) echo "Debian $KP_BASE_PKG $v" ;;
	*) echo "Debian $KP_BASE_PKG $v (NOT the pinned $KP_BASE_VERSION, which Debian no longer serves)" ;;
	esac
}

# rm -rf that also works for a user who is not root on a tree with
# read-only directories (the extracted base: deps.sh makes it read-only).
kp_rm_tree() {
	local d
	for d in "$@"; do
		[ -e "$d" ] || continue
		find "$d" -type d ! -perm -u+w -exec chmod u+w {} + 2>/dev/null
		rm -rf "$d"
	done
}

kp_log() { printf '[kprobes] %s\n' "$*" >&2; }
kp_die() { printf '[kprobes] error: %s\n' "$*" >&2; exit 1; }

kp_src() { echo "$KP_BUILD/src-$1"; }            # flavour
kp_obj() { echo "$KP_BUILD/obj-$1-$2"; }         # flavour arch
kp_karch() { case $1 in x86_64) echo x86_64 ;; i386) echo i386 ;; arm64) echo arm64 ;; *) kp_die "unknown arch $1" ;; esac; }
kp_cross() { case $1 in arm64) echo aarch64-linux-gnu- ;; *) echo "" ;; esac; }
kp_image() {
	case $1 in
	x86_64|i386) echo arch/x86/boot/bzImage ;;
	arm64) echo arch/arm64/boot/Image ;;
	esac
}
# fixes: the base with the bug fixes of patches/fixes/ (fixes.sh) and the
# teardown series of patches/teardown/, built with the checkers;
# teardown: the base with the teardown series alone (make bench)
kp_check_flavour() {
	case $1 in ours|upstream|fixes|teardown) ;; *) kp_die "FLAVOUR must be ours, upstream, fixes or teardown, not '$1'" ;; esac
}
# make for the kernel of flavour $1 and arch $2, with any further arguments.
kp_kmake() {
	local fl=$1 arch=$2; shift 2
	local cross; cross=$(kp_cross "$arch")
	make -C "$(kp_src "$fl")" O="$(kp_obj "$fl" "$arch")" ARCH="$(kp_karch "$arch")" \
		CROSS_COMPILE="$cross" CC="ccache ${cross}gcc" -j"$KP_JOBS" "$@"
}

# Stored results (make bench, make stress, make archcheck keep theirs
# here, to be committed; bench-report.py report makes results/REPORT.md).
KP_RESULTS=${KP_RESULTS:-$KP_TOOLS/results}
case $KP_RESULTS in /*) ;; *) KP_RESULTS=$KP_ROOT/$KP_RESULTS ;; esac
# What a stored run ran on: "git: HEAD (N files changed ...)".
kp_git_state() {
	local changed
	# results/ left out: the run's own run.meta is there, being written
	changed=$(git -C "$KP_ROOT" status --porcelain -- kernel include arch lib samples patches tools \
		':(exclude)tools/testing/kprobes/results' 2>/dev/null | wc -l)
	echo "git: $(git -C "$KP_ROOT" rev-parse HEAD 2>/dev/null || echo unknown) ($changed files changed from it in kernel/ include/ arch/ lib/ samples/ patches/ tools/)"
}

# kp_small_kunit_fragment FLAVOUR: the config fragment of a KUnit boot of
# another architecture (archcheck-kunit.sh, series-check's riscv64 steps).
# The workbench's common options, without the flavour's own (jprobes:
# x86_64 and arm64 only); without CONFIG_PREEMPT, as riscv has no
# function tracer with it; and without what only the guest tests use
# (networking, the initramfs, the samples, BPF) or no KUnit boot needs
# (block layer, EFI, 32-bit user space, input...): a third of the
# kernel, which matters on a shared two-core machine.
kp_small_kunit_fragment() {
	local o
	grep -v -e '^CONFIG_PREEMPT=' -e '^CONFIG_NET=' -e '^CONFIG_INET=' \
		-e '^CONFIG_UNIX=' -e '^CONFIG_BLK_DEV_INITRD=' -e '^CONFIG_RD_GZIP=' \
		-e '^CONFIG_SAMPLE' -e '^CONFIG_BPF' "$KP_TOOLS/configs/common.config"
	echo CONFIG_EXPERT=y
	[ "$1" != ours ] ||
		printf '%s\n' CONFIG_KPROBES_KUNIT_TEST=y CONFIG_OPTPROBES_KUNIT_TEST=y
	for o in BLOCK IO_URING AIO EFI COMPAT RISCV_ISA_V SUSPEND HIBERNATION VT INPUT \
			HID_SUPPORT SWAP COREDUMP; do
		echo "# CONFIG_$o is not set"
	done
}

# kp_archcheck_small_config ARCH: the allnoconfig fragment of archcheck's
# KP_ARCHCHECK_CONFIG=small and of series-check's other architectures.
# The arch lines pick what the defconfig of ac_arch picks where allnoconfig
# would differ (64-bit, endianness, a platform with an MMU).  The KUnit
# suites are built in: ours are bool options (they use kprobes internals
# no module may link against), and 6.12's test_kprobes.ko would need
# stack_trace_save_regs(), which is not exported, on x86.
kp_archcheck_small_config() {
	printf 'CONFIG_%s\n' MODULES=y MODULE_UNLOAD=y PRINTK=y BUG=y KALLSYMS=y \
		MULTIUSER=y PERF_EVENTS=y BPF_SYSCALL=y BPF_EVENTS=y \
		KPROBES=y KRETPROBES=y OPTPROBES=y FTRACE=y FUNCTION_TRACER=y \
		DYNAMIC_FTRACE=y KPROBE_EVENTS=y UPROBES=y UPROBE_EVENTS=y \
		DEBUG_FS=y DEBUG_KERNEL=y FAULT_INJECTION=y \
		FAULT_INJECTION_DEBUG_FS=y FUNCTION_ERROR_INJECTION=y \
		FAIL_FUNCTION=y BPF_KPROBE_OVERRIDE=y SAMPLES=y \
		SAMPLE_KPROBES=m SAMPLE_KRETPROBES=m SAMPLE_KPROBE_BENCH=m \
		RUNTIME_TESTING_MENU=y KUNIT=y KPROBES_SANITY_TEST=y \
		KPROBES_KUNIT_TEST=y KRETPROBES_KUNIT_TEST=y OPTPROBES_KUNIT_TEST=y
	case $1 in
	riscv64) printf 'CONFIG_%s\n' 64BIT=y MMU=y ;;
	ppc64le) printf 'CONFIG_%s\n' PPC64=y PPC_BOOK3S_64=y CPU_LITTLE_ENDIAN=y PPC_PSERIES=y ;;
	arm) printf 'CONFIG_%s\n' ARCH_MULTIPLATFORM=y ARCH_MULTI_V7=y ARCH_VIRT=y MMU=y AEABI=y ;;
	mips) printf 'CONFIG_%s\n' MIPS_GENERIC_KERNEL=y CPU_MIPS32_R2=y CPU_LITTLE_ENDIAN=y ;;
	arc) printf 'CONFIG_%s\n' ISA_ARCV2=y ;;
	sh4) printf 'CONFIG_%s\n' CPU_SUBTYPE_SH7785=y MMU=y ;;
	sparc64) printf 'CONFIG_%s\n' 64BIT=y ;;
	esac
}

# kp_sc_arch ARCH: the kernel ARCH and the cross compiler prefix of the
# builds of series-check.sh's steps (bench-steps.sh's too, which so share
# its ccache entries): x86_64 with the x86_64-linux-gnu- prefix.
kp_sc_arch() {
	case $1 in
	x86_64) echo "x86 x86_64-linux-gnu-" ;;
	arm64) echo "arm64 aarch64-linux-gnu-" ;;
	*) kp_other_arch "$1" ;;
	esac
}

# kp_other_arch ARCH: the kernel ARCH and the cross compiler prefix of an
# architecture archcheck builds (series-check's other architectures).
kp_other_arch() {
	case $1 in
	riscv64) echo "riscv riscv64-linux-gnu-" ;;
	ppc64le) echo "powerpc powerpc64le-linux-gnu-" ;;
	s390x) echo "s390 s390x-linux-gnu-" ;;
	arm) echo "arm arm-linux-gnueabihf-" ;;
	mips) echo "mips mips-linux-gnu-" ;;
	i386) echo "i386 x86_64-linux-gnu-" ;;
	arc) echo "arc arc-linux-gnu-" ;;
	parisc) echo "parisc hppa-linux-gnu-" ;;
	sh4) echo "sh sh4-linux-gnu-" ;;
	sparc64) echo "sparc sparc64-linux-gnu-" ;;
	*) return 1 ;;
	esac
}

# kp_sparc64_fcntl SRC DST: fs/fcntl.c SRC written to DST (which may be
# SRC) without its open-flags BUILD_BUG_ON.  6.12.117's fs/fcntl.c does
# not compile for sparc64 in any config: FMODE_NONOTIFY (1 << 25) is
# sparc's __O_TMPFILE (0x2000000), and the check that counts the open
# flags fails.  archcheck.sh and series-check.sh build sparc64 so
# (never booted) and say so in their result lines.
kp_sparc64_fcntl() {
	python3 - "$1" "$2" <<-'PY'
	import re, sys
	s = open(sys.argv[1]).read()
	s, n = re.subn(r'\tBUILD_BUG_ON\(21 - 1 [^;]*__FMODE_NONOTIFY\)\);\n', '', s)
	open(sys.argv[2], 'w').write(s)
	sys.exit(n != 1)
	PY
}

# kp_bench_sources DIR: the benchmark module (samples/kprobes/
# kprobe_bench*) as an external module in DIR: its sources and its lines
# of the samples Makefile, from this tree, so that the same module is
# built against every kernel it measures (build.sh: every flavour;
# bench-steps.sh: every step of the series).  Build it with
# `make -C SRC O=OBJ M=DIR modules`.
kp_bench_sources() {
	local dir=$1
	mkdir -p "$dir"
	rm -f "$dir"/kp_bench*
	rsync -a --checksum "$KP_ROOT"/samples/kprobes/kprobe_bench*.[ch] "$dir/"
	{
		echo "obj-m += kprobe_bench.o"
		grep '^kprobe_bench-' "$KP_ROOT/samples/kprobes/Makefile"
	} > "$dir/Kbuild.new"
	cmp -s "$dir/Kbuild.new" "$dir/Kbuild" || mv "$dir/Kbuild.new" "$dir/Kbuild"
	rm -f "$dir/Kbuild.new" "$dir/Makefile"
}

# The benchmark's boots (bench.sh, bench-steps.sh).
kp_qemu_version() {
	case $1 in
	x86_64) qemu-system-x86_64 --version | head -n 1 ;;
	arm64) qemu-system-aarch64 --version | head -n 1 ;;
	esac
}
# kp_bench_meta FL ARCH CFG LOG SMP QEMU-EXTRA: what a boot ran on, in
# LOG's .meta beside it (the kernel of kp_obj FL ARCH).
kp_bench_meta() {
	local fl=$1 arch=$2 cfg=$3 log=$4 smp=$5 extra=$6 conf
	conf=$(kp_obj "$fl" "$arch")/.config
	{
		echo "log: $(basename "$log")"
		echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "base: $(kp_base_used)"
		echo "flavour: $fl arch: $arch config: $cfg ($(sha1sum < "$conf" | cut -c1-12) of ${conf#"$KP_ROOT"/})"
		echo "config options: $(grep -E '^CONFIG_(MITIGATION_RETPOLINE|MITIGATION_RETHUNK|X86_KERNEL_IBT|PREEMPT|PREEMPTION|PREEMPT_NONE|PREEMPT_VOLUNTARY|PREEMPT_DYNAMIC|KRETPROBES|KRETPROBE_ON_RETHOOK|OPTPROBES|KPROBES_ON_FTRACE|ARM64_BTI_KERNEL|ARM64_PTR_AUTH_KERNEL|JPROBES)=' "$conf" | tr '\n' ' ')"
		echo "qemu: $(kp_qemu_version "$arch") -smp $smp $extra"
		echo "host load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cpus"
	} > "${log%.log}.meta"
}
# kp_bench_boot FL ARCH CFG LOG SMP QEMU-EXTRA APPEND: one boot of the
# guest's bench mode (guest/bench.sh) with its .meta.
kp_bench_boot() {
	kp_bench_meta "$1" "$2" "$3" "$4" "$5" "$6"
	KP_APPEND="$7" KP_SMP=$5 KP_QEMU_EXTRA="$6" \
		"$KP_TOOLS/boot.sh" "$1" "$2" bench "$4" > /dev/null || true
}

# The kprobes options series-check.sh turns on at every step (with
# scripts/config, over the step's config), so that each step builds
# what it has of them; bench-steps.sh builds its steps the same way.
KP_SC_CONFIG_ARGS=(-e KPROBES -e KRETPROBES -e OPTPROBES -e JPROBES
	-e FTRACE -e FUNCTION_TRACER -e DYNAMIC_FTRACE
	-e KPROBE_EVENTS -e KUNIT -e KPROBES_SANITY_TEST
	-e KPROBES_KUNIT_TEST -e KRETPROBES_KUNIT_TEST
	-e OPTPROBES_KUNIT_TEST -e JPROBES_KUNIT_TEST
	-e SAMPLES -m SAMPLE_KPROBES -m SAMPLE_KRETPROBES
	-m SAMPLE_JPROBES -e DEBUG_FS -m SAMPLE_KPROBE_BENCH)
