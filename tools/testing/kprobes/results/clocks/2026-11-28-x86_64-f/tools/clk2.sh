. /guest/lib.sh
N=20000; R=5
for a in $(cat /proc/cmdline); do
	case $a in kpc_n=*) N=${a#kpc_n=} ;; kpc_reps=*) R=${a#kpc_reps=} ;; esac
done
insmod $KP_MOD/kp_clk.ko n=$N reps=$R
:
