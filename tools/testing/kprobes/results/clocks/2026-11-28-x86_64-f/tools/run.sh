#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run.sh FLAVOUR OUT N ROWS QEMU-EXTRA [LOGMASK]: one boot of a built
# kernel (CLK_BUILD/obj-FLAVOUR-x86_64, its kp-initramfs/ and kprobe_bench.ko
# as build.sh left them) under TCG, -smp 1, as bench.sh boots it.  The
# guest runs clk.sh (KPC_MODE=clk: kprobe_bench rows ROWS, N calls each,
# each framed by CLKMARK lines) clk2.sh (KPC_MODE=clk2: kp_clk.ko,
# built beforehand into CLK_WORK/mod-FLAVOUR/, default /tmp/clk) or clk3.sh (KPC_MODE=clk3:
# where the written data of the f hit and the code around it lie).  drive.py runs "info jit"
# on the monitor at each mark and, with LOGMASK (int, exec), turns QEMU's
# log on for the row into OUT/ROW.int.  Prints the CLKRES lines.
set -e
fl=$1 out=$2 n=$3 rows=$4 extra=$5 mask=${6:-}
here=$(cd "$(dirname "$0")" && pwd)
work=${CLK_WORK:-${TMPDIR:-/tmp}/clk}
obj=${CLK_BUILD:?CLK_BUILD: the build directory holding obj-FLAVOUR-x86_64}/obj-$fl-x86_64
mkdir -p "$work"
rm -rf "$out"; mkdir -p "$out"
root=$work/root-$fl
[ -d "$root" ] || cp -a "$obj/kp-initramfs" "$root"
cp "$here/clk.sh" "$here/clk2.sh" "$here/clk3.sh" "$root/guest/"
[ -f "$work/mod-$fl/kp_clk.ko" ] && cp "$work/mod-$fl/kp_clk.ko" "$root/guest/modules/"
(cd "$root" && find . | sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 > "$work/initrd-$fl.cpio.gz"
sock=$out/mon.sock
python3 "$here/drive.py" "$out/console.log" "$sock" "$out" $mask &
dp=$!
timeout -k 10 1800 qemu-system-x86_64 -accel tcg,thread=single -cpu max -bios qboot.rom \
	-smp 1 -m 1024 -nographic -no-reboot -nodefaults \
	-kernel "$obj/arch/x86/boot/bzImage" -initrd "$work/initrd-$fl.cpio.gz" \
	-append "console=ttyS0 kpmode=${KPC_MODE:-clk} kpflavour=$fl kunit.enable=1 kunit.filter_glob=kp-none-at-boot panic=-1 nokaslr kpc_n=$n kpc_rows=$rows kpc_reps=${KPC_REPS:-5}" \
	-monitor "unix:$sock,server=on,wait=off" $extra -serial stdio < /dev/null > "$out/console.log" 2>&1 || true
wait $dp || true
tr -d '\r' < "$out/console.log" | grep -a CLKRES
