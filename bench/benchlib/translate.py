"""6. Translation cost: runs llmux-translate-bench (bench/micro/) and turns its samples into the
report's tables and target rows. Needs no running service."""

import json
import os
import subprocess

from .procs import BenchError
from .stats import fmt, table

PROTOCOLS = ("openai-chat", "openai-responses", "anthropic", "gemini")
KINDS = (("text", "recorded text"), ("tool", "recorded tool call"), ("long", "synthetic, long"))
EVENT_LIMIT_NS = 5000.0
REQUEST_LIMIT_US = 1000.0


def run(binary, fixtures, plan, tmp, log):
    """Runs the micro-benchmark; returns its JSON report (every case with its samples)."""
    out = os.path.join(tmp, "translate.json")
    args = [binary, "--fixtures", fixtures, "--repetitions", str(plan.translate_repetitions),
            "--min-time-ms", str(plan.translate_min_ms), "--json", out]
    proc = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0 or not os.path.exists(out):
        raise BenchError(f"llmux-translate-bench failed ({proc.returncode}): {proc.stderr[-2000:]}")
    with open(out) as f:
        result = json.load(f)
    log(f"  {len(result['cases'])} cases x {result['repetitions']} repetitions")
    return result


def _cases(result, group):
    return [c for c in result["cases"] if c["group"] == group]


def _cell(case, scale):
    """median (min-max) of the repetitions, scaled to the table's unit."""
    if case is None:
        return "-"
    return (f"{fmt(case['median_ns'] * scale)} "
            f"({fmt(case['min_ns'] * scale)}-{fmt(case['max_ns'] * scale)})")


def _wall_ratio(result):
    """Median over cases of wall time / CPU time: how much of the time the machine left us."""
    ratios = sorted(c["median_wall_ns"] / c["median_ns"] for c in result["cases"]
                    if c["median_ns"])
    return ratios[len(ratios) // 2] if ratios else None


def section(result):
    streams = {(c["from"], c["to"], c["kind"]): c for c in _cases(result, "stream")}
    rows = []
    for source in PROTOCOLS:
        for kind, label in KINDS:
            cases = [streams.get((source, to, kind)) for to in PROTOCOLS]
            first = next((c for c in cases if c), None)
            if first is None:
                continue
            rows.append([source, f"{label}: {first['upstream_events']} events, "
                         f"{first['upstream_bytes'] / 1024:.1f} KiB"] +
                        [_cell(c, 1.0) for c in cases])
    stream_table = table(["upstream", "stream"] + [f"-> {p}" for p in PROTOCOLS], rows)

    by_pair = {(c["from"], c["to"]): c for c in _cases(result, "request")}
    decodes = {c["from"]: c for c in _cases(result, "decode")}
    rows = []
    for source in ["anthropic"] + [p for p in PROTOCOLS if p != "anthropic"]:  # Claude Code first
        d = decodes.get(source)
        if d is None:
            continue
        origin = "Claude Code" if d["kind"] == "claude-code" else "translated from it"
        rows.append([source, f"{d['request_bytes'] / 1024:.0f} KiB, {d['messages']} messages, "
                     f"{origin}", _cell(d, 1e-3)] +
                    [_cell(by_pair.get((source, to)), 1e-3) for to in PROTOCOLS])
    request_table = table(["client", "request", "decode only"] + [f"-> {p}" for p in PROTOCOLS],
                          rows)
    wall = _wall_ratio(result)
    return "\n".join([
        f"## 6. Translation cost (llmux-translate-bench; thread CPU time, median (min-max) of "
        f"{result['repetitions']} interleaved repetitions of >= {result['min_time_ms']:g} ms)",
        "",
        "Per upstream stream event, ns: the stream fed to the upstream protocol's decoder one "
        "event per read, every neutral event encoded into the client's protocol (decoder and "
        "encoder set-up included, so a short stream carries it over few events). The diagonal "
        "(same protocol through the neutral model) is for reference: llmux passes those bytes "
        "through.",
        "",
        stream_table,
        "",
        "Per request, us: `decodeRequest` of the client's body + `encodeRequest` into the "
        "upstream's protocol. The Claude Code request is generated from the recorded claude-cli "
        "request grown with agent turns (thinking with signatures, tool calls, file contents in "
        "tool results); the others are that conversation translated into their protocol, grown "
        "to the same size.",
        "",
        request_table,
        "",
        f"Wall-clock time was {wall:.2f}x the CPU time (median over cases): the rest is time "
        "the benchmark waited for a core." if wall else "",
    ])


def _worst(cases):
    return max(cases, key=lambda c: c["median_ns"]) if cases else None


def target_rows(result, verdict):
    """[(what, measured, limit, PASS/MISS, margin)]: the worst cross-protocol pair of each kind."""
    rows = []
    streams = [c for c in _cases(result, "stream") if c["from"] != c["to"]]
    for kind, label in KINDS:
        worst = _worst([c for c in streams if c["kind"] == kind])
        if worst is None:
            continue
        ns = worst["median_ns"]
        rows.append([f"translated stream event, {label} streams (worst of "
                     f"{sum(c['kind'] == kind for c in streams)} pairs)",
                     f"{ns:,.0f} ns ({worst['from']}->{worst['to']})",
                     f"<= {EVENT_LIMIT_NS:,.0f} ns",
                     verdict(ns <= EVENT_LIMIT_NS), f"{EVENT_LIMIT_NS - ns:+,.0f} ns"])
    requests = [c for c in _cases(result, "request") if c["from"] != c["to"]]
    for label, group in (("200 KB Claude Code request",
                          [c for c in requests if c["from"] == "anthropic"]),
                         ("200 KB request of another client protocol",
                          [c for c in requests if c["from"] != "anthropic"])):
        worst = _worst(group)
        if worst is None:
            continue
        us = worst["median_ns"] / 1000
        rows.append([f"{label} (worst of {len(group)} pairs)",
                     f"{us:,.0f} us ({worst['from']}->{worst['to']})",
                     f"<= {REQUEST_LIMIT_US:,.0f} us", verdict(us <= REQUEST_LIMIT_US),
                     f"{REQUEST_LIMIT_US - us:+,.0f} us"])
    return rows
