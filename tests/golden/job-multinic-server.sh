# g5net job for host server (server) of quickstart;
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
g5_roi_begin stream
timeout 123 nc -l -p 35001 </dev/null >/dev/null &
timeout 123 nc -l -p 35002 </dev/null >/dev/null &
g5_capture stream g5_pin '' timeout 123 iperf -s -P 1 -p 5001 -l 131072 -y C &
g5_capture stream.nic1 g5_pin '' timeout 123 iperf -s -P 1 -p 5002 -l 131072 -y C &
wait
g5_roi_end stream
cat /proc/uptime > "$G5_OUT/stream.uptime.after"
g5_profile_region stream
# workload latency: netpipe
echo 0 >"$G5_TRACING/function_profile_enabled"
cat /proc/uptime > "$G5_OUT/latency.uptime.before"
g5_roi_begin latency
g5_capture latency g5_pin '' timeout 240 NPtcp -l 1 -u 1024 -p 0 -n 50 -P 5003
g5_roi_end latency
cat /proc/uptime > "$G5_OUT/latency.uptime.after"
# workload stream3: iperf3
cat /proc/uptime > "$G5_OUT/stream3.uptime.before"
g5_roi_begin stream3
g5_capture stream3 g5_pin '' timeout 122 iperf3 -s -1 -p 5004 -J &
g5_capture stream3.nic1 g5_pin '' timeout 122 iperf3 -s -1 -p 5005 -J &
wait
g5_roi_end stream3
cat /proc/uptime > "$G5_OUT/stream3.uptime.after"
