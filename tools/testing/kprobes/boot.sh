#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot.sh FLAVOUR ARCH MODE [LOG]: boot the built kernel with the guest
# initramfs under QEMU (TCG) in MODE (test, demo, shell, or a guest script).
# Every boot but a shell has a hard timeout (KP_BOOT_TIMEOUT seconds).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
fl=$1
arch=$2
mode=$3
log=${4:-}
# The log is the console of this boot or nothing: a boot that stops
# before QEMU starts (no kernel, a failing initramfs.sh) leaves no log,
# never the previous boot's, which its caller would read as this one.
[ -z "$log" ] || rm -f "$log"
obj=$(kp_obj "$fl" "$arch")
kernel=$obj/$(kp_image "$arch")
[ -f "$kernel" ] || kp_die "no kernel $kernel: run build.sh $fl $arch"
initrd=$("$KP_TOOLS/initramfs.sh" "$fl" "$arch")
# KP_INITRD_EXTRA="ARCHIVE...": cpio archives (bpftrace-root.sh's) put
# after the guest's in one initrd; the kernel unpacks each into the root.
# An uncompressed archive must start at a multiple of 4 bytes into the
# initrd (zeros before it are skipped): each piece is padded to one.
if [ -n "${KP_INITRD_EXTRA:-}" ]; then
	for f in "$initrd" ${KP_INITRD_EXTRA}; do
		cat "$f"
		head -c $(( (4 - $(stat -c %s "$f") % 4) % 4 )) /dev/zero
	done > "$obj/kp-initramfs-extra.cpio"
	initrd=$obj/kp-initramfs-extra.cpio
	# QEMU has read it by the time it exits: no second copy kept
	trap 'rm -f "$obj/kp-initramfs-extra.cpio"' EXIT
fi
# KUnit on, but no suite at boot (the glob matches none): a guest test
# points kunit.filter_glob at the suite of the module it loads.
append="kpmode=$mode kpflavour=$fl kunit.enable=1 kunit.filter_glob=kp-none-at-boot panic=-1 ${KP_APPEND:-}"
accel=(-accel tcg,thread=single)
[ "${KP_KVM:-0}" = 1 ] && accel=(-accel kvm)
case $arch in
x86_64)
	qemu=(qemu-system-x86_64 "${accel[@]}" -cpu max -bios qboot.rom)
	append="console=ttyS0 $append"
	;;
arm64)
	qemu=(qemu-system-aarch64 -machine virt -cpu max,pauth-impdef=on "${accel[@]}")
	append="console=ttyAMA0 $append"
	;;
esac
qemu+=(-smp "${KP_SMP:-2}" -m "${KP_MEM:-1024}" -nographic -no-reboot -nodefaults
       -kernel "$kernel" -initrd "$initrd" -append "$append")
qemu+=(${KP_QEMU_EXTRA:-})
if [ "$mode" = shell ]; then
	exec "${qemu[@]}" -serial mon:stdio
fi
# make demo: the console goes to the terminal and to a log, which is
# then checked: the demo must reach its end, every step of it succeed,
# and the console show no kernel report.
if [ "$mode" = demo ] && [ -z "$log" ]; then
	log=$KP_BUILD/demo-$fl-$arch.log
	rm -f "$log"
	tee_demo=1
fi
set +e
if [ -n "${tee_demo:-}" ]; then
	timeout --foreground -k 10 "$KP_BOOT_TIMEOUT" "${qemu[@]}" -serial stdio < /dev/null 2>&1 |
		tee "$log"
	rc=${PIPESTATUS[0]}
elif [ -n "$log" ]; then
	timeout --foreground -k 10 "$KP_BOOT_TIMEOUT" "${qemu[@]}" -serial stdio < /dev/null > "$log" 2>&1
	rc=$?
else
	timeout --foreground -k 10 "$KP_BOOT_TIMEOUT" "${qemu[@]}" -serial stdio < /dev/null
	rc=$?
fi
set -e
if [ $rc = 124 ] || [ $rc = 137 ]; then
	echo "KPTEST run.boot-timeout FAIL (the $fl $arch guest did not finish within ${KP_BOOT_TIMEOUT}s)" |
		tee -a ${log:-/dev/null}
	[ "$mode" = demo ] && kp_log "make demo FAILED: the guest timed out (log: $log)"
	exit 124
fi
if [ "$mode" = demo ]; then
	set +e
	why=()
	[ $rc = 0 ] || why+=("QEMU exited with $rc")
	tr -d '\r' < "$log" | grep -aE "$KP_BAD_RE" > /dev/null &&
		why+=("a kernel report on the console: $(tr -d '\r' < "$log" | grep -aE "$KP_BAD_RE" | head -1)")
	grep -aq '^KPGUEST done' "$log" || why+=("the guest did not reach its end (panic or crash?)")
	steps=$(tr -d '\r' < "$log" | grep -a '^KPDEMO FAILED' | sed 's/^KPDEMO FAILED //' | paste -sd ';')
	grep -aq '^KPDEMO ok' "$log" || why+=("the demo did not end with KPDEMO ok${steps:+; steps failed: $steps}")
	if [ ${#why[@]} -gt 0 ]; then
		for w in "${why[@]}"; do kp_log "make demo FAILED: $w"; done
		kp_log "the console log: $log"
		exit 1
	fi
	kp_log "demo of $fl $arch: every step succeeded (log: $log)"
fi
exit $rc
