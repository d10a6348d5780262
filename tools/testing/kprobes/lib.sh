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
