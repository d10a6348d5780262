#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build.sh FLAVOUR ARCH: stage and build one kernel (with its modules, our
# out-of-tree test modules and the benchmark module).  The config is made the way kunit.py makes
# it, so that KUnit and the guest boots run the very same kernel.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
fl=${1:-ours}
arch=${2:-x86_64}
kp_check_flavour "$fl"
kp_karch "$arch" >/dev/null

"$KP_TOOLS/stage.sh" "$fl"
src=$(kp_src "$fl")
obj=$(kp_obj "$fl" "$arch")
mkdir -p "$obj"
frag=$KP_BUILD/kunitconfig-$fl-$arch
"$KP_TOOLS/fragment.sh" "$fl" "$arch" > "$frag.new"
cmp -s "$frag.new" "$frag" || mv "$frag.new" "$frag"
rm -f "$frag.new"

cross=$(kp_cross "$arch")
args=(--build_dir="$obj" --kunitconfig="$frag" --qemu_config="$KP_TOOLS/qemu/$arch.py"
      --jobs="$KP_JOBS" --make_options "CC=ccache ${cross}gcc")
[ -n "$cross" ] && args+=(--cross_compile="$cross")
log=$KP_BUILD/build-$fl-$arch.log
kp_log "building $fl $arch kernel in $obj (log: $log)"
start=$(date +%s)
# Progress: kunit.py prints nothing until make is done (about 8 minutes on 2
# cores from an empty ccache), so a line every KP_PROGRESS seconds says
# how many objects this build compiled so far, beside the count of the
# last complete build of this tree.
stamp=$obj/.kp-build-start
touch "$stamp"
total=$(cat "$obj/.kp-objcount" 2>/dev/null || true)
(
	# (find fails when make removes a file under its feet: not fatal)
	set +e +o pipefail
	while sleep "${KP_PROGRESS:-30}"; do
		n=$(find "$obj" -name '*.o' -newer "$stamp" 2>/dev/null | wc -l)
		kp_log "building $fl $arch: $n objects compiled in $(( $(date +%s) - start ))s${total:+ (the whole kernel has $total)}"
	done
) &
ticker=$!
trap 'kill $ticker 2>/dev/null || true' EXIT
if ! (cd "$src" && python3 tools/testing/kunit/kunit.py build "${args[@]}") > "$log" 2>&1; then
	kill $ticker 2>/dev/null || true
	grep -E 'error|Error|ERROR' "$log" | head -40 >&2 || true
	tail -20 "$log" >&2
	kp_die "kernel build failed: $fl $arch"
fi
kill $ticker 2>/dev/null || true
find "$obj" -name '*.o' 2>/dev/null | wc -l > "$obj/.kp-objcount"
# Out-of-tree modules: copied to the object tree so the repository stays clean.
ext=$obj/kp-modules
mkdir -p "$ext"
rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' --exclude='*.mod*' \
	--exclude=Module.symvers --exclude=modules.order \
	"$KP_TOOLS/modules/" "$ext/src/"
if ! kp_kmake "$fl" "$arch" M="$ext/src" modules >> "$log" 2>&1; then
	grep -E 'error|warning' "$log" | tail -40 >&2 || true
	kp_die "test module build failed: $fl $arch"
fi
# The benchmark (samples/kprobes/kprobe_bench*), built out of tree the
# same way against every flavour's kernel (the upstream flavour has no
# SAMPLE_KPROBE_BENCH): its sources and its lines of the samples Makefile.
bench=$obj/kp-bench
kp_bench_sources "$bench"
if ! kp_kmake "$fl" "$arch" M="$bench" modules >> "$log" 2>&1; then
	grep -E 'error|warning' "$log" | tail -40 >&2 || true
	kp_die "benchmark module build failed: $fl $arch"
fi
kp_log "built $fl $arch in $(( $(date +%s) - start ))s"
