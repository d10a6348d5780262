#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# stage.sh FLAVOUR: lay out the kernel source tree of a flavour.
#
#  upstream: the pristine base, untouched.
#  fixes:    the base with the series of patches/fixes/ applied, whole
#            or, with KP_FIXES_NOFIX=GLOB, only the hunks of its tests
#            (files matched by patches/fixes/tests) for the patches of
#            GLOB; and the teardown series of patches/teardown/, whole.
#            See fixes.sh.
#  teardown: the base with the teardown series of patches/teardown/
#            alone (make bench's "upstream + teardown").
#  ours:     the base, minus upstream's kprobes implementation, plus this
#            repository's files (which mirror kernel paths), plus the
#            teardown series (patches/teardown/) and the hunks of
#            patches/series applied with patch -p1.
#
# The tree is a hard-linked copy of the base; a file we lay or patch is
# written as a new file (the base is read-only).  Restaging only rewrites
# files whose content changed, so an incremental build stays incremental.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
fl=${1:-ours}
kp_check_flavour "$fl"
[ -f "$KP_BASE/Makefile" ] || kp_die "no base: run tools/testing/kprobes/deps.sh"

src=$(kp_src "$fl")
if [ ! -f "$src/.kp-staged" ]; then
	kp_log "staging $fl tree in $src"
	kp_rm_tree "$src" "$src.tmp"
	mkdir -p "$(dirname "$src")"
	cp -al "$KP_BASE" "$src.tmp"
	find "$src.tmp" -type d -exec chmod u+w {} +
	mv "$src.tmp" "$src"
	: > "$src/.kp-staged"
fi
[ "$fl" = upstream ] && exit 0
if [ "$fl" = fixes ]; then
	exec "$KP_TOOLS/fixes-stage.sh" "$src"
fi
if [ "$fl" = teardown ]; then
	KP_FIXES_NONE=1 exec "$KP_TOOLS/fixes-stage.sh" "$src"
fi

# Files whose upstream implementation we replace (../shared/kprobes-contract.md).
# Keep in sync with tools/testing/kprobes/upstream-files.
mapfile -t removed < <(grep -v '^#' "$KP_TOOLS/upstream-files" | grep .)

# What we lay: every tracked (or new, not ignored) file of the repository
# that lives under a kernel path.
cd "$KP_ROOT"
mapfile -t ours < <(git ls-files --cached --others --exclude-standard -- \
	kernel include arch lib samples Documentation mm init scripts drivers |
	sort -u | while read -r f; do [ -f "$f" ] && echo "$f"; done)

put() {	# put SRCFILE DEST: write DEST only when its content differs
	if ! cmp -s "$1" "$2" 2>/dev/null; then
		mkdir -p "$(dirname "$2")"
		rm -f "$2"
		cp "$1" "$2"
		echo "$2"
	fi
}

# 1. Remove upstream's implementation files (unless we lay our own of the
#    same name, handled in step 2).
for f in "${removed[@]}"; do
	for g in "$src"/$f; do
		[ -e "$g" ] || continue
		rel=${g#"$src"/}
		[ -f "$KP_ROOT/$rel" ] && continue
		rm -f "$g"
	done
done

# 2. Lay our files.  Remember them so a file we stop laying goes back to
#    the base's version (or away).
manifest=$src/.kp-manifest
old=()
[ -f "$manifest" ] && mapfile -t old < "$manifest"
printf '%s\n' "${ours[@]}" > "$manifest.new"
for f in "${old[@]}"; do
	grep -qxF "$f" "$manifest.new" && continue
	rm -f "$src/$f"
	keep=1
	for r in "${removed[@]}"; do
		# shellcheck disable=SC2254
		case $f in $r) keep=0 ;; esac
	done
	[ $keep = 1 ] && [ -f "$KP_BASE/$f" ] && cp "$KP_BASE/$f" "$src/$f"
done
changed=0
for f in "${ours[@]}"; do
	[ -n "$(put "$KP_ROOT/$f" "$src/$f")" ] && changed=$((changed + 1))
done
mv "$manifest.new" "$manifest"

# 3. The series: apply to pristine copies of the files it touches, then
#    install those whose result changed.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The rebuild sits on the teardown series for the plain base
# (patches/teardown/): those first, then the rebuild's own hunks.
mapfile -t series < <(
	grep -v '^#' patches/teardown/series | grep . | sed 's|^|teardown/|'
	grep -v '^#' patches/series | grep .)
touched=()
for p in "${series[@]}"; do
	while read -r t; do touched+=("$t"); done < <(
		sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "patches/$p")
done
for t in "${touched[@]}"; do
	# once per file (several patches touch some), and writable: a copy
	# of the read-only base is read-only, and for a user who is not root
	# a second cp onto it, or patch, fails
	[ -e "$work/$t" ] && continue
	mkdir -p "$work/$(dirname "$t")"
	if [ -f "$KP_ROOT/$t" ] && git ls-files --error-unmatch "$t" >/dev/null 2>&1; then
		cp "$KP_ROOT/$t" "$work/$t"
	elif [ -f "$KP_BASE/$t" ]; then
		cp "$KP_BASE/$t" "$work/$t"
	fi
	[ ! -e "$work/$t" ] || chmod u+w "$work/$t"
done
for p in "${series[@]}"; do
	(cd "$work" && patch -p1 -s --no-backup-if-mismatch < "$KP_ROOT/patches/$p") ||
		kp_die "patches/$p does not apply"
done
pmanifest=$src/.kp-patched
oldp=()
[ -f "$pmanifest" ] && mapfile -t oldp < "$pmanifest"
for f in "${oldp[@]}"; do
	grep -qxF "$f" < <(printf '%s\n' "${touched[@]}") && continue
	rm -f "$src/$f"
	[ -f "$KP_BASE/$f" ] && cp "$KP_BASE/$f" "$src/$f"
done
for t in "${touched[@]}"; do
	if [ -f "$work/$t" ]; then
		[ -n "$(put "$work/$t" "$src/$t")" ] && changed=$((changed + 1))
	else
		rm -f "$src/$t"
	fi
done
printf '%s\n' "${touched[@]}" | sort -u > "$pmanifest"

# 3b. A staging of an older tree put the base's lib/test_kprobes.c here
#     under another name; the base's file now stays where it is.
rm -f "$src/lib/test_kprobes_base.c"

# 4. No upstream implementation file may survive.
for f in "${removed[@]}"; do
	for g in "$src"/$f; do
		[ -e "$g" ] || continue
		rel=${g#"$src"/}
		cmp -s "$g" "$KP_BASE/$rel" && kp_die "upstream $rel survived staging"
	done
done
kp_log "staged ours: ${#ours[@]} files of ours, ${#series[@]} patches, $changed changed"
