#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# matrix.sh (make matrix): the configurations besides the workbench's
# (configmatrix.sh: kunit, noftrace, noopt, nokretprobes, nojprobes,
# cfi, fp, xenpv), each built in full and booted with the KUnit suites kprobes*,
# for FLAVOUR and each architecture of ARCHES.  make check compiles the
# same variants only (KP_MATRIX_QUICK=1); this is the part that takes a
# kernel build per variant (10 to 20 minutes each when ccache has not
# seen it), to run before an issue that touches configuration or #ifdefs
# is resolved.
#
# The results land in $KP_BUILD/matrix-FLAVOUR.results and are accounted
# as make check's are, against tools/testing/kprobes/inventory-matrix:
# a case expected and missing fails, a case not listed fails.  The run
# ends with the line "N passed, N failed, N skipped".
set -uo pipefail
. "$(dirname "$0")/lib.sh"
fl=${FLAVOUR:-ours}
arches=${ARCHES:-x86_64 arm64}
kp_check_flavour "$fl"
res=$KP_BUILD/matrix-$fl.results
mkdir -p "$KP_BUILD"
echo "# kprobes matrix: flavour=$fl arches=${arches// /,} started=$(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$res"
t0=$(date +%s)
for arch in $arches; do
	"$KP_TOOLS/configmatrix.sh" "$fl" "$arch" | tee -a "$res"
	kp_log "matrix $fl $arch done at +$(( $(date +%s) - t0 ))s"
done
echo
kp_log "matrix of $fl (${arches}) took $(( $(date +%s) - t0 ))s"
python3 "$KP_TOOLS/inventory.py" --inventory "$KP_TOOLS/inventory-matrix" \
	check --flavour "$fl" --arches "$arches" "$res"
