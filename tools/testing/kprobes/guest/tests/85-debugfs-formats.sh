# SPDX-License-Identifier: GPL-2.0
# debugfs formats as tools read them.  kprobes/list: one probe a line,
#	ADDR  TYPE  SYMBOL+OFFSET  MODULE [FLAGS]
# (MODULE blank for the kernel's text; j, for jprobes, is ours only).
# kprobes/blacklist: one blacklisted function a line (areas such as the
# entry text show as their functions),
#	0xSTART-0xEND<TAB>SYMBOL
# And compiler-split copies of blacklisted functions (foo.cold,
# foo.constprop.N...) are refused as kprobe events.
. /guest/lib.sh
BL=$KP_DBG/blacklist
TAB=$(printf '\t')
T=/tmp/kpfmt
mkdir -p $T

# --- kprobes/blacklist
n=$(grep -cvE "^0x[0-9a-f]{16}-0x[0-9a-f]{16}${TAB}[^ ${TAB}]+( \[[^]]+\])?\$" $BL)
expect_eq format.blacklist-lines "$n" 0
grep -E '^[0-9a-f]{16} [tTwW] ' /proc/kallsyms | awk '{ print $1, "S", $3 }' > $T/ks
sed -nE "s/^0x([0-9a-f]{16})-0x([0-9a-f]{16})${TAB}([^ ]+).*/\1 B \2 \3/p" $BL > $T/bl
# One function a line: START is a symbol of that name and no other text
# symbol starts before END (addresses compare as 16-digit strings).
sort $T/ks $T/bl | awk '
function settle(addr,   i, k) {
	k = 0
	for (i = 0; i < np; i++) {
		if (ps[i] < addr) {
			if (!found[i] && ++nosym <= 3)
				print "no symbol " pn[i] " at " ps[i]
			if (pe[i] > addr && ++spans <= 3)
				print pn[i] " " ps[i] "-" pe[i] " spans " addr
			continue
		}
		ps[k] = ps[i]; pe[k] = pe[i]; pn[k] = pn[i]; found[k] = found[i]; k++
	}
	np = k
}
$2 == "B" { ps[np] = $1; pe[np] = $3; pn[np] = $4; found[np] = 0; np++; lines++; next }
{
	settle($1)
	for (i = 0; i < np; i++)
		if (ps[i] == $1 && pn[i] == $3)
			found[i] = 1
}
END {
	settle("g")
	print "lines " lines " nosym " nosym + 0 " spans " spans + 0
}' > $T/check
cat $T/check
check format.blacklist-one-function-a-line grep -q ' nosym 0 spans 0$' $T/check
# The functions of the entry and noinstr areas are listed one by one.
for area in entry noinstr; do
	s=$(awk -v n=__${area}_text_start '$3 == n { print $1; exit }' /proc/kallsyms)
	e=$(awk -v n=__${area}_text_end '$3 == n { print $1; exit }' /proc/kallsyms)
	[ -n "$s" ] && [ -n "$e" ] || { fail format.blacklist-$area "no __${area}_text_start/end"; continue; }
	awk -v s=$s -v e=$e '$1 >= s && $1 < e && $3 !~ /^__/ { print $1, $3 }' $T/ks |
		head -5 > $T/area
	[ -s $T/area ] || { fail format.blacklist-$area "no function in the area"; continue; }
	# by address: an alias at the same address may name the line
	missing=$(while read a f; do grep -q "^0x$a-" $BL || echo "$f"; done < $T/area)
	expect_eq format.blacklist-$area-functions "$missing" ""
done

# --- kprobes/list
LRE='^[0-9a-f]{16}  [krj]  ([^ ]+\+0x[0-9a-f]+  ([^ ]+| ) |0x[0-9a-f]+ )(\[GONE\])?(\[DISABLED\])?(\[OPTIMIZED\])?(\[FTRACE\])?$'
echo 'p:kpfmt_k vfs_read' >> $KP_TR/kprobe_events
echo 'r:kpfmt_r vfs_read' >> $KP_TR/kprobe_events
insmod $KP_MOD/kp_target.ko
insmod $KP_MOD/kp_probe.ko
cat $KP_DBG/list
n=$(grep -cvE "$LRE" $KP_DBG/list)
expect_eq format.list-lines "$n" 0
# kprobe events are registered disabled until enabled
check format.list-kernel-k grep -qE '^[0-9a-f]{16}  k  vfs_read\+0x[0-9a-f]+    \[DISABLED\](\[FTRACE\])?$' $KP_DBG/list
check format.list-kernel-r grep -qE '^[0-9a-f]{16}  r  vfs_read\+0x[0-9a-f]+    \[DISABLED\](\[FTRACE\])?$' $KP_DBG/list
check format.list-module grep -qE '^[0-9a-f]{16}  k  kp_target_func\+0x[0-9a-f]+  kp_target (\[OPTIMIZED\])?(\[FTRACE\])?$' $KP_DBG/list
echo 1 > $KP_TR/events/kprobes/kpfmt_k/enable
check format.list-enabled grep -qE '^[0-9a-f]{16}  k  vfs_read\+0x[0-9a-f]+    (\[OPTIMIZED\])?(\[FTRACE\])?$' $KP_DBG/list
echo 0 > $KP_TR/events/kprobes/kpfmt_k/enable
rmmod kp_probe
rmmod kp_target
echo '-:kpfmt_k' >> $KP_TR/kprobe_events
echo '-:kpfmt_r' >> $KP_TR/kprobe_events
if ours && [ -f /guest/samples/jprobe_example.ko ]; then
	insmod /guest/samples/jprobe_example.ko symbol=kernel_clone
	check format.list-jprobe grep -qE '^[0-9a-f]{16}  j  kernel_clone\+0x[0-9a-f]+    (\[OPTIMIZED\])?(\[FTRACE\])?$' $KP_DBG/list
	rmmod jprobe_example
fi

# --- compiler-split copies of blacklisted functions
cut -f2 $BL | cut -d' ' -f1 | sort -u > $T/blnames
awk 'NR == FNR { bl[$1] = 1; next }
	NF == 3 && $2 ~ /^[tT]$/ &&
	$3 ~ /\.(cold|constprop\.[0-9]+|isra\.[0-9]+|part\.[0-9]+|llvm\.[0-9]+)/ {
		base = $3; sub(/\..*/, "", base)
		if ((base in bl) && !($3 in bl)) print $3
	}' $T/blnames /proc/kallsyms | sort | uniq -u > $T/copies
# Two the compiler made, and the KUnit suite's own (ours builds it in).
{ grep -v '^kpt_' $T/copies | head -2; grep -x 'kpt_blacklisted\.part\.0' $T/copies; } > $T/try
echo "split copies of blacklisted functions: $(wc -l < $T/copies), trying: $(cat $T/try)"
if [ ! -s $T/try ]; then
	if ours; then fail format.split-copy-found "none in /proc/kallsyms"; else echo "KPTEST format.split-copy-found SKIP none"; fi
fi
while read c; do
	if echo "p:kpcopy $c" >> $KP_TR/kprobe_events 2>/dev/null; then
		fail format.split-copy-refused "$c accepted"
		echo '-:kpcopy' >> $KP_TR/kprobe_events
	else
		pass format.split-copy-refused-$c
	fi
done < $T/try
rm -rf $T
