#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# decoder-diff.sh SRC OBJ: the arm64 instruction decoder of the base
# against ours, as black boxes.  SRC is a kernel tree with our arm64
# probes code (e.g. series-check's worktree at an arm64 step), OBJ its
# arm64 build directory (configured, built).  Copies the base's
# decode-insn.[ch] and simulate-insn.[ch] into SRC/arch/arm64/kernel/
# probes/kpd_old/ with their entry points renamed (compiled, not read),
# builds kpd_diff.c into the kernel beside ours, boots it under QEMU
# without a root file system and keeps the KPD lines of the console in
# OBJ/kpd.log.  Undo with git -C SRC checkout -f && git -C SRC clean -fdx
# arch/arm64/kernel/probes.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
src=$1 obj=$2
d=$src/arch/arm64/kernel/probes
mkdir -p "$d/kpd_old"
for f in decode-insn.c decode-insn.h simulate-insn.c simulate-insn.h; do
	cp "$KP_BASE/arch/arm64/kernel/probes/$f" "$d/kpd_old/$f"
done
cp "$KP_TOOLS/decoder-diff/kpd_diff.c" "$d/kpd_diff.c"
ren=
for s in arm_probe_decode_insn arm_kprobe_decode_insn simulate_adr_adrp \
	 simulate_b_bl simulate_b_cond simulate_br_blr_ret simulate_cbz_cbnz \
	 simulate_ldr_literal simulate_ldrsw_literal simulate_tbz_tbnz \
	 simulate_ldr_literal_fp simulate_nop; do
	ren+=" -D$s=old_$s"
done
cat > "$d/kpd_old/Makefile" <<MK
ccflags-y := $ren -fno-diagnostics-show-caret
obj-y := decode-insn.o simulate-insn.o
MK
grep -q kpd_diff "$d/Makefile" || echo 'obj-y += kpd_diff.o kpd_old/' >> "$d/Makefile"
make -C "$src" O="$obj" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
	CC="ccache aarch64-linux-gnu-gcc" -j"$KP_JOBS" Image > "$obj/kpd-build.log" 2>&1 ||
	{ grep -E 'error|undefined' "$obj/kpd-build.log" | cut -c1-200 | head -20; exit 1; }
timeout 1800 qemu-system-aarch64 -machine virt -cpu max,pauth-impdef=on \
	-accel tcg,thread=single -m 1024 -nographic -no-reboot -nodefaults \
	-serial stdio -kernel "$obj/arch/arm64/boot/Image" \
	-append "console=ttyAMA0 panic=-1" > "$obj/kpd-console.log" 2>&1 || true
grep 'KPD' "$obj/kpd-console.log" | sed 's/^\[[^]]*\] //' > "$obj/kpd.log"
wc -l < "$obj/kpd.log"
