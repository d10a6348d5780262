#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what the workbench needs (Debian packages) and extract the pinned
# base.  Idempotent: a machine that has everything costs a few dpkg queries.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pkgs=(gcc make flex bison bc libelf-dev libssl-dev cpio kmod rsync xz-utils
      python3 perl ccache sparse qemu-system-x86 qemu-system-arm
      gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu busybox-static git
      python3-sphinx python3-sphinx-rtd-theme python3-yaml)
want_base="$KP_BASE_PKG=$KP_BASE_VERSION"

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
have_base=$(dpkg-query -W -f='${Version}' "$KP_BASE_PKG" 2>/dev/null || true)
[ "$have_base" = "$KP_BASE_VERSION" ] || missing+=("$want_base")

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
apt_updated=
apt_update() {
	[ -n "$apt_updated" ] && return
	kp_log "apt-get update"
	$SUDO apt-get update -qq
	apt_updated=1
}
if [ ${#missing[@]} -gt 0 ]; then
	apt_update
	kp_log "installing: ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
		--allow-downgrades "${missing[@]}" >/dev/null
fi

# An arm64 busybox for the arm64 guest: unpacked from Debian's package.
bb64=$KP_BASE_DIR/../busybox-arm64/bin/busybox
if [ ! -x "$bb64" ]; then
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		$SUDO dpkg --add-architecture arm64
		apt_updated=
	fi
	apt_update
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get download -qq busybox-static:arm64 >/dev/null)
		dpkg-deb -x "$tmp"/busybox-static_*_arm64.deb "$tmp/x"
	mkdir -p "$(dirname "$bb64")"
	cp "$tmp/x/bin/busybox" "$bb64"
	rm -rf "$tmp"
fi

# The pristine base, extracted once.
stamp=$KP_BASE_DIR/.version
if [ "$(cat "$stamp" 2>/dev/null)" != "$KP_BASE_VERSION" ]; then
	kp_log "extracting $KP_BASE_TARBALL"
	rm -rf "$KP_BASE_DIR"
	mkdir -p "$KP_BASE_DIR"
	tar -xJf "$KP_BASE_TARBALL" -C "$KP_BASE_DIR"
	chmod -R a-w "$KP_BASE"
	echo "$KP_BASE_VERSION" > "$stamp"
fi
v=$(make -s -C "$KP_BASE" kernelversion 2>/dev/null || true)
kp_log "base: Debian $KP_BASE_PKG $KP_BASE_VERSION (Linux $v)"
