#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-steps.sh: make bench-steps.  The per-hit benchmark (make bench's
# "hit" boots, guest/bench.sh) on the kernels of chosen steps of the
# exported series, so that what each step brings to a hit is measured
# apart: the series moves each architecture from the compat layer to
# its own code one behaviour at a time (boosting, boosting under
# preemption, the post copy, the kretprobe trampoline, jump
# optimization, kprobes on ftrace), and the difference between the
# kernels of two steps is the cost or the saving of that behaviour.
#
# The series is applied as series-check.sh --apply applies it (git am on
# a git repository of the base, $KP_BUILD/series-check/linux; its
# KP_SC_SEED clones another repository of the base instead of copying
# it).  Each step is checked out in a worktree of that repository,
# $KP_BUILD/bench-steps/src, and built incrementally, per arch and
# config, in $KP_BUILD/bench-steps/obj-ARCH-CONFIG: vmlinux, the
# modules and the image, with the kprobes options series-check turns on
# at every step (KP_SC_CONFIG_ARGS), then the benchmark module of this
# tree (samples/kprobes/kprobe_bench*, kp_bench_sources) as an external
# module: the same module on every step, before the step that adds it
# to the series too.  What a boot needs of the step (the image, .config,
# the module) is kept in $KP_BUILD/bench-steps/steps/ARCH-CONFIG-NN/,
# which boot.sh boots as its KP_BUILD.
#
# Per step: one boot with QEMU -icount shift=0 (guest instructions,
# deterministic: the headline) and KP_BENCH_RUNS (default 2) boots
# without it (TCG wall time, which bench-report.py divides by the
# unprobed call of the same boot), each -smp 1 with kpb_part=hit, as
# make bench's hit and wall boots.  KP_BENCH_OVERLAP=1 boots a step
# while the next one builds (the instruction counts do not depend on the
# host, but the wall boots then share it with a compiler: their figures
# move more); by default a step's boots run before the next build.
#
# Configs (KP_BENCH_CONFIGS, default "workbench nopreempt" on x86_64,
# "workbench" on arm64):
#   workbench  make check's config (fragment.sh ours ARCH: CONFIG_PREEMPT)
#   nopreempt  the same without preemption (configs/bench-nopreempt.config):
#              x86_64's boosting before the x86-boost-preempt step needs it
#   defaults   make bench's second config (configs/bench-defaults.config;
#              preemptible on x86_64 too: PREEMPT_DYNAMIC)
# Steps (KP_BENCH_STEPS: patch numbers or PART names of series.map, for
# every config of the run; KP_BENCH_STEPS_CONFIG, e.g.
# KP_BENCH_STEPS_nopreempt, for one config; by default per arch and
# config, below).  They are built in the order given and reported in
# the series' order.
#
# The raw results are kept, to be committed, as bench.sh keeps its own:
# $KP_RESULTS/bench-steps/RUN/ (RUN: the UTC start and the arches) with
# run.meta (date, git HEAD, the series' commit, knobs, host) and
# CONFIG/NN-PART/ per step: step.meta (the step's number, part, subject
# and commit, its config's kprobes options) and every boot's console log
# with its .meta.  At the end bench-report.py report regenerates
# REPORT.md (its per-cause tables come from the newest run per arch).
# KP_BENCH_STEPS_RUN=RUN adds to the stored run RUN instead of starting
# one, and skips the steps it already measured (a run cut short).
# Other knobs: ARCHES (default x86_64), KP_BENCH_N (calls per row,
# default 20000), KP_BENCH_RS, KP_BENCH_TIMEOUT (seconds per boot),
# KP_JOBS.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
arches=${ARCHES:-x86_64}
runs=${KP_BENCH_RUNS:-2}
params="kpb_n=${KP_BENCH_N:-20000} kpb_rs=${KP_BENCH_RS:-50} kpb_reg=none kpb_attach=none kpb_part=hit"
export KP_BOOT_TIMEOUT=${KP_BENCH_TIMEOUT:-1800}
work=$KP_BUILD/bench-steps
repo=$KP_BUILD/series-check/linux
top=$KP_BUILD

