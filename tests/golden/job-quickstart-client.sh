# g5net job for host client (client) of quickstart;
# generated from the experiment spec, run by /sbin/g5init with /g5net/lib.sh sourced.
# g5_profile_snap PREFIX: each CPU's function profile as it stands, into PREFIX<cpu>.
g5_profile_snap() {
	local f
	for f in "$G5_TRACING"/trace_stat/function*; do
		[ -e "$f" ] && cat "$f" >"$G5_OUT/$1${f##*/function}"
	done
}
# workload stream: iperf
g5_profile_start
g5_profile_snap stream.profstart
cat /proc/uptime > "$G5_OUT/stream.uptime.before"
g5_roi_begin stream stats
i=0; until nc 10.0.0.1 35001 </dev/null >/dev/null 2>&1 || [ $i -ge 120000 ]; do i=$((i + 1)); sleep 0.001; done
g5_capture stream g5_pin '' iperf -c 10.0.0.1 -P 1 --connect-retries 600 -t 3.0 -p 5001 -l 131072 -y C
g5_roi_end stream stats
cat /proc/uptime > "$G5_OUT/stream.uptime.after"
g5_profile_snap stream.prof
# workload latency: netpipe
echo 0 >"$G5_TRACING/function_profile_enabled"
cat /proc/uptime > "$G5_OUT/latency.uptime.before"
g5_roi_begin latency stats
g5_capture latency g5_retry 120 g5_pin '' NPtcp -h 10.0.0.1 -o /tmp/g5out/latency.np -l 1 -u 1024 -p 0 -n 50 -P 5002
g5_roi_end latency stats
cat /proc/uptime > "$G5_OUT/latency.uptime.after"
