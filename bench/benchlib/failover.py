"""8. Failover on a 429: llmux in front of a 429-answering upstream ("storm") and a healthy one
("fallback"), both run by llmux-failover-bench (bench/tools/), which also sends the requests and
times 429 written -> fallback request arrived on one monotonic clock."""

import os

from . import procs
from .stats import fmt, table

# The product requirement: the next candidate's request is on the wire within 1 ms of the 429.
TARGET_US = 1000.0


def channels(storm_port, fallback_port):
    """Two channels serving model m: the storm first (priority 10, no breaker, so every request
    meets its 429), then the fallback."""
    return f"""  - name: storm
    protocol: openai-chat
    base_url: "http://127.0.0.1:{storm_port}"
    keys: [k1]
    models: [m]
    priority: 10
    breaker: off
  - name: fallback
    protocol: openai-chat
    base_url: "http://127.0.0.1:{fallback_port}"
    keys: [k2]
    models: [m]
    priority: 0
"""


def run(llmux, tool, plan, tmp, log, services):
    """Starts llmux (into `services`, which the caller stops) and runs the tool; returns its JSON
    report plus the configuration used."""
    storm_port, fallback_port = procs.free_port(), procs.free_port()
    workdir = os.path.join(tmp, "failover")
    services["llmux-failover"] = procs.start_llmux(
        llmux, workdir, "llmux-failover", None, 2, "off", request_log=False,
        channels=channels(storm_port, fallback_port), key_options="strategy: sequential")
    gateway = services["llmux-failover"]
    out = os.path.join(workdir, "failover.json")
    args = [tool, "--gateway", gateway.address, "--key", "sk-bench", "--model", "m",
            "--storm-port", str(storm_port), "--fallback-port", str(fallback_port),
            "--requests", str(plan.failover_requests), "--warmup", str(plan.failover_warmup),
            "--json", out]
    result, _ = procs.run_json_tool(args, out, gateway, "failover")
    log(f"  {result['samples']} failed over of {result['requests']}, "
        f"gap p50 {result['p50_us']:.1f} us, p99 {result['p99_us']:.1f} us")
    gateway.stop()
    del services["llmux-failover"]
    return result


def section(r):
    """The figure and its verdicts (Markdown)."""
    rows = []
    for p in ("p50", "p99"):
        measured = r[f"{p}_us"]
        ok = r["samples"] > 0 and r["not_failed_over"] == 0 and measured <= TARGET_US
        rows.append([f"429 -> fallback request {p}", f"{measured:,.1f} us",
                     f"<= {TARGET_US:,.0f} us", "PASS" if ok else "MISS",
                     f"{TARGET_US - measured:+,.1f} us"])
    phases = r["phases_p50_us"]
    conns = r["connections"]
    figures = table(
        ["samples", "not failed over", "p50 us", "p90 us", "p99 us", "max us", "min us",
         "from write start p50 / p99 / max us", "client p50 us", "client p99 us"],
        [[str(r["samples"]), str(r["not_failed_over"]), fmt(r["p50_us"], 1), fmt(r["p90_us"], 1),
          fmt(r["p99_us"], 1), fmt(r["max_us"], 1), fmt(r["min_us"], 1),
          f"{fmt(r['from_write_start_p50_us'], 1)} / {fmt(r['from_write_start_p99_us'], 1)} / "
          f"{fmt(r['from_write_start_max_us'], 1)}",
          fmt(r["client_p50_us"], 1), fmt(r["client_p99_us"], 1)]])
    errors = ", ".join(f"{n} x {kind}" for kind, n in r["error_kinds"].items()) or "none"
    return "\n".join([
        f"## 8. Failover on a 429 (llmux-failover-bench; {r['requests']} non-stream requests one "
        f"at a time after {r['warmup']} unrecorded, strategy sequential: storm channel with "
        "breaker off, then the fallback)",
        "",
        "gap = the fallback upstream's first read of the request - the storm upstream's 429 "
        "write() returned (one CLOCK_MONOTONIC, one process; loopback delivery of the 429 to "
        "llmux, a few us, is inside it). On loopback the write() itself wakes llmux, which may "
        "run on the storm thread's core before the write() returns: that sample looks shorter "
        f"(negative ones here: {r['negative_gaps']}), so the gap from the write()'s start is "
        "printed as its upper bound. client = request written -> whole answer read.",
        "",
        figures,
        "",
        f"Medians along one request: client -> storm's first read {fmt(phases['to_storm'], 1)} us "
        f"(llmux's request path and a new upstream connection), storm's own answer "
        f"{fmt(phases['storm_own'], 1)} us, gap {fmt(phases['gap'], 1)} us, fallback's answer "
        f"-> client {fmt(phases['back'], 1)} us. Connections: client {conns['client']}, storm "
        f"{conns['storm_accepted']} accepted ({conns['storm_eof']} closed by llmux with a FIN, "
        f"{conns['storm_reset']} with an RST), fallback {conns['fallback_accepted']}. Storm "
        f"skipped: {r['storm_skipped']}; more than one 429 per request: {r['storm_repeats']}; "
        f"errors: {errors}.",
        "",
        table(["target", "measured", "limit", "result", "margin"], rows),
    ])
