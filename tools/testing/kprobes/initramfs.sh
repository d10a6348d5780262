#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# initramfs.sh FLAVOUR ARCH: pack the guest: busybox, our guest scripts,
# the sample modules and our test modules.  Prints the image's path.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
fl=$1
arch=$2
obj=$(kp_obj "$fl" "$arch")
case $arch in
x86_64) bb=/bin/busybox ;;
arm64) bb=$KP_BASE_DIR/../busybox-arm64/bin/busybox ;;
esac
[ -x "$bb" ] || kp_die "no busybox for $arch: run tools/testing/kprobes/deps.sh"
root=$obj/kp-initramfs
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,root,guest/modules,guest/samples}
cp "$bb" "$root/bin/busybox"
cp "$KP_TOOLS/guest/init" "$root/init"
chmod +x "$root/init"
cp -r "$KP_TOOLS/guest/." "$root/guest/"
rm -f "$root/guest/init"
for m in "$obj"/kp-modules/src/*.ko; do
	[ -f "$m" ] && cp "$m" "$root/guest/modules/"
done
# (not the benchmark: the guest loads the copy build.sh built out of tree,
# the same way on every flavour)
for m in "$obj"/samples/kprobes/*.ko "$obj"/samples/livepatch/livepatch-sample.ko; do
	case $m in */kprobe_bench.ko) continue ;; esac
	[ -f "$m" ] && cp "$m" "$root/guest/samples/"
done
for m in "$obj"/kp-bench/*.ko; do
	[ -f "$m" ] && cp "$m" "$root/guest/modules/"
done
# The base's ftrace selftests for kprobes (kpmode=ftracetest), unchanged,
# and the module one of them loads with modprobe (depmod runs in the guest).
ft=$(kp_src "$fl")/tools/testing/selftests/ftrace
mkdir -p "$root/guest/ftrace/test.d"
cp "$ft/ftracetest" "$root/guest/ftrace/"
cp "$ft/test.d/functions" "$root/guest/ftrace/test.d/"
cp -r "$ft/test.d/kprobe" "$root/guest/ftrace/test.d/"
krel=$(cat "$obj/include/config/kernel.release")
if [ -f "$obj/samples/trace_printk/trace-printk.ko" ]; then
	mkdir -p "$root/lib/modules/$krel/extra"
	cp "$obj/samples/trace_printk/trace-printk.ko" "$root/lib/modules/$krel/extra/"
fi
# kp_perfsb, kp_attach, kp_bpf and kp_detach (guest/*.c, their helpers in
# guest/kp_guest.h), with the kernel's nolibc and uapi headers;
# KP_GUEST_TOOLS=0 leaves them out (bench-steps.sh's per-hit boots,
# which run none of them, on kernels with no object tree to build them in).
tools="kp_perfsb kp_attach kp_bpf kp_detach"
[ "${KP_GUEST_TOOLS:-1}" = 0 ] && tools=
for tool in $tools; do
	bin=$obj/${tool/_/-}
	if [ ! -x "$bin" ] || [ "$KP_TOOLS/guest/$tool.c" -nt "$bin" ] ||
	   [ "$KP_TOOLS/guest/kp_guest.h" -nt "$bin" ]; then
		rm -f "$bin"
		kp_kmake "$fl" "$arch" headers > /dev/null 2>&1 &&
			"$(kp_cross "$arch")gcc" -Os -static -nostdlib -fno-stack-protector \
				-fno-asynchronous-unwind-tables -I "$obj/usr/include" \
				-include "$(kp_src "$fl")/tools/include/nolibc/nolibc.h" \
				-o "$bin" "$KP_TOOLS/guest/$tool.c" -lgcc >&2 ||
			kp_log "$tool not built"
	fi
	[ -x "$bin" ] && cp "$bin" "$root/bin/$tool"
done
echo kpguest > "$root/etc/hostname"
echo 'root:x:0:0:root:/root:/bin/sh' > "$root/etc/passwd"
echo 'nobody:x:65534:65534:nobody:/tmp:/bin/sh' >> "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
out=$obj/kp-initramfs.cpio.gz
(cd "$root" && find . | sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 > "$out"
echo "$out"
