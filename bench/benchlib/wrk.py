"""wrk runs: a Lua script for the POST, and a done() hook that prints the figures as JSON."""

import json
import os
import subprocess

from .procs import BenchError
from . import wire

LUA = """-- POST a small non-stream chat completion; print the figures for bench/run.
wrk.method = "POST"
wrk.path = "{path}"
wrk.body = {body}
{headers}
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {{"requests":%d,"duration_us":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,' ..
    '"errors":%d,"non2xx":%d}}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), e.connect + e.read + e.write + e.timeout, e.status))
end
"""


def lua_quote(data):
    return '"' + "".join(f"\\{b:03d}" if (b < 32 or b > 126 or b in (34, 92)) else chr(b)
                         for b in data) + '"'


def write_script(path, body, extra_headers=None, url_path=wire.PATH, all_headers=None):
    """`all_headers` replaces the Chat request's headers (wire.headers) whole."""
    fields = all_headers if all_headers is not None else wire.headers(extra_headers)
    header_lines = "\n".join(f'wrk.headers["{k}"] = {lua_quote(v.encode())}'
                             for k, v in fields.items())
    with open(path, "w") as f:
        f.write(LUA.format(path=url_path, body=lua_quote(body), headers=header_lines))
    return path


def run(wrk, script, url, connections, seconds, threads=None):
    """One wrk run; returns a dict with rps, p50_us, p90_us, p99_us, errors, non2xx."""
    threads = threads or min(connections, 2)
    args = [wrk, f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--timeout", "5s",
            "-s", script, url]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=seconds + 30)
    for line in proc.stdout.splitlines():
        if line.startswith("WRKJSON "):
            r = json.loads(line[len("WRKJSON "):])
            r["rps"] = r["requests"] / (r["duration_us"] / 1e6) if r["duration_us"] else 0.0
            return r
    raise BenchError(f"wrk printed no result for {url}:\n{proc.stdout}\n{proc.stderr}")
