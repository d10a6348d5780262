#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kunit-pnmi.sh FLAVOUR: run the arm64 KUnit suites of a built arm64 kernel
# (build.sh FLAVOUR arm64) on a GICv3 virt machine with pseudo-NMIs on
# (irqchip.gicv3_pseudo_nmi=1, CONFIG_ARM64_PSEUDO_NMI=y), where
# local_irq_save() masks through the GIC priority mask.  Prints
# "KUNIT-PNMI <suite>.<case> PASS|FAIL|SKIP" and "KUNIT-PNMI pnmi.enabled
# PASS|FAIL" (the kernel said it uses pseudo-NMIs); exit 1 on any failure.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
fl=${1:-ours}
arch=arm64
filter=${2:-${KP_KUNIT_FILTER:-kprobes*}}
src=$(kp_src "$fl")
obj=$(kp_obj "$fl" "$arch")
frag=$KP_BUILD/kunitconfig-$fl-$arch
[ -f "$obj/$(kp_image "$arch")" ] || kp_die "no kernel: run build.sh $fl $arch first"
json=$KP_BUILD/kunit-pnmi-$fl.json
log=$KP_BUILD/kunit-pnmi-$fl.log
args=(--build_dir="$obj" --kunitconfig="$frag"
      --qemu_config="$KP_TOOLS/qemu/arm64-pnmi.py"
      --cross_compile="$(kp_cross "$arch")"
      --timeout="${KP_KUNIT_TIMEOUT:-900}" --json="$json" --raw_output=all)
rm -f "$json"
set +e
(cd "$src" && timeout $(( ${KP_KUNIT_TIMEOUT:-900} + 60 )) \
	python3 tools/testing/kunit/kunit.py exec "${args[@]}" "$filter") > "$log" 2>&1
set -e
rc=0
python3 "$KP_TOOLS/kunit-results.py" "$log" | sed 's/^KUNIT /KUNIT-PNMI /' || rc=1
if grep -aq 'Pseudo-NMIs enabled' "$log"; then
	echo "KUNIT-PNMI pnmi.enabled PASS"
else
	echo "KUNIT-PNMI pnmi.enabled FAIL (no 'Pseudo-NMIs enabled' in $log)"
	rc=1
fi
exit $rc
