# g5net job for host server (server) of quickstart;
# generated from the experiment spec, run by /sbin/g5init with /g5net/lib.sh sourced.
# workload stream: iperf
cat /proc/uptime > "$G5_OUT/stream.uptime.before"
g5_roi_begin stream
g5_profile_start
timeout 123 nc -l -p 35001 </dev/null >/dev/null &
g5_capture stream g5_pin '' timeout 123 iperf -s -P 1 -p 5001 -l 131072 -y C
g5_profile_stop stream
g5_roi_end stream
cat /proc/uptime > "$G5_OUT/stream.uptime.after"
# workload latency: netpipe
cat /proc/uptime > "$G5_OUT/latency.uptime.before"
g5_roi_begin latency
g5_capture latency g5_pin '' timeout 240 NPtcp -l 1 -u 1024 -p 0 -n 50 -P 5002
g5_roi_end latency
cat /proc/uptime > "$G5_OUT/latency.uptime.after"
