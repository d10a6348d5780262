#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bpftrace-root.sh ARCH: Debian's bpftrace, unchanged, for the guest of
# ARCH (x86_64, arm64), packed as a cpio archive that boot.sh appends to
# the guest's initramfs (KP_INITRD_EXTRA): the kernel unpacks
# concatenated archives into one root.  Prints the archive's path.
#
# The packages (bpftrace and its Depends, recursively, of the Debian
# architecture amd64 or arm64) are fetched with apt-get download and
# unpacked with dpkg-deb -x under $KP_BUILD/bpftrace-ARCH: nothing is
# installed on the host.  The archive holds /usr/bin/bpftrace and the
# shared libraries it needs (its ELF dependencies, followed through
# their own, with the symlinks that name them) where Debian puts them,
# and the dynamic loader at the path the binary asks for: the guest runs
# the binary as Debian ships it.  It is uncompressed (the guest unpacks
# a gzip of this size for long under emulation).
#
# Cached: built again only when this script is newer than the archive
# (KP_BPFTRACE_REFRESH=1 forces it).  Needs the network the first time
# (deps.sh calls it).  $KP_BUILD/bpftrace-ARCH/packages lists the
# packages and versions it holds.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
arch=${1:-x86_64}
case $arch in
x86_64) darch=amd64 triplet=x86_64-linux-gnu ;;
arm64) darch=arm64 triplet=aarch64-linux-gnu ;;
*) kp_die "bpftrace-root.sh: no bpftrace for $arch" ;;
esac
dir=$KP_BUILD/bpftrace-$arch
out=$dir/bpftrace.cpio
if [ -f "$out" ] && [ "$out" -nt "$0" ] && [ "${KP_BPFTRACE_REFRESH:-0}" != 1 ]; then
	echo "$out"
	exit 0
fi
kp_log "bpftrace for the $arch guest: Debian's packages of $darch into $dir"
rm -rf "$dir"
mkdir -p "$dir/debs" "$dir/stage" "$dir/root"
pkgs=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
	--no-breaks --no-replaces --no-enhances "bpftrace:$darch" 2>/dev/null |
	grep -v -e '^ ' -e '^<' | sed "s/:$darch\$//" | sort -u | sed "s/\$/:$darch/")
grep -qx "bpftrace:$darch" <<< "$pkgs" ||
	kp_die "apt knows no bpftrace:$darch (the $darch dpkg architecture and apt-get update: deps.sh)"
# apt-get download as root warns that its sandbox user cannot write here
(cd "$dir/debs" && apt-get download -qq $pkgs 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2) || true
for p in $pkgs; do
	ls "$dir/debs/${p%:*}"_*.deb > /dev/null 2>&1 || kp_die "apt-get download $p failed"
done
for d in "$dir"/debs/*.deb; do
	dpkg-deb -x "$d" "$dir/stage"
	dpkg-deb -f "$d" Package Version | sed 's/^[^:]*: //' | paste -sd ' ' >> "$dir/packages"
done
stage=$dir/stage
root=$dir/root

# add PATH: copy PATH (relative to the stage) into the root, the targets
# of a symlink and the libraries an ELF file needs with it.
declare -A done_=()
add() {
	local p=$1 t lib n d found
	[ -z "${done_[$p]:-}" ] || return 0
	done_[$p]=1
	if [ ! -e "$stage/$p" ] && [ ! -L "$stage/$p" ]; then
		kp_die "bpftrace-root.sh: $p is in none of the packages"
	fi
	mkdir -p "$root/$(dirname "$p")"
	cp -a "$stage/$p" "$root/$p"
	if [ -L "$stage/$p" ]; then
		t=$(readlink "$stage/$p")
		case $t in /*) ;; *) t=/$(dirname "$p")/$t ;; esac
		t=$(realpath -m -s "$t")
		add "${t#/}"
		return 0
	fi
	for n in $(readelf -d "$stage/$p" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
		found=
		for d in lib/$triplet usr/lib/$triplet lib usr/lib; do
			lib=$d/$n
			if [ -e "$stage/$lib" ]; then
				found=$lib
				break
			fi
		done
		[ -n "$found" ] || kp_die "bpftrace-root.sh: $p needs $n, in none of the packages"
		add "$found"
	done
}
add usr/bin/bpftrace
# The dynamic loader, where the binary asks for it (/lib64/... on x86_64,
# /lib/... on arm64: libc6 has the link, or the loader itself).
interp=$(readelf -l "$stage/usr/bin/bpftrace" | sed -n 's/.*interpreter: \(.*\)\]$/\1/p')
[ -n "$interp" ] || kp_die "bpftrace-root.sh: bpftrace names no dynamic loader"
add "${interp#/}"
(cd "$root" && find . | sort | cpio -o -H newc --quiet -R 0:0) > "$out.tmp"
mv "$out.tmp" "$out"
kp_log "bpftrace for $arch: $(du -sh "$root" | cut -f1) in $out ($(wc -l < "$dir/packages") packages, $(find "$root" -type f | wc -l) files)"
rm -rf "$stage" "$root" "$dir/debs"
echo "$out"
