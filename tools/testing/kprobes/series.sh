#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# series.sh [OUTDIR]: export our work as a git format-patch series against
# the pinned base, one logical patch per part (series.map), with a cover
# letter.  The patches apply with `git am` on a git tree of the base.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
out=${1:-$KP_BUILD/series}
[ -f "$KP_BASE/Makefile" ] || kp_die "no base: run deps.sh"
cd "$KP_ROOT"
mapfile -t files < <(git ls-files -- kernel include arch lib samples Documentation mm init drivers)
mapfile -t removed < <(grep -v '^#' "$KP_TOOLS/upstream-files" | grep .)
mapfile -t series < <(grep -v '^#' patches/series | grep .)

# part_of PATH: the part number whose globs match PATH
part_of() {
	local part= line
	while read -r line; do
		case $line in
		'#'*|'') continue ;;
		PART\ *) part=$(echo "$line" | awk '{print $2}') ;;
		*)
			# shellcheck disable=SC2254
			case $1 in $line) echo "$part"; return ;; esac ;;
		esac
	done < "$KP_TOOLS/series.map"
	echo 02
}

# A small git tree holding the base's version of every file we touch.
tree=$KP_BUILD/series-tree
rm -rf "$tree" "$out"
mkdir -p "$tree" "$out"
git -C "$tree" init -q
git -C "$tree" config user.name "$(git config user.name || echo kprobes)"
git -C "$tree" config user.email "$(git config user.email || echo kprobes@localhost)"
base_files=()
for f in "${files[@]}"; do [ -f "$KP_BASE/$f" ] && base_files+=("$f"); done
for r in "${removed[@]}"; do
	for g in "$KP_BASE"/$r; do [ -f "$g" ] && base_files+=("${g#"$KP_BASE"/}"); done
done
for p in "${series[@]}"; do
	while read -r t; do base_files+=("$t"); done < <(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "patches/$p")
done
for f in $(printf '%s\n' "${base_files[@]}" | sort -u); do
	mkdir -p "$tree/$(dirname "$f")"
	cp "$KP_BASE/$f" "$tree/$f"
done
git -C "$tree" add -A
git -C "$tree" commit -qm "Linux $(make -s -C "$KP_BASE" kernelversion) (Debian $KP_BASE_PKG $KP_BASE_VERSION)"
basecommit=$(git -C "$tree" rev-parse HEAD)

# Upstream files we remove without a same-named replacement go with the
# part that replaces their directory's code.
for part in $(grep '^PART ' "$KP_TOOLS/series.map" | awk '{print $2}' | sort); do
	subject=$(grep "^PART $part " "$KP_TOOLS/series.map" | cut -d' ' -f3-)
	n=0
	for f in "${files[@]}"; do
		[ "$(part_of "$f")" = "$part" ] || continue
		mkdir -p "$tree/$(dirname "$f")"
		cp "$f" "$tree/$f"
		n=$((n + 1))
	done
	for r in "${removed[@]}"; do
		for g in "$tree"/$r; do
			[ -f "$g" ] || continue
			rel=${g#"$tree"/}
			[ -f "$KP_ROOT/$rel" ] && continue
			[ "$(part_of "$rel")" = "$part" ] || continue
			git -C "$tree" rm -q "$rel"
			n=$((n + 1))
		done
	done
	for p in "${series[@]}"; do
		[ "$(part_of "patches/$p")" = "$part" ] || continue
		(cd "$tree" && patch -p1 -s --no-backup-if-mismatch < "$KP_ROOT/patches/$p")
		n=$((n + 1))
	done
	[ $n = 0 ] && continue
	git -C "$tree" add -A
	msg=$KP_TOOLS/series-msgs/$part.txt
	{
		echo "$subject"
		echo
		if [ -f "$msg" ]; then cat "$msg"; else echo "$subject."; fi
		echo
		echo "Signed-off-by: $(git config user.name || echo kprobes) <$(git config user.email || echo kprobes@localhost)>"
	} > "$KP_BUILD/series-msg"
	git -C "$tree" commit -q -F "$KP_BUILD/series-msg"
done
git -C "$tree" format-patch -q --cover-letter --base="$basecommit" -o "$out" "$basecommit"..HEAD
cover=$(ls "$out"/0000-*.patch)
python3 - "$cover" "$KP_TOOLS/series-msgs/cover.txt" <<'PY'
import sys
path, body = sys.argv[1], sys.argv[2]
s = open(path).read()
try:
    text = open(body).read().rstrip('\n')
except OSError:
    text = 'A rebuilt kprobes subsystem.'
lines = text.splitlines()
s = s.replace('*** SUBJECT HERE ***', lines[0])
s = s.replace('*** BLURB HERE ***', '\n'.join(lines[2:]) if len(lines) > 2 else text)
open(path, 'w').write(s)
PY
ls "$out"
