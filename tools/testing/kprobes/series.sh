#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# series.sh [OUTDIR]: export our work as a git format-patch series against
# the pinned base, one patch per PART of series.map (its header says how
# a file is mapped; series.py is the engine and fails on any file, patch
# or rule the map does not account for exactly), with the cover letter
# series-msgs/cover.txt.  The patches apply with `git am` on a git tree
# of the base, in order, and the tree after the last one is the project's
# (series.py checks it).  The commits are left in $KP_BUILD/series-tree.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
out=${1:-$KP_BUILD/series}
[ -f "$KP_BASE/Makefile" ] || kp_die "no base: run deps.sh"
export KP_BASE_DIR
export KP_SERIES_NAME=${KP_SERIES_NAME:-$(git -C "$KP_ROOT" config user.name || echo kprobes)}
export KP_SERIES_EMAIL=${KP_SERIES_EMAIL:-$(git -C "$KP_ROOT" config user.email || echo kprobes@localhost)}

tree=$KP_BUILD/series-tree
rm -rf "$tree" "$out"
mkdir -p "$tree" "$out"
basecommit=$(python3 "$KP_TOOLS/series.py" "$tree")
git -C "$tree" format-patch -q --cover-letter --base="$basecommit" \
	-o "$out" "$basecommit"..HEAD
cover=$(ls "$out"/0000-*.patch)
python3 - "$cover" "$KP_TOOLS/series-msgs/cover.txt" <<'PY'
import sys
path, body = sys.argv[1], sys.argv[2]
s = open(path).read()
lines = open(body).read().rstrip('\n').splitlines()
s = s.replace('*** SUBJECT HERE ***', lines[0])
s = s.replace('*** BLURB HERE ***', '\n'.join(lines[2:]))
open(path, 'w').write(s)
PY
ls "$out"
