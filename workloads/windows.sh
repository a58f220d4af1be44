# g5_window_snap TAG: the /proc files of g5_snapshot, and /proc/uptime, into
# TAG.proc, each file under a "==> FILE <==" line: one process, where
# g5_snapshot starts seven, since under gem5 every process started inside a
# window is work the window measures.
g5_window_snap() {
	head -n 100000 /proc/uptime /proc/stat /proc/interrupts /proc/softirqs /proc/net/snmp \
		/proc/net/netstat /proc/net/dev /proc/net/softnet_stat >"$G5_OUT/$1.proc"
}
# g5_windows_arm DELAY_NS WINDOW_NS: gem5's statistics reset now, then dumped
# DELAY_NS from now and every WINDOW_NS after that, without another reset:
# window k is dump k less dump k-1 (g5net/metrics/gem5.py), so every window
# lasts exactly WINDOW_NS. (Counters need the reset: gem5 derives a simple
# CPU's idle cycles from an average since the last reset, and its cycle
# count would otherwise go back further.) One call for every dump, made
# before the window opens: gem5 repeats the dump until the simulation ends
# (stat_control.cc has no way to stop it), and the dumps after the last
# window belong to no window.
g5_windows_arm() {
	m5 resetstats
	m5 dumpstats "$1" "$2"
}
