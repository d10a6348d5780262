#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kunit.sh FLAVOUR ARCH [FILTER]: run the KUnit suites of a built kernel
# through the base's kunit.py under QEMU (TCG) and print one line per test
# case: "KUNIT <suite>.<case> PASS|FAIL|SKIP".  Exit status 1 if any failed
# or if no test ran.  KP_KUNIT_QEMU=FILE boots another of kunit.py's
# QEMU configs (e.g. qemu/arm64-vhe.py: arm64 at EL2, with VHE).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
fl=${1:-ours}
arch=${2:-x86_64}
filter=${3:-${KP_KUNIT_FILTER:-kprobes*}}
src=$(kp_src "$fl")
obj=$(kp_obj "$fl" "$arch")
frag=$KP_BUILD/kunitconfig-$fl-$arch
[ -f "$obj/$(kp_image "$arch")" ] || kp_die "no kernel: run build.sh $fl $arch first"
cross=$(kp_cross "$arch")
json=$KP_BUILD/kunit-$fl-$arch.json
log=$KP_BUILD/kunit-$fl-$arch.log
qemu=$(realpath "${KP_KUNIT_QEMU:-$KP_TOOLS/qemu/$arch.py}")
args=(--build_dir="$obj" --kunitconfig="$frag" --qemu_config="$qemu"
      --timeout="${KP_KUNIT_TIMEOUT:-900}" --json="$json" --raw_output=all)
[ -n "$cross" ] && args+=(--cross_compile="$cross")
rm -f "$json"
set +e
(cd "$src" && timeout $(( ${KP_KUNIT_TIMEOUT:-900} + 60 )) \
	python3 tools/testing/kunit/kunit.py exec "${args[@]}" "$filter") > "$log" 2>&1
rc=$?
set -e
[ $rc = 124 ] && kp_log "KUnit run hit its timeout (${KP_KUNIT_TIMEOUT:-900}s): see $log"
python3 "$KP_TOOLS/kunit-results.py" "$log"
