# SPDX-License-Identifier: GPL-2.0
# debugfs interface: list, enabled, blacklist.
. /guest/lib.sh
check debugfs.list-exists test -r $KP_DBG/list
check debugfs.enabled-is-1 grep -qx 1 $KP_DBG/enabled
check debugfs.blacklist-nonempty grep -q . $KP_DBG/blacklist
# notify_die is NOKPROBE_SYMBOL in kernel/notifier.c
check debugfs.blacklist-has-notify_die grep -q '[[:space:]]notify_die$' $KP_DBG/blacklist
# addresses are shown to root
check debugfs.blacklist-addresses grep -qv '^0x0000000000000000' $KP_DBG/blacklist
