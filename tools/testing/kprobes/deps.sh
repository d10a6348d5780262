#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what the workbench needs (Debian packages) and extract the pinned
# base.  Idempotent: a machine that has everything costs a few dpkg queries.
#
# ARCHES (default "x86_64 arm64") says which architectures to prepare:
# the arm64 cross compiler, QEMU and busybox (for which the arm64 dpkg
# architecture is added) only when arm64 is among them; the cross
# compilers of make archcheck (riscv64 ppc64le s390x arm mips arc parisc
# sh4 sparc64) only when they are.
#
# The base is Debian's linux-source-6.12 at KP_BASE_VERSION (lib.sh).  When
# Debian no longer serves that version, the 6.12.y it serves is used
# instead, with a warning; the version extracted is recorded in
# $KP_BASE_DIR/.version and every make check result names it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
arches=${ARCHES:-x86_64 arm64}
arm64=0
case " $arches " in *" arm64 "*) arm64=1 ;; esac

pkgs=(gcc make flex bison bc libelf-dev libssl-dev cpio kmod rsync xz-utils
      python3 perl ccache sparse qemu-system-x86 busybox-static git
      python3-sphinx python3-sphinx-rtd-theme python3-yaml)
[ $arm64 = 1 ] && pkgs+=(qemu-system-arm gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu)
# x86_64's cfi variant of the config matrix: kernel CFI needs clang >= 16
# (Debian 12's default clang is 14).
case " $arches " in *" x86_64 "*) pkgs+=(clang-16 lld-16 llvm-16) ;; esac
# The other architectures of make archcheck: cross compilers only when
# asked for, and QEMU (with OpenSBI for riscv64) for the KUnit boots of
# riscv64, arm and ppc64le.
for a in $arches; do
	case $a in
	riscv64) pkgs+=(gcc-riscv64-linux-gnu binutils-riscv64-linux-gnu qemu-system-misc opensbi) ;;
	ppc64le) pkgs+=(gcc-powerpc64le-linux-gnu binutils-powerpc64le-linux-gnu qemu-system-ppc) ;;
	s390x) pkgs+=(gcc-s390x-linux-gnu binutils-s390x-linux-gnu) ;;
	arm) pkgs+=(gcc-arm-linux-gnueabihf binutils-arm-linux-gnueabihf qemu-system-arm) ;;
	mips) pkgs+=(gcc-mips-linux-gnu binutils-mips-linux-gnu) ;;
	arc) pkgs+=(gcc-arc-linux-gnu binutils-arc-linux-gnu) ;;
	parisc) pkgs+=(gcc-hppa-linux-gnu binutils-hppa-linux-gnu) ;;
	sh4) pkgs+=(gcc-sh4-linux-gnu binutils-sh4-linux-gnu) ;;
	sparc64) pkgs+=(gcc-sparc64-linux-gnu binutils-sparc64-linux-gnu) ;;
	esac
done

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
apt_updated=
apt_update() {
	[ -n "$apt_updated" ] && return
	kp_log "apt-get update"
	$SUDO apt-get update -qq
	apt_updated=1
}
apt_install() {
	kp_log "installing: $*"
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
		--allow-downgrades "$@" >/dev/null
}

# The base: the pinned version if Debian has it, else the 6.12.y it has.
stamp=$KP_BASE_DIR/.version
used=$(cat "$stamp" 2>/dev/null || true)
have_base=$(dpkg-query -W -f='${db:Status-Status} ${Version}' "$KP_BASE_PKG" 2>/dev/null |
	sed -n 's/^installed //p' || true)
want=$KP_BASE_VERSION
if [ "$used" != "$KP_BASE_VERSION" ] || [ ! -f "$KP_BASE/Makefile" ]; then
	if [ "$have_base" != "$KP_BASE_VERSION" ]; then
		apt_update
		if apt-cache madison "$KP_BASE_PKG" 2>/dev/null | awk '{ print $3 }' |
				grep -qxF "$KP_BASE_VERSION"; then
			missing+=("$KP_BASE_PKG=$KP_BASE_VERSION")
		else
			cand=$(apt-cache policy "$KP_BASE_PKG" 2>/dev/null | sed -n 's/^ *Candidate: //p')
			case $cand in
			6.12.*) ;;
			*) kp_die "Debian serves neither $KP_BASE_PKG $KP_BASE_VERSION (the pinned base) nor any 6.12.y (candidate: '${cand:-none}'): fetch the pinned package from snapshot.debian.org and install it with dpkg -i" ;;
			esac
			kp_log "WARNING: Debian no longer serves the pinned base $KP_BASE_PKG $KP_BASE_VERSION;"
			kp_log "WARNING: using $KP_BASE_PKG $cand instead (results name it; patches/series may need refreshing)"
			want=$cand
			[ "$have_base" = "$cand" ] || missing+=("$KP_BASE_PKG=$cand")
		fi
	fi
fi
if [ ${#missing[@]} -gt 0 ]; then
	apt_update
	apt_install "${missing[@]}"
fi

# The arm64 dpkg architecture, for Debian's arm64 packages unpacked for
# the arm64 guest (busybox-static, bpftrace): downloaded, not installed.
add_arm64_arch() {
	dpkg --print-foreign-architectures | grep -qx arm64 && return
	kp_log "adding the arm64 dpkg architecture (for busybox-static:arm64, bpftrace:arm64)"
	$SUDO dpkg --add-architecture arm64
	apt_updated=
}

# An arm64 busybox for the arm64 guest: unpacked from Debian's package.
bb64=$KP_BASE_DIR/../busybox-arm64/bin/busybox
if [ $arm64 = 1 ] && [ ! -x "$bb64" ]; then
	add_arm64_arch
	apt_update
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get download -qq busybox-static:arm64 >/dev/null)
	dpkg-deb -x "$tmp"/busybox-static_*_arm64.deb "$tmp/x"
	mkdir -p "$(dirname "$bb64")"
	cp "$tmp/x/bin/busybox" "$bb64"
	rm -rf "$tmp"
fi

# Debian's bpftrace for the guest of each architecture (bpftrace.sh's
# boot): bpftrace-root.sh downloads and packs it once, under $KP_BUILD.
if [ "${KP_CHECK_BPFTRACE:-1}" = 1 ]; then
	for a in $arches; do
		case $a in x86_64|arm64) ;; *) continue ;; esac
		"$KP_TOOLS/bpftrace-root.sh" "$a" > /dev/null 2>&1 && continue
		[ "$a" = arm64 ] && add_arm64_arch
		apt_update
		"$KP_TOOLS/bpftrace-root.sh" "$a" > /dev/null
	done
fi

# The base, extracted once (again when the version changes).
if [ "$used" != "$want" ] || [ ! -f "$KP_BASE/Makefile" ]; then
	got=$(dpkg-query -W -f='${Version}' "$KP_BASE_PKG" 2>/dev/null || true)
	[ "$got" = "$want" ] || kp_die "$KP_BASE_PKG $want is not installed (have: '${got:-none}')"
	kp_log "extracting $KP_BASE_TARBALL ($KP_BASE_PKG $want)"
	kp_rm_tree "$KP_BASE_DIR"
	mkdir -p "$KP_BASE_DIR"
	tar -xJf "$KP_BASE_TARBALL" -C "$KP_BASE_DIR"
	# Read-only: the staged trees are hard-linked copies of it, and a
	# script that wrote through one would change the base.  Whoever
	# copies it and needs to write there makes the copy writable
	# (series-check.sh), whoever removes it uses kp_rm_tree (make
	# distclean likewise).
	chmod -R a-w "$KP_BASE"
	echo "$want" > "$stamp"
	used=$want
fi
v=$(make -s -C "$KP_BASE" kernelversion 2>/dev/null || true)
if [ "$used" = "$KP_BASE_VERSION" ]; then
	kp_log "base: Debian $KP_BASE_PKG $used (Linux $v)"
else
	kp_log "base: Debian $KP_BASE_PKG $used (Linux $v), NOT the pinned $KP_BASE_VERSION"
fi
