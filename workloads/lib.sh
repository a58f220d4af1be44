# /g5net/lib.sh: the functions a g5net job script may call (workloads/README.md,
# section 3). g5init sources it, then the job, in one busybox `sh`, with the
# working directory /tmp and these variables exported:
#   G5_OUT     every file left here becomes one result item (/tmp/g5out)
#   G5_ENGINE  qemu | gem5
#   G5_HOST, G5_ROLE, G5_IP   from the kernel command line
#
# Servers and clients, as the Debian 12 programs in the image behave (checked
# on the real binaries; the job generator relies on it):
#
# iperf 2.1.8
#   Server: `timeout SECS iperf -s -P N` serves N client connections (iperf -c
#     -P N opens N), then exits 0, so the next workload of the job can start.
#     Without -P it serves forever. `-1` only serializes clients and `-t` only
#     bounds listening plus traffic: neither ends it after one client.
#     Wrap every server in busybox `timeout` (`timeout SECS CMD...`, status 124
#     when it fired): a client that never comes must not stall the job.
#   Client: `iperf -c HOST` exits 0 even when it cannot connect (it prints
#     "connect failed: Connection refused" and no bandwidth line), so
#     g5_retry cannot wait for its server. Use `iperf -c HOST
#     --connect-retries N` instead: it retries the connect N times, about five
#     times per second, and then runs the test.
# iperf3 3.12
#   Server: `timeout SECS iperf3 -s -1` exits 0 after one client test.
#   Client: `iperf3 -c HOST` exits 1 when it cannot connect, but with -J it
#     exits 0 and reports the failure as the JSON's top-level "error": use
#     `g5_retry SECS g5_json_ok iperf3 -c HOST -J ...`.
# NPtcp (NetPIPE 3.7.2)
#   Receiver: `timeout SECS NPtcp` (no -h) serves one transmitter and exits
#     after its run, with status 3 and "NetPIPE: error writing or reading
#     synchronization string: Connection reset by peer" on stderr: that is
#     how it always ends, not a failure.
#   Transmitter: `NPtcp -h HOST -o $G5_OUT/NAME.np` exits non-zero when it
#     cannot connect: use g5_retry. Without -o it writes np.out into the
#     working directory.
# Several NICs: iperf and iperf3 servers of one workload share its port, each
#   bound with `-B ADDR` to its own NIC's address; one instance per NIC runs
#   in the background (`&`) and the job `wait`s for all of them.
# A client must only connect once its server listens; the server's guest may
# boot later than the client's, so every client waits with g5_retry or
# --connect-retries.

: "${G5_OUT:=/tmp/g5out}"
G5_TRACING=/sys/kernel/tracing

# g5_capture NAME CMD...: stdout -> NAME.out, stderr -> NAME.err, status ->
# NAME.rc; returns CMD's status.
g5_capture() {
	local name=$1 rc
	shift
	"$@" >"$G5_OUT/$name.out" 2>"$G5_OUT/$name.err"
	rc=$?
	echo "$rc" >"$G5_OUT/$name.rc"
	return "$rc"
}

# g5_retry SECONDS CMD...: reruns CMD every 0.2 s until it exits 0 or SECONDS
# pass. Only the last attempt's stdout and stderr are passed on, so a client's
# result holds its run, not its connection failures. Returns the last status.
# Its files are its own: clients of several NICs retry at once, in background
# subshells, where $$ is still the job's shell.
g5_retry() {
	local deadline rc tmp
	tmp=$(mktemp /tmp/g5_retry.XXXXXX) || return 1
	deadline=$(($(date +%s) + $1))
	shift
	while :; do
		"$@" >"$tmp.out" 2>"$tmp.err"
		rc=$?
		if [ "$rc" -eq 0 ] || [ "$(date +%s)" -ge "$deadline" ]; then
			cat "$tmp.out"
			cat "$tmp.err" >&2
			rm -f "$tmp" "$tmp.out" "$tmp.err"
			return "$rc"
		fi
		sleep 0.2
	done
}

# g5_json_ok CMD...: runs CMD, whose stdout is a JSON report (iperf3 -J);
# fails when CMD does or when the report holds a top-level "error", so that
# g5_retry waits for a server that is not listening yet.
g5_json_ok() {
	local tmp rc
	tmp=$(mktemp /tmp/g5_json_ok.XXXXXX) || return 1
	"$@" >"$tmp"
	rc=$?
	cat "$tmp"
	if [ "$rc" -eq 0 ] && grep -q "^$(printf '\t')\"error\":" "$tmp"; then
		rc=1
	fi
	rm -f "$tmp"
	return "$rc"
}

# g5_snapshot TAG: the kernel's CPU, interrupt and network counters at this
# instant, as TAG.stat, TAG.interrupts, TAG.softirqs, TAG.snmp, TAG.netstat
# (TcpExt: retransmissions, drops), TAG.dev, TAG.softnet_stat.
g5_snapshot() {
	local f
	for f in stat interrupts softirqs net/snmp net/netstat net/dev net/softnet_stat; do
		cat "/proc/$f" >"$G5_OUT/$1.${f#net/}"
	done
}