# The steps measured by default: where each behaviour comes, with the
# step before it.  x86_64: x86-int3 (6.12's x86 code through the compat
# layer), x86 (int3 probes, every instruction stepped, kretprobes on
# rethook), x86-boost (boost without preemption), x86-boost-preempt,
# x86-post (post_handlers from a copy), docs-x86 (the last step before
# the kretprobe trampoline: kretprobes on rethook, on the entry path of
# x86-kret), x86-kret, x86-opt, x86-ftrace.  arm64: arm64-decode
# (6.12's arm64 code through the compat layer), arm64 (BRK probes,
# stepped, with the kretprobe trampoline), arm64-boost, arm64-post,
# arm64-opt.
default_steps() {	# default_steps ARCH CONFIG
	case $1-$2 in
	x86_64-workbench|x86_64-defaults)
		echo "x86-int3 x86 x86-boost x86-boost-preempt x86-post docs-x86 x86-kret x86-opt x86-ftrace" ;;
	x86_64-nopreempt) echo "x86 x86-boost x86-boost-preempt" ;;
	arm64-*) echo "arm64-decode arm64 arm64-boost arm64-post arm64-opt" ;;
	esac
}
default_configs() {
	case $1 in
	x86_64) echo "workbench nopreempt" ;;
	*) echo workbench ;;
	esac
}
mapfile -t parts < <(awk '$1 == "PART" { print $2 }' "$KP_TOOLS/series.map")
step_number() {	# step_number NUMBER|PART: the patch number, 1-based
	local i
	case $1 in
	[0-9]*) echo $((10#$1)); return ;;
	esac
	for i in "${!parts[@]}"; do
		[ "${parts[$i]}" = "$1" ] && { echo $((i + 1)); return; }
	done
	kp_die "bench-steps: no part $1 in series.map"
}

# the series, applied
"$KP_TOOLS/series-check.sh" --apply > "$top/bench-steps-apply.log" 2>&1 ||
	kp_die "bench-steps: the series does not apply ($(tail -n 3 "$top/bench-steps-apply.log" | tr '\n' ' '))"
mapfile -t commits < <(git -C "$repo" rev-list --reverse teardown..series)
[ ${#commits[@]} = ${#parts[@]} ] ||
	kp_die "bench-steps: ${#commits[@]} commits in the series, ${#parts[@]} parts in series.map"
src=$work/src
if [ ! -d "$src" ]; then
	git -C "$repo" worktree prune
	git -C "$repo" worktree add -q --detach "$src" base || kp_die "no worktree $src"
fi

if [ -n "${KP_BENCH_STEPS_RUN:-}" ]; then
	run=$KP_BENCH_STEPS_RUN
	[ -d "$KP_RESULTS/bench-steps/$run" ] || kp_die "no stored run $run"
else
	run=$(date -u +%Y-%m-%dT%H%MZ)-$(echo $arches | tr ' ' '-')
fi
store=$KP_RESULTS/bench-steps/$run
mkdir -p "$store"
{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	kp_git_state
	echo "series: $(git -C "$repo" rev-parse series) (${#commits[@]} patches, git am on the teardown series on the base)"
	echo "arches: $arches configs: ${KP_BENCH_CONFIGS:-default} steps: ${KP_BENCH_STEPS:-default}$(for c in workbench nopreempt defaults; do v=KP_BENCH_STEPS_$c; [ -z "${!v:-}" ] || echo -n " $c: ${!v}"; done) wall boots: $runs"
	echo "guest parameters: $params; boots while the next step builds: ${KP_BENCH_OVERLAP:-0}"
	echo "host: $(nproc) cpus, load at start $(cut -d' ' -f1-3 /proc/loadavg)"
} >> "$store/run.meta"

# build_step ARCH CONFIG NN: the step's kernel and the benchmark module;
# its boot directory (a KP_BUILD for boot.sh) on stdout.
build_step() {
	local arch=$1 cfg=$2 nn=$3 karch cross obj log snap img
	read -r karch cross < <(kp_sc_arch "$arch")
	obj=$work/obj-$arch-$cfg
	log=$work/build-$arch-$cfg-$nn.log
	snap=$work/steps/$arch-$cfg-$nn
	img=$(kp_image "$arch")
	mkdir -p "$obj"
	mk() {
		nice -n 10 make -C "$src" O="$obj" ARCH="$karch" CROSS_COMPILE="$cross" \
			CC="ccache ${cross}gcc" -j"$KP_JOBS" "$@"
	}
	{
		case $cfg in
		workbench) "$KP_TOOLS/fragment.sh" ours "$arch" ;;
		nopreempt) KP_EXTRA_CONFIG=$KP_TOOLS/configs/bench-nopreempt.config \
			"$KP_TOOLS/fragment.sh" ours "$arch" ;;
		defaults) KP_CONFIG_SET=defaults "$KP_TOOLS/fragment.sh" ours "$arch" ;;
		*) kp_die "bench-steps: unknown config $cfg (workbench, nopreempt or defaults)" ;;
		esac
		# the console, as kunit.py adds it from the QEMU config
		grep -o '^CONFIG_[A-Z0-9_]*=[ym]' "$KP_TOOLS/qemu/$arch.py"
	} > "$obj/.config"
	kp_bench_sources "$obj/kp-bench"
	{
		"$src/scripts/config" --file "$obj/.config" "${KP_SC_CONFIG_ARGS[@]}" &&
		mk olddefconfig && mk vmlinux modules "$(basename "$img")" &&
		mk M="$obj/kp-bench" modules
	} > "$log" 2>&1 || return 1
	kp_rm_tree "$snap"
	mkdir -p "$snap/obj-ours-$arch/$(dirname "$img")" "$snap/obj-ours-$arch/include/config" \
		"$snap/obj-ours-$arch/kp-bench"
	cp "$obj/$img" "$snap/obj-ours-$arch/$img"
	cp "$obj/.config" "$snap/obj-ours-$arch/.config"
	cp "$obj/include/config/kernel.release" "$snap/obj-ours-$arch/include/config/"
	cp "$obj/kp-bench/kprobe_bench.ko" "$snap/obj-ours-$arch/kp-bench/"
	# initramfs.sh takes the base's ftrace selftests from the source tree
	ln -sfn "$KP_BASE" "$snap/src-ours"
	echo "$snap"
}

