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
