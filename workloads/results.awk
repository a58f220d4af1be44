# /g5net/results.awk: prints the results block's JSON line (README section
# 2.6) for the files named as arguments, item names being their base names.
#   awk -f results.awk -v host=H -v role=R -v engine=E -v rc=N FILE...
# Each file is read whole: RS is \001, a byte text files do not hold (should
# one appear it is put back as \u0001), then split into lines, each escaped
# and printed at once: building one string per file costs quadratic time,
# minutes for a 1 MB profile even on a fast host. Escaping is split-and-join,
# so awks' differing gsub backslash rules do not matter. Bytes >= 0x80 pass
# through unchanged; a NUL byte ends a record's text (awk strings are C
# strings).
function join(s, sep, with,    parts, n, i, out) {
	n = split(s, parts, sep)
	out = parts[1]
	for (i = 2; i <= n; i++)
		out = out with parts[i]
	return out
}
# Separators are strings: a /regex/ argument to a function would be matched
# against $0 instead.
function esc(s,    c) {
	if (s !~ special)
		return s
	s = join(s, "\\\\", "\\\\")
	s = join(s, "\"", "\\\"")
	s = join(s, "\r", "\\r")
	s = join(s, "\t", "\\t")
	if (s ~ ctl)
		for (c = 1; c < 32; c++)
			s = join(s, sprintf("%c", c), sprintf("\\u%04x", c))
	return s
}
# Prints s escaped, its newlines as \n.
function put_lines(s,    lines, n, i) {
	n = split(s, lines, "\n")
	for (i = 1; i <= n; i++)
		printf "%s%s", (i > 1 ? "\\n" : ""), esc(lines[i])
}
BEGIN {
	ctl = sprintf("[%c-%c]", 1, 31)
	special = "[\\\\\"" sprintf("%c-%c", 1, 31) "]"
	RS = sprintf("%c", 1)
	printf "{\"host\": \"%s\", \"role\": \"%s\", \"engine\": \"%s\", \"job_rc\": %d, \"items\": {", \
		esc(host), esc(role), esc(engine), rc
	for (i = 1; i < ARGC; i++) {
		path = ARGV[i]
		name = path
		sub(/.*\//, "", name)
		printf "%s\"%s\": \"", (i > 1 ? ", " : ""), esc(name)
		n = 0
		while ((getline chunk < path) > 0) {
			if (n++)
				printf "\\u0001"
			put_lines(chunk)
		}
		close(path)
		printf "\""
	}
	print "}}"
}
