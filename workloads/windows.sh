# g5_window_snap TAG: the /proc counters of g5_snapshot that a region's
# figures use, and /proc/uptime, into TAG.proc, each file under a "==> FILE
# <==" line: one process, where g5_snapshot starts seven, since under gem5
# every process started inside a window is work the window measures.
g5_window_snap() {
	head -n 100000 /proc/uptime /proc/stat /proc/interrupts /proc/softirqs /proc/net/snmp \
		/proc/net/dev >"$G5_OUT/$1.proc"
}
# g5_windows_arm GAP_NS WINDOW_NS N: gem5's statistics reset GAP_NS from now,
# then dumped WINDOW_NS, 2 x WINDOW_NS, ... N x WINDOW_NS after that, each
# dump holding everything since the reset (g5net takes each window as the
# difference of two dumps). Each call counts from its own start, so a window
# lasts WINDOW_NS plus one call's time; the dumps' ticks say exactly. One-shot
# dumps, because gem5 never stops a periodic one (stat_control.cc).
g5_windows_arm() {
	local k=1
	m5 resetstats "$1"
	while [ "$k" -le "$3" ]; do
		m5 dumpstats $(($1 + k * $2))
		k=$((k + 1))
	done
}
