"""9. Memory under attack: llmux with its default limits and logging, while llmux-attack-bench
(bench/tools/) opens 2,000 anonymous connections each declaring a 32 MiB body and sending one
byte, 200 uploads with a valid key trickling a byte a minute and 200 heads of 5,000 fields, and
one legitimate client keeps sending requests. The gateway's RSS is sampled throughout."""

import os

from . import procs
from .stats import fmt, table

# The bound: what the attack may grow the gateway by (the 64 MiB allowed for 10,000 idle
# connections; the attackers declare 70 GiB of bodies).
BOUND_KIB = 64 * 1024
ANONYMOUS, SLOW, FLOOD = 2000, 200, 200


def run(llmux, tool, plan, tmp, log, services):
    """Starts the mock and llmux (into `services`, which the caller stops), runs the attack;
    returns the tool's JSON report."""
    workdir = os.path.join(tmp, "attack")
    services["mock-attack"] = procs.start_mock(llmux, os.path.join(workdir, "mock"))
    services["llmux-attack"] = procs.start_llmux(
        llmux, os.path.join(workdir, "llmux"), "llmux-attack", services["mock-attack"].port, 2,
        os.path.join(workdir, "access.log"), request_log=True)
    gateway = services["llmux-attack"]
    out = os.path.join(workdir, "attack.json")
    args = [tool, "--gateway", gateway.address, "--pid", str(gateway.popen.pid),
            "--key", "sk-bench", "--model", "gpt-4o-mini", "--anonymous", str(ANONYMOUS),
            "--slow-authenticated", str(SLOW), "--header-flood", str(FLOOD),
            "--duration-ms", str(plan.attack_ms), "--json", out]
    result, proc = procs.run_json_tool(args, out, gateway, "the attack")
    for line in proc.stdout.splitlines():
        log(f"  {line}")
    for name in ("llmux-attack", "mock-attack"):
        services.pop(name).stop()
    result["duration_ms"] = plan.attack_ms
    return result


def section(r):
    """The figure and its verdicts (Markdown)."""
    rss = r["rss_kib"]
    attackers = r["attackers"]
    legit = r["legit"]
    rows = []
    for kind, label in (("anonymous", "anonymous, 32 MiB declared, 1 byte sent"),
                        ("slow_authenticated", "valid key, 32 MiB declared, a byte a minute"),
                        ("header_flood", "valid key, 5,000 header fields")):
        a = attackers[kind]
        answered = ", ".join(f"{n} x {status}" for status, n in sorted(a["answered"].items()))
        rows.append([label, str(a["count"]), answered or "-", str(a["closed_without_answer"]),
                     str(a["still_open"]), fmt(a["cut_ms_p50"]), fmt(a["cut_ms_max"])])
    grown = rss["peak_over_baseline"]
    cut = all(attackers[k]["still_open"] == 0 for k in attackers)
    verdicts = [
        ["RSS growth under attack", f"{grown / 1024:,.1f} MiB", f"<= {BOUND_KIB / 1024:,.0f} MiB",
         "PASS" if grown <= BOUND_KIB else "MISS", f"{(BOUND_KIB - grown) / 1024:+,.1f} MiB"],
        ["legitimate requests failed", str(legit["failed"]), "0",
         "PASS" if legit["failed"] == 0 and legit["ok_during_attack"] > 0 else "MISS", ""],
        ["attackers still connected at the end", str(sum(attackers[k]["still_open"] for k in attackers)),
         "0", "PASS" if cut else "MISS", ""],
    ]
    return "\n".join([
        f"## 9. Memory under attack (llmux-attack-bench, {r['duration_ms'] / 1000:.0f} s; llmux "
        "with its default limits and both logs)",
        "",
        f"RSS of llmux: {rss['baseline']:,} KiB serving the legitimate client alone, peak "
        f"{rss['peak']:,} KiB during the attack (+{grown:,} KiB), {rss['end']:,} KiB at its end. "
        f"The legitimate client: {legit['sent']} requests one after another, {legit['ok']} answered "
        f"200 ({legit['ok_during_attack']} during the attack), {legit['failed']} failed; latency "
        f"p50 {fmt(legit['p50_ms'], 2)} ms, p99 {fmt(legit['p99_ms'], 2)} ms, max "
        f"{fmt(legit['max_ms'], 2)} ms.",
        "",
        table(["attacker", "connections", "answered", "closed without answer", "still open",
               "cut after p50 ms", "max ms"], rows),
        "",
        table(["target", "measured", "limit", "result", "margin"], verdicts),
    ])
