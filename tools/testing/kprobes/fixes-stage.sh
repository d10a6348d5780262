#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fixes-stage.sh SRC: stage the fixes flavour in SRC (called by stage.sh,
# which made SRC a hard-linked copy of the base): apply the series of
# patches/fixes/, then that of patches/teardown/, to pristine copies of
# the files they touch, and install those whose content changed (so a
# rebuild stays incremental).
#
# KP_FIXES_NOFIX=GLOB: for the patches whose name matches GLOB, apply only
# the parts of their tests (the files patches/fixes/tests lists), not the
# fix: '*' is the base with every test and no fix; '0002-*' leaves out the
# second fix only.  Default: none (the whole series).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
src=$1
nofix=${KP_FIXES_NOFIX:-}
dir=$KP_ROOT/patches/fixes
mapfile -t series < <(grep -v '^#' "$dir/series" | grep . || true)
# KP_FIXES_NONE=1 (the teardown flavour): the teardown series alone.
[ "${KP_FIXES_NONE:-0}" = 1 ] && series=()
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# split PATCH: the patch with only its test files (tests=1) or all of it
split() {
	python3 - "$1" "$dir/tests" <<'PY'
import fnmatch, re, sys
text = open(sys.argv[1]).read()
globs = [l.strip() for l in open(sys.argv[2]) if l.strip() and not l.startswith('#')]
# sections start at "diff --git a/X b/X"; what precedes the first is the header
parts = re.split(r'(?m)^(?=diff --git )', text)
out = []
for part in parts[1:]:
    m = re.match(r'diff --git a/(\S+) b/(\S+)', part)
    path = m.group(2)
    # the mail's signature ("-- \n2.x") ends the last section
    part = re.sub(r'(?m)^-- \n[\s\S]*\Z', '', part)
    if any(fnmatch.fnmatch(path, g) for g in globs):
        out.append(part)
sys.stdout.write(''.join(out))
PY
}

# The teardown series for the plain base (patches/teardown/) comes with
# it, whole, whatever KP_FIXES_NOFIX says: "fixes" is the plain base with
# both series that go to it.
tdir=$KP_ROOT/patches/teardown
mapfile -t teardown < <(grep -v '^#' "$tdir/series" | grep . || true)
touched=()
mapfile -t touched < <(
	{
		[ ${#series[@]} = 0 ] || (cd "$dir" && cat "${series[@]}")
		[ ${#teardown[@]} = 0 ] || (cd "$tdir" && cat "${teardown[@]}")
	} | sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' | sort -u)
for t in "${touched[@]}"; do
	mkdir -p "$work/$(dirname "$t")"
	if [ -f "$KP_BASE/$t" ]; then cp "$KP_BASE/$t" "$work/$t"; fi
done
applied=0 testsonly=0
for p in "${series[@]}"; do
	# shellcheck disable=SC2254
	case $p in
	$nofix)
		split "$dir/$p" > "$work/.part"
		testsonly=$((testsonly + 1))
		[ -s "$work/.part" ] || continue
		(cd "$work" && patch -p1 -s --no-backup-if-mismatch < .part) ||
			kp_die "the tests of patches/fixes/$p do not apply without the fixes"
		;;
	*)
		(cd "$work" && patch -p1 -s --no-backup-if-mismatch < "$dir/$p") ||
			kp_die "patches/fixes/$p does not apply"
		applied=$((applied + 1))
		;;
	esac
done
for p in "${teardown[@]}"; do
	(cd "$work" && patch -p1 -s --no-backup-if-mismatch < "$tdir/$p") ||
		kp_die "patches/teardown/$p does not apply"
done
rm -f "$work/.part"

put() {	# put SRCFILE DEST: write DEST only when its content differs
	if ! cmp -s "$1" "$2" 2>/dev/null; then
		mkdir -p "$(dirname "$2")"
		rm -f "$2"
		cp "$1" "$2"
		echo "$2"
	fi
}
changed=0
pmanifest=$src/.kp-patched
oldp=()
[ -s "$pmanifest" ] && mapfile -t oldp < <(grep . "$pmanifest")
for f in "${oldp[@]}"; do
	printf '%s\n' "${touched[@]}" | grep -qxF "$f" && continue
	rm -f "$src/$f"
	[ -f "$KP_BASE/$f" ] && cp "$KP_BASE/$f" "$src/$f"
	changed=$((changed + 1))
done
for t in "${touched[@]}"; do
	if [ -f "$work/$t" ]; then
		[ -n "$(put "$work/$t" "$src/$t")" ] && changed=$((changed + 1))
	elif [ -e "$src/$t" ]; then
		rm -f "$src/$t"
		changed=$((changed + 1))
	fi
done
printf '%s\n' "${touched[@]}" | grep . > "$pmanifest" || true
if [ "${KP_FIXES_NONE:-0}" = 1 ]; then
	kp_log "staged teardown: the ${#teardown[@]} patches of patches/teardown/; $changed files changed"
else
	kp_log "staged fixes: ${#series[@]} patches, $applied whole, $testsonly tests only${nofix:+ (KP_FIXES_NOFIX=$nofix)}, and the ${#teardown[@]} of the teardown; $changed files changed"
fi
