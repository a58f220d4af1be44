# g5net job for host client (client) of quickstart;
# generated from the experiment spec, run by /sbin/g5init with /g5net/lib.sh sourced.
# g5_profile_snap NAME: each CPU's function profile as it stands, into NAME.profstart<cpu>.
g5_profile_snap() {
	local f
	for f in "$G5_TRACING"/trace_stat/function*; do
		[ -e "$f" ] && cat "$f" >"$G5_OUT/$1.profstart${f##*/function}"
	done
}
# g5_profile_region NAME: each CPU's rows that changed since g5_profile_snap NAME,
# into NAME.prof<cpu>, keeping only those rows' earlier values: the functions
# the region called, not the thousands it did not, which the console would
# otherwise carry to the host (minutes of host time each under gem5).
g5_profile_region() {
	local f before after
	for f in "$G5_TRACING"/trace_stat/function*; do
		[ -e "$f" ] || continue
		before=$G5_OUT/$1.profstart${f##*/function}
		after=$G5_OUT/$1.prof${f##*/function}
		cat "$f" >/tmp/g5prof
		awk 'NR == FNR { seen[$0]; next } !($0 in seen)' "$before" /tmp/g5prof >"$after"
		awk 'NR == FNR { called[$1]; next } $1 in called' "$after" "$before" >/tmp/g5prof
		mv /tmp/g5prof "$before"
	done
}
# workload stream: iperf
g5_profile_start
g5_profile_snap stream
cat /proc/uptime > "$G5_OUT/stream.uptime.before"
g5_roi_begin stream stats
i=0; until nc 10.0.0.1 35001 </dev/null >/dev/null 2>&1 || [ $i -ge 120000 ]; do i=$((i + 1)); sleep 0.001; done
g5_capture stream g5_pin '' iperf -c 10.0.0.1 -P 1 --connect-retries 600 -t 3.0 -p 5001 -l 131072 -y C
g5_roi_end stream stats
cat /proc/uptime > "$G5_OUT/stream.uptime.after"
g5_profile_region stream
# workload latency: netpipe
echo 0 >"$G5_TRACING/function_profile_enabled"
cat /proc/uptime > "$G5_OUT/latency.uptime.before"
g5_roi_begin latency stats
g5_capture latency g5_retry 120 g5_pin '' NPtcp -h 10.0.0.1 -o /tmp/g5out/latency.np -l 1 -u 1024 -p 0 -n 50 -P 5002
g5_roi_end latency stats
cat /proc/uptime > "$G5_OUT/latency.uptime.after"
