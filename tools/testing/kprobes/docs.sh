#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# docs.sh: check the documentation of our kprobes.
#
#  1. scripts/kernel-doc -none -Wall over every C file and header of ours
#     that carries kernel-doc comments:
#         DOCS kernel-doc.<file> PASS|FAIL
#  2. the Sphinx build of Documentation/trace (SPHINXDIRS=trace htmldocs)
#     on the staged `ours` tree, which renders Documentation/trace/kprobes.rst
#     and the kernel-doc of our files it pulls in:
#         DOCS htmldocs.trace PASS|FAIL
#     FAIL when the build fails or any warning or error names kprobes.rst
#     or one of our files.  Warnings of other documents (the base has a
#     few when only trace/ is built) are not ours and are ignored.
#
# Installs nothing: Sphinx comes from deps.sh (Debian's python3-sphinx).
# Logs: $KP_BUILD/docs-kernel-doc.log and $KP_BUILD/docs-htmldocs-trace.log;
# the HTML ends up in $KP_BUILD/obj-docs/Documentation/output/trace/.
# Exit status: 0 when every check passed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

sphinx-build --version >/dev/null 2>&1 ||
	kp_die "Sphinx is missing: run tools/testing/kprobes/deps.sh (or apt-get install python3-sphinx)"
[ -f "$KP_BASE/Makefile" ] || kp_die "no base: run tools/testing/kprobes/deps.sh"

mkdir -p "$KP_BUILD"
fail=0

# Our C files and headers with kernel-doc (uprobes.c in arch/arm64/kernel/
# probes/ is the base's, not ours).
cd "$KP_ROOT"
mapfile -t files < <(
	ls kernel/kprobes*.c kernel/kretprobes*.c kernel/jprobes.c \
	   include/linux/kprobes*.h include/linux/kretprobes.h \
	   include/linux/jprobes.h include/asm-generic/kprobes.h \
	   arch/x86/kernel/kprobes/*.c arch/x86/include/asm/kprobes.h \
	   arch/arm64/kernel/probes/*.[ch] arch/arm64/include/asm/kprobes.h \
	   2>/dev/null | grep -v '/uprobes\.c$' |
	while read -r f; do grep -q '^/\*\*' "$f" && echo "$f"; done)

kdlog=$KP_BUILD/docs-kernel-doc.log
: > "$kdlog"
for f in "${files[@]}"; do
	out=$("$KP_BASE/scripts/kernel-doc" -none -Wall "$f" 2>&1) || true
	{ echo "== $f"; [ -z "$out" ] || echo "$out"; } >> "$kdlog"
	if [ -z "$out" ]; then
		echo "DOCS kernel-doc.$f PASS"
	else
		echo "DOCS kernel-doc.$f FAIL"
		echo "$out" | sed 's/^/    /'
		fail=1
	fi
done

# The Sphinx build of trace/, on a freshly staged tree.  -E: read every
# document again, so that warnings of unchanged files are reported too.
"$KP_TOOLS/stage.sh" ours >/dev/null
src=$(kp_src ours)
obj=$KP_BUILD/obj-docs
log=$KP_BUILD/docs-htmldocs-trace.log
mkdir -p "$obj"
kp_log "building Documentation/trace (log: $log)"
rc=0
make -C "$src" O="$obj" SPHINXDIRS=trace SPHINXOPTS="-E -q" htmldocs \
	> "$log" 2>&1 || rc=$?

# Names that make a warning ours: the document, and every file of ours the
# kernel-doc directives can pull in.
ours_re='Documentation/trace/kprobes(\.rst)?:'
ours_re+='|kernel/kprobes|kernel/kretprobes|kernel/jprobes'
ours_re+='|include/linux/(kprobes|kprobes_compat|kretprobes|jprobes)\.h'
ours_re+='|include/asm-generic/kprobes\.h'
ours_re+='|arch/x86/kernel/kprobes/|arch/x86/include/asm/kprobes\.h'
ours_re+='|arch/arm64/kernel/probes/|arch/arm64/include/asm/kprobes\.h'
bad=$(grep -Ei 'warning|error|critical' "$log" | grep -E "$ours_re" || true)
if [ $rc -ne 0 ] || [ -n "$bad" ] ||
   [ ! -f "$obj/Documentation/output/trace/kprobes.html" ]; then
	echo "DOCS htmldocs.trace FAIL"
	[ $rc -eq 0 ] || echo "    make exited with $rc (see $log)"
	[ -z "$bad" ] || echo "$bad" | sed 's/^/    /'
	fail=1
else
	echo "DOCS htmldocs.trace PASS"
fi
exit $fail
