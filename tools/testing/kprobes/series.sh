#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# series.sh [OUTDIR]: export our work as a git format-patch series against
# the pinned base, one patch per PART of series.map (its header says how
# a file is mapped; series.py is the engine and fails on any file, patch
# or rule the map does not account for exactly), with the cover letter
# series-msgs/cover.txt.  The patches apply with `git am` on a git tree
# of the base, in order, and the tree after the last one is the project's
# (series.py checks it).  The commits are left in $KP_BUILD/series-tree.
# The cover letter's figures are not in cover.txt: each placeholder line
# there (@@PERHIT@@, @@TEARDOWN@@...) is filled from the stored results
# by `bench-report.py cover --fill` (the self-test fails on a figure
# written into cover.txt outside them).
#
# The series sits on the teardown series for the plain base
# (patches/teardown/).  Beside it, in OUTDIR-fixes and OUTDIR-teardown:
# the two series for the plain base (patches/fixes/: the bug fixes;
# patches/teardown/), each applied with git am to a git tree of the
# base's versions of the files it touches and exported again with its
# cover letter (patches/NAME/cover.txt).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
out=$(realpath -m "${1:-$KP_BUILD/series}")	# git -C runs elsewhere
[ -f "$KP_BASE/Makefile" ] || kp_die "no base: run deps.sh"
export KP_BASE_DIR
export KP_SERIES_NAME=${KP_SERIES_NAME:-$(git -C "$KP_ROOT" config user.name || echo kprobes)}
export KP_SERIES_EMAIL=${KP_SERIES_EMAIL:-$(git -C "$KP_ROOT" config user.email || echo kprobes@localhost)}

# put_cover DIR TEXT: the cover letter of the series in DIR gets the
# subject (TEXT's first line) and the blurb (the rest after a blank line).
put_cover() {
	python3 - "$(ls "$1"/0000-*.patch)" "$2" <<'PY'
import sys
path, body = sys.argv[1], sys.argv[2]
s = open(path).read()
lines = open(body).read().rstrip('\n').splitlines()
s = s.replace('*** SUBJECT HERE ***', lines[0])
s = s.replace('*** BLURB HERE ***', '\n'.join(lines[2:]))
open(path, 'w').write(s)
PY
}

tree=$KP_BUILD/series-tree
rm -rf "$tree" "$out"
mkdir -p "$tree" "$out"
basecommit=$(python3 "$KP_TOOLS/series.py" "$tree")
git -C "$tree" format-patch -q --cover-letter --base="$basecommit" \
	-o "$out" "$basecommit"..HEAD
cover=$KP_BUILD/series-cover.txt
python3 "$KP_TOOLS/bench-report.py" cover --fill "$KP_TOOLS/series-msgs/cover.txt" > "$cover" ||
	kp_die "series.sh: cannot fill the cover letter's figures (bench-report.py cover)"
! grep -n '@@' "$cover" || kp_die "series.sh: a placeholder is left in the cover letter"
put_cover "$out" "$cover"
ls "$out"

# The two series for the plain base, fixes (patches/fixes/) and teardown
# (patches/teardown/, which the series above sits on): each applied with
# git am to a git tree of the base's versions of the files it touches,
# alone, and exported again with its cover letter DIR/cover.txt, in
# OUTDIR-fixes and OUTDIR-teardown.
export_plain() {	# export_plain NAME
	local name=$1 dir=$KP_ROOT/patches/$1 pout=$out-$1
	local ptree=$KP_BUILD/series-$1-tree
	local pp
	rm -rf "$ptree" "$pout"
	mkdir -p "$ptree" "$pout"
	mapfile -t pp < <(grep -v '^#' "$dir/series" | grep . | sed "s|^|$dir/|")
	(
		cd "$ptree"
		git init -q
		git config user.name "$KP_SERIES_NAME"
		git config user.email "$KP_SERIES_EMAIL"
		sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "${pp[@]}" | sort -u |
		while read -r f; do
			[ -f "$KP_BASE/$f" ] || continue
			mkdir -p "$(dirname "$f")"
			cp "$KP_BASE/$f" "$f"
			chmod u+w "$f"
		done
		git add -A
		git commit -qm "Linux $(make -s -C "$KP_BASE" kernelversion) (Debian linux-source-6.12)"
		git tag base
		git am -q "${pp[@]}"
	) || kp_die "the series of patches/$name/ does not apply to the base"
	git -C "$ptree" format-patch -q --cover-letter --base="$(git -C "$ptree" rev-parse base)" \
		-o "$pout" base..HEAD
	put_cover "$pout" "$dir/cover.txt"
	ls "$pout"
}
export_plain fixes
export_plain teardown