# g5_roi_begin NAME [stats] / g5_roi_end NAME [stats]: a region of interest.
# With `stats`, gem5's statistics (one set for the whole simulation, every
# host's) are reset after the first snapshot and dumped before the second, so
# the snapshots themselves stay out of the region; one host of a run passes
# it, so each region is one dump (m5 does nothing under QEMU).
g5_roi_begin() {
	g5_snapshot "$1.before"
	if [ "$2" = stats ]; then
		m5 resetstats
	fi
}

g5_roi_end() {
	if [ "$2" = stats ]; then
		m5 dumpstats
	fi
	g5_snapshot "$1.after"
}

# g5_profile_start / g5_profile_stop NAME: ftrace's function profiler; each
# CPU's table (hits, and time because the graph tracer is built in) becomes
# NAME.prof<cpu>. Enabling the profiler resets its tables.
g5_profile_start() {
	if [ ! -e "$G5_TRACING/function_profile_enabled" ]; then
		echo "g5_profile_start: no $G5_TRACING/function_profile_enabled (kernel without FUNCTION_PROFILER?)" >&2
		return 1
	fi
	# Self time only: without these a caller's time includes its callees' and
	# the time its task slept, and the category breakdown counts time twice.
	echo 0 >"$G5_TRACING/options/graph-time" 2>/dev/null
	echo 0 >"$G5_TRACING/options/sleep-time" 2>/dev/null
	echo 0 >"$G5_TRACING/function_profile_enabled"
	echo 1 >"$G5_TRACING/function_profile_enabled"
}

g5_profile_stop() {
	local f
	echo 0 >"$G5_TRACING/function_profile_enabled" || return 1
	for f in "$G5_TRACING"/trace_stat/function*; do
		[ -e "$f" ] || continue
		cat "$f" >"$G5_OUT/$1.prof${f##*/function}"
	done
}

# g5_pin CPUS CMD...: runs CMD on the CPU list CPUS ("0", "1-3", "0,2");
# an empty CPUS runs it unpinned.
g5_pin() {
	local cpus=$1
	shift
	if [ -z "$cpus" ]; then
		"$@"
	else
		taskset -c "$cpus" "$@"
	fi
}

# g5_irq_affinity CPUS [DEV]: steers DEV's interrupt (eth0's by default) to
# the CPU list CPUS.
g5_irq_affinity() {
	local irq dev=${2:-eth0}
	irq=$(awk -v dev="$dev" '$NF == dev { sub(":", "", $1); print $1; exit }' /proc/interrupts)
	if [ -z "$irq" ]; then
		echo "g5_irq_affinity: $dev has no line in /proc/interrupts" >&2
		return 1
	fi
	if [ ! -e "/proc/irq/$irq/smp_affinity_list" ]; then
		echo "g5_irq_affinity: no /proc/irq/$irq/smp_affinity_list (uniprocessor kernel?)" >&2
		return 1
	fi
	echo "$1" >"/proc/irq/$irq/smp_affinity_list"
}

# g5_rsh_listen CPUS PORT SECS: serves one remote command for Open MPI's
# launcher on another host (/g5net/g5rsh), on the CPU list CPUS; the command
# (orted, and the rank it starts) inherits that list. Ends when the command
# does, or after SECS with status 124 when no launcher came.
g5_rsh_listen() {
	g5_pin "$1" timeout "$3" nc -l -p "$2" -e /g5net/g5rsh --serve
}

# g5_web_files DIR SIZE...: DIR/f1, DIR/f2, ... of those sizes, for httpd.
g5_web_files() {
	local dir=$1 k=1 size
	shift
	mkdir -p "$dir" || return 1
	for size in "$@"; do
		head -c "$size" /dev/zero >"$dir/f$k" || return 1
		k=$((k + 1))
	done
}

# g5_web_serve CPUS PORT DONE SECS DIR: busybox httpd serves DIR on PORT (on
# the CPU list CPUS) until its client connects to DONE to say it has finished,
# or SECS pass (status 124).
g5_web_serve() {
	local cpus=$1 port=$2 done=$3 limit=$4 dir=$5 pid rc
	# taskset execs httpd, so $! is httpd itself.
	if [ -n "$cpus" ]; then
		taskset -c "$cpus" httpd -f -p "$port" -h "$dir" &
	else
		httpd -f -p "$port" -h "$dir" &
	fi
	pid=$!
	timeout "$limit" nc -l -p "$done" </dev/null >/dev/null
	rc=$?
	kill "$pid"
	wait "$pid" 2>/dev/null
	return "$rc"
}

# g5_web_get HOST PORT DONE SECS CMD...: waits up to SECS for HOST's httpd on
# PORT (one request for /f1), runs CMD (wrk), then tells the server it is
# done on port DONE. Returns CMD's status.
g5_web_get() {
	local host=$1 port=$2 done=$3 wait=$4 rc
	shift 4
	g5_retry "$wait" wget -q -O /dev/null "http://$host:$port/f1" || return 1
	"$@"
	rc=$?
	g5_retry 30 nc "$host" "$done" </dev/null >/dev/null
	return "$rc"
}
