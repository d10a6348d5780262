# SPDX-License-Identifier: GPL-2.0
# Errnos of the public kprobes API for bad inputs: the KUnit suite
# kp_errno (a module; the expected values are upstream 6.12's, and the
# table is in Documentation/trace/kprobes.rst).  Runs on both flavours,
# less the steps that oops upstream 6.12 (upstream_crashes=1 on ours
# only).  The guest boots with kunit.enable=1 and a filter_glob that no
# suite matches; loading the module runs kp_errno once the glob names it.
# Each parameter of its case "errno" becomes KPTEST errno.NAME, with
# KTAP's SKIP kept a skip.
. /guest/lib.sh
KGLOB=/sys/module/kunit/parameters/filter_glob
RES=/sys/kernel/debug/kunit/kp_errno/results
if ours; then crash_steps=upstream_crashes=1; else crash_steps=; fi
old_glob=$(cat $KGLOB 2>/dev/null)
# (printf: a charp parameter keeps a trailing newline)
printf kp_errno > $KGLOB
if ! insmod $KP_MOD/kp_errno.ko $crash_steps; then
	fail errno.load
	printf %s "$old_glob" > $KGLOB
	return 0 2>/dev/null || exit 0
fi
printf %s "$old_glob" > $KGLOB
if [ ! -r $RES ]; then
	fail errno.ran "(no $RES: did KUnit run the suite?)"
else
	# The failures' diagnostics first (KUnit's "Expected ..." lines).
	grep -E '^\s+# .*(Expected|got)' $RES | head -20
	# "    ok N NAME" / "    not ok N NAME" / "... # SKIP why": the
	# parameters of case errno (indented) and the plain cases.
	awk '
	/^[ \t]+(not )?ok [0-9]+ / || /^(not )?ok [0-9]+ / {
		line = $0
		sub(/^[ \t]+/, "", line)
		res = "PASS"
		if (line ~ /^not ok/) { res = "FAIL"; sub(/^not /, "", line) }
		sub(/^ok [0-9]+ /, "", line)
		why = ""
		if (match(line, / # SKIP.*/)) {
			why = substr(line, RSTART + 8)
			sub(/^ +/, "", why)
			line = substr(line, 1, RSTART - 1)
			res = "SKIP"
		}
		# the suite and the case "errno" summarise their parameters
		if (line == "kp_errno" || line == "kpe_errno")
			next
		if (res == "SKIP")
			printf "KPTEST errno.%s SKIP (%s)\n", line, why
		else
			printf "KPTEST errno.%s %s\n", line, res
	}' $RES
	# A skip is reported as a skip, never as a pass; no case at all fails.
	grep -qE '^[ \t]+ok [0-9]+ addr\.heap' $RES || fail errno.ran "(no addr.heap in $RES)"
fi
check errno.unload rmmod kp_errno
