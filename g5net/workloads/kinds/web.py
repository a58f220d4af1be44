"""A web server and its load: busybox httpd serves files of the spec's sizes,
wrk 4.1.0 requests them for whole seconds, file k with probability
proportional to 1/k^zipf_exponent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import GuestError, SpecError, quoted
from ...spec import Spec, Workload
from ..kind import WorkloadKind
from ..shell import CLIENT_RETRY_S, cpu_list, pinned, quote, server_limit_s

if TYPE_CHECKING:
    from ..flows import Instance

# A web client tells its server it is done on the flow's port plus this, so the
# server's region ends with the client's rather than at a timeout.
DONE_PORT_OFFSET = 20000
# A web server keeps its files in the guest's memory (tmpfs): at most this
# share of the server's memory.
FILES_MEMORY_SHARE = 0.25


class Web(WorkloadKind):
    name = "web"

    def check(self, spec: Spec, w: Workload, key: str) -> None:
        super().check(spec, w, key)
        if not w.file_bytes or not all(isinstance(b, int) and not isinstance(b, bool) and b > 0
                                       for b in w.file_bytes):
            raise SpecError(f"{key}.file_bytes: expected a list of positive byte counts, got "
                            f"{quoted(w.file_bytes)}")
        if w.bytes or w.duration_s < 1 or w.duration_s != int(w.duration_s):
            raise SpecError(f"{key}.duration_s: web runs wrk for whole seconds (1 or more; bytes "
                            f"is not used), got duration_s = {w.duration_s}, bytes = {w.bytes}")
        for server in spec.servers:
            room = int(server.memory_mb * 2**20 * FILES_MEMORY_SHARE)
            if sum(w.file_bytes) > room:
                raise SpecError(f"{key}.file_bytes: {sum(w.file_bytes)} bytes of files do not fit "
                                f"a quarter of hosts.{server.name}'s memory ({room} bytes)")

    def setup(self, w: Workload, inst: Instance) -> list[str]:
        """Outside the region: the server's files, the client's wrk script."""
        if inst.serves:
            sizes = " ".join(str(b) for b in w.file_bytes)
            return [f"g5_web_files {_files_dir(inst)} {sizes}"]
        return [f"cat >/tmp/{inst.item}.lua <<'G5NET_LUA'", wrk_script(w), "G5NET_LUA"]

    def command(self, w: Workload, inst: Instance) -> str:
        done = inst.port + DONE_PORT_OFFSET
        if inst.serves:
            args = [cpu_list(inst.cpus), inst.port, done, server_limit_s(w), _files_dir(inst)]
            return f"g5_capture {inst.item} g5_web_serve {quote(args)}"
        ip = inst.peer.nic_ip(inst.flow.nic)
        cmd = ["wrk", "-t", 1, "-c", w.connections, "-d", f"{int(w.duration_s)}s", "--timeout", "10s",
               "-s", f"/tmp/{inst.item}.lua", f"http://{ip}:{inst.port}/"]
        return (f"g5_capture {inst.item} g5_web_get {ip} {inst.port} {done} {CLIENT_RETRY_S} "
                f"{pinned(inst, cmd)}")

    def measure(self, items: dict[str, str], inst: Instance) -> dict[str, Any]:
        # Only wrk measures; the server just answers.
        if inst.serves:
            return {}
        return parse_wrk(items.get(f"{inst.item}.out", ""))


def _files_dir(inst: Instance) -> str:
    return f"/tmp/www-{inst.item}"


def wrk_script(w: Workload) -> str:
    """wrk's Lua: each request picks file k with probability 1/k^s (normalised),
    from a fixed seed; `done` prints the summary parse_wrk reads."""
    count = len(w.file_bytes)
    weights = [1.0 / k ** w.zipf_exponent for k in range(1, count + 1)]
    total, acc, cdf = sum(weights), 0.0, []
    for x in weights:
        acc += x / total
        cdf.append(f"{acc:.9f}")
    cdf[-1] = "1"
    paths = ", ".join(f'"/f{k}"' for k in range(1, count + 1))
    return f"""local paths = {{{paths}}}
local cdf = {{{", ".join(cdf)}}}
math.randomseed(1)
request = function()
  local r = math.random()
  for i = 1, #cdf do
    if r <= cdf[i] then return wrk.format("GET", paths[i]) end
  end
end
done = function(s, latency, requests)
  local e = s.errors
  io.write(string.format("G5WRK requests=%d duration_us=%d bytes=%d errors=%d "
    .. "lat_mean_us=%.3f lat_p50_us=%d lat_p99_us=%d lat_max_us=%d\\n",
    s.requests, s.duration, s.bytes, e.connect + e.read + e.write + e.status + e.timeout,
    latency.mean, latency:percentile(50), latency:percentile(99), latency.max))
end"""


def parse_wrk(text: str) -> dict[str, Any]:
    """The summary line wrk_script's `done` prints."""
    line = next((l for l in text.splitlines() if l.startswith("G5WRK ")), None)
    if line is None:
        raise GuestError("wrk printed no summary (G5WRK line)")
    f = {k: float(v) for k, v in (kv.split("=", 1) for kv in line.split()[1:])}
    seconds = f["duration_us"] / 1e6
    if f["requests"] == 0 or seconds <= 0:
        raise GuestError(f"wrk completed no request ({int(f['errors'])} errors)")
    return {
        "requests": int(f["requests"]),
        "requests_per_s": f["requests"] / seconds,
        "throughput_mbps": f["bytes"] * 8 / seconds / 1e6,
        "latency_us": f["lat_mean_us"],
        "latency_p50_us": f["lat_p50_us"],
        "latency_p99_us": f["lat_p99_us"],
        "latency_max_us": f["lat_max_us"],
        "errors": int(f["errors"]),
        "duration_s": seconds,
    }


KIND = Web()
