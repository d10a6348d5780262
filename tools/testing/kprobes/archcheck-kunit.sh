#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# archcheck-kunit.sh FLAVOUR [ARCH]: build a kernel of another
# architecture (riscv64, arm, ppc64le) with the KUnit suites of
# kprobes and run them under QEMU (TCG): the base's pristine
# lib/test_kprobes.c (suite kprobes_test) and, in the ours flavour, those
# of ours that are not x86- or arm64-specific (kprobes_core, kprobes_opt).  Prints "KUNIT ARCH:suite.case PASS|FAIL|SKIP" like
# kunit.sh; exit status 1 if any failed or none ran.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
fl=${1:-ours}
arch=${2:-riscv64}
kp_check_flavour "$fl"
case $arch in
riscv64) cross=riscv64-linux-gnu- ;;
arm) cross=arm-linux-gnueabihf- ;;
ppc64le) cross=powerpc64le-linux-gnu- ;;
*) kp_die "archcheck-kunit.sh: no KUnit boot for '$arch' (riscv64 arm ppc64le)" ;;
esac
command -v "${cross}gcc" >/dev/null ||
	kp_die "no ${cross}gcc: run ARCHES=$arch tools/testing/kprobes/deps.sh"
filter=${KP_KUNIT_FILTER:-kprobes*}

"$KP_TOOLS/stage.sh" "$fl"
src=$(kp_src "$fl")
obj=$KP_BUILD/archcheck/kunit-$fl-$arch
frag=$KP_BUILD/kunitconfig-$fl-$arch
mkdir -p "$obj"
kp_small_kunit_fragment "$fl" > "$frag"

log=$KP_BUILD/build-$fl-$arch.log
kp_log "building $fl $arch KUnit kernel in $obj (log: $log)"
args=(--build_dir="$obj" --kunitconfig="$frag" --qemu_config="$KP_TOOLS/qemu/$arch.py"
      --cross_compile="$cross")
if ! (cd "$src" && nice -n 19 python3 tools/testing/kunit/kunit.py build "${args[@]}" \
		--jobs="$KP_JOBS" --make_options "CC=ccache ${cross}gcc") > "$log" 2>&1; then
	grep -E 'error|Error|ERROR' "$log" | head -40 >&2 || true
	tail -20 "$log" >&2
	kp_die "kernel build failed: $fl $arch"
fi

json=$KP_BUILD/kunit-$fl-$arch.json
klog=$KP_BUILD/kunit-$fl-$arch.log
rm -f "$json"
set +e
(cd "$src" && timeout $(( ${KP_KUNIT_TIMEOUT:-1200} + 60 )) \
	python3 tools/testing/kunit/kunit.py exec "${args[@]}" \
	--timeout="${KP_KUNIT_TIMEOUT:-1200}" --json="$json" --raw_output=all \
	"$filter") > "$klog" 2>&1
rc=$?
set -e
[ $rc = 124 ] && kp_log "KUnit run hit its timeout: see $klog"
set +e
python3 "$KP_TOOLS/kunit-results.py" "$klog" > "$klog.results"
rc=$?
sed "s/^KUNIT \([^ ]*\)/KUNIT $arch:\1/" "$klog.results"
exit $rc
