# SPDX-License-Identifier: GPL-2.0
# uprobe events (kernel/trace/trace_uprobe.c, unchanged) on a user binary:
# a copy of busybox, probed at its ELF entry point (run once per exec),
# and on arm64 also at the first BL after it (the call into the C
# library's start, also once per exec), which uprobes emulates with our
# decoder's handler instead of stepping it.
. /guest/lib.sh
ev=$KP_TR/uprobe_events
# (busybox runs as busybox when its name starts so)
bb=/tmp/busybox-kpu
runs=5

# u64 / u32 / u16 little-endian at byte offset $2 of file $1, in decimal
rd8() { echo $((0x$(od -An -tx8 -j "$2" -N 8 "$1" | tr -d ' '))); }
rd4() { echo $((0x$(od -An -tx4 -j "$2" -N 4 "$1" | tr -d ' '))); }
rd2() { echo $((0x$(od -An -tx2 -j "$2" -N 2 "$1" | tr -d ' '))); }

# file offset of virtual address $2 in ELF file $1 (its executable PT_LOAD)
vaddr_to_off() {
	phoff=$(rd8 "$1" 32)
	phentsize=$(rd2 "$1" 54)
	phnum=$(rd2 "$1" 56)
	i=0
	while [ $i -lt "$phnum" ]; do
		ph=$((phoff + i * phentsize))
		type=$(rd4 "$1" $ph)
		flags=$(rd4 "$1" $((ph + 4)))
		off=$(rd8 "$1" $((ph + 8)))
		va=$(rd8 "$1" $((ph + 16)))
		sz=$(rd8 "$1" $((ph + 32)))
		if [ "$type" = 1 ] && [ $((flags & 1)) = 1 ] &&
		   [ "$2" -ge "$va" ] && [ "$2" -lt $((va + sz)) ]; then
			echo $(($2 - va + off))
			return 0
		fi
		i=$((i + 1))
	done
	return 1
}

# hits of uprobe event $1 in uprobe_profile ("file event hits")
uhits() { awk -v e="$1" '$2 == e { print $3 }' $KP_TR/uprobe_profile; }

if ! [ -w "$ev" ]; then
	fail uprobes.available "no $ev (CONFIG_UPROBE_EVENTS)"
	exit 0
fi
pass uprobes.available
cp /bin/busybox $bb
chmod +x $bb
entry=$(rd8 $bb 24)
eoff=$(vaddr_to_off $bb "$entry")
if [ -z "$eoff" ]; then
	fail uprobes.elf-entry "no executable PT_LOAD holds entry $entry"
	exit 0
fi
pass uprobes.elf-entry
echo > $KP_TR/trace
check uprobes.add-entry sh -c "echo 'p:kpu/entry $bb:$(printf 0x%x "$eoff")' >> $ev"

bloff=
if [ "$KP_ARCH" = aarch64 ]; then
	# the first BL in the 64 instructions from the entry
	w=0
	while [ $w -lt 64 ]; do
		insn=$(rd4 $bb $((eoff + 4 * w)))
		if [ $((insn & 0xfc000000)) = $((0x94000000)) ]; then
			bloff=$((eoff + 4 * w))
			break
		fi
		w=$((w + 1))
	done
	if [ -n "$bloff" ]; then
		check uprobes.add-bl sh -c "echo 'p:kpu/bl $bb:$(printf 0x%x $bloff)' >> $ev"
	else
		fail uprobes.add-bl "no BL after the entry point"
	fi
fi

echo 1 > $KP_TR/events/kpu/enable
i=0
out=
while [ $i -lt $runs ]; do
	out=$out$($bb echo x)
	i=$((i + 1))
done
echo 0 > $KP_TR/events/kpu/enable
# the probed program still runs correctly
expect_eq uprobes.program-output "$out" xxxxx
expect_eq uprobes.entry-hits "$(uhits entry)" $runs
expect_eq uprobes.entry-trace "$(grep -c 'entry:' $KP_TR/trace)" $runs
if [ -n "$bloff" ]; then
	expect_eq uprobes.bl-hits "$(uhits bl)" $runs
fi
# disabled: no more hits
$bb true
expect_eq uprobes.disabled-silent "$(uhits entry)" $runs
check uprobes.remove sh -c "echo > $ev"
check uprobes.list-clean sh -c "! grep -q kpu $ev"
rm -f $bb