# boot_step ARCH CONFIG SNAP OUT: the step's boots, its logs in OUT
boot_step() {
	local arch=$1 cfg=$2 out=$4 r
	export KP_BUILD=$3 KP_GUEST_TOOLS=0
	kp_bench_boot ours "$arch" "$cfg" "$out/ours-$arch-icount.log" 1 \
		"-icount shift=0" "$params"
	for r in $(seq 1 "$runs"); do
		kp_bench_boot ours "$arch" "$cfg" "$out/ours-$arch-wall$r.log" 1 "" "$params"
	done
	grep -aq 'BENCHRES row=none ' "$out/ours-$arch-icount.log" 2>/dev/null || {
		kp_log "bench-steps: no result in $out/ours-$arch-icount.log"
		return 1
	}
	kp_log "bench-steps: booted $out"
}
booting=
wait_boots() {
	[ -n "$booting" ] || return 0
	wait "$booting" || rc=1
	booting=
}

rc=0
for arch in $arches; do
	for cfg in ${KP_BENCH_CONFIGS:-$(default_configs "$arch")}; do
		v=KP_BENCH_STEPS_$cfg
		for s in ${!v:-${KP_BENCH_STEPS:-$(default_steps "$arch" "$cfg")}}; do
			i=$(step_number "$s")
			[ "$i" -ge 1 ] && [ "$i" -le ${#commits[@]} ] || kp_die "bench-steps: no step $s"
			nn=$(printf '%02d' "$i")
			part=${parts[$((i - 1))]}
			out=$store/$cfg/$nn-$part
			if [ -n "${KP_BENCH_STEPS_RUN:-}" ] &&
			   grep -aq 'BENCHRES row=none ' "$out/ours-$arch-icount.log" 2>/dev/null; then
				kp_log "bench-steps: $arch $cfg step $nn ($part) already measured in $run"
				continue
			fi
			git -C "$src" checkout -q -f --detach "${commits[$((i - 1))]}"
			kp_log "bench-steps: $arch $cfg step $nn ($part): building"
			t0=$(date +%s)
			mkdir -p "$out"
			rm -f "$out/ours-$arch-"*
			if ! snap=$(build_step "$arch" "$cfg" "$nn"); then
				kp_log "bench-steps: $arch $cfg step $nn ($part): the build FAILED ($work/build-$arch-$cfg-$nn.log)"
				{
					echo "step: $nn part: $part arch: $arch config: $cfg"
					echo "subject: $(git -C "$src" log -1 --format=%s)"
					echo "commit: $(git -C "$src" rev-parse HEAD)"
					echo "build: FAIL"
				} > "$out/step.meta"
				rc=1
				continue
			fi
			{
				echo "step: $nn part: $part arch: $arch config: $cfg"
				echo "subject: $(git -C "$src" log -1 --format=%s)"
				echo "commit: $(git -C "$src" rev-parse HEAD)"
				echo "build: PASS ($(( $(date +%s) - t0 ))s)"
				echo "kprobes options: $(for o in PREEMPTION KPROBES KPROBES_COMPAT KRETPROBES KRETPROBE_ON_RETHOOK OPTPROBES KPROBES_ON_FTRACE JPROBES; do
					v=$(sed -n "s/^CONFIG_$o=//p" "$snap/obj-ours-$arch/.config"); echo -n "$o=${v:-n} "; done)"
			} > "$out/step.meta"
			kp_log "bench-steps: $arch $cfg step $nn ($part): built in $(( $(date +%s) - t0 ))s"
			# the boots of this step (with KP_BENCH_OVERLAP=1 while the
			# next one builds: each boot's kernel is its step's copy)
			wait_boots
			if [ "${KP_BENCH_OVERLAP:-0}" = 1 ]; then
				boot_step "$arch" "$cfg" "$snap" "$out" &
				booting=$!
			else
				boot_step "$arch" "$cfg" "$snap" "$out" || rc=1
			fi
		done
	done
done
wait_boots
echo "end: $(date -u +%Y-%m-%dT%H:%M:%SZ), load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$store/run.meta"
python3 "$KP_TOOLS/bench-report.py" report --results "$KP_RESULTS" || rc=1
kp_log "raw results in $store: commit them with the report"
exit $rc
