#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fragment.sh FLAVOUR ARCH: print the config fragment of one build.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
fl=$1
arch=$2
# KP_CONFIG_SET=defaults: make bench's second config, the kernel's
# defaults plus kprobes (configs/bench-defaults.config; the console
# comes from qemu/ARCH.py, as for every build).
if [ "${KP_CONFIG_SET:-workbench}" = defaults ]; then
	cat "$KP_TOOLS/configs/bench-defaults.config"
	exit 0
fi
cat "$KP_TOOLS/configs/common.config" "$KP_TOOLS/configs/$arch.config"
[ -f "$KP_TOOLS/configs/$fl.config" ] && cat "$KP_TOOLS/configs/$fl.config"
[ -f "$KP_TOOLS/configs/$arch-$fl.config" ] && cat "$KP_TOOLS/configs/$arch-$fl.config"
# The debug flavour, and the fixes flavour always: the plain base with
# its two series (patches/fixes/, patches/teardown/) is tested under the
# kernel's checkers (KASAN, lockdep, kmemleak) in make check.
if [ "${KP_DEBUG:-0}" = 1 ] || [ "$fl" = fixes ]; then
	cat "$KP_TOOLS/configs/debug.config"
fi
[ -n "${KP_EXTRA_CONFIG:-}" ] && cat "$KP_EXTRA_CONFIG"
true
