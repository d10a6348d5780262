# guest script (used as clk3.sh, KPC_MODE=clk3): where kprobe_bench lies, and its functions
. /guest/lib.sh
insmod $KP_MOD/kprobe_bench.ko
cat /proc/modules
grep -i ' t \| T ' /proc/kallsyms | awk '$1 ~ /^ffffffffc0/' | sort | head -40
echo CLKRES done
